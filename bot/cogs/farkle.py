"""/farkle: the slash commands of Farkle. Play itself happens on the table's buttons."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.cogs import common
from bot.cogs.common import PRESET_CHOICES, RULE_CHOICES, GameCog

if TYPE_CHECKING:
    from bot.app import GameBot


class FarkleCog(
    GameCog,
    group_name="farkle",
    group_description="Play Farkle: six dice, push your luck.",
    title="Farkle",
):
    """Its own: the start options, and /farkle rules shows a rule set too."""

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
    @app_commands.autocomplete(value=common.rule_values, timer=common.timer_lengths)
    async def start(
        self,
        interaction: discord.Interaction[GameBot],
        rules: app_commands.Choice[str] | None = None,
        target: app_commands.Range[int, 500, 1_000_000] | None = None,
        bots: app_commands.Range[int, 0, 24] = 0,
        timer: app_commands.Range[str, 1, common.LENGTH_TEXT] | None = None,
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
        await common.show_rules(interaction, "farkle", rules.value if rules else None)
