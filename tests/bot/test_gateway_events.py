"""The gateway events the bot leaves unparsed: every message edit (its own table edits among
them) arrives through the guild-messages intent, and no listener of the bot reads one; and the
parts of a clicked message it never reads (its embed, buttons, mentions...)."""

from __future__ import annotations

import logging
from typing import Any

import discord
import pytest

from bot.app import GameBot
from bot.config import BotConfig
from bot.gateway import CLICKED_PARTS_READ, skip_unread_events
from bot.interactions import ephemeral_owner


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
    assert parsed[0]["message"] == {
        "id": "10", "channel_id": "2", "flags": 64, "components": [], "mentions": [],
        "mention_roles": [],
    }  # fmt: skip
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


ALICE = {"id": "11", "username": "alice", "global_name": "Alice", "discriminator": "0",
         "avatar": None, "bot": False, "public_flags": 0}  # fmt: skip


def clicked_message(flags: int) -> dict[str, Any]:
    """A table message as Discord sends it in a click: every part a message has."""
    me = {**ALICE, "id": "9", "username": "tablebot", "bot": True}
    return {
        "id": "10", "channel_id": "2", "type": 0, "author": me, "content": f"<@{ALICE['id']}>",
        "timestamp": "2024-01-01T00:00:00+00:00", "edited_timestamp": "2024-01-01T00:01:00+00:00",
        "tts": False, "mention_everyone": False, "mentions": [ALICE], "mention_roles": [],
        "attachments": [], "embeds": [{"title": "Farkle"}], "reactions": [], "pinned": False,
        "components": [{"type": 1, "components": [{"type": 2, "custom_id": "t:x", "style": 2}]}],
        "flags": flags, "webhook_id": "9", "application_id": "9",
        "interaction_metadata": {"id": "7", "type": 2, "user": ALICE,
                                 "authorizing_integration_owners": {"1": "11"}},
    }  # fmt: skip


async def test_a_clicked_message_keeps_only_the_parts_the_bot_reads(bot: GameBot) -> None:
    parsed: list[dict[str, Any]] = []
    parse = click_parser(bot, parsed)
    for flags in (0, 64):
        parse({**click_payload(), "message": clicked_message(flags)})
    public, ephemeral = (p["message"] for p in parsed)
    assert public == {
        **{k: clicked_message(0)[k] for k in CLICKED_PARTS_READ if k != "guild_id"},
        "components": [], "mentions": [], "mention_roles": [],
    }  # fmt: skip
    assert public["flags"] == 0 and public["author"]["id"] == "9"
    # Whose an ephemeral message is, is read from the interaction that made it.
    assert ephemeral.keys() == {*public, "interaction_metadata"}


async def test_discord_py_builds_the_clicked_message_the_bot_reads(bot: GameBot) -> None:
    """Through discord.py's own parser: the message the bot gets has its id, flags and (when
    ephemeral) its owner; the parts it never reads are empty."""
    seen: list[discord.Interaction] = []
    bot._connection.dispatch = lambda event, *args: seen.extend(args)  # type: ignore[method-assign]
    skip_unread_events(bot)
    for n, flags in enumerate((0, 64)):
        bot._connection.parsers["INTERACTION_CREATE"]({
            "id": str(50 + n), "application_id": "9", "type": 3, "token": "t", "version": 1,
            "data": {"custom_id": "t:x", "component_type": 2}, "channel_id": "2",
            "channel": {"id": "2", "type": 1, "recipients": [ALICE]}, "user": ALICE,
            "attachment_size_limit": 1024, "message": clicked_message(flags),
        })  # fmt: skip
    public, ephemeral = (i.message for i in seen)
    assert public is not None and ephemeral is not None
    assert (public.id, public.flags.ephemeral, ephemeral.flags.ephemeral) == (10, False, True)
    assert ephemeral_owner(ephemeral) == 11 and public.interaction_metadata is None
    assert public.author.id == 9 and public.content == "<@11>"
    for message in (public, ephemeral):
        assert message.embeds == message.components == message.mentions == []
        assert message.role_mentions == message.attachments == []
