"""Start-up with many stored running games, and the first click after a restart.

    python -m bench.recovery --sessions 10000

A database is filled with `--sessions` running Farkle games (real engine states, a few
moves into the game, written by the project's own Sessions/Store), then the bot is started
as a fresh process against a fake Discord that knows every channel. Figures, all from the
moment the process was spawned: interpreter up, imports done, GameBot constructed,
setup_hook done (database opened and migrated, cogs, timers, command sync), READY and the
GUILD_CREATEs sent, the first click on a game loaded from disk answered ("ready to play"),
and discord.py's on_ready. Then sample clicks on other games nobody touched since the
restart (each loaded from disk), and the same games again (from the cache). Prints figures;
asserts nothing about time."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import (
    BenchDiscord,
    BotProcess,
    header,
    machine_busy,
    mib,
    ms,
    percentile,
    press,
    proc_cpu,
    proc_memory,
    report_problems,
    wait_for_quiet,
    whose_turn,
)
from bot.app import default_adapters
from bot.components import view_of
from bot.sessions import Session, Sessions
from bot.settings import GuildSettings
from bot.store import Store
from bot.tables.farkle import FarkleTable
from games.draws import Draws
from games.farkle import engine
from games.farkle.engine import Action, FarkleState
from games.farkle.scoring import best_selection
from games.lobby import Lobby, Seat
from tests.e2e.fake_discord import FakeMessage, FakeUser, InteractionRecord

GUILD_BASE = 1_300_000_000_000_000_000
CHANNEL_BASE = 1_300_000_000_001_000_000
USER_BASE = 1_300_000_000_002_000_000
TEMPLATE_IDS = (1_300_000_000_009_000_001, 1_300_000_000_009_000_002)
TEMPLATES = 64
TURN_TIMER = 120.0


@dataclass
class Sample:
    channel: int
    players: tuple[FakeUser, FakeUser]
    message: FakeMessage | None = None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.recovery", description=__doc__)
    p.add_argument("--sessions", type=int, default=10_000, help="running games in the database")
    p.add_argument(
        "--channels",
        type=int,
        default=None,
        help="channels the fake Discord has (default: one per session, at least 10,000), so "
        "that --sessions 0 starts against the same guilds",
    )
    p.add_argument("--guilds", type=int, default=100, help="guilds the channels are spread over")
    p.add_argument("--samples", type=int, default=100, help="games clicked after the restart")
    p.add_argument(
        "--overdue",
        type=float,
        default=0.0,
        help="fraction of the games not clicked whose turn deadline passed while the bot was "
        "down (the turn timers play them at start-up); default 0: every deadline ahead",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--quiet-wait",
        type=float,
        default=60.0,
        help="wait up to this many seconds for other processes to leave the CPUs idle",
    )
    p.add_argument("--keep", action="store_true", help="keep the temporary database")
    return p.parse_args(argv)


# ---------------------------------------------------------------------- the stored games


def progressed_game(rng: random.Random, moves: int) -> tuple[FarkleState, Draws]:
    """A default-rules game `moves` legal moves in, played by a simple strategy, its dice
    sealed as the bot seals them (the record of its draws is stored with it)."""
    settings = GuildSettings()
    lobby = Lobby(
        starter=TEMPLATE_IDS[0],
        players=[Seat(id=TEMPLATE_IDS[0], name="Ann"), Seat(id=TEMPLATE_IDS[1], name="Ben")],
        min_players=2,
        max_players=10,
        options=FarkleTable().lobby_options(settings),
    )
    draws = Draws.fresh(rng)
    state: FarkleState = FarkleTable().new_game(
        lobby, settings, draws.move(TEMPLATE_IDS[0], "start")
    )
    for _ in range(moves):
        me = state.current_player.id
        legal = engine.legal_actions(state, me)
        turn = state.turn
        if "toggle" in legal:
            plan = set(best_selection(turn.dice, state.rules, turn.extended))
            wrong = sorted(plan ^ set(turn.selected))
            if wrong:
                action = Action(kind="toggle", index=wrong[0])
            elif "bank" in legal and rng.random() < 0.4:
                action = Action(kind="bank")
            elif "roll" in legal:
                action = Action(kind="roll")
            else:
                break
        elif "roll" in legal:
            action = Action(kind="roll")
        else:
            break
        state, _ = engine.apply(state, me, action, draws.move(me, action.kind))
        if state.finished:
            break
    return state, draws


async def populate(
    path: Path, args: argparse.Namespace, fake: BenchDiscord
) -> tuple[list[Sample], float]:
    """Fill the database through Sessions.save (each game its own commit, as the bot writes
    them); plant the sample tables."""
    t = time.perf_counter()
    rng = random.Random(args.seed)
    templates = []
    while len(templates) < TEMPLATES:
        state, draws = progressed_game(rng, rng.randint(1, 40))
        if not state.finished:
            templates.append((state.model_dump_json(), draws.json_text(), rng.randint(3, 40)))
    store = await Store.open(path)
    try:
        samples = await _fill(store, templates, rng, args, fake)
    finally:
        await store.close()  # its reader's thread would keep the process alive
    return samples, time.perf_counter() - t


async def _fill(
    store: Store,
    templates: list[tuple[str, str, int]],
    rng: random.Random,
    args: argparse.Namespace,
    fake: BenchDiscord,
) -> list[Sample]:
    sessions = Sessions(store, default_adapters())
    adapter = FarkleTable()
    settings = GuildSettings()
    rules = adapter.lobby_options(settings)
    now = time.time()
    step = max(1, args.sessions // max(1, args.samples))
    sample_indexes = set(range(0, args.sessions, step)[: args.samples])
    others = [i for i in range(args.sessions) if i not in sample_indexes]
    overdue = set(others[: round(len(others) * args.overdue)])  # never a sample
    samples: list[Sample] = []
    for i in range(args.sessions):
        a, b = USER_BASE + 2 * i, USER_BASE + 2 * i + 1
        text, draws_text, revision = templates[i % len(templates)]

        def ours(text: str, a: int = a, b: int = b) -> str:
            return text.replace(str(TEMPLATE_IDS[0]), str(a)).replace(str(TEMPLATE_IDS[1]), str(b))

        state = FarkleState.model_validate_json(ours(text))
        channel = CHANNEL_BASE + i
        session = Session(
            channel_id=channel,
            guild_id=GUILD_BASE + i % args.guilds,
            kind="farkle",
            lobby=Lobby(
                starter=a,
                players=[Seat(id=a, name="Ann"), Seat(id=b, name="Ben")],
                min_players=2,
                max_players=10,
                options=rules,
            ),
            state=state,
            revision=revision,
            deadline=now - 60 if i in overdue else now + rng.uniform(30, TURN_TIMER),
            created_at=now - 600,
            draws=Draws.from_json(json.loads(ours(draws_text))),
        )
        plant = i in sample_indexes or i in overdue
        if plant:
            session.message_id = fake.snowflake()
        await sessions.save(session)  # the bot's own encoding of a row
        # Every table is current, as after a clean run (else start-up would redraw them all).
        shown_id = session.message_id or fake.snowflake()
        if plant:
            rendered = adapter.render(session)
            msg = fake.add_message(
                channel,
                embeds=[rendered.embed.to_dict()],
                components=view_of(rendered.items).to_components(),
            )
            shown_id = msg.id
        await store.table_shown(channel, shown_id, session.revision, created_at=session.created_at)
        if i in sample_indexes:  # (a sample is always planted)
            users = (FakeUser(a, "Ann"), FakeUser(b, "Ben"))
            samples.append(Sample(channel, users, msg))
        sessions._forget(channel)  # keep the populating process small
    return samples


def simple_move(msg: FakeMessage) -> dict[str, Any]:
    """A move every game accepts: tap the first die, or roll when no dice are out."""
    buttons = msg.buttons()
    toggle = next((b for b in buttons if ":toggle:" in b["custom_id"]), None)
    if toggle is not None:
        return toggle
    return next(b for b in buttons if ":roll:" in b["custom_id"] and not b.get("disabled"))


async def click(fake: BenchDiscord, sample: Sample) -> InteractionRecord:
    assert sample.message is not None
    user = next(p for p in sample.players if p.id == whose_turn(sample.message))
    rec = await press(fake, user, sample.message, simple_move(sample.message))
    if rec.callback_type != 7 or rec.latency is None:
        raise RuntimeError(f"click refused in {sample.channel}: {rec.text}")
    return rec


def due_count(path: Path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = db.execute(
            "SELECT COUNT(*) FROM sessions WHERE deadline IS NOT NULL AND deadline <= ?",
            (time.time(),),
        ).fetchone()
        return int(row[0])
    finally:
        db.close()


# ---------------------------------------------------------------------- the run


async def run(args: argparse.Namespace) -> int:
    tmp = tempfile.TemporaryDirectory(prefix="tablebot-recovery-")
    database = Path(tmp.name) / "bench.sqlite3"
    fake = BenchDiscord(validate=False)
    per_guild: dict[int, dict[int, str]] = {}
    channels = args.channels or max(args.sessions, 10_000)
    for i in range(max(channels, args.sessions)):
        per_guild.setdefault(GUILD_BASE + i % args.guilds, {})[CHANNEL_BASE + i] = f"t{i}"
    for g, (guild_id, named) in enumerate(sorted(per_guild.items())):
        fake.add_guild(guild_id, f"Guild {g}", named, owner_id=USER_BASE)
    samples, populate_s = await populate(database, args, fake)
    size = database.stat().st_size
    await fake.start()

    idle_cores = await wait_for_quiet(args.quiet_wait)
    bot = BotProcess(fake, database, sync=True)
    all_cpu0, own_cpu0 = machine_busy(), time.process_time()
    try:
        await bot.start()
        await asyncio.wait_for(fake.identified.wait(), 60)
        first_latency = first_answered = None
        if samples:
            rec = await click(fake, samples[0])
            first_latency, first_answered = rec.latency, rec.acked_at  # CLOCK_MONOTONIC
        bot_cpu = proc_cpu(bot.pid)
        other_cpu = machine_busy() - all_cpu0 - bot_cpu - (time.process_time() - own_cpu0)
        await bot.wait("ready", 60)
        after_ready = proc_memory(bot.pid)
        due_at_clicks = due_count(database) if args.overdue else 0
        cold = [(await click(fake, s)).latency or 0.0 for s in samples[1:]]
        warm = [(await click(fake, s)).latency or 0.0 for s in samples[1:]]
        storm_end = None
        if args.overdue:
            while due_count(database) and time.monotonic() - bot.spawned_at < 600:
                await asyncio.sleep(0.05)
            storm_end = time.monotonic()
        memory = proc_memory(bot.pid)
    finally:
        code = await bot.stop()
        await fake.stop()

    def since_spawn(event: str) -> str:
        return f"{bot.events[event]['t'] - bot.spawned_at:.3f} s"

    header(
        "bench.recovery",
        "bot in a child process (python -m bench.botproc: a fresh interpreter running "
        "GameBot with its cogs on the SQLite file), fake Discord in this process; HTTP and "
        "websocket on 127.0.0.1; schema validation OFF",
    )
    print(
        f"  {args.sessions:,} running Farkle sessions (default rules, 1-40 moves in), "
        f"{len(fake.channels):,} channels in {args.guilds} guilds; {args.overdue:.0%} of the "
        f"others with a turn deadline already passed; populated in {populate_s:.1f} s"
    )
    print(
        f"database: {size / 1024 / 1024:.1f} MiB = {size / max(1, args.sessions):,.0f} bytes "
        "per session"
    )
    print(
        "start-up, from spawning the process: interpreter up "
        f"{since_spawn('started')}, imports done {since_spawn('imported')}, GameBot "
        f"constructed {since_spawn('constructed')}, setup_hook done "
        f"{since_spawn('setup_hook_done')} (database, cogs, timers, command sync)"
    )
    assert fake.identified_at is not None
    print(
        f"  READY + {len(fake.guilds)} GUILD_CREATEs ({len(fake.channels):,} channels) sent at "
        f"{fake.identified_at - bot.spawned_at:.3f} s"
    )
    constructed = bot.events["constructed"]["t"]
    if first_answered is not None and first_latency is not None:
        print(
            "  first click (sent right behind them, on a game loaded from disk) answered at "
            f"{first_answered - bot.spawned_at:.3f} s = READY TO PLAY "
            f"({first_answered - constructed:.3f} s after GameBot was constructed); "
            f"its ack latency {ms(first_latency)}"
        )
    print(
        f"  discord.py on_ready at {since_spawn('ready')} (it waits guild_ready_timeout, 2 s, "
        "after the last GUILD_CREATE; clicks are answered before it)"
    )
    print(
        f"  CPU until the first click: bot process {bot_cpu:.2f} s; other processes on the "
        f"machine {max(0.0, other_cpu):.2f} s (CPUs idle before the start: {idle_cores:.1f})"
    )
    if storm_end is not None:
        print(
            f"  overdue turns: {due_at_clicks:,} still due when the sample clicks began; the "
            f"timers had played them all {storm_end - bot.spawned_at:.1f} s after the spawn"
        )
    if cold:
        print(
            f"clicks after on_ready, one at a time: {len(cold)} games loaded from disk: p50 "
            f"{ms(percentile(cold, 50))}, p99 {ms(percentile(cold, 99))}, max "
            f"{ms(max(cold))}; the same games again (cached): p50 {ms(percentile(warm, 50))}, "
            f"max {ms(max(warm))}"
        )
    print(
        f"bot process RSS: {mib(after_ready.get('VmRSS', 0))} when ready, "
        f"{mib(memory.get('VmRSS', 0))} after the clicks, peak {mib(memory.get('VmHWM', 0))}"
    )
    problems = report_problems(bot, fake, code)
    if args.keep:
        tmp._finalizer.detach()  # type: ignore[attr-defined]
        print(f"database kept at {database}")
    else:
        tmp.cleanup()
    return 0 if not problems else 1


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
