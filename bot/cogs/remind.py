"""/remind: a player's reminders of their turns in long games (direct messages on or off,
quiet hours), and the table's Remind button (bot/reminders.py decides, bot/reminder_delivery.py
posts). Every answer is private; the settings are the player's wherever they play."""

from __future__ import annotations

import functools
import logging
import zoneinfo
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import common
from bot.components import Click
from bot.errors import UserError, answer_error
from bot.i18n import _, listed, speak
from bot.reach import answered
from bot.reminder_delivery import deliver
from bot.reminder_prefs import describe, with_dms, with_quiet
from bot.reminders import NUDGE_KIND
from bot.store.reminders import RemindPrefs

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)

ON_OFF = [app_commands.Choice(name="on", value="on"), app_commands.Choice(name="off", value="off")]


@functools.cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones()))


async def zone_names(
    interaction: discord.Interaction[GameBot], current: str
) -> list[app_commands.Choice[str]]:
    """The IANA zones that contain what was typed (an offset such as +2 is taken as typed)."""
    typed = current.strip()
    found = [z for z in _zones() if typed.lower().replace(" ", "_") in z.lower()]
    options = [app_commands.Choice(name=z, value=z) for z in found[:25]]
    if typed and not options:
        options = [app_commands.Choice(name=typed[:100], value=typed[:64])]
    return options


@common.anywhere
class RemindCog(
    commands.GroupCog,
    group_name="remind",
    group_description="Reminders of your turn in long games: direct messages, quiet hours.",
):
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        bot.component_handlers[NUDGE_KIND] = self.nudge

    async def _prefs(self, user_id: int) -> RemindPrefs:
        found = await self.bot.tables.store.remind_prefs([user_id])
        return found.get(user_id) or RemindPrefs(user_id)

    async def _save(self, interaction: discord.Interaction[GameBot], prefs: RemindPrefs) -> None:
        tables = self.bot.tables
        await tables.store.save_remind_prefs(prefs, tables.clock())
        await interaction.response.send_message(
            _("Saved.") + "\n" + describe(prefs), ephemeral=True
        )

    @app_commands.command(name="show")
    async def show(self, interaction: discord.Interaction[GameBot]) -> None:
        """Show how you are reminded of your turns."""
        prefs = await self._prefs(interaction.user.id)
        await interaction.response.send_message(describe(prefs), ephemeral=True)

    @app_commands.command(name="me")
    @app_commands.describe(dms="on: reminders come to you as a direct message too")
    @app_commands.choices(dms=ON_OFF)
    async def me(self, interaction: discord.Interaction[GameBot], dms: str) -> None:
        """Get reminders of your turns as direct messages, or not."""
        prefs = with_dms(await self._prefs(interaction.user.id), dms == "on")
        await self._save(interaction, prefs)

    @app_commands.command(name="quiet")
    @app_commands.describe(
        hours="When not to remind you, such as 22-8 or 22:30-7; off: at any time",
        zone="Your time zone: a name such as Europe/Berlin, or an offset such as +2 or -5",
    )
    @app_commands.autocomplete(zone=zone_names)
    async def quiet(
        self,
        interaction: discord.Interaction[GameBot],
        hours: app_commands.Range[str, 1, 40],
        zone: app_commands.Range[str, 1, 64] | None = None,
    ) -> None:
        """Hours in which no reminder reaches you (held until they end)."""
        prefs = with_quiet(await self._prefs(interaction.user.id), hours, zone)
        await self._save(interaction, prefs)

    async def nudge(self, interaction: discord.Interaction[GameBot], click: Click) -> None:
        """The table's Remind button: any player at the table reminds whoever the game waits
        for, once a turn (bot/reminders.py `Reminders.nudge`)."""
        speak(interaction.locale)
        try:
            delivery = await self.bot.tables.reminders.nudge(
                interaction.user.id, click.channel_id, click.game
            )
        except UserError as exc:
            await answer_error(interaction, exc)
            return
        await interaction.response.send_message(
            _(
                "Reminded {players}.",
                players=listed(f"<@{u}>" for u in delivery.users),
            ),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        answered(interaction)  # where the bot is no member, this press may carry the post
        try:
            await deliver(self.bot, delivery)
        except Exception:  # left in the outbox: the timer loop posts it a minute later
            log.exception("A nudge in channel %s could not be posted", click.channel_id)
