"""What the table shows of away players (bot/away.py): who is away until when, the pause,
and the buttons to come back, agree to a pause or resume."""

from __future__ import annotations

import discord

from bot.components import TableItem, action_rows, button
from bot.i18n import _, listed
from bot.sessions import Session
from bot.tables.base import Rendered

#: The custom_id kind of the away buttons (`t:away:<action>:<channel>:<game>:0`).
AWAY_KIND = "away"
BACK, PAUSE, AGREE, RESUME = "back", "pause", "agree", "resume"


def when(at: float) -> str:
    """A moment as Discord shows it in each reader's own time zone."""
    return f"<t:{int(at)}:f>"


def mark_table(rendered: Rendered, session: Session, now: float) -> Rendered:
    """The table with who is away until when, the pause, and the buttons to come back,
    agree to a pause or resume (those that fit beside the game's own)."""
    book = session.away
    away = {p: a for p, a in book.away.items() if a.until > now}
    pause = book.pause if book.pause is not None and book.pause.until > now else None
    if not away and pause is None:
        return rendered
    lines = [
        _("💤 {name}: away until {when}", name=a.name, when=when(a.until)) for a in away.values()
    ]
    buttons = []
    if away:
        buttons.append((BACK, _("I'm back"), discord.ButtonStyle.primary))
    if pause is not None and pause.on:
        lines.append(_("⏸️ The game is paused until {when}.", when=when(pause.until)))
        buttons.append((RESUME, _("Resume"), discord.ButtonStyle.secondary))
    elif pause is not None:
        seats = {p.id: p.name for p in session.lobby.players}
        lines.append(
            _(
                "{name} asks to pause the game until {when}. Agreed so far: {names}.",
                name=seats.get(pause.asked_by, "?"),
                when=when(pause.until),
                names=listed(seats.get(p, "?") for p in pause.agreed),
            )
        )
        buttons.append((AGREE, _("Agree to pause"), discord.ButtonStyle.success))
    if len(rendered.embed.fields) < 25:
        rendered.embed.add_field(name=_("Away"), value="\n".join(lines)[:1024], inline=False)
    for action, label, style in buttons:
        item = button(AWAY_KIND, action, session.channel_id, session.game_id, 0, label, style=style)
        if _fits([*rendered.items, item]):
            rendered.items.append(item)
    return rendered


def _fits(items: list[TableItem]) -> bool:
    """Whether the items fit a message's five action rows."""
    try:
        action_rows(items)
    except (StopIteration, ValueError):
        return False
    return True
