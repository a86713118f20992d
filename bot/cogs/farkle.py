"""/farkle: the slash commands of Farkle. Play itself happens on the table's buttons."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import common
from bot.cogs.common import PRESET_CHOICES, RULE_CHOICES

if TYPE_CHECKING:
    from bot.app import GameBot


@common.anywhere
class FarkleCog(
    commands.GroupCog,
    group_name="farkle",
    group_description="Play Farkle: six dice, push your luck.",
):
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    @app_commands.command(name="start")
    @app_commands.describe(
        rules="Rule set (default: this server's choice, or the bot's)",
        target="Score to play to (default: the rule set's)",
        bots="Bot players to seat besides you (add or remove more in the lobby)",
        timer=common.TIMER_HELP,
        house_rule="A rule to change for this game (outside servers; in a server: /config)",
        value=common.VALUE_HELP,
    )
    @app_commands.choices(rules=PRESET_CHOICES, house_rule=RULE_CHOICES)
    @app_commands.autocomplete(value=common.rule_values)
    async def start(
        self,
        interaction: discord.Interaction[GameBot],
        rules: app_commands.Choice[str] | None = None,
        target: app_commands.Range[int, 500, 1_000_000] | None = None,
        bots: app_commands.Range[int, 0, 24] = 0,
        timer: app_commands.Range[int, 0, 3600] | None = None,
        house_rule: app_commands.Choice[str] | None = None,
        value: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        """Open a Farkle lobby in this channel; friends join with the button."""
        await common.start(
            interaction,
            "farkle",
            rules=rules.value if rules else None,
            target=target,
            bots=bots,
            timer=timer,
            house_rule=house_rule.value if house_rule else None,
            value=value,
        )

    @app_commands.command(name="rules")
    @app_commands.describe(rules="Show this rule set instead of the game in this channel")
    @app_commands.choices(rules=PRESET_CHOICES)
    async def rules(
        self,
        interaction: discord.Interaction[GameBot],
        rules: app_commands.Choice[str] | None = None,
    ) -> None:
        """Show the rules of the game here, or of a rule set."""
        await common.rules(interaction, "farkle", rules.value if rules else None)

    @app_commands.command(name="status")
    async def status(self, interaction: discord.Interaction[GameBot]) -> None:
        """Post the Farkle table again at the bottom of this channel, for everyone."""
        await common.status(interaction, "farkle")

    @app_commands.command(name="leave")
    async def leave(self, interaction: discord.Interaction[GameBot]) -> None:
        """Leave the Farkle game or lobby in this channel."""
        await common.leave(interaction, "farkle")

    @app_commands.command(name="end")
    async def end(self, interaction: discord.Interaction[GameBot]) -> None:
        """End the Farkle game here (its host or a server manager)."""
        await common.end(interaction, "farkle")
