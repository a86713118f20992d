"""Buttons and selects that survive restarts: everything lives in the custom_id, and one
DynamicItem receives every component click, including forged or unknown ones."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

if TYPE_CHECKING:
    from bot.app import GameBot

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
        m = CUSTOM_ID.fullmatch(custom_id)
        if m is None:
            return None
        return cls(
            kind=m["kind"],
            action=m["action"],
            channel_id=int(m["channel"]),
            game=int(m["game"]),
            stamp=int(m["stamp"]),
            arg=m["arg"],
            values=values,
        )


def custom_id(
    kind: str, action: str, channel_id: int, game: int, stamp: int, arg: object = None
) -> str:
    cid = f"t:{kind}:{action}:{channel_id}:{game}:{stamp}" + ("" if arg is None else f":{arg}")
    if CUSTOM_ID.fullmatch(cid) is None:  # a bug in a renderer, never user input
        raise ValueError(f"bad custom_id {cid!r}")
    return cid


class TableItem(discord.ui.DynamicItem[discord.ui.Item[Any]], template=r"(?s).*"):
    """Receives every component interaction the bot gets and hands it to the bot."""

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TableItem:
        return cls(item)

    async def callback(self, interaction: discord.Interaction[GameBot]) -> None:  # type: ignore[override]
        data: dict[str, Any] = interaction.data or {}  # type: ignore[assignment]
        values = tuple(str(v) for v in data.get("values", ()))
        await interaction.client.on_component(interaction, str(data.get("custom_id", "")), values)


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
        discord.ui.Button(
            label=label[:80],
            style=style,
            disabled=disabled,
            custom_id=custom_id(kind, action, channel_id, game, stamp, arg),
            row=row,
            emoji=emoji,
        )
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
        discord.ui.Select(
            custom_id=custom_id(kind, action, channel_id, game, stamp, arg),
            placeholder=placeholder[:150],
            min_values=1,
            max_values=1,
            options=[
                discord.SelectOption(
                    label=o[0][:100], value=o[1], emoji=o[2] if len(o) > 2 else None
                )
                for o in options
            ],
        )
    )


def view_of(items: list[TableItem]) -> discord.ui.View:
    """A persistent view (no timeout) holding only restart-safe items."""
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view
