"""Lengths of time as people write them (bot/durations.py): what each reads as, what is
refused, and the list a length option offers, in the reader's language."""

from __future__ import annotations

import pytest

from bot.durations import LOBBY_CHOICES, TIMER_CHOICES, WEEK, BadLength, length_choices, seconds
from bot.i18n import one_unit, speaking


@pytest.mark.parametrize(
    ("text", "length"),
    [
        ("90", 90),
        ("90s", 90),
        ("10m", 600),
        ("10 min", 600),
        ("1 h", 3600),
        ("12h", 12 * 3600),
        ("1d", 86400),
        ("3d", 3 * 86400),
        ("1d12h", 36 * 3600),
        ("1d 12h", 36 * 3600),
        ("2 days, 6 hours", 54 * 3600),
        ("1 day and 1 hour", 25 * 3600),
        ("7 DAYS", WEEK),
        ("1w", WEEK),
        ("off", 0),
        ("0", 0),
    ],
)
def test_a_length_reads_as_people_write_it(text: str, length: int) -> None:
    assert seconds(text) == length


@pytest.mark.parametrize(
    "text", ["", "soon", "d", "10x", "1.5h", "-1d", "1d h", "h1", "１d", "12345678", "1d x"]
)
def test_anything_else_is_refused_saying_how_to_write_one(text: str) -> None:
    with pytest.raises(BadLength, match="90s, 10m, 12h, 1d or 1d12h"):
        seconds(text)


@pytest.mark.parametrize(
    ("length", "words"),
    [(90, "90 seconds"), (600, "10 minutes"), (3600, "1 hour"), (12 * 3600, "12 hours"),
     (86400, "1 day"), (36 * 3600, "36 hours"), (3 * 86400, "3 days"), (WEEK, "7 days")],
)  # fmt: skip
def test_a_length_is_shown_in_the_unit_it_reads_best_in(length: int, words: str) -> None:
    assert one_unit(length) == words


def test_the_list_reads_back_what_was_typed_then_the_common_lengths() -> None:
    assert length_choices("1d12h", TIMER_CHOICES)[0] == ("36 hours", "1d12h")
    offered = length_choices("", TIMER_CHOICES)
    assert ("off", "off") in offered and ("7 days", "7d") in offered
    assert all(seconds(value) in TIMER_CHOICES for _words, value in offered)
    assert [v for _w, v in length_choices("3", LOBBY_CHOICES)] == ["3", "3d"]
    assert length_choices("what", TIMER_CHOICES) == []
    with speaking("de"):
        assert ("3 Tage", "3d") in length_choices("", TIMER_CHOICES)
