"""/games' index of who sits where (bot/store/seats.py, migration 15) on both stores, and the
list it makes (bot/games_list.py): every running game and lobby of a player in every place,
whom each waits on, when its turn runs out, a link to its table; the games waiting on the
player first, the longest waiting first; the index follows every save, leave and end, keeps
its times over a restart, and is filled in by the migration for the games stored before."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.games_list import SHOWN, my_games
from bot.service import Tables
from bot.store import SeatedGame
from games.lobby import Seat as LobbySeat
from tests.bot.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    fetch_sql,
    find,
    make_tables,
    run_sql,
)

DM = 7000  # a group DM: no server
OTHER = 2001  # another channel of the server


async def start(tables: Tables, channel: int, guild: int | None, *players: object) -> None:
    """A Farkle game of `players` (the first opens it, in a server or not), its table 555."""
    first, *rest = players
    reply = await tables.open_lobby(first, guild, channel, "farkle", {}, server=guild is not None)  # type: ignore[arg-type]
    await tables.table_posted(channel, 555 + channel)
    for p in rest:
        reply = await tables.click(p, find(reply, "join"), 555 + channel)  # type: ignore[arg-type]
    await tables.click(first, find(reply, "start"), 555 + channel)  # type: ignore[arg-type]


def waiting_on(game: SeatedGame) -> list[str]:
    return [name for _id, name, _since in game.waiting_on]


async def seats(tables: Tables, player: int) -> dict[int, SeatedGame]:
    _total, games = await tables.store.player_seats(player, 100)
    return {g.channel_id: g for g in games}


async def test_the_index_follows_lobbies_games_leaves_and_ends(tables: Tables, clock: Clock) -> None:
    await tables.open_lobby(CAROL, GUILD, OTHER, "kuriki", {})
    clock.now += 60
    await start(tables, CHANNEL, GUILD, ALICE, BOB)
    clock.now += 60
    await start(tables, DM, None, BOB, CAROL, ALICE)
    session = await tables.sessions.get(CHANNEL)
    assert session is not None
    first = tables.adapters["farkle"].waiting_on(session.state)
    bob = await seats(tables, BOB.id)
    assert set(bob) == {CHANNEL, DM}
    assert bob[CHANNEL].started and bob[CHANNEL].guild_id == GUILD and bob[DM].guild_id is None
    assert bob[CHANNEL].waiting == (BOB.id in first)
    assert waiting_on(bob[CHANNEL]) == [{ALICE.id: "Alice", BOB.id: "Bob"}[p] for p in first]
    assert bob[CHANNEL].message_id == 555 + CHANNEL
    assert bob[CHANNEL].due == session.turn_deadline  # the turn's, 120 s on
    carol = await seats(tables, CAROL.id)
    assert not carol[OTHER].started and carol[OTHER].due == clock.now - 120 + 900
    # Leaving a game takes the seat out; the game goes on without it.
    await tables.leave(CAROL, DM, "farkle")
    assert set(await seats(tables, CAROL.id)) == {OTHER}
    # An ended game, and a lobby closed by its host, leave no seat behind.
    await tables.end(ALICE, CHANNEL, "farkle")
    assert set(await seats(tables, ALICE.id)) == {DM}
    await tables.leave(CAROL, OTHER, "kuriki")
    assert await seats(tables, CAROL.id) == {}
    assert await fetch_sql(tables.store, "SELECT channel_id FROM seats WHERE channel_id IN (?, ?)", CHANNEL, OTHER) == []


async def test_a_seat_keeps_its_time_until_its_waiting_changes_also_over_a_restart(
    tables: Tables, db_path: Path | str, clock: Clock
) -> None:
    await start(tables, CHANNEL, GUILD, ALICE, BOB)
    before = await seats(tables, ALICE.id)
    since = before[CHANNEL].since
    # A fresh process forgets what it wrote: its first save writes the seats again, and a
    # seat whose waiting is as stored keeps its time.
    again = await make_tables(db_path, clock)
    try:
        clock.now += 500
        session = await again.sessions.get(CHANNEL)
        assert session is not None
        await again.sessions.save(session.working())
        assert (await seats(again, ALICE.id))[CHANNEL].since == since
    finally:
        await again.store.close()


async def test_the_list_puts_the_games_waiting_on_the_player_first_with_links(
    tables: Tables, clock: Clock
) -> None:
    await start(tables, CHANNEL, GUILD, ALICE, BOB)
    clock.now += 3600
    await start(tables, DM, None, BOB, ALICE)
    clock.now += 60
    await tables.open_lobby(ALICE, GUILD, OTHER, "crap", {})
    turns = {}
    for channel in (CHANNEL, DM):
        session = await tables.sessions.get(channel)
        assert session is not None
        turns[channel] = (set(tables.adapters["farkle"].waiting_on(session.state)), session)
    reply = await my_games(tables, ALICE.id)
    assert reply.ephemeral and reply.embed is not None
    lines = str(reply.embed.description).splitlines()
    assert len(lines) == 3
    mine = [c for c in (CHANNEL, DM) if ALICE.id in turns[c][0]]
    others = [c for c in (CHANNEL, DM) if ALICE.id not in turns[c][0]]
    for n, channel in enumerate([*mine, *others]):  # the oldest first in each group
        session = turns[channel][1]
        where = "@me" if channel == DM else str(GUILD)
        assert f"(https://discord.com/channels/{where}/{channel}/{555 + channel})" in lines[n]
        assert f"<t:{int(session.turn_deadline)}:R>" in lines[n]
        assert ("**your turn**" in lines[n]) == (channel in mine), lines[n]
        if channel in others:
            assert "waiting for Bob" in lines[n]
    assert "CRAP" in lines[2] and "lobby" in lines[2] and f"/{GUILD}/{OTHER})" in lines[2]
    assert "direct messages" in (lines[0] if [*mine, *others][0] == DM else lines[1])


async def test_many_games_are_counted_past_the_list(tables: Tables) -> None:
    for n in range(SHOWN + 3):
        await tables.open_lobby(ALICE, GUILD, 9000 + n, "farkle", {})
    reply = await my_games(tables, ALICE.id)
    assert reply.embed is not None
    lines = str(reply.embed.description).splitlines()
    assert len(lines) == SHOWN + 1 and lines[-1] == "…and 3 more games."
    assert len(str(reply.embed.description)) <= 4096
    nothing = await my_games(tables, CAROL.id)
    assert nothing.ephemeral and "no running game" in str(nothing.content)


async def test_the_migration_fills_the_index_from_the_games_stored_before(
    db_path: Path | str, clock: Clock
) -> None:
    """A database from before the index: its games are listed, whom they wait on read from
    the games themselves until their next move; an unreadable row is passed over."""
    tables = await make_tables(db_path, clock)
    await start(tables, CHANNEL, GUILD, ALICE, BOB)
    await tables.open_lobby(BOB, GUILD, OTHER, "kuriki", {})
    await run_sql(
        tables.store,
        "INSERT INTO sessions (channel_id, guild_id, kind, data, revision, created_at,"
        " updated_at) VALUES (?, ?, 'farkle', '{not json', 1, 1, 1)",
        DM,
        GUILD,
    )
    await run_sql(tables.store, "DROP TABLE seats")
    session = await tables.sessions.get(CHANNEL)
    assert session is not None
    first = set(tables.adapters["farkle"].waiting_on(session.state))
    version = await tables.store.schema_version()
    if "sqlite" in str(db_path):
        await run_sql(tables.store, f"PRAGMA user_version={version - 1}")
    else:
        await run_sql(tables.store, "DELETE FROM schema_version WHERE version = ?", version)
    await tables.store.close()
    tables = await make_tables(db_path, clock)
    try:
        stored = await fetch_sql(
            tables.store, "SELECT player_id, channel_id, waiting, started FROM seats ORDER BY 2, 1"
        )
        assert stored == [
            (ALICE.id, CHANNEL, None, 1), (BOB.id, CHANNEL, None, 1), (BOB.id, OTHER, None, 0)
        ]  # fmt: skip
        reply = await my_games(tables, BOB.id)
        text = str(reply.embed.description if reply.embed else "")
        assert ("**your turn**" in text) == (BOB.id in first)
        assert ("waiting for Alice" in text) == (ALICE.id in first)
        assert "lobby" in text and len(text.splitlines()) == 2
    finally:
        await tables.store.close()


async def test_a_move_and_its_seats_are_committed_together(tables: Tables) -> None:
    """Seats are written in the move's own transaction: when they cannot be written, the
    move is not stored either (so a crash never leaves the index and the game apart)."""
    await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    session = await tables.sessions.get(CHANNEL)
    assert session is not None
    await run_sql(tables.store, "DROP TABLE seats")
    work = session.working(lobby=session.lobby.model_copy(deep=True))
    work.lobby.join(LobbySeat(id=BOB.id, name="Bob"))
    with pytest.raises(Exception):  # noqa: B017 (the database's own error, either backend)
        await tables.sessions.save(work)
    stored = await tables.store.load_session(CHANNEL)
    assert stored is not None and stored.revision == session.revision
    assert '"Bob"' not in stored.data


async def test_a_refused_first_save_leaves_the_running_games_log_and_seats(tables: Tables) -> None:
    """A new game's first save clears the log an unfinished game left, in the same
    transaction as the row: when the row is refused (another game is stored there), neither
    the running game's log nor its seats change."""
    await start(tables, CHANNEL, GUILD, ALICE, BOB)
    log = await tables.store.game_log(CHANNEL)
    stored = await tables.store.load_session(CHANNEL)
    assert log and stored is not None and stored.revision > 1
    before = await seats(tables, ALICE.id)
    again = replace(stored, revision=1, log=["never made"], seats=[], beside=[])
    assert await tables.store.save_session(again) is False
    assert await tables.store.game_log(CHANNEL) == log
    assert (await seats(tables, ALICE.id)).keys() == before.keys() == {CHANNEL}
