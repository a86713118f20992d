"""The gateway events the bot leaves unparsed: every message edit (its own table edits among
them) arrives through the guild-messages intent, and no listener of the bot reads one."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.app import GameBot
from bot.config import BotConfig
from bot.gateway import skip_unread_events


@pytest.fixture
def bot() -> GameBot:
    return GameBot(BotConfig(database=":memory:"), sync=False)


def edit_parser(bot: GameBot, calls: list[Any]) -> Any:
    """The guarded MESSAGE_UPDATE parser, around a stand-in for discord.py's."""
    bot._connection.parsers["MESSAGE_UPDATE"] = calls.append
    assert skip_unread_events(bot) == ["MESSAGE_UPDATE"]
    return bot._connection.parsers["MESSAGE_UPDATE"]


async def test_message_edits_are_parsed_only_while_something_listens(bot: GameBot) -> None:
    calls: list[Any] = []
    parse = edit_parser(bot, calls)
    parse({"id": "1", "channel_id": "2"})
    assert calls == []  # nothing listens: not parsed
    assert bot._connection.parsers["MESSAGE_CREATE"].__name__ == "parse_message_create"

    async def on_raw_message_edit(event: object) -> None: ...

    bot.add_listener(on_raw_message_edit)  # added after start-up: heard from now on
    parse({"id": "3", "channel_id": "2"})
    assert calls == [{"id": "3", "channel_id": "2"}]
    bot.remove_listener(on_raw_message_edit)
    parse({"id": "4", "channel_id": "2"})
    assert len(calls) == 1


async def test_a_discord_py_without_the_parsers_table_parses_everything(
    bot: GameBot, caplog: pytest.LogCaptureFixture
) -> None:
    original = bot._connection.parsers.pop("MESSAGE_UPDATE")
    with caplog.at_level(logging.WARNING, logger="bot.gateway"):
        assert skip_unread_events(bot) == []
    assert "every message edit is parsed" in caplog.text
    assert "MESSAGE_UPDATE" not in bot._connection.parsers
    bot._connection.parsers["MESSAGE_UPDATE"] = original
