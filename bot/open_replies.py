"""The private reply each player has open (the last one the bot answered them with, such
as CRAP's "My hand"), remembered so that when their step in the game comes without their
press (the other side of a challenge placed their cards or named one), the reply they are
looking at is edited to show what to do now. Discord lets an interaction's token edit its
messages for 15 minutes; older replies are left as they are. Kept in memory only: after a
restart a player presses My hand once, as before."""

from __future__ import annotations

from dataclasses import dataclass

from bot.reach import MARGIN, TOKEN_LIFETIME, Window


@dataclass(frozen=True)
class OpenReply:
    """One player's latest private reply in a channel: the token of the interaction that
    made or updated it, the message, the player's language, and which game it belongs to."""

    user_id: int
    token: str
    opened: float  # when Discord created the interaction (epoch seconds)
    message_id: int
    locale: str
    game: float  # the session's created_at

    def open(self, now: float) -> bool:
        return now < self.opened + TOKEN_LIFETIME - MARGIN

    def window(self) -> Window:
        """The interaction's webhook window, to edit the reply through."""
        return Window(self.token, self.opened, limited=False, messages=[self.message_id])


class OpenReplies:
    """The open private replies of every channel, by player (the latest only)."""

    def __init__(self) -> None:
        self._by_channel: dict[int, dict[int, OpenReply]] = {}

    def note(self, channel_id: int, reply: OpenReply) -> None:
        self._by_channel.setdefault(channel_id, {})[reply.user_id] = reply

    def of(self, channel_id: int, user_id: int, game: float, now: float) -> OpenReply | None:
        """`user_id`'s reply in this channel's game `game`, while its token can edit it."""
        reply = self._by_channel.get(channel_id, {}).get(user_id)
        return reply if reply is not None and reply.game == game and reply.open(now) else None

    def forget(self, channel_id: int, user_id: int | None = None) -> None:
        """A reply that can no longer be edited, or (no user) the whole channel."""
        if user_id is None:
            self._by_channel.pop(channel_id, None)
        else:
            self._by_channel.get(channel_id, {}).pop(user_id, None)
