"""A click's table goes out as a body built straight from its `TableItem`s
(`bot.respond.update_table`), with no discord.ui View: that body must be, key for key and byte
for byte, what discord.py's own path sends for the same message (`update_message` with
`view_of(items)`), for every kind of table: lobby, Farkle's toggles, Roll and Bank, a Kuriki
and a CRAP table, a select menu, a finished table, a summary without buttons. A table with the
story picture still goes out through discord.py, with its file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot import display
from bot.app import GameBot
from bot.components import Click, view_of
from bot.config import BotConfig
from bot.replies import TableUpdate, only_mentioning
from bot.respond import release, update_message, update_payload, update_table
from bot.service import Reply, Tables
from bot.tables.base import Rendered
from tests.bot.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    buttons,
    find,
    make_tables,
    open_game,
)
from tests.bot.test_crap_table import my_hand, start_crap
from tests.bot.test_kuriki_table import start_kuriki
from tests.bot.test_table_flow import message_at


class Recorder:
    """Stands in for discord.py's webhook adapter: keeps each request it is asked to send."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    async def request(self, route: Any, session: Any, **kwargs: Any) -> None:
        self.requests.append({"url": route.url, "method": route.method, **kwargs})


@pytest.fixture
def bot() -> GameBot:
    return GameBot(BotConfig(database=":memory:"), sync=False)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The requests the callbacks of this test send (none leaves the process): through
    discord.py's adapter, which the bot's own connections otherwise stand in for
    (tests/bot/test_callback_http.py compares what those send with what the adapter sends)."""
    from discord.webhook.async_ import async_context

    monkeypatch.setattr("bot.respond._lean", lambda client, state: None)
    recorder = Recorder()
    token = async_context.set(recorder)  # type: ignore[arg-type]  # a stand-in adapter
    yield recorder.requests
    async_context.reset(token)


def clicked(bot: GameBot, number: int) -> discord.Interaction:
    """A component interaction on the table message 10 of CHANNEL."""
    data = {
        "id": str(500 + number),
        "type": 3,
        "token": f"token-{number}",
        "version": 1,
        "application_id": "9",
        "attachment_size_limit": 10 * 1024 * 1024,
        "channel_id": str(CHANNEL),
        "data": {"custom_id": "t:farkle:roll:1:2:3", "component_type": 2},
        "message": {"id": "10", "channel_id": str(CHANNEL), "type": 0, "content": "", "flags": 0},
    }
    return discord.Interaction(data=data, state=bot._connection)  # type: ignore[arg-type]


@pytest.fixture
async def tables(tmp_path: Path) -> AsyncIterator[Tables]:
    t = await make_tables(tmp_path / "games.sqlite3", Clock())
    yield t
    await t.store.close()


async def shown_tables(tables: Tables) -> dict[str, Rendered]:
    """One of each kind of message a click shows, by name."""
    out: dict[str, Rendered] = {}

    def keep(name: str, reply: Reply) -> Reply:
        if reply.table is not None:
            out[name] = reply.table
        else:  # a private reply (a player's hand)
            assert reply.embed is not None
            out[name] = Rendered(embed=reply.embed, items=reply.items or [], content=reply.content)
        return reply

    lobby = keep("farkle lobby", await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {}))
    await tables.table_posted(CHANNEL, 555)
    await tables.click(BOB, find(lobby, "join"), 555)
    started = keep("farkle roll", await tables.click(ALICE, find(lobby, "start"), 555))
    session = await tables.sessions.get(CHANNEL)
    player = ALICE if session.state.current_player.id == ALICE.id else BOB
    rolled = keep("farkle toggles", await tables.click(player, find(started, "roll"), 555))
    keep("farkle bank", await tables.click(player, find(rolled, "toggle"), 555))
    session = await tables.sessions.get(CHANNEL)
    summary = tables.adapters["farkle"].summary(session, out["farkle bank"])
    assert summary is not None
    out["summary"] = summary
    keep("farkle finished", await tables.end(ALICE, CHANNEL, "farkle"))
    keep("kuriki", await start_kuriki(tables, ALICE, BOB, CAROL))
    await tables.end(ALICE, CHANNEL, "kuriki")
    crap = keep("crap", await start_crap(tables, threshold=200))
    keep("crap hand (a select)", await my_hand(tables, BOB, crap))
    return out


async def test_the_body_is_what_discord_py_builds_for_the_same_message(
    bot: GameBot, tables: Tables
) -> None:
    from discord.webhook.async_ import interaction_message_response_params

    shown = await shown_tables(tables)
    assert any(i.placeholder for i in shown["crap hand (a select)"].items)
    assert not shown["summary"].items and shown["farkle toggles"].items
    for name, table in shown.items():
        for mentions in (bot._connection.allowed_mentions, None):
            theirs = interaction_message_response_params(
                type=7,
                content=table.content,
                embed=table.embed,
                view=view_of(table.items),
                previous_allowed_mentions=mentions,
            ).payload
            ours = update_payload(table.content, table.embed, table.items, mentions)
            assert ours == theirs, name
            assert discord.utils._to_json(ours) == discord.utils._to_json(theirs), name
    no_embed = update_payload("text", None, [], None)
    assert no_embed["data"]["embeds"] == [] and no_embed["data"]["components"] == []


async def test_a_table_goes_out_as_discord_py_would_send_it(
    bot: GameBot, tables: Tables, sent: list[dict[str, Any]]
) -> None:
    shown = await shown_tables(tables)
    for n, table in enumerate(shown.values()):
        old, new = clicked(bot, 2 * n), clicked(bot, 2 * n + 1)
        await update_message(old, content=table.content, embed=table.embed, view=table.view())
        await update_table(new, content=table.content, embed=table.embed, items=table.items)
        theirs, ours = sent[-2:]
        assert ours == {
            **theirs,
            "url": theirs["url"].replace(old.token, new.token).replace(str(old.id), str(new.id)),
        }
        assert new.response.is_done()
        with pytest.raises(discord.InteractionResponded):
            await update_table(new, content=None, embed=table.embed, items=[])
    assert len(sent) == 2 * len(shown)


async def test_a_table_with_the_story_picture_goes_out_with_its_file(
    bot: GameBot, sent: list[dict[str, Any]]
) -> None:
    table = Rendered(embed=discord.Embed(title="Farkle"), picture=b"\x89PNG fake")
    update = TableUpdate(channel_id=CHANNEL, revision=3, table=table, message_id=10, fresh=False)
    await display._update_clicked(clicked(bot, 1), update)
    [request] = sent
    assert request.get("payload") is None and request["files"] and request["multipart"]
    await display._update_clicked(
        clicked(bot, 2),
        TableUpdate(
            channel_id=CHANNEL,
            revision=3,
            table=Rendered(embed=table.embed),
            message_id=10,
            fresh=False,
        ),
    )
    assert sent[1]["payload"]["data"]["components"] == [] and "files" not in sent[1]


def message_json(message_id: int) -> dict[str, Any]:
    """A message as Discord returns a posted follow-up (what discord.py builds a
    WebhookMessage from)."""
    return {
        "id": str(message_id), "channel_id": str(CHANNEL), "type": 0, "content": "",
        "author": {"id": "9", "username": "bot", "discriminator": "0", "avatar": None},
        "attachments": [], "embeds": [], "mentions": [], "mention_roles": [],
        "pinned": False, "mention_everyone": False, "tts": False, "flags": 0,
        "timestamp": "2026-11-27T21:00:00+00:00", "edited_timestamp": None, "components": [],
    }  # fmt: skip


class FollowUps(AsyncWebhookAdapter):
    """discord.py's webhook adapter, keeping each request instead of sending it; a follow-up
    is answered with the posted message 777."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[dict[str, Any]] = []

    async def request(self, route: Any, session: Any, **kwargs: Any) -> Any:
        self.requests.append({"url": route.url, "method": route.method, **kwargs})
        return message_json(777)


@pytest.fixture
def adapter() -> Any:
    recorder = FollowUps()
    token = async_context.set(recorder)
    yield recorder
    async_context.reset(token)


def followup_of(bot: GameBot, token: str = "token-1") -> discord.Webhook:
    """An interaction's follow-up webhook, as `Interaction.followup` makes it."""
    data: Any = {"id": "9", "type": 3, "token": token}
    return discord.Webhook.from_state(data=data, state=bot._connection)


async def next_turn(tables: Tables) -> TableUpdate:
    """A Farkle turn ending (a farkle, or a roll banked): the next player's table, posted
    afresh mentioning them."""
    table_id = message_at(Clock().now)  # (a message of the tables' clock's time: editable)
    reply = await open_game(tables, ALICE, BOB)
    for _ in range(20):
        assert reply.update is not None
        await tables.shown(reply.update, table_id)
        session = await tables.sessions.get(CHANNEL)
        mover = ALICE if session.state.current_player.id == ALICE.id else BOB
        enabled = [Click.parse(c) for c, (_, off) in buttons(reply).items() if not off]
        click = next(
            c for a in ("bestbank", "bank", "bestroll", "roll") for c in enabled if c.action == a
        )
        reply = await tables.click(mover, click, table_id)
        assert reply.update is not None
        if reply.update.fresh:
            return reply.update
    raise AssertionError("the turn did not end")


async def test_a_follow_up_body_is_what_discord_py_sends_for_the_same_table(
    bot: GameBot, tables: Tables, adapter: FollowUps, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`post_table`'s body, for every kind of table (a next-turn one mentioning its player,
    a finished one, Kuriki, CRAP), equals key for key and byte for byte the one
    `followup.send(..., view=view_of(items), wait=True)` sends; so does the request."""
    from bot.respond import follow_up_payload, post_table

    shown = await shown_tables(tables)
    await tables.end(ALICE, CHANNEL, "crap")
    turn = await next_turn(tables)
    assert turn.ping and turn.table.content and f"<@{turn.ping[0]}>" in turn.table.content
    cases = [(name, table, ()) for name, table in shown.items()]
    cases.append(("farkle next turn", turn.table, turn.ping))
    monkeypatch.setattr("bot.respond._lean", lambda client, state: None)
    for name, table, ping in cases:
        for previous in (bot._connection.allowed_mentions, None):
            monkeypatch.setattr(bot._connection, "allowed_mentions", previous)
            mentions = only_mentioning(ping)
            await followup_of(bot).send(
                content=table.content, embed=table.embed, view=view_of(table.items),
                allowed_mentions=mentions, wait=True,
            )  # fmt: skip
            theirs = adapter.requests[-1]
            ours = follow_up_payload(table.content, table.embed, table.items, mentions, previous)
            assert ours == theirs["payload"], name
            assert discord.utils._to_json(ours) == discord.utils._to_json(theirs["payload"]), name
            posted = await post_table(
                bot, followup_of(bot), content=table.content, embed=table.embed,
                items=table.items, allowed_mentions=mentions,
            )  # fmt: skip
            assert posted == 777  # (through discord.py here: the same request again)
            assert adapter.requests[-1] == theirs
    assert theirs["params"] == {"wait": 1, "with_components": 1}
    assert theirs["url"].endswith("/webhooks/9/token-1") and theirs["method"] == "POST"


async def test_a_table_with_the_story_picture_follows_up_with_its_file(
    bot: GameBot, adapter: FollowUps, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a table without the picture goes out lean; the picture goes through discord.py
    as a file, and a refused picture leaves the table to go out without it."""
    sent: list[Any] = []

    async def lean(application_id: int, token: str, payload: Any) -> Any:
        sent.append(payload)
        return message_json(778)

    connections = SimpleNamespace(follow_up=lean)
    monkeypatch.setattr("bot.respond._lean", lambda client, state: connections)
    table = Rendered(embed=discord.Embed(title="Farkle"), content="<@2>", picture=b"\x89PNG")
    update = TableUpdate(channel_id=CHANNEL, revision=3, table=table, message_id=10, fresh=True)
    assert await display._follow_up(bot, followup_of(bot), update) == 777
    [request] = adapter.requests
    assert request["payload"] is None and request["files"] and request["multipart"]
    assert sent == []
    table.picture = None
    assert await display._follow_up(bot, followup_of(bot), update) == 778
    assert sent[0]["content"] == "<@2>" and len(adapter.requests) == 1


def command(bot: GameBot, number: int) -> discord.Interaction:
    """A /farkle start in CHANNEL (no message: the answer is a new one)."""
    data = {
        "id": str(600 + number), "type": 2, "token": f"command-{number}", "version": 1,
        "application_id": "9", "attachment_size_limit": 10 * 1024 * 1024,
        "channel_id": str(CHANNEL), "data": {"id": "1", "name": "farkle", "type": 1},
    }  # fmt: skip
    return discord.Interaction(data=data, state=bot._connection)  # type: ignore[arg-type]


class Answers(FollowUps):
    """discord.py's webhook adapter, keeping each request; a callback asking for its
    response is answered as Discord does, naming the new message 779."""

    async def request(self, route: Any, session: Any, **kwargs: Any) -> Any:
        self.requests.append({"url": route.url, "method": route.method, **kwargs})
        return {"interaction": {"id": "1", "type": 2, "response_message_id": "779"}}


async def test_a_command_answer_is_what_discord_py_sends_and_names_the_new_message(
    bot: GameBot, tables: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`post_answer` (a lobby answering /farkle start, and every other kind of table, with
    mentions or none) sends key for key and byte for byte the request of
    `interaction.response.send_message(..., view=view_of(items), allowed_mentions=...)`,
    answers the interaction, and returns the new message's id; over the bot's own
    connections the same body goes out asking for the answer back."""
    from bot.respond import answer_payload, post_answer

    recorder = Answers()
    token = async_context.set(recorder)
    try:
        shown = await shown_tables(tables)
        monkeypatch.setattr("bot.respond._lean", lambda client, state: None)
        users_only = discord.AllowedMentions(users=False)
        quiet = discord.AllowedMentions(everyone=False, roles=False)
        n = 0
        for name, table in shown.items():
            # (the last: mentions a client's own complete, as discord.py merges them)
            for mentions in (only_mentioning(()), only_mentioning((BOB.id,)), users_only):
                for previous in (bot._connection.allowed_mentions, None, quiet):
                    monkeypatch.setattr(bot._connection, "allowed_mentions", previous)
                    kwargs = {"content": table.content, "embed": table.embed,
                              "allowed_mentions": mentions}  # fmt: skip
                    theirs_sent = await command(bot, n).response.send_message(
                        view=view_of(table.items), **kwargs
                    )
                    theirs = recorder.requests[-1]
                    ours = command(bot, n)
                    assert await post_answer(ours, items=table.items, **kwargs) == 779
                    assert theirs_sent.message_id == 779 and ours.response.is_done()
                    assert recorder.requests[-1] == theirs, name
                    assert discord.utils._to_json(
                        recorder.requests[-1]["payload"]
                    ) == discord.utils._to_json(theirs["payload"]), name
                    n += 1
        assert theirs["params"] == {"with_response": "1"} and theirs["payload"]["type"] == 4
        with pytest.raises(discord.InteractionResponded):
            await post_answer(ours, items=[], **kwargs)
    finally:
        async_context.reset(token)

    lean: list[Any] = []

    async def callback(interaction_id: int, token: str, payload: Any, **how: Any) -> Any:
        lean.append((interaction_id, token, payload, how))
        return {"interaction": {"id": "1", "type": 2, "response_message_id": "780"}}

    monkeypatch.setattr(bot._connection, "allowed_mentions", quiet)
    monkeypatch.setattr(
        "bot.respond._lean", lambda client, state: SimpleNamespace(callback=callback)
    )
    table = shown["farkle lobby"]
    mentions = only_mentioning(())
    answer = command(bot, 99)
    assert await post_answer(answer, content=None, embed=table.embed, items=table.items,
                             allowed_mentions=mentions) == 780  # fmt: skip
    [(interaction_id, token_sent, payload, how)] = lean
    assert (interaction_id, token_sent, how) == (699, "command-99", {"with_response": True})
    previous = bot._connection.allowed_mentions
    assert payload == {"type": 4, "data": answer_payload(None, table.embed, table.items,
                                                         mentions, previous)}  # fmt: skip
    assert answer.response.is_done()


async def test_an_answered_command_or_click_is_freed_without_the_garbage_collector(
    bot: GameBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """discord.py's `interaction.response` points back to its interaction: once a command
    completed (or failed and was told so) or a click was answered, the bot lets go of it,
    so the interaction and what it holds go at once, not at the collector's next pause
    (1,000 `/farkle start` at once left 14,000 objects to it)."""
    import gc

    from discord import app_commands

    async def answered_command(n: int) -> None:
        interaction = command(bot, n)
        await interaction.response.send_message("A lobby")
        await bot.on_app_command_completion(interaction, None)

    async def failed_command(n: int) -> None:
        interaction = command(bot, n)
        await bot.tree.on_error(interaction, app_commands.CheckFailure("no"))

    async def click(n: int) -> None:
        interaction = clicked(bot, n)
        await update_table(interaction, content="x", embed=None, items=[])
        release(interaction)

    monkeypatch.setattr("bot.respond._lean", lambda client, state: None)
    recorder = Answers()
    token = async_context.set(recorder)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what only the collector frees stays in gc.garbage
    try:
        await answered_command(1)
        await failed_command(2)
        await click(3)
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, discord.Interaction)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        async_context.reset(token)
    assert left == []
    assert len(recorder.requests) == 3
