"""/verify: check a finished game's dice and cards against its revealed seed, or see the
commitment of the game running here (bot/verify.py does the checking and the words)."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import common
from bot.verify import verify_answer

if TYPE_CHECKING:
    from bot.app import GameBot

#: Game numbers are the finished-games ids; anything larger is no game (and no overflow).
MAX_GAME = 2**53 - 1  # (Discord: an integer option stays within 2**53 - 1)


class VerifyCog(commands.Cog):
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    @app_commands.command(name="verify")
    @common.anywhere
    @app_commands.describe(
        game="The finished game's number, on its final table (default: the game running here)",
        share="Show the answer to the channel (default: only to you)",
    )
    async def verify(
        self,
        interaction: discord.Interaction[GameBot],
        game: app_commands.Range[int, 1, MAX_GAME] | None = None,
        share: bool = False,
    ) -> None:
        """Check a game's dice and cards against its seed, revealed when it ended."""
        assert interaction.channel_id is not None
        tables = self.bot.tables
        answer = await verify_answer(
            tables.store,
            tables.sessions,
            tables.adapters,
            interaction.guild_id,
            interaction.channel_id,
            game,
        )
        # A finished game's draws, as text to read and as JSON for tools/verify_game.py.
        files = [
            discord.File(io.BytesIO(text.encode()), filename=name)
            for name, text in answer.files.items()
        ]
        if files:
            await interaction.response.send_message(
                embed=answer.embed, ephemeral=not share, files=files
            )
        else:
            await interaction.response.send_message(embed=answer.embed, ephemeral=not share)
