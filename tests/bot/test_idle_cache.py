"""A game played over days holds no memory while it waits: a cached game nobody used for
`IDLE_AFTER` leaves the cache (with the next game kept, or as the timer loop wakes), and its
next move reads it again from the store and plays on."""

from __future__ import annotations

from bot.service import Tables
from bot.sessions import IDLE_AFTER
from tests.bot.conftest import ALICE, BOB, CHANNEL, GUILD, Clock, find, open_game

LATER = 4000


async def test_an_idle_game_leaves_memory_and_plays_on_when_read_again(
    tables: Tables, clock: Clock
) -> None:
    reply = await open_game(tables, ALICE, BOB)
    assert tables.sessions.cached(CHANNEL) is not None
    clock.now += IDLE_AFTER / 2
    assert tables.sessions.drop_idle() == 0  # used half an hour ago: kept
    await tables.open_lobby(ALICE, GUILD, LATER, "kuriki", {})
    clock.now += IDLE_AFTER / 2 + 1
    # Keeping another game drops the one idle for an hour, not the lobby used since.
    await tables.open_lobby(BOB, GUILD, LATER + 1, "crap", {})
    assert tables.sessions.cached(CHANNEL) is None
    assert tables.sessions.cached(LATER) is not None
    clock.now += IDLE_AFTER + 1
    assert tables.sessions.drop_idle() == 2  # what the timer loop does as it wakes
    assert tables.sessions.cached(LATER + 1) is None
    # The game reads again from the store and takes its next move.
    session = await tables.sessions.get(CHANNEL)
    assert session is not None
    mover = ALICE if ALICE.id in tables.adapters["farkle"].waiting_on(session.state) else BOB
    before = session.revision
    await tables.click(mover, find(reply, "roll"), 555)
    after = await tables.store.load_session(CHANNEL)
    assert after is not None and after.revision == before + 1
