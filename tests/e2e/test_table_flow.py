"""The table in a busy channel, through the real discord.py client: whoever must act gets a
Discord notification (a new message mentioning exactly them), chatter that pushes the table
up brings it back to the bottom, no message older than 50 minutes is edited, an edit Discord
refuses (30046) falls back to a fresh post, and /status posts the live table."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from bot.service import EDIT_WINDOW
from bot.settings import GuildSettings
from games.farkle.scoring import best_selection
from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.harness import ADMIN, ALICE, BOB, CAROL, GUILD, LOUNGE, TABLE, Driver, running_bot
from tests.e2e.live_table import button, live_table, start, state_of

PLAYERS = {u.id: u for u in (ALICE, BOB, CAROL)}


async def finish_turn(d: Driver) -> int:
    """The current Farkle player rolls until the turn passes (banking when the table allows);
    returns the player whose turn it was."""
    mover = PLAYERS[state_of(d, "farkle").current_player.id]
    for _ in range(20):
        state = state_of(d, "farkle")
        if state.current_player.id != mover.id or state.finished:
            return mover.id
        table = live_table(d, "farkle")
        bank = next((b for b in table.buttons() if ":bank:" in b["custom_id"]), None)
        if bank is not None and not bank.get("disabled"):
            await d.click(mover, TABLE, custom_id=bank["custom_id"], message=table)
            continue
        toggles = [b for b in table.buttons() if ":toggle:" in b["custom_id"]]
        if toggles and not any(b["label"].endswith("✓") for b in toggles):
            for i in best_selection(state.turn.dice, state.rules, state.turn.extended):
                await d.click(mover, TABLE, custom_id=button(table, "toggle", f"{i}-on"))
                table = live_table(d, "farkle")
            bank = next((b for b in table.buttons() if ":bank:" in b["custom_id"]), None)
            if bank is not None and not bank.get("disabled"):
                await d.click(mover, TABLE, custom_id=bank["custom_id"], message=table)
                continue
        await d.click(mover, TABLE, custom_id=button(table, "roll"), message=table)
    raise AssertionError("the turn never ended")


@pytest.mark.e2e(seed=7)
async def test_whoever_must_move_is_notified_once_per_turn(d: Driver) -> None:
    await start(d, "farkle", [ALICE, BOB, CAROL], rules="on-the-table")
    for _ in range(4):
        waiting = PLAYERS[state_of(d, "farkle").current_player.id]
        table = live_table(d, "farkle")
        # The table of this turn is a new message that notifies exactly the player to move.
        assert table.notified == [waiting.id], (table.content, table.notified)
        assert table.allowed_mentions is not None
        assert table.allowed_mentions.get("parse") == []
        assert [int(u) for u in table.allowed_mentions["users"]] == [waiting.id]
        counts = {u.id: len(d.notifications(u)) for u in PLAYERS.values()}
        ended = await finish_turn(d)
        assert ended == waiting.id
        now = {u.id: len(d.notifications(u)) for u in PLAYERS.values()}
        nxt = state_of(d, "farkle").current_player.id
        # One notification for the next player, none for anyone else, whatever was tapped.
        assert {u: now[u] - counts[u] for u in now} == {
            u: int(u == nxt) for u in now
        }, "a tap within the turn notified someone"
        # The table of the turn before is a summary without buttons, still where it was.
        assert table.live_components() == [] and "live table is below" in table.text()
    assert d.messages_with_buttons(TABLE) == [live_table(d, "farkle")]


async def test_chatter_that_pushes_the_table_up_brings_it_back_down(d: Driver) -> None:
    assert d.bot is not None
    # Message edits (each move's MESSAGE_UPDATE) go unread; new messages are still heard.
    assert d.bot._connection.parsers["MESSAGE_UPDATE"].__name__ == "parse_if_listened"
    d.bot.config.repost_delay = 0.05
    scheduled: list[int] = []
    repost_later = d.bot._repost_later

    def scheduling(channel_id: int) -> Coroutine[Any, Any, None]:
        scheduled.append(channel_id)
        return repost_later(channel_id)

    d.bot._repost_later = scheduling  # type: ignore[method-assign]
    await start(d, "farkle", [ALICE, BOB], rules="classic")
    table = live_table(d, "farkle")
    await d.say(CAROL, TABLE, "who's winning?")
    await d.say(ADMIN, TABLE, "no idea")
    await d.say(CAROL, LOUNGE, "elsewhere")  # another channel: not below this table
    # Each message is heard whole before `say` returns (its on_message done): a repost is
    # decided there, so none scheduled means none will come, however slow the machine.
    assert scheduled == []  # two messages: it is still in sight
    assert live_table(d, "farkle") is table
    await d.say(CAROL, TABLE, "ok I'll look later")
    assert scheduled == [TABLE]  # the third: posted again once the channel is quiet
    await asyncio.gather(*d.bot._reposts)  # (already done if the machine was slow)
    await d.settle()
    again = live_table(d, "farkle")
    assert again is not table and d.last_message(TABLE) is again  # at the bottom again
    assert table.live_components() == []  # the old one cannot be pressed
    assert d.messages_with_buttons(TABLE) == [again]
    assert again.notified == []  # a repost is not someone's turn: no ping
    # The reposted table plays on.
    mover = PLAYERS[state_of(d, "farkle").current_player.id]
    rec = await d.click(mover, TABLE, custom_id=button(again, "roll"), message=again)
    assert not rec.ephemeral


async def test_status_posts_the_live_table_with_its_buttons(d: Driver) -> None:
    # Its description says what it does: a public post, not a private look.
    for game in ("farkle", "kuriki", "crap"):
        [command] = [c for c in d.commands() if c["name"] == game]
        [status] = [o for o in command["options"] if o["name"] == "status"]
        assert "bottom of this channel" in status["description"], status
        assert "just to you" not in status["description"]
    await start(d, "farkle", [ALICE, BOB], rules="classic")
    table = live_table(d, "farkle")
    rec = await d.slash(CAROL, TABLE, "farkle status")  # a spectator may ask
    assert rec.message is not None and not rec.ephemeral
    assert live_table(d, "farkle") is rec.message and d.messages_with_buttons(TABLE) == [rec.message]
    assert table.live_components() == []
    mover = PLAYERS[state_of(d, "farkle").current_player.id]
    moved = await d.click(mover, TABLE, custom_id=button(rec.message, "roll"), message=rec.message)
    assert not moved.ephemeral


async def test_no_message_older_than_50_minutes_is_edited(tmp_path) -> None:  # type: ignore[no-untyped-def]
    async with running_bot(
        tmp_path / "e2e.sqlite3", seed=3, defaults=GuildSettings(turn_timer=0)
    ) as d:
        assert d.bot is not None
        d.bot.tables.clock = d.fake.now  # the bot and Discord agree on the time
        await start(d, "farkle", [ALICE, BOB], rules="classic")
        mover = PLAYERS[state_of(d, "farkle").current_player.id]
        await d.click(mover, TABLE, custom_id=button(live_table(d, "farkle"), "roll"))
        assert state_of(d, "farkle").current_player.id == mover.id, "seed: the throw scores"
        table = live_table(d, "farkle")
        d.fake.advance_clock(EDIT_WINDOW + 60)  # a long think
        state = state_of(d, "farkle")
        die = best_selection(state.turn.dice, state.rules, state.turn.extended)[0]
        rec = await d.click(mover, TABLE, custom_id=button(table, "toggle", f"{die}-on"))
        assert not rec.ephemeral
        assert state_of(d, "farkle").turn.selected == [die]
        fresh = live_table(d, "farkle")
        assert fresh is not table and d.last_message(TABLE) is fresh
        assert table.deleted  # too old to become a summary: gone, so it cannot be pressed
        assert f"{state.turn.dice[die]} ✓" in [b["label"] for b in fresh.buttons()]
        too_old = [e for e in d.fake.edits if e.age_seconds > EDIT_WINDOW]
        assert too_old == [], too_old


async def test_an_edit_refused_with_30046_falls_back_to_a_fresh_post(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Discord refuses the edits (its clock says the message is old; the bot's does not):
    every refused edit is followed by a fresh table, and play goes on with nothing lost."""
    fake = FakeDiscord(old_message_edits=1)
    fake.add_guild(GUILD, "Game night", {TABLE: "games", LOUNGE: "lounge"}, owner_id=ADMIN.id)
    await fake.start()
    try:
        async with running_bot(
            tmp_path / "e2e.sqlite3", fake=fake, seed=3, defaults=GuildSettings(turn_timer=0)
        ) as d:
            await start(d, "farkle", [ALICE, BOB], rules="classic")
            mover = PLAYERS[state_of(d, "farkle").current_player.id]
            fake.advance_clock(3700)  # only Discord's clock: the bot thinks the table is new
            rec = await d.click(mover, TABLE, custom_id=button(live_table(d, "farkle"), "roll"))
            assert not rec.ephemeral, rec.text
            state = state_of(d, "farkle")
            assert state.current_player.id == mover.id, "seed: the throw scores"
            for die in best_selection(state.turn.dice, state.rules, state.turn.extended):
                fake.advance_clock(3700)
                table = live_table(d, "farkle")
                rec = await d.click(mover, TABLE, custom_id=button(table, "toggle", f"{die}-on"))
                assert not rec.ephemeral, rec.text
            assert state_of(d, "farkle").turn.selected == sorted(
                best_selection(state.turn.dice, state.rules, state.turn.extended)
            )
            refused = [e for e in fake.edits if e.refused]
            assert refused, "Discord refused no edit: the test did not test"
            stored = state_of(d, "farkle")
            shown = live_table(d, "farkle")
            # What the channel shows is the stored game: its buttons answer this decision.
            assert int(button(shown, "roll").split(":")[5]) == d.bot.tables.adapters[  # type: ignore[union-attr]
                "farkle"
            ].stamp(stored, "roll", None)
            assert d.messages_with_buttons(TABLE) == [shown]
    finally:
        await fake.stop()
    assert fake.violations == []
