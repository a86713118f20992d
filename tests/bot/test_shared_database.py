"""Several bot processes on one PostgreSQL database (each `Tables` here is one process, with
its own cache and shards): everything is visible to all, a move made from a stale copy is
refused rather than lost, each deadline is played by exactly one process (its guild's
owner, or another once it is overdue), and the migration history is the same on both
databases."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

from bot.errors import MovedMeanwhile
from bot.service import Tables
from bot.store import MIGRATIONS, Shards, Store, migration_sql
from tests.bot.conftest import ALICE, BOB, CAROL, Clock, find, make_tables

HALVES = 2
GUILD_0 = 6 << 22  # served by shard 0 of 2: (guild >> 22) % 2
GUILD_1 = 5 << 22  # served by shard 1


def shard_of(guild: int) -> int:
    return (guild >> 22) % HALVES


async def two_processes(url: str, clock: Clock, **kw: object) -> tuple[Tables, Tables]:
    """Process A serves shard 0's guilds, process B shard 1's, on the same database."""
    a = await make_tables(url, clock, seed=1, shards=Shards(HALVES, (0,)), **kw)  # type: ignore[arg-type]
    b = await make_tables(url, clock, seed=2, shards=Shards(HALVES, (1,)), **kw)  # type: ignore[arg-type]
    return a, b


async def start_game(tables: Tables, guild: int, channel: int) -> None:
    reply = await tables.open_lobby(ALICE, guild, channel, "farkle", {"rules": "classic"})
    await tables.table_posted(channel, 555)
    reply = await tables.click(BOB, find(reply, "join"), 555)
    await tables.click(ALICE, find(reply, "start"), 555)


def test_the_guilds_fall_into_both_shards() -> None:
    assert (shard_of(GUILD_0), shard_of(GUILD_1)) == (0, 1)


async def test_sessions_settings_and_finished_games_are_seen_by_every_process(
    pg_url: str, clock: Clock
) -> None:
    a, b = await two_processes(pg_url, clock)
    await start_game(a, GUILD_0, 31)
    assert (await b.sessions.get(31)) is not None  # B reads A's game from the database
    settings = (await a.settings(GUILD_0)).model_copy(update={"turn_timer": 45})
    await a.save_settings(GUILD_0, settings)
    assert (await b.settings(GUILD_0)).turn_timer == 45
    await a.end(ALICE, 31, "farkle")
    assert [g["channel_id"] for g in await b.store.finished_games()] == [31]
    assert await b.store.count_sessions() == 0
    await a.store.close()
    await b.store.close()


async def test_a_move_from_a_stale_copy_is_refused_and_nothing_is_lost(
    pg_url: str, clock: Clock
) -> None:
    """A reshard while both ran: two processes hold the same game; the second to move is
    told, changes nothing, and its next press works on the stored game."""
    a, b = await two_processes(pg_url, clock)
    lobby = await a.open_lobby(ALICE, GUILD_0, 32, "farkle", {})
    assert await b.sessions.get(32) is not None  # B caches revision 1
    await a.click(BOB, find(lobby, "join"), 555)  # A commits revision 2
    after_a = await a.store.load_session(32)
    with pytest.raises(MovedMeanwhile):
        await b.click(CAROL, find(lobby, "join"), 555)  # from revision 1: refused
    assert await b.store.load_session(32) == after_a  # nothing written, Bob still seated
    again = await b.click(CAROL, find(lobby, "join"), 555)  # B read the stored game
    seated = [p.id for p in (await b.sessions.get(32)).lobby.players]  # type: ignore[union-attr]
    assert seated == [ALICE.id, BOB.id, CAROL.id] and again.update is not None
    assert (await a.store.load_session(32)).revision == 3  # type: ignore[union-attr]
    await a.store.close()
    await b.store.close()


async def test_each_process_plays_its_own_deadlines_and_takes_over_overdue_ones(
    pg_url: str, clock: Clock
) -> None:
    a, b = await two_processes(pg_url, clock, takeover_after=30.0)
    await start_game(a, GUILD_0, 41)
    await start_game(b, GUILD_1, 42)
    due = clock.now + 120  # the turn timer
    assert await a.store.next_deadline() == due  # its own; B's only 30 s later
    assert await b.store.next_deadline() == due
    clock.now = due + 1
    assert await a.store.due_sessions(clock.now) == [41]
    assert await b.store.due_sessions(clock.now) == [42]
    # Each catches up only its own guilds' tables (both started tables are not shown yet).
    assert await a.store.behind_sessions() == [41]
    assert await b.store.behind_sessions() == [42]
    clock.now = due + 31  # B presumed dead: A takes its deadline over
    assert await a.store.due_sessions(clock.now) == [41, 42]
    # Exactly one process plays a deadline: the claim excludes the other ...
    assert await a.store.claim(42)
    assert not await b.store.claim(42)
    moved = await a.expire(42)
    await a.store.release(42)
    assert moved is not None
    # ... and once played, the other finds nothing due there (it reads the stored game).
    assert await b.store.claim(42)
    assert await b.expire(42) is None
    await b.store.release(42)
    assert 42 not in await b.store.due_sessions(clock.now)
    await a.store.close()
    await b.store.close()


async def test_settings_of_a_guild_taken_over_are_read_afresh_each_time(
    pg_url: str, clock: Clock
) -> None:
    """A process filling in for a dead one reads that guild's settings, and does not keep
    them: the owner, back, may change them before the next takeover."""
    a, b = await two_processes(pg_url, clock)
    assert (await a.settings(GUILD_1)).turn_timer == 120  # filling in for B
    await b.save_settings(GUILD_1, (await b.settings(GUILD_1)).model_copy(update={"turn_timer": 33}))
    assert (await a.settings(GUILD_1)).turn_timer == 33
    assert (a.store.serves(GUILD_0), a.store.serves(GUILD_1)) == (True, False)
    await a.store.close()
    await b.store.close()


async def test_a_claim_ends_with_the_process_that_held_it(pg_url: str, clock: Clock) -> None:
    a, b = await two_processes(pg_url, clock)
    assert await a.store.claim(77)
    assert not await b.store.claim(77)
    await a.store.close()  # its connection goes, as when the process is killed
    # The server ends the closed connection's session (and its claim) on its own time:
    # looked for until it has, for as long as a hang would take.
    deadline = time.monotonic() + 60
    while not await b.store.claim(77):
        assert time.monotonic() < deadline, "the claim of a closed process was never released"
        await asyncio.sleep(0.05)
    await b.store.close()


async def test_the_migration_history_is_the_same_on_both_databases(
    pg_url: str, tmp_path: Path
) -> None:
    sqlite_store = await Store.open(tmp_path / "m.sqlite3")
    pg_store = await Store.open(pg_url)
    assert await sqlite_store.schema_version() == len(MIGRATIONS)
    assert await pg_store.schema_version() == len(MIGRATIONS)
    await pg_store.close()
    again = await Store.open(pg_url)  # a second start applies nothing twice
    assert await again.schema_version() == len(MIGRATIONS)
    columns = await again.pool.fetch(  # type: ignore[attr-defined]
        "SELECT table_name, column_name, data_type FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name <> 'schema_version'"
    )
    await again.close()
    await sqlite_store.close()
    con = sqlite3.connect(tmp_path / "m.sqlite3")
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    lite = {
        (t, c[1]) for t in tables if not t.startswith("sqlite_") for c in con.execute(f"PRAGMA table_info({t})")
    }
    con.close()
    assert {(r["table_name"], r["column_name"]) for r in columns} == lite
    types = {(r["table_name"], r["column_name"]): r["data_type"] for r in columns}
    assert types["sessions", "channel_id"] == "bigint"  # Discord ids need 64 bits
    assert types["sessions", "deadline"] == "double precision"


def test_a_migration_is_written_once_or_per_database() -> None:
    sql = "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, n INTEGER, at REAL, s TEXT)"
    assert migration_sql(sql, "sqlite") == [sql]
    assert migration_sql(sql, "postgresql") == [
        "CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, n BIGINT,"
        " at DOUBLE PRECISION, s TEXT)"
    ]
    column = "ALTER TABLE finished_games ADD COLUMN bots TEXT NOT NULL DEFAULT '[]'"
    assert migration_sql(column, "postgresql") == [column]  # portable as written
    index = "CREATE INDEX stats_by_wins ON player_stats(guild_id, wins DESC)"
    assert migration_sql(f"{index};\n", "postgresql") == [index]
    both = {"sqlite": "SELECT 1; SELECT 2", "postgresql": "SELECT 3"}
    assert migration_sql(both, "sqlite") == ["SELECT 1", "SELECT 2"]
    assert migration_sql(both, "postgresql") == ["SELECT 3"]
