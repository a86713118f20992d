"""`python -m bot ratings rebuild [--check] [--config PATH] [--database FILE|URL]`: compute
every skill rating afresh from the recorded games (bot/store/ratings.py) and store them in
place of the kept ones, in one transaction; with --check, only say how many differ (exit
status 1 when any do).

Each finished game updates its players' ratings as it is recorded; a rebuild replays the
rated games in the order they were recorded and gives exactly the same values, so it
changes nothing unless the ratings were lost or changed by hand. On PostgreSQL it can run
while the bot runs (games finishing meanwhile wait for it). On SQLite, stop the bot first: a
game the bot records while the rebuild reads makes the rebuild stop, changing nothing (it
says so; run it again)."""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from bot.config import ConfigError, load_config
from bot.database_errors import DatabaseUnavailable
from bot.store import Store, is_postgres_url


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bot ratings", description=__doc__)
    p.add_argument("action", choices=["rebuild"], help="what to do with the ratings")
    p.add_argument(
        "--check", action="store_true", help="write nothing: say how many ratings differ"
    )
    p.add_argument("--config", type=Path, default=Path("config.toml"))
    p.add_argument(
        "--database", help="SQLite file or postgresql:// URL (default: the config's database)"
    )
    return p.parse_args(list(argv))


async def run(args: argparse.Namespace, out: TextIO) -> int:
    database = args.database or load_config(args.config).database_path()
    if not is_postgres_url(database) and not Path(database).is_file():
        print(f"error: no SQLite file at {database}", file=sys.stderr)
        return 2
    store = await Store.open(database)
    try:
        report = await store.rebuild_ratings(write=not args.check)
    finally:
        await store.close()
    verb = "would change" if args.check else "changed"
    print(
        f"{report.ratings} ratings from {report.games} rated games: {report.differed} "
        f"{verb} (a rating differs from the stored one, or only one of them exists)",
        file=out,
    )
    return 1 if args.check and report.differed else 0


def main(argv: Sequence[str], out: TextIO = sys.stdout) -> int:
    args = parse_args(argv)
    try:
        return asyncio.run(run(args, out))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except DatabaseUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except sqlite3.OperationalError as exc:  # the file changed under the rebuild (busy)
        print(
            f"error: the database changed during the rebuild ({exc}); nothing was written. Is "
            "the bot running on this file? Stop it and run the rebuild again.",
            file=sys.stderr,
        )
        return 1
