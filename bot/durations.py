"""Lengths of time as people write them: "90", "90s", "10 min", "12h", "1d12h", "3 days".

A turn of a game played over days lasts hours or days, which nobody should have to count in
seconds (`/config timer time:3d`, `/farkle start timer:1d`). `seconds` reads such a text
into whole seconds; the settings accept it wherever they take a length (bot/settings.py),
so a config file may say `turn_timer = "12h"` too. `length_choices` offers the common
lengths in the reader's language, with what they typed read back first."""

from __future__ import annotations

import contextlib
import re

from bot.i18n import _, one_unit

#: One week: the longest turn and the longest a lobby waits (a family's game over days).
WEEK = 7 * 86400

#: Each unit a length may be written in, by its words (English, short and long).
_UNITS: dict[str, int] = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600),
    **dict.fromkeys(("d", "day", "days"), 86400),
    **dict.fromkeys(("w", "wk", "week", "weeks"), WEEK),
}
#: Words that mean no timer.
_OFF = {"0", "off", "none", "no"}
_PART = re.compile(r"(\d{1,7})\s*([a-z]*)")

#: The lengths offered in the list of a length option, in seconds (0: off).
TIMER_CHOICES = (0, 60, 120, 300, 600, 3600, 4 * 3600, 12 * 3600, 86400, 3 * 86400, WEEK)
LOBBY_CHOICES = (300, 900, 3600, 12 * 3600, 86400, 3 * 86400, WEEK)


class BadLength(ValueError):
    """A text that is no length; its message says how to write one, in the reader's language."""


def seconds(text: str) -> int:
    """The length `text` says, in whole seconds: a bare number is seconds ("90"), else
    numbers each followed by a unit ("10m", "1 h", "1d12h", "2 days 6 hours"); "off" and
    "0" are 0. Raises BadLength for anything else."""
    words = text.strip().lower()
    if words in _OFF:
        return 0
    if words.isascii() and words.isdigit() and len(words) <= 7:
        return int(words)
    total, at = 0, 0
    compact = words.replace(",", " ").replace(" and ", " ")
    for found in _PART.finditer(compact):
        if compact[at : found.start()].strip() or found.group(2) not in _UNITS:
            raise BadLength(_how())
        total += int(found.group(1)) * _UNITS[found.group(2)]
        at = found.end()
    if at == 0 or compact[at:].strip() or not compact.isascii():
        raise BadLength(_how())
    return total


def _how() -> str:
    return _(
        "That is not a length of time I can read: write it like 90s, 10m, 12h, 1d or 1d12h, "
        "or pick one from the list."
    )


def length_words(length: int) -> str:
    """A length as the settings show it: "off" for 0, else in the unit it reads best in."""
    return one_unit(length) if length else _("off")


def length_choices(typed: str, offered: tuple[int, ...]) -> list[tuple[str, str]]:
    """What a length option's list shows, as (words, value): what was typed, read back
    ("1d12h" shows "36 hours") when it is a length, then the `offered` lengths whose words
    or value start like it, in the current language."""
    options: list[tuple[str, str]] = []
    text = typed.strip()
    if text:
        with contextlib.suppress(BadLength):
            options.append((length_words(seconds(text)), text))
    lowered = text.lower()
    for length in offered:
        words, value = length_words(length), _token(length)
        like = not lowered or words.lower().startswith(lowered) or value.startswith(lowered)
        if like and all(v != value for _w, v in options):
            options.append((words, value))
    return options[:25]


def _token(length: int) -> str:
    """The short form of an offered length ("3d", "12h", "10m", "off")."""
    if not length:
        return "off"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if length % size == 0:
            return f"{length // size}{unit}"
    return f"{length}s"
