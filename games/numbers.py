"""Reading numbers out of text a client sent (custom_id arguments, select values).

Only ASCII digits count: `str.isdigit()` accepts Unicode digits such as "²", which `int()`
then refuses, and `int()` itself accepts "٣", spaces and underscores. And only numbers a
database column can hold: SQLite's INTEGER and PostgreSQL's bigint are signed 64-bit, so a
larger id (a forged button's 25 digits) is no number of anything, not an overflow."""

from __future__ import annotations

#: The largest id a database column holds (signed 64-bit); every Discord id is below it.
MAX_ID = 2**63 - 1


def is_number(text: str | None) -> bool:
    """True when `text` is ASCII digits and nothing else, spelling at most `MAX_ID`."""
    return number(text) is not None


def number(text: str | None) -> int | None:
    """The non-negative whole number `text` spells in ASCII digits, at most `MAX_ID`; else
    None."""
    if not text or len(text) > 19 or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= MAX_ID else None


def fits(value: object) -> bool:
    """Whether `value` is a whole number (not a bool) a database column can hold."""
    return type(value) is int and -MAX_ID - 1 <= value <= MAX_ID
