"""`python -m bot migrate --to postgresql://... [--from FILE ...]`: copy SQLite files (one, or
the per-shard files of a sharded bot) into a PostgreSQL database that several processes
then share.

Stop the bot processes first. Each file is copied in one transaction, so a file is copied
entirely or not at all. Copying is idempotent: a row already in PostgreSQL (the same
session channel, server, or finished game) is left as it is, so a second run copies nothing.
At the end every row of every file is looked up in PostgreSQL and the counts are compared;
a difference is an error (exit status 1). A finished game keeps its id when that id is free
in PostgreSQL (so the Rematch buttons of finished tables keep working); otherwise it gets a
new one, and its players' `player_stats` rows follow it. The stats summaries
(`player_totals`, `player_records`) are not copied: each copied `player_stats` row is added
to them as a finishing game is, so a server found in several files adds up. Nor are the
skill ratings: once every file is copied, they are computed afresh from all the rated games
PostgreSQL holds, in the order of their ids there (`Store.rebuild_ratings`)."""

from __future__ import annotations

import argparse
import asyncio
import glob
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import asyncpg

from bot.config import ConfigError, load_config
from bot.store import PlayerRow, SqliteStore, is_postgres_url
from bot.store.postgres import PostgresStore, add_up

#: How a row of a table with a generated id is recognised in another database (its id is
#: not: every file counts from 1). Tables with another primary key are matched on it.
NATURAL_KEYS: dict[str, tuple[str, ...]] = {
    "finished_games": ("channel_id", "kind", "started_at", "finished_at"),
    "damaged_sessions": ("channel_id", "reason", "moved_at"),
}
#: Tables computed from `player_stats`: added up from the copied rows (the totals and
#: records) or replayed once all are copied (the ratings), never copied.
DERIVED = ("player_totals", "player_records", "ratings")
#: A lock only `migrate` takes: two runs at once would both find a row missing.
COPY_LOCK = 7_214_000_002
BATCH = 500


@dataclass
class TableCount:
    derived: bool = False  # added up from player_stats, not copied
    rows: int = 0  # in the file
    copied: int = 0
    present: int = 0  # already in PostgreSQL before this run
    verified: int = 0  # rows of the file found in PostgreSQL afterwards


@dataclass
class FileReport:
    path: Path
    tables: dict[str, TableCount] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(t.derived or t.verified == t.rows for t in self.tables.values())


class Progress:
    """A text progress bar on stderr, redrawn in place."""

    def __init__(self, out: TextIO, label: str, total: int) -> None:
        self.out, self.label, self.total, self.done = out, label, total, 0
        self.draw()

    def advance(self, n: int) -> None:
        self.done += n
        self.draw()

    def draw(self) -> None:
        width = 30
        filled = width if not self.total else width * self.done // self.total
        self.out.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
        )
        self.out.flush()

    def finish(self) -> None:
        self.out.write("\n")
        self.out.flush()


async def _sqlite_tables(lite: SqliteStore) -> dict[str, tuple[list[str], tuple[str, ...]]]:
    """Each table of the file: its columns and the columns a row is recognised by."""
    out: dict[str, tuple[list[str], tuple[str, ...]]] = {}
    async with lite.db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        " ORDER BY name"
    ) as cur:
        names = [r[0] for r in await cur.fetchall()]
    for name in names:
        async with lite.db.execute(f'PRAGMA table_info("{name}")') as cur:
            info = await cur.fetchall()
        columns = [r[1] for r in info]
        pk = tuple(r[1] for r in sorted(info, key=lambda r: r[5]) if r[5])
        key = NATURAL_KEYS.get(name, pk)
        if not key or (key == ("id",) and name not in NATURAL_KEYS):
            raise SystemExit(
                f"error: table {name} has no key to recognise its rows by: add it to "
                "NATURAL_KEYS in bot/migrate.py"
            )
        out[name] = (columns, key)
    return out


async def _find(
    conn: asyncpg.Connection,
    table: str,
    key: tuple[str, ...],
    rows: list[dict[str, Any]],
    columns: tuple[str, ...],
) -> list[asyncpg.Record]:
    """`columns` of the rows of `table` in PostgreSQL that have the key of one of `rows`."""
    cols = ", ".join(key)
    types = {
        r["column_name"]: r["data_type"]
        for r in await conn.fetch(
            "SELECT column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = $1",
            table,
        )
    }
    args = [[r[k] for r in rows] for k in key]
    unnest = ", ".join(f"${i}::{types[k]}[]" for i, k in enumerate(key, start=1))
    return await conn.fetch(
        f"SELECT {', '.join(columns)} FROM {table}"
        f" WHERE ({cols}) IN (SELECT * FROM unnest({unnest}))",
        *args,
    )


async def _existing(
    conn: asyncpg.Connection, table: str, key: tuple[str, ...], rows: list[dict[str, Any]]
) -> set[tuple[Any, ...]]:
    """The keys of `rows` that `table` in PostgreSQL already holds."""
    return {tuple(r) for r in await _find(conn, table, key, rows, key)}


async def copy_file(path: Path, url: str, out: TextIO, *, batch: int = BATCH) -> FileReport:
    """Copy one SQLite file into the database at `url` (see the module's docstring)."""
    report = FileReport(path)
    lite = await SqliteStore.open_file(path)  # brings an older file to the latest schema
    pg = await PostgresStore.open_url(url)
    try:
        tables = await _sqlite_tables(lite)
        # Games before the rows that name them, whatever the tables are called.
        tables = dict(sorted(tables.items(), key=lambda t: t[0] != "finished_games"))
        async with pg.pool.acquire() as conn:
            pg_columns = {
                (r["table_name"], r["column_name"])
                for r in await conn.fetch(
                    "SELECT table_name, column_name FROM information_schema.columns"
                    " WHERE table_schema = current_schema()"
                )
            }
            moved: dict[int, int] = {}  # finished games renumbered: id in the file -> in PG
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", COPY_LOCK)
                for table, (columns, key) in tables.items():
                    missing = [c for c in columns if (table, c) not in pg_columns]
                    if missing:
                        raise SystemExit(
                            f"error: {table}.{', '.join(missing)} of {path} is not in the"
                            " PostgreSQL schema: is the bot there an older version?"
                        )
                    if table in DERIVED:
                        report.tables[table] = TableCount(derived=True)
                        continue
                    report.tables[table] = await _copy_table(
                        lite, conn, table, columns, key, path, out, batch, moved
                    )
            # Verify after the commit, in a fresh read of what is now there.
            for table, (columns, key) in tables.items():
                count = report.tables[table]
                if count.derived:
                    continue
                async for rows in _batches(lite, table, columns, batch, moved):
                    count.verified += len(await _existing(conn, table, key, rows))
    finally:
        await lite.close()
        await pg.close()
    return report


async def _batches(
    lite: SqliteStore, table: str, columns: list[str], size: int, moved: dict[int, int]
) -> AsyncIterator[list[dict[str, Any]]]:
    """The file's rows of `table`, in the order they were written (a table WITHOUT ROWID:
    in its key's order); a player_stats row names its game by its PostgreSQL id."""
    cols = ", ".join(columns)
    async with lite.db.execute(f'PRAGMA table_info("{table}")') as cur:
        key = [r[1] for r in sorted(await cur.fetchall(), key=lambda r: r[5]) if r[5]]
    async with lite.db.execute(
        "SELECT 1 FROM sqlite_master WHERE name = ? AND sql LIKE '%WITHOUT ROWID%'", (table,)
    ) as cur:
        order = ", ".join(key) if await cur.fetchone() else "rowid"
    async with lite.db.execute(f"SELECT {cols} FROM {table} ORDER BY {order}") as cur:
        while rows := await cur.fetchmany(size):
            out = [dict(zip(columns, r, strict=True)) for r in rows]
            if table == "player_stats" and moved:
                for r in out:
                    r["game_id"] = moved.get(r["game_id"], r["game_id"])
            yield out


async def _copy_table(
    lite: SqliteStore,
    conn: asyncpg.Connection,
    table: str,
    columns: list[str],
    key: tuple[str, ...],
    path: Path,
    out: TextIO,
    batch: int,
    moved: dict[int, int],
) -> TableCount:
    count = TableCount()
    async with lite.db.execute(f"SELECT COUNT(*) FROM {table}") as cur:
        row = await cur.fetchone()
    count.rows = int(row[0]) if row else 0
    progress = Progress(out, f"{path.name}: {table}", count.rows)
    generated = "id" in columns and table in NATURAL_KEYS
    async for rows in _batches(lite, table, columns, batch, moved):
        there = await _existing(conn, table, key, rows)
        new = [r for r in rows if tuple(r[k] for k in key) not in there]
        count.present += len(rows) - len(new)
        if generated and new:
            taken = {
                r[0]
                for r in await conn.fetch(
                    f"SELECT id FROM {table} WHERE id = ANY($1::bigint[])", [r["id"] for r in new]
                )
            }
            await _insert(conn, table, [r for r in new if r["id"] not in taken])
            for r in new:
                if r["id"] in taken:  # a new id, given by PostgreSQL
                    moved_to = await _insert_one(conn, table, r)
                    if table == "finished_games":
                        moved[r["id"]] = moved_to
        else:
            await _insert(conn, table, new)
        if table == "finished_games" and there:
            moved.update(await _moved_earlier(conn, rows, there, key))
        if table == "player_stats" and new:
            await add_up(conn, [PlayerRow(**{f: r[f] for f in PlayerRow._fields}) for r in new])
        count.copied += len(new)
        progress.advance(len(rows))
    if generated:  # ids given explicitly do not move the sequence on
        await conn.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
            f" GREATEST((SELECT MAX(id) FROM {table}), 1))"
        )
    progress.finish()
    return count


async def _insert(conn: asyncpg.Connection, table: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    columns = list(rows[0])
    marks = ", ".join(f"${i}" for i in range(1, len(columns) + 1))
    await conn.executemany(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
        [tuple(r[c] for c in columns) for r in rows],
    )


async def _insert_one(conn: asyncpg.Connection, table: str, row: dict[str, Any]) -> int:
    """Insert `row` without its id; the id PostgreSQL gave it."""
    columns = [c for c in row if c != "id"]
    marks = ", ".join(f"${i}" for i in range(1, len(columns) + 1))
    return int(
        await conn.fetchval(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks}) RETURNING id",
            *(row[c] for c in columns),
        )
    )


async def _moved_earlier(
    conn: asyncpg.Connection,
    rows: list[dict[str, Any]],
    there: set[tuple[Any, ...]],
    key: tuple[str, ...],
) -> dict[int, int]:
    """Games of this batch that an earlier run copied under another id: file id -> PG id."""
    present = [r for r in rows if tuple(r[k] for k in key) in there]
    pg_id = {
        tuple(f[k] for k in key): f["id"]
        for f in await _find(conn, "finished_games", key, present, ("id", *key))
    }
    return {
        r["id"]: pg_id[k]
        for r in present
        if (k := tuple(r[c] for c in key)) in pg_id and pg_id[k] != r["id"]
    }


def default_sources(config_path: Path) -> list[Path]:
    """The config's SQLite file, or every per-shard file its `{shards}` name stands for."""
    config = load_config(config_path)
    if is_postgres_url(config.database):
        raise ConfigError(f"{config_path} names PostgreSQL: say which SQLite files with --from")
    return sorted(Path(p) for p in glob.glob(config.database.replace("{shards}", "*")))


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bot migrate", description=__doc__)
    p.add_argument("--to", required=True, help="postgresql://user:password@host/dbname")
    p.add_argument(
        "--from",
        dest="sources",
        type=Path,
        nargs="+",
        help="SQLite files (default: the config's database file, all of its per-shard files)",
    )
    p.add_argument("--config", type=Path, default=Path("config.toml"))
    return p.parse_args(list(argv))


async def run(args: argparse.Namespace, out: TextIO) -> int:
    if not is_postgres_url(args.to):
        print(f"error: --to must be a postgresql:// URL, not {args.to!r}", file=out)
        return 2
    sources = args.sources or default_sources(args.config)
    absent = [p for p in sources if not p.is_file()]
    if not sources or absent:
        print(f"error: no SQLite file at {', '.join(map(str, absent)) or 'the config path'}",
              file=out)  # fmt: skip
        return 2
    ok = True
    for path in sources:
        report = await copy_file(path, args.to, out)
        for table, c in report.tables.items():
            if c.derived:
                how = "rated again below" if table == "ratings" else "added up"
                print(f"{path.name}: {table}: {how} from the copied player_stats", file=out)
                continue
            print(
                f"{path.name}: {table}: {c.rows} rows, {c.copied} copied, {c.present} already"
                f" there, {c.verified}/{c.rows} verified",
                file=out,
            )
        if not report.ok:
            print(f"error: {path} was not copied completely (see the counts above)", file=out)
            ok = False
    pg = await PostgresStore.open_url(args.to)
    try:
        rated = await pg.rebuild_ratings()
    finally:
        await pg.close()
    print(f"ratings: {rated.ratings} ratings from {rated.games} rated games", file=out)
    print("done: every row is in PostgreSQL" if ok else "failed", file=out)
    return 0 if ok else 1


def main(argv: Sequence[str], out: TextIO = sys.stderr) -> int:
    args = parse_args(argv)
    try:
        return asyncio.run(run(args, out))
    except (ConfigError, OSError, asyncpg.PostgresError) as exc:
        print(f"error: {exc}", file=out)
        return 2
