"""What an adapter puts in an embed field (bot/tables/fields.py): a log window of whole
lines within the field's limit, written again for each language and each kind of place,
however often the same window was shown before."""

from __future__ import annotations

from bot.i18n import plain_text, speaking
from bot.tables import fields
from bot.tables.fields import newest
from games.text import M, Mn


def test_a_log_window_keeps_its_newest_whole_lines() -> None:
    lines = [
        M("{name} banks {points} (total {total})", name="Ann", points=n, total=n)
        for n in range(40)
    ]
    window = newest(lines, limit=120)
    assert window.split("\n")[-1] == "Ann banks 39 (total 39)"
    assert len(window) <= 120 and not window.startswith("\n")
    assert newest(lines, limit=1024).count("\n") == 39


def test_the_same_window_is_written_for_each_language_and_place() -> None:
    """A window shown before (a tap that logs nothing shows it again) is the same text, and
    another language, text that reads no markdown, or one more line is never mistaken for
    it."""
    lines = [
        M("{name} banks {points} (total {total})", name="**b**", points=1500, total=3000),
        Mn(
            "{name} piggybacks on {points} with {n} die.",
            "{name} piggybacks on {points} with {n} dice.",
            2,
            name="Cy",
            points=300,
        ),
    ]
    english = newest(lines)
    assert english == newest(list(lines)) == (
        "\\*\\*b\\*\\* banks 1,500 (total 3,000)\nCy piggybacks on 300 with 2 dice."
    )
    with speaking("de"):
        german = newest(lines)
    assert german != english and "1.500" in german
    with plain_text():
        assert newest(lines).startswith("**b** banks 1,500")
    more = [*lines, M("{name} {die}", name="Ann", die="5")]
    assert newest(more).endswith("\nAnn 5")
    assert newest(lines) == english


def test_the_windows_kept_are_bounded() -> None:
    for n in range(fields._WINDOWS_KEPT + 10):
        assert newest([M("{name} {die}", name="Ann", die=str(n))]) == f"Ann {n}"
        assert len(fields._windows) <= fields._WINDOWS_KEPT
