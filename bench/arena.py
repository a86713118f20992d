"""Can a good player exploit the bots? Each game's arena pits one opponent (a fixed rule or
an adaptive player) against the bot players, seats rotated, and counts the opponent's wins.

    python -m bench.arena --game kuriki --games 2000 [--seed 1] [--players 2 3 4]
        [--only double-five]

Each game module lists its cells (`cells(players) -> list[Cell]`): an opponent at a table
size, how often an equal player wins (its fair share) and the most the issue allows it. A
cell plays N seeded games (seeds S..S+N-1: the same dice every run) and prints the
opponent's win rate with a 95% confidence interval (Wilson), whether it stays within the
limit, and the bots' decision times (p99, max). Asserts nothing: the figures are for
docs/bots.md."""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench.common import header, percentile, wilson


@dataclass(frozen=True)
class Cell:
    """One opponent at one table size. `play(seed)` plays a game and returns whether the
    opponent won (1.0, or a share when it shared the win) and the bots' decision times."""

    opponent: str
    players: int
    play: Callable[[int], tuple[float, list[float]]]
    fair: float
    limit: float


# Each module provides `cells(players: int) -> list[Cell]`; imported only when asked for.
GAMES: dict[str, str] = {"kuriki": "bench.arena_kuriki", "crap": "bench.arena_crap"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.arena", description=__doc__)
    p.add_argument("--game", choices=sorted(GAMES), required=True)
    p.add_argument("--games", type=int, default=200, help="games per cell")
    p.add_argument("--seed", type=int, default=1, help="the first game's seed")
    p.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], help="table sizes")
    p.add_argument("--only", action="append", help="only this opponent (repeatable)")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error("--games must be at least 1")
    if any(n < 2 for n in args.players):
        p.error("--players: at least 2")
    return args


def cells(game: str, players: list[int], only: list[str] | None = None) -> list[Cell]:
    module = importlib.import_module(GAMES[game])
    listed = [c for n in players for c in module.cells(n)]
    if only:
        unknown = set(only) - {c.opponent for c in listed}
        if unknown:
            raise SystemExit(f"unknown opponent(s): {', '.join(sorted(unknown))}")
        listed = [c for c in listed if c.opponent in only]
    return listed


def run(cell: Cell, games: int, seed: int) -> dict[str, float]:
    """Play one cell; returns its figures."""
    wins = 0.0
    times: list[float] = []
    start = time.perf_counter()
    for s in range(seed, seed + games):
        won, spent = cell.play(s)
        wins += won
        times += spent
    low, high = wilson(wins, games)
    return {
        "rate": wins / games,
        "low": low,
        "high": high,
        "seconds": time.perf_counter() - start,
        "p99": percentile(times, 99) if times else 0.0,
        "max": max(times, default=0.0),
    }


def verdict(cell: Cell, f: dict[str, float]) -> str:
    """Within the limit, over it, or too close to tell at this many games."""
    if f["high"] <= cell.limit:
        return "ok"
    if f["low"] > cell.limit:
        return "OVER"
    return "ok?" if f["rate"] <= cell.limit else "over?"


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    header(
        "bench.arena",
        f"{args.game}: {args.games} games per cell, seeds {args.seed}..{args.seed + args.games - 1}",
        argv,
    )
    print(f"{'opponent':<22} {'n':>2} {'wins':>6} {'95% CI':>13} {'fair':>5} {'limit':>5}"
          f" {'':>5} {'bot p99':>8} {'max':>8}")
    for cell in cells(args.game, args.players, args.only):
        f = run(cell, args.games, args.seed)
        ci = f"{f['low']:.1%}-{f['high']:.1%}"
        print(
            f"{cell.opponent:<22} {cell.players:>2} {f['rate']:>6.1%} {ci:>13}"
            f" {cell.fair:>5.0%} {cell.limit:>5.0%} {verdict(cell, f):>5}"
            f" {f['p99'] * 1000:>5.1f} ms {f['max'] * 1000:>5.1f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()
