"""How the bot reaches a channel it is not a member of: a DM or group DM between users, or a
server that never added it, where players use the app through their own user install.

There the bot has no REST access to the channel (no post, no edit, no history) and sees no
message events. It can act only through interactions: each one comes with a token that, for
15 minutes, answers it, sends follow-ups (at most 5 when only a user install authorised it)
and edits the messages that interaction made or updated. A `Window` is one such token; a
channel's `Reach` keeps the latest few, so a timer or a bot's move can still show the table
through the last press, and a restart finds them in the session row (saved with each move
by `Sessions.save`, read back into `Sessions.reaches`).
When every window has closed, the stored game goes on (timers still act) and the table
catches up at the next press or `/<game> status`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import discord

from bot import discord_internals as internals

#: An interaction token's life (Discord: "Interaction tokens are valid for 15 minutes").
TOKEN_LIFETIME = 15 * 60
#: A window is used only while this much of its life is left, so a request started on it
#: does not meet the expiry halfway.
MARGIN = 30
#: Follow-up messages Discord allows one interaction of an app that only a user install
#: authorised (Create Followup Message).
USER_APP_FOLLOWUPS = 5
#: Windows kept per channel to post through: the newest presses.
KEPT = 4
#: Messages remembered per window and per channel (the latest): the windows that made them
#: are kept too while open, to edit the table and retire its predecessor through.
MESSAGES_KEPT = 4


@dataclass
class Window:
    """One interaction's token: what it may still do in the channel."""

    token: str
    opened: float  # when Discord created the interaction (epoch seconds)
    limited: bool  # only a user install authorised it: at most USER_APP_FOLLOWUPS follow-ups
    followups: int = 0
    #: Messages this interaction made or updated: it may edit them while it is open.
    messages: list[int] = field(default_factory=list)
    #: Discord refused the token (expired early by its clock, or the limit was reached).
    refused: bool = False
    #: Its interaction was answered: only then may others (a timer, a bot's move) use it;
    #: Discord knows no follow-up of an interaction before its answer.
    answered: bool = True

    def open(self, now: float) -> bool:
        return self.answered and not self.refused and now < self.opened + TOKEN_LIFETIME - MARGIN

    def can_post(self, now: float) -> bool:
        return self.open(now) and (not self.limited or self.followups < USER_APP_FOLLOWUPS)

    def made(self, message_id: int) -> None:
        """The interaction made or updated `message_id`: it may edit it from now on."""
        if message_id not in self.messages:
            self.messages.append(message_id)
            del self.messages[:-MESSAGES_KEPT]

    def posted(self, message_id: int | None) -> None:
        """One more follow-up sent through this window."""
        self.followups += 1
        if message_id is not None:
            self.made(message_id)

    def as_json(self) -> dict[str, Any]:
        return {
            "token": self.token,
            "opened": self.opened,
            "limited": self.limited,
            "followups": self.followups,
            "messages": self.messages,
        }

    @classmethod
    def from_json(cls, data: Any) -> Window:
        if not isinstance(data, dict):
            raise TypeError("window")
        token, opened = data.get("token"), data.get("opened")
        followups, messages = data.get("followups", 0), data.get("messages", [])
        if not isinstance(token, str) or not isinstance(opened, int | float) or isinstance(opened, bool):
            raise TypeError("window")
        if type(followups) is not int or not isinstance(messages, list):
            raise TypeError("window")
        if not all(type(m) is int for m in messages):
            raise TypeError("window")
        return cls(token, float(opened), bool(data.get("limited")), followups, list(messages))


@dataclass
class Reach:
    """The open windows of a channel the bot is not a member of, the newest last."""

    windows: list[Window] = field(default_factory=list)

    def note(self, window: Window) -> None:
        """One more interaction: keep the newest few (to post through) and the open ones
        that made the channel's latest messages (to edit or retire the table through)."""
        if any(w.token == window.token for w in self.windows):
            return
        self.windows.append(window)
        self.windows.sort(key=lambda w: w.opened)
        now = window.opened
        latest = set(sorted({m for w in self.windows for m in w.messages})[-MESSAGES_KEPT:])
        newest = self.windows[-KEPT:]
        self.windows = [
            w
            for w in self.windows
            if any(w is n for n in newest) or (w.open(now) and latest.intersection(w.messages))
        ]

    def poster(self, now: float) -> Window | None:
        """The newest window that may still send a message."""
        return next((w for w in reversed(self.windows) if w.can_post(now)), None)

    def editors(self, message_id: int, now: float) -> list[Window]:
        """The open windows that may edit `message_id`, the likeliest first: the one known
        to have made or updated it; else (after a restart, which kept the windows as of the
        last move, not the messages shown since) every open window opened before the
        message was made, the newest first."""
        open_ = [w for w in reversed(self.windows) if w.open(now)]
        known = [w for w in open_ if message_id in w.messages]
        if known:
            return known[:1]
        made = discord.utils.snowflake_time(message_id).timestamp()
        return [w for w in open_ if w.opened <= made + 1]

    def closes(self, now: float) -> float | None:
        """Until when the bot can still show something here without a new press."""
        open_ = [w.opened + TOKEN_LIFETIME - MARGIN for w in self.windows if w.can_post(now)]
        return max(open_, default=None)

    def as_json(self) -> list[dict[str, Any]]:
        return [w.as_json() for w in self.windows]

    @classmethod
    def from_json(cls, data: Any) -> Reach:
        if not isinstance(data, list):
            raise TypeError("via")
        return cls([Window.from_json(w) for w in data][-(KEPT + MESSAGES_KEPT) :])


def refused_token(exc: discord.HTTPException, *, posting: bool = False) -> bool:
    """Whether Discord refused a window's token itself, rather than what was sent: an
    expired token (401, 50027 "Invalid Webhook Token"), one it no longer knows (10015
    "Unknown Webhook") or, `posting`, a follow-up over the user-install limit (400; an
    edit answered 400 was refused for its body, and the window stays open)."""
    return exc.status == 401 or exc.code in (10015, 50027) or (posting and exc.status == 400)


def through_channel(interaction: discord.Interaction) -> bool:
    """Whether the bot may use the interaction's channel itself (REST posts and edits, and
    its message events): a channel of a server that added the bot, or the bot's own DM."""
    context = interaction.context
    if context.dm_channel:
        return True
    return bool(context.guild and interaction.is_guild_integration())


#: Where an interaction keeps the window it opened (discord.py's `Interaction.extras`).
_WINDOW = "window"


def open_window(interaction: discord.Interaction) -> Window:
    """The window an interaction opens, kept with it for its answer (`window_of`)."""
    window = Window(
        token=interaction.token,
        opened=interaction.created_at.timestamp(),
        limited=not interaction.is_guild_integration(),
        answered=False,
    )
    interaction.extras[_WINDOW] = window
    return window


def window_of(interaction: discord.Interaction) -> Window | None:
    """The window the interaction opened where the bot is no member; None elsewhere."""
    return interaction.extras.get(_WINDOW)


def answered(interaction: discord.Interaction) -> None:
    """The interaction was answered (or will never be): its window is open to others now."""
    window = window_of(interaction)
    if window is not None:
        window.answered = True


def seen_by_invoker_only(interaction: discord.Interaction) -> bool:
    """A user-installed app's public answers in a server that turned "Use External Apps" off
    for its members are shown only to the invoker (Discord makes them ephemeral)."""
    return bool(
        interaction.context.guild
        and not interaction.is_guild_integration()
        and not interaction.permissions.use_external_apps
    )


def webhook(bot: discord.Client, window: Window) -> discord.Webhook:
    """The interaction's webhook for `window`: its follow-ups and edits."""
    data: Any = {"id": bot.application_id, "type": 3, "token": window.token}
    return discord.Webhook.from_state(data=data, state=internals.connection(bot))
