"""Memory of one process that sees many games over time: the session cache is bounded.

    python -m bench.memory --games 10000 --cached-games 1000

Plays `--games` Farkle games, one per channel, one after the other through the table service
on a real SQLite file (lobby, join, start, then `--moves` moves each; the games stay running,
as games left for later do), and prints the process's RSS every `--every` games, once with
the cache bounded by `--cached-games` (the bot's `cached_games` setting) and once unbounded,
each in its own fresh process. Asserts nothing."""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import header, proc_memory
from bench.service import choose
from bot.app import default_adapters
from bot.components import Click
from bot.service import Actor, Tables
from bot.settings import GuildSettings
from bot.store import Store
from bot.tuning import tune_gc
from games.farkle.rules import PRESETS


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__)
    p.add_argument("--games", type=int, default=10_000)
    p.add_argument("--moves", type=int, default=6, help="moves played in each game")
    p.add_argument("--cached-games", type=int, default=1000)
    p.add_argument("--every", type=int, default=1000, help="print RSS every N games")
    p.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def rss_kib() -> int:
    import os

    return proc_memory(os.getpid()).get("VmRSS", 0)


async def play(args: argparse.Namespace, limit: int) -> None:
    """The child: play the games with the cache bounded by `limit`, print RSS samples."""
    tune_gc()
    rules = PRESETS["classic"]
    with tempfile.TemporaryDirectory(prefix="tablebot-memory-") as tmp:
        store = await Store.open(Path(tmp) / "bench.sqlite3")
        tables = Tables(
            store=store,
            adapters=default_adapters(),
            defaults=GuildSettings(),
            rng=random.Random(1),
            cached_games=limit,
        )
        players = {1: Actor(1, "Ann"), 2: Actor(2, "Ben")}
        start = rss_kib()
        first: tuple[int, int, int] | None = None  # (games, RSS, games in memory) sampled first
        print(f"  before the games: RSS {start / 1024:.1f} MiB", flush=True)
        for n in range(1, args.games + 1):
            channel = 10_000 + n
            reply = await tables.open_lobby(players[1], 7, channel, "farkle", {"rules": "classic"})
            for actor, action in ((players[2], "join"), (players[1], "start")):
                click = next(
                    c
                    for c in (Click.parse(i.custom_id) for i in reply.items or [])
                    if c and c.action == action
                )
                reply = await tables.click(actor, click, 1)
            for _ in range(args.moves):
                session = await tables.sessions.get(channel)
                if session is None or tables.adapters["farkle"].is_finished(session.state):
                    break
                who, click = choose(reply, tables, channel, rules)
                reply = await tables.click(players[who], click, 1)
            if n % args.every == 0:
                gc.collect()
                rss = rss_kib()
                first = first or (n, rss, len(tables.sessions._cache))
                print(
                    f"  {n:>6} games played: RSS {rss / 1024:6.1f} MiB, {len(tables.sessions._cache):>6} "
                    f"in memory, {(rss - start) / len(tables.sessions._cache) * 1000 / 1024:6.1f} MiB per 1,000 "
                    "games in memory",
                    flush=True,
                )
        await store.close()
    if first is not None and n > first[0]:
        more = len(tables.sessions._cache) - first[2]
        grew = (rss - first[1]) / 1024
        print(
            f"  from {first[0]} to {n} games played: RSS {grew:+.1f} MiB with {more} more games "
            "in memory"
            + (f" = {grew / more * 1000:.1f} MiB per 1,000 more games in memory" if more else ""),
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child is not None:
        asyncio.run(play(args, args.child))
        return 0
    header("bench.memory", "the table service in a fresh process per run, no Discord; SQLite")
    for label, limit in (
        (f"cached_games {args.cached_games}", args.cached_games),
        ("unbounded", 10_000_000),
    ):
        print(f"{label}:", flush=True)
        argv2 = [a for a in (argv if argv is not None else sys.argv[1:])]
        subprocess.run(
            [sys.executable, "-m", "bench.memory", *argv2, "--child", str(limit)], check=True
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
