"""What the benchmarks share: the fake Discord as a load generator, the bot as a child
process, clicking, reading /proc, and the figures' header (command and machine)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import platform
import re
import shlex
import sqlite3
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from tests.e2e.fake_discord import (
    APPLICATION_COMMAND,
    MESSAGE_COMPONENT,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    InteractionRecord,
)
from tests.postgres import PostgresServer, create_database, find_bindir

REPO = Path(__file__).resolve().parents[1]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
TURN = re.compile(r"<@(\d+)>'s turn")
# Log lines that say nothing about the bot: voice libraries not installed, and discord.py's
# heartbeat race on a loopback gateway (the ACK arrives before its keep-alive thread noted
# the send, so the "latency" is the whole 41.25 s heartbeat interval).
ARTEFACT = re.compile(
    r"(PyNaCl|davey) is not installed, voice will NOT be supported"
    r"|Can't keep up, shard ID \d+ websocket is 41\.\ds behind"
)


# ---------------------------------------------------------------------- the header


def command_line(module: str, argv: list[str] | None = None) -> str:
    return f"python -m {module} " + shlex.join(sys.argv[1:] if argv is None else argv)


def machine_info() -> list[str]:
    cpu = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = "?"
    with contextlib.suppress(OSError, ValueError, IndexError):
        total = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
        mem = f"{int(total) / 1024 / 1024:.1f} GiB"

    def version(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"

    return [
        f"nproc {len(os.sched_getaffinity(0))} ({cpu}), RAM {mem}, {platform.system()} "
        f"{platform.release()}",
        f"Python {platform.python_version()}, discord.py {version('discord.py')}, "
        f"aiohttp {version('aiohttp')}, aiosqlite {version('aiosqlite')}, "
        f"SQLite {sqlite3.sqlite_version}, pydantic {version('pydantic')}",
    ]


def code_version() -> str:
    """The commit measured, and whether bot/ or games/ had uncommitted changes (read-only git)."""
    import subprocess

    def git(*args: str) -> str:
        try:
            out = subprocess.run(
                ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return ""
        return out.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--", "bot", "games")
    return f"code: commit {commit}" + (" + uncommitted changes in bot/ or games/" if dirty else "")


def header(module: str, layout: str, argv: list[str] | None = None) -> None:
    print(f"$ {command_line(module, argv)}")
    for line in machine_info():
        print(f"  {line}")
    print(f"  {code_version()}")
    print(f"  layout: {layout}")


# ---------------------------------------------------------------------- numbers


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def proc_memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) of a live process, in KiB."""
    out: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    return out


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system, every thread) a live process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def machine_busy() -> float:
    """CPU seconds every process on the machine has used since boot (all cores)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS


async def wait_for_quiet(max_wait: float, threshold: float = 0.3) -> float:
    """Wait (at most `max_wait` s) until other processes use under `threshold` of a core;
    returns the idle cores measured last, for the report (the machine may be shared)."""
    cores = len(os.sched_getaffinity(0))
    deadline = time.monotonic() + max_wait
    while True:
        before, t = machine_busy(), time.monotonic()
        await asyncio.sleep(0.5)
        busy = (machine_busy() - before) / (time.monotonic() - t)
        if busy < threshold or time.monotonic() > deadline:
            return cores - busy


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% (Wilson score) confidence interval of a win rate (a shared win counts as its share)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def mib(kib: int) -> str:
    return f"{kib / 1024:.1f} MiB"


# ---------------------------------------------------------------------- the fake Discord


@contextlib.contextmanager
def own_postgres(database: str, hint: str = "") -> Iterator[str | None]:
    """A PostgreSQL server of the benchmark's own, durable as a real one (fsync and
    synchronous commits on), holding the empty database `database`: yields its URL and
    stops the server after. Yields None, having said so on stderr (with `hint`), when no
    server binaries are installed."""
    bindir = find_bindir()
    if bindir is None:
        print(f"error: no PostgreSQL server binaries found{hint}", file=sys.stderr)
        yield None
        return
    server = PostgresServer(bindir)
    server.start(durable=True)
    try:
        create_database(server, database)
        yield server.url(database)
    finally:
        server.stop()


class _NoSchema:
    """Stands in for the OpenAPI validator when the benchmark runs without it."""

    def errors(self, method: str, path: str, body: Any) -> list[str]:
        return []


class BenchDiscord(FakeDiscord):
    """The e2e fake, with an index of messages by id (the fake scans every message on each
    lookup), optional schema validation, and a clock on the moment READY and the
    GUILD_CREATEs have been sent."""

    def __init__(self, *, validate: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        if not validate:
            self.spec = _NoSchema()  # type: ignore[assignment]
        self._by_id: dict[int, FakeMessage] = {}
        self.identified_at: float | None = None
        self.identified = asyncio.Event()

    def _new_message(self, channel_id: int, body: dict[str, Any], **kw: Any) -> FakeMessage:
        msg = super()._new_message(channel_id, body, **kw)
        self._by_id[msg.id] = msg
        return msg

    def add_message(self, channel_id: int, **kw: Any) -> FakeMessage:
        msg = super().add_message(channel_id, **kw)
        self._by_id[msg.id] = msg
        return msg

    def message(self, message_id: int) -> FakeMessage | None:
        return self._by_id.get(message_id)

    async def _identify(self, gw: Any, d: dict[str, Any]) -> None:
        await super()._identify(gw, d)
        self.identified_at = time.monotonic()
        self.identified.set()


def slash_data(fake: FakeDiscord, command: str, options: dict[str, Any]) -> dict[str, Any]:
    """INTERACTION_CREATE data of "/group sub" with typed options, from the synced commands."""
    top_name, sub_name = command.split()
    registered = [c for scope in fake.commands.values() for c in scope]
    top = next(c for c in registered if c["name"] == top_name and c.get("type", 1) == 1)
    sub = next(o for o in top.get("options") or [] if o["name"] == sub_name)
    types = {o["name"]: o["type"] for o in sub.get("options") or []}
    given = [{"type": types[k], "name": k, "value": v} for k, v in options.items()]
    data: dict[str, Any] = {
        "id": top["id"],
        "name": top_name,
        "type": 1,
        "options": [{"type": 1, "name": sub_name, "options": given}],
    }
    if "guild_id" in top:
        data["guild_id"] = top["guild_id"]
    return data


async def answered(
    fake: FakeDiscord, record: InteractionRecord, timeout: float = 10.0
) -> InteractionRecord:
    """Send an INTERACTION_CREATE and wait for the bot's callback."""
    await fake.inject(record)
    assert record.acked is not None
    return await asyncio.wait_for(record.acked, timeout)


async def slash(
    fake: FakeDiscord, user: FakeUser, channel: int, command: str, **options: Any
) -> InteractionRecord:
    data = slash_data(fake, command, options)
    return await answered(fake, fake.interaction_payload(APPLICATION_COMMAND, user, channel, data))


async def press(
    fake: FakeDiscord, user: FakeUser, msg: FakeMessage, comp: dict[str, Any]
) -> InteractionRecord:
    """Click a button of `msg` as `user`."""
    data = {"custom_id": comp["custom_id"], "component_type": 2, "id": comp.get("id", 1)}
    record = fake.interaction_payload(MESSAGE_COMPONENT, user, msg.channel_id, data, msg)
    return await answered(fake, record)


def whose_turn(msg: FakeMessage) -> int | None:
    m = TURN.search(msg.text())
    return int(m[1]) if m else None


# ---------------------------------------------------------------------- the bot process


@dataclass
class BotProcess:
    """`python -m bench.botproc` against `fake`: milestones by name, /proc figures, stop."""

    fake: FakeDiscord
    database: Path | str  # a SQLite file or a PostgreSQL URL
    sync: bool = True
    dev_guild: int | None = None
    shard_count: int | None = None
    shard_ids: str | None = None  # "0,2": only these shards (several processes, one database)
    seed: int | None = None
    guild_ready_timeout: float | None = None
    max_seconds: float = 3600.0  # the bot stops by itself after this, whatever happens
    null: bool = False
    untuned: bool = False  # skip the production GC tuning (bot/tuning.py), to compare
    null_messages: bool = False  # the bare client with the bot's intents (guild messages)
    events: dict[str, dict[str, Any]] = field(default_factory=dict)
    stderr: list[str] = field(default_factory=list)
    spawned_at: float = 0.0
    exited_at: float | None = None
    proc: asyncio.subprocess.Process | None = None
    _arrived: asyncio.Condition | None = None
    _readers: list[asyncio.Task[None]] = field(default_factory=list)

    async def start(self) -> None:
        argv = [
            "-m",
            "bench.botproc",
            "--api",
            self.fake.api_url,
            "--gateway",
            self.fake.gateway_url,
            "--token",
            self.fake.token,
            "--database",
            str(self.database),
            "--max-seconds",
            str(self.max_seconds),
        ]
        if self.sync:
            argv.append("--sync")
        if self.null:
            argv.append("--null")
        if self.untuned:
            argv.append("--untuned")
        if self.null_messages:
            argv.append("--null-messages")
        for flag, value in (
            ("--dev-guild", self.dev_guild),
            ("--shard-count", self.shard_count),
            ("--shard-ids", self.shard_ids),
            ("--seed", self.seed),
            ("--guild-ready-timeout", self.guild_ready_timeout),
        ):
            if value is not None:
                argv += [flag, str(value)]
        self._arrived = asyncio.Condition()
        self.spawned_at = time.monotonic()
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *argv,
            cwd=str(REPO),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        self._readers = [
            asyncio.create_task(self._read_events()),
            asyncio.create_task(self._read_stderr()),
        ]

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def _read_events(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        assert self._arrived is not None
        async for raw in self.proc.stdout:
            try:
                line = json.loads(raw)
            except ValueError:
                self.stderr.append("stdout: " + raw.decode(errors="replace").rstrip())
                continue
            async with self._arrived:
                self.events.setdefault(line["event"], line)
                self._arrived.notify_all()
        self.exited_at = time.monotonic()
        async with self._arrived:
            self._arrived.notify_all()

    async def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        async for raw in self.proc.stderr:
            self.stderr.append(raw.decode(errors="replace").rstrip())

    async def wait(self, event: str, timeout: float = 60.0) -> float:
        """The monotonic time of a milestone, waiting for it."""
        assert self._arrived is not None

        def arrived() -> bool:
            return event in self.events or self.exited_at is not None

        async with self._arrived:
            await asyncio.wait_for(self._arrived.wait_for(arrived), timeout)
        if event not in self.events:
            tail = "\n".join(self.stderr[-20:])
            raise RuntimeError(f"the bot exited before {event!r}:\n{tail}")
        return float(self.events[event]["t"])

    async def send(self, line: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        await self.proc.stdin.drain()

    async def profile(self, path: Path | None) -> None:
        """Start (path None) or stop and write a cProfile of the bot's event loop thread."""
        if path is None:
            await self.send("profile-start")
            await self.wait("profiling")
        else:
            await self.send(f"profile-stop {path}")
            await self.wait("profile_written")

    async def gc_stats(self) -> dict[str, float]:
        """The bot's garbage-collector pauses since the last call."""
        self.events.pop("gc_stats", None)
        await self.send("gc-stats")
        await self.wait("gc_stats")
        return self.events["gc_stats"]

    async def stop(self, timeout: float = 30.0) -> int:
        """Ask the bot to close (it closes the database), wait for it; kill it if it hangs."""
        assert self.proc is not None
        if self.proc.returncode is None:
            with contextlib.suppress(ConnectionError):
                await self.send("stop")
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        for task in self._readers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 5)
        return self.proc.returncode or 0

    def problems(self) -> tuple[list[str], int]:
        """Warnings and errors the bot logged (its stderr), less the known artefacts of the
        set-up; and how many of those were left out."""
        lines = [line for line in self.stderr if line.strip()]
        real = [line for line in lines if not ARTEFACT.search(line)]
        return real, len(lines) - len(real)


PROFILE_GROUPS = (
    ("bot/ (adapter)", "/bot/"),
    ("games/ (engines)", "/games/"),
    ("copy.deepcopy (pydantic model_copy(deep=True))", "/copy.py"),
    ("discord.py", "/discord/"),
    ("aiohttp, yarl, multidict", ("/aiohttp/", "/yarl/", "/multidict/")),
    ("pydantic", ("/pydantic/", "/pydantic_core/")),
    ("aiosqlite (hand-off to its thread)", ("/aiosqlite/", "SimpleQueue")),
    ("json", "/json/"),
    ("asyncio event loop", ("/asyncio/", "select.epoll")),
)


def report_problems(bot: Any, fake: FakeDiscord, code: int | None) -> list[str]:
    """Print the bot's exit status and what it logged or sent wrong; returns those lines."""
    logged, artefacts = bot.problems()
    problems = logged + fake.violations
    print(
        f"bot exit status {code}; {len(problems)} warning(s)/violation(s)"
        + (f" ({artefacts} known set-up artefact line(s) left out)" if artefacts else "")
    )
    for line in problems[:10]:
        print(f"  {line}")
    return problems


def profile_groups(path: Path) -> list[tuple[str, float]]:
    """Own time of a cProfile dump summed by package, largest first."""
    import pstats

    stats = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    totals: dict[str, float] = {}
    for (filename, _line, name), (_cc, _nc, tottime, _ct, _callers) in stats.items():
        where = f"{filename}:{name}"
        group = "other (C built-ins, stdlib)"
        for label, needles in PROFILE_GROUPS:
            if isinstance(needles, str):
                needles = (needles,)
            if any(n in where for n in needles):
                group = label
                break
        totals[group] = totals.get(group, 0.0) + tottime
    return sorted(totals.items(), key=lambda kv: -kv[1])


def print_profile(path: Path, limit: int = 25) -> None:
    import pstats

    groups = profile_groups(path)
    total = sum(t for _, t in groups) or 1.0
    print("\nWhere the bot's event loop thread spends its time (cProfile own time by package;")
    print("the profiler inflates pure-Python code such as deepcopy relative to C code):")
    for label, t in groups:
        print(f"  {t / total:6.1%}  {label}")
    stats = pstats.Stats(str(path))
    stats.sort_stats("tottime")
    print(f"\nTop {limit} functions by own time ({path}):")
    stats.print_stats(limit)
