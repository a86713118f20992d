"""The table service: every slash command and click, for every game, goes through here.

It holds no Discord objects of the caller; it takes who acted and what they pressed, applies
the move under the channel's lock, commits it, and returns what to show. The cogs and the
component handler only translate Discord interactions to these calls and send the replies."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import ValidationError

from bot.config import REPOST_AFTER
from bot.deadlines import Deadlines
from bot.endings import Endings
from bot.errors import CorruptSession, NoSession
from bot.lobbies import Lobbies
from bot.lobby_settings import OWN_SETTINGS, kept_settings
from bot.moves import Moves
from bot.open_replies import OpenReplies
from bot.replies import Actor, Rematch, Reply, TableUpdate, only_mentioning
from bot.sessions import Session, Sessions
from bot.settings import SAVED, GuildSettings
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

log = logging.getLogger(__name__)


@dataclass
class Tables(Lobbies, Moves, Endings, Deadlines, TableUpdates):
    """The one write path of every game in every channel. Its parts, one module each:
    lobbies and rematches (bot/lobbies.py), the move path (bot/moves.py; it also shows a
    spectator what anyone may see), a game's end (bot/endings.py), passed deadlines and bots (bot/deadlines.py) and where and how the
    table is shown (bot/table_updates.py). What they share is here: the session cache and
    its per-channel locks (`sessions`), the store, the adapters, the settings."""

    store: Store
    adapters: dict[str, TableAdapter]
    defaults: GuildSettings = field(default_factory=GuildSettings)
    #: The bots' choices, and the secret seed of each game's sealed draws (games/draws.py):
    #: the operating system's entropy; a seeded Random only in tests and benchmarks.
    rng: random.Random = field(default_factory=random.SystemRandom)
    clock: Callable[[], float] = time.time
    on_deadline: Callable[[], None] = lambda: None

    repost_after: int = REPOST_AFTER
    cached_games: int = 2000

    def __post_init__(self) -> None:
        self.sessions = Sessions(
            self.store, self.adapters, limit=self.cached_games, on_evict=self._evicted
        )
        self._settings: dict[int, GuildSettings] = {}
        self._languages = {}
        self._display_locks: dict[int, asyncio.Lock] = {}
        self._seq = 0
        # channel -> game (its created_at) -> seq of its newest TableUpdate
        self._latest: dict[int, dict[float, int]] = {}
        # channel -> game -> (updates decided by then, message id) of its table when last shown
        self._showing: dict[int, dict[float, tuple[int, int]]] = {}
        self._ended: dict[int, int] = {}  # channel -> finished game whose final table it shows
        self._chatter: dict[int, int] = {}  # channel -> messages seen below its table
        # channel -> (stamp, user, action) of the click that last closed a decision there,
        # so the same player's second tap of that button (a double tap) is not refused.
        self._closed: dict[int, tuple[int, int, str]] = {}
        self.open_replies = OpenReplies()
        self._background: set[asyncio.Task[None]] = set()

    def _evicted(self, channel_id: int) -> None:
        """A game left the memory cache: forget the per-channel things that grow with the
        number of channels ever played (not `_latest` and `_showing`: an update of this
        channel may be on its way to the screen, and they keep it in order and aimed)."""
        lock = self._display_locks.get(channel_id)
        if lock is not None and not lock.locked():
            del self._display_locks[channel_id]
        self._closed.pop(channel_id, None)
        self.open_replies.forget(channel_id)

    async def settings(self, guild_id: int | None) -> GuildSettings:
        if guild_id is None:
            return self.defaults
        cached = self._settings.get(guild_id)
        if cached is not None:
            return cached
        raw = await self.store.load_settings(guild_id)
        settings = self.defaults
        if raw is not None:
            try:
                settings = GuildSettings.model_validate(
                    {**self.defaults.model_dump(), **json.loads(raw)}, context=SAVED
                )
            except (ValueError, ValidationError):
                log.error("Settings row for guild %s is damaged; using the defaults", guild_id)
        if self.store.serves(guild_id):  # another process's guild: read afresh each time
            self._settings[guild_id] = settings
        self._languages[guild_id] = settings.language
        return settings

    async def settings_of(self, session: Session) -> GuildSettings:
        """The settings a game plays by: its server's, or, where no server's settings
        apply (a DM, a group DM, a server only a user install reaches), the bot's defaults
        with the host's start options, which its lobby keeps (bot/lobby_settings.py)."""
        own = session.lobby.options.get(OWN_SETTINGS)
        if own is None:
            return await self.settings(session.guild_id)
        return kept_settings(self.defaults, own)

    async def save_settings(self, guild_id: int, settings: GuildSettings) -> None:
        await self.store.save_settings(guild_id, settings.model_dump_json())
        if self.store.serves(guild_id):
            self._settings[guild_id] = settings
        self._languages[guild_id] = settings.language

    async def rules(
        self, guild_id: int | None, channel_id: int, kind: str, preset: str | None
    ) -> Reply:
        settings = await self.settings(guild_id)
        try:
            session = await self.sessions.get(channel_id)
        except CorruptSession:
            session = None
        return Reply(
            embed=self.adapters[kind].rules_embed(settings, session, preset), ephemeral=True
        )

    async def _set_aside(self, channel_id: int, damaged: CorruptSession, actor: Actor) -> None:
        await self.store.set_aside(channel_id, damaged.reason, actor.id)
        self.sessions._forget(channel_id)
        log.info("Stored game of channel %s set aside (%s)", channel_id, damaged.reason)

    async def _session(self, channel_id: int, kind: str) -> Session:
        session = await self.sessions.get(channel_id)
        if session is None:
            raise NoSession.of(kind)
        return session
