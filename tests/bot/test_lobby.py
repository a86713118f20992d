"""Lobby: opening, joining, starting and cancelling, the host handing over when leaving, the
lobby closing by itself when nobody starts it, and the refusals that change nothing."""

from __future__ import annotations

import pytest

from bot.errors import UserError
from bot.service import Tables
from games.errors import LobbyError
from tests.bot.conftest import (
    ADMIN,
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    buttons,
    find,
    make_tables,
)


async def test_lobby_join_start(tables: Tables) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    assert not reply.ephemeral and reply.on_table and reply.update.fresh
    await tables.table_posted(CHANNEL, 555)
    labels = {label: disabled for label, disabled in buttons(reply).values()}
    assert labels == {
        "Join": False,
        "Leave": False,
        "Start": True,
        "Cancel": False,
        "Add bot": False,
        "Remove bot": True,
    }
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


async def test_any_player_in_the_lobby_or_an_admin_starts(tables: Tables) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    with pytest.raises(LobbyError, match="At least 2"):
        await tables.click(ALICE, find(reply, "start"), 555)
    reply = await tables.click(BOB, find(reply, "join"), 555)
    before = (await tables.sessions.get(CHANNEL)).revision
    with pytest.raises(LobbyError, match="Only a player in the lobby"):
        await tables.click(CAROL, find(reply, "start"), 555)
    with pytest.raises(LobbyError, match="already joined"):
        await tables.click(BOB, find(reply, "join"), 555)
    assert (await tables.sessions.get(CHANNEL)).revision == before
    assert not (await tables.sessions.get(CHANNEL)).started
    reply = await tables.click(BOB, find(reply, "start"), 555)  # Bob is not the host
    assert (await tables.sessions.get(CHANNEL)).started


async def test_an_admin_starts_a_lobby_they_are_not_in(tables: Tables) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    reply = await tables.click(BOB, find(reply, "join"), 555)
    await tables.click(ADMIN, find(reply, "start"), 555)
    session = await tables.sessions.get(CHANNEL)
    assert session.started and ADMIN.id not in [p.id for p in session.state.players]


async def test_cancel_and_leave(tables: Tables) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    reply2 = await tables.click(BOB, find(reply, "join"), 555)
    with pytest.raises(LobbyError, match="Only the host"):
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
    with pytest.raises(UserError, match="Target must be at least 500"):
        await tables.open_lobby(ALICE, GUILD, CHANNEL + 1, "farkle", {"target": 3})
    assert await tables.sessions.get(CHANNEL + 1) is None


async def test_started_game_refuses_lobby_buttons(tables: Tables) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    lobby_join = find(reply, "join")
    reply = await tables.click(BOB, lobby_join, 555)
    await tables.click(ALICE, find(reply, "start"), 555)
    # A refusal suggests only what that player can do: the table's buttons are the
    # players' (Bob's), not Carol's.
    with pytest.raises(UserError, match="already started without you"):
        await tables.click(CAROL, lobby_join, 555)
    with pytest.raises(UserError, match="already started: use the buttons on the table"):
        await tables.click(BOB, lobby_join, 555)


# --------------------------------------------------------------------------- hand-over


async def test_the_host_leaving_by_button_hands_the_lobby_to_the_earliest_player(
    tables: Tables,
) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    assert "<@11> (host)" in reply.embed.fields[0].value
    reply = await tables.click(BOB, find(reply, "join"), 555)
    reply = await tables.click(CAROL, find(reply, "join"), 555)
    reply = await tables.click(ALICE, find(reply, "leave"), 555)
    lobby = (await tables.sessions.get(CHANNEL)).lobby
    assert lobby.starter == BOB.id and [p.id for p in lobby.players] == [BOB.id, CAROL.id]
    assert reply.edit and "<@12> (host)" in reply.embed.fields[0].value
    assert "<@11>" not in reply.embed.fields[0].value
    before = (await tables.sessions.get(CHANNEL)).revision
    # The opener who left can neither start nor cancel; Carol may start but not cancel.
    with pytest.raises(LobbyError, match="Only a player in the lobby"):
        await tables.click(ALICE, find(reply, "start"), 555)
    with pytest.raises(LobbyError, match="Only the host"):
        await tables.click(ALICE, find(reply, "cancel"), 555)
    with pytest.raises(LobbyError, match="Only the host"):
        await tables.click(CAROL, find(reply, "cancel"), 555)
    assert (await tables.sessions.get(CHANNEL)).revision == before
    done = await tables.click(BOB, find(reply, "cancel"), 555)
    assert done.items == [] and done.content == "Bob cancelled the Farkle lobby."
    assert await tables.store.load_session(CHANNEL) is None


async def test_the_host_leaving_by_command_hands_over_and_the_next_player_starts(
    tables: Tables,
) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    await tables.table_posted(CHANNEL, 555)
    reply = await tables.click(BOB, find(reply, "join"), 555)
    reply = await tables.click(CAROL, find(reply, "join"), 555)
    left = await tables.leave(ALICE, CHANNEL, "farkle")
    assert left.content == "Alice left the lobby. Bob is the host now."
    assert left.table_message_id == 555 and "<@12> (host)" in left.table.embed.fields[0].value
    # A player who left the lobby but not the host: no hand-over.
    await tables.click(ALICE, find(reply, "join"), 555)
    left = await tables.leave(ALICE, CHANNEL, "farkle")
    assert left.content == "Alice left the lobby."
    assert (await tables.sessions.get(CHANNEL)).lobby.starter == BOB.id
    started = await tables.click(CAROL, find(reply, "start"), 555)
    session = await tables.sessions.get(CHANNEL)
    assert session.started and {p.id for p in session.state.players} == {BOB.id, CAROL.id}
    assert "Farkle" in started.embed.title


async def test_an_empty_lobby_closes(tables: Tables) -> None:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    done = await tables.click(ALICE, find(reply, "leave"), 555)
    assert done.edit and done.items == [] and done.content == "Everyone left: the lobby is closed."
    assert await tables.store.load_session(CHANNEL) is None
    await tables.open_lobby(BOB, GUILD, CHANNEL, "kuriki", {})
    await tables.table_posted(CHANNEL, 556)
    done = await tables.leave(BOB, CHANNEL, "kuriki")
    assert done.content == "Bob left; the lobby is closed."
    assert done.table_message_id == 556 and done.table.items == []
    assert await tables.store.load_session(CHANNEL) is None


# --------------------------------------------------------------------------- expiry


async def test_an_unstarted_lobby_closes_after_the_timeout(tables: Tables, clock: Clock) -> None:
    opened_at = clock.now
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    await tables.table_posted(CHANNEL, 555)
    assert f"Closes <t:{int(opened_at) + 900}:R>" in reply.embed.description
    clock.now += 600
    await tables.click(BOB, find(reply, "join"), 555)  # activity does not move the deadline
    session = await tables.sessions.get(CHANNEL)
    assert session.deadline == opened_at + 900
    assert await tables.store.due_sessions(opened_at + 899) == []
    clock.now = opened_at + 899
    assert await tables.expire(CHANNEL) is None
    assert await tables.sessions.get(CHANNEL) is not None
    clock.now = opened_at + 900
    assert await tables.store.due_sessions(clock.now) == [CHANNEL]
    closed = await tables.expire(CHANNEL)
    assert closed is not None and closed.table_message_id == 555 and closed.update.channel_id == CHANNEL
    assert closed.items == [] and closed.embed.title == "Farkle: lobby closed"
    assert "closed after 15 minutes with nobody starting it" in closed.embed.description
    assert await tables.store.load_session(CHANNEL) is None
    assert await tables.store.finished_games(CHANNEL) == []
    assert await tables.expire(CHANNEL) is None


async def test_the_lobby_timeout_is_a_server_setting_and_survives_a_restart(
    db_path, clock: Clock
) -> None:
    pokes: list[float] = []
    first = await make_tables(db_path, clock, lobby_timeout=60)
    first.on_deadline = pokes.append
    await first.open_lobby(ALICE, GUILD, CHANNEL, "kuriki", {})
    assert pokes == [clock.now + 60]  # the timer loop is told the new deadline
    await first.store.close()
    second = await make_tables(db_path, clock, lobby_timeout=60)
    assert await second.store.next_deadline() == clock.now + 60
    clock.now += 61
    closed = await second.expire(CHANNEL)
    assert closed is not None and "closed after 1 minute with nobody" in closed.embed.description
    assert await second.store.load_session(CHANNEL) is None
    await second.store.close()


@pytest.mark.parametrize("timer", [0, 120])
async def test_a_started_game_never_keeps_the_lobby_deadline(
    db_path, clock: Clock, timer: int
) -> None:
    tables = await make_tables(db_path, clock, turn_timer=timer, lobby_timeout=60)
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    reply = await tables.click(BOB, find(reply, "join"), 555)
    clock.now += 30
    await tables.click(BOB, find(reply, "start"), 555)
    session = await tables.sessions.get(CHANNEL)
    assert session.started
    assert session.deadline == (clock.now + timer if timer else None)
    clock.now += 45  # past the lobby's deadline, within the turn's
    assert await tables.expire(CHANNEL) is None
    assert (await tables.sessions.get(CHANNEL)).started
    await tables.store.close()


def test_start_by_an_outsider_suggests_joining_only_while_a_seat_is_free() -> None:
    """A refusal suggests only what that player can do: "join first" while the table has a
    seat (or a bot's seat to take), not once it is full of people."""
    from games.errors import LobbyError
    from games.lobby import Lobby, Seat

    lobby = Lobby(starter=ALICE.id, max_players=2)
    lobby.join(Seat(id=ALICE.id, name="Alice"))
    with pytest.raises(LobbyError, match="join first"):
        lobby.check_start(CAROL.id, is_admin=False)
    lobby.join(Seat(id=BOB.id, name="Bob"))
    with pytest.raises(LobbyError) as refused:
        lobby.check_start(CAROL.id, is_admin=False)
    assert "join" not in str(refused.value)
    with pytest.raises(LobbyError, match="full"):
        lobby.join(Seat(id=CAROL.id, name="Carol"))
