"""Lobby: opening, joining, starting and cancelling, and the refusals that change nothing."""

from __future__ import annotations

import pytest

from bot.errors import UserError
from bot.service import Tables
from games.errors import LobbyError
from tests.bot.conftest import ADMIN, ALICE, BOB, CAROL, CHANNEL, GUILD, buttons, find


async def test_lobby_join_start(tables: Tables) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    assert not reply.ephemeral and reply.on_table and reply.update.fresh
    await tables.table_posted(CHANNEL, 555)
    labels = {label: disabled for label, disabled in buttons(reply).values()}
    assert labels == {"Join": False, "Leave": False, "Start": True, "Cancel": False}
    reply = await tables.click(BOB, find(reply, "join"), 555)
    assert reply.edit and "<@12>" in reply.embed.fields[0].value
    assert {label: d for label, d in buttons(reply).values()}["Start"] is False
    reply = await tables.click(ALICE, find(reply, "start"), 555)
    assert reply.edit and "Farkle" in reply.embed.title
    session = await tables.sessions.get(CHANNEL)
    assert session.started and session.message_id == 555


async def test_one_game_per_channel(tables: Tables) -> None:
    await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    with pytest.raises(UserError, match="already running"):
        await tables.open_lobby(BOB, GUILD, CHANNEL, "farkle", {})


async def test_only_starter_or_admin_starts(tables: Tables) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    with pytest.raises(LobbyError, match="At least 2"):
        await tables.click(ALICE, find(reply, "start"), 555)
    reply = await tables.click(BOB, find(reply, "join"), 555)
    before = (await tables.sessions.get(CHANNEL)).revision
    with pytest.raises(LobbyError, match="Only the player who opened"):
        await tables.click(BOB, find(reply, "start"), 555)
    with pytest.raises(LobbyError, match="already joined"):
        await tables.click(BOB, find(reply, "join"), 555)
    assert (await tables.sessions.get(CHANNEL)).revision == before
    reply = await tables.click(ADMIN, find(reply, "start"), 555)
    assert (await tables.sessions.get(CHANNEL)).started


async def test_cancel_and_leave(tables: Tables) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    reply2 = await tables.click(BOB, find(reply, "join"), 555)
    with pytest.raises(UserError, match="cancel"):
        await tables.click(BOB, find(reply2, "cancel"), 555)
    await tables.click(BOB, find(reply2, "leave"), 555)
    assert [p.id for p in (await tables.sessions.get(CHANNEL)).lobby.players] == [ALICE.id]
    done = await tables.click(ALICE, find(reply2, "cancel"), 555)
    assert done.edit and done.items == [] and "cancelled" in done.content
    assert await tables.sessions.get(CHANNEL) is None
    assert await tables.store.load_session(CHANNEL) is None


async def test_start_options_and_bad_values(tables: Tables) -> None:
    await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {"rules": "classic", "target": 5000})
    session = await tables.sessions.get(CHANNEL)
    assert session.lobby.options["rules"]["name"] == "Classic Farkle"
    assert session.lobby.options["rules"]["target"] == 5000
    with pytest.raises(UserError, match="no Farkle rule set"):
        await tables.open_lobby(ALICE, GUILD, CHANNEL + 1, "farkle", {"rules": "yahtzee"})
    with pytest.raises(UserError, match="target"):
        await tables.open_lobby(ALICE, GUILD, CHANNEL + 1, "farkle", {"target": 3})
    assert await tables.sessions.get(CHANNEL + 1) is None


async def test_started_game_refuses_lobby_buttons(tables: Tables) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    lobby_join = find(reply, "join")
    reply = await tables.click(BOB, lobby_join, 555)
    await tables.click(ALICE, find(reply, "start"), 555)
    with pytest.raises(UserError, match="already started"):
        await tables.click(CAROL, lobby_join, 555)
