"""The real GameBot in a child process, pointed at a FakeDiscord that runs in the test's
process, so that a test can kill it with SIGKILL like a crashed host would.

    python -m tests.e2e.bot_process --api URL --gateway URL --token T --database FILE|URL
        [--seed N] [--guild ID] [--shard-count N --shard-ids I,J] [--takeover-after S]
        [--die-at rating|recorded] [--clock-file PATH]

(each option may also come from the environment: TABLEBOT_E2E_API, ..._GATEWAY, ..._TOKEN,
..._DATABASE, ..._SEED, ..._GUILD). Prints READY on stdout once the bot is connected and its
server is loaded. Writes the bot's warnings and anyone's errors to stderr as lines starting
with "PROBLEM ", which the harness turns into `Driver.problems`. Run it with -m from the
repository root, so that `bot` and `tests` import as packages.

`--die-at` kills the process itself with SIGKILL at a game's end: `rating`, inside the
transaction that records the game, just before its ratings are written; `recorded`, right
after that transaction committed, before anyone is told; or `reminder`, when the first
reminder was taken (committed with its outbox entry) and is about to be posted.

`--clock-file` lets the test move the bot's clock (its table service's injected clock) as
`Driver.skip_ahead` does in process: on SIGUSR1 the clock becomes the real one plus the
seconds written in that file, and the turn timers look again; a deadline is then due without
anyone waiting for it."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import signal
import sys
import time
from pathlib import Path

import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

import bot.store.ratings as ratings
from bot.app import GameBot
from bot.config import BotConfig
from bot.sessions import Session, Sessions
from bot.store import FinishedGame


class _Problems(logging.Handler):
    """The same filter as the harness's log capture: bot warnings, anyone's errors."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.name.startswith("bot"):
            text = f"{record.name} {record.levelname}: {record.getMessage()}"
            if record.exc_info:
                text += " | " + logging.Formatter().formatException(record.exc_info)
            print("PROBLEM " + text.replace("\n", " | "), file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    env = os.environ.get
    p = argparse.ArgumentParser(prog="python -m tests.e2e.bot_process", description=__doc__)
    p.add_argument("--api", default=env("TABLEBOT_E2E_API"), help="REST base, …/api/v10")
    p.add_argument("--gateway", default=env("TABLEBOT_E2E_GATEWAY"), help="ws://… URL")
    p.add_argument("--token", default=env("TABLEBOT_E2E_TOKEN", "fake-bot-token"))
    p.add_argument("--database", default=env("TABLEBOT_E2E_DATABASE"))
    p.add_argument("--seed", type=int, default=int(env("TABLEBOT_E2E_SEED", "1")))
    p.add_argument("--guild", type=int, default=env("TABLEBOT_E2E_GUILD"))
    p.add_argument("--shard-count", type=int, default=1)
    p.add_argument("--shard-ids", default=None, help="comma-separated, e.g. 0,2")
    p.add_argument("--takeover-after", type=float, default=10.0)
    p.add_argument("--die-at", choices=["rating", "recorded", "reminder"], default=None)
    p.add_argument("--clock-file", default=None, help="seconds ahead, read on SIGUSR1")
    args = p.parse_args(argv)
    missing = [k for k in ("api", "gateway", "database") if not getattr(args, k)]
    if missing:
        p.error("missing " + ", ".join("--" + k for k in missing))
    return args


def skip_ahead(bot: GameBot, clock_file: Path) -> None:
    """The bot's clock runs the seconds of `clock_file` ahead of the real one from now on."""
    ahead = float(clock_file.read_text())
    bot.tables.clock = lambda: time.time() + ahead  # type: ignore[method-assign]
    bot.timers.poke()


def die() -> None:
    """What a kill -9 does: no cleanup, no commit, no answer."""
    os.kill(os.getpid(), signal.SIGKILL)


def die_at(moment: str) -> None:
    """Make the process kill itself at `moment` of the next game's end (see --die-at)."""
    if moment == "reminder":
        import bot.reminder_delivery as delivery

        async def post_in_channel(*args: object) -> None:
            die()

        delivery._post_in_channel = post_in_channel  # type: ignore[assignment]
        return
    if moment == "rating":

        def updated_ratings(*args: object) -> list[tuple[object, ...]]:
            die()
            raise AssertionError("unreachable")

        ratings.updated_ratings = updated_ratings  # type: ignore[assignment]
        return
    finish = Sessions.finish

    async def finished(
        self: Sessions, session: Session, record: FinishedGame, **options: bool
    ) -> int:
        await finish(self, session, record, **options)
        die()
        raise AssertionError("unreachable")

    Sessions.finish = finished  # type: ignore[method-assign]


async def run(args: argparse.Namespace) -> None:
    if args.die_at:
        die_at(args.die_at)
    Route.BASE = args.api
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(args.gateway)
    config = BotConfig(
        database=args.database,
        shard_count=args.shard_count,
        shard_ids=None if args.shard_ids is None else [int(i) for i in args.shard_ids.split(",")],
        takeover_after=args.takeover_after,
        dev_guild_id=int(args.guild) if args.guild else None,
        pictures=False,  # the tests read dice and cards as text
        farkle_tables="",  # no minutes-long table builds during the tests
    )
    bot = GameBot(config, sync=True, rng=random.Random(args.seed))
    bot._connection.guild_ready_timeout = 0.05

    async def on_ready() -> None:
        if args.clock_file:
            asyncio.get_running_loop().add_signal_handler(
                signal.SIGUSR1, skip_ahead, bot, Path(args.clock_file)
            )
        print("READY", flush=True)

    bot.add_listener(on_ready)
    async with bot:
        await bot.login(args.token)
        await bot.connect(reconnect=False)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    handler = _Problems()
    for name in ("bot", "discord", "games", "asyncio"):
        logging.getLogger(name).addHandler(handler)
    logging.getLogger().setLevel(logging.WARNING)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
