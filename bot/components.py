"""Buttons and selects that survive restarts: everything lives in the custom_id, and the
bot's one interaction listener receives every component click, forged or unknown ones too.

Labels, placeholders and options read no markdown, but Discord does apply bidirectional
controls in them: a name's U+202E would reverse the rest of a label. `button` and `select`
leave them out of every text they show (`players.unbidi`)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

import discord

from bot.players import unbidi
from games.numbers import MAX_ID, number

# t:<game kind>:<action>:<channel>:<game id>:<stamp>[:<arg>], at most 100 characters. Numbers
# are ASCII digits only (a Unicode digit such as "²" passes str.isdigit() but not int()).
CUSTOM_ID = re.compile(
    r"t:(?P<kind>[a-z]{1,12}):(?P<action>[a-z]{1,12}):(?P<channel>[0-9]{1,20})"
    r":(?P<game>[0-9]{1,9}):(?P<stamp>[0-9]{1,10})(?::(?P<arg>[A-Za-z0-9_-]{1,30}))?"
)
# Buttons of tables rendered before stamps existed: t:<kind>:<action>:<channel>:<revision>[:arg].
LEGACY_CUSTOM_ID = re.compile(r"t:[a-z]{1,12}:[a-z]{1,12}:[0-9]{1,20}:[0-9]{1,10}(?::[\w-]{1,32})?")


@dataclass(frozen=True)
class Click:
    """A parsed custom_id: which game, which move, on which channel's table, and the stamp of
    the decision the button answers (see `TableAdapter.stamp`)."""

    kind: str
    action: str
    channel_id: int
    game: int
    stamp: int
    arg: str | None = None
    values: tuple[str, ...] = ()

    @classmethod
    def parse(cls, custom_id: str, values: tuple[str, ...] = ()) -> Click | None:
        """The click a custom_id asks for; None for one no button of the bot carries (a
        channel id too large to be one: `games.numbers.MAX_ID`)."""
        m = CUSTOM_ID.fullmatch(custom_id)
        channel = None if m is None else number(m["channel"])
        if m is None or channel is None:
            return None
        return cls(
            kind=m["kind"],
            action=m["action"],
            channel_id=channel,
            game=int(m["game"]),
            stamp=int(m["stamp"]),
            arg=m["arg"],
            values=values,
        )


def custom_id(
    kind: str, action: str, channel_id: int, game: int, stamp: int, arg: object = None
) -> str:
    """The custom_id of a button: `CUSTOM_ID` parses it back. Checked field by field with
    plain string tests (a renderer's bug, never user input), not by the regex: a table builds
    a dozen of these for every move, and the few kind-action pairs, like the channel, game
    and stamp its buttons share, are checked and written once each."""
    if arg is None:
        return _prefix(kind, action) + _ids(channel_id, game, stamp)
    text = str(arg)
    if not (0 < len(text) <= 30 and text.isascii() and _ARG_CHARS.issuperset(text)):
        raise ValueError(f"bad custom_id fields {(kind, action, channel_id, game, stamp, arg)!r}")
    return f"{_prefix(kind, action)}{_ids(channel_id, game, stamp)}:{text}"


_ARG_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


@functools.cache
def _prefix(kind: str, action: str) -> str:
    """'t:<kind>:<action>:', once both are checked as CUSTOM_ID reads them."""
    if not (_word(kind) and _word(action)):
        raise ValueError(f"bad custom_id fields {(kind, action)!r}")
    return f"t:{kind}:{action}:"


@functools.lru_cache(maxsize=4096)
def _ids(channel_id: int, game: int, stamp: int) -> str:
    """'<channel>:<game>:<stamp>', once the three are checked as CUSTOM_ID reads them."""
    if not (0 <= channel_id <= MAX_ID and 0 <= game < 10**9 and 0 <= stamp < 10**10):
        raise ValueError(f"bad custom_id fields {(channel_id, game, stamp)!r}")
    return f"{channel_id}:{game}:{stamp}"


def _word(text: str) -> bool:
    """[a-z]{1,12}, as CUSTOM_ID reads a game kind or an action."""
    return 0 < len(text) <= 12 and text.isascii() and text.isalpha() and text.islower()


class Option(NamedTuple):
    """One choice of a select: what it says, the value its click carries, its picture."""

    label: str
    value: str
    emoji: discord.PartialEmoji | None = None


@dataclass(slots=True)
class TableItem:
    """A button, or a single-choice select when it has a placeholder, as plain data: its
    custom_id carries everything a click needs, so no discord.ui object is built to send it
    or to receive its clicks (`GameBot.on_interaction` takes them all). Treat it as frozen
    (`dataclasses.replace` makes a changed one); it is not declared so only because a frozen
    dataclass is four times slower to build, and a table builds a dozen per move. A button is
    built with its six fields given in order: twice as fast as naming them."""

    custom_id: str
    label: str = ""
    style: int = discord.ButtonStyle.secondary.value
    disabled: bool = False
    row: int | None = None
    emoji: discord.PartialEmoji | None = None  # a button's picture
    placeholder: str | None = None
    options: tuple[Option, ...] = ()
    min_values: int = 1
    max_values: int = 1

    @property
    def width(self) -> int:
        """How much of an action row it takes (Discord: five buttons, or one select)."""
        return 1 if self.placeholder is None else 5

    def to_dict(self) -> dict[str, Any]:
        """The component as Discord's API takes it."""
        if self.placeholder is None:
            button: dict[str, Any] = {
                "type": 2,
                "style": self.style,
                "label": self.label,
                "custom_id": self.custom_id,
                "disabled": self.disabled,
            }
            if self.emoji is not None:
                button["emoji"] = self.emoji.to_dict()
            return button
        options = []
        for o in self.options:
            option: dict[str, Any] = {"label": o.label, "value": o.value}
            if o.emoji is not None:
                option["emoji"] = o.emoji.to_dict()
            options.append(option)
        return {
            "type": 3,
            "custom_id": self.custom_id,
            "placeholder": self.placeholder,
            "min_values": self.min_values,
            "max_values": self.max_values,
            "options": options,
            "disabled": self.disabled,
        }


def button(
    kind: str,
    action: str,
    channel_id: int,
    game: int,
    stamp: int,
    label: str,
    *,
    arg: object = None,
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    disabled: bool = False,
    row: int | None = None,
    emoji: discord.PartialEmoji | None = None,
) -> TableItem:
    return TableItem(
        custom_id(kind, action, channel_id, game, stamp, arg),
        unbidi(label)[:80],
        style.value,
        disabled,
        row,
        emoji,
    )


def select(
    kind: str,
    action: str,
    channel_id: int,
    game: int,
    stamp: int,
    options: list[tuple[str, str]] | list[tuple[str, str, discord.PartialEmoji | None]],
    *,
    placeholder: str,
    arg: object = None,
) -> TableItem:
    """A single-choice select; `options` are (label, value) pairs, or (label, value, emoji)
    with a picture, at most 25."""
    return TableItem(
        custom_id=custom_id(kind, action, channel_id, game, stamp, arg),
        placeholder=unbidi(placeholder)[:150],
        options=tuple(
            Option(unbidi(o[0])[:100], o[1], o[2] if len(o) > 2 else None)
            for o in options
        ),
    )


def action_rows(items: list[TableItem]) -> list[dict[str, Any]]:
    """Discord's action rows for `items`, laid out as discord.ui.View lays them out: an item
    with a row goes there, the others into the first row with room for them."""
    rows: list[list[dict[str, Any]]] = [[], [], [], [], []]
    used = [0, 0, 0, 0, 0]  # how much of each row is taken
    for item in items:
        width = 1 if item.placeholder is None else 5
        index = item.row
        if index is None:
            index = 0
            while index < 5 and used[index] + width > 5:
                index += 1
        if index > 4 or used[index] + width > 5:
            raise ValueError(f"no room in row {item.row} for {item.custom_id}")
        used[index] += width
        rows[index].append(item.to_dict())
    return [{"type": 1, "components": row} for row in rows if row]


class Components(discord.ui.View):
    """A message's components, built once from data: discord.py sends what `to_components`
    returns, and since the view holds no items it stores nothing to dispatch (clicks reach
    `GameBot.on_interaction` by their custom_id)."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        super().__init__(timeout=None)
        self.rows = rows

    def to_components(self) -> list[dict[str, Any]]:
        return self.rows


def view_of(items: list[TableItem]) -> Components:
    """The components of a message showing `items` (none: the message loses its buttons)."""
    return Components(action_rows(items))
