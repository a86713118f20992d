"""What a roll of two dice is worth, what may be declared, and the table's nicknames.

A value is one int whose order is the game's ranking: non-doubles below 100 (their pip
total, or in the two-digit variant the number read high die first), doubles 101-106, and
Kuriki (1-2) 200, which is never declared because it is shown at once."""

from __future__ import annotations

from games.text import Line, M, Msg

KURIKI = 200
DOUBLE_BASE = 100

# Translators: the roll nicknames are the game's jargon (Boxcars, the Mime, Walnuts,
# Scouts, Nixons, Snake-Eyes): keep them, or use your language's own nickname for the roll
# where there is a natural one.
NICKNAMES: dict[int, Msg] = {
    # Translators: the game's name and its best roll (1-2): a proper noun, keep it.
    KURIKI: M("Kuriki"),
    # Translators: nickname of a double six (the game's jargon: keep it or use your own).
    106: M("Boxcars"),
    # Translators: nickname of a double five (the game's jargon: keep it or use your own).
    105: M("the Mime"),
    # Translators: nickname of a double four (the game's jargon: keep it or use your own).
    104: M("Walnuts"),
    # Translators: nickname of a double three (the game's jargon: keep it or use your own).
    103: M("Scouts"),
    # Translators: nickname of a double two (the game's jargon: keep it or use your own).
    102: M("Nixons"),
    # Translators: nickname of a double one (the game's jargon: keep it or use your own).
    101: M("Snake-Eyes"),
}
DOUBLE_NAMES: dict[int, Msg] = {
    106: M("Double-Six"),
    105: M("Double-Five"),
    104: M("Double-Four"),
    103: M("Double-Three"),
    102: M("Double-Two"),
    101: M("Double-One"),
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


def name(value: int) -> Line:
    """How the table says a value: 'Double-Six (Boxcars)', '43', '9', 'Kuriki': a message for
    a named roll (each language says it its own way), the digits for the others."""
    if value == KURIKI:
        return NICKNAMES[KURIKI]
    if value > DOUBLE_BASE:
        # Translators: a double and its nickname, e.g. "Double-Six (Boxcars)".
        return M("{double} ({nickname})", double=DOUBLE_NAMES[value], nickname=NICKNAMES[value])
    return str(value)


def dice_text(dice: tuple[int, int] | list[int]) -> str:
    return f"{dice[0]}-{dice[1]}"
