"""Text that may outgrow an embed field once it is translated. Discord refuses a field over
1,024 characters, and a translation runs up to a third longer than its English: what an
adapter puts in a field is fitted after it is translated, in whole lines (the rules paged
over as many fields as they need, a log window keeping its newest lines), never cut in
the middle of a sentence (tests/bot/test_limits_in_every_language.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import discord

from bot.i18n import current, reads_markdown, render
from games.text import Line

FIELD_LIMIT = 1024
#: The name of a field that continues the one above it: Discord wants a name, a blank one
#: reads as the same list going on.
CONTINUED = "\u200b"


def add_paged(embed: discord.Embed, name: str, lines: Iterable[str]) -> None:
    """`lines` (translated already) as fields of whole lines, each within a field's 1,024
    characters: the first named `name`, the ones that continue it blank."""
    for i, part in enumerate(pages(lines)):
        embed.add_field(name=name if i == 0 else CONTINUED, value=part, inline=False)


def pages(lines: Iterable[str], limit: int = FIELD_LIMIT) -> list[str]:
    """`lines` joined into as few texts of whole lines within `limit` as they fill (a
    single line longer than that is cut)."""
    parts: list[str] = []
    for line in lines:
        line = cut(line, limit)
        if parts and len(parts[-1]) + 1 + len(line) <= limit:
            parts[-1] += "\n" + line
        else:
            parts.append(line)
    return parts


#: Log windows already written (`newest`), by the language, whether markdown is read, the
#: limit and the lines' ids; each kept with its lines and language, so none of their ids is
#: reused while it is here. A table shows the same window again after a tap that logs
#: nothing, and the working copies of a game share their lines (games/copies.py).
_windows: dict[tuple[object, ...], tuple[tuple[Line, ...], object, str]] = {}
_WINDOWS_KEPT = 512


def newest(lines: Sequence[Line], limit: int = FIELD_LIMIT) -> str:
    """A log window for one field: its newest lines, each in the current language, as many
    whole lines as fit in `limit` (the oldest go first)."""
    language = current()
    key = (id(language), reads_markdown(), limit, *map(id, lines))
    hit = _windows.get(key)
    if hit is not None:
        return hit[2]
    text = _window(lines, limit)
    if len(_windows) >= _WINDOWS_KEPT:
        _windows.clear()
    _windows[key] = (tuple(lines), language, text)
    return text


def _window(lines: Sequence[Line], limit: int) -> str:
    kept: list[str] = []
    size = -1
    for line in reversed(lines):
        text = cut(render(line), limit)
        size += len(text) + 1
        if kept and size > limit:
            break
        kept.append(text)
    return "\n".join(reversed(kept))


def without_game_over(lines: Sequence[Line]) -> list[Line]:
    """A finished table's log without the engine's "Game over: …" lines: the table says who
    won (or why nobody did) once, above the log, and not again in it."""
    return [line for line in lines if not _key(line).startswith("Game over:")]


def _key(line: Line) -> str:
    """A log line's English source (a game saved before messages kept the English text)."""
    return line if isinstance(line, str) else line.k


def cut(text: str, limit: int) -> str:
    """`text`, or as much of it as fits in `limit` with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
