"""Saves that arrive together are written together (one statement, SQLite's group commit),
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
    statements: list[int] = []
    writing = asyncio.Event()
    release = asyncio.Event()
    real = store.db.execute_fetchall

    async def held(sql: str, params: object) -> object:
        statements.append(sql.count("(?,?,?,?,?,?,?,?,?)"))
        writing.set()
        await release.wait()
        return await real(sql, params)  # type: ignore[arg-type]

    store.db.execute_fetchall = held  # type: ignore[method-assign]
    first = asyncio.ensure_future(store.save_session(row(0, 1)))
    await writing.wait()  # the first save is being written...
    later = asyncio.gather(*(store.save_session(row(c, 1)) for c in range(1, 50)))
    await asyncio.sleep(0.01)
    assert not first.done()  # ...and answers only once committed
    release.set()
    assert await first is True and await later == [True] * 49
    # The 49 saves that came while the first was written went in one statement.
    assert statements == [1, 49]
    results = await asyncio.gather(
        *(store.save_session(row(c, 2, f'{{"n":{c}}}')) for c in range(50)),
        store.save_session(row(7, 5)),  # not the revision after the stored one: refused
    )
    assert results == [True] * 50 + [False]
    assert statements == [1, 49, 51]
    stored = await fetch_sql(store, "SELECT channel_id, revision, data FROM sessions ORDER BY 1")
    assert stored == [(c, 2, f'{{"n":{c}}}') for c in range(50)]


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
