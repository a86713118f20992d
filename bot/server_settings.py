"""Each server's settings (/config) as the games read them, cached, and the language each
server chose for its public tables (bot/table_updates.py reads it). A part of `Tables`
(bot/service.py) that the others are given; it depends on the store alone."""

from __future__ import annotations

import json
import logging

from pydantic import ValidationError

from bot.lobby_settings import OWN_SETTINGS, kept_settings
from bot.sessions import Session
from bot.settings import SAVED, GuildSettings
from bot.store import Store

log = logging.getLogger(__name__)


class ServerSettings:
    """The settings cache. A server another process serves (a shared database) is read
    afresh each time: that process may change them."""

    def __init__(self, store: Store, defaults: GuildSettings) -> None:
        self.store = store
        self.defaults = defaults
        self._cache: dict[int, GuildSettings] = {}
        #: Each server's /config language as last read (None: its preferred locale).
        self._languages: dict[int, str | None] = {}

    async def get(self, guild_id: int | None) -> GuildSettings:
        """A server's settings; the bot's defaults outside servers or when none are saved."""
        if guild_id is None:
            return self.defaults
        cached = self._cache.get(guild_id)
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
            self._cache[guild_id] = settings
        self._languages[guild_id] = settings.language
        return settings

    async def of(self, session: Session) -> GuildSettings:
        """The settings a game plays by: its server's, or, where no server's settings
        apply (a DM, a group DM, a server only a user install reaches), the bot's defaults
        with the host's start options, which its lobby keeps (bot/lobby_settings.py)."""
        own = session.lobby.options.get(OWN_SETTINGS)
        if own is None:
            return await self.get(session.guild_id)
        return kept_settings(self.defaults, own)

    async def save(self, guild_id: int, settings: GuildSettings) -> None:
        await self.store.save_settings(guild_id, settings.model_dump_json())
        if self.store.serves(guild_id):
            self._cache[guild_id] = settings
        self._languages[guild_id] = settings.language

    def language(self, guild_id: int) -> str | None:
        """The language a server chose with /config, as last read (None: not chosen, or
        not read yet)."""
        return self._languages.get(guild_id)
