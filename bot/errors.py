"""Refusals the adapter gives a user (beyond the engines' GameError), and the one place that
turns any error into a short ephemeral answer."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.i18n import N_, _, render, speak
from bot.mentions import mention
from bot.options import RefusedOption, check_options
from bot.reach import answered
from bot.respond import release
from games.errors import GameError

log = logging.getLogger(__name__)

#: Said (translated, `_(APOLOGY)`) when the bot itself failed.
APOLOGY = N_("Sorry, something went wrong on my side. Nothing in the game was changed.")


class UserError(Exception):
    """A request refused for a reason the user can act on; the message is shown to them."""


class StaleTable(UserError):
    """A click on a decision that is over (an earlier throw, roll, turn or game), by someone
    who could have made it. Where the click came from says where to look: a private reply
    (open a fresh one), the live table itself (it changed as they pressed: there is no newer
    message), an older table message (the live one is below) or another public message."""

    def __init__(self, private: bool = False, where: str = "elsewhere") -> None:
        if private:
            text = _("That moment has passed: open a fresh reply from the table.")
        elif where == "live":
            text = _("That moment has passed: the table changed as you pressed. Look at it again.")
        elif where == "old":
            text = _("That table is old: the live one is below.")
        else:
            text = _("That moment has passed: use the buttons on the latest table message.")
        super().__init__(text)


class NoSession(UserError):
    """No game or lobby runs in the channel."""

    @classmethod
    def of(cls, kind: str) -> NoSession:
        """Said to a command or press of game `kind`: with the command that starts one."""
        return cls(
            _(
                "There is no game running in this channel. Start one with {command}.",
                command=mention(kind + " start"),
            )
        )


class GameOver(UserError):
    """A button of a game that is over (another game may run in the channel now)."""


class MovedMeanwhile(UserError):
    """Another bot process sharing the database changed this game first (a shard moved while
    both ran): nothing was changed here, and the next press reads the stored game afresh."""

    def __init__(self) -> None:
        super().__init__(
            _(
                "The game moved on at the same moment: nothing was changed. Look at the table "
                "and press again."
            )
        )


#: Why a stored game cannot be loaded, as the channel is told (never the row's contents):
#: translated where it is said, `_(DAMAGE[reason], kind=...)`.
DAMAGE = {
    "unknown": N_(
        "The saved game in this channel is a game this version of the bot does not know "
        "({kind}), so it cannot be played."
    ),
    "unreadable": N_(
        "The saved game in this channel is damaged (unreadable data), so it cannot be played."
    ),
    "incompatible": N_(
        "The saved game in this channel was saved by an incompatible version of the bot, so it "
        "cannot be played."
    ),
    "absurd": N_(
        "The saved game in this channel is damaged (impossible values), so it cannot be played."
    ),
    "draws": N_(
        "The saved game in this channel has a damaged record of its sealed dice and cards: "
        "they could no longer be checked, so it cannot be played on."
    ),
}


class CorruptSession(UserError):
    """The channel's stored game cannot be loaded. `reason` is a key of DAMAGE; `starter` is
    the lobby's host when the row still says who that was (else only a server manager may
    clear it)."""

    def __init__(self, reason: str, kind: str, starter: int | None = None) -> None:
        self.reason, self.kind, self.starter = reason, kind, starter
        shown = kind if kind.isascii() and kind.isalnum() and len(kind) <= 20 else "?"
        what = _(DAMAGE[reason], kind=shown) if reason == "unknown" else _(DAMAGE[reason])
        commands = {
            "farkle": mention("farkle end"),
            "kuriki": mention("kuriki end"),
            "crap": mention("crap end"),
        }
        if starter is not None:
            how = _(
                "To clear it, its host or a server manager can use {farkle}, {kuriki} or "
                "{crap} (a server manager can also just start a new game); the old game is "
                "kept aside for the bot's operator.",
                **commands,
            )
        else:
            how = _(
                "To clear it, a server manager can use {farkle}, {kuriki} or {crap} (a server "
                "manager can also just start a new game); the old game is kept aside for the "
                "bot's operator.",
                **commands,
            )
        super().__init__(f"{what} {how}")


def said(error: BaseException) -> str:
    """An expected error's message in the current language: an engine's `Msg`, or the text
    a `UserError` was raised with (already in the language of whoever caused it)."""
    if isinstance(error, GameError):
        return render(error.message)
    return str(error)


def message_for(error: BaseException) -> tuple[str, bool]:
    """What to tell the user about `error`, and whether it was expected (no traceback).

    Anything a client can send is expected: an option discord.py cannot convert (a member id
    that is no member here, a choice that is not offered, a stale command) is a short
    refusal. Only faults of the bot itself are unexpected."""
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError):
        cause = error.__cause__
        if isinstance(cause, GameError | UserError):
            return said(cause), True
        if isinstance(error, app_commands.TransformerError):
            if error.type in (
                discord.AppCommandOptionType.user,
                discord.AppCommandOptionType.mentionable,
            ):
                return _(
                    "That is not a member of this server: choose a player from the list."
                ), True
            return _("That option is not one I can use: choose one of those offered."), True
        error = cause or error
    if isinstance(error, GameError | UserError):
        return said(error), True
    if isinstance(error, RefusedOption):
        return str(error), True
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return _("That command has changed: reload Discord and try again."), True
    if isinstance(error, app_commands.MissingPermissions):
        return _("You need the Manage Server permission for that."), True
    if isinstance(error, app_commands.NoPrivateMessage):
        return _("That command works only in a server that added the bot."), True
    if isinstance(error, app_commands.CheckFailure):
        return _("You can't use that here."), True
    return _(APOLOGY), False


async def answer_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Reply ephemerally with `message_for(error)`; log unexpected errors with a traceback."""
    text, expected = message_for(error)
    if not expected:
        log.error("Unexpected error handling interaction %s", interaction.id, exc_info=error)
    else:
        # A refusal, not a fault: below ERROR, and without the value the client sent.
        log.info("Refused interaction %s (%s)", interaction.id, type(error).__name__)
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("Could not tell the user about an error in interaction %s", interaction.id)


class GameTree(app_commands.CommandTree):
    """Command tree whose errors become ephemeral replies instead of silent failures."""

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Before any command runs: its answers in its user's language, and its options
        checked as it declares them (`check_options` raises a refusal, which `on_error`
        answers)."""
        speak(interaction.locale)  # every answer of this command in its user's language
        note = getattr(interaction.client, "note", None)
        if note is not None:
            note(interaction)
        check_options(interaction)
        return True

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        try:
            await answer_error(interaction, error)
        finally:
            answered(interaction)
            release(interaction)
