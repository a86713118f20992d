"""Turn timers. Deadlines live in the sessions table, so they survive restarts; one task
sleeps until the earliest and plays the safe move for whoever let it pass."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from bot.display import show_table
from bot.errors import MovedMeanwhile
from bot.reminder_delivery import next_reminder, post_reminders

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)

MAX_SLEEP = 30.0


class TurnTimers:
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: When the loop wakes by itself (the table service's clock) while it sleeps;
        #: None while it is awake, reading the store.
        self._sleeping_until: float | None = None
        #: Whether the loop ran once: the reminders' outbox is posted in full at start-up.
        self._started = False

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="turn-timers")

    def poke(self, deadline: float | None = None) -> None:
        """A deadline was set: look again if it is earlier than when the loop wakes anyway,
        or if the loop is awake (its read of the next deadline may have missed it). A later
        one is found when the loop wakes: every move sets one, and waking the loop for each
        cost two SELECTs a move. No deadline: look again whatever it is (a moved clock)."""
        until = self._sleeping_until
        if deadline is None or until is None or deadline < until:
            self._wake.set()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def run_due(self) -> int:
        """Expire every session whose deadline has passed; returns how many moved."""
        tables = self.bot.tables
        moved = 0
        store = tables.store
        for channel_id in await store.due_sessions(tables.clock()):
            # A shared database: exactly one process plays each deadline (the claim), and
            # the game is read afresh under it (another process may have played it already).
            if not await store.claim(channel_id):
                continue
            try:
                reply = await tables.expire(channel_id)
                if reply is not None:
                    moved += 1
                    if reply.update is not None:
                        await show_table(self.bot, reply.update)
            except MovedMeanwhile:
                log.info("Channel %s moved on in another process; timer skipped", channel_id)
            except Exception:
                log.exception("Turn timer failed for channel %s", channel_id)
            finally:
                await store.release(channel_id)
        # What a crash left in the outbox goes first (all of it at start-up, later what
        # waited a minute), then the reminders due now.
        unposted = await tables.reminders.undelivered(retry=self._started)
        self._started = True
        await post_reminders(self.bot, [*unposted, *await tables.reminders.due()])
        return moved

    async def _run(self) -> None:
        tables = self.bot.tables
        while True:
            try:
                self._wake.clear()
                await self.run_due()
                tables.sessions.drop_idle()  # games that wait for days wait on disk
                nxt = min(
                    filter(None, [await tables.store.next_deadline(), await next_reminder(tables)]),
                    default=None,
                )
                longest = min(MAX_SLEEP, tables.store.max_sleep)
                delay = longest if nxt is None else min(longest, max(0.05, nxt - tables.clock()))
                # asyncio.timeout, not wait_for: on Python 3.11, wait_for swallows a cancel
                # that lands just as the wait ends (a move's poke), and stop() never returns.
                self._sleeping_until = tables.clock() + delay
                try:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(delay):
                            await self._wake.wait()
                finally:
                    self._sleeping_until = None
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Turn timer loop failed; retrying in 5 s")
                await asyncio.sleep(5)
