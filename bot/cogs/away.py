"""/away: a player says they are away from the game in this channel for a while (a bot plays
their turns, or the game pauses if everyone agrees), and `/away off` or one press of "I'm
back" ends it. The buttons carry everything in their custom_ids (bot/away_table.py), so they
keep working after a restart."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.away import parse_away
from bot.away_table import AWAY_KIND
from bot.cogs import common
from bot.components import Click
from bot.interactions import actor_of, send_reply

if TYPE_CHECKING:
    from bot.app import GameBot


class AwayCog(commands.Cog):
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        bot.component_handlers[AWAY_KIND] = self.on_click

    @app_commands.command(name="away")
    @common.anywhere
    @app_commands.describe(
        time='How long, like "2h", "2d" or "1d12h" (at most 7 days); "off" when you are back',
        pause="Ask the others to pause the game instead of a bot playing your turns",
    )
    async def away(
        self, interaction: discord.Interaction[GameBot], time: str, pause: bool = False
    ) -> None:
        """Away from the game here for a while: a bot plays your turns, or it pauses."""
        assert interaction.channel_id is not None
        seconds = parse_away(time)
        reply = await self.bot.tables.away(
            actor_of(interaction), interaction.channel_id, seconds, pause=pause
        )
        await send_reply(interaction, reply)

    async def on_click(self, interaction: discord.Interaction[GameBot], click: Click) -> None:
        """I'm back, Ask for a pause, Agree to pause, Resume: on the table or privately."""
        reply = await self.bot.tables.away_press(actor_of(interaction), click)
        await send_reply(interaction, reply)
