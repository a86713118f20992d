"""/kuriki: the slash commands of Kuriki. The cup is played on the table's buttons."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.cogs import common
from bot.cogs.common import GameCog
from bot.interactions import actor_of, send_reply

if TYPE_CHECKING:
    from bot.app import GameBot


class KurikiCog(
    GameCog,
    group_name="kuriki",
    group_description="Play Kuriki: two dice, a cup and lies.",
    title="Kuriki",
):
    """Its own: the start options and /kuriki foul."""

    @app_commands.command(name="start")
    @app_commands.describe(
        lives="Lives each player starts with (default: this server's, or the bot's)",
        bots="Bot players to seat besides you (add or remove more in the lobby)",
        timer=common.TIMER_HELP,
        two_digit="Declare non-doubles as two-digit numbers (outside servers; in a server: /config)",
        reverse_after_kuriki="After a Kuriki the Roller may reverse the direction (outside servers)",
        stake="Buy-in per player, 0 for no stakes (outside servers)",
        foul_price="What each foul puts in the pot when playing for stakes (outside servers)",
    )
    @app_commands.autocomplete(timer=common.timer_lengths)
    async def start(
        self,
        interaction: discord.Interaction[GameBot],
        lives: app_commands.Range[int, 1, 9] | None = None,
        bots: app_commands.Range[int, 0, 11] = 0,
        timer: app_commands.Range[str, 1, common.LENGTH_TEXT] | None = None,
        two_digit: bool | None = None,
        reverse_after_kuriki: bool | None = None,
        stake: app_commands.Range[int, 0, 1_000_000] | None = None,
        foul_price: app_commands.Range[int, 0, 1_000_000] | None = None,
    ) -> None:
        """Open a Kuriki lobby in this channel; friends join with the button."""
        await common.start(
            interaction,
            "kuriki",
            lives=lives,
            bots=bots,
            timer=timer,
            two_digit=two_digit,
            reverse_after_kuriki=reverse_after_kuriki,
            stake=stake,
            foul_price=foul_price,
        )

    @app_commands.command(name="foul")
    @app_commands.describe(
        player="Who disrespected the dice",
        reason="What they did",
        rusk="A Rusk (manhandling the cup): a triple foul, voted on; a server manager charges it",
    )
    async def foul(
        self,
        interaction: discord.Interaction[GameBot],
        player: discord.User,
        reason: app_commands.Range[str, 1, 100] | None = None,
        rusk: bool = False,
    ) -> None:
        """Call a foul (or a Rusk): the others vote; a server manager charges a Rusk at once."""
        assert interaction.channel_id is not None
        action = "rusk" if rusk else "propose"
        # No reason: the engine's default ("disrespecting the dice"), in each reader's language.
        arg = f"{player.id}:{reason or ''}"
        reply = await interaction.client.tables.command(
            actor_of(interaction), interaction.channel_id, "kuriki", action, arg
        )
        await send_reply(interaction, reply)
