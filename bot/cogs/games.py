"""/games: every running game and lobby of the player, in every place, privately
(bot/games_list.py): whose turn, when it runs out, a link to each table."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import common
from bot.games_list import my_games
from bot.interactions import send_reply

if TYPE_CHECKING:
    from bot.app import GameBot


class GamesCog(commands.Cog):
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    @app_commands.command(name="games")
    @common.anywhere
    async def games(self, interaction: discord.Interaction[GameBot]) -> None:
        """Your running games everywhere, only to you: whose turn, time left, a link."""
        await send_reply(interaction, await my_games(self.bot.tables, interaction.user.id))
