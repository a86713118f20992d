"""Rematch: a finished table's button opens a new lobby of the same game with the same options,
the presser in it and the other players invited; refusals change nothing; it works from the
database alone (after a restart, and on rows older than the lobby column)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import aiosqlite
import pytest

from bot.components import Click
from bot.errors import UserError
from bot.service import Reply, Tables
from bot.store import MIGRATIONS
from tests.bot.conftest import (
    ADMIN,
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    MALLORY,
    Clock,
    buttons,
    find,
    make_tables,
    open_game,
)


async def finished_table(tables: Tables) -> Click:
    """A classic Farkle game to 5000 of Alice, Bob and Carol that ends when Alice ends it;
    the Rematch button of its final table."""
    await open_game(tables, ALICE, BOB, CAROL, rules="classic", target=5000)
    reply = await tables.end(ALICE, CHANNEL, "farkle")
    assert await tables.store.load_session(CHANNEL) is None
    return find(Reply.of_table(reply.table), "rematch")


async def test_rematch_keeps_the_options_joins_the_presser_and_invites_the_others(
    tables: Tables, clock: Clock
) -> None:
    click = await finished_table(tables)
    (record,) = await tables.store.finished_games(CHANNEL)
    assert click.arg == str(record["id"]) and record["lobby"]["rules"]["target"] == 5000
    # The server changes its rule set meanwhile: the rematch still plays what was played.
    await tables.save_settings(
        GUILD, (await tables.settings(GUILD)).updated(farkle_preset="on-the-table")
    )
    rematch = await tables.rematch(BOB, click)
    session = await tables.sessions.get(CHANNEL)
    assert not session.started and session.kind == "farkle" and session.guild_id == GUILD
    assert [p.id for p in session.lobby.players] == [BOB.id] and session.lobby.starter == BOB.id
    assert session.lobby.options["rules"]["name"] == "Classic Farkle"
    assert session.lobby.options["rules"]["target"] == 5000
    assert session.deadline == clock.now + 900  # it closes by itself like any lobby
    assert sorted(rematch.invited) == [ALICE.id, CAROL.id]
    mentions = {f"<@{ALICE.id}>", f"<@{CAROL.id}>"}
    content = rematch.lobby.content
    assert content.endswith("Bob wants a rematch of Farkle: join below.")
    assert set(content.split(": ")[0].split()) == mentions and f"<@{BOB.id}>" not in content
    allowed = rematch.allowed_mentions().to_dict()
    assert allowed["parse"] == [] and sorted(allowed["users"]) == [str(ALICE.id), str(CAROL.id)]
    assert "Classic Farkle" in rematch.lobby.embed.description
    assert "5,000" in rematch.lobby.embed.description
    labels = {
        label: disabled for label, disabled in buttons(Reply.of_table(rematch.lobby)).values()
    }
    assert labels == {
        "Join": False,
        "Leave": False,
        "Start": True,
        "Cancel": False,
        "Add bot": False,
        "Remove bot": True,
    }
    (spent,) = rematch.finished_items
    assert spent.disabled and Click.parse(spent.custom_id).action == "rematch"
    # The lobby is an ordinary lobby: Alice joins from it and starts.
    await tables.table_posted(CHANNEL, 777)
    lobby = Reply.of_table(rematch.lobby)
    await tables.click(ALICE, find(lobby, "join"), 777)
    await tables.click(ALICE, find(lobby, "start"), 777)
    started = await tables.sessions.get(CHANNEL)
    assert started.started and started.state.rules.target == 5000
    assert started.state.rules.name == "Classic Farkle" and started.message_id == 777


async def test_rematch_is_refused_while_the_channel_is_busy(tables: Tables) -> None:
    click = await finished_table(tables)
    await tables.open_lobby(CAROL, GUILD, CHANNEL, "kuriki", {})
    before = await tables.store.load_session(CHANNEL)
    with pytest.raises(UserError, match="A game of Kuriki is already running"):
        await tables.rematch(ALICE, click)
    assert await tables.store.load_session(CHANNEL) == before
    await tables.end(CAROL, CHANNEL, "kuriki")
    # A running Farkle game (not a lobby) is busy too.
    await open_game(tables, CAROL, MALLORY)
    before = await tables.store.load_session(CHANNEL)
    with pytest.raises(UserError, match="A game of Farkle is already running"):
        await tables.rematch(ALICE, click)
    assert await tables.store.load_session(CHANNEL) == before


async def test_two_rematch_presses_at_once_seat_both_in_the_one_lobby(tables: Tables) -> None:
    click = await finished_table(tables)
    first, second = await asyncio.gather(tables.rematch(ALICE, click), tables.rematch(BOB, click))
    assert not isinstance(first, Reply) and isinstance(second, Reply)
    lobby = (await tables.sessions.get(CHANNEL)).lobby
    assert [p.id for p in lobby.players] == [ALICE.id, BOB.id] and lobby.starter == ALICE.id
    # Bob is told privately where he is, and the lobby message shows him, with no ping.
    assert second.ephemeral and "already open: you joined it below" in second.content
    assert "already running" not in second.content
    # The lobby message is still being posted (showing Alice alone): posting it brings it
    # up to date with an edit, which pings nobody.
    assert second.update is None
    behind = await tables.table_posted(CHANNEL, 777, first.revision)
    assert behind is not None and behind.message_id == 777
    assert not behind.ping and f"<@{BOB.id}>" in str(behind.table.embed.to_dict())
    # A third press (Bob again, a double tap) changes nothing and says where he is.
    again = await tables.rematch(BOB, click)
    assert isinstance(again, Reply) and again.ephemeral and again.update is None
    assert "You are in the rematch lobby below" in again.content
    assert [p.id for p in (await tables.sessions.get(CHANNEL)).lobby.players] == [
        ALICE.id,
        BOB.id,
    ]


async def test_rematch_is_for_the_players_of_that_game_or_a_server_manager(
    tables: Tables,
) -> None:
    click = await finished_table(tables)
    with pytest.raises(UserError, match="Only the players of that game"):
        await tables.rematch(MALLORY, click)
    assert await tables.store.load_session(CHANNEL) is None
    rematch = await tables.rematch(ADMIN, click)
    assert sorted(rematch.invited) == [ALICE.id, BOB.id, CAROL.id]
    assert [p.id for p in (await tables.sessions.get(CHANNEL)).lobby.players] == [ADMIN.id]


async def test_a_rematch_button_that_names_no_finished_game_here_is_refused(
    tables: Tables,
) -> None:
    click = await finished_table(tables)
    for forged in (
        replace(click, arg="999"),
        replace(click, arg=None),
        replace(click, channel_id=CHANNEL + 1),  # another channel
        replace(click, kind="kuriki"),  # another game
    ):
        with pytest.raises(UserError, match="no record of that game"):
            await tables.rematch(ALICE, forged)
    assert await tables.store.load_session(CHANNEL) is None
    assert await tables.store.load_session(CHANNEL + 1) is None


async def test_rematch_works_from_the_database_after_a_restart(db_path, clock: Clock) -> None:
    first = await make_tables(db_path, clock)
    click = await finished_table(first)
    await first.store.close()
    second = await make_tables(db_path, clock)
    rematch = await second.rematch(CAROL, click)
    session = await second.sessions.get(CHANNEL)
    assert session.lobby.options["rules"]["target"] == 5000
    assert [p.id for p in session.lobby.players] == [CAROL.id]
    assert sorted(rematch.invited) == [ALICE.id, BOB.id]
    await second.store.close()


async def test_a_game_ended_by_departure_offers_a_rematch(tables: Tables) -> None:
    await open_game(tables, ALICE, BOB, rules="classic")
    left = await tables.leave(BOB, CHANNEL, "farkle")
    rematch = await tables.rematch(BOB, find(Reply.of_table(left.table), "rematch"))
    assert rematch.invited == [ALICE.id]
    assert rematch.lobby.content.startswith(f"<@{ALICE.id}>: Bob wants a rematch of Farkle")


async def test_rows_from_before_the_lobby_column_rematch_with_the_server_settings(
    tmp_path: Path, clock: Clock
) -> None:
    path = tmp_path / "old.sqlite3"
    async with aiosqlite.connect(path) as db:  # a database of the first schema, with a game
        await db.executescript(MIGRATIONS[0] + "PRAGMA user_version=1;")
        await db.execute(
            "INSERT INTO finished_games (guild_id, channel_id, kind, players, scores, winner_id,"
            " rules, outcome, started_at, finished_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                GUILD,
                CHANNEL,
                "farkle",
                json.dumps([{"id": ALICE.id, "name": "Alice"}, {"id": BOB.id, "name": "Bob"}]),
                json.dumps({str(ALICE.id): 0, str(BOB.id): 0}),
                None,
                "{}",
                "Ended early by Alice.",
                clock.now,
                clock.now,
            ),
        )
        await db.commit()
    tables = await make_tables(path, clock, farkle_preset="on-the-table")
    assert await tables.store.schema_version() == len(MIGRATIONS)
    (old,) = await tables.store.finished_games(CHANNEL)
    assert old["lobby"] is None and old["bots"] == [] and old["dice"] is None
    assert old["log"] is None and old["story"] is None  # kept by none of those games
    rematch = await tables.rematch(BOB, Click("farkle", "rematch", CHANNEL, 0, 0, str(old["id"])))
    session = await tables.sessions.get(CHANNEL)
    assert session.lobby.options["rules"]["name"] == "On the Table"
    assert rematch.invited == [ALICE.id]
    await tables.store.close()
    con = sqlite3.connect(path)
    try:
        columns = [r[1] for r in con.execute("PRAGMA table_info(finished_games)")]
    finally:
        con.close()
    assert columns[-8:] == [
        "lobby", "bots", "dice", "log", "story", "unseen", "dice_packed", "log_packed"
    ]
