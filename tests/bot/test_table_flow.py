"""How the table follows the conversation, at the service: who is mentioned and when, when
the table is posted afresh rather than edited, which clicks stay good while others move, and
which tables a restart must bring up to date."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import discord
import pytest

from bot.components import Click
from bot.i18n import speaking
from bot.service import EDIT_WINDOW, Reply, Tables, TableUpdate
from bot.settings import GuildSettings
from games.errors import GameError
from tests.bot.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    find,
    make_tables,
    open_game,
)
from tests.bot.test_crap_table import components, my_hand, start_crap
from tests.bot.test_crap_table import state_of as crap_state
from tests.bot.test_farkle_table import play_move
from tests.bot.test_kuriki_table import start_kuriki
from tests.bot.test_kuriki_table import state_of as kuriki_state

PLAYERS = {a.id: a for a in (ALICE, BOB, CAROL)}


def message_at(ts: float) -> int:
    """A message id Discord would have given a message posted at `ts`."""
    return discord.utils.time_snowflake(datetime.fromtimestamp(ts, UTC))


async def show(tables: Tables, reply: Reply, message_id: int) -> TableUpdate:
    """What the bot does once Discord took the table: remember it as shown."""
    update = reply.update
    assert update is not None
    await tables.shown(update, message_id)
    return update


async def farkle_game(tables: Tables, clock: Clock) -> Reply:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    await show(tables, reply, message_at(clock.now))
    reply = await tables.click(BOB, find(reply, "join"), message_at(clock.now))
    await show(tables, reply, reply.update.message_id)  # type: ignore[union-attr]
    return await tables.click(ALICE, find(reply, "start"), reply.update.message_id)  # type: ignore[union-attr]


async def test_the_player_to_move_is_mentioned_once_per_turn(db_path: Path, clock: Clock) -> None:
    tables = await make_tables(db_path, clock, seed=3)
    try:
        await mentioned_once_per_turn(tables, clock)
    finally:
        await tables.store.close()


async def mentioned_once_per_turn(tables: Tables, clock: Clock) -> None:
    started = await farkle_game(tables, clock)
    first = (await tables.sessions.get(CHANNEL)).state.current_player.id
    assert first == BOB.id, "the seed seats Bob first, so Alice's Start is news for him"
    update = await show(tables, started, message_at(clock.now))
    # Start: the table is posted afresh below the lobby, mentioning exactly the first player.
    assert update.fresh and update.ping == (first,)
    assert update.table.content == f"<@{first}>: your turn to roll."
    assert update.summary is not None and update.summary.items == []
    table_id = message_at(clock.now)
    await tables.shown(update, table_id)

    mover = PLAYERS[first]
    rolled = await tables.click(mover, find(started, "roll"), table_id)
    state = (await tables.sessions.get(CHANNEL)).state
    assert state.current_player.id == first, "the seed gives a first throw that scores"
    # The same player goes on: the table is edited in place, nobody is mentioned again.
    assert not rolled.update.fresh and rolled.update.ping == ()  # type: ignore[union-attr]
    await tables.shown(rolled.update, table_id)  # type: ignore[arg-type]
    toggled = await tables.click(mover, find(rolled, "toggle", "0-on"), table_id)
    assert not toggled.update.fresh and toggled.update.ping == ()  # type: ignore[union-attr]


async def test_nobody_is_mentioned_for_their_own_press(db_path: Path, clock: Clock) -> None:
    """Alice starts and the seating puts her first: her own Start tells nobody, so the lobby
    message becomes the table in place (no ping, no extra message). When her turn passes,
    Bob is told with a fresh table as ever."""
    for seed in range(40):
        tables = await make_tables(db_path, clock, seed=seed)
        try:
            started = await farkle_game(tables, clock)
            session = await tables.sessions.get(CHANNEL)
            if session.state.current_player.id != ALICE.id:
                await tables.end(ALICE, CHANNEL, "farkle")
                continue
            update = started.update
            assert update is not None and update.ping == () and session.ping == []
            assert not update.fresh and update.message_id == session.message_id
            assert "<@" not in (update.table.content or "")
            await show(tables, started, update.message_id)  # type: ignore[arg-type]
            # Alice's turn runs out (a timeout is nobody's press): Bob is told, afresh.
            await tables.save_settings(GUILD, GuildSettings(turn_timer=30))
            clock.now += 1
            reply = await tables.click(ALICE, find(started, "roll"), update.message_id)
            while (await tables.sessions.get(CHANNEL)).state.current_player.id == ALICE.id:
                clock.now = (await tables.sessions.get(CHANNEL)).deadline
                reply = await tables.expire(CHANNEL)
            assert reply.update is not None and reply.update.fresh
            assert reply.update.ping == (BOB.id,)
            return
        finally:
            await tables.store.close()
    raise AssertionError("no seed seated Alice first")


async def test_chatter_below_the_table_makes_the_next_update_a_fresh_post(
    tables: Tables, clock: Clock
) -> None:
    started = await farkle_game(tables, clock)
    table_id = message_at(clock.now)
    await tables.shown(started.update, table_id)  # type: ignore[arg-type]
    mover = PLAYERS[(await tables.sessions.get(CHANNEL)).state.current_player.id]
    tables.heard(CHANNEL, table_id - 1)  # older than the table: not below it
    for n in range(1, tables.repost_after):
        tables.heard(CHANNEL, table_id + n)
    roll = find(started, "roll")
    reply = await tables.click(mover, roll, table_id)
    state = (await tables.sessions.get(CHANNEL)).state
    assert state.current_player.id == mover.id, "the seed gives a first throw that scores"
    assert not reply.update.fresh  # type: ignore[union-attr]  # two messages: still in sight
    await tables.shown(reply.update, table_id)  # type: ignore[arg-type]
    tables.heard(CHANNEL, table_id + 99)  # the third
    again = await tables.click(mover, find(reply, "toggle", "0-on"), table_id)
    assert again.update.fresh and again.update.ping == ()  # type: ignore[union-attr]
    # Once posted afresh, the count starts again.
    await tables.shown(again.update, table_id + 100)  # type: ignore[arg-type]
    third = await tables.click(mover, find(again, "toggle", "0-off"), table_id + 100)
    assert not third.update.fresh  # type: ignore[union-attr]


async def test_a_table_older_than_50_minutes_is_never_edited(tables: Tables, clock: Clock) -> None:
    started = await farkle_game(tables, clock)
    table_id = message_at(clock.now)
    await tables.shown(started.update, table_id)  # type: ignore[arg-type]
    assert tables.editable(table_id)
    clock.now += EDIT_WINDOW + 1
    assert not tables.editable(table_id)
    mover = PLAYERS[(await tables.sessions.get(CHANNEL)).state.current_player.id]
    reply = await tables.click(mover, find(started, "roll"), table_id)
    assert reply.update.fresh  # type: ignore[union-attr]


async def test_an_overtaken_update_is_dropped(tables: Tables, clock: Clock) -> None:
    started = await farkle_game(tables, clock)
    table_id = message_at(clock.now)
    await tables.shown(started.update, table_id)  # type: ignore[arg-type]
    mover = PLAYERS[(await tables.sessions.get(CHANNEL)).state.current_player.id]
    rolled = await tables.click(mover, find(started, "roll"), table_id)
    assert (await tables.sessions.get(CHANNEL)).state.current_player.id == mover.id
    first, second = await asyncio.gather(
        tables.click(mover, find(rolled, "toggle", "0-on"), table_id),
        tables.click(mover, find(rolled, "toggle", "1-on"), table_id),
    )
    assert tables.overtaken(first.update) and not tables.overtaken(second.update)  # type: ignore[arg-type]
    assert (await tables.sessions.get(CHANNEL)).state.turn.selected == [0, 1]


async def test_a_restart_finds_the_tables_behind_and_their_pending_mention(
    db_path: Path, clock: Clock
) -> None:
    first = await make_tables(db_path, clock, seed=3)  # Bob starts: the table calls him
    started = await farkle_game(first, clock)
    # The bot dies after committing the start, before the table reached Discord.
    await first.store.close()
    second = await make_tables(db_path, clock)
    assert await second.store.behind_sessions() == [CHANNEL]
    update = await second.catch_up(CHANNEL)
    assert update is not None and update.fresh
    assert update.ping == started.update.ping and update.ping  # type: ignore[union-attr]
    assert update.revision == (await second.store.load_session(CHANNEL)).revision  # type: ignore[union-attr]
    await second.shown(update, message_at(clock.now))
    assert await second.store.behind_sessions() == []
    assert await second.catch_up(CHANNEL) is None
    await second.store.close()


async def test_the_rollers_menu_survives_other_players_peeks_and_votes(tables: Tables) -> None:
    """A Roller choosing a declaration is not refused because someone sneaked a peek or a
    foul vote came and went meanwhile."""
    reply = await start_kuriki(tables, ALICE, BOB, CAROL)
    state = await kuriki_state(tables)
    roller = PLAYERS[state.roller]
    reply = await tables.click(roller, find(reply, "cw"), 777)
    rolled = await tables.click(roller, find(reply, "roll"), 777)
    state = await kuriki_state(tables)
    assert state.phase == "declare", "the seed gives a plain roll"
    (secret,) = rolled.followups
    menu = next(i for i in secret.items if i.custom_id.startswith("t:kuriki:declare:"))
    other = next(p for p in PLAYERS.values() if p is not roller)
    asked = await tables.click(other, find(rolled, "sneak"), 777)  # "Peek anyway?"
    await tables.click(other, find(asked, "sneakok"), 4242, ephemeral=True)  # the foul
    third = next(p for p in PLAYERS.values() if p not in (roller, other))
    await tables.command(third, CHANNEL, "kuriki", "propose", f"{other.id}:rude")
    value = menu.options[0].value
    declared = await tables.click(
        roller, Click.parse(menu.custom_id, (value,)), 4242, ephemeral=True
    )
    assert "You declared" in declared.embed.description  # type: ignore[union-attr]
    assert (await kuriki_state(tables)).phase == "respond"


async def test_everyone_lets_an_acquire_go_at_once_without_refusals(tables: Tables) -> None:
    table = await start_crap(tables, threshold=200)
    state = await crap_state(tables)
    caller = PLAYERS[state.current_player.id]
    hand = await my_hand(tables, caller, table)
    cid = next(c for c in components(hand) if c.startswith("t:crap:acquire:"))
    acquired = await tables.click(caller, Click.parse(cid, ("13",)), 999, ephemeral=True)
    others = [p for p in PLAYERS.values() if p is not caller]
    # The window asks nobody (it closes by itself): nobody is pinged.
    assert acquired.update.ping == ()  # type: ignore[union-attr]
    let_go = find(acquired.table, "nocall")  # type: ignore[arg-type]
    results = await asyncio.gather(*(tables.click(p, let_go, 888) for p in others))
    assert all(isinstance(r, Reply) for r in results)
    after = await crap_state(tables)
    assert after.acquire is None and after.current_player.id != caller.id  # settled, turn over


async def test_a_buried_table_is_posted_again_without_waiting_for_a_move(
    tables: Tables, clock: Clock
) -> None:
    started = await farkle_game(tables, clock)
    table_id = message_at(clock.now)
    await tables.shown(started.update, table_id)  # type: ignore[arg-type]
    assert await tables.repost(CHANNEL) is None  # nothing below it yet
    said = [tables.heard(CHANNEL, table_id + n) for n in range(1, tables.repost_after + 2)]
    # Only the message that buries it asks for a repost (once, not for every message after).
    assert said == [False] * (tables.repost_after - 1) + [True, False]
    update = await tables.repost(CHANNEL)
    assert update is not None and update.fresh and update.message_id == table_id
    assert update.summary is not None and update.summary.items == []
    assert {Click.parse(i.custom_id).action for i in update.table.items} >= {"roll"}  # type: ignore[union-attr]
    await tables.shown(update, table_id + 50)
    assert await tables.repost(CHANNEL) is None  # at the bottom again


async def test_a_move_committed_while_the_table_is_reposted_keeps_the_new_message(
    tables: Tables, clock: Clock
) -> None:
    """A fresh table is recorded as shown while another move of the same channel was being
    committed: the move must not bring back the old message as the table."""
    started = await farkle_game(tables, clock)
    old_id = message_at(clock.now)
    await tables.shown(started.update, old_id)  # type: ignore[arg-type]
    mover = PLAYERS[(await tables.sessions.get(CHANNEL)).state.current_player.id]
    gate, committing = asyncio.Event(), asyncio.Event()
    real_save = tables.store.save_session

    async def slow_save(row):  # type: ignore[no-untyped-def]
        committing.set()
        await gate.wait()
        return await real_save(row)

    tables.store.save_session = slow_save  # type: ignore[method-assign]
    move = asyncio.create_task(tables.click(mover, find(started, "roll"), old_id))
    await committing.wait()  # the move is inside its commit
    new_id = old_id + 1000
    await tables.shown(started.update, new_id)  # type: ignore[arg-type]  # posted afresh meanwhile
    gate.set()
    await move
    assert (await tables.sessions.get(CHANNEL)).message_id == new_id
    assert (await tables.store.load_session(CHANNEL)).message_id == new_id  # type: ignore[union-attr]


async def test_an_absurdly_large_counter_still_renders_and_plays(tables: Tables, clock: Clock) -> None:
    """A stored game whose turn counter grew past what a custom_id's 10 digits hold: the
    table still renders (stamps are compared modulo 10^10) and its buttons still play."""
    await farkle_game(tables, clock)
    session = await tables.sessions.get(CHANNEL)
    session.state.turn_number = 10**14 + 7
    status = await tables.status(CHANNEL, "farkle")
    assert all(len(i.custom_id) <= 100 for i in status.items or [])
    roll = find(status, "roll")
    mover = PLAYERS[session.state.current_player.id]
    await tables.click(mover, roll, status.update.message_id or 1)  # type: ignore[union-attr]
    assert (await tables.sessions.get(CHANNEL)).state.turn.throws == 1


async def test_an_edited_tables_mark_is_written_with_others_and_a_lost_one_is_redrawn(
    tmp_path: Path, clock: Clock
) -> None:
    """SQLite: a new table message is recorded at once; an edit of the same message is
    recorded within SHOWN_DELAY with the other edits of that moment, and on close. A mark
    lost in a crash costs one redraw at the restart, never a move. (PostgreSQL writes every
    mark at once: the other processes read them.)"""
    import sqlite3


    db_path = tmp_path / "shown.sqlite3"

    def row() -> tuple[int, int, int]:
        with sqlite3.connect(db_path) as con:
            return con.execute(
                "SELECT revision, shown_revision, message_id FROM sessions WHERE channel_id = ?",
                (CHANNEL,),
            ).fetchone()

    first = await make_tables(db_path, clock)
    started = await farkle_game(first, clock)
    clock.now += 1
    table_id = message_at(clock.now)
    await show(first, started, table_id)  # a new message: written at once
    assert row() == (started.update.revision, started.update.revision, table_id)  # type: ignore[union-attr]
    mover = PLAYERS[(await first.sessions.get(CHANNEL)).state.current_player.id]
    rolled = await first.click(mover, find(started, "roll"), table_id)
    assert not rolled.update.fresh  # type: ignore[union-attr]
    await show(first, rolled, table_id)  # an edit: deferred
    assert row() == (rolled.update.revision, started.update.revision, table_id)  # type: ignore[union-attr]
    writer = first.store._shown_writer  # type: ignore[attr-defined]
    assert writer is not None  # the mark waits SHOWN_DELAY for others to join it
    await writer
    assert row() == (rolled.update.revision, rolled.update.revision, table_id)  # type: ignore[union-attr]
    # The bot dies right after an edit: its mark is lost, the move is not.
    toggled = await first.click(mover, find(rolled, "toggle", "0-on"), table_id)
    await show(first, toggled, table_id)
    first.store._shown.clear()  # what a kill -9 loses
    await first.store.close()
    second = await make_tables(db_path, clock)
    assert await second.store.behind_sessions() == [CHANNEL]
    update = await second.catch_up(CHANNEL)
    assert update is not None and update.revision == toggled.update.revision  # type: ignore[union-attr]
    # The redraw edits the same message and mentions nobody: the edit it replays had no ping.
    assert not update.fresh and update.ping == () and update.message_id == table_id
    await second.store.close()


async def test_a_late_mark_of_an_older_table_never_replaces_the_newer_one(
    tables: Tables, clock: Clock
) -> None:
    """A display that finishes late (or a process thought dead) marks an older table as shown
    after a newer one was recorded: the newer one stays the table, so a restart never edits a
    retired message or redraws a table that is current."""
    started = await farkle_game(tables, clock)
    old_id = message_at(clock.now)
    await show(tables, started, old_id)
    session = await tables.sessions.get(CHANNEL)
    mover = PLAYERS[session.state.current_player.id]
    rolled = await tables.click(mover, find(started, "roll"), old_id)
    new_id = old_id + 1000
    await tables.shown(rolled.update, new_id)  # type: ignore[arg-type]  # posted afresh
    await tables.sessions.table_shown(CHANNEL, old_id, started.update.revision, game=session.created_at)  # type: ignore[union-attr]
    if hasattr(tables.store, "flush_shown"):
        await tables.store.flush_shown()
    stored = await tables.store.load_session(CHANNEL)
    assert stored is not None and stored.message_id == new_id
    assert stored.shown_revision == rolled.update.revision  # type: ignore[union-attr]
    assert (await tables.sessions.get(CHANNEL)).message_id == new_id
    assert await tables.store.behind_sessions() == []


async def test_a_stale_pull_by_someone_who_could_not_have_pulled_says_why(
    tables: Tables,
) -> None:
    """Kuriki: the Next Guy pulls; the others' presses of that Pull, handled after it, are
    told the game's real reason, not "that moment has passed" (they never could pull)."""
    reply = await start_kuriki(tables, ALICE, BOB, CAROL)
    roller = PLAYERS[(await kuriki_state(tables)).roller]
    reply = await tables.click(roller, find(reply, "cw"), 777)
    rolled = await tables.click(roller, find(reply, "roll"), 777)
    assert (await kuriki_state(tables)).phase == "declare", "the seed rolls no Kuriki"
    (secret,) = rolled.followups
    declare = next(i for i in secret.items if i.custom_id.startswith("t:kuriki:declare:"))
    value = declare.options[0].value
    declared = await tables.click(roller, Click.parse(declare.custom_id, (value,)), 900, ephemeral=True)
    nxt = PLAYERS[(await kuriki_state(tables)).next_guy]
    pull = find(Reply(items=declared.table.items), "pull")  # type: ignore[union-attr]
    await tables.click(nxt, pull, 777)
    before = await tables.store.load_session(CHANNEL)
    for other in (p for p in PLAYERS.values() if p is not nxt):
        with pytest.raises(GameError) as refused:
            await tables.click(other, pull, 777)
        assert "moment has passed" not in str(refused.value)
        assert "not your" in str(refused.value), str(refused.value)
    assert await tables.store.load_session(CHANNEL) == before


async def test_an_updates_summary_shows_the_game_as_the_update_found_it(
    tables: Tables, clock: Clock
) -> None:
    """The summary an older table message is reduced to is made only when a fresh post
    retires that message, which may be after more moves: it still shows the last moves and
    the language of the update's own moment."""
    await tables.save_settings(GUILD, GuildSettings(language="de"))
    reply = await open_game(tables, ALICE, BOB, CAROL, rules="classic", target=100_000)
    for _ in range(3):
        reply = await play_move(tables, reply)
    first = reply.update
    assert first is not None
    then = (await tables.sessions.get(CHANNEL)).state  # type: ignore[union-attr]
    with speaking("de"):
        expected = tables.adapters["farkle"].summary_of(then, first.table.embed.title)
    for _ in range(6):
        reply = await play_move(tables, reply)
    now = (await tables.sessions.get(CHANNEL)).state  # type: ignore[union-attr]
    assert now.log[-2:] != then.log[-2:]
    summary = first.summary  # (asked now, outside the table's language)
    assert summary is not None and summary.items == []
    assert summary.embed.to_dict() == expected.embed.to_dict()
    assert "Der aktuelle Tisch ist weiter unten." in str(summary.embed.description)
    assert first.summary is summary  # made once
