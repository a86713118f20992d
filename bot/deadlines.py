"""What a passed deadline does (a part of `Tables`, bot/service.py): the timer loop (`TurnTimers.run_due`,
bot/timers.py) calls `expire` for each channel whose stored deadline passed. An unstarted
lobby closes; otherwise the game's extra deadlines run out (votes), an absent player's move
is played by the engine's timeout with the bot policy, every bot that can act moves, and so
does the policy for a player who said they are away (bot/away.py), all under the channel's
lock and committed like any move (`Commit`, bot/commit.py)."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import Any

from bot.away import persons, play_for
from bot.commit import Commit
from bot.errors import CorruptSession
from bot.lobbies import Lobbies
from bot.replies import Reply
from bot.server_settings import ServerSettings
from bot.sessions import Session, Sessions
from bot.store import Store
from bot.table_updates import TableUpdates
from bot.tables.base import TableAdapter
from games.bots import bot_seats

log = logging.getLogger(__name__)


class Deadlines:
    """Turn timeouts, closing votes and lobbies, and bots."""

    def __init__(
        self,
        *,
        store: Store,
        sessions: Sessions,
        adapters: dict[str, TableAdapter],
        settings: ServerSettings,
        display: TableUpdates,
        commit: Commit,
        lobbies: Lobbies,
        rng: random.Random,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.sessions = sessions
        self.adapters = adapters
        self.settings = settings
        self.display = display
        self.commit = commit
        self.lobbies = lobbies
        self.rng = rng
        self.clock = clock

    async def expire(self, channel_id: int) -> Reply | None:
        """Play the safe move for whoever's turn deadline passed, and close whatever else of
        the game's ran out (votes); None when nothing was due. The stored game is read
        afresh: with a shared database, another process may have moved it meanwhile."""
        async with self.sessions.lock(channel_id):
            try:
                session = await self.sessions.get(channel_id, fresh=True)
            except CorruptSession:
                await self.store.clear_deadline(channel_id)
                return None
            now = self.clock()
            if session is None or session.deadline is None:
                return None
            if session.deadline > now:
                return None
            if not session.started:
                with self.display.speaking_to(session):  # nobody pressed: all of it is public
                    return await self.lobbies.close(session)
            adapter = self.adapters[session.kind]
            settings = await self.settings.of(session)
            # The lobby is not changed here; away times and a pause that ended are over.
            work = session.working(away=session.away.lapsed(now))
            state = adapter.expire_extra(session.state, now, work.dice(self.rng, None, "time"))
            turn_over = session.turn_deadline is not None and session.turn_deadline <= now
            if turn_over and not adapter.is_finished(state):
                # The absent player's move is the bot player's (the policy may take a while).
                # It plays for a person, so whatever it leaves to chance (a bluff, a guess)
                # is drawn from the game's sealed draws like the dice, and recorded.
                dice = work.dice(self.rng, adapter.on_clock(state), "timeout")
                chooser = adapter.chooser(dice, now)
                state = await asyncio.to_thread(adapter.timeout, state, dice, now, chooser)
            bots_due = session.bot_deadline is not None and session.bot_deadline <= now
            moved: list[int] = []
            if bots_due and not adapter.is_finished(state):
                state, moved = await asyncio.to_thread(self._bots_move, adapter, work, state, now)
            work.state = state
            if not turn_over:
                work.turn_deadline = session.turn_deadline
            clock_holder = adapter.on_clock(session.state)
            rendered = await self.commit(
                work,
                adapter,
                settings,
                clock_holder if clock_holder in moved else None,
                before=session.state,
                restart_clock=turn_over,
                # Bots that were asked and had nothing to do are not asked again until
                # the game moves on.
                bots_idle=bots_due and not moved,
            )
            return self.display.with_table(Reply(), work, rendered)

    def _bots_move(
        self, adapter: TableAdapter, work: Session, state: Any, now: float
    ) -> tuple[Any, list[int]]:
        """Every bot that can move makes its move (several may, in a vote or a bluff
        window); returns the state and the bots that moved. A bot whose policy fails or
        makes a refused move is logged and, when the game waits on it alone, plays the
        engine's timeout move, so the game never waits on a bot for ever. The bots decide
        with the service's Random; their dice and cards are `work`'s draws, like anyone's."""
        moved = []
        for seat in work.away.stand_ins(persons(adapter, state), now):
            # An away player's part, played by the policy on the game's sealed draws, as a
            # timeout would be, but without counting as one (games/away.py).
            if adapter.is_finished(state) or not adapter.can_act(state, seat):
                continue
            trial = work.working()
            name = work.away.away[seat].name
            after = play_for(adapter, state, seat, name, trial.dice(self.rng, seat, "away"), now)
            if after is None:
                continue
            work.draws = trial.draws
            work.away = work.away.played_for(seat)
            moved.append(seat)
            state = after
        for seat in bot_seats(adapter.player_ids(state)):
            if adapter.is_finished(state) or not adapter.can_act(state, seat):
                continue
            # A failed try leaves no draws in the record: it is made on a fork.
            trial = work.working()
            try:
                after = adapter.bot_move(
                    state, seat, trial.dice(self.rng, seat, ""), now, choices=self.rng
                )
            except Exception:
                log.exception("The %s bot in seat %s failed to move", adapter.kind, seat)
                if adapter.clock_holders(state) != [seat]:
                    continue
                trial = work.working()
                after = adapter.timeout(state, trial.dice(self.rng, seat, "timeout"), now)
            work.draws = trial.draws
            if after != state:
                moved.append(seat)
            state = after
        return state, moved
