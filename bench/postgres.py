"""Several bot processes on one PostgreSQL database: moves/s with 1, 2 and 4 processes.

    python -m bench.postgres --processes 1,2,4 --channels 32 --moves 20

For each process count N (`--rounds` times, alternating): a fresh database on a PostgreSQL server this benchmark starts
(durable settings: fsync and synchronous commits on; or --url for a server of your own), N
bot processes (`python -m bench.botproc`, the real GameBot) with shard_count=N and one shard
each, and one fake Discord serving all N shards. The channels are spread over guilds that
fall evenly into the shards. After the set-up (start, join, start in every channel), every
channel plays `--moves` moves flat out (each channel clicks again as soon as its last click
was answered), whoever's turn it is. Reports moves/s, latency, and where the CPU went (the
bots, the load generator, PostgreSQL and the rest); then checks every accepted move is
committed (each channel's revision in the database). Prints figures; asserts nothing."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import time
from pathlib import Path

import asyncpg

from bench.common import (
    BenchDiscord,
    BotProcess,
    header,
    machine_busy,
    ms,
    percentile,
    proc_cpu,
    report_problems,
    wait_for_quiet,
)
from bench.interactions import SET_UP_REVISIONS, Phase, Table, play, set_up
from games.farkle.rules import PRESETS
from tests.e2e.fake_discord import FakeUser
from tests.postgres import PostgresServer, create_database, find_bindir

GUILD_SHIFTED = 50_000  # guild ids are (GUILD_SHIFTED + g) << 22: g % N is the shard of N
CHANNEL_BASE = 1_300_000_000_000_100_000
USER_BASE = 1_300_000_000_000_200_000


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.postgres", description=__doc__)
    p.add_argument("--processes", default="1,2,4", help="process counts to run, in order")
    p.add_argument(
        "--rounds", type=int, default=3, help="repeat the counts, alternating (a shared machine)"
    )
    p.add_argument("--channels", type=int, default=32, help="channels playing at once")
    p.add_argument("--guilds", type=int, default=8, help="guilds (a multiple of each count)")
    p.add_argument("--moves", type=int, default=20, help="moves per channel")
    p.add_argument("--rules", default="classic", choices=sorted(PRESETS))
    p.add_argument("--url", default=None, help="use this server (postgresql://...); a fresh "
                   "schema per run is made in its database")  # fmt: skip
    p.add_argument("--quiet-wait", type=float, default=30.0)
    return p.parse_args(argv)


def postgres_cpu() -> float:
    """CPU seconds used so far by every PostgreSQL server process of the machine (by
    process name), for the share of the work the database did."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            comm = Path(f"/proc/{entry}/comm").read_text().strip()
            if comm == "postgres" or comm.startswith("postgres:"):
                total += proc_cpu(int(entry))
        except OSError:
            continue
    return total


async def run_count(
    n: int, url: str, args: argparse.Namespace
) -> tuple[Phase, dict[str, float], list[str], int]:
    """One run with `n` bot processes; returns the phase, the CPU split, problems, and
    how many accepted moves the database is missing."""
    rules = PRESETS[args.rules]
    fake = BenchDiscord(validate=False)
    tables: list[Table] = []
    per_guild = -(-args.channels // args.guilds)
    for g in range(args.guilds):
        guild_id = (GUILD_SHIFTED + g) << 22
        ids = range(g * per_guild, min(args.channels, (g + 1) * per_guild))
        fake.add_guild(
            guild_id, f"Guild {g}", {CHANNEL_BASE + i: f"games-{i}" for i in ids},
            owner_id=USER_BASE,
        )  # fmt: skip
        for i in ids:
            players = (
                FakeUser(USER_BASE + 2 * i, f"Player {2 * i}"),
                FakeUser(USER_BASE + 2 * i + 1, f"Player {2 * i + 1}"),
            )
            tables.append(Table(channel=CHANNEL_BASE + i, players=players))
    await fake.start()
    bots = [
        BotProcess(fake, url, sync=(i == 0), seed=i + 1, shard_count=n, shard_ids=str(i))
        for i in range(n)
    ]
    phase = Phase(f"{n} process{'es' if n > 1 else ''}", None)
    cpu: dict[str, float] = {}
    try:
        for bot in bots:  # one at a time: the first syncs the commands and migrates
            await bot.start()
            await bot.wait("ready", 120)
        gate = asyncio.Semaphore(8)  # set-up is not measured: keep it within Discord's 3 s

        async def one(tb: Table) -> int:
            async with gate:
                return await set_up(fake, tb, args.rules)

        cpu["reposted"] = sum(await asyncio.gather(*(one(tb) for tb in tables)))
        await wait_for_quiet(args.quiet_wait)
        gc.collect()
        gc.freeze()
        gc.disable()
        bots0 = sum(proc_cpu(b.pid) for b in bots)
        gen0, pg0, all0 = time.process_time(), postgres_cpu(), machine_busy()
        start = time.perf_counter()
        unanswered: list[Table] = []

        async def guarded(tb: Table) -> None:
            try:
                await play(fake, tb, phase, args.moves, rules, start, None, 0.0)
            except TimeoutError:  # an overloaded machine: counted, and the run goes on
                unanswered.append(tb)

        await asyncio.gather(*(guarded(tb) for tb in tables))
        phase.wall = time.perf_counter() - start
        cpu["bots"] = sum(proc_cpu(b.pid) for b in bots) - bots0
        cpu["generator"] = time.process_time() - gen0
        cpu["postgres"] = postgres_cpu() - pg0
        cpu["all"] = machine_busy() - all0
        cpu["unanswered"] = len(unanswered)
        await asyncio.sleep(0.2)
    except BaseException:
        for bot in bots:  # why a click went unanswered, as the bots logged it
            print("\n".join(bot.stderr[-15:]), file=sys.stderr)
        raise
    finally:
        gc.enable()
        codes = [await b.stop() for b in bots]
        await fake.stop()
    problems = [p for b, c in zip(bots, codes, strict=True) for p in report_problems(b, fake, c)]
    conn = await asyncpg.connect(url)
    try:
        revisions = dict(await conn.fetch("SELECT channel_id, revision FROM sessions"))
    finally:
        await conn.close()
    # A click left unanswered (timed out) may still have been committed: at most one more.
    late = {t.channel for t in unanswered}
    missing = sum(
        1
        for t in tables
        if not 0
        <= revisions.get(t.channel, 0) - SET_UP_REVISIONS - t.accepted
        <= (t.channel in late)
    )
    return phase, cpu, problems, missing


async def run(args: argparse.Namespace) -> int:
    counts = [int(c) for c in args.processes.split(",")]
    server = None
    if args.url is None:
        bindir = find_bindir()
        if bindir is None:
            print("error: no PostgreSQL server binaries found; pass --url", file=sys.stderr)
            return 2
        server = PostgresServer(bindir)
        server.start(durable=True)
    where = "a PostgreSQL 15 server this benchmark started (fsync and synchronous commits on)"
    header(
        "bench.postgres",
        f"N bot processes (python -m bench.botproc, GameBot) with shard_count=N, one shard "
        f"each, on {where if server else args.url}; fake Discord + load generator in this "
        "process, serving all N shards; HTTP and websocket on 127.0.0.1",
    )
    print(
        f"  {args.channels} channels in {args.guilds} guilds (spread evenly over the shards), "
        f"2 players each, rules {args.rules}, {args.moves} moves per channel, flat out; "
        f"{os.cpu_count()} cores; {args.rounds} round(s), alternating",
        flush=True,
    )
    failed = False
    try:
        for run_number, n in enumerate(n for _ in range(args.rounds) for n in counts):
            name = f"bench_{n}_{run_number}"
            if server is not None:
                create_database(server, name)
                url = server.url(name)
            else:
                schema = f"{name}_{int(time.time())}"
                conn = await asyncpg.connect(args.url)
                await conn.execute(f"CREATE SCHEMA {schema}")
                await conn.close()
                url = f"{args.url}{'&' if '?' in args.url else '?'}search_path={schema}"
            phase, cpu, problems, missing = await run_count(n, url, args)
            report(n, phase, cpu, missing, args.channels)
            failed = failed or bool(problems) or bool(missing)
    finally:
        if server is not None:
            server.stop()
    return 1 if failed else 0


def report(n: int, phase: Phase, cpu: dict[str, float], missing: int, channels: int) -> None:
    wall, lat = phase.wall, phase.latencies
    print(
        f"{n} process{'es' if n > 1 else ''}: {phase.accepted} moves in {wall:.2f} s = "
        f"{phase.accepted / wall:,.0f} moves/s; ack latency p50 {ms(percentile(lat, 50))},"
        f" p99 {ms(percentile(lat, 99))}; {len(phase.refused)} refused, "
        f"{cpu['unanswered']:.0f} unanswered within 10 s; "
        + ("every move committed" if not missing else f"{missing} channel(s) disagree")
        + f"; set-up: lobby posted afresh on {cpu['reposted']:.0f} of {2 * channels} presses"
    )
    other = max(0.0, cpu["all"] - cpu["bots"] - cpu["generator"] - cpu["postgres"])
    print(
        "  CPU (cores busy on average): bots {:.2f} ({:.2f} ms/move), load generator "
        "{:.2f}, PostgreSQL {:.2f}, other processes {:.2f}; machine {:.2f} of {}".format(
            cpu["bots"] / wall,
            cpu["bots"] / max(1, phase.accepted) * 1e3,
            cpu["generator"] / wall,
            cpu["postgres"] / wall,
            other / wall,
            cpu["all"] / wall,
            os.cpu_count(),
        ),
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
