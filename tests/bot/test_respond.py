"""A click's table goes out as a body built straight from its `TableItem`s
(`bot.respond.update_table`), with no discord.ui View: that body must be, key for key and byte
for byte, what discord.py's own path sends for the same message (`update_message` with
`view_of(items)`), for every kind of table: lobby, Farkle's toggles, Roll and Bank, a Kuriki
and a CRAP table, a select menu, a finished table, a summary without buttons. A table with the
story picture still goes out through discord.py, with its file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest

from bot import display
from bot.app import GameBot
from bot.components import view_of
from bot.config import BotConfig
from bot.replies import TableUpdate
from bot.respond import update_message, update_payload, update_table
from bot.service import Reply, Tables
from bot.tables.base import Rendered
from tests.bot.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    find,
    make_tables,
)
from tests.bot.test_crap_table import my_hand, start_crap
from tests.bot.test_kuriki_table import start_kuriki


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
