"""Words every game writes the same way."""

from __future__ import annotations


def counted(n: int, one: str, many: str | None = None) -> str:
    """A count with its noun agreeing: '1 card', '2 cards', '1 life', '5 lives' (`many`
    when the plural is not `one` + 's')."""
    return f"{n} {one if n == 1 else many or one + 's'}"
