"""What a roll of two dice is worth, what may be declared, and the table's nicknames.

A value is one int whose order is the game's ranking: non-doubles below 100 (their pip
total, or in the two-digit variant the number read high die first), doubles 101-106, and
Kuriki (1-2) 200, which is never declared because it is shown at once."""

from __future__ import annotations

KURIKI = 200
DOUBLE_BASE = 100

NICKNAMES: dict[int, str] = {
    KURIKI: "Kuriki",
    106: "Boxcars",
    105: "the Mime",
    104: "Walnuts",
    103: "Scouts",
    102: "Nixons",
    101: "Snake-Eyes",
}
DOUBLE_NAMES = {
    106: "Double-Six",
    105: "Double-Five",
    104: "Double-Four",
    103: "Double-Three",
    102: "Double-Two",
    101: "Double-One",
}


def roll_value(a: int, b: int, two_digit: bool) -> int:
    """The most an honest declaration of this roll can be."""
    lo, hi = sorted((a, b))
    if (lo, hi) == (1, 2):
        return KURIKI
    if lo == hi:
        return DOUBLE_BASE + lo
    return hi * 10 + lo if two_digit else lo + hi


def is_kuriki(a: int, b: int) -> bool:
    return sorted((a, b)) == [1, 2]


def declarable(two_digit: bool) -> list[int]:
    """Every value that may be declared, lowest first (Kuriki never is)."""
    if two_digit:
        plain = sorted(
            10 * x + y for x in range(1, 7) for y in range(1, 7) if x != y and {x, y} != {1, 2}
        )
    else:
        plain = list(range(4, 12))
    return plain + [DOUBLE_BASE + d for d in range(1, 7)]


def legal_declarations(two_digit: bool, minimum: int | None) -> list[int]:
    """What the Roller may declare: anything on a fresh roll, at least `minimum` on a point."""
    return [v for v in declarable(two_digit) if minimum is None or v >= minimum]


def name(value: int) -> str:
    """How the table says a value: 'Double-Six (Boxcars)', '43', '9', 'Kuriki'."""
    if value == KURIKI:
        return "Kuriki"
    if value > DOUBLE_BASE:
        return f"{DOUBLE_NAMES[value]} ({NICKNAMES[value]})"
    return str(value)


def dice_text(dice: tuple[int, int] | list[int]) -> str:
    return f"{dice[0]}-{dice[1]}"
