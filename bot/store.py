"""The one SQLite file: running sessions, server settings and finished games.

The schema is versioned with numbered migrations (PRAGMA user_version). Every write commits
before it returns, so a move the bot has acknowledged survives a crash of the process."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import aiosqlite

MIGRATIONS: list[str] = [
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
    # 5: which seats of a finished game were bots (a JSON list of their ids), so results and
    # stats keep them apart from people; older games had none
    """
    ALTER TABLE finished_games ADD COLUMN bots TEXT NOT NULL DEFAULT '[]';
    """,
]


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
    bots: list[int] = field(default_factory=list)


class Store:
    """Async access to the database; open with `await Store.open(path)`."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    @classmethod
    async def open(cls, path: Path | str) -> Store:
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
        await self.db.close()

    async def schema_version(self) -> int:
        async with self.db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def migrate(self) -> None:
        """Apply every migration newer than the file's version, each in its own transaction."""
        version = await self.schema_version()
        for number, sql in enumerate(MIGRATIONS, start=1):
            if number <= version:
                continue
            await self.db.execute("BEGIN")
            try:
                for statement in filter(str.strip, sql.split(";")):
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

    async def save_session(self, row: SessionRow) -> None:
        """Insert or update a session. An update keeps the row's table message and the
        revision it shows: only `table_shown` writes those (a move committed while the table
        was being posted afresh must not bring back the old message)."""
        await self.db.execute(
            "INSERT INTO sessions (channel_id, guild_id, kind, data, revision, message_id,"
            " deadline, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)"
            " ON CONFLICT(channel_id) DO UPDATE SET guild_id=excluded.guild_id,"
            " kind=excluded.kind, data=excluded.data, revision=excluded.revision,"
            " deadline=excluded.deadline, updated_at=excluded.updated_at",
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

    async def table_shown(self, channel_id: int, message_id: int, revision: int) -> None:
        """The table message now in the channel, and the revision it shows."""
        await self.db.execute(
            "UPDATE sessions SET message_id = ?, shown_revision = MAX(shown_revision, ?)"
            " WHERE channel_id = ?",
            (message_id, revision, channel_id),
        )

    async def behind_sessions(self) -> list[int]:
        """Channels whose table message shows an older state than the one stored."""
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

    async def finish_session(self, channel_id: int, game: FinishedGame) -> int:
        """Record a finished game and drop its session in one transaction; returns the id."""
        await self.db.execute("BEGIN")
        try:
            cur = await self.db.execute(
                "INSERT INTO finished_games (guild_id, channel_id, kind, players, scores,"
                " winner_id, rules, outcome, started_at, finished_at, lobby, bots)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    game.guild_id,
                    game.channel_id,
                    game.kind,
                    json.dumps(game.players),
                    json.dumps(game.scores),
                    game.winner_id,
                    json.dumps(game.rules),
                    game.outcome,
                    game.started_at,
                    time.time(),
                    None if game.lobby is None else json.dumps(game.lobby),
                    json.dumps(game.bots),
                ),
            )
            await self.db.execute("DELETE FROM sessions WHERE channel_id = ?", (channel_id,))
            await self.db.execute("COMMIT")
        except BaseException:
            await self.db.execute("ROLLBACK")
            raise
        return int(cur.lastrowid or 0)

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
        sql = f"SELECT {_FINISHED_COLUMNS} FROM finished_games"
        args: tuple[object, ...] = ()
        if channel_id is not None:
            sql += " WHERE channel_id = ?"
            args = (channel_id,)
        async with self.db.execute(sql + " ORDER BY id", args) as cur:
            cols = [c[0] for c in cur.description]
            rows = await cur.fetchall()
        return [_finished_record(cols, r) for r in rows]

    async def finished_game(self, game_id: int) -> dict[str, object] | None:
        """One finished game by its id (as `finished_games` gives it), or None."""
        async with self.db.execute(
            f"SELECT {_FINISHED_COLUMNS} FROM finished_games WHERE id = ?", (game_id,)
        ) as cur:
            cols = [c[0] for c in cur.description]
            row = await cur.fetchone()
        return None if row is None else _finished_record(cols, row)


_FINISHED_COLUMNS = (
    "id, guild_id, channel_id, kind, players, scores, winner_id, rules, outcome,"
    " started_at, finished_at, lobby, bots"
)


def _finished_record(cols: list[str], row: Iterable[object]) -> dict[str, object]:
    """A finished_games row as a dict, its JSON columns decoded (`lobby` may be None)."""
    rec = dict(zip(cols, row, strict=True))
    for key in ("players", "scores", "rules", "lobby", "bots"):
        if rec[key] is not None:
            rec[key] = json.loads(rec[key])  # type: ignore[arg-type]
    return rec
