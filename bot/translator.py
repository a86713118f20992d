"""Slash commands in each player's language: Discord shows the names, descriptions,
options and choices the app gives for a locale, and asks for them when the commands sync."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.command_strings import command_fault
from bot.i18n import SOURCE, lang, language_of

log = logging.getLogger(__name__)


class CatalogueTranslator(app_commands.Translator):
    """Each command string from the catalogues, by the context it is asked in
    (`command_name`, `choice_name`, ...): see `tools/catalogues.py`."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        code = language_of(locale)
        if code == SOURCE or string.extras.get("verbatim"):
            return None
        where = context.location.name
        text = lang(code).pgettext(where, string.message)
        if text == string.message:
            return None
        if command_fault(where, text) is not None:
            # Discord would refuse the whole sync: the English string is better than none.
            log.warning("Translation %r of %r (%s, %s) is not allowed", text, string, where, code)
            return None
        return text
