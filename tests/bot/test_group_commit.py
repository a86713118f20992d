"""Saves that arrive together are written together (one transaction, SQLite's group commit),
and each still answers for its own row: written, or refused because another revision came
first. Only the SQLite store batches; the PostgreSQL store's saves are single statements."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest

from bot.store import SessionRow, SqliteStore
from tests.bot.conftest import fetch_sql


def row(channel: int, revision: int, data: str = "{}") -> SessionRow:
    return SessionRow(channel, 1, "farkle", data, revision, None, None, time.time(), 0)


@pytest.fixture
async def store(tmp_path: Path) -> SqliteStore:
    s = await SqliteStore.open_file(tmp_path / "games.sqlite3")
    yield s  # type: ignore[misc]
    await s.close()


async def test_saves_made_at_once_are_each_committed_and_answered(store: SqliteStore) -> None:
    # The games exist (a new game's first save also clears any log left in its channel).
    assert await asyncio.gather(*(store.save_session(row(c, 1)) for c in range(50))) == [True] * 50
    executed: list[str] = []
    saves: list[asyncio.Future[bool]] = []
    answered_at_commit: list[int] = []

    def trace(sql: str) -> None:
        executed.append(sql)
        if sql == "COMMIT":  # no save answers before its row is committed
            answered_at_commit.append(sum(s.done() for s in saves))

    store.db.writer.set_trace_callback(trace)
    saves += [asyncio.ensure_future(store.save_session(row(c, 2))) for c in range(50)]
    assert await asyncio.gather(*saves) == [True] * 50
    # The 50 saves made at once went in one transaction: an UPDATE a row, one commit.
    assert executed.count("BEGIN") == 1 and executed.count("COMMIT") == 1
    assert answered_at_commit == [0]
    assert sum(s.startswith("UPDATE sessions SET guild_id") for s in executed) == 50
    assert not any("INTO sessions" in s for s in executed)  # (no UPSERT needed)
    executed.clear()
    results = await asyncio.gather(
        *(store.save_session(row(c, 3, f'{{"n":{c}}}')) for c in range(50)),
        store.save_session(row(7, 5)),  # not the revision after the stored one: refused
    )
    store.db.writer.set_trace_callback(None)
    assert results == [True] * 50 + [False]
    assert executed.count("COMMIT") == 1
    stored = await fetch_sql(store, "SELECT channel_id, revision, data FROM sessions ORDER BY 1")
    assert stored == [(c, 3, f'{{"n":{c}}}') for c in range(50)]


async def test_a_row_that_follows_no_stored_revision_is_written_as_the_upsert_would(
    store: SqliteStore,
) -> None:
    """A later revision is written by an UPDATE over the one before it; when there is none
    to follow, the UPSERT decides, as it did for every row: a row gone behind the store's
    back is inserted again, a row at another revision is left, a new one is inserted. In
    one transaction, each save answered for its own row."""
    assert await asyncio.gather(*(store.save_session(row(c, 1)) for c in range(3))) == [True] * 3
    await store.db.execute("DELETE FROM sessions WHERE channel_id = 1")
    results = await asyncio.gather(
        store.save_session(row(0, 2, '"updated"')),
        store.save_session(row(1, 2, '"gone, inserted"')),
        store.save_session(row(2, 3, '"skipped a revision"')),
        store.save_session(row(3, 1, '"new"')),
    )
    assert results == [True, True, False, True]
    stored = await fetch_sql(store, "SELECT channel_id, revision, data FROM sessions ORDER BY 1")
    assert stored == [(0, 2, '"updated"'), (1, 2, '"gone, inserted"'), (2, 1, "{}"), (3, 1, '"new"')]


async def test_log_lines_saved_at_once_go_in_the_same_commit_as_their_moves(
    store: SqliteStore,
) -> None:
    """Saves with log lines are written together too (one transaction, one commit);
    the lines of a refused save are not kept, and a new game starts with no lines."""
    assert await asyncio.gather(*(store.save_session(row(c, 1)) for c in range(6))) == [True] * 6
    executed: list[str] = []
    store.db.writer.set_trace_callback(executed.append)
    results = await asyncio.gather(
        *(store.save_session(replace(row(c, 2), log=[f"move of {c}"])) for c in range(5)),
        store.save_session(replace(row(5, 4), log=["never made"])),  # refused: game 5 is at 1
    )
    store.db.writer.set_trace_callback(None)
    assert results == [True] * 5 + [False]
    assert executed[0] == "BEGIN" and executed[-1] == "COMMIT"
    # Each move one UPDATE; the refused one then tried by the UPSERT, which leaves it.
    assert sum(s.startswith("UPDATE sessions SET guild_id") for s in executed) == 6
    assert sum("INTO sessions" in s for s in executed) == 1
    assert sum("INTO game_log" in s for s in executed) == 5  # the lines of those written
    assert [await store.game_log(c) for c in (0, 4, 5)] == [["move of 0"], ["move of 4"], []]
    # The channel's game is deleted behind the bot's back (not through the store): a new
    # game there starts without the old game's lines.
    await store.db.execute("DELETE FROM sessions WHERE channel_id = 4")
    assert await store.save_session(row(4, 1)) is True
    assert await store.game_log(4) == []
    assert await store.save_session(replace(row(4, 2), log=["fresh"])) is True
    assert await store.game_log(4) == ["fresh"]


async def test_a_failed_statement_fails_every_save_in_it_and_the_next_ones_go_on(
    store: SqliteStore,
) -> None:
    assert await store.save_session(row(1, 1)) is True
    bad = replace(row(3, 1), kind=None)  # NOT NULL: the whole statement is refused
    outcome = await asyncio.gather(
        store.save_session(row(2, 1)), store.save_session(bad), return_exceptions=True
    )
    assert all(isinstance(o, Exception) and "NOT NULL" in str(o) for o in outcome)
    assert await store.save_session(row(2, 1)) is True
    assert await fetch_sql(store, "SELECT channel_id FROM sessions ORDER BY 1") == [(1,), (2,)]


async def test_closing_writes_the_saves_already_accepted(tmp_path: Path) -> None:
    store = await SqliteStore.open_file(tmp_path / "games.sqlite3")
    saves = [asyncio.ensure_future(store.save_session(row(c, 1))) for c in range(5)]
    await asyncio.sleep(0)  # accepted, not yet written
    await store.close()
    assert [s.result() for s in saves] == [True] * 5
    again = await SqliteStore.open_file(tmp_path / "games.sqlite3")
    try:
        assert await again.count_sessions() == 5
    finally:
        await again.close()


async def test_a_caller_that_gives_up_leaves_the_others_answered(store: SqliteStore) -> None:
    first = asyncio.ensure_future(store.save_session(row(1, 1)))
    quitter = asyncio.ensure_future(store.save_session(row(2, 1)))
    stayer = asyncio.ensure_future(store.save_session(row(3, 1)))
    await asyncio.sleep(0)
    quitter.cancel()
    assert await first is True and await stayer is True
    assert quitter.cancelled()
