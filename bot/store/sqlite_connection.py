"""The SQLite file as the event loop uses it: writes right on the loop, long reads in a thread.

A move's commit is one small statement in WAL mode with synchronous=NORMAL: tens of
microseconds, handed to the OS and not synced (only checkpoints sync). Handing it to a thread
costs more than the statement itself: a wake-up of the thread and one of the loop, about
0.3 ms of CPU when the bot is not busy (docs/performance.md, "Per click"). So the one
connection that writes (`Database.execute`, `transaction`) is a plain `sqlite3` connection
used only by the event loop's thread: its statements never interleave with another
coroutine's, and a transaction is one function call. What may take long goes to aiosqlite's
thread, on a read-only connection of its own (`read`): leaderboards over millions of rows,
listings, and the checkpoints that copy the WAL into the file (PASSIVE: they never wait for
the writer, nor it for them). In WAL mode readers and the writer do not block each other.

The API follows aiosqlite's where the store used it (`execute` is awaitable and an async
context manager giving a cursor), so the queries read the same as before."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Generator, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How often the WAL is checked, and how large it may grow before it is checkpointed (SQLite's
#: own default is 1,000 pages, checkpointed by the committing statement: on the loop).
CHECKPOINT_EVERY = 1.0
CHECKPOINT_BYTES = 4 * 1024 * 1024


class Cursor:
    """A finished statement's cursor, aiosqlite-style (its rows are read at once)."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def description(self) -> Any:
        return self._cursor.description

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def fetchmany(self, size: int) -> list[Any]:
        return self._cursor.fetchmany(size)

    async def close(self) -> None:
        self._cursor.close()


class _Statement:
    """`await db.execute(...)` or `async with db.execute(...) as cur`."""

    def __init__(self, run: Callable[[], sqlite3.Cursor]) -> None:
        self._run = run
        self._cursor: Cursor | None = None

    def __await__(self) -> Generator[Any, None, Cursor]:
        return self._start().__await__()

    async def _start(self) -> Cursor:
        return Cursor(self._run())

    async def __aenter__(self) -> Cursor:
        self._cursor = Cursor(self._run())
        return self._cursor

    async def __aexit__(self, *exc: object) -> None:
        if self._cursor is not None:
            await self._cursor.close()


class Database:
    """Open with `await Database.open(path)`; `close()` when done."""

    def __init__(self, path: str, writer: sqlite3.Connection) -> None:
        self.path = path
        self.writer = writer
        #: Long reads and checkpoints, in aiosqlite's thread (None for ":memory:", which a
        #: second connection would not see: its reads run on the writer).
        self.reader: aiosqlite.Connection | None = None
        self._checkpoints: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, path: Path | str) -> Database:
        path = str(path)
        writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            writer.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a commit survives a crash or kill -9 of the process.
            writer.execute("PRAGMA synchronous=NORMAL")
            writer.execute("PRAGMA busy_timeout=5000")  # another process (migrate, a shell)
            writer.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints run in the thread
        except BaseException:
            writer.close()
            raise
        db = cls(path, writer)
        if path != ":memory:":
            db.reader = await aiosqlite.connect(path, isolation_level=None)
            await db.reader.execute("PRAGMA query_only=1")
            db._checkpoints = asyncio.create_task(db._checkpoint_now_and_then())
        return db

    # ------------------------------------------------------------- on the loop

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> _Statement:
        return _Statement(lambda: self.writer.execute(sql, parameters))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> _Statement:
        return _Statement(lambda: self.writer.executemany(sql, rows))

    async def execute_fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        return self.writer.execute(sql, parameters).fetchall()

    async def executescript(self, sql: str) -> None:
        self.writer.executescript(sql)

    def transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work(connection)` in one transaction: all of it committed, or none of it."""
        self.writer.execute("BEGIN")
        try:
            result = work(self.writer)
        except BaseException:
            self.writer.execute("ROLLBACK")
            raise
        self.writer.execute("COMMIT")
        return result

    # ------------------------------------------------------------ in the thread

    async def read(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        """The rows of a query that may take long, read in the thread (committed data)."""
        if self.reader is None:
            return await self.execute_fetchall(sql, parameters)
        return list(await self.reader.execute_fetchall(sql, parameters))

    async def read_with_columns(
        self, sql: str, parameters: Sequence[Any] = ()
    ) -> tuple[list[str], list[Any]]:
        """As `read`, with the column names."""
        if self.reader is None:
            cursor = self.writer.execute(sql, parameters)
            return [c[0] for c in cursor.description], cursor.fetchall()
        async with self.reader.execute(sql, parameters) as reading:
            return [c[0] for c in reading.description], list(await reading.fetchall())

    async def checkpoint(self) -> None:
        """Copy the WAL into the database file, in the thread; the loop goes on writing."""
        if self.reader is not None:
            await self.reader.execute("PRAGMA wal_checkpoint(PASSIVE)")

    async def _checkpoint_now_and_then(self) -> None:
        wal = self.path + "-wal"
        while True:
            await asyncio.sleep(CHECKPOINT_EVERY)
            try:
                if os.path.getsize(wal) >= CHECKPOINT_BYTES:
                    await self.checkpoint()
            except FileNotFoundError:
                pass
            except Exception:
                log.exception("Could not checkpoint %s", self.path)

    # ------------------------------------------------------------------ closing

    @property
    def is_open(self) -> bool:
        try:
            self.writer.total_changes  # noqa: B018 (raises once closed)
        except sqlite3.ProgrammingError:
            return False
        return True

    async def close(self) -> None:
        """Close both connections (the last one to close checkpoints the WAL away)."""
        if self._checkpoints is not None:
            self._checkpoints.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpoints
        if self.reader is not None:
            await self.reader.close()
        self.writer.close()

    def abandon(self) -> threading.Thread | None:
        """Stop the checkpoints and the reader's thread (returned, to be joined) and leave
        the connections open, as a killed process would: for tests of crashes (a real crash
        needs nothing)."""
        if self._checkpoints is not None:
            self._checkpoints.cancel()
        if self.reader is None:
            return None
        thread: threading.Thread = self.reader._thread
        self.reader.stop()
        return thread
