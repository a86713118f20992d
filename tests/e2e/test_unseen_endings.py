"""Games the timers end where the bot is no member of the channel, when every interaction's
token has expired: nothing can show the end then, so the next press on any of the game's
messages, or `/<game> status`, shows its final table (the result, the seed, Rematch),
calling the others at the table. The players see it once: later presses find no game.

Played in a group DM of Alice, Bob and Carol, each with the app installed. Nobody presses
for a quarter of an hour (the fake's clock moves 16 minutes, so Discord refuses every token
the bot holds), then the turns run out one by one (the bot's clock moves past each turn's
deadline in turn) until the game ends: won by whoever the absent players' turns, played
for them, carried over the line, or abandoned when nobody played."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from bot.settings import GuildSettings
from tests.e2e import farkle_play, kuriki_play
from tests.e2e.bot_play import until
from tests.e2e.fake_discord import (
    MESSAGE_COMPONENT,
    TOKEN_LIFETIME,
    FakeDiscord,
    FakeMessage,
    InteractionRecord,
)
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    Driver,
    is_summary,
    read_finished,
    read_session,
    running_bot,
)
from tests.e2e.test_play_anywhere import no_channel_requests, place_in, private

TIMER = 60  # seconds a turn: far inside a token's life, so the bot's clock moves turn by turn
SETTINGS = GuildSettings(turn_timer=TIMER)
SEED = "🔓 Seed"


# conftest's `fake`, its interaction tokens expiring after Discord's 15 minutes.
pytestmark = pytest.mark.fake(token_lifetime=TOKEN_LIFETIME)


async def nobody_plays(d: Driver, channel: int) -> dict[str, object]:
    """A quarter of an hour without a press (every token the bot holds expires), then the
    timers play every turn until the game ends; returns its finished-games row. Nothing can
    show it: no request reaches the channel, and the bot logs no problem."""
    assert d.bot is not None and d.database is not None
    d.fake.advance_clock(TOKEN_LIFETIME + 60)
    offset = 0.0
    database = d.database

    def moved_on(revision: int) -> bool:
        row = read_session(database, channel)
        return row is None or row["revision"] > revision

    while (row := read_session(database, channel)) is not None:
        offset += TIMER + 1
        d.bot.tables.clock = lambda offset=offset: time.time() + offset
        d.bot.timers.poke()
        await until(
            d,
            "the timer to play the turn that ran out",
            lambda revision=row["revision"]: moved_on(revision),
            channel=channel,
        )
    await d.settle()
    [finished] = read_finished(database, channel)
    no_channel_requests(d, channel)
    return finished


def final_tables(d: Driver, channel: int) -> list[FakeMessage]:
    """The public messages that show a game's end (its seed is revealed only there)."""
    return [m for m in d.fake.public(channel) if SEED in m.text()]


def shows_the_end(final: FakeMessage, finished: dict[str, object], tells: set[int],
                  d: Driver) -> None:  # fmt: skip
    """`final` is the finished game's final table: the end, the seed with the game's number
    for /verify, Rematch, and it called exactly `tells`."""
    text = final.text()
    assert "wins the Farkle game!" in (final.content or "") or "**Game over" in text, text
    assert SEED in text and f"/verify {finished['id']}" in text, text
    assert final.labels() == ["Rematch"], final.labels()
    assert d.notified(final) == tells, final.content
    called, _, said = (final.content or "").partition(": ")
    assert set(called.split()) == {f"<@{u}>" for u in tells}, final.content
    assert said.startswith("the game is over."), final.content


async def test_a_press_on_the_old_table_after_a_restart_shows_the_end(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The timers end the Farkle game of Alice and Bob unseen; the bot restarts. Bob's next
    press on the old table shows the end: the old table becomes its summary, the final
    table comes below calling Alice. Seen once: Carol's `/farkle status` then finds no game,
    and Alice's press on the summary's Rematch opens the rematch as usual."""
    db = tmp_path / "e2e.sqlite3"
    channel, _ = place_in(fake, "group DM")
    async with running_bot(db, fake=fake, seed=3, defaults=SETTINGS) as d:
        table = await farkle_play.open_game(d, channel, [ALICE, BOB], target=1000)
        finished = await nobody_plays(d, channel)
        assert d.table(channel) is table and table.buttons() and final_tables(d, channel) == []
        await d.crash()
    async with running_bot(db, fake=fake, seed=4, defaults=SETTINGS) as d:
        button = table.buttons()[-1]
        rec = await d.click(BOB, channel, custom_id=button["custom_id"], message=table)
        assert rec.callback_type == 7 and rec.message is table
        assert is_summary(table) and table.buttons() == [], table.text()
        [final] = final_tables(d, channel)
        assert [m for m in rec.followups if not m.ephemeral] == [final]
        assert private([rec]) == []  # nothing to be told besides
        shows_the_end(final, finished, {ALICE.id}, d)

        status = await d.slash(CAROL, channel, "farkle status")
        assert status.ephemeral and status.text.startswith("There is no game running"), status.text
        assert final_tables(d, channel) == [final]

        rematch = await d.click(ALICE, channel, label="Rematch", message=final)
        assert rematch.callback_type == 7 and final.labels() == ["Rematch opened below"]
        assert "join the table" in d.table(channel).text()
        no_channel_requests(d, channel)


async def test_status_shows_the_end_and_the_old_table_then_loses_its_buttons(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Carol, who only watched, asks `/farkle status` after the timers ended the game
    unseen: the answer is its final table, calling Alice and Bob. The old table above keeps
    its buttons (nothing could reach it); Alice's press on it takes them away and finds no
    game: the end is not shown twice."""
    channel, _ = place_in(fake, "group DM")
    async with running_bot(tmp_path / "e2e.sqlite3", fake=fake, seed=5, defaults=SETTINGS) as d:
        table = await farkle_play.open_game(d, channel, [ALICE, BOB], target=1000)
        finished = await nobody_plays(d, channel)
        status = await d.slash(CAROL, channel, "farkle status")
        final = status.message
        assert final is not None and not final.ephemeral and final_tables(d, channel) == [final]
        shows_the_end(final, finished, {ALICE.id, BOB.id}, d)
        assert table.buttons() != []

        button = table.buttons()[0]
        rec = await d.click(ALICE, channel, custom_id=button["custom_id"], message=table)
        assert rec.callback_type == 7 and table.buttons() == []
        [told] = private([rec])
        assert told.startswith("There is no game running in this channel."), told
        assert final_tables(d, channel) == [final]
        assert d.problems == []
        no_channel_requests(d, channel)


async def test_a_press_in_a_private_reply_shows_the_end_once_for_three_phones(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Kuriki for three: the Roller rolls and is shown the dice under the cup in a reply
    only he sees, with the menu to declare; then nobody plays until the timers end the
    game. He picks a declaration from that old reply: it loses its menu, says the game is
    over, and the final table is posted for everyone. At the same moment as his pick, the
    two others press the old cup: the end is shown once; each of their presses is answered
    with it, or (once it is shown) takes the old cup's buttons away."""
    channel, people = place_in(fake, "group DM")
    async with running_bot(tmp_path / "e2e.sqlite3", fake=fake, seed=327, defaults=SETTINGS) as d:
        game = await kuriki_play.KurikiGame.open(d, people, lives=1, channel=channel)
        await game.choose()
        roll = await game.roll()
        assert roll is not None
        game.secrets.stop()  # (the timers' moves may reveal the dice: that is no leak)
        cup = game.table
        finished = await nobody_plays(d, channel)
        assert cup.buttons() and final_tables(d, channel) == []

        value = roll.options[0]
        menu = next(c for c in roll.ephemeral.all_components() if c.get("type") == 3)
        data = {"custom_id": menu["custom_id"], "component_type": 3, "id": menu.get("id", 1),
                "values": [str(value)]}  # fmt: skip
        pick = d.fake.interaction_payload(MESSAGE_COMPONENT, roll.roller, channel, data,
                                          roll.ephemeral)  # fmt: skip
        others = [p for p in people if p is not roll.roller]
        presses: list[InteractionRecord] = [
            pick,
            *(d.prepare_click(p, channel, custom_id=cup.buttons()[0]["custom_id"], message=cup)
              for p in others),
        ]  # fmt: skip
        await d.dispatch_all(presses)
        [final] = final_tables(d, channel)
        shows_the_end_of_kuriki(final, finished)
        assert roll.ephemeral.all_components() == []
        assert "That button belongs to a game that is over." in roll.ephemeral.text()
        # The cup's presses: each updates the cup (to its summary, the final table below;
        # or, once the end is shown, taking its buttons away and saying there is no game).
        assert cup.buttons() == [] and all(r.callback_type == 7 for r in presses[1:])
        said = private(presses[1:])
        assert all(t.startswith("There is no game running") for t in said), said
        assert d.problems == []
        no_channel_requests(d, channel)


def shows_the_end_of_kuriki(final: FakeMessage, finished: dict[str, object]) -> None:
    text = final.text()
    # The result, said once: a winner above the table, or why nobody won in its headline.
    assert re.search(r"wins the Kuriki game|\*\*(Game over|Abandoned):\*\*", text), text
    assert SEED in text and f"/verify {finished['id']}" in text, text
    assert final.labels() == ["Rematch"], final.labels()
