"""The commit every change of a started game ends in (a part of `Tables`, bot/service.py),
whoever makes it: a click or command (bot/moves.py), the start of a game (bot/lobbies.py),
a timer or a bot (bot/deadlines.py). It saves the game (or records it when finished,
bot/endings.py), sets its turn, bot and extra deadlines, and renders the table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.endings import Endings
from bot.i18n import N_
from bot.players import people
from bot.reminders import Reminders
from bot.sessions import Session, Sessions
from bot.settings import GuildSettings
from bot.table_updates import TableUpdates
from bot.tables.base import Rendered, TableAdapter
from games.bots import bot_seats
from games.text import M

#: Why a game ends when the last person leaves it: bots never play on their own. The
#: engines keep it in their state (`ended_by_departure`) as a message, so each reader sees
#: it in their language.
ONLY_BOTS = N_("no person is left at the table")


class Commit:
    """`await commit(work, adapter, settings, ...)`: the move in `work` saved, its table
    rendered. `on_deadline` is told the game's deadline whenever it has one to wait for."""

    def __init__(
        self,
        sessions: Sessions,
        endings: Endings,
        display: TableUpdates,
        clock: Callable[[], float],
        on_deadline: Callable[[float], None],
        reminders: Reminders | None = None,
    ) -> None:
        self.sessions = sessions
        self.endings = endings
        self.display = display
        self.clock = clock
        self.on_deadline = on_deadline
        self.reminders = reminders

    async def __call__(
        self,
        work: Session,
        adapter: TableAdapter,
        settings: GuildSettings,
        actor_id: int | None = None,
        before: Any = None,
        *,
        restart_clock: bool = False,
        bots_idle: bool = False,
    ) -> Rendered:
        """Save a started game (or record it when finished), then render it.

        The turn clock restarts when the player it waits for changes, when that player
        moved, or after a timeout; a bystander's move (a peek, a vote) leaves it running.
        Bots that can move are due `bot_delay` seconds later (a deadline like the turn
        clock's, so a restart keeps it); a game with no person left ends with no winner."""
        if not adapter.is_finished(work.state) and not people(adapter.present_ids(work.state)):
            work.state = adapter.abandon(work.state, M(ONLY_BOTS))
        _retouch(work, adapter, before)
        if before is not None:  # whose step moved on without their press: their reply follows
            work.refresh = people(
                u for u in adapter.steps_changed(before, work.state) if u != actor_id
            )
        # Whom the table now calls: who newly must act, never the actor (nobody is notified
        # of their own click). Nobody to call: the table can be edited in place.
        before_waiting = [] if before is None else adapter.waiting_ids(before)
        work.ping = people(
            u for u in adapter.waiting_ids(work.state) if u not in before_waiting and u != actor_id
        )
        if adapter.is_finished(work.state):
            work.deadline = work.turn_deadline = work.bot_deadline = None
            # The end is news for every other person still at the table: the final table is
            # posted afresh mentioning them (an edit notifies nobody); not bots, nor who left,
            # nor whoever's move ended it.
            work.ping = people(u for u in adapter.present_ids(work.state) if u != actor_id)
            # Where the bot is no member, nothing may be open to show the end (a timer,
            # every token expired): the record keeps the game until its final table is
            # shown, at the next press or /<game> status (`Endings.late_ending`).
            unseen = self.sessions.reach(work.channel_id) is not None
            record = self.endings.record(work, adapter)
            game_id = await self.sessions.finish(work, record, unseen=unseen)
            return await self.endings.final_table(work, adapter, game_id)
        on_clock = adapter.on_clock(work.state)
        timer = settings.turn_timer
        turn_was = work.turn_deadline
        # Away players (bot/away.py): a bot plays their turns as it does a bot seat's, and a
        # paused game runs no turn clock.
        standing = people(adapter.present_ids(work.state))
        now = self.clock()
        stand_ins = work.away.stand_ins(standing, now)
        if not timer or on_clock is None or work.away.paused(standing, now):
            work.turn_deadline = None
        else:
            waited_for = None if before is None else adapter.on_clock(before)
            if (
                restart_clock
                or before is None
                or work.turn_deadline is None
                or actor_id == waited_for
                or on_clock != waited_for
            ):
                work.turn_deadline = self.clock() + timer
        bots_ready = not bots_idle and any(
            adapter.can_act(work.state, seat)
            for seat in [*bot_seats(adapter.player_ids(work.state)), *stand_ins]
        )
        work.bot_deadline = self.clock() + settings.bot_delay if bots_ready else None
        deadlines = [
            d
            for d in (
                work.turn_deadline,
                adapter.extra_deadline(work.state),
                work.bot_deadline,
                work.away.next_change(),
            )
            if d is not None
        ]
        work.deadline = min(deadlines, default=None)
        await self.sessions.save(work)
        if work.deadline is not None:
            self.on_deadline(work.deadline)
        if self.reminders is not None and work.turn_deadline not in (None, turn_was):
            await self.reminders.new_turn(work, timer)  # a long turn's reminders (migration 14)
        return self.display.table(work)


def _retouch(work: Session, adapter: TableAdapter, before: Any) -> None:
    """The side messages (a foul vote's) this move changed or closed, whoever made it, to
    be edited with the table (`Session.retouch`); the closed ones are no longer kept."""
    if not work.side:
        return
    now = adapter.side_messages(work.state)
    was = {} if before is None else adapter.side_messages(before)
    work.retouch = [(m, key) for key, m in work.side.items() if now.get(key) != was.get(key)]
    work.side = {key: m for key, m in work.side.items() if key in now}
