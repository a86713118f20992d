"""The SQLite backend: one file, for one process (the default). How it reaches the file
(writes on the event loop, long reads in a thread) is `bot.store.sqlite_connection`."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import bot.store.ratings as ratings
from bot.records import place_of, rating_points
from bot.store.interface import RevisionConflict, Store
from bot.store.migrations import MIGRATIONS, migration_sql
from bot.store.rows import (
    CLEAR_UNSEEN_SQL,
    ENDING_SHOWN_SQL,
    FINISHED_COLUMNS,
    FINISHED_INSERT,
    PLAYER_COLUMNS,
    UNSEEN_SQL,
    WINS_AHEAD_SQL,
    FinishedGame,
    PlayedGame,
    PlayerRating,
    PlayerRecord,
    RatedStanding,
    SessionRow,
    Standing,
    UnseenEnding,
    finished_record,
    finished_values,
    places,
    played_game,
    played_sql,
)
from bot.store.seats import DROP_SEATS_SQL
from bot.store.sqlite_connection import Database
from bot.store.sqlite_saves import SAVE_BATCH, save_rows
from bot.store.stats import added_record, leaderboard_rows

log = logging.getLogger(__name__)

#: How long a table's "shown" mark may wait to be written with others (see table_shown).
SHOWN_DELAY = 0.25


class SqliteStore(Store):
    """One SQLite file, for one process: open with `await Store.open(path)`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        #: Deferred "table shows revision N" marks: (channel, the session's created_at) ->
        #: (message id, revision). Keyed by the game: two games of a channel never merge.
        self._shown: dict[tuple[int, float], tuple[int, int]] = {}
        self._shown_writer: asyncio.Task[None] | None = None
        #: Saves waiting for the statement being written (see save_session).
        self._saves: list[tuple[SessionRow, asyncio.Future[bool]]] = []
        self._saver: asyncio.Task[None] | None = None

    @classmethod
    async def open_file(cls, path: Path | str) -> SqliteStore:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        store = cls(await Database.open(path))
        try:
            await store.migrate()
        except BaseException:
            await store.db.close()  # its reader's thread would keep the process alive
            raise
        return store

    async def close(self) -> None:
        if self._saver is not None:
            await self._saver  # the saves already accepted are written first
        if self._shown_writer is not None:
            self._shown_writer.cancel()
        await self.flush_shown()
        await self.db.close()

    async def schema_version(self) -> int:
        async with self.db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def migrate(self) -> None:
        """Apply every migration newer than the file's version, each in its own transaction."""
        version = await self.schema_version()
        for number, migration in enumerate(MIGRATIONS, start=1):
            if number <= version:
                continue

            def apply(
                conn: sqlite3.Connection, migration: Any = migration, n: int = number
            ) -> None:
                for statement in migration_sql(migration, "sqlite"):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version={n}")

            self.db.transaction(apply)

    # ----------------------------------------------------------------- sessions

    async def load_session(self, channel_id: int) -> SessionRow | None:
        async with self.db.execute(
            "SELECT channel_id, guild_id, kind, data, revision, message_id, deadline, created_at,"
            " shown_revision FROM sessions WHERE channel_id = ?",
            (channel_id,),
        ) as cur:
            row = await cur.fetchone()
        if not row:
            return None
        async with self.db.execute(_BESIDE, (channel_id,)) as cur:
            return SessionRow(*row, beside=[b for (b,) in await cur.fetchall()])

    async def save_session(self, row: SessionRow) -> bool:
        """Insert or update a session. An update keeps the row's table message and the
        revision it shows: only `table_shown` writes those (a move committed while the table
        was being posted afresh must not bring back the old message).

        The saves made in one turn of the event loop are written together, in one
        transaction (a group commit): each still returns only once its row is committed, and
        a busy bot commits once for many moves (docs/performance.md, "Per click"). The log
        lines of the saves written go into the same transaction."""
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._saves.append((row, done))
        if self._saver is None:
            self._saver = asyncio.create_task(self._write_saves(), name="sqlite-saves")
        return await done

    async def _write_saves(self) -> None:
        """Write the waiting saves, a transaction at a time, until none are left."""
        try:
            while self._saves:
                batch, self._saves = self._saves[:SAVE_BATCH], self._saves[SAVE_BATCH:]
                rows = [row for row, _ in batch]
                try:
                    written = self.db.transaction(
                        functools.partial(save_rows, rows, time.time())
                    )
                except Exception as exc:
                    for _, done in batch:
                        if not done.done():
                            done.set_exception(exc)
                    continue
                for row, done in batch:
                    if not done.done():  # its caller may have given up (cancelled)
                        done.set_result((row.channel_id, row.revision) in written)
        finally:
            self._saver = None

    async def note_session(self, channel_id: int, revision: int, data: str) -> bool:
        rows = await self.db.execute_fetchall(
            "UPDATE sessions SET data = ? WHERE channel_id = ? AND revision = ?"
            " RETURNING channel_id",
            (data, channel_id, revision),
        )
        return bool(rows)

    async def table_shown(
        self,
        channel_id: int,
        message_id: int,
        revision: int,
        *,
        created_at: float,
        defer: bool = False,
    ) -> None:
        """The table message now in the channel, and the revision it shows. With `defer`
        (the same message, edited) the mark is written with the others of the next
        SHOWN_DELAY seconds in one transaction: a move's own commit is what must not be
        lost, and a mark lost in a crash only makes the restarted bot redraw that table
        once. A new message is written at once (a restart edits the message it names)."""
        game = (channel_id, created_at)
        pending = self._shown.pop(game, None)
        if pending is not None:
            revision = max(revision, pending[1])
        if defer:
            self._shown[game] = (message_id, revision)
            if self._shown_writer is None:
                self._shown_writer = asyncio.create_task(self._write_shown_later())
            return
        await self.db.execute(
            _SHOWN_UPDATE, (message_id, revision, channel_id, created_at, revision)
        )

    async def _write_shown_later(self) -> None:
        await asyncio.sleep(SHOWN_DELAY)
        self._shown_writer = None
        try:
            await self.flush_shown()
        except Exception:
            log.exception("Could not record which tables are shown")

    async def flush_shown(self) -> None:
        """Write the deferred marks now, in one transaction."""
        marks, self._shown = self._shown, {}
        if marks:
            await self.db.executemany(
                _SHOWN_UPDATE,
                [(m, r, channel, created, r) for (channel, created), (m, r) in marks.items()],
            )

    async def behind_sessions(self) -> list[int]:
        """Channels whose table message shows an older state than the one stored. Read in
        the thread: it passes over every session row (98 ms at 50,000 on the loop; an index
        would be written on every move instead), and it runs at every start and RESUME."""
        await self.flush_shown()
        rows = await self.db.read(
            "SELECT channel_id FROM sessions WHERE shown_revision < revision ORDER BY updated_at"
        )
        return [r[0] for r in rows]

    async def clear_deadline(self, channel_id: int) -> None:
        """Stop the timers of a session (used on a damaged row, so the timer loop moves on)."""
        await self.db.execute(
            "UPDATE sessions SET deadline = NULL WHERE channel_id = ?", (channel_id,)
        )

    async def set_aside(self, channel_id: int, reason: str, cleared_by: int | None) -> None:
        """Move a session that cannot be loaded to `damaged_sessions`, in one transaction."""

        def move(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO damaged_sessions (channel_id, guild_id, kind, data, revision,"
                " reason, cleared_by, moved_at) SELECT channel_id, guild_id, kind, data,"
                " revision, ?, ?, ? FROM sessions WHERE channel_id = ?",
                (reason, cleared_by, time.time(), channel_id),
            )
            _drop_session(conn, channel_id)

        self.db.transaction(move)

    async def damaged_sessions(self) -> list[dict[str, object]]:
        async with self.db.execute("SELECT * FROM damaged_sessions ORDER BY id") as cur:
            cols = [c[0] for c in cur.description]
            return [dict(zip(cols, r, strict=True)) for r in await cur.fetchall()]

    async def delete_session(self, channel_id: int) -> None:
        self.db.transaction(functools.partial(_drop_session, channel_id=channel_id))

    async def game_log(self, channel_id: int) -> list[str]:
        async with self.db.execute(_LOG_LINES, (channel_id,)) as cur:
            return [line for (lines,) in await cur.fetchall() for line in json.loads(lines)]

    async def finish_session(
        self, channel_id: int, game: FinishedGame, revision: int | None = None
    ) -> int:
        def finish(conn: sqlite3.Connection) -> int:
            if revision is not None:
                gone = conn.execute(
                    "DELETE FROM sessions WHERE channel_id = ? AND revision = ?",
                    (channel_id, revision),
                )
                if gone.rowcount != 1:
                    raise RevisionConflict(channel_id)
            finished_at = time.time() if game.finished_at is None else game.finished_at
            log = None
            if game.log is not None:
                stored = conn.execute(_LOG_LINES, (channel_id,)).fetchall()
                log = [line for (lines,) in stored for line in json.loads(lines)] + game.log
            conn.execute(CLEAR_UNSEEN_SQL, (game.channel_id,))
            cur = conn.execute(
                f"INSERT INTO finished_games ({FINISHED_INSERT})"
                f" VALUES ({', '.join('?' * len(FINISHED_INSERT.split(',')))})",
                finished_values(game, finished_at, log),
            )
            game_id = int(cur.lastrowid or 0)
            _record_players(conn, game, game_id, finished_at)
            _drop_session(conn, channel_id)
            return game_id

        return self.db.transaction(finish)

    async def unseen_ending(self, channel_id: int) -> UnseenEnding | None:
        async with self.db.execute(UNSEEN_SQL, (channel_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else UnseenEnding(*row)

    async def ending_shown(self, game_id: int) -> None:
        await self.db.execute(ENDING_SHOWN_SQL, (game_id,))

    async def due_sessions(self, now: float) -> list[int]:
        async with self.db.execute(
            "SELECT channel_id FROM sessions WHERE deadline IS NOT NULL AND deadline <= ?"
            " ORDER BY deadline",
            (now,),
        ) as cur:
            return [r[0] for r in await cur.fetchall()]

    async def next_deadline(self) -> float | None:
        async with self.db.execute(
            "SELECT MIN(deadline) FROM sessions WHERE deadline IS NOT NULL"
        ) as cur:
            row = await cur.fetchone()
        return row[0] if row else None

    async def count_sessions(self) -> int:
        """Read in the thread: counting passes over every session row (73 ms at 50,000)."""
        rows = await self.db.read("SELECT COUNT(*) FROM sessions")
        return int(rows[0][0]) if rows else 0

    # ----------------------------------------------------------------- settings

    async def load_settings(self, guild_id: int) -> str | None:
        async with self.db.execute(
            "SELECT data FROM guild_settings WHERE guild_id = ?", (guild_id,)
        ) as cur:
            row = await cur.fetchone()
        return row[0] if row else None

    async def save_settings(self, guild_id: int, data: str) -> None:
        await self.db.execute(
            "INSERT INTO guild_settings (guild_id, data, updated_at) VALUES (?,?,?)"
            " ON CONFLICT(guild_id) DO UPDATE SET data=excluded.data,"
            " updated_at=excluded.updated_at",
            (guild_id, data, time.time()),
        )

    async def finished_games(self, channel_id: int | None = None) -> list[dict[str, object]]:
        sql = f"SELECT {FINISHED_COLUMNS} FROM finished_games"
        args: tuple[object, ...] = ()
        if channel_id is not None:
            sql += " WHERE channel_id = ?"
            args = (channel_id,)
        cols, rows = await self.db.read_with_columns(sql + " ORDER BY id", args)
        return [finished_record(cols, r) for r in rows]

    async def finished_game(self, game_id: int) -> dict[str, object] | None:
        """One finished game by its id (as `finished_games` gives it), or None."""
        async with self.db.execute(
            f"SELECT {FINISHED_COLUMNS} FROM finished_games WHERE id = ?", (game_id,)
        ) as cur:
            cols = [c[0] for c in cur.description]
            row = await cur.fetchone()
        return None if row is None else finished_record(cols, row)

    async def player_games(
        self, place: int, player_id: int, kind: str | None, offset: int, limit: int
    ) -> tuple[int, list[PlayedGame]]:
        mine = (player_id, place) if kind is None else (player_id, place, kind)
        args = mine + mine
        count, page = played_sql(kind is not None)
        # In the thread: a player of many games is many index entries to count.
        counted = await self.db.read(count, args)
        rows = await self.db.read(page, (*args, limit, offset))
        return (int(counted[0][0]) if counted else 0), [played_game(r) for r in rows]

    # ----------------------------------------------------------------- stats

    async def player_records(
        self, guild_id: int | None, player_id: int, kinds: Iterable[str]
    ) -> list[PlayerRecord]:
        """A player's figures in this server (None: outside servers, all such games
        together), one per game of `kinds` they have played."""
        wanted = list(kinds)
        async with self.db.execute(
            "SELECT kind, games, wins, bot_games, bot_wins, abandoned, best_score, records"
            " FROM player_records WHERE guild_id = ? AND player_id = ?"
            f" AND kind IN ({','.join('?' * len(wanted))})",
            (guild_id or 0, player_id, *wanted),
        ) as cur:
            rows = {r[0]: r for r in await cur.fetchall()}
        return [
            PlayerRecord.stored(rows[kind][:7], json.loads(rows[kind][7]))
            for kind in wanted
            if kind in rows
        ]

    async def leaderboard(
        self, place: int, kind: str, period: str, offset: int, limit: int
    ) -> tuple[int, list[Standing]]:
        """How many players a leaderboard has, and `limit` of them from `offset`: most wins
        first, then fewer games (the better rate), then the earlier player id. `place` is
        `records.place_of` (a server, or the channel of games outside servers); `kind` a
        game or `ALL_GAMES`; `period` a key of `records.period_keys`."""
        key = (place, kind, period)
        # Read in the thread: a big server's board is many rows (tens of ms past page 1000).
        counted = await self.db.read(
            "SELECT COUNT(*) FROM player_totals WHERE guild_id = ? AND kind = ? AND period = ?",
            key,
        )
        total = int(counted[0][0]) if counted else 0
        rows = await self.db.read(
            "SELECT player_id, games, wins FROM player_totals"
            " WHERE guild_id = ? AND kind = ? AND period = ?"
            " ORDER BY wins DESC, games, player_id LIMIT ? OFFSET ?",
            (*key, limit, offset),
        )
        ahead = 0
        if rows and offset:  # a tie may run over the page's top
            games, wins = rows[0][1], rows[0][2]
            ahead = int((await self.db.read(WINS_AHEAD_SQL, (*key, wins, wins, games)))[0][0])
        ranks = places([(r[1], r[2]) for r in rows], offset, ahead)
        return total, [
            Standing(rank=rank, player_id=r[0], games=r[1], wins=r[2])
            for rank, r in zip(ranks, rows, strict=True)
        ]

    # ----------------------------------------------------------------- ratings

    async def current_season(self, place: int) -> int:
        async with self.db.execute(ratings.SEASON_SQL, (place,)) as cur:
            row = await cur.fetchone()
        return int(row[0])

    async def start_season(self, place: int, started_by: int | None, now: float) -> int:
        rows = await self.db.execute_fetchall(
            ratings.NEW_SEASON_SQL, (place, place, now, started_by)
        )
        return int(rows[0][0])

    async def rating_board(
        self, place: int, kind: str, season: int, offset: int, limit: int
    ) -> tuple[int, list[RatedStanding]]:
        key = (place, kind, season)
        counted = await self.db.read(ratings.BOARD_COUNT_SQL, key)
        rows = await self.db.read(ratings.BOARD_SQL, (*key, limit, offset))
        ahead = 0
        if rows and offset:  # a tie may run over the page's top
            sql, bound = ratings.ahead_sql(float(rows[0][1]))
            ahead = int((await self.db.read(sql, (*key, bound)))[0][0])
        ranks = places([rating_points(float(r[1])) for r in rows], offset, ahead)
        return int(counted[0][0]), [
            RatedStanding(rank, *r) for rank, r in zip(ranks, rows, strict=True)
        ]

    async def _read(self, sql: str, args: Sequence[object]) -> list[Sequence[object]]:
        return list(await self.db.read(sql, tuple(args)))

    async def _write_if(self, steps: Sequence[tuple[str, Sequence[object]]]) -> bool:
        def write(conn: sqlite3.Connection) -> None:
            for sql, args in steps:
                if conn.execute(sql, tuple(args)).rowcount < 1:
                    raise _Unchanged

        try:
            self.db.transaction(write)
        except _Unchanged:
            return False
        return True

    async def player_ratings(
        self, place: int, player_id: int, kinds: Iterable[str], season: int
    ) -> list[PlayerRating]:
        wanted = list(kinds)
        rows = await self.db.execute_fetchall(
            ratings.player_ratings_sql(len(wanted)), (place, season, player_id, *wanted)
        )
        return ratings.player_ratings(wanted, rows)

    async def rebuild_ratings(self, *, write: bool = True) -> ratings.Rebuilt:
        """Replay every rated game into `ratings` in one transaction (a bot writing to the
        file meanwhile waits for it)."""

        def rebuild(conn: sqlite3.Connection) -> ratings.Rebuilt:
            stored = conn.execute(ratings.ALL_RATINGS_SQL).fetchall()
            fresh, report = ratings.rebuilt(stored, conn.execute(ratings.REPLAY_SQL))
            if write:
                conn.execute("DELETE FROM ratings")
                conn.executemany(ratings.UPSERT_SQL, ratings.all_values(fresh))
            return report

        return self.db.transaction(rebuild)


def _record_players(
    conn: sqlite3.Connection, game: FinishedGame, game_id: int, finished_at: float
) -> None:
    """The game's per-player rows, each player's figures and records in its game, each
    person's leaderboard totals of its game and of all games in its week, its month and all
    time, and, when the game is rated, its players' ratings (inside the caller's
    transaction)."""
    rows = game.player_rows(game_id, finished_at)
    place = place_of(game.guild_id, game.channel_id)
    rated = ratings.counts(rows)
    if rated:
        (season,) = conn.execute(ratings.SEASON_SQL, (place,)).fetchone()
        rows = ratings.in_season(rows, season)
    conn.executemany(
        f"INSERT OR IGNORE INTO player_stats ({PLAYER_COLUMNS})"
        f" VALUES ({', '.join('?' * len(rows[0]))})",
        rows,
    )
    for row in rows:
        key = (row.guild_id or 0, row.player_id, row.kind)
        old = conn.execute(
            "SELECT games, wins, bot_games, bot_wins, abandoned, best_score, records"
            " FROM player_records WHERE guild_id = ? AND player_id = ? AND kind = ?",
            key,
        ).fetchone()
        conn.execute(
            "INSERT OR REPLACE INTO player_records (guild_id, player_id, kind, games, wins,"
            " bot_games, bot_wins, abandoned, best_score, records) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (*key, *added_record(old, row)),
        )
    conn.executemany(
        "INSERT INTO player_totals (guild_id, kind, period, player_id, games, wins)"
        " VALUES (?,?,?,?,1,?) ON CONFLICT (guild_id, kind, period, player_id)"
        " DO UPDATE SET games = games + 1, wins = wins + excluded.wins",
        leaderboard_rows(rows, {game_id: game.channel_id}),
    )
    if rated:
        stored = conn.execute(
            ratings.old_ratings_sql(len(rows)), ratings.old_ratings_args(place, rows)
        ).fetchall()
        conn.executemany(ratings.UPSERT_SQL, ratings.updated_ratings(place, rows, stored))


#: A running game's stored log lines, oldest first (one row per saved revision).
_LOG_LINES = "SELECT lines FROM game_log WHERE channel_id = ? ORDER BY revision"
#: What a running game keeps beside its row, oldest first (`SessionRow.beside`).
_BESIDE = (
    "SELECT beside FROM game_log WHERE channel_id = ? AND beside IS NOT NULL ORDER BY revision"
)


def _drop_session(conn: sqlite3.Connection, channel_id: int) -> None:
    """Delete a session and its log (inside the caller's transaction)."""
    conn.execute("DELETE FROM sessions WHERE channel_id = ?", (channel_id,))
    conn.execute("DELETE FROM game_log WHERE channel_id = ?", (channel_id,))
    conn.execute(DROP_SEATS_SQL, (channel_id,))


#: A mark of an older revision than the recorded one changes nothing: a late writer (a
#: display that lost a race, a process thought dead) never points a restart at a table
#: message older than the one recorded. Nor does a mark of an earlier game of the channel
#: (another `created_at`): its final table never becomes the next lobby's message.
_SHOWN_UPDATE = (
    "UPDATE sessions SET message_id = ?, shown_revision = ?"
    " WHERE channel_id = ? AND created_at = ? AND shown_revision <= ?"
)


class _Unchanged(Exception):
    """A step of `_write_if` changed no row: its transaction is rolled back."""
