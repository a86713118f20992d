"""Reading numbers out of text a client sent (custom_id arguments, select values).

Only ASCII digits count: `str.isdigit()` accepts Unicode digits such as "²", which `int()`
then refuses, and `int()` itself accepts "٣", spaces and underscores."""

from __future__ import annotations


def is_number(text: str | None) -> bool:
    """True when `text` is one or more ASCII digits and nothing else."""
    return bool(text) and text.isascii() and text.isdigit()  # type: ignore[union-attr]


def number(text: str | None) -> int | None:
    """The non-negative whole number `text` spells in ASCII digits, else None."""
    return int(text) if is_number(text) else None  # type: ignore[arg-type]
