"""The gateway events the bot leaves unparsed: every message edit (its own table edits among
them) arrives through the guild-messages intent, and no listener of the bot reads one; and a
clicked message, of which it reads only the id and whose it is (`gateway.clicked_message`),
so discord.py builds no Message of it."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from pathlib import Path
from typing import Any

import discord
import pytest
from discord.ext import commands

from bot import discord_internals as internals
from bot.app import GameBot
from bot.config import BotConfig
from bot.gateway import CLICKED, Clicked, clicked_message, hear_new_messages, skip_unread_events


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


class Ticks:
    """A keep-alive handler that counts its ticks."""

    def __init__(self) -> None:
        self.ticks = 0

    def tick(self) -> None:
        self.ticks += 1


def socket_of(bot: GameBot, dispatched: list[tuple[Any, ...]]) -> Any:
    """A gateway connection of `bot` as discord.py sets one up (no socket under it)."""
    from discord.gateway import DiscordWebSocket

    ws = DiscordWebSocket(None, loop=asyncio.get_running_loop())  # type: ignore[arg-type]
    ws._discord_parsers = bot._connection.parsers
    ws._dispatch = lambda *event: dispatched.append(event)
    ws._keep_alive = Ticks()  # type: ignore[assignment]
    ws.shard_id = None
    return ws


async def test_an_unread_events_frame_is_read_no_further_than_its_head(
    bot: GameBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The echo of a table edit is not decoded: its sequence is kept (a RESUME asks for what
    follows it), the keep-alive ticks and `socket_event_type` is told, as discord.py does
    for every dispatch; the frame of an event something reads, or whose head does not say
    what it is, goes through discord.py whole."""
    edits: list[Any] = []
    parse = edit_parser(bot, edits)  # (the guarded MESSAGE_UPDATE parser, installed)
    clicks: list[Any] = []
    bot._connection.parsers["INTERACTION_CREATE"] = clicks.append
    dispatched: list[tuple[Any, ...]] = []
    ws = socket_of(bot, dispatched)
    decoded: list[str] = []
    decode = discord.utils._from_json
    monkeypatch.setattr(discord.utils, "_from_json", lambda text: decoded.append(text) or decode(text))
    body = '{"id":"5","channel_id":"2","embeds":[{"title":"Farkle"}],"components":[]}'
    await ws.received_message('{"t":"MESSAGE_UPDATE","s":41,"op":0,"d":' + body + "}")
    await ws.received_message('{"op":0,"t":"MESSAGE_UPDATE","s":42,"d":' + body + "}")
    assert ws.sequence == 42 and ws._keep_alive.ticks == 2 and edits == []
    assert dispatched == [("socket_event_type", "MESSAGE_UPDATE")] * 2 and decoded == []
    await ws.received_message('{"d":' + body + ',"op":0,"s":43,"t":"MESSAGE_UPDATE"}')
    assert ws.sequence == 43 and edits == [] and len(decoded) == 1  # in full, unparsed
    await ws.received_message('{"t":"INTERACTION_CREATE","s":44,"op":0,"d":{"id":"9"}}')
    assert clicks == [{"id": "9"}] and ws.sequence == 44

    async def on_raw_message_edit(event: object) -> None: ...

    bot.add_listener(on_raw_message_edit)
    await ws.received_message('{"t":"MESSAGE_UPDATE","s":45,"op":0,"d":' + body + "}")
    assert edits == [json.loads(body)] and ws.sequence == 45
    assert parse.unread() is False


async def test_a_discord_py_without_the_parsers_table_parses_everything(
    bot: GameBot, caplog: pytest.LogCaptureFixture
) -> None:
    original = bot._connection.parsers.pop("MESSAGE_UPDATE")
    with caplog.at_level(logging.WARNING, logger="bot.gateway"):
        assert skip_unread_events(bot) == []
    assert "every event is parsed in full" in caplog.text
    assert "MESSAGE_UPDATE" not in bot._connection.parsers
    bot._connection.parsers["MESSAGE_UPDATE"] = original


async def test_a_new_message_is_heard_by_its_ids_and_parsed_only_while_something_listens(
    bot: GameBot,
) -> None:
    """Chatter below a table needs only the message's channel and id: those go to the bot
    straight from the payload, and discord.py builds a Message only for a listener."""
    calls: list[Any] = []
    seen: list[tuple[int, int]] = []
    bot._connection.parsers["MESSAGE_CREATE"] = calls.append
    assert hear_new_messages(bot, lambda channel, message: seen.append((channel, message)))
    parse = bot._connection.parsers["MESSAGE_CREATE"]
    parse({"id": "7", "channel_id": "2", "content": "gg"})
    assert seen == [(2, 7)] and calls == []

    async def on_message(message: discord.Message) -> None: ...

    bot.add_listener(on_message)  # added after start-up: parsed for it from now on, and
    parse({"id": "8", "channel_id": "2"})  # the bot's own on_message hears it then
    assert seen == [(2, 7)] and calls == [{"id": "8", "channel_id": "2"}]
    bot.remove_listener(on_message)
    parse({"channel_id": "2"})  # no id: nothing heard, nothing parsed
    parse({"id": "9", "channel_id": "3"})
    assert seen == [(2, 7), (3, 9)] and len(calls) == 1


async def test_without_the_parsers_table_new_messages_come_through_on_message(
    bot: GameBot, caplog: pytest.LogCaptureFixture
) -> None:
    original = bot._connection.parsers.pop("MESSAGE_CREATE")
    try:
        with caplog.at_level(logging.WARNING, logger="bot.gateway"):
            assert not hear_new_messages(bot, lambda channel, message: None)
        assert "new messages are parsed in full" in caplog.text
        assert type(bot).on_message is not commands.Bot.on_message  # (no prefix commands)
    finally:
        bot._connection.parsers["MESSAGE_CREATE"] = original


def click_payload(kind: int = 3) -> dict[str, Any]:
    message = {"id": "10", "channel_id": "2", "flags": 64, "embeds": [{"title": "Farkle"}]}
    message["components"] = [{"type": 1, "components": [{"type": 2, "custom_id": "t:x"}]}]
    return {"type": kind, "id": "5", "data": {"custom_id": "t:x"}, "message": message}


class Persistent(discord.ui.View):
    @discord.ui.button(label="Hi", custom_id="persistent:hi")
    async def hi(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        """A view discord.py dispatches itself: it may read the message's components."""


def click_parser(bot: GameBot, parsed: list[dict[str, Any]]) -> Any:
    """The guarded INTERACTION_CREATE parser, around a stand-in for discord.py's."""
    bot._connection.parsers["INTERACTION_CREATE"] = parsed.append
    skip_unread_events(bot)
    return bot._connection.parsers["INTERACTION_CREATE"]


async def test_a_click_is_parsed_without_the_clicked_message(bot: GameBot) -> None:
    parsed: list[dict[str, Any]] = []
    parse = click_parser(bot, parsed)
    parse(click_payload())
    assert "message" not in parsed[0]
    assert parsed[0]["data"] == {"custom_id": "t:x", CLICKED: Clicked(10, True, 0)}
    parse(click_payload(kind=5))  # a modal's submission: left whole
    parse(click_payload(kind=2))  # a slash command (it carries no message anyway)
    assert all("components" in p["message"] and CLICKED not in p["data"] for p in parsed[1:])


async def test_a_message_the_bot_cannot_read_is_left_to_discord_py(bot: GameBot) -> None:
    parsed: list[dict[str, Any]] = []
    parse = click_parser(bot, parsed)
    for broken in ({"flags": 0}, {"id": "x1"}, {"id": "1", "flags": 64, "interaction_metadata": {}}):
        parse({**click_payload(), "message": broken})
    assert [p["message"] for p in parsed] == [
        {"flags": 0}, {"id": "x1"}, {"id": "1", "flags": 64, "interaction_metadata": {}},
    ]  # fmt: skip


async def test_with_a_discord_ui_view_registered_clicks_are_parsed_whole(bot: GameBot) -> None:
    parsed: list[dict[str, Any]] = []
    parse = click_parser(bot, parsed)

    bot.add_view(Persistent(timeout=None))  # registered after start-up: seen from now on
    parse(click_payload())
    assert "components" in parsed[0]["message"] and "embeds" in parsed[0]["message"]
    assert CLICKED not in parsed[0]["data"]


async def test_a_discord_py_without_a_view_store_parses_clicks_whole(bot: GameBot) -> None:
    parsed: list[dict[str, Any]] = []
    parse = click_parser(bot, parsed)
    del bot._connection._view_store
    parse(click_payload())
    assert "components" in parsed[0]["message"]


async def test_a_discord_py_that_copies_an_interactions_data_parses_clicks_whole(
    bot: GameBot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The clicked message's id is kept in the data discord.py gives the interaction: were
    that a copy, the id would be lost, so the message is left whole."""
    monkeypatch.setattr(internals, "keeps_interaction_data", lambda client: False)
    parsed: list[dict[str, Any]] = []
    with caplog.at_level(logging.WARNING, logger="bot.gateway"):
        parse = click_parser(bot, parsed)
    assert "clicked messages are parsed whole" in caplog.text
    parse(click_payload())
    assert "components" in parsed[0]["message"] and CLICKED not in parsed[0]["data"]


ALICE = {"id": "11", "username": "alice", "global_name": "Alice", "discriminator": "0",
         "avatar": None, "bot": False, "public_flags": 0}  # fmt: skip


def table_message(flags: int) -> dict[str, Any]:
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


def parsed_clicks(bot: GameBot) -> list[discord.Interaction]:
    """A public and an ephemeral table message clicked, through discord.py's own parser
    behind the bot's guard: the interactions discord.py dispatches."""
    seen: list[discord.Interaction] = []
    bot._connection.dispatch = lambda event, *args: seen.extend(args)  # type: ignore[method-assign]
    skip_unread_events(bot)
    for n, flags in enumerate((0, 64)):
        bot._connection.parsers["INTERACTION_CREATE"]({
            "id": str(50 + n), "application_id": "9", "type": 3, "token": "t", "version": 1,
            "data": {"custom_id": "t:x", "component_type": 2}, "channel_id": "2",
            "channel": {"id": "2", "type": 1, "recipients": [ALICE]}, "user": ALICE,
            "attachment_size_limit": 1024, "message": table_message(flags),
        })  # fmt: skip
    return seen


async def test_the_bot_reads_the_clicked_message_without_discord_py_building_it(
    bot: GameBot,
) -> None:
    public, ephemeral = parsed_clicks(bot)
    assert public.message is None and ephemeral.message is None
    assert clicked_message(public) == Clicked(10, False, 0)
    assert clicked_message(ephemeral) == Clicked(10, True, 11)  # whose: the user it was for
    assert public.data is not None and public.data["custom_id"] == "t:x"


async def test_a_message_discord_py_built_reads_the_same(bot: GameBot) -> None:
    """With a view registered the message is parsed whole: `clicked_message` reads the same
    from discord.py's Message as from the payload."""
    bot.add_view(Persistent(timeout=None))
    public, ephemeral = parsed_clicks(bot)
    assert public.message is not None and ephemeral.message is not None
    assert clicked_message(public) == Clicked(10, False, 0)
    assert clicked_message(ephemeral) == Clicked(10, True, 11)


def test_only_the_gateway_reads_interaction_message() -> None:
    """`interaction.message` is None for a click the gateway left the message out of: every
    other module reads the clicked message through `clicked_message`."""
    root = Path(__file__).resolve().parents[2] / "bot"
    readers = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if re.search(r"\binteraction\.message\b", path.read_text()) and path.name != "gateway.py"
    ]
    assert readers == []
