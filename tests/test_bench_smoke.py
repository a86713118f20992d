"""Every benchmark in bench/ runs to its end at a tiny size, as its command line runs it, and
prints its command and each of its figure lines: a benchmark nobody ran for a while cannot
rot unseen (bench.recovery and bench.postgres once did). Only that the lines are there is
checked, never a value: the figures are the benchmarks' business, and time is never
asserted. All of them together take some 30 s of CPU; `-m "not bench"` leaves them out while
working on something else."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.postgres import find_bindir, unavailable

ROOT = Path(__file__).resolve().parents[1]
#: Modules of bench/ that are no benchmark of their own (run by the others).
HELPERS = {
    "__init__": "the package",
    "common": "what the benchmarks share",
    "botproc": "the bot process the benchmarks start",
    "bots_crap": "bench.bots' CRAP matchups",
    "bots_kuriki": "bench.bots' Kuriki matchups",
    "arena_kuriki": "bench.arena's Kuriki opponents",
    "arena_crap": "bench.arena's CRAP opponents",
}
N = r"[\d,.]+"  # a figure, whatever its value


@dataclass(frozen=True)
class Smoke:
    """A benchmark's command at a tiny size, and the lines its output must have, in order
    (regular expressions; the last is its last figure, so the run went to its end)."""

    module: str
    args: str
    lines: tuple[str, ...]
    postgres: bool = False

    def __str__(self) -> str:
        return self.module


SMOKES = (
    Smoke(
        "bench.arena",
        "--game kuriki --games 1 --players 2 --only declare-105",
        (
            r"^opponent +n +wins +95% CI",
            rf"^declare-105 +{N} +{N}% +{N}%-{N}% +50% +55% .* {N} ms +{N} ms$",
        ),
    ),
    Smoke(
        "bench.arena",
        "--game crap --games 1 --players 3 --only card-tracker",
        (
            r"^opponent +n +wins +95% CI",
            rf"^card-tracker +3 +{N}% +{N}%-{N}% +33% +43% .* {N} ms +{N} ms$",
        ),
    ),
    Smoke(
        "bench.bots",
        "--games 1 --game kuriki --game crap --crap-threshold 100",
        (
            r"^kuriki: policy vs 2 truthful",
            rf"^  wins {N}% \(95% CI {N}%-{N}%; an equal player {N}%\) over 1 games, {N} games/s",
            rf"^  decision time \({N} decisions\): p50 {N} ms, p99 {N} ms, max {N} ms",
            r"^crap: policy vs 2 random-legal \(3 players, 100 points\)",
            r"^crap: policy vs itself",
            r"^crap: policy vs 3 random-legal \(4 players, jokers, force recycle\)",
            rf"^  decision time \({N} decisions\): p50 {N} ms",
        ),
    ),
    Smoke(
        "bench.farkle_policy",
        "--games 2 --rules classic --target 1000",
        (
            rf"^table: built in {N} s \(solved in {N} s, {N} sweeps",
            rf"^farkle Classic Farkle: policy first vs simple bot: {N}% \(95% CI",
            r"^farkle Classic Farkle: policy second vs simple bot",
            r"^farkle Classic Farkle: policy vs itself, seats swapped",
            rf"^  the first seat won {N}% .* the table predicts {N}%",
            r"^farkle Classic Farkle: policy vs its table-less fallback",
            rf"^all policy decisions \({N}\): p50 {N} ms, p99 {N} ms, max {N} ms",
        ),
    ),
    Smoke(
        "bench.crap_messages",
        "--games 1 --threshold 100",
        (
            rf"^3 people, to 100, 1 games: {N} turns .* = {N} per turn",
            rf"^1 person \+ 2 bots, to 100, 1 games: {N} turns",
            rf"^1 person \+ 2 bots, she turned on Let bluffs go, .* held the game {N} s",
        ),
    ),
    Smoke(
        "bench.service",
        "--moves 20 --at 10 --window 5",
        (
            rf"^20 moves \(classic\) in {N} s = {N} moves/s, CPU {N} us/move",
            rf"^per move: Tables.click {N} us = engine move {N} us \+ commit",
            rf"^log kept: {N} lines in {N} rows, {N} KiB of JSON .* the saved session {N} KiB"
            rf", of which the record of its sealed draws {N} KiB",
            rf"^click at move 10: Tables.click median {N} us over the 5 clicks up to it",
            rf"^click at move 20: .* \({N}x the first\); saved session {N} KiB$",
        ),
    ),
    Smoke(
        "bench.click_calls",
        "--top 3",
        (
            rf"^one Farkle Roll \(Tables.click\): {N} calls in {N} modules of bot/ and games/; "
            rf"{N} module hops, {N} of them re-entries",
            r"^  most calls: ",
            r"^  most hops: ",
        ),
    ),
    Smoke(
        "bench.storage",
        "--games 1 --target 1000",
        (
            r"^  the policy's value table: built in .*every move decided from it: yes",
            rf"^games: 1 finished, {N} presses and {N} log lines a game",
            rf"^finished game row \(finished_games\), per game: {N} KB",
            rf"^  log +{N} KB",
            rf"^  dice +{N} KB",
            rf"^database file after VACUUM: {N} KB per finished game",
            rf"^running session row at its largest: {N} KB of JSON, of which its sealed draws",
        ),
    ),
    Smoke(
        "bench.memory",
        "--games 4 --every 2 --cached-games 2 --moves 3",
        (
            r"^cached_games 2:",
            rf"^ +2 games played: RSS +{N} MiB, +2 in memory",
            rf"^  from 2 to 4 games played: RSS [+-]{N} MiB with 0 more games in memory$",
            r"^unbounded:",
            rf"^ +4 games played: RSS +{N} MiB, +4 in memory",
            rf"^  from 2 to 4 games played: .* = [+-]?{N} MiB per 1,000 more games in memory",
        ),
    ),
    Smoke(
        "bench.over_days",
        "--games 40 80 --player-games 3 --runs 5",
        (
            r"^40 running games, deadlines 2 h to 7 days ahead, reminders 1 h to 7 days",
            rf"^  an idle hour \(120 wakes, 1 h on the clock\): CPU {N} ms, store reads: 120"
            r" next_deadline \+ 120 due_sessions; reminders: 120 next_reminder \+ 120"
            r" due_reminders \+ 120 outbox, 0 remind_prefs, 0 written; 0 games read, 0 in memory",
            rf"^  memory over the hour: [+-]{N} KiB held, peak {N} KiB above the start",
            rf"^  the bot's memory after the hour: {N} MiB held by Python since before the store",
            rf"^  /games for a player in 3 of them: p50 {N} ms, p99 {N} ms",
            r"^80 running games",
            rf"^  /games for a player in 3 of them: p50 {N} ms, p99 {N} ms",
        ),
    ),
    Smoke(
        "bench.pictures",
        "--repeat 1",
        (
            rf"^emoji pictures: 71 drawn and encoded in {N} ms",
            rf"^farkle story: {N} bytes; render p50 {N} ms",
            r"^kuriki story: ",
            rf"^crap story: {N} bytes; .* in a thread {N} ms, on the loop {N} ms",
        ),
    ),
    Smoke(
        "bench.leaderboard",
        "--games 400 --guilds 4 --players 60 --runs 2",
        (
            rf"^  filled in {N} s: {N} MiB",
            rf"^  busiest server: {N} players on its all-time board",
            rf"^  /leaderboard all games, all, page 1 +p50 +{N} ms, p99 +{N} ms",
            r"^  /stats of the most active player, farkle +p50",
            rf"^  recording a finished game \(2 players\) +p50 +{N} ms, p99 +{N} ms",
        ),
    ),
    Smoke(
        "bench.interactions",
        "--channels 2 --moves 3 --rates 20 --bursts 1 --quiet-wait 0",
        (
            r"set-up \(start, join, start\) .*; lobby posted afresh on \d+ of 4 presses",
            rf"^set-up /farkle start \(one per channel, all at once\): ack latency p50 {N} ms",
            rf"^flat out \(flat out\): 6 moves accepted .* = {N} moves/s",
            rf"^  ack latency p50 {N} ms, p99 {N} ms, max {N} ms",
            rf"^  CPU: bot process {N}% of a core \({N} ms/move\)",
            rf"^  Discord calls per move: {N} interaction callbacks, {N} follow-ups, {N} channel",
            rf"^  TCP connections open to the fake at the end: {N}",
            r"^paced 20 \(offered 20 moves/s\): 6 moves accepted",
            rf"^burst 1 \(2 clicks at once, sent by the fake in {N} ms\): 2 moves accepted",
            r"^committed: 14 moves in the database for 14 accepted; 0 channel\(s\) disagree",
            rf"^bot process RSS: {N} MiB at the end",
            r"^bot exit status 0; 0 warning\(s\)/violation\(s\)",
        ),
    ),
    Smoke(
        "bench.ratio",
        "--rounds 1 --channels 2 --moves 2 --quiet-wait 0",
        (
            rf"^round 1: bot {N} ms/move, bare {N} ms/move, bare, guild messages {N} ms/move",
            # A ratio is n/a when the bot's CPU in so short a run rounds to nothing.
            rf"^median: .*; throughput ratio bot/bare ({N}|n/a), "
            rf"bot/bare with the bot's intents ({N}|n/a)",
        ),
    ),
    Smoke(
        "bench.recovery",
        "--sessions 20 --channels 20 --guilds 2 --samples 3 --overdue 0.5 --quiet-wait 0",
        (
            rf"^database: {N} MiB = {N} bytes per session",
            rf"^start-up, from spawning the process: .* setup_hook done {N} s",
            rf"^  first click .* answered at {N} s = READY TO PLAY",
            rf"^  discord.py on_ready at {N} s",
            rf"^  overdue turns: {N} still due when the sample clicks began",
            rf"^clicks after on_ready, one at a time: 2 games loaded from disk: p50 {N} ms",
            rf"^bot process RSS: {N} MiB when ready",
            r"^bot exit status 0; 0 warning\(s\)/violation\(s\)",
        ),
    ),
    Smoke(
        "bench.ratings",
        "--history 20 --runs 3",
        (
            r"^SQLite: filled with 20 rated games",
            rf"^  recording a rated game \(4 players\) +p50 +{N} ms, p99 +{N} ms",
            r"^  rebuild of \d+ ratings from \d+ rated games: .* \(0 differed",
            r"^PostgreSQL: filled with 20 rated games",
            rf"^  recording the same with a bot \(unrated\) +p50 +{N} ms",
            r"^  rebuild of \d+ ratings from \d+ rated games: .* \(0 differed",
        ),
        postgres=True,
    ),
    Smoke(
        "bench.scale",
        "--sessions 200 --finished 400 --history 50 --runs 2 --heap 10000",
        (
            r"^SQLite: filled in .* 200 running sessions and 400 finished games",
            rf"^  behind_sessions \(start, RESUME\) +p50 +{N} ms, max +{N} ms; loop stalled"
            rf" at most {N} ms",
            rf"^  count_sessions \(start\) +p50 +{N} ms",
            rf"^  recording a finished game \(finish_session\) +p50 +{N} ms",
            rf"^  /history of a player of {N} games, page 1 +p50 +{N} ms",
            rf"^    the same, its last page +p50 +{N} ms, max +{N} ms; loop stalled at most {N} ms",
            r"^PostgreSQL: filled in",
            rf"^    the same, its last page +p50 +{N} ms",
            rf"^start-up collection over {N} objects: freeze_start_up {N} ms on the loop"
            rf" \(a full gc.collect\(\) {N} ms\)",
        ),
        postgres=True,
    ),
    Smoke(
        "bench.postgres",
        "--processes 2 --channels 4 --guilds 2 --moves 2 --rounds 1 --quiet-wait 0",
        (
            r"^  4 channels in 2 guilds .* 2 moves per channel",
            r"^2 processes: 8 moves in .* every move committed; set-up: lobby posted afresh on",
            rf"^  CPU \(cores busy on average\): bots {N} \({N} ms/move\), .* PostgreSQL {N}",
        ),
        postgres=True,
    ),
)


def test_every_benchmark_has_a_smoke_run() -> None:
    modules = {p.stem for p in (ROOT / "bench").glob("*.py")}
    assert {s.module.removeprefix("bench.") for s in SMOKES} == modules - set(HELPERS)
    assert set(HELPERS) <= modules


@pytest.mark.slow
@pytest.mark.bench
@pytest.mark.parametrize("smoke", SMOKES, ids=str)
def test_benchmark_runs_and_prints_its_figures(smoke: Smoke) -> None:
    if smoke.postgres and find_bindir() is None:
        unavailable("no server binaries for the benchmark to start (tests/postgres.py)")
    args = shlex.split(smoke.args)
    run = subprocess.run(
        [sys.executable, "-m", smoke.module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    out = run.stdout
    assert run.returncode == 0, f"exit status {run.returncode}\n{out}\n{run.stderr[-3000:]}"
    lines = out.splitlines()
    assert lines[0] == f"$ python -m {smoke.module} {shlex.join(args)}", out
    at = 1
    for wanted in smoke.lines:
        found = next((i for i in range(at, len(lines)) if re.search(wanted, lines[i])), None)
        assert found is not None, f"no line matching {wanted!r} after line {at}:\n{out}"
        at = found + 1
