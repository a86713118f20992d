"""The PostgreSQL store: one database shared by every bot process of a sharded bot.

Every session, setting and finished game is visible to all processes. A process serves the
guilds of its shards (`Shards`): it catches up their tables after a restart and plays their
turn deadlines; a deadline of another process's guild is played here only once it is
`takeover_after` seconds overdue (that process is presumed dead). Each deadline is claimed
with a PostgreSQL advisory lock held on the timer's own connection, so exactly one process
plays it, and the claim ends with the connection when a process dies. Every change of a
session is conditional on the revision it was made from, so two processes never both apply
a move to the same state (the loser is told, and reads the stored game afresh)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence

import asyncpg

import bot.store.ratings as ratings
import bot.store.seats as seats
from bot.records import place_of, rating_points
from bot.store.interface import RevisionConflict, Shards, Store
from bot.store.migrations import MIGRATIONS, migration_sql, postgres_params
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
    PlayerRow,
    RatedStanding,
    SessionRow,
    Standing,
    UnseenEnding,
    finished_record,
    finished_values,
    log_values,
    places,
    played_game,
    played_sql,
    session_values,
)
from bot.store.stats import added_record, leaderboard_rows

#: The advisory lock key that serialises migrations of processes starting at once
#: (channel ids, the keys of deadline claims, are Discord snowflakes: far larger).
MIGRATION_LOCK = 7_214_000_001

_SESSION_COLUMNS = (
    "channel_id, guild_id, kind, data, revision, message_id, deadline, created_at, shown_revision"
)

_FINISHED_MARKS = ", ".join(f"${i}" for i in range(1, len(FINISHED_INSERT.split(",")) + 1))
_PLAYER_MARKS = ", ".join(f"${i}" for i in range(1, len(PlayerRow._fields) + 1))
#: The ratings statements both stores share, with PostgreSQL's placeholders.
_SEASON = postgres_params(ratings.SEASON_SQL)
_NEW_SEASON = postgres_params(ratings.NEW_SEASON_SQL)
_UPSERT_RATING = postgres_params(ratings.UPSERT_SQL)
_BOARD_COUNT = postgres_params(ratings.BOARD_COUNT_SQL)
_BOARD = postgres_params(ratings.BOARD_SQL)
_WINS_AHEAD = postgres_params(WINS_AHEAD_SQL)

#: Insert or update a session ($1-$8: `session_values`), only over the revision before it.
_UPSERT_SESSION = (
    "INSERT INTO sessions (channel_id, guild_id, kind, data, revision, message_id,"
    " deadline, created_at, updated_at)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, extract(epoch FROM clock_timestamp()))"
    " ON CONFLICT (channel_id) DO UPDATE SET guild_id = excluded.guild_id,"
    " kind = excluded.kind, data = excluded.data, revision = excluded.revision,"
    " deadline = excluded.deadline, updated_at = excluded.updated_at"
    " WHERE sessions.revision = excluded.revision - 1"
)
#: The same, and the revision's log lines ($9, JSON) appended when it was written: one
#: statement, so the move and its lines commit together (its status counts the lines' row).
_UPSERT_SESSION_LOGGED = (
    f"WITH saved AS ({_UPSERT_SESSION} RETURNING channel_id, revision)"
    " INSERT INTO game_log (channel_id, revision, lines, beside)"
    " SELECT channel_id, revision, $9, $10 FROM saved"
)
_DROP_LOG = "DELETE FROM game_log WHERE channel_id = $1"
_LOG_LINES = "SELECT lines FROM game_log WHERE channel_id = $1 ORDER BY revision"
_SEATS_OF = postgres_params(seats.SEATS_OF_SQL)
_DROP_SEATS = postgres_params(seats.DROP_SEATS_SQL)
_INSERT_SEAT = postgres_params(seats.INSERT_SEAT_SQL)
#: A session and what it keeps beside its row, oldest first (`SessionRow.beside`).
_LOAD_SESSION = (
    f"SELECT {_SESSION_COLUMNS}, ARRAY(SELECT g.beside FROM game_log g"
    " WHERE g.channel_id = s.channel_id AND g.beside IS NOT NULL ORDER BY g.revision)"
    " FROM sessions s WHERE s.channel_id = $1"
)


def owned_filter(shards: Shards | None) -> str:
    """SQL that is true for the session rows of `shards`' guilds (all rows without shards)."""
    if shards is None:
        return "TRUE"
    ids = ", ".join(str(int(i)) for i in shards.ids)
    return f"(((COALESCE(guild_id, 0) >> 22) % {int(shards.count)}) IN ({ids}))"


class PostgresStore(Store):
    """Open with `await Store.open("postgresql://...", shards=..., takeover_after=...)`."""

    def __init__(
        self, url: str, pool: asyncpg.Pool, shards: Shards | None, takeover_after: float
    ) -> None:
        self.url = url
        self.pool = pool
        self.shards = shards
        self.takeover_after = takeover_after
        # A foreign deadline is noticed by looking: never sleep longer than the takeover.
        self.max_sleep = min(Store.max_sleep, takeover_after)
        self._owned = owned_filter(shards)
        self._owned_rows = self._owned
        self._claims: asyncpg.Connection | None = None

    def serves(self, guild_id: int | None) -> bool:
        return self.shards is None or self.shards.serves(guild_id)

    @classmethod
    async def open_url(
        cls, url: str, *, shards: Shards | None = None, takeover_after: float = 10.0
    ) -> PostgresStore:
        pool = await asyncpg.create_pool(url, min_size=1, max_size=10)
        store = cls(url, pool, shards, takeover_after)
        try:
            await store.migrate()
        except BaseException:
            await pool.close()
            raise
        return store

    async def close(self) -> None:
        if self._claims is not None:
            await self._claims.close()
            self._claims = None
        await self.pool.close()

    async def schema_version(self) -> int:
        async with self.pool.acquire() as conn:
            exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
            if not exists:
                return 0
            return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))

    async def migrate(self) -> None:
        """Apply every migration newer than the database's version, in one transaction per
        migration, under a lock so that processes starting together apply each once."""
        async with self.pool.acquire() as conn:
            for number, migration in enumerate(MIGRATIONS, start=1):
                async with conn.transaction():
                    await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
                    await conn.execute(
                        "CREATE TABLE IF NOT EXISTS schema_version ("
                        " version BIGINT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
                    )
                    done = await conn.fetchval(
                        "SELECT COALESCE(MAX(version), 0) FROM schema_version"
                    )
                    if number <= done:
                        continue
                    for statement in migration_sql(migration, "postgresql"):
                        await conn.execute(statement)
                    await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", number)

    # ----------------------------------------------------------------- sessions

    async def load_session(self, channel_id: int) -> SessionRow | None:
        # One statement, one snapshot: the row and what was stored beside it up to its revision.
        row = await self.pool.fetchrow(_LOAD_SESSION, channel_id)
        return SessionRow(*row[:-1], beside=list(row[-1])) if row else None

    async def save_session(self, row: SessionRow) -> bool:
        if row.revision == 1 or row.seats is not None:
            # A new game (no lines left by an unfinished one before it), or a move that
            # changes who sits where: in one transaction.
            async with self.pool.acquire() as conn:
                try:
                    async with conn.transaction():
                        if row.revision == 1:
                            await conn.execute(_DROP_LOG, row.channel_id)
                        if not await _upsert_session(conn, row):
                            raise _Unchanged  # another save came first: nothing is dropped
                        await _write_seats(conn, row)
                except _Unchanged:
                    return False
            return True
        return await _upsert_session(self.pool, row)

    async def note_session(self, channel_id: int, revision: int, data: str) -> bool:
        status = await self.pool.execute(
            "UPDATE sessions SET data = $1 WHERE channel_id = $2 AND revision = $3",
            data,
            channel_id,
            revision,
        )
        return bool(status.endswith(" 1"))

    async def table_shown(
        self,
        channel_id: int,
        message_id: int,
        revision: int,
        *,
        created_at: float,
        defer: bool = False,
    ) -> None:
        """Written at once (`defer` is a SQLite economy: a shared database's marks are read
        by the other processes too); never over another game of the channel."""
        await self.pool.execute(
            "UPDATE sessions SET message_id = $1, shown_revision = $2"
            " WHERE channel_id = $3 AND created_at = $4 AND shown_revision <= $2",
            message_id,
            revision,
            channel_id,
            created_at,
        )

    async def behind_sessions(self) -> list[int]:
        rows = await self.pool.fetch(
            "SELECT channel_id FROM sessions WHERE shown_revision < revision"
            f" AND {self._owned} ORDER BY updated_at"
        )
        return [r[0] for r in rows]

    async def clear_deadline(self, channel_id: int) -> None:
        await self.pool.execute(
            "UPDATE sessions SET deadline = NULL WHERE channel_id = $1", channel_id
        )

    async def set_aside(self, channel_id: int, reason: str, cleared_by: int | None) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO damaged_sessions (channel_id, guild_id, kind, data, revision,"
                " reason, cleared_by, moved_at) SELECT channel_id, guild_id, kind, data,"
                " revision, $1, $2, extract(epoch FROM clock_timestamp()) FROM sessions"
                " WHERE channel_id = $3",
                reason,
                cleared_by,
                channel_id,
            )
            await _drop_session(conn, channel_id)

    async def damaged_sessions(self) -> list[dict[str, object]]:
        rows = await self.pool.fetch("SELECT * FROM damaged_sessions ORDER BY id")
        return [dict(r) for r in rows]

    async def delete_session(self, channel_id: int) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
            await _drop_session(conn, channel_id)

    async def game_log(self, channel_id: int) -> list[str]:
        rows = await self.pool.fetch(_LOG_LINES, channel_id)
        return [line for r in rows for line in json.loads(r[0])]

    async def finish_session(
        self, channel_id: int, game: FinishedGame, revision: int | None = None
    ) -> int:
        async with self.pool.acquire() as conn, conn.transaction():
            if ratings.is_rated(game):
                # Before the game gets its id: a place's rated games get their ids in the
                # order their ratings are updated in, which a rebuild replays.
                place = place_of(game.guild_id, game.channel_id)
                await conn.execute("SELECT pg_advisory_xact_lock($1)", ratings.place_lock(place))
            if revision is None:
                await conn.execute("DELETE FROM sessions WHERE channel_id = $1", channel_id)
            else:
                gone = await conn.execute(
                    "DELETE FROM sessions WHERE channel_id = $1 AND revision = $2",
                    channel_id,
                    revision,
                )
                if gone != "DELETE 1":
                    raise RevisionConflict(channel_id)
            finished_at = time.time() if game.finished_at is None else game.finished_at
            log = None
            if game.log is not None:
                stored = await conn.fetch(_LOG_LINES, channel_id)
                log = [line for r in stored for line in json.loads(r[0])] + game.log
            await conn.execute(postgres_params(CLEAR_UNSEEN_SQL), game.channel_id)
            game_id = int(
                await conn.fetchval(
                    f"INSERT INTO finished_games ({FINISHED_INSERT}) VALUES ({_FINISHED_MARKS})"
                    " RETURNING id",
                    *finished_values(game, finished_at, log),
                )
            )
            await self._record_players(conn, game, game_id, finished_at)
            await conn.execute(_DROP_LOG, channel_id)
            await conn.execute(_DROP_SEATS, channel_id)
            return game_id

    async def _record_players(
        self, conn: asyncpg.Connection, game: FinishedGame, game_id: int, finished_at: float
    ) -> None:
        """As the SQLite backend's `_record_players`, inside the caller's transaction (which
        holds the place's lock when the game is rated)."""
        rows = game.player_rows(game_id, finished_at)
        place = place_of(game.guild_id, game.channel_id)
        rated = ratings.counts(rows)
        if rated:
            rows = ratings.in_season(rows, int(await conn.fetchval(_SEASON, place)))
        await conn.executemany(
            f"INSERT INTO player_stats ({PLAYER_COLUMNS}) VALUES ({_PLAYER_MARKS})"
            " ON CONFLICT DO NOTHING",
            [tuple(r) for r in rows],
        )
        await add_up(conn, rows)
        if rated:
            stored = await conn.fetch(
                postgres_params(ratings.old_ratings_sql(len(rows))),
                *ratings.old_ratings_args(place, rows),
            )
            await conn.executemany(
                _UPSERT_RATING, ratings.updated_ratings(place, rows, [tuple(r) for r in stored])
            )

    async def unseen_ending(self, channel_id: int) -> UnseenEnding | None:
        row = await self.pool.fetchrow(postgres_params(UNSEEN_SQL), channel_id)
        return None if row is None else UnseenEnding(*row)

    async def ending_shown(self, game_id: int) -> None:
        await self.pool.execute(postgres_params(ENDING_SHOWN_SQL), game_id)

    async def due_sessions(self, now: float) -> list[int]:
        rows = await self.pool.fetch(
            "SELECT channel_id FROM sessions WHERE deadline IS NOT NULL AND deadline <= $1"
            f" AND ({self._owned} OR deadline <= $2) ORDER BY deadline",
            now,
            now - self.takeover_after,
        )
        return [r[0] for r in rows]

    async def next_deadline(self) -> float | None:
        return await self.pool.fetchval(
            f"SELECT MIN(CASE WHEN {self._owned} THEN deadline ELSE deadline + $1 END)"
            " FROM sessions WHERE deadline IS NOT NULL",
            self.takeover_after,
        )

    async def claim(self, channel_id: int) -> bool:
        if self._claims is None or self._claims.is_closed():
            self._claims = await asyncpg.connect(self.url)
        return bool(await self._claims.fetchval("SELECT pg_try_advisory_lock($1)", channel_id))

    async def release(self, channel_id: int) -> None:
        if self._claims is not None and not self._claims.is_closed():
            await self._claims.execute("SELECT pg_advisory_unlock($1)", channel_id)

    async def count_sessions(self) -> int:
        return int(await self.pool.fetchval("SELECT COUNT(*) FROM sessions"))

    # ----------------------------------------------------------------- settings

    async def load_settings(self, guild_id: int) -> str | None:
        return await self.pool.fetchval(
            "SELECT data FROM guild_settings WHERE guild_id = $1", guild_id
        )

    async def save_settings(self, guild_id: int, data: str) -> None:
        await self.pool.execute(
            "INSERT INTO guild_settings (guild_id, data, updated_at)"
            " VALUES ($1, $2, extract(epoch FROM clock_timestamp()))"
            " ON CONFLICT (guild_id) DO UPDATE SET data = excluded.data,"
            " updated_at = excluded.updated_at",
            guild_id,
            data,
        )

    async def finished_games(self, channel_id: int | None = None) -> list[dict[str, object]]:
        if channel_id is None:
            rows = await self.pool.fetch(
                f"SELECT {FINISHED_COLUMNS} FROM finished_games ORDER BY id"
            )
        else:
            rows = await self.pool.fetch(
                f"SELECT {FINISHED_COLUMNS} FROM finished_games WHERE channel_id = $1 ORDER BY id",
                channel_id,
            )
        return [finished_record(list(r.keys()), r.values()) for r in rows]

    async def finished_game(self, game_id: int) -> dict[str, object] | None:
        row = await self.pool.fetchrow(
            f"SELECT {FINISHED_COLUMNS} FROM finished_games WHERE id = $1", game_id
        )
        return None if row is None else finished_record(list(row.keys()), row.values())

    async def player_games(
        self, place: int, player_id: int, kind: str | None, offset: int, limit: int
    ) -> tuple[int, list[PlayedGame]]:
        mine = (player_id, place) if kind is None else (player_id, place, kind)
        args = mine + mine
        count, page = (postgres_params(sql) for sql in played_sql(kind is not None))
        total = await self.pool.fetchval(count, *args)
        rows = await self.pool.fetch(page, *args, limit, offset)
        return int(total or 0), [played_game(r) for r in rows]

    # ----------------------------------------------------------------- stats

    async def player_records(
        self, guild_id: int | None, player_id: int, kinds: Iterable[str]
    ) -> list[PlayerRecord]:
        wanted = list(kinds)
        rows = await self.pool.fetch(
            "SELECT kind, games, wins, bot_games, bot_wins, abandoned, best_score, records"
            " FROM player_records WHERE guild_id = $1 AND player_id = $2 AND kind = ANY($3)",
            guild_id or 0,
            player_id,
            wanted,
        )
        found = {r["kind"]: r for r in rows}
        return [
            PlayerRecord.stored(
                list(found[kind].values())[:7], json.loads(found[kind]["records"])
            )
            for kind in wanted
            if kind in found
        ]

    async def leaderboard(
        self, place: int, kind: str, period: str, offset: int, limit: int
    ) -> tuple[int, list[Standing]]:
        key = (place, kind, period)
        total = await self.pool.fetchval(
            "SELECT COUNT(*) FROM player_totals WHERE guild_id = $1 AND kind = $2 AND period = $3",
            *key,
        )
        rows = await self.pool.fetch(
            "SELECT player_id, games, wins FROM player_totals"
            " WHERE guild_id = $1 AND kind = $2 AND period = $3"
            " ORDER BY wins DESC, games, player_id LIMIT $4 OFFSET $5",
            *key,
            limit,
            offset,
        )
        ahead = 0
        if rows and offset:  # a tie may run over the page's top
            games, wins = rows[0][1], rows[0][2]
            ahead = int(await self.pool.fetchval(_WINS_AHEAD, *key, wins, wins, games))
        ranks = places([(r[1], r[2]) for r in rows], offset, ahead)
        return int(total or 0), [
            Standing(rank=rank, player_id=r[0], games=r[1], wins=r[2])
            for rank, r in zip(ranks, rows, strict=True)
        ]


    # ----------------------------------------------------------------- ratings

    async def current_season(self, place: int) -> int:
        return int(await self.pool.fetchval(_SEASON, place))

    async def start_season(self, place: int, started_by: int | None, now: float) -> int:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", ratings.place_lock(place))
            return int(await conn.fetchval(_NEW_SEASON, place, place, now, started_by))

    async def rating_board(
        self, place: int, kind: str, season: int, offset: int, limit: int
    ) -> tuple[int, list[RatedStanding]]:
        total = await self.pool.fetchval(_BOARD_COUNT, place, kind, season)
        rows = await self.pool.fetch(_BOARD, place, kind, season, limit, offset)
        ahead = 0
        if rows and offset:  # a tie may run over the page's top
            sql, bound = ratings.ahead_sql(float(rows[0][1]))
            ahead = int(await self.pool.fetchval(postgres_params(sql), place, kind, season, bound))
        ranks = places([rating_points(float(r[1])) for r in rows], offset, ahead)
        return int(total or 0), [
            RatedStanding(rank, *r) for rank, r in zip(ranks, rows, strict=True)
        ]

    async def _read(self, sql: str, args: Sequence[object]) -> list[Sequence[object]]:
        return [tuple(r) for r in await self.pool.fetch(postgres_params(sql), *args)]

    async def _write_if(self, steps: Sequence[tuple[str, Sequence[object]]]) -> bool:
        async with self.pool.acquire() as conn:
            try:
                async with conn.transaction():
                    for sql, args in steps:
                        status = await conn.execute(postgres_params(sql), *args)
                        if status.rsplit(" ", 1)[-1] == "0":
                            raise _Unchanged
            except _Unchanged:
                return False
        return True

    async def player_ratings(
        self, place: int, player_id: int, kinds: Iterable[str], season: int
    ) -> list[PlayerRating]:
        wanted = list(kinds)
        rows = await self.pool.fetch(
            postgres_params(ratings.player_ratings_sql(len(wanted))),
            place,
            season,
            player_id,
            *wanted,
        )
        return ratings.player_ratings(wanted, [tuple(r) for r in rows])

    async def rebuild_ratings(self, *, write: bool = True) -> ratings.Rebuilt:
        """Replay every rated game into `ratings` in one transaction. It holds a SHARE lock
        on `player_stats` throughout: games finishing meanwhile wait for it (and it waits for
        those already finishing), so none is left out or counted on top of the replay."""
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("LOCK TABLE player_stats IN SHARE MODE")
            stored = [tuple(r) for r in await conn.fetch(ratings.ALL_RATINGS_SQL)]
            records = [tuple(r) for r in await conn.fetch(ratings.REPLAY_SQL)]
            fresh, report = ratings.rebuilt(stored, records)
            if write:
                await conn.execute("DELETE FROM ratings")
                await conn.executemany(_UPSERT_RATING, ratings.all_values(fresh))
            return report


async def _upsert_session(conn: asyncpg.Connection | asyncpg.Pool, row: SessionRow) -> bool:
    """Save a move's row, with its log lines and what goes beside it, if its revision
    follows the stored one; False when another save came first."""
    if row.log or row.beside:
        status = await conn.execute(
            _UPSERT_SESSION_LOGGED, *session_values(row), *log_values(row)
        )
    else:
        status = await conn.execute(_UPSERT_SESSION, *session_values(row))
    return bool(status.endswith(" 1"))


async def _drop_session(conn: asyncpg.Connection, channel_id: int) -> None:
    """Delete a session, its log and its seats (inside the caller's transaction)."""
    await conn.execute("DELETE FROM sessions WHERE channel_id = $1", channel_id)
    await conn.execute(_DROP_LOG, channel_id)
    await conn.execute(_DROP_SEATS, channel_id)


async def _write_seats(conn: asyncpg.Connection, row: SessionRow) -> None:
    """Who sits at the saved session, when that changed (bot/store/seats.py), inside the
    caller's transaction."""
    if row.seats is None:
        return
    stored = await conn.fetch(_SEATS_OF, row.channel_id)
    await conn.execute(_DROP_SEATS, row.channel_id)
    await conn.executemany(
        _INSERT_SEAT,
        seats.seat_values(row.channel_id, row.seats, [tuple(r) for r in stored], row.seats_at),
    )


async def add_up(conn: asyncpg.Connection, rows: Sequence[PlayerRow]) -> None:
    """Add newly stored `player_stats` rows to the players' records and the leaderboards'
    totals, inside the caller's transaction: when a game finishes, and when `migrate` copies
    a file's games (so totals of a server found in several files add up). A player's records
    row is locked while it is read and rewritten, so two processes finishing games of the
    same player at once both count. A game outside servers counts on the leaderboard of
    its channel, read from its `finished_games` row (stored before its players' rows)."""
    outside = [row.game_id for row in rows if row.guild_id is None]
    channels: dict[int, int] = {}
    if outside:
        channels = {
            r[0]: r[1]
            for r in await conn.fetch(
                "SELECT id, channel_id FROM finished_games WHERE id = ANY($1::bigint[])", outside
            )
        }
    for row in rows:
        key = (row.guild_id or 0, row.player_id, row.kind)
        await conn.execute(
            "INSERT INTO player_records (guild_id, player_id, kind, games, wins, bot_games,"
            " bot_wins, abandoned, best_score, records)"
            " VALUES ($1, $2, $3, 0, 0, 0, 0, 0, NULL, '{}') ON CONFLICT DO NOTHING",
            *key,
        )
        old = await conn.fetchrow(
            "SELECT games, wins, bot_games, bot_wins, abandoned, best_score, records"
            " FROM player_records WHERE guild_id = $1 AND player_id = $2 AND kind = $3"
            " FOR UPDATE",
            *key,
        )
        await conn.execute(
            "UPDATE player_records SET games = $4, wins = $5, bot_games = $6,"
            " bot_wins = $7, abandoned = $8, best_score = $9, records = $10"
            " WHERE guild_id = $1 AND player_id = $2 AND kind = $3",
            *key,
            *added_record(tuple(old), row),
        )
    await conn.executemany(
        "INSERT INTO player_totals (guild_id, kind, period, player_id, games, wins)"
        " VALUES ($1, $2, $3, $4, 1, $5) ON CONFLICT (guild_id, kind, period, player_id)"
        " DO UPDATE SET games = player_totals.games + 1,"
        " wins = player_totals.wins + excluded.wins",
        leaderboard_rows(rows, channels),
    )


class _Unchanged(Exception):
    """A step changed no row (`_write_if`, `save_session`): its transaction is rolled back."""
