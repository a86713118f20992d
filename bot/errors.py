"""Refusals the adapter gives a user (beyond the engines' GameError), and the one place that
turns any error into a short ephemeral answer."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from games.errors import GameError

log = logging.getLogger(__name__)

APOLOGY = "Sorry, something went wrong on my side. Nothing in the game was changed."


class UserError(Exception):
    """A request refused for a reason the user can act on; the message is shown to them."""


class StaleTable(UserError):
    """A click on a decision that is over (an earlier throw, roll, turn or game)."""

    def __init__(self, private: bool = False) -> None:
        super().__init__(
            "That moment has passed: open a fresh reply from the table."
            if private
            else "That moment has passed: use the buttons on the latest table message."
        )


class NoSession(UserError):
    pass


class CorruptSession(UserError):
    def __init__(self, kind: str) -> None:
        super().__init__(
            "The saved game in this channel is damaged and cannot be played. "
            f"A server manager can clear it with /{kind} end."
        )


def message_for(error: BaseException) -> tuple[str, bool]:
    """What to tell the user about `error`, and whether it was expected (no traceback)."""
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError):
        error = error.__cause__ or error
    if isinstance(error, GameError | UserError):
        return str(error), True
    if isinstance(error, app_commands.MissingPermissions):
        return "You need the Manage Server permission for that.", True
    if isinstance(error, app_commands.NoPrivateMessage):
        return "Games are played in server channels, not in direct messages.", True
    if isinstance(error, app_commands.CheckFailure):
        return "You can't use that here.", True
    return APOLOGY, False


async def answer_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Reply ephemerally with `message_for(error)`; log unexpected errors with a traceback."""
    text, expected = message_for(error)
    if not expected:
        log.error("Unexpected error handling interaction %s", interaction.id, exc_info=error)
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("Could not tell the user about an error in interaction %s", interaction.id)


class GameTree(app_commands.CommandTree):
    """Command tree whose errors become ephemeral replies instead of silent failures."""

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await answer_error(interaction, error)
