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
    deadlines   Deadlines         bot/deadlines.py       timeouts, votes, bots
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable

from bot.background import Background
from bot.commit import Commit
from bot.components import Click
from bot.config import REPOST_AFTER
from bot.deadlines import Deadlines
from bot.endings import Endings
from bot.errors import CorruptSession
from bot.lobbies import Lobbies
from bot.moves import Moves
from bot.open_replies import OpenReplies
from bot.replies import Actor, Rematch, Reply, TableUpdate, only_mentioning
from bot.server_settings import ServerSettings
from bot.sessions import Session, Sessions
from bot.settings import GuildSettings
from bot.store import Store
from bot.table_updates import EDIT_WINDOW, TableUpdates
from bot.tables.base import Rendered, TableAdapter

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
    Each method hands the call to the part that does it (see the module's docstring)."""

    def __init__(
        self,
        *,
        store: Store,
        adapters: dict[str, TableAdapter],
        defaults: GuildSettings | None = None,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.time,
        on_deadline: Callable[[], None] = lambda: None,
        repost_after: int = REPOST_AFTER,
        cached_games: int = 2000,
    ) -> None:
        """`rng`: the bots' choices, and the secret seed of each game's sealed draws
        (games/draws.py): the operating system's entropy; a seeded Random only in tests and
        benchmarks. `clock` and `on_deadline` (the timer loop's poke) may be replaced later
        (tests move time, listen for pokes): the parts call them through `_now` and
        `_deadline_set`."""
        self.store = store
        self.adapters = adapters
        self.clock = clock
        self.on_deadline = on_deadline
        self._rng = random.SystemRandom() if rng is None else rng
        self.sessions = Sessions(store, adapters, limit=cached_games, on_evict=self._evicted)
        self.server_settings = ServerSettings(store, defaults or GuildSettings())
        self.display = TableUpdates(
            self.sessions, adapters, self.server_settings, self._now, repost_after
        )
        self.endings = Endings(self.sessions, adapters, self.display)
        self.commit = Commit(
            self.sessions, self.endings, self.display, self._now, self._deadline_set
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
            clock=self._now,
            on_deadline=self._deadline_set,
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
            clock=self._now,
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
            clock=self._now,
        )

    def _now(self) -> float:
        return self.clock()

    def _deadline_set(self) -> None:
        self.on_deadline()

    def _evicted(self, channel_id: int) -> None:
        """A game left the memory cache: the parts forget what they keep per channel."""
        self.display.forget(channel_id)
        self.moves.forget(channel_id)

    @property
    def rng(self) -> random.Random:
        """The service's Random, which the parts were given (so it cannot be replaced)."""
        return self._rng

    @property
    def defaults(self) -> GuildSettings:
        return self.server_settings.defaults

    @property
    def repost_after(self) -> int:
        return self.display.repost_after

    @property
    def open_replies(self) -> OpenReplies:
        return self.display.open_replies

    # ------------------------------------------------------------------ settings

    async def settings(self, guild_id: int | None) -> GuildSettings:
        return await self.server_settings.get(guild_id)

    async def settings_of(self, session: Session) -> GuildSettings:
        return await self.server_settings.of(session)

    async def save_settings(self, guild_id: int, settings: GuildSettings) -> None:
        await self.server_settings.save(guild_id, settings)

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

    # ------------------------------------------------------------------ lobbies

    async def open_lobby(
        self,
        actor: Actor,
        guild_id: int | None,
        channel_id: int,
        kind: str,
        options: dict[str, object],
        *,
        server: bool = True,
    ) -> Reply:
        return await self.lobbies.open_lobby(
            actor, guild_id, channel_id, kind, options, server=server
        )

    async def rematch(self, actor: Actor, click: Click) -> Rematch | Reply:
        return await self.lobbies.rematch(actor, click)

    # ------------------------------------------------------------------ moves

    async def click(
        self,
        actor: Actor,
        click: Click,
        message_id: int | None,
        *,
        ephemeral: bool = False,
        owner: int | None = None,
    ) -> Reply:
        return await self.moves.click(actor, click, message_id, ephemeral=ephemeral, owner=owner)

    async def command(
        self, actor: Actor, channel_id: int, kind: str, action: str, arg: str | None = None
    ) -> Reply:
        return await self.moves.command(actor, channel_id, kind, action, arg)

    async def leave(self, actor: Actor, channel_id: int, kind: str) -> Reply:
        return await self.moves.leave(actor, channel_id, kind)

    # ------------------------------------------------------------------ endings, deadlines

    async def end(self, actor: Actor, channel_id: int, kind: str) -> Reply:
        return await self.endings.end(actor, channel_id, kind)

    async def status(self, channel_id: int, kind: str, asker: Actor | None = None) -> Reply:
        return await self.endings.status(channel_id, kind, asker)

    async def expire(self, channel_id: int) -> Reply | None:
        return await self.deadlines.expire(channel_id)

    # ------------------------------------------------------------------ the table shown

    async def table_posted(
        self, channel_id: int, message_id: int, revision: int | None = None
    ) -> TableUpdate | None:
        return await self.display.table_posted(channel_id, message_id, revision)

    async def side_posted(
        self, channel_id: int, game: float, key: str, message_id: int
    ) -> Rendered | None:
        return await self.display.side_posted(channel_id, game, key, message_id)

    async def shown(self, update: TableUpdate, message_id: int) -> None:
        await self.display.shown(update, message_id)

    async def repost(self, channel_id: int) -> TableUpdate | None:
        return await self.display.repost(channel_id)

    async def catch_up(self, channel_id: int) -> TableUpdate | None:
        return await self.display.catch_up(channel_id)

    def display_lock(self, channel_id: int) -> asyncio.Lock:
        return self.display.display_lock(channel_id)

    def overtaken(self, update: TableUpdate) -> bool:
        return self.display.overtaken(update)

    def aimed(self, update: TableUpdate) -> TableUpdate:
        return self.display.aimed(update)

    def shows(self, update: TableUpdate, message_id: int) -> bool:
        return self.display.shows(update, message_id)

    def heard(self, channel_id: int, message_id: int) -> bool:
        return self.display.heard(channel_id, message_id)

    def editable(self, message_id: int | None) -> bool:
        return self.display.editable(message_id)

    def language(self, session: Session) -> str:
        return self.display.language(session)
