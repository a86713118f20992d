"""The bot's CPU per move against a bare discord.py client answering the same clicks, in
one run, alternating, several rounds each.

    python -m bench.ratio

Each round runs `python -m bench.interactions` flat out (100 channels, 40 moves each: the
size issue 33 measured) once with the bot, once with the bare client (`--null-bot`, which
answers each click with the clicked table unchanged: discord.py's own cost), and once with
the bare client subscribed to guild messages as the bot is (`--null-messages`: it then also
receives the MESSAGE_UPDATE of each edit, and leaves it unparsed as the bot does). Both get
the same tuning (orjson, the GC settings of bot/tuning.py, no message cache). Prints each
run's CPU per move and the throughput ratio (bare CPU / bot CPU) of the rounds' medians;
asserts nothing. Five rounds by default: the bare client's CPU per move moves by a fifth
between runs (its collector's pauses, 660-1,020 ms per 10,000 moves in four runs alike),
the bot's by a tenth.

    python -m bench.ratio --rounds 3 --rate 20 --moves 5

compares the CPU per move at a steady 20 moves/s instead (the paced phase of each run): a
bot that is not saturated, where nothing is batched and each move pays its own wake-ups."""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys

from bench.common import header

CPU = re.compile(r"bot process \d+% of a core \(([\d.]+) ms/move\)")
RUNS = {
    "bot": [],
    "bare": ["--null-bot"],
    "bare, guild messages": ["--null-bot", "--null-messages"],
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.ratio", description=__doc__)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--channels", type=int, default=100)
    p.add_argument("--moves", type=int, default=40, help="moves per channel in each run")
    p.add_argument(
        "--rate", type=float, default=None, help="compare at this many moves/s, not flat out"
    )
    p.add_argument(
        "--pin", action="store_true", help="bench.interactions --pin: a CPU for each process"
    )
    p.add_argument(
        "--quiet-wait",
        type=float,
        default=5.0,
        help="bench.interactions --quiet-wait: how long each run waits for idle CPUs",
    )
    return p.parse_args(argv)


def cpu_per_move(extra: list[str], args: argparse.Namespace) -> float:
    rates = "" if args.rate is None else f"{args.rate:g}"
    cmd = [
        sys.executable, "-m", "bench.interactions", "--channels", str(args.channels),
        "--moves", str(args.moves), "--rates", rates, "--bursts", "0", "--quiet-wait", f"{args.quiet_wait:g}", *extra,
        *(["--pin"] if args.pin else []),
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    found = CPU.findall(out)  # the flat-out phase's, then the paced one's
    if not found:
        raise SystemExit(f"no CPU figure in the output of {' '.join(cmd)}:\n{out}")
    return float(found[-1])


def ratio(bare: float, bot: float) -> str:
    """bare / bot as the figure prints it; "n/a" when the bot's CPU rounds to nothing (a run
    too short for the process clock's ticks, as the smoke test's)."""
    return f"{bare / bot:.2f}" if bot > 0 else "n/a"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    header(
        "bench.ratio",
        f"python -m bench.interactions flat out{'' if args.rate is None else ' and paced'} "
        f"({args.channels} channels, {args.moves} moves each) with the bot, the bare client "
        "and the bare client with the bot's intents, alternating, each in its own run",
        argv,
    )
    seen: dict[str, list[float]] = {name: [] for name in RUNS}
    for n in range(1, args.rounds + 1):
        figures = {name: cpu_per_move(extra, args) for name, extra in RUNS.items()}
        for name, ms in figures.items():
            seen[name].append(ms)
        print(
            f"round {n}: "
            + ", ".join(f"{name} {ms:.2f} ms/move" for name, ms in figures.items())
            + f"; ratio {ratio(figures['bare'], figures['bot'])} "
            f"({ratio(figures['bare, guild messages'], figures['bot'])} with guild messages)",
            flush=True,
        )
    med = {name: statistics.median(v) for name, v in seen.items()}
    print(
        "median: "
        + ", ".join(f"{name} {ms:.2f} ms/move" for name, ms in med.items())
        + f"; throughput ratio bot/bare {ratio(med['bare'], med['bot'])}, "
        f"bot/bare with the bot's intents {ratio(med['bare, guild messages'], med['bot'])}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
