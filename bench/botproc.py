"""The bot under test, as its own process: the real `GameBot` (real cogs, real SQLite file)
pointed at a fake Discord on 127.0.0.1. Started by the benchmarks, not by hand:

    python -m bench.botproc --api URL --gateway URL --database PATH [--sync] ...

It writes one JSON line per milestone to stdout ({"event": ..., "t": time.monotonic()}) and
obeys lines on stdin: `profile-start`, `profile-stop PATH` (cProfile of the event loop
thread), `gc-stats` (garbage collector pauses since the last ask) and `stop`. It also stops
by itself after --max-seconds. `--null` swaps GameBot for a bare discord.py client that
echoes each clicked message, to measure discord.py's own cost per click."""

from __future__ import annotations

import time

T_START = time.monotonic()  # before the heavy imports: the interpreter is up

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from typing import Any  # noqa: E402


def emit(event: str, t: float | None = None, **extra: Any) -> None:
    line = {"event": event, "t": time.monotonic() if t is None else t, **extra}
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


class GcPauses:
    """The cyclic garbage collector's pauses in this process: all, and full (generation 2)."""

    def __init__(self) -> None:
        self._t = 0.0
        self.count = self.full = 0
        self.total = self.max = self.full_max = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t = time.perf_counter()
            return
        pause = time.perf_counter() - self._t
        self.count += 1
        self.total += pause
        self.max = max(self.max, pause)
        if info.get("generation") == 2:
            self.full += 1
            self.full_max = max(self.full_max, pause)

    def take(self) -> dict[str, float]:
        """The figures since the last take."""
        out = {
            "gc_count": self.count,
            "gc_total": self.total,
            "gc_max": self.max,
            "gc_full": self.full,
            "gc_full_max": self.full_max,
        }
        self.count = self.full = 0
        self.total = self.max = self.full_max = 0.0
        return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.botproc")
    p.add_argument("--api", required=True, help="fake Discord REST base, .../api/v10")
    p.add_argument("--gateway", required=True, help="fake Discord gateway ws:// URL")
    p.add_argument("--token", default="fake-bot-token")
    p.add_argument("--database", required=True)
    p.add_argument("--sync", action="store_true", help="sync slash commands (as production)")
    p.add_argument("--dev-guild", type=int, default=None)
    p.add_argument("--shard-count", type=int, default=None, help="default: ask /gateway/bot")
    p.add_argument("--shard-ids", default=None, help="comma-separated: run only these shards")
    p.add_argument("--seed", type=int, default=None, help="seeded dice (default SystemRandom)")
    p.add_argument(
        "--guild-ready-timeout",
        type=float,
        default=None,
        help="discord.py's wait for GUILD_CREATEs before on_ready (default: its own, 2 s)",
    )
    p.add_argument(
        "--null",
        action="store_true",
        help="instead of GameBot, a bare discord.py client that answers every button click by "
        "sending the clicked message back unchanged (discord.py's own cost per click)",
    )
    p.add_argument(
        "--null-messages",
        action="store_true",
        help="with --null: subscribe to guild messages as the bot does (to see chatter), so "
        "the bare client also receives the MESSAGE_UPDATE of each table edit; it then leaves "
        "them unparsed as the bot does (bot/gateway.py)",
    )
    p.add_argument(
        "--untuned",
        action="store_true",
        help="skip the production GC tuning of bot/tuning.py (its budget at start, a freeze "
        "once ready), which both the bot and --null get by default",
    )
    p.add_argument("--max-seconds", type=float, default=3600.0)
    return p.parse_args(argv)


def null_client(args: argparse.Namespace) -> Any:
    """A discord.py client with no game, no database: each button click is answered with
    an update carrying the clicked message's own embed and buttons. It gets the bot's tuning
    of discord.py: no message cache, and (with the bot's intents) edits go unparsed."""
    import discord

    intents = discord.Intents.none()
    intents.guilds = True
    # The bot's own intents: the gateway then also sends the MESSAGE_UPDATE of every edit.
    intents.guild_messages = args.null_messages
    client = discord.AutoShardedClient(
        intents=intents, shard_count=args.shard_count, max_messages=None
    )
    if args.null_messages:  # and the bot's tuning for them: edits nobody reads go unparsed
        from bot.gateway import skip_unread_events

        skip_unread_events(client)
        # Its clicks stay whole: it echoes the clicked message's own embed and buttons.
        parsers = client._connection.parsers
        parsers["INTERACTION_CREATE"] = parsers["INTERACTION_CREATE"].parses

    async def on_interaction(interaction: discord.Interaction) -> None:
        msg = interaction.message
        if interaction.type is not discord.InteractionType.component or msg is None:
            return
        await interaction.response.edit_message(
            embed=msg.embeds[0] if msg.embeds else None,
            view=discord.ui.View.from_message(msg, timeout=None),
        )

    client.event(on_interaction)
    return client


async def run(args: argparse.Namespace) -> None:
    from bot.app import GameBot
    from bot.config import BotConfig
    from bot.tuning import freeze_start_up

    loop = asyncio.get_running_loop()
    config = BotConfig(
        database=args.database,
        shard_count=args.shard_count,
        shard_ids=None if args.shard_ids is None else [int(i) for i in args.shard_ids.split(",")],
        dev_guild_id=args.dev_guild,
        farkle_tables="",
    )
    rng = random.Random(args.seed) if args.seed is not None else None
    bot = null_client(args) if args.null else GameBot(config, sync=args.sync, rng=rng)
    if args.guild_ready_timeout is not None:
        bot._connection.guild_ready_timeout = args.guild_ready_timeout
    emit("constructed")

    async def on_ready() -> None:
        if not args.untuned:
            freeze_start_up()
        emit("ready", gc_frozen=gc.get_freeze_count())

    if args.null:
        bot.event(on_ready)
    else:
        bot.add_listener(on_ready, "on_ready")
    await bot.login(args.token)  # runs setup_hook: store, cogs, timers, command sync
    emit("setup_hook_done")
    connect = asyncio.create_task(bot.connect(reconnect=False), name="bench-connect")

    commands: asyncio.Queue[str] = asyncio.Queue()

    def read_stdin() -> None:  # a daemon thread: never keeps the process alive
        for line in sys.stdin:
            loop.call_soon_threadsafe(commands.put_nowait, line)
        loop.call_soon_threadsafe(commands.put_nowait, "stop")

    threading.Thread(target=read_stdin, name="bench-stdin", daemon=True).start()
    pauses = GcPauses()
    profiler = None
    deadline = time.monotonic() + args.max_seconds
    try:
        while True:
            read = asyncio.ensure_future(commands.get())
            done, _ = await asyncio.wait(
                {read, connect},
                timeout=max(0.0, deadline - time.monotonic()),
                return_when=asyncio.FIRST_COMPLETED,
            )
            if connect in done:
                read.cancel()
                emit("connection_ended", error=repr(connect.exception()))
                break
            if read not in done:
                read.cancel()
                emit("timed_out")
                break
            command = read.result().strip().split()
            if not command or command[0] == "stop":
                break
            if command[0] == "gc-stats":
                emit("gc_stats", **pauses.take())
            elif command[0] == "profile-start":
                import cProfile

                profiler = cProfile.Profile()
                profiler.enable()
                emit("profiling")
            elif command[0] == "profile-stop" and profiler is not None:
                profiler.disable()
                profiler.dump_stats(command[1])
                profiler = None
                emit("profile_written", path=command[1])
    finally:
        await bot.close()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(connect, 10)
        emit("closed")


def main(argv: list[str] | None = None) -> int:
    emit("started", t=T_START)
    args = parse_args(argv)
    import yarl
    from discord.gateway import DiscordWebSocket
    from discord.http import Route

    import bot.app  # noqa: F401  (the bot's imports are part of its start-up)
    from bot.tuning import tune_gc

    emit("imported")
    if not args.untuned:
        tune_gc()
    Route.BASE = args.api
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(args.gateway)
    logging.basicConfig(
        level=logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
