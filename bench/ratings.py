"""What recording a rated game costs, on SQLite and on PostgreSQL.

    python -m bench.ratings --history 2000 --runs 500

For each store (a SQLite WAL file; a PostgreSQL server this benchmark starts with durable
settings, fsync and synchronous commits on, or --url for a server of your own): fill it
with `--history` rated games of `--players` players in one server (seeded; 2 to 6 players,
Farkle, Kuriki and CRAP), then time `--runs` calls of `Store.finish_session` as the bot
makes them when a game ends: a rated game of 4 players (the finished-games row, the
players' rows, their records and leaderboard totals, and their ratings, in one
transaction), and, alternating with it, the same game with a bot seat (unrated: everything
but the ratings), so the difference is what rating adds. Then times one rebuild of every
rating (`python -m bot ratings rebuild`). Prints p50/p99; asserts nothing about time."""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

import asyncpg

from bench.common import header, ms, own_postgres, percentile
from bot.store import FinishedGame, Store
from games.bots import FIRST_BOT_ID

GUILD = 1_400_000_000_000_000_000
CHANNEL = GUILD + 1
PEOPLE = 1_400_000_000_000_100_000  # the players' ids from here on
KINDS = ("farkle", "kuriki", "crap")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.ratings", description=__doc__)
    p.add_argument("--history", type=int, default=2000, help="rated games recorded first")
    p.add_argument("--players", type=int, default=200, help="players of the server")
    p.add_argument("--runs", type=int, default=500, help="timed games of each kind")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--url", default=None, help="PostgreSQL server of your own (postgresql://"
                   "...): a fresh schema is made in its database")  # fmt: skip
    p.add_argument("--stores", default="sqlite,postgresql")
    return p.parse_args(argv)


def a_game(rng: random.Random, players: int, seats: int, at: float, bot: bool = False) -> FinishedGame:
    """A finished game of `seats` random players, in a random finishing order."""
    seated = rng.sample(range(PEOPLE, PEOPLE + players), seats)
    if bot:
        seated[-1] = FIRST_BOT_ID
    kind = rng.choice(KINDS)
    return FinishedGame(
        guild_id=GUILD,
        channel_id=CHANNEL,
        kind=kind,
        players=[{"id": p, "name": f"P{p}"} for p in seated],
        scores={str(p): 100 * (seats - n) for n, p in enumerate(seated)},
        winner_id=seated[0],
        rules={},
        outcome="bench",
        started_at=at - 600,
        finished_at=at,
        bots=[FIRST_BOT_ID] if bot else [],
        places={str(p): n for n, p in enumerate(seated, start=1)},
    )


async def measure(name: str, database: Path | str, args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    store = await Store.open(database)
    try:
        now = time.time() - 86_400
        started = time.perf_counter()
        for i in range(args.history):
            await store.finish_session(CHANNEL, a_game(rng, args.players, rng.randint(2, 6), now + i))
        filled = time.perf_counter() - started
        rated: list[float] = []
        unrated: list[float] = []
        for i in range(args.runs):
            for times, bot in ((rated, False), (unrated, True)):
                game = a_game(rng, args.players, 4, now + args.history + i, bot=bot)
                t0 = time.perf_counter()
                await store.finish_session(CHANNEL, game)
                times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        report = await store.rebuild_ratings()
        rebuild = time.perf_counter() - t0
    finally:
        await store.close()
    print(f"{name}: filled with {args.history} rated games in {filled:.1f} s")
    for label, times in (("a rated game (4 players)", rated), ("the same with a bot (unrated)", unrated)):
        print(
            f"  recording {label:<32} p50 {ms(percentile(times, 50)):>8}, "
            f"p99 {ms(percentile(times, 99)):>8}, max {ms(max(times)):>8}"
        )
    print(
        f"  rebuild of {report.ratings} ratings from {report.games} rated games: {rebuild:.2f} s"
        f" ({report.differed} differed from the incremental ones)"
    )


async def run(args: argparse.Namespace) -> int:
    stores = args.stores.split(",")
    server_words = "a server this benchmark started (fsync, synchronous commits on)"
    header(
        "bench.ratings",
        f"Store.finish_session in this process; {args.history} rated games of {args.players} "
        f"players recorded first, then {args.runs} timed games of 4 players rated and "
        f"{args.runs} with a bot seat, alternating; SQLite: a WAL file (synchronous=NORMAL); "
        f"PostgreSQL: {server_words if args.url is None else args.url.rpartition('@')[2]}",
    )
    with tempfile.TemporaryDirectory() as tmp:
        if "sqlite" in stores:
            await measure("SQLite", Path(tmp) / "ratings.sqlite3", args)
        if "postgresql" not in stores:
            return 0
        if args.url is not None:
            schema = f"bench_ratings_{int(time.time())}"
            conn = await asyncpg.connect(args.url)
            await conn.execute(f"CREATE SCHEMA {schema}")
            await conn.close()
            sep = "&" if "?" in args.url else "?"
            await measure("PostgreSQL", f"{args.url}{sep}search_path={schema}", args)
            return 0
        with own_postgres("bench_ratings", hint="; pass --url") as url:
            if url is None:
                return 2
            await measure("PostgreSQL", url, args)
    return 0


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
