"""The memory cache of running games is bounded: the least recently played idle games are
dropped, read again from the database on their next move, and play on unchanged."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot import sessions
from bot.errors import UserError
from bot.service import Tables
from bot.sessions import same_state
from tests.bot.conftest import ALICE, BOB, CHANNEL, GUILD, Clock, find, make_tables, open_game

CHANNELS = [5_000 + i for i in range(6)]


async def lobby_in(tables: Tables, channel: int) -> None:
    await tables.open_lobby(ALICE, GUILD, channel, "farkle", {})


async def test_the_least_recently_played_idle_games_leave_memory_and_come_back(
    db_path: Path, clock: Clock
) -> None:
    tables = await make_tables(db_path, clock)
    tables.sessions.limit = 3
    for channel in CHANNELS[:3]:
        await lobby_in(tables, channel)
    assert [tables.sessions.cached(c) is not None for c in CHANNELS[:3]] == [True] * 3
    await tables.sessions.get(CHANNELS[0])  # played recently: stays
    await lobby_in(tables, CHANNELS[3])
    cached = [c for c in CHANNELS[:4] if tables.sessions.cached(c) is not None]
    assert cached == [CHANNELS[0], CHANNELS[2], CHANNELS[3]]
    # A game that left memory is read again on its next move and plays on.
    dropped = await tables.sessions.get(CHANNELS[1])
    assert dropped is not None and dropped.lobby.players[0].id == ALICE.id
    with pytest.raises(UserError, match="already running"):  # its lobby is still there
        await tables.open_lobby(BOB, GUILD, CHANNELS[1], "farkle", {})
    await tables.store.close()


async def test_a_game_in_the_middle_of_a_move_is_never_dropped(
    db_path: Path, clock: Clock
) -> None:
    tables = await make_tables(db_path, clock)
    tables.sessions.limit = 2
    for channel in CHANNELS[:2]:
        await lobby_in(tables, channel)
    async with tables.sessions.lock(CHANNELS[0]):  # the oldest is busy
        await lobby_in(tables, CHANNELS[2])
        assert tables.sessions.cached(CHANNELS[0]) is not None
        assert tables.sessions.cached(CHANNELS[1]) is None
    await tables.store.close()


async def test_a_lobby_joined_after_it_left_memory_starts(db_path: Path, clock: Clock) -> None:
    tables = await make_tables(db_path, clock)
    tables.sessions.limit = 1
    reply = await tables.open_lobby(ALICE, GUILD, CHANNELS[0], "farkle", {})
    await lobby_in(tables, CHANNELS[1])  # pushes the first lobby out of memory
    assert tables.sessions.cached(CHANNELS[0]) is None
    joined = await tables.click(BOB, find(reply, "join"), None)
    started = await tables.click(ALICE, find(joined, "start"), None)
    session = await tables.sessions.get(CHANNELS[0])
    assert session is not None and session.started and started.update is not None
    await asyncio.sleep(0)
    await tables.store.close()


async def test_a_cached_game_keeps_a_digest_of_its_json_and_still_tells_a_move(
    db_path: Path, clock: Clock
) -> None:
    """Between moves a cached game keeps its state's JSON only as a digest; a move that
    changed nothing is still told from one that did."""
    tables = await make_tables(db_path, clock)
    await open_game(tables, ALICE, BOB)
    session = tables.sessions.cached(CHANNEL)
    assert session is not None and session.written is None
    assert session.digest is not None and session.digest[0] is session.state
    assert same_state(session.working(), session)
    assert same_state(session.working(state=session.state.model_copy()), session)
    moved = session.state.model_copy(update={"turn_number": session.state.turn_number + 1})
    assert not same_state(session.working(state=moved), session)
    session.digest = None  # without a digest: the text again
    assert not same_state(session.working(state=moved), session)
    assert same_state(session.working(), session)
    await tables.store.close()


async def test_idle_cached_games_share_what_they_hold_alike(
    db_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What cached games hold alike (games/shared.py) is shared once later games were kept
    (`SHARE_AFTER`): the games kept last still hold their own, and an idle one ends up
    holding the same fields sets as another game's equal models."""
    monkeypatch.setattr(sessions, "SHARE_AFTER", 2)
    tables = await make_tables(db_path, clock)
    for channel in CHANNELS[:4]:
        await lobby_in(tables, channel)
    first, second, last = (tables.sessions.cached(c) for c in (*CHANNELS[:2], CHANNELS[3]))
    assert first is not None and second is not None and last is not None
    seat_set = first.lobby.players[0].__pydantic_fields_set__
    assert seat_set is second.lobby.players[0].__pydantic_fields_set__
    assert last.lobby.players[0].__pydantic_fields_set__ is not seat_set
    assert last.lobby.players[0].__pydantic_fields_set__ == seat_set  # equal, its own yet
    await tables.store.close()


async def test_a_move_whose_save_fails_leaves_the_cached_game_as_it_was(
    db_path: Path, clock: Clock
) -> None:
    """The engine moves a working copy of the game (its state, its draws): when the commit
    fails, the cached game is the stored one, to the byte and to the draw, and the same
    press then commits the same throw."""
    tables = await make_tables(db_path, clock)
    started = await open_game(tables, ALICE, BOB)
    session = tables.sessions.cached(CHANNEL)
    assert session is not None and session.draws is not None
    player = ALICE if session.state.current_player.id == ALICE.id else BOB
    def kept(s: sessions.Session) -> tuple[object, ...]:
        assert s.draws is not None
        return (s.state.model_dump_json(), s.draws.position, len(s.draws.moves), s.revision)

    before = kept(session)
    real_save = tables.store.save_session

    async def failing(row: object) -> bool:
        raise OSError("disk full")

    tables.store.save_session = failing  # type: ignore[method-assign]
    with pytest.raises(OSError, match="disk full"):
        await tables.click(player, find(started, "roll"), 555)
    tables.store.save_session = real_save  # type: ignore[method-assign]
    cached = tables.sessions.cached(CHANNEL)
    assert cached is session and kept(cached) == before
    assert cached.state.turn.dice == [] and not cached.new_lines
    moved = await tables.click(player, find(started, "roll"), 555)
    after = tables.sessions.cached(CHANNEL)
    assert after is not None and after.revision == session.revision + 1
    assert len(after.state.turn.dice) == 6 and moved.update is not None
    # The throw is the one the failed move drew: the stream had not moved on.
    assert after.draws is not None
    [throw] = after.draws.moves[-1]["draws"]  # ["dice", at, roller, what, faces]
    assert throw[1] == session.draws.position and throw[-1] == after.state.turn.dice
    await tables.store.close()
