"""How well and how fast the bot players play, through the pure engines (no Discord).

    python -m bench.bots --games 200 --seed 1 [--game kuriki|crap|farkle]

Each game module lists its matchups (the policy against a baseline, and against itself with
the seats rotated); each matchup plays N seeded games, seeds S..S+N-1, and prints the
policy's win rate with a 95% confidence interval (Wilson) beside what an equal player would
get, games per second, and the policy's decision times (p50, p99, max). Asserts nothing
about time: the figures are for docs/performance.md."""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Callable

from bench.common import header, percentile, wilson

Matchup = tuple[str, Callable[[int], tuple[float, list[float]]], float]

# Each module provides `matchups() -> list[Matchup]`; imported only when asked for.
GAMES: dict[str, str] = {
    "kuriki": "bench.bots_kuriki",
    "crap": "bench.bots_crap",
    "farkle": "bench.farkle_policy",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.bots", description=__doc__)
    p.add_argument("--games", type=int, default=200, help="games per matchup")
    p.add_argument("--seed", type=int, default=1, help="the first game's seed")
    p.add_argument(
        "--game", choices=sorted(GAMES), action="append", help="only this game (repeatable)"
    )
    p.add_argument(
        "--crap-threshold", type=int, default=1000, help="CRAP games to this many points"
    )
    args = p.parse_args(argv)
    if args.games < 1:
        p.error("--games must be at least 1")
    return args


def matchups(game: str, crap_threshold: int = 1000) -> list[Matchup]:
    module = importlib.import_module(GAMES[game])
    if game == "crap":
        return module.matchups(crap_threshold)
    return module.matchups()


def run(
    name: str, play: Callable[[int], tuple[float, list[float]]], equal: float, games: int, seed: int
) -> dict[str, float]:
    """Play one matchup and print its line; returns the figures."""
    wins = 0.0
    times: list[float] = []
    start = time.perf_counter()
    for s in range(seed, seed + games):
        result, spent = play(s)
        wins += result
        times += spent
    elapsed = time.perf_counter() - start
    low, high = wilson(wins, games)
    figures = {
        "rate": wins / games,
        "low": low,
        "high": high,
        "games_per_s": games / elapsed,
        "p50": percentile(times, 50) if times else 0.0,
        "p99": percentile(times, 99) if times else 0.0,
        "max": max(times, default=0.0),
    }
    print(f"{name}")
    print(
        f"  wins {figures['rate']:.1%} (95% CI {low:.1%}-{high:.1%}; an equal player {equal:.1%})"
        f" over {games} games, {figures['games_per_s']:.1f} games/s"
    )
    print(
        f"  decision time ({len(times)} decisions): p50 {figures['p50'] * 1000:.2f} ms,"
        f" p99 {figures['p99'] * 1000:.2f} ms, max {figures['max'] * 1000:.2f} ms"
    )
    return figures


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    games = args.game or list(GAMES)
    header(
        "bench.bots",
        f"{args.games} games per matchup, seeds {args.seed}..{args.seed + args.games - 1}",
        argv,
    )
    for game in games:
        try:
            listed = matchups(game, args.crap_threshold)
        except ModuleNotFoundError as e:
            if args.game or e.name != GAMES[game]:
                raise
            print(f"{game}: skipped ({e})")
            continue
        for name, play, equal in listed:
            run(name, play, equal, args.games, args.seed)


if __name__ == "__main__":
    main()
