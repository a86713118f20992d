"""How well and how fast the Farkle bot plays: seeded two-player games through the pure engine.

    python -m bench.farkle_policy --games 500 --seed 1 [--rules crappy-malappy] [--cache-dir D]

Builds the rule set's value table first (timed; loaded instead when --cache-dir holds it), then
plays --games games per matchup and prints each win rate with its 95% confidence interval,
games per second and the policy's decision times (p50/p99/max):

- the policy against the simple bot (keeps every scoring die, banks at the first chance),
  moving first and moving second;
- the policy against itself, seats swapped every game (an equal policy gets 50%);
- the fallback the policy uses until its table is built (most expected points per turn)
  against the policy: how much the fallback gives away to table play.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import header, ms, percentile, wilson
from games.farkle import optimal, policy
from games.farkle.rules import PRESETS, FarkleRules
from games.farkle.selfplay import Chooser, play

Match = Callable[[int], tuple[float, list[float]]]


def _game(rules: FarkleRules, me: Chooser, other: Chooser, first: bool) -> Match:
    """play(seed): me against other, me moving first or second; (my result, my decision times)."""

    def run(seed: int) -> tuple[float, list[float]]:
        seats = [me, other] if first else [other, me]
        mine = 0 if first else 1
        game = play(rules, seats, seed)
        return (1.0 if game.winner == mine else 0.0), game.times[mine]

    return run


def _swapped(rules: FarkleRules, me: Chooser, other: Chooser) -> Match:
    """Seats swapped every game: me first on even seeds, second on odd ones."""
    first, second = _game(rules, me, other, True), _game(rules, me, other, False)
    return lambda seed: first(seed) if seed % 2 == 0 else second(seed)


def matchups(
    rules: FarkleRules | None = None, cache_dir: Path | str | None = None
) -> list[tuple[str, Match, float]]:
    """(name, play(seed) -> (the policy's result 1.0 win / 0.0 loss, its decision times in
    seconds), the rate a policy no better than its opponent would get). The first game built
    the rule set's table (blocking), unless cache_dir holds it."""
    rules = rules or PRESETS["crappy-malappy"]
    ready: list[bool] = []

    def prepared(match: Match) -> Match:
        def run(seed: int) -> tuple[float, list[float]]:
            if not ready:
                optimal.prepare(rules, cache_dir)
                ready.append(True)
            return match(seed)

        return run

    return [
        (
            f"farkle {rules.name}: policy first vs simple bot",
            prepared(_game(rules, policy.choose, policy.baseline, True)),
            0.5,
        ),
        (
            f"farkle {rules.name}: policy second vs simple bot",
            prepared(_game(rules, policy.choose, policy.baseline, False)),
            0.5,
        ),
        (
            f"farkle {rules.name}: policy vs itself, seats swapped",
            prepared(_swapped(rules, policy.choose, policy.choose)),
            0.5,
        ),
        (
            f"farkle {rules.name}: policy vs its table-less fallback, seats swapped",
            prepared(_swapped(rules, policy.choose, policy.fallback)),
            0.5,
        ),
    ]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per matchup")
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    parser.add_argument("--rules", choices=sorted(PRESETS), default="crappy-malappy")
    parser.add_argument("--target", type=int, help="override the preset's target")
    parser.add_argument("--cache-dir", help="load/save the value table here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rules = PRESETS[args.rules]
    if args.target:
        rules = FarkleRules(**{**rules.model_dump(), "target": args.target})
    header("bench.farkle_policy", f"{rules.name}, target {rules.target}, 2 players")

    began = time.perf_counter()
    table = optimal.prepare(rules, args.cache_dir)
    took = time.perf_counter() - began
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    how = "loaded" if took < table.seconds / 2 else "built"
    print(
        f"table: {how} in {took:.1f} s (solved in {table.seconds:.1f} s, {table.sweeps} sweeps "
        f"at the finest grid), {table.nbytes / 2**20:.1f} MiB, grid {len(table.grid)}x"
        f"{len(table.grid)} banked scores, step {int(table.grid[1] - table.grid[0])} units of "
        f"{table.model.unit}; peak RSS {rss:.0f} MiB"
    )
    print(f"table: first mover wins {table.start[0, 0, 0]:.2%} with both optimal")

    all_times: list[float] = []
    for name, run, equal in matchups(rules, args.cache_dir):
        wins, times, first_won = 0.0, [], 0.0
        start = time.perf_counter()
        for seed in range(args.seed, args.seed + args.games):
            result, spent = run(seed)
            wins += result
            times += spent
            if "itself" in name:  # seats swapped: the first seat won when...
                first_won += result if seed % 2 == 0 else 1 - result
        elapsed = time.perf_counter() - start
        lo, hi = wilson(wins, args.games)
        all_times += times
        print(
            f"{name}: {wins / args.games:.1%} (95% CI {lo:.1%}-{hi:.1%}; equal play {equal:.0%})"
            f", {args.games / elapsed:.1f} games/s, decision p50 {ms(percentile(times, 50))}"
            f" p99 {ms(percentile(times, 99))} max {ms(max(times))}"
        )
        if "itself" in name:
            lo, hi = wilson(first_won, args.games)
            print(
                f"  the first seat won {first_won / args.games:.1%} (95% CI {lo:.1%}-{hi:.1%}); "
                f"the table predicts {table.start[0, 0, 0]:.1%} with both playing it"
            )
    print(
        f"all policy decisions ({len(all_times)}): p50 {ms(percentile(all_times, 50))}, "
        f"p99 {ms(percentile(all_times, 99))}, max {ms(max(all_times))}, "
        f"mean {ms(statistics.fmean(all_times))}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
