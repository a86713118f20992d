"""What the table service is told and what it answers: who acted (`Actor`), the answer to
an interaction (`Reply`), how to bring a channel's table up to date (`TableUpdate`, decided
in `bot/table_updates.py` and carried out by `bot/display.py`), and a Rematch's new lobby
(`Rematch`). Plain data: `bot/interactions.py` and the cogs turn it into Discord calls."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict, Unpack

import discord

from bot.components import Components, TableItem, view_of
from bot.reach import Reach

if TYPE_CHECKING:  # the adapters' base writes durations with `duration` below
    from bot.open_replies import OpenReply
    from bot.tables.base import Rendered



class MessageArgs(TypedDict, total=False):
    """The keyword arguments a new message (a response or a follow-up) is sent with."""

    content: str
    embed: discord.Embed
    view: discord.ui.View
    file: discord.File
    allowed_mentions: discord.AllowedMentions
    ephemeral: bool


class TableReplyOptions(TypedDict, total=False):
    """How `Reply.of_table` sends a rendered table: the `Reply` fields besides what it shows."""

    ephemeral: bool
    edit: bool
    update: TableUpdate | None
    on_table: bool
    side: str | None
    private_of: float | None

@dataclass(frozen=True)
class Actor:
    """Who pressed or typed: their id, the name the table shows, and Manage Server."""

    id: int
    name: str
    is_admin: bool = False
    #: Their language (a catalogue of bot/i18n.py), and their server's preferred one (None
    #: outside servers): a lobby's public language when it opens (`Tables.language`).
    locale: str = "en"
    guild_locale: str | None = None


@dataclass
class TableUpdate:
    """How to bring one channel's table up to date: edit the message that shows it, or post
    it afresh (mentioning `ping`) and reduce the older message to `summary`. `seq` orders the
    updates of a channel: one that a newer update overtook is dropped (the newer one shows
    more), so quick moves never leave an older state on the table."""

    channel_id: int
    revision: int
    table: Rendered
    message_id: int | None
    fresh: bool
    #: Makes `summary` (once, however often asked): a table posted afresh retires the older
    #: message with it, an edit in place mostly never needs it.
    summarize: Callable[[], Rendered | None] = field(
        default=lambda: None, repr=False, compare=False
    )
    ping: tuple[int, ...] = ()
    seq: int = 0
    #: Where the bot is no member of the channel: the interactions to show it through.
    via: Reach | None = None
    #: Which game of the channel it shows (its session's `created_at`): updates are ordered,
    #: aimed and marked as shown within their own game, so the final table of a game just
    #: ended and the lobby opened the next moment never stand in each other's way.
    game: float = 0.0
    #: The finished game's id when this is its final table: once shown, it is marked seen
    #: (`Tables.shown`) rather than the channel's session, which is gone.
    ending: int | None = None
    #: Messages besides the table that the move changed or closed (a foul vote's), with
    #: what each shows now: edited with the table, never posted again.
    sides: tuple[tuple[int, Rendered], ...] = ()
    #: Players' open private replies that the move changed (their step came), with what
    #: each shows now: edited through the token that made them.
    privates: tuple[tuple[OpenReply, Rendered], ...] = ()

    @property
    def summary(self) -> Rendered | None:
        """What the older table message is reduced to: its last moves, no buttons (None: a
        lobby's, deleted instead)."""
        return self.summarize()


@dataclass
class Reply:
    """What to answer an interaction with.

    `edit` answers a click by updating the clicked message; otherwise a new message is sent
    (ephemeral when `ephemeral`). `update` brings the channel's table up to date: through the
    answer itself when `on_table` (the click was on the table), otherwise afterwards."""

    content: str | None = None
    embed: discord.Embed | None = None
    items: list[TableItem] | None = None
    ephemeral: bool = False
    edit: bool = False
    update: TableUpdate | None = None
    on_table: bool = False
    followups: list[Reply] = field(default_factory=list)
    #: The answer is a side message (a foul vote's): the key its id is kept under.
    side: str | None = None
    #: The answer is the clicker's private view of the game of this `created_at`:
    #: remembered (`OpenReplies`), so a step of theirs that comes later is shown in it.
    private_of: float | None = None

    def view(self) -> Components | None:
        return None if self.items is None else view_of(self.items)

    @property
    def table(self) -> Rendered | None:
        """The table this reply brings the channel to."""
        return None if self.update is None else self.update.table

    @property
    def table_message_id(self) -> int | None:
        return None if self.update is None else self.update.message_id

    @classmethod
    def private(cls, text: str) -> Reply:
        return cls(content=text, ephemeral=True)

    @classmethod
    def of_table(cls, rendered: Rendered, **kw: Unpack[TableReplyOptions]) -> Reply:
        kw.setdefault("side", rendered.side)
        return cls(content=rendered.content, embed=rendered.embed, items=rendered.items, **kw)


@dataclass
class Rematch:
    """What a Rematch press shows: the new lobby, posted as a new message whose content
    invites (mentions) the other players of the finished game, and what is left of the
    finished table's buttons."""

    lobby: Rendered
    invited: list[int]
    channel_id: int
    finished_items: list[TableItem]
    revision: int = 0  # of the lobby as `lobby` shows it

    def allowed_mentions(self) -> discord.AllowedMentions:
        """Ping exactly the invited players: nobody else, no role, not @everyone."""
        return only_mentioning(self.invited)


class _MentionedUser:
    """A user for AllowedMentions whose id goes out as a string, as Discord's API description
    types snowflakes in request bodies (with discord.Object, discord.py sends the int)."""

    __slots__ = ("id",)

    def __init__(self, user_id: int) -> None:
        self.id = str(user_id)


def only_mentioning(users: Iterable[int]) -> discord.AllowedMentions:
    """Allowed mentions that notify exactly `users`: nobody else, no role, not @everyone
    (nobody at all when `users` is empty)."""
    ids = list(users)
    if not ids:
        return discord.AllowedMentions.none()
    return discord.AllowedMentions(
        users=[_MentionedUser(i) for i in ids],  # type: ignore[misc]  # a str id (see _MentionedUser), where discord.py's Snowflake says int
        everyone=False,
        roles=False,
        replied_user=False,
    )
