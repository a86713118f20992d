"""Many channels playing Farkle at once against the real bot.

    python -m bench.interactions --channels 100 --moves 20

Each channel gets a lobby (/farkle start), a second player (Join) and a started game
(Start); then the channels play in phases, all channels at once, `--moves` moves per channel
per phase, whoever's turn it is clicking (toggle dice, roll, bank, read off the table):

- flat out: each channel clicks again as soon as its last click was answered. This gives
  the most moves/s the bot manages; its latencies are mostly queueing (100 channels always
  waiting: mean latency = channels / throughput).
- paced (`--rates`): each channel clicks on its own steady clock so that all together offer
  R moves/s (at once when running late): the latency players see at that load.
- bursts (`--bursts`): every channel clicks once, all at the same moment (the clicks are
  built first, stamped with one dispatch time, then sent as fast as the fake can): how long
  the last of N clicks that arrive together waits for its answer (Discord allows 3 s).

The set-up is itself three bursts: every channel's /farkle start at once, then, once all
were answered, every Join at once, then every Start; their ack latencies are printed too
(`--pipelined-set-up`: each channel goes on as soon as its own step was answered, so the
bursts overlap).

A move is a click the bot accepted (it updated the table: callback type 7). Ack latency is
the time from the INTERACTION_CREATE dispatch to the callback reaching the fake. At the end
the database is opened and each channel's revision must account for every accepted move
(3 set-up revisions + its moves). Prints figures; asserts nothing about time."""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import os
import random
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.common import (
    BenchDiscord,
    BotProcess,
    header,
    machine_busy,
    mib,
    ms,
    percentile,
    press,
    print_profile,
    proc_cpu,
    proc_memory,
    report_problems,
    slash,
    wait_for_quiet,
    whose_turn,
)
from bot.components import view_of
from bot.sessions import Session
from bot.settings import GuildSettings
from bot.tables.farkle import FarkleTable
from games.farkle import engine
from games.farkle.engine import Action
from games.farkle.rules import PRESETS
from games.farkle.scoring import best_selection
from games.lobby import Lobby, Seat
from tests.e2e.fake_discord import MESSAGE_COMPONENT, FakeMessage, FakeUser

GUILD_BASE = 1_200_000_000_000_000_000
CHANNEL_BASE = 1_200_000_000_000_100_000
USER_BASE = 1_200_000_000_000_200_000
SET_UP_REVISIONS = 3  # lobby opened, second player joined, game started


@dataclass
class Table:
    """One channel's game as its two players see it."""

    channel: int
    players: tuple[FakeUser, FakeUser]
    message: FakeMessage | None = None
    accepted: int = 0
    unanswered: bool = False  # a click got no answer: its move may be committed or not


@dataclass
class Phase:
    """The moves of one phase, every channel together."""

    name: str
    rate: float | None  # offered moves/s over all channels; None: as fast as answered
    burst: bool = False  # one click per channel, all at once
    sending: float = 0.0  # a burst: how long the fake took to send its clicks
    latencies: list[float] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)
    wall: float = 0.0
    bot_cpu: float = 0.0
    gen_cpu: float = 0.0
    other_cpu: float = 0.0  # every other process on the machine
    gc: dict[str, float] = field(default_factory=dict)  # the bot's collector pauses
    calls: dict[str, int] = field(default_factory=dict)  # the bot's Discord calls, by kind
    connections: int | None = None  # TCP connections open to the fake at the end (Linux)

    @property
    def accepted(self) -> int:
        return sum(self.kinds.values())


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.interactions", description=__doc__)
    p.add_argument("--channels", type=int, default=100, help="channels playing at once")
    p.add_argument("--moves", type=int, default=20, help="moves per channel in each phase")
    p.add_argument(
        "--rates",
        default="100,250,500,1000",
        help="paced phases after the flat-out one: offered moves/s over all channels, each "
        "channel clicking at its own steady pace (comma-separated; '' for none)",
    )
    p.add_argument(
        "--bursts",
        type=int,
        default=2,
        help="burst rounds after the other phases: every channel clicks once, all at the "
        "same moment (0 for none)",
    )
    p.add_argument("--per-guild", type=int, default=25, help="channels per guild")
    p.add_argument("--rules", default="classic", choices=sorted(PRESETS))
    p.add_argument("--seed", type=int, default=1, help="the bot's dice (random.Random(seed))")
    p.add_argument(
        "--validate",
        action="store_true",
        help="validate every body against Discord's OpenAPI schema (off by default: it "
        "costs the load generator several ms per request)",
    )
    p.add_argument(
        "--quiet-wait",
        type=float,
        default=30.0,
        help="before each phase, wait up to this many seconds for other processes to leave "
        "the CPUs idle (the machine may be shared); their CPU use is reported per phase",
    )
    p.add_argument(
        "--null-bot",
        action="store_true",
        help="replace GameBot by a bare discord.py client that answers each click with the "
        "clicked table unchanged (no game, no database): discord.py's own cost per click",
    )
    p.add_argument(
        "--null-messages",
        action="store_true",
        help="with --null-bot: the bare client subscribes to guild messages as the bot does, "
        "so it also receives the MESSAGE_UPDATE of each table edit (unparsed, as the bot "
        "leaves it)",
    )
    p.add_argument(
        "--untuned",
        action="store_true",
        help="the bot process (or --null-bot) without the production GC tuning of "
        "bot/tuning.py, to measure what it brings",
    )
    p.add_argument(
        "--profile",
        nargs="?",
        const="flat out",
        help="cProfile the bot during one phase: the flat-out one, or the one named "
        "(such as 'burst 1')",
    )
    p.add_argument(
        "--pipelined-set-up",
        action="store_true",
        help="each channel's Join as soon as its lobby is up, its Start as soon as it was "
        "joined (the set-up's bursts overlap), instead of three bursts one after another",
    )
    p.add_argument("--keep", action="store_true", help="keep the temporary database")
    p.add_argument(
        "--pin",
        action="store_true",
        help="the load generator on the first CPU, the bot on the second (Linux, 2+ CPUs): "
        "single runs vary less, to compare two versions of the code",
    )
    return p.parse_args(argv)


def next_move(table: FarkleTableView) -> tuple[str, dict[str, Any]]:
    """The button the player on turn presses: a simple, legal strategy read off the table."""
    toggles, roll, bank = table.toggles, table.roll, table.bank
    if not toggles:
        assert roll is not None and not roll.get("disabled"), table.labels
        return "roll", roll
    dice = [int(b["label"].split()[0]) for b in toggles]
    selected = {i for i, b in enumerate(toggles) if "✓" in b["label"]}
    plan = set(best_selection(dice, table.rules))
    wrong = sorted(plan ^ selected)
    if wrong:
        return "toggle", toggles[wrong[0]]
    left = len(dice) - len(selected)
    can_roll = roll is not None and not roll.get("disabled")
    can_bank = bank is not None and not bank.get("disabled")
    if can_bank and ((left and left <= 2) or not can_roll):
        return "bank", bank  # type: ignore[return-value]
    if can_roll:
        return "roll", roll  # type: ignore[return-value]
    raise RuntimeError(f"no legal move on the table: {table.labels}")


class FarkleTableView:
    def __init__(self, msg: FakeMessage, rules: Any) -> None:
        self.rules = rules
        buttons = msg.buttons()
        self.labels = [b.get("label") for b in buttons]
        self.toggles = [b for b in buttons if ":toggle:" in b["custom_id"]]
        self.roll = next((b for b in buttons if ":roll:" in b["custom_id"]), None)
        self.bank = next((b for b in buttons if ":bank:" in b["custom_id"]), None)


#: The set-up of a channel, step by step: the host's command, the second player's Join, the
#: host's Start.
SET_UP = ("/farkle start", "Join", "Start")


async def set_up(
    fake: BenchDiscord,
    table: Table,
    rules: str,
    latencies: dict[str, list[float]] | None = None,
    steps: range = range(len(SET_UP)),
) -> int:
    """Take the channel through `steps` of its set-up (`SET_UP`: open a lobby, join it, start
    the game); returns how many of its presses were answered by posting the lobby afresh
    (acknowledged, the clicked copy deleted) rather than by updating the clicked message: the
    presses follow it there, as a player would. Each step's ack latency goes into
    `latencies` under its name."""
    starter, joiner = table.players
    latencies = {} if latencies is None else latencies
    reposted = 0
    for step in steps:
        label = SET_UP[step]
        try:
            if step == 0:
                rec = await slash(
                    fake, starter, table.channel, "farkle start", rules=rules, target=1_000_000
                )
            else:
                assert table.message is not None
                comp = table.message.find_component(label=label)
                rec = await press(fake, joiner if label == "Join" else starter, table.message,
                                  comp or {})  # fmt: skip
        except TimeoutError:
            latencies.setdefault(label, []).append(math.inf)
            raise
        if step == 0 and (rec.callback_type != 4 or rec.message is None):
            raise RuntimeError(f"/farkle start failed in {table.channel}: {rec.text}")
        if step and rec.callback_type not in (6, 7):
            raise RuntimeError(f"{label} refused in {table.channel}: {rec.text}")
        latencies.setdefault(label, []).append(rec.latency or 0.0)
        if step == 0:
            table.message = rec.message
        else:
            reposted += rec.callback_type == 6
            await follow(table, rec, moved=rec.callback_type == 6)
    return reposted


async def follow(table: Table, rec: Any, moved: bool = False) -> None:
    """The table moves down the channel: a press that retired the table it was made on (a new
    turn; `moved`: acknowledged without an update) posts the new one as its public follow-up,
    just after the answer; the next press is made there, once it is in the channel (as a
    player's client would)."""
    assert table.message is not None
    if not moved and table.message.buttons():
        return  # edited in place
    for _ in range(2500):
        posted = [m for m in rec.followups if not m.ephemeral and m.buttons()]
        if posted:
            table.message = posted[-1]
            return
        await asyncio.sleep(0.002)
    raise RuntimeError(f"the table in {table.channel} was retired and no new one came")


def plant_table(fake: BenchDiscord, table: Table, rules_name: str, seed: int) -> None:
    """For --null-bot: a real mid-turn Farkle table (six dice out), rendered by the bot's
    own adapter, put in the channel as if the bot had posted it."""
    adapter = FarkleTable()
    a, b = table.players
    lobby = Lobby(
        starter=a.id,
        players=[Seat(id=a.id, name=a.name), Seat(id=b.id, name=b.name)],
        options={"rules": PRESETS[rules_name].model_dump(mode="json")},
    )
    rng = random.Random(seed)
    state = adapter.new_game(lobby, GuildSettings(), rng)
    while not state.turn.dice:
        state = engine.apply(state, state.current_player.id, Action(kind="roll"), rng)[0]
    session = Session(table.channel, None, "farkle", lobby, state, revision=4)
    rendered = adapter.render(session)
    table.message = fake.add_message(
        table.channel,
        embeds=[rendered.embed.to_dict()],
        components=view_of(rendered.items).to_components(),
    )


async def play(
    fake: BenchDiscord,
    table: Table,
    phase: Phase,
    moves: int,
    rules: Any,
    start: float,
    interval: float | None,
    offset: float,
) -> None:
    """`moves` clicks by whoever's turn it is: each as soon as the last was answered, or (paced)
    at start + offset + k * interval, at once when running late."""
    if table.message is None:
        return  # an earlier click of it went unanswered: it plays no more
    by_id = {p.id: p for p in table.players}
    for k in range(moves):
        if interval is not None:
            delay = start + offset + k * interval - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
        msg = table.message
        player = by_id[whose_turn(msg) or 0]
        kind, comp = next_move(FarkleTableView(msg, rules))
        try:
            rec = await press(fake, player, msg, comp)
        except TimeoutError:  # never answered (or too late: the fake refused it)
            rec = None
        if not await tally(phase, table, kind, rec, 10.0):
            return


async def tally(phase: Phase, table: Table, kind: str, rec: Any | None, waited: float) -> bool:
    """Count a click's answer in `phase`, and follow the table it shows; None: not answered
    within `waited` seconds (or too late: the fake refused it), counted as the slowest, and
    the channel plays no more (returns False)."""
    if rec is None:
        phase.latencies.append(math.inf)
        phase.refused.append(f"no answer within {waited:g} s")
        table.message = None
        table.unanswered = True
        return False
    assert rec.latency is not None
    phase.latencies.append(rec.latency)
    if rec.callback_type == 7:
        table.accepted += 1
        phase.kinds[kind] = phase.kinds.get(kind, 0) + 1
        await follow(table, rec)
    else:
        phase.refused.append(rec.text)
    return True


async def burst(fake: BenchDiscord, tables: list[Table], phase: Phase, rules: Any) -> None:
    """Every channel's next click, all stamped with one dispatch time, then sent as fast as
    the fake's websocket takes them: N clicks that arrived together. The time the fake took
    to send them is `phase.sending`."""
    pressed = []
    for table in tables:
        msg = table.message
        if msg is None:
            continue  # an earlier burst left it unanswered
        player = next(p for p in table.players if p.id == whose_turn(msg))
        kind, comp = next_move(FarkleTableView(msg, rules))
        data = {"custom_id": comp["custom_id"], "component_type": 2, "id": comp.get("id", 1)}
        record = fake.interaction_payload(MESSAGE_COMPONENT, player, msg.channel_id, data, msg)
        pressed.append((table, kind, record))
    if not pressed:
        return
    for _, _, record in pressed:
        fake.register(record)
    start = pressed[0][2].dispatched_at
    for _, _, record in pressed:
        record.dispatched_at = start
    for _, _, record in pressed:
        await fake.dispatch("INTERACTION_CREATE", record.payload, record.guild_id)
    phase.sending = time.perf_counter() - start

    async def answered(table: Table, kind: str, record: Any) -> None:
        try:
            rec = await asyncio.wait_for(record.acked, 30.0)
        except TimeoutError:  # never answered (or answered too late: the fake refused it)
            rec = None
        await tally(phase, table, kind, rec, 30.0)

    await asyncio.gather(*(answered(*p) for p in pressed))


async def run_phase(
    fake: BenchDiscord, bot: BotProcess, tables: list[Table], phase: Phase, moves: int, rules: Any
) -> None:
    n = len(tables)
    interval = None if phase.rate is None else n / phase.rate
    await bot.gc_stats()
    requests0 = len(fake.requests)
    bot_cpu0, gen_cpu0, all_cpu0 = proc_cpu(bot.pid), time.process_time(), machine_busy()
    start = time.perf_counter()
    if phase.burst:
        await burst(fake, tables, phase, rules)
    else:
        await asyncio.gather(
            *(
                play(fake, tb, phase, moves, rules, start, interval, i * (interval or 0) / n)
                for i, tb in enumerate(tables)
            )
        )
    phase.wall = time.perf_counter() - start
    phase.bot_cpu = proc_cpu(bot.pid) - bot_cpu0
    phase.gen_cpu = time.process_time() - gen_cpu0
    phase.other_cpu = machine_busy() - all_cpu0 - phase.bot_cpu - phase.gen_cpu
    phase.gc = await bot.gc_stats()
    phase.connections = connections_to(urlsplit(fake.api_url).port or 80)
    for request in fake.requests[requests0:]:
        kind = call_kind(request.path)
        phase.calls[kind] = phase.calls.get(kind, 0) + 1


def connections_to(port: int) -> int | None:
    """How many TCP connections to `port` on this machine are established (the fake's end of
    each: the bot's HTTP connections and its gateway), from /proc/net/tcp; None elsewhere.
    aiohttp keeps a connection open for reuse; discord.py sets no limit on how many."""
    try:
        lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return None
    local = f":{port:04X}"
    return sum(1 for line in lines if line.split()[1].endswith(local) and line.split()[3] == "01")


def call_kind(path: str) -> str:
    """Which of Discord's budgets a request of the bot spends: interaction callbacks and
    follow-ups (webhooks) are not counted against the global 50 requests/s, the rest is."""
    if "/interactions/" in path:
        return "interaction callbacks"
    if "/webhooks/" in path:
        return "follow-ups"
    if "/channels/" in path:
        return "channel REST calls"
    return "other REST calls"


def latency_figures(lat: list[float]) -> str:
    """p50, p99 and max, an interaction never answered counting as the slowest."""
    if not lat:
        return "none (no clicks)"
    unanswered = sum(1 for x in lat if math.isinf(x))

    def shown(x: float) -> str:
        return ms(x) if math.isfinite(x) else "no answer"

    return (
        f"p50 {shown(percentile(lat, 50))}, p99 {shown(percentile(lat, 99))}, "
        f"max {shown(max(lat))}" + (f", {unanswered} never answered" if unanswered else "")
    )


def report_phase(phase: Phase) -> None:
    lat = phase.latencies
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(phase.kinds.items()))
    if phase.burst:
        offered = f"{len(lat)} clicks at once, sent by the fake in {ms(phase.sending)}"
    elif phase.rate is None:
        offered = "flat out"
    else:
        offered = f"offered {phase.rate:,.0f} moves/s"
    print(
        f"{phase.name} ({offered}): {phase.accepted} moves accepted ({kinds}), "
        f"{len(phase.refused)} refused, in {phase.wall:.2f} s = "
        f"{phase.accepted / max(phase.wall, 1e-9):,.0f} moves/s"
    )
    print(f"  ack latency {latency_figures(lat)} (n={len(lat)})")
    print(
        f"  CPU: bot process {phase.bot_cpu / phase.wall:.0%} of a core "
        f"({phase.bot_cpu / max(1, phase.accepted) * 1e3:.2f} ms/move), "
        f"load generator {phase.gen_cpu / phase.wall:.0%}, other processes on the machine "
        f"{max(0.0, phase.other_cpu) / phase.wall:.0%}"
    )
    calls = ", ".join(
        f"{phase.calls.get(kind, 0) / max(1, phase.accepted):.2f} {kind}"
        for kind in (
            "interaction callbacks",
            "follow-ups",
            "channel REST calls",
            "other REST calls",
        )
    )
    print(f"  Discord calls per move: {calls}")
    if phase.connections is not None:
        print(f"  TCP connections open to the fake at the end: {phase.connections}")
    print(f"  bot garbage collector: {gc_figures(phase.gc)}")


def gc_figures(g: dict[str, float]) -> str:
    """The bot's collector pauses as `bench.botproc` counts them."""
    return (
        f"{g.get('gc_count', 0):.0f} pauses, {ms(g.get('gc_total', 0.0))} in all, longest "
        f"{ms(g.get('gc_max', 0.0))}; {g.get('gc_full', 0):.0f} full collections, longest "
        f"{ms(g.get('gc_full_max', 0.0))}"
    )


def check_database(path: Path, tables: list[Table]) -> dict[str, Any]:
    """Revisions on disk against accepted moves; sizes."""
    db = sqlite3.connect(path)
    try:
        revisions = dict(db.execute("SELECT channel_id, revision FROM sessions").fetchall())
        finished = db.execute("SELECT COUNT(*) FROM finished_games").fetchone()[0]
        avg_data = db.execute("SELECT AVG(LENGTH(data)) FROM sessions").fetchone()[0] or 0
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
    finally:
        db.close()
    missing = []
    for t in tables:
        expected = SET_UP_REVISIONS + t.accepted
        revision = revisions.get(t.channel)
        if t.unanswered and revision == expected + 1:
            continue  # committed, its answer late: the player saw no ack, and may press again
        if revision != expected:
            missing.append((t.channel, revisions.get(t.channel), expected))
    return {
        "sessions": len(revisions),
        "committed_moves": sum(
            revisions.get(t.channel, SET_UP_REVISIONS) - SET_UP_REVISIONS for t in tables
        ),
        "mismatches": missing,
        "finished": finished,
        "avg_data": avg_data,
        "file_bytes": path.stat().st_size,
        "page_bytes": page_size * pages,
    }


def pin(bot_pid: int) -> None:
    """This process (the fake Discord and the load generator) on the first CPU, the bot on
    the second, before the bot starts its threads (they inherit it)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise SystemExit("--pin needs two CPUs")
    os.sched_setaffinity(0, {cpus[0]})
    os.sched_setaffinity(bot_pid, {cpus[1]})


async def run(args: argparse.Namespace) -> int:
    tmp = tempfile.TemporaryDirectory(prefix="tablebot-bench-")
    database = Path(tmp.name) / "bench.sqlite3"
    rules = PRESETS[args.rules]
    fake = BenchDiscord(validate=args.validate)
    tables = []
    for g in range(math.ceil(args.channels / args.per_guild)):
        guild_id = GUILD_BASE + g
        first = g * args.per_guild
        ids = range(first, min(args.channels, first + args.per_guild))
        fake.add_guild(
            guild_id,
            f"Guild {g}",
            {CHANNEL_BASE + i: f"games-{i}" for i in ids},
            owner_id=USER_BASE + 2 * first,
        )
        for i in ids:
            players = (
                FakeUser(USER_BASE + 2 * i, f"Player {2 * i}"),
                FakeUser(USER_BASE + 2 * i + 1, f"Player {2 * i + 1}"),
            )
            tables.append(Table(channel=CHANNEL_BASE + i, players=players))
    await fake.start()
    bot = BotProcess(
        fake,
        database,
        sync=True,
        seed=args.seed,
        null=args.null_bot,
        untuned=args.untuned,
        null_messages=args.null_messages,
    )
    try:
        await bot.start()
        if args.pin:
            pin(bot.pid)
        await bot.wait("ready", 60)
        ready_s = bot.events["ready"]["t"] - bot.spawned_at

        await wait_for_quiet(args.quiet_wait)
        await bot.gc_stats()
        setup_cpu0, setup_gen0 = proc_cpu(bot.pid), time.process_time()
        t = time.perf_counter()
        reposted = 0
        failed: list[BaseException] = []
        set_up_latencies: dict[str, list[float]] = {}
        if args.null_bot:
            for i, tb in enumerate(tables):
                plant_table(fake, tb, args.rules, args.seed + i)
        else:
            # Three bursts, each once the last is answered everywhere; or (--pipelined-set-up)
            # each channel's next step as soon as its last one was answered.
            stages = [range(3)] if args.pipelined_set_up else [range(s, s + 1) for s in range(3)]
            for steps in stages:
                outcomes = await asyncio.gather(
                    *(set_up(fake, tb, args.rules, set_up_latencies, steps) for tb in tables),
                    return_exceptions=True,
                )
                reposted += sum(o for o in outcomes if isinstance(o, int))
                # A channel whose set-up got no answer (the fake refuses one later than 3 s,
                # as Discord does) plays no more: the others go on, and the report says how
                # many.
                stuck = [o for o in outcomes if isinstance(o, BaseException)]
                for o in stuck:
                    if not isinstance(o, TimeoutError):
                        raise o
                failed += stuck
                tables = [tb for tb, o in zip(tables, outcomes, strict=True) if isinstance(o, int)]
        setup_s = time.perf_counter() - t
        setup_cpu = proc_cpu(bot.pid) - setup_cpu0
        setup_gen = time.process_time() - setup_gen0
        setup_gc = await bot.gc_stats()

        phases = [Phase("flat out", None)]
        phases += [Phase(f"paced {r}", float(r)) for r in args.rates.split(",") if r.strip()]
        phases += [Phase(f"burst {i + 1}", None, burst=True) for i in range(args.bursts)]
        profile_path = Path(tmp.name) / "bot.prof"
        # The load generator keeps every interaction it sent: keep its collector from
        # pausing it (and so from delaying the ack timestamps) during the measurements.
        gc.collect()
        gc.freeze()
        gc.disable()
        for phase in phases:
            await wait_for_quiet(args.quiet_wait)
            profiling = args.profile == phase.name
            if profiling:
                await bot.profile(None)
            await run_phase(fake, bot, tables, phase, args.moves, rules)
            if profiling:
                await bot.profile(profile_path)
            await asyncio.sleep(0.2)  # let the bot finish its last handlers
        memory = proc_memory(bot.pid)
    finally:
        gc.enable()
        code = await bot.stop()
        await fake.stop()

    db = None if args.null_bot else check_database(database, tables)
    accepted = sum(tb.accepted for tb in tables)
    refused = [r for phase in phases for r in phase.refused]
    what = (
        "NULL BOT: a bare discord.py client echoing each clicked table, no game, no database"
        if args.null_bot
        else "GameBot, real cogs, SQLite WAL file in a temp dir"
    )
    layout = (
        f"bot in a child process (python -m bench.botproc: {what}), fake Discord + load "
        "generator in this process; HTTP and websocket on 127.0.0.1; OpenAPI schema "
        f"validation {'ON' if args.validate else 'OFF'}"
        + ("; pinned: this process on one CPU, the bot on another" if args.pin else "")
    )
    header("bench.interactions", layout)
    print(
        f"  {args.channels} channels in {len(fake.guilds)} guilds, 2 players each, "
        f"rules {args.rules}, {args.moves} moves per channel per phase; bot ready in "
        f"{ready_s:.2f} s, set-up (start, join, start) {setup_s:.2f} s; lobby posted "
        f"afresh on {reposted} of {2 * len(tables) if not args.null_bot else 0} presses"
    )
    if failed:
        print(
            f"  {len(failed)} channel(s) got no answer to a set-up step within 10 s (the fake "
            "refuses an answer later than 3 s, as Discord does) and played no more"
        )
    for step, lat in set_up_latencies.items():
        print(f"set-up {step} (one per channel, all at once): ack latency {latency_figures(lat)}")
    if set_up_latencies:
        steps = sum(len(lat) for lat in set_up_latencies.values())
        print(
            f"  set-up CPU: bot process {setup_cpu / setup_s:.0%} of a core, "
            f"{setup_cpu / steps * 1e3:.2f} ms per interaction ({steps:,}); load generator "
            f"{setup_gen / setup_s:.0%}; bot garbage collector: {gc_figures(setup_gc)}"
        )
    for phase in phases:
        report_phase(phase)
    if db is not None:
        print(
            f"committed: {db['committed_moves']} moves in the database for {accepted} accepted;"
            f" {len(db['mismatches'])} channel(s) disagree"
            + (f": {db['mismatches'][:5]}" if db["mismatches"] else " (every move committed)")
            + (f"; {db['finished']} game(s) finished" if db["finished"] else "")
        )
        print(
            f"database: {db['file_bytes'] / 1024:.0f} KiB file for {db['sessions']} running "
            f"sessions = {db['file_bytes'] / max(1, db['sessions']) / 1024:.1f} KiB/session "
            f"(session JSON {db['avg_data']:.0f} bytes on average)"
        )
    print(
        f"bot process RSS: {mib(memory.get('VmRSS', 0))} at the end, peak "
        f"{mib(memory.get('VmHWM', 0))}"
    )
    problems = report_problems(bot, fake, code)
    for text in refused[:5]:
        print(f"  refused: {text}")
    if args.profile:
        print_profile(profile_path)
    if args.keep:
        tmp._finalizer.detach()  # type: ignore[attr-defined]
        print(f"database kept at {database}")
    else:
        tmp.cleanup()
    return 0 if not (db and db["mismatches"]) and not problems else 1


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
