"""What a Kuriki roll is worth, what may be declared and how the table names it."""

from __future__ import annotations

import itertools

import pytest

from games.kuriki.values import (
    DOUBLE_BASE,
    KURIKI,
    declarable,
    dice_text,
    is_kuriki,
    legal_declarations,
    name,
    roll_value,
)

ALL_ROLLS = list(itertools.product(range(1, 7), repeat=2))


def reference_rank(a: int, b: int, two_digit: bool) -> tuple[int, int]:
    """An independent ranking key: (class, number); a higher tuple ranks higher."""
    lo, hi = sorted((a, b))
    if (lo, hi) == (1, 2):
        return (3, 0)
    if lo == hi:
        return (2, lo)
    return (1, hi * 10 + lo if two_digit else lo + hi)


# --------------------------------------------------------------------------- ranking


def test_standard_ranking_highest_first() -> None:
    ladder = [
        (1, 2),  # Kuriki
        (6, 6),
        (5, 5),
        (4, 4),
        (3, 3),
        (2, 2),
        (1, 1),
        (5, 6),  # 11
        (4, 6),  # 10
        (3, 6),  # 9
        (2, 6),  # 8
        (1, 6),  # 7
        (1, 5),  # 6
        (1, 4),  # 5
        (1, 3),  # 4, the lowest roll
    ]
    values = [roll_value(a, b, two_digit=False) for a, b in ladder]
    assert values == sorted(values, reverse=True)
    assert len(set(values)) == len(values)
    assert values[0] == KURIKI
    assert values[1:7] == [106, 105, 104, 103, 102, 101]
    assert values[7:] == [11, 10, 9, 8, 7, 6, 5, 4]


def test_two_digit_ranking_highest_first() -> None:
    values = [
        roll_value(1, 2, True),
        *(roll_value(d, d, True) for d in (6, 5, 4, 3, 2, 1)),
        roll_value(6, 5, True),
        roll_value(6, 4, True),
        roll_value(5, 4, True),
        roll_value(4, 3, True),
        roll_value(3, 1, True),
    ]
    assert values == [KURIKI, 106, 105, 104, 103, 102, 101, 65, 64, 54, 43, 31]
    # Double-One beats the best non-double, 65.
    assert roll_value(1, 1, True) > roll_value(6, 5, True)
    # The lowest declarable value is 13; nothing the dice can show is below 31 honestly.
    assert min(declarable(True)) == 13
    assert min(roll_value(a, b, True) for a, b in ALL_ROLLS) == 31


@pytest.mark.parametrize("two_digit", [False, True])
def test_every_roll_ranks_like_the_reference(two_digit: bool) -> None:
    for (a, b), (c, d) in itertools.product(ALL_ROLLS, repeat=2):
        ours = roll_value(a, b, two_digit) > roll_value(c, d, two_digit)
        ref = reference_rank(a, b, two_digit) > reference_rank(c, d, two_digit)
        assert ours == ref, ((a, b), (c, d))


@pytest.mark.parametrize("two_digit", [False, True])
def test_order_of_the_dice_does_not_matter(two_digit: bool) -> None:
    for a, b in ALL_ROLLS:
        assert roll_value(a, b, two_digit) == roll_value(b, a, two_digit)


def test_pip_totals_tie_in_the_standard_game() -> None:
    assert roll_value(3, 4, False) == roll_value(2, 5, False) == roll_value(1, 6, False) == 7
    assert roll_value(2, 6, False) == roll_value(3, 5, False) == 8


# --------------------------------------------------------------------------- honest maximum


@pytest.mark.parametrize(
    ("dice", "standard", "two_digit"),
    [
        ((3, 4), 7, 43),
        ((4, 3), 7, 43),
        ((6, 5), 11, 65),
        ((1, 3), 4, 31),
        ((1, 6), 7, 61),
        ((2, 6), 8, 62),
        ((6, 6), 106, 106),
        ((1, 1), 101, 101),
        ((1, 2), KURIKI, KURIKI),
        ((2, 1), KURIKI, KURIKI),
    ],
)
def test_honest_maximum(dice: tuple[int, int], standard: int, two_digit: int) -> None:
    assert roll_value(*dice, two_digit=False) == standard
    assert roll_value(*dice, two_digit=True) == two_digit


def test_a_three_four_may_be_declared_43_or_anything_lower() -> None:
    best = roll_value(3, 4, True)
    honest = [v for v in declarable(True) if v <= best]
    assert 43 in honest and 34 in honest and 42 in honest and 13 in honest
    assert 45 not in honest and 51 not in honest and 101 not in honest
    assert honest == [v for v in declarable(True) if v < 45]


def test_is_kuriki() -> None:
    kurikis = [(a, b) for a, b in ALL_ROLLS if is_kuriki(a, b)]
    assert kurikis == [(1, 2), (2, 1)]


# --------------------------------------------------------------------------- declarations


def test_declarable_standard() -> None:
    assert declarable(False) == [4, 5, 6, 7, 8, 9, 10, 11, 101, 102, 103, 104, 105, 106]


def test_declarable_two_digit() -> None:
    values = declarable(True)
    assert values == sorted(values) and len(set(values)) == len(values)
    plain = [v for v in values if v < DOUBLE_BASE]
    assert len(plain) == 28  # 30 ordered pairs of different dice, less 12 and 21
    assert 12 not in values and 21 not in values and KURIKI not in values
    assert not any(v % 11 == 0 for v in plain)  # no 11, 22, ...: doubles are 101-106
    assert all(1 <= v // 10 <= 6 and 1 <= v % 10 <= 6 for v in plain)
    assert values[-6:] == [101, 102, 103, 104, 105, 106]
    assert plain[0] == 13 and plain[-1] == 65


@pytest.mark.parametrize("two_digit", [False, True])
def test_every_roll_but_kuriki_can_be_declared_honestly(two_digit: bool) -> None:
    values = set(declarable(two_digit))
    shown = {roll_value(a, b, two_digit) for a, b in ALL_ROLLS}
    assert shown - values == {KURIKI}


def test_standard_declarations_are_exactly_what_dice_show() -> None:
    shown = {roll_value(a, b, False) for a, b in ALL_ROLLS} - {KURIKI}
    assert shown == set(declarable(False))


@pytest.mark.parametrize("two_digit", [False, True])
def test_fresh_roll_may_declare_anything(two_digit: bool) -> None:
    assert legal_declarations(two_digit, None) == declarable(two_digit)


@pytest.mark.parametrize(
    ("two_digit", "minimum", "expected"),
    [
        (False, 9, [9, 10, 11, 101, 102, 103, 104, 105, 106]),
        (False, 4, [4, 5, 6, 7, 8, 9, 10, 11, 101, 102, 103, 104, 105, 106]),
        (False, 103, [103, 104, 105, 106]),
        (False, 106, [106]),
        (True, 61, [61, 62, 63, 64, 65, 101, 102, 103, 104, 105, 106]),
        (True, 54, [54, 56, 61, 62, 63, 64, 65, 101, 102, 103, 104, 105, 106]),
        (True, 106, [106]),
    ],
)
def test_point_declarations_at_least_the_previous(
    two_digit: bool, minimum: int, expected: list[int]
) -> None:
    assert legal_declarations(two_digit, minimum) == expected
    assert minimum in legal_declarations(two_digit, minimum)  # equal is allowed


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (KURIKI, "Kuriki"),
        (106, "Double-Six (Boxcars)"),
        (105, "Double-Five (the Mime)"),
        (104, "Double-Four (Walnuts)"),
        (103, "Double-Three (Scouts)"),
        (102, "Double-Two (Nixons)"),
        (101, "Double-One (Snake-Eyes)"),
        (11, "11"),
        (4, "4"),
        (43, "43"),
        (13, "13"),
    ],
)
def test_names(value: int, text: str) -> None:
    assert str(name(value)) == text


def test_every_declarable_value_has_a_name() -> None:
    for two_digit in (False, True):
        for value in declarable(two_digit):
            if value < DOUBLE_BASE:
                assert name(value) == str(value)
            else:
                said = str(name(value))
                assert said.startswith("Double-") and said.endswith(")")


def test_dice_text() -> None:
    assert dice_text((3, 4)) == "3-4"
    assert dice_text([6, 1]) == "6-1"
