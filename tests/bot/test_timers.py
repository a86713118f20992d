"""The timer loop (bot/timers.py) is woken only by a deadline earlier than the one it sleeps
until: every move sets a deadline, and waking the loop for each cost two reads of the store
per move. A poke while the loop is awake (reading) always makes it look again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.service import Tables
from bot.timers import MAX_SLEEP, TurnTimers
from tests.bot.conftest import ALICE, CHANNEL, GUILD, Clock, make_tables

LOBBY_TIMEOUT = 600


class Watched:
    """The loop over a real table service, counting its reads of the next deadline."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.timers = TurnTimers(SimpleNamespace(tables=tables))  # type: ignore[arg-type]  # it reads .tables only
        self.reads = 0
        self.during_read: list[Any] = []
        read = tables.store.next_deadline

        async def counted() -> float | None:
            self.reads += 1
            for act in self.during_read:
                act()
            self.during_read.clear()
            return await read()

        tables.store.next_deadline = counted  # type: ignore[method-assign]

    async def parked(self) -> None:
        """Until the loop sleeps (on its deadline or a poke): a hang fails, not a slow box."""
        for _ in range(100_000):
            timers = self.timers
            asleep = timers._sleeping_until is not None and timers._wake._waiters
            if asleep and not timers._wake.is_set():  # (set: woken, not yet run)
                return
            await asyncio.sleep(0.001)
        raise AssertionError("the timer loop never went to sleep")


@pytest.fixture
async def watched(tmp_path: Path, clock: Clock) -> AsyncIterator[Watched]:
    tables = await make_tables(tmp_path / "games.sqlite3", clock, lobby_timeout=LOBBY_TIMEOUT)
    w = Watched(tables)
    tables.on_deadline = w.timers.poke
    w.timers.start()
    try:
        yield w
    finally:
        await w.timers.stop()
        await tables.store.close()


async def test_a_later_deadline_lets_the_loop_sleep_and_an_earlier_one_wakes_it(
    watched: Watched, clock: Clock
) -> None:
    timers = watched.timers
    await watched.tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    await watched.parked()
    until = timers._sleeping_until  # the lobby's deadline, or the longest sleep before it
    assert until == clock.now + min(MAX_SLEEP, watched.tables.store.max_sleep, LOBBY_TIMEOUT)
    reads = watched.reads
    timers.poke(until + 1)  # what a move with a later deadline does
    timers.poke(until)
    assert not timers._wake.is_set()
    timers.poke(until - 1)  # earlier than when the loop wakes
    assert timers._wake.is_set()
    await watched.parked()
    assert watched.reads == reads + 1
    timers.poke()  # no deadline (a test moved the clock): always look again
    assert timers._wake.is_set()
    await watched.parked()
    assert watched.reads == reads + 2


async def test_a_poke_while_the_loop_reads_makes_it_look_again(
    watched: Watched, clock: Clock
) -> None:
    """Its read may have missed the new deadline, so even a later one counts then."""
    await watched.parked()
    reads = watched.reads
    watched.during_read.append(lambda: watched.timers.poke(clock.now + 10**6))
    watched.timers.poke()
    await watched.parked()
    assert watched.reads == reads + 2  # the poked read, and the one its poke asked for


async def test_a_deadline_that_passed_while_sleeping_is_played(
    watched: Watched, clock: Clock
) -> None:
    """Not woken by the later deadline, the loop still plays each deadline once it passed
    (here: the lobby nobody started closes)."""
    await watched.tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    await watched.parked()
    watched.timers.poke(clock.now + LOBBY_TIMEOUT + 30)
    clock.now += LOBBY_TIMEOUT + 1
    watched.timers.poke()  # the clock moved: look again
    for _ in range(100_000):
        if await watched.tables.store.load_session(CHANNEL) is None:
            break
        await asyncio.sleep(0.001)
    assert await watched.tables.store.load_session(CHANNEL) is None
