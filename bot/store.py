"""The store of running sessions, server settings, finished games and the players' stats and
leaderboards drawn from them: one interface (`Store`),
two backends. SQLite (`SqliteStore`, one file, the default) serves one process; PostgreSQL
(`bot.pgstore.PostgresStore`) lets several processes with disjoint shards share one database.

The schema is versioned with one history of numbered migrations (`MIGRATIONS`) that both
backends apply. Every write commits before it returns, so a move the bot has acknowledged
survives a crash of the process."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import aiosqlite

from bot.records import ALL_GAMES, RECORDS, merge, period_keys

#: The summaries computed afresh from the per-game rows of `player_stats`: migration 6 uses
#: this, and so does the benchmark after a bulk fill. Games count on the leaderboard when
#: they had a winner, no bot seat, and the row is a person's; its periods are those of
#: `records.period_keys`, computed here in SQL.
_COUNTED = "SELECT COALESCE(guild_id, 0) AS g, {kind} AS k, {period} AS p, player_id, won"
_COUNTED += " FROM player_stats WHERE abandoned = 0 AND with_bots = 0 AND is_bot = 0"
WEEK_KEY_SQL = "'w' || date(finished_at, 'unixepoch', '-6 days', 'weekday 1')"
MONTH_KEY_SQL = "'m' || strftime('%Y-%m', finished_at, 'unixepoch')"


def _records_sql(kind: str) -> str:
    """A game's records over a player's rows, as JSON without the ones never counted."""
    parts = "".join(
        f", '{r.key}', {r.aggregate.upper()}(json_extract(stats, '$.{r.key}'))"
        for r in RECORDS[kind]
    )
    return f"json_patch('{{}}', json_object({parts[2:]}))"


REBUILD_SQL = (
    "DELETE FROM player_totals;\n"
    "INSERT INTO player_totals (guild_id, kind, period, player_id, games, wins)"
    " SELECT g, k, p, player_id, COUNT(*), SUM(won) FROM ("
    + " UNION ALL ".join(
        _COUNTED.format(kind=kind, period=period)
        for kind in ("kind", "'*'")
        for period in ("'all'", MONTH_KEY_SQL, WEEK_KEY_SQL)
    )
    + ") GROUP BY g, k, p, player_id;\n"
    "DELETE FROM player_records;\n"
    + "".join(
        "INSERT INTO player_records (guild_id, player_id, kind, games, wins, bot_games,"
        " bot_wins, abandoned, best_score, records) SELECT COALESCE(guild_id, 0), player_id,"
        " kind, SUM(abandoned = 0 AND with_bots = 0), SUM(won AND with_bots = 0),"
        " SUM(abandoned = 0 AND with_bots = 1), SUM(won AND with_bots = 1), SUM(abandoned),"
        f" MAX(score), {_records_sql(kind)} FROM player_stats WHERE kind = '{kind}'"
        " GROUP BY COALESCE(guild_id, 0), player_id;\n"
        for kind in RECORDS
    )
)

log = logging.getLogger(__name__)

#: Migration 6 on PostgreSQL: the same tables with PostgreSQL's types (the SQLite backfill
#: reads JSON with SQLite's functions; a PostgreSQL database has nothing older to count).
PLAYER_TABLES_POSTGRESQL = """
    CREATE TABLE player_stats (
        game_id     BIGINT  NOT NULL,
        player_id   BIGINT  NOT NULL,
        guild_id    BIGINT,
        kind        TEXT    NOT NULL,
        won         BIGINT  NOT NULL,
        score       BIGINT,
        is_bot      BIGINT  NOT NULL,
        with_bots   BIGINT  NOT NULL,
        abandoned   BIGINT  NOT NULL,
        finished_at DOUBLE PRECISION NOT NULL,
        stats       TEXT    NOT NULL DEFAULT '{}',
        PRIMARY KEY (game_id, player_id)
    );
    CREATE TABLE player_totals (
        guild_id    BIGINT  NOT NULL,
        kind        TEXT    NOT NULL,
        period      TEXT    NOT NULL,
        player_id   BIGINT  NOT NULL,
        games       BIGINT  NOT NULL,
        wins        BIGINT  NOT NULL,
        PRIMARY KEY (guild_id, kind, period, player_id)
    );
    CREATE INDEX player_totals_ranked
        ON player_totals(guild_id, kind, period, wins DESC, games, player_id);
    CREATE TABLE player_records (
        guild_id    BIGINT  NOT NULL,
        player_id   BIGINT  NOT NULL,
        kind        TEXT    NOT NULL,
        games       BIGINT  NOT NULL,
        wins        BIGINT  NOT NULL,
        bot_games   BIGINT  NOT NULL,
        bot_wins    BIGINT  NOT NULL,
        abandoned   BIGINT  NOT NULL,
        best_score  BIGINT,
        records     TEXT    NOT NULL,
        PRIMARY KEY (guild_id, player_id, kind)
    );
"""

#: A migration: SQL written once in SQLite's dialect, restricted to what both databases
#: understand (see `migration_sql` for the column types PostgreSQL is given instead), or,
#: when the two must differ, {"sqlite": ..., "postgresql": ...}.
Migration = str | dict[str, str]

MIGRATIONS: list[Migration] = [
    # 1: the first schema
    """
    CREATE TABLE sessions (
        channel_id  INTEGER PRIMARY KEY,
        guild_id    INTEGER,
        kind        TEXT    NOT NULL,
        data        TEXT    NOT NULL,
        revision    INTEGER NOT NULL,
        message_id  INTEGER,
        deadline    REAL,
        created_at  REAL    NOT NULL,
        updated_at  REAL    NOT NULL
    );
    CREATE INDEX sessions_by_deadline ON sessions(deadline) WHERE deadline IS NOT NULL;
    CREATE TABLE guild_settings (
        guild_id    INTEGER PRIMARY KEY,
        data        TEXT    NOT NULL,
        updated_at  REAL    NOT NULL
    );
    CREATE TABLE finished_games (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id    INTEGER,
        channel_id  INTEGER NOT NULL,
        kind        TEXT    NOT NULL,
        players     TEXT    NOT NULL,
        scores      TEXT    NOT NULL,
        winner_id   INTEGER,
        rules       TEXT    NOT NULL,
        outcome     TEXT    NOT NULL,
        started_at  REAL    NOT NULL,
        finished_at REAL    NOT NULL
    );
    CREATE INDEX finished_by_guild ON finished_games(guild_id, finished_at);
    """,
    # 2: which revision the table message in the channel shows, so that after a crash between
    # a commit and the table's update the bot knows which tables to bring up to date. Rows of
    # version 1 start at 0, so every running table is redrawn once (with the new buttons).
    """
    ALTER TABLE sessions ADD COLUMN shown_revision INTEGER NOT NULL DEFAULT 0;
    """,
    # 3: the lobby options a finished game was played with, for its Rematch button
    # (NULL on older rows: a rematch of those uses the server's settings)
    """
    ALTER TABLE finished_games ADD COLUMN lobby TEXT;
    """,
    # 4: sessions that could not be loaded (an unknown game, unreadable or impossible data),
    # moved here when cleared so the channel plays on and nothing is lost
    """
    CREATE TABLE damaged_sessions (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        channel_id  INTEGER NOT NULL,
        guild_id    INTEGER,
        kind        TEXT,
        data        TEXT,
        revision    INTEGER,
        reason      TEXT    NOT NULL,
        cleared_by  INTEGER,
        moved_at    REAL    NOT NULL
    );
    """,
    # 5: which seats were bot players (JSON list of their ids)
    """
    ALTER TABLE finished_games ADD COLUMN bots TEXT NOT NULL DEFAULT '[]';
    """,
    # 6: per-player rows of every finished game, and what they add up to: per-player totals
    # by server, game and period (/leaderboard reads them in index order) and each player's
    # figures and records by server and game (/stats reads one row per game). Rows of earlier
    # versions are counted from what they kept: players, scores, the winner and the bots.
    # (PostgreSQL support came after this migration: a PostgreSQL database has no older
    # finished games to count, and `python -m bot migrate` copies the summaries themselves.)
    {
        "sqlite": """
    CREATE TABLE player_stats (
        game_id     INTEGER NOT NULL,
        player_id   INTEGER NOT NULL,
        guild_id    INTEGER,
        kind        TEXT    NOT NULL,
        won         INTEGER NOT NULL,
        score       INTEGER,
        is_bot      INTEGER NOT NULL,
        with_bots   INTEGER NOT NULL,
        abandoned   INTEGER NOT NULL,
        finished_at REAL    NOT NULL,
        stats       TEXT    NOT NULL DEFAULT '{}',
        PRIMARY KEY (game_id, player_id)
    );
    CREATE TABLE player_totals (
        guild_id    INTEGER NOT NULL,
        kind        TEXT    NOT NULL,
        period      TEXT    NOT NULL,
        player_id   INTEGER NOT NULL,
        games       INTEGER NOT NULL,
        wins        INTEGER NOT NULL,
        PRIMARY KEY (guild_id, kind, period, player_id)
    );
    CREATE INDEX player_totals_ranked
        ON player_totals(guild_id, kind, period, wins DESC, games, player_id);
    CREATE TABLE player_records (
        guild_id    INTEGER NOT NULL,
        player_id   INTEGER NOT NULL,
        kind        TEXT    NOT NULL,
        games       INTEGER NOT NULL,
        wins        INTEGER NOT NULL,
        bot_games   INTEGER NOT NULL,
        bot_wins    INTEGER NOT NULL,
        abandoned   INTEGER NOT NULL,
        best_score  INTEGER,
        records     TEXT    NOT NULL,
        PRIMARY KEY (guild_id, player_id, kind)
    );
    INSERT OR IGNORE INTO player_stats (game_id, player_id, guild_id, kind, won, score, is_bot,
        with_bots, abandoned, finished_at)
    SELECT g.id, json_extract(p.value, '$.id'), g.guild_id, g.kind,
        CASE
            WHEN g.winner_id IS NULL THEN 0
            WHEN json_type(g.rules, '$.winners') = 'array' THEN EXISTS (
                SELECT 1 FROM json_each(g.rules, '$.winners') w
                WHERE w.value = json_extract(p.value, '$.id'))
            ELSE g.winner_id = json_extract(p.value, '$.id')
        END,
        json_extract(g.scores, '$."' || json_extract(p.value, '$.id') || '"'),
        EXISTS (SELECT 1 FROM json_each(g.bots) b WHERE b.value = json_extract(p.value, '$.id')),
        json_array_length(g.bots) > 0,
        g.winner_id IS NULL,
        g.finished_at
    FROM finished_games g, json_each(g.players) p;
    """
    + REBUILD_SQL,
        "postgresql": PLAYER_TABLES_POSTGRESQL,
    },
]


#: SQLite type names and what PostgreSQL stores the same values in: Discord ids need 64 bits
#: (PostgreSQL's INTEGER has 32) and times need a double (its REAL is a 4-byte float).
_POSTGRES_TYPES = [
    (r"\bINTEGER\s+PRIMARY\s+KEY\s+AUTOINCREMENT\b", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    (r"\bINTEGER\b", "BIGINT"),
    (r"\bREAL\b", "DOUBLE PRECISION"),
    (r"\bBLOB\b", "BYTEA"),
]


def migration_sql(migration: Migration, dialect: str) -> list[str]:
    """The statements of one migration for "sqlite" or "postgresql"."""
    if isinstance(migration, dict):
        sql = migration[dialect]
    else:
        sql = migration
        if dialect == "postgresql":
            for pattern, replacement in _POSTGRES_TYPES:
                sql = re.sub(pattern, replacement, sql, flags=re.IGNORECASE)
    return [s.strip() for s in sql.split(";") if s.strip()]


def is_postgres_url(database: str | Path) -> bool:
    return str(database).startswith(("postgresql://", "postgres://"))


@dataclass(frozen=True)
class Shards:
    """Which guilds a process serves: those of its shard ids, as Discord assigns them
    ((guild_id >> 22) % count; direct messages are shard 0's; see `pgstore.owned_filter`)."""

    count: int
    ids: tuple[int, ...]


@dataclass
class SessionRow:
    """A running session as stored: the game's JSON plus what the adapter needs around it."""

    channel_id: int
    guild_id: int | None
    kind: str
    data: str
    revision: int
    message_id: int | None
    deadline: float | None
    created_at: float
    shown_revision: int = 0


@dataclass
class FinishedGame:
    """What the finished-games table keeps of a game."""

    guild_id: int | None
    channel_id: int
    kind: str
    players: list[dict[str, object]]
    scores: dict[str, int]
    winner_id: int | None
    rules: dict[str, object]
    outcome: str
    started_at: float
    lobby: dict[str, object] | None = None
    #: Each player's counters for /stats (see `records.RECORDS`), by player id as text.
    stats: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Everyone who won when that can be several (a tie); empty: `winner_id` alone.
    winners: list[int] = field(default_factory=list)
    #: The seats that were bot players.
    bots: list[int] = field(default_factory=list)
    #: When it ended; None: now (tests and the benchmark give their own).
    finished_at: float | None = None

    def player_rows(self, game_id: int, finished_at: float) -> list[PlayerRow]:
        """The game's `player_stats` rows. A game with no winner was abandoned (players
        left, or it was ended early); a game with a bot seat is counted apart."""
        winners = set(self.winners) or {self.winner_id}
        abandoned = self.winner_id is None
        return [
            PlayerRow(
                game_id=game_id,
                player_id=pid,
                guild_id=self.guild_id,
                kind=self.kind,
                won=int(not abandoned and pid in winners),
                score=self.scores.get(str(pid)),
                is_bot=int(pid in self.bots),
                with_bots=int(bool(self.bots)),
                abandoned=int(abandoned),
                finished_at=finished_at,
                stats=json.dumps(self.stats.get(str(pid), {})),
            )
            for pid in dict.fromkeys(int(p["id"]) for p in self.players)  # type: ignore[call-overload]
        ]


class PlayerRow(NamedTuple):
    """One player's row of one finished game in `player_stats` (in its column order)."""

    game_id: int
    player_id: int
    guild_id: int | None
    kind: str
    won: int
    score: int | None
    is_bot: int
    with_bots: int
    abandoned: int
    finished_at: float
    stats: str


@dataclass
class PlayerRecord:
    """A player's figures in one game, as /stats shows them: games among people with a
    winner, those against bots and the abandoned ones apart, and the records."""

    kind: str
    games: int
    wins: int
    bot_games: int
    bot_wins: int
    abandoned: int
    best_score: int | None
    records: dict[str, int]


@dataclass
class Standing:
    """One line of a leaderboard."""

    rank: int
    player_id: int
    games: int
    wins: int


#: How long a table's "shown" mark may wait to be written with others (see table_shown).
SHOWN_DELAY = 0.25


class Store(ABC):
    """What the bot needs of its database. Open one with `await Store.open(database)`: a
    `postgresql://` URL gives the shared PostgreSQL store, anything else is a SQLite file."""

    #: The longest the turn timers may sleep: a shared database learns of other processes'
    #: deadlines only by looking.
    max_sleep: float = 30.0

    @classmethod
    async def open(
        cls, database: Path | str, *, shards: Shards | None = None, takeover_after: float = 10.0
    ) -> Store:
        """`shards` and `takeover_after` matter only to a shared (PostgreSQL) database."""
        if is_postgres_url(database):
            from bot.pgstore import PostgresStore

            return await PostgresStore.open_url(
                str(database), shards=shards, takeover_after=takeover_after
            )
        return await SqliteStore.open_file(database)

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def schema_version(self) -> int: ...

    @abstractmethod
    async def load_session(self, channel_id: int) -> SessionRow | None: ...

    @abstractmethod
    async def save_session(self, row: SessionRow) -> bool:
        """Insert a new session (revision 1) or store the next revision of one; False, and
        nothing written, when the stored revision is not the one before `row`'s (another
        process moved first)."""

    @abstractmethod
    async def table_shown(
        self, channel_id: int, message_id: int, revision: int, *, defer: bool = False
    ) -> None:
        """The table message now in the channel and the revision it shows. `defer` (the same
        message, edited) lets a backend write the mark a moment later with others: a mark
        lost in a crash only makes the restarted bot redraw that table once."""

    @abstractmethod
    async def behind_sessions(self) -> list[int]:
        """Channels of this process's servers whose table shows an older state than stored."""

    @abstractmethod
    async def clear_deadline(self, channel_id: int) -> None: ...

    @abstractmethod
    async def set_aside(self, channel_id: int, reason: str, cleared_by: int | None) -> None: ...

    @abstractmethod
    async def damaged_sessions(self) -> list[dict[str, object]]: ...

    @abstractmethod
    async def delete_session(self, channel_id: int) -> None: ...

    @abstractmethod
    async def finish_session(
        self, channel_id: int, game: FinishedGame, revision: int | None = None
    ) -> int:
        """Record a finished game and drop its session in one transaction; returns the id.
        With `revision`, raises RevisionConflict (and writes nothing) when the stored session
        is at another revision."""

    @abstractmethod
    async def due_sessions(self, now: float) -> list[int]:
        """Sessions whose deadline passed that this process should play, earliest first."""

    @abstractmethod
    async def next_deadline(self) -> float | None:
        """When `due_sessions` will next return something (as far as known now)."""

    async def claim(self, channel_id: int) -> bool:
        """Take the right to play a due deadline; False when another process holds it. One
        process per database needs no claim."""
        return True

    async def release(self, channel_id: int) -> None:  # noqa: B027 (nothing to give back)
        """Give back a claim taken with `claim`."""

    @abstractmethod
    async def count_sessions(self) -> int: ...

    @abstractmethod
    async def load_settings(self, guild_id: int) -> str | None: ...

    @abstractmethod
    async def save_settings(self, guild_id: int, data: str) -> None: ...

    @abstractmethod
    async def finished_games(self, channel_id: int | None = None) -> list[dict[str, object]]: ...

    @abstractmethod
    async def finished_game(self, game_id: int) -> dict[str, object] | None:
        """One finished game by its id (as `finished_games` gives it), or None."""

    @abstractmethod
    async def player_records(
        self, guild_id: int | None, player_id: int, kinds: Iterable[str]
    ) -> list[PlayerRecord]:
        """A player's figures in this server, one per game of `kinds` they have played."""

    @abstractmethod
    async def leaderboard(
        self, guild_id: int | None, kind: str, period: str, offset: int, limit: int
    ) -> tuple[int, list[Standing]]:
        """How many players a leaderboard has, and `limit` of them from `offset`: most wins
        first, then fewer games (the better rate), then the earlier player id. `kind` is a
        game or `ALL_GAMES`; `period` a key of `records.period_keys`."""


class RevisionConflict(Exception):
    """Another process changed the session first: nothing was written."""


class SqliteStore(Store):
    """One SQLite file, for one process: open with `await Store.open(path)`."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db
        #: Deferred "table shows revision N" marks: channel -> (message id, revision).
        self._shown: dict[int, tuple[int, int]] = {}
        self._shown_writer: asyncio.Task[None] | None = None

    @classmethod
    async def open_file(cls, path: Path | str) -> SqliteStore:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(str(path), isolation_level=None)
        await db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a commit survives a crash or kill -9 of the process.
        await db.execute("PRAGMA synchronous=NORMAL")
        await db.execute("PRAGMA busy_timeout=5000")
        store = cls(db)
        await store.migrate()
        return store

    async def close(self) -> None:
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
            await self.db.execute("BEGIN")
            try:
                for statement in migration_sql(migration, "sqlite"):
                    await self.db.execute(statement)
                await self.db.execute(f"PRAGMA user_version={number}")
                await self.db.execute("COMMIT")
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise

    # ----------------------------------------------------------------- sessions

    async def load_session(self, channel_id: int) -> SessionRow | None:
        async with self.db.execute(
            "SELECT channel_id, guild_id, kind, data, revision, message_id, deadline, created_at,"
            " shown_revision FROM sessions WHERE channel_id = ?",
            (channel_id,),
        ) as cur:
            row = await cur.fetchone()
        return SessionRow(*row) if row else None

    async def save_session(self, row: SessionRow) -> bool:
        """Insert or update a session. An update keeps the row's table message and the
        revision it shows: only `table_shown` writes those (a move committed while the table
        was being posted afresh must not bring back the old message)."""
        cur = await self.db.execute(
            "INSERT INTO sessions (channel_id, guild_id, kind, data, revision, message_id,"
            " deadline, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)"
            " ON CONFLICT(channel_id) DO UPDATE SET guild_id=excluded.guild_id,"
            " kind=excluded.kind, data=excluded.data, revision=excluded.revision,"
            " deadline=excluded.deadline, updated_at=excluded.updated_at"
            " WHERE sessions.revision = excluded.revision - 1",
            (
                row.channel_id,
                row.guild_id,
                row.kind,
                row.data,
                row.revision,
                row.message_id,
                row.deadline,
                row.created_at,
                time.time(),
            ),
        )
        return cur.rowcount == 1

    async def table_shown(
        self, channel_id: int, message_id: int, revision: int, *, defer: bool = False
    ) -> None:
        """The table message now in the channel, and the revision it shows. With `defer`
        (the same message, edited) the mark is written with the others of the next
        SHOWN_DELAY seconds in one transaction: a move's own commit is what must not be
        lost, and a mark lost in a crash only makes the restarted bot redraw that table
        once. A new message is written at once (a restart edits the message it names)."""
        pending = self._shown.pop(channel_id, None)
        if pending is not None:
            revision = max(revision, pending[1])
        if defer:
            self._shown[channel_id] = (message_id, revision)
            if self._shown_writer is None:
                self._shown_writer = asyncio.create_task(self._write_shown_later())
            return
        await self.db.execute(_SHOWN_UPDATE, (message_id, revision, channel_id))

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
                _SHOWN_UPDATE, [(m, r, channel) for channel, (m, r) in marks.items()]
            )

    async def behind_sessions(self) -> list[int]:
        """Channels whose table message shows an older state than the one stored."""
        await self.flush_shown()
        async with self.db.execute(
            "SELECT channel_id FROM sessions WHERE shown_revision < revision ORDER BY updated_at"
        ) as cur:
            return [r[0] for r in await cur.fetchall()]

    async def clear_deadline(self, channel_id: int) -> None:
        """Stop the timers of a session (used on a damaged row, so the timer loop moves on)."""
        await self.db.execute(
            "UPDATE sessions SET deadline = NULL WHERE channel_id = ?", (channel_id,)
        )

    async def set_aside(self, channel_id: int, reason: str, cleared_by: int | None) -> None:
        """Move a session that cannot be loaded to `damaged_sessions`, in one transaction."""
        await self.db.execute("BEGIN")
        try:
            await self.db.execute(
                "INSERT INTO damaged_sessions (channel_id, guild_id, kind, data, revision,"
                " reason, cleared_by, moved_at) SELECT channel_id, guild_id, kind, data,"
                " revision, ?, ?, ? FROM sessions WHERE channel_id = ?",
                (reason, cleared_by, time.time(), channel_id),
            )
            await self.db.execute("DELETE FROM sessions WHERE channel_id = ?", (channel_id,))
            await self.db.execute("COMMIT")
        except BaseException:
            await self.db.execute("ROLLBACK")
            raise

    async def damaged_sessions(self) -> list[dict[str, object]]:
        async with self.db.execute("SELECT * FROM damaged_sessions ORDER BY id") as cur:
            cols = [c[0] for c in cur.description]
            return [dict(zip(cols, r, strict=True)) for r in await cur.fetchall()]

    async def delete_session(self, channel_id: int) -> None:
        await self.db.execute("DELETE FROM sessions WHERE channel_id = ?", (channel_id,))

    async def finish_session(
        self, channel_id: int, game: FinishedGame, revision: int | None = None
    ) -> int:
        await self.db.execute("BEGIN")
        try:
            if revision is not None:
                gone = await self.db.execute(
                    "DELETE FROM sessions WHERE channel_id = ? AND revision = ?",
                    (channel_id, revision),
                )
                if gone.rowcount != 1:
                    raise RevisionConflict(channel_id)
            finished_at = time.time() if game.finished_at is None else game.finished_at
            cur = await self.db.execute(
                f"INSERT INTO finished_games ({FINISHED_INSERT})"
                f" VALUES ({', '.join('?' * len(FINISHED_INSERT.split(',')))})",
                finished_values(game, finished_at),
            )
            game_id = int(cur.lastrowid or 0)
            await self._record_players(game, game_id, finished_at)
            if revision is None:
                await self.db.execute("DELETE FROM sessions WHERE channel_id = ?", (channel_id,))
            await self.db.execute("COMMIT")
        except BaseException:
            await self.db.execute("ROLLBACK")
            raise
        return game_id

    async def _record_players(self, game: FinishedGame, game_id: int, finished_at: float) -> None:
        """The game's per-player rows, each player's figures and records in its game, and
        each person's leaderboard totals of its game and of all games in its week, its month
        and all time (inside the caller's transaction)."""
        rows = game.player_rows(game_id, finished_at)
        await self.db.executemany(
            "INSERT OR IGNORE INTO player_stats (game_id, player_id, guild_id, kind, won, score,"
            " is_bot, with_bots, abandoned, finished_at, stats) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        for row in rows:
            await self._add_to_records(row)
        if game.winner_id is None or game.bots:
            return  # abandoned, or played against bots: not on the leaderboard
        periods = period_keys(finished_at).values()
        await self.db.executemany(
            "INSERT INTO player_totals (guild_id, kind, period, player_id, games, wins)"
            " VALUES (?,?,?,?,1,?) ON CONFLICT (guild_id, kind, period, player_id)"
            " DO UPDATE SET games = games + 1, wins = wins + excluded.wins",
            [
                (game.guild_id or 0, kind, period, row.player_id, row.won)
                for row in rows
                for kind in (game.kind, ALL_GAMES)
                for period in periods
            ],
        )

    async def _add_to_records(self, row: PlayerRow) -> None:
        """Add one game to a player's figures and records (as `REBUILD_SQL` adds them up)."""
        key = (row.guild_id or 0, row.player_id, row.kind)
        async with self.db.execute(
            "SELECT games, wins, bot_games, bot_wins, abandoned, best_score, records"
            " FROM player_records WHERE guild_id = ? AND player_id = ? AND kind = ?",
            key,
        ) as cur:
            old = await cur.fetchone()
        games, wins, bot_games, bot_wins, abandoned, best, records = old or (
            0, 0, 0, 0, 0, None, "{}"
        )  # fmt: skip
        finished = not row.abandoned
        scores = [s for s in (best, row.score) if s is not None]
        await self.db.execute(
            "INSERT OR REPLACE INTO player_records (guild_id, player_id, kind, games, wins,"
            " bot_games, bot_wins, abandoned, best_score, records) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                *key,
                games + (finished and not row.with_bots),
                wins + (row.won and not row.with_bots),
                bot_games + (finished and row.with_bots),
                bot_wins + (row.won and row.with_bots),
                abandoned + row.abandoned,
                max(scores, default=None),
                json.dumps(merge(row.kind, json.loads(records), json.loads(row.stats))),
            ),
        )


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
        async with self.db.execute("SELECT COUNT(*) FROM sessions") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

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
        async with self.db.execute(sql + " ORDER BY id", args) as cur:
            cols = [c[0] for c in cur.description]
            rows = await cur.fetchall()
        return [finished_record(cols, r) for r in rows]

    async def finished_game(self, game_id: int) -> dict[str, object] | None:
        """One finished game by its id (as `finished_games` gives it), or None."""
        async with self.db.execute(
            f"SELECT {FINISHED_COLUMNS} FROM finished_games WHERE id = ?", (game_id,)
        ) as cur:
            cols = [c[0] for c in cur.description]
            row = await cur.fetchone()
        return None if row is None else finished_record(cols, row)

    # ----------------------------------------------------------------- stats

    async def player_records(
        self, guild_id: int | None, player_id: int, kinds: Iterable[str]
    ) -> list[PlayerRecord]:
        """A player's figures in this server, one per game of `kinds` they have played."""
        wanted = list(kinds)
        async with self.db.execute(
            "SELECT kind, games, wins, bot_games, bot_wins, abandoned, best_score, records"
            " FROM player_records WHERE guild_id = ? AND player_id = ?"
            f" AND kind IN ({','.join('?' * len(wanted))})",
            (guild_id or 0, player_id, *wanted),
        ) as cur:
            rows = {r[0]: r for r in await cur.fetchall()}
        return [
            PlayerRecord(*rows[kind][:7], records=json.loads(rows[kind][7]))
            for kind in wanted
            if kind in rows
        ]

    async def leaderboard(
        self, guild_id: int | None, kind: str, period: str, offset: int, limit: int
    ) -> tuple[int, list[Standing]]:
        """How many players a leaderboard has, and `limit` of them from `offset`: most wins
        first, then fewer games (the better rate), then the earlier player id. `kind` is a
        game or `ALL_GAMES`; `period` a key of `records.period_keys`."""
        key = (guild_id or 0, kind, period)
        async with self.db.execute(
            "SELECT COUNT(*) FROM player_totals WHERE guild_id = ? AND kind = ? AND period = ?",
            key,
        ) as cur:
            row = await cur.fetchone()
        total = int(row[0]) if row else 0
        async with self.db.execute(
            "SELECT player_id, games, wins FROM player_totals"
            " WHERE guild_id = ? AND kind = ? AND period = ?"
            " ORDER BY wins DESC, games, player_id LIMIT ? OFFSET ?",
            (*key, limit, offset),
        ) as cur:
            rows = await cur.fetchall()
        return total, [
            Standing(rank=offset + i + 1, player_id=r[0], games=r[1], wins=r[2])
            for i, r in enumerate(rows)
        ]


_SHOWN_UPDATE = (
    "UPDATE sessions SET message_id = ?, shown_revision = MAX(shown_revision, ?)"
    " WHERE channel_id = ?"
)

#: The columns `finish_session` writes, in the order of `finished_values` (both backends
#: take their placeholders from this list: a new column is added here and there only).
FINISHED_INSERT = (
    "guild_id, channel_id, kind, players, scores, winner_id, rules, outcome, started_at,"
    " finished_at, lobby, bots"
)


def finished_values(game: FinishedGame, finished_at: float) -> tuple[object, ...]:
    """A finished game as the row `finish_session` inserts (JSON columns encoded)."""
    return (
        game.guild_id,
        game.channel_id,
        game.kind,
        json.dumps(game.players),
        json.dumps(game.scores),
        game.winner_id,
        json.dumps(game.rules),
        game.outcome,
        game.started_at,
        finished_at,
        None if game.lobby is None else json.dumps(game.lobby),
        json.dumps(game.bots),
    )


FINISHED_COLUMNS = (
    "id, guild_id, channel_id, kind, players, scores, winner_id, rules, outcome,"
    " started_at, finished_at, lobby, bots"
)


def finished_record(cols: list[str], row: Iterable[object]) -> dict[str, object]:
    """A finished_games row as a dict, its JSON columns decoded (`lobby` may be None)."""
    rec = dict(zip(cols, row, strict=True))
    for key in ("players", "scores", "rules", "lobby", "bots"):
        if rec[key] is not None:
            rec[key] = json.loads(rec[key])  # type: ignore[arg-type]
    return rec
