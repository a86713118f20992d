"""/crap: the slash commands of CRAP. Cards are played from the "My hand" button."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.cogs import common
from bot.cogs.common import GameCog

if TYPE_CHECKING:
    from bot.app import GameBot


class CrapCog(
    GameCog,
    group_name="crap",
    group_description="Play CRAP: Challenge, Recycle, Acquire, Protect.",
    title="CRAP",
):
    """Its own: the start options."""

    @app_commands.command(name="start")
    @app_commands.describe(
        threshold="Points to win (default: this server's, or the bot's)",
        jokers="Play with the four jokers (default: this server's, or the bot's)",
        bots="Bot players to seat besides you (add or remove more in the lobby)",
        timer=common.TIMER_HELP,
        force_recycle="Allow the optional Force Recycle action (outside servers; in a server: /config)",
        bluff_window="Seconds the others have to call an Acquire bluff, 5-300 (outside servers)",
    )
    @app_commands.autocomplete(timer=common.timer_lengths)
    async def start(
        self,
        interaction: discord.Interaction[GameBot],
        threshold: app_commands.Range[int, 100, 100000] | None = None,
        jokers: bool | None = None,
        bots: app_commands.Range[int, 0, 5] = 0,
        timer: app_commands.Range[str, 1, common.LENGTH_TEXT] | None = None,
        force_recycle: bool | None = None,
        bluff_window: app_commands.Range[int, 5, 300] | None = None,
    ) -> None:
        """Open a CRAP lobby in this channel (3-6 players)."""
        await common.start(
            interaction,
            "crap",
            threshold=threshold,
            jokers=jokers,
            bots=bots,
            timer=timer,
            force_recycle=force_recycle,
            bluff_window=bluff_window,
        )
