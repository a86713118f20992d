"""The table service: every slash command and click, for every game, goes through here.

It holds no Discord objects of the caller; it takes who acted and what they pressed, applies
the move under the channel's lock, commits it, and returns what to show. The cogs and the
component handler only translate Discord interactions to these calls and send the replies.

`Tables` is a thin facade over parts, each a class given in its constructor exactly the
parts it uses (built in this order, so none needs one built after it):

    sessions    Sessions          bot/sessions.py        the cache, per-channel locks
    settings    ServerSettings    bot/server_settings.py each server's settings, language
    display     TableUpdates      bot/table_updates.py   what is shown where (TableUpdate)
    endings     Endings           bot/endings.py         /end, records, final tables, /status
    commit      Commit            bot/commit.py          saves a move, its deadlines, table
    background  Background        bot/background.py      tasks nobody waits for
    lobbies     Lobbies           bot/lobbies.py         lobbies, rematches, the start
    moves       Moves             bot/moves.py           click, command, leave
    deadlines   Deadlines         bot/deadlines.py       timeouts, votes, bots, away turns
    absences    Absences          bot/away.py            /away, the away and pause buttons
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from bot.away import Absences
from bot.background import Background
from bot.commit import Commit
from bot.config import REPOST_AFTER
from bot.deadlines import Deadlines
from bot.endings import Endings
from bot.errors import CorruptSession
from bot.lobbies import Lobbies
from bot.moves import Moves
from bot.reminders import Reminders
from bot.replies import Actor, Rematch, Reply, TableUpdate, only_mentioning
from bot.server_settings import ServerSettings
from bot.sessions import Sessions
from bot.settings import GuildSettings
from bot.store import Store
from bot.table_updates import EDIT_WINDOW, TableUpdates
from bot.tables.base import TableAdapter

__all__ = [
    "EDIT_WINDOW",
    "Actor",
    "Rematch",
    "Reply",
    "TableUpdate",
    "Tables",
    "only_mentioning",
]


class Tables:
    """The one write path of every game in every channel: what the cogs, the component
    handler (bot/app.py), the display (bot/display.py), the benchmarks and the tests call.
    Each of its methods is the method of the part that does it (see the module's
    docstring), bound here, so a call costs no frame of the facade."""

    def __init__(
        self,
        *,
        store: Store,
        adapters: dict[str, TableAdapter],
        defaults: GuildSettings | None = None,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.time,
        on_deadline: Callable[[float], None] = lambda deadline: None,
        repost_after: int = REPOST_AFTER,
        cached_games: int = 2000,
    ) -> None:
        """`rng`: the bots' choices, and the secret seed of each game's sealed draws
        (games/draws.py): the operating system's entropy; a seeded Random only in tests and
        benchmarks. `on_deadline` pokes the timer loop with a game's new deadline."""
        self.store = store
        self.adapters = adapters
        self._rng = random.SystemRandom() if rng is None else rng
        self.sessions = Sessions(
            store, adapters, limit=cached_games, on_evict=self._evicted, clock=clock
        )
        self.server_settings = ServerSettings(store, defaults or GuildSettings())
        self.display = TableUpdates(
            self.sessions, adapters, self.server_settings, clock, repost_after
        )
        self.endings = Endings(self.sessions, adapters, self.display)
        self.reminders = Reminders(
            store=store,
            sessions=self.sessions,
            adapters=adapters,
            language=self.display.language,
            settings=self.server_settings,
            clock=clock,
            on_deadline=on_deadline,
        )
        self.commit = Commit(
            self.sessions, self.endings, self.display, clock, on_deadline, self.reminders
        )
        self.background = Background()
        self.lobbies = Lobbies(
            store=store,
            sessions=self.sessions,
            adapters=adapters,
            settings=self.server_settings,
            display=self.display,
            commit=self.commit,
            background=self.background,
            set_aside=self.endings.set_aside,
            rng=self._rng,
            clock=clock,
            on_deadline=on_deadline,
        )
        self.moves = Moves(
            sessions=self.sessions,
            adapters=adapters,
            settings=self.server_settings,
            display=self.display,
            commit=self.commit,
            lobbies=self.lobbies,
            endings=self.endings,
            rng=self._rng,
            clock=clock,
        )
        self.deadlines = Deadlines(
            store=store,
            sessions=self.sessions,
            adapters=adapters,
            settings=self.server_settings,
            display=self.display,
            commit=self.commit,
            lobbies=self.lobbies,
            rng=self._rng,
            clock=clock,
        )
        self.absences = Absences(
            sessions=self.sessions,
            adapters=adapters,
            settings=self.server_settings,
            display=self.display,
            commit=self.commit,
            clock=clock,
        )
        self._clock = clock
        self._on_deadline = on_deadline

        # What the callers call, by the part that does it.
        self.settings = self.server_settings.get
        self.settings_of = self.server_settings.of
        self.save_settings = self.server_settings.save
        self.open_lobby = self.lobbies.open_lobby
        self.rematch = self.lobbies.rematch
        self.click = self.moves.click
        self.command = self.moves.command
        self.leave = self.moves.leave
        self.end = self.endings.end
        self.status = self.endings.status
        self.expire = self.deadlines.expire
        self.away = self.absences.away
        self.away_press = self.absences.press
        self.table_posted = self.display.table_posted
        self.side_posted = self.display.side_posted
        self.shown = self.display.shown
        self.repost = self.display.repost
        self.display_lock = self.display.display_lock
        self.overtaken = self.display.overtaken
        self.aimed = self.display.aimed
        self.shows = self.display.shows
        self.heard = self.display.heard
        self.editable = self.display.editable
        self.language = self.display.language
        self.open_replies = self.display.open_replies

    def _evicted(self, channel_id: int) -> None:
        """A game left the memory cache: the parts forget what they keep per channel."""
        self.display.forget(channel_id)
        self.moves.forget(channel_id)

    async def catch_up(self, channel_id: int) -> TableUpdate | None:
        """After a restart: the table brought up to date (`TableUpdates.catch_up`), and the
        turn's reminders kept if the process died before it kept them (a table left behind
        is the sign of a death between a commit and what follows it)."""
        update = await self.display.catch_up(channel_id)
        if update is not None:
            await self.reminders.caught_up(channel_id)
        return update

    @property
    def clock(self) -> Callable[[], float]:
        return self._clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        """Tests move time: every part that reads the clock is given the new one."""
        self._clock = clock
        parts = (
            self.sessions, self.display, self.commit, self.lobbies, self.moves, self.deadlines,
            self.reminders, self.absences,
        )
        for part in parts:
            part.clock = clock

    @property
    def on_deadline(self) -> Callable[[float], None]:
        return self._on_deadline

    @on_deadline.setter
    def on_deadline(self, poke: Callable[[float], None]) -> None:
        """Tests listen for the timer loop's pokes: the parts that set deadlines poke it."""
        self._on_deadline = poke
        self.commit.on_deadline = self.lobbies.on_deadline = self.reminders.on_deadline = poke

    @property
    def rng(self) -> random.Random:
        """The service's Random, which the parts were given (so it cannot be replaced:
        reseed it)."""
        return self._rng

    @property
    def defaults(self) -> GuildSettings:
        return self.server_settings.defaults

    @property
    def repost_after(self) -> int:
        return self.display.repost_after

    async def rules(
        self, guild_id: int | None, channel_id: int, kind: str, preset: str | None
    ) -> Reply:
        """A game's rules as the channel plays them (those of the game running there)."""
        settings = await self.server_settings.get(guild_id)
        try:
            session = await self.sessions.get(channel_id)
        except CorruptSession:
            session = None
        return Reply(
            embed=self.adapters[kind].rules_embed(settings, session, preset), ephemeral=True
        )
