"""A slash command's options, checked as the command declares them before it runs.

Discord's client keeps a number within its `min_value`/`max_value`, a text within its
length, and sends a user with the user's data ("resolved"); discord.py trusts all of it.
An interaction made by hand skips the client: `/verify game:9223372036854775808` would
reach the database (whose integers are signed 64-bit) and `/leaderboard season:-1` would
show a board of season -1. So every option is checked here against what its command
declared (`app_commands.Range`), in one place for every command (`GameTree`), and a value
outside it gets a short private refusal."""

from __future__ import annotations

import math
from typing import Any

import discord
from discord import AppCommandOptionType as Type
from discord import app_commands

from bot.i18n import _, number
from games.numbers import fits

#: The longest text an option takes (Discord's limit).
MAX_TEXT = 6000


class RefusedOption(app_commands.AppCommandError):
    """An option no Discord client sends (out of range, of the wrong kind, unresolved); its
    text is the refusal, in the reader's language."""


def check_options(interaction: discord.Interaction) -> None:
    """Raise RefusedOption when an option of the command is not what it declares."""
    if interaction.type is not discord.InteractionType.application_command:
        return  # (an autocomplete's options are half typed: nothing runs on them)
    command = interaction.command
    if not isinstance(command, app_commands.Command):
        return
    given = vars(interaction.namespace)
    for param in command.parameters:
        if param.name in given:
            why = refusal(param, given[param.name])
            if why is not None:
                raise RefusedOption(why)


def refusal(param: app_commands.Parameter, value: Any) -> str | None:
    """Why `value` is not one `param` takes, in the reader's language; None when it is."""
    low, high = param.min_value, param.max_value
    if param.type is Type.integer:
        if fits(value) and _within(value, low, high):
            return None
        if low is None or high is None:
            return _("That number is not one I can use: give a whole number.")
        return _(
            "That number is not one I can use: give a whole number from {low} to {high}.",
            low=int(low),
            high=int(high),
        )
    if param.type is Type.number:
        if type(value) in (int, float) and math.isfinite(value) and _within(value, low, high):
            return None
        if low is None or high is None:
            return _("That number is not one I can use: give a number.")
        return _(
            "That number is not one I can use: give a number from {low} to {high}.",
            low=number(low),
            high=number(high),
        )
    if param.type is Type.string:
        high = MAX_TEXT if high is None else high
        if isinstance(value, str) and _within(len(value), low, high):
            return None
        return _(
            "That text is not one I can use: give {low} to {high} characters.",
            low=int(low or 0),
            high=int(high),
        )
    if param.type is Type.boolean and type(value) is not bool:
        return _("That option is not one I can use: choose one of those offered.")
    if param.type is Type.user:
        if isinstance(value, discord.User | discord.Member) and value.id > 0 and fits(value.id):
            return None
        return _("I can't see that user: choose a player from the list Discord offers.")
    return None


def _within(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)
