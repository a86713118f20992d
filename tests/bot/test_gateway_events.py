"""The gateway events the bot leaves unparsed: every message edit (its own table edits among
them) arrives through the guild-messages intent, and no listener of the bot reads one; and the
parts of a clicked message it never reads (its embed and buttons)."""

from __future__ import annotations

import logging
from typing import Any

import discord
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
    assert skip_unread_events(bot) == ["MESSAGE_UPDATE", "INTERACTION_CREATE"]
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
    assert "every event is parsed in full" in caplog.text
    assert "MESSAGE_UPDATE" not in bot._connection.parsers
    bot._connection.parsers["MESSAGE_UPDATE"] = original


def click_payload(kind: int = 3) -> dict[str, Any]:
    message = {"id": "10", "channel_id": "2", "flags": 64, "embeds": [{"title": "Farkle"}]}
    message["components"] = [{"type": 1, "components": [{"type": 2, "custom_id": "t:x"}]}]
    return {"type": kind, "id": "5", "message": message}


def click_parser(bot: GameBot, parsed: list[dict[str, Any]]) -> Any:
    """The guarded INTERACTION_CREATE parser, around a stand-in for discord.py's."""
    bot._connection.parsers["INTERACTION_CREATE"] = parsed.append
    skip_unread_events(bot)
    return bot._connection.parsers["INTERACTION_CREATE"]


async def test_a_click_is_parsed_without_the_clicked_messages_embed_and_buttons(
    bot: GameBot,
) -> None:
    parsed: list[dict[str, Any]] = []
    parse = click_parser(bot, parsed)
    parse(click_payload())
    assert parsed[0]["message"] == {"id": "10", "channel_id": "2", "flags": 64}
    parse(click_payload(kind=5))  # a modal's submission: left whole
    parse(click_payload(kind=2))  # a slash command (it carries no message anyway)
    assert all("components" in p["message"] for p in parsed[1:])


async def test_with_a_discord_ui_view_registered_clicks_are_parsed_whole(bot: GameBot) -> None:
    parsed: list[dict[str, Any]] = []
    parse = click_parser(bot, parsed)

    class Persistent(discord.ui.View):
        @discord.ui.button(label="Hi", custom_id="persistent:hi")
        async def hi(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
            """A view discord.py dispatches itself: it may read the message's components."""

    bot.add_view(Persistent(timeout=None))  # registered after start-up: seen from now on
    parse(click_payload())
    assert "components" in parsed[0]["message"] and "embeds" in parsed[0]["message"]


async def test_a_discord_py_without_a_view_store_parses_clicks_whole(bot: GameBot) -> None:
    parsed: list[dict[str, Any]] = []
    parse = click_parser(bot, parsed)
    del bot._connection._view_store
    parse(click_payload())
    assert "components" in parsed[0]["message"]
