"""`python -m bot [--config PATH] [--no-sync]`: run the bot with DISCORD_TOKEN from the environment.

`python -m bot migrate --to postgresql://... [--from FILE ...]` copies SQLite files into
PostgreSQL (see bot/migrate.py); `python -m bot ratings rebuild [--check]` computes the skill
ratings afresh from the recorded games (see bot/rebuild_ratings.py)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import BotConfig, ConfigError, check_token, load_config
from bot.database_errors import DatabaseUnavailable

if TYPE_CHECKING:
    from bot.app import GameBot


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bot", description=__doc__)
    parser.add_argument(
        "--config", type=Path, default=None, help="TOML file (default: config.toml)"
    )
    parser.add_argument(
        "--no-sync", action="store_true", help="do not sync slash commands at start"
    )
    return parser.parse_args(argv)


def prepare(argv: list[str] | None = None) -> tuple[BotConfig, str, bool, str]:
    """Config, token, whether to sync, and where the database setting came from (for an
    error about the database); or ConfigError with one line saying what is wrong."""
    args = parse_args(argv)
    path = args.config or Path("config.toml")
    config = load_config(path, required=args.config is not None)
    token = check_token(os.environ.get("DISCORD_TOKEN"))
    if "database" in config.model_fields_set:
        source = f"database in {path}"
    else:
        source = f"the default database; set database in {path}"
    return config, token, not args.no_sync, source


def run(bot: GameBot, token: str) -> None:
    """What `bot.run` does, with the database opened before Discord is contacted."""

    async def runner() -> None:
        async with bot:
            await bot.open_store()
            await bot.start(token)

    with contextlib.suppress(KeyboardInterrupt):  # asyncio.run has closed everything
        asyncio.run(runner())


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["migrate"]:
        from bot.migrate import main as migrate

        return migrate(args[1:])
    if args[:1] == ["ratings"]:
        from bot.rebuild_ratings import main as ratings

        return ratings(args[1:])
    try:
        config, token, sync, source = prepare(argv)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from bot.app import GameBot

    logging.basicConfig(
        level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    import aiohttp
    import discord

    from bot.tuning import freeze_start_up, tune_gc

    tune_gc()
    bot = GameBot(config, sync=sync)

    async def freeze_once() -> None:
        freeze_start_up()
        bot.remove_listener(freeze_once, "on_ready")

    bot.add_listener(freeze_once, "on_ready")
    try:
        run(bot, token)
    except DatabaseUnavailable as exc:
        print(f"error: {exc.naming(source)}", file=sys.stderr)
        return 1
    except discord.LoginFailure:
        print(
            "error: Discord refused DISCORD_TOKEN (improper token): copy the token again from"
            " the Bot page of the developer portal (not the client secret or application ID)",
            file=sys.stderr,
        )
        return 2
    except (aiohttp.ClientConnectionError, OSError) as exc:
        # The network, not the bot: one line; the log above has the details.
        print(f"error: cannot reach Discord ({exc})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
