"""custom_id is checked field by field (no regex per button); what it accepts is exactly
what `Click.parse` reads back, and it refuses everything else (a channel id a database
cannot hold, too)."""

from __future__ import annotations

import random
import string

import pytest

from bot.components import Click, action_rows, button, custom_id, select
from games.numbers import MAX_ID, is_number, number


def test_custom_id_accepts_exactly_what_the_parser_reads() -> None:
    rng = random.Random(1)
    letters = string.ascii_lowercase + "AZ1é"
    accepted = refused = 0
    for _ in range(5000):
        kind = "".join(rng.choice(letters) for _ in range(rng.randint(0, 13)))
        action = "".join(rng.choice(letters) for _ in range(rng.randint(0, 13)))
        arg = rng.choice(
            [
                None,
                "".join(
                    rng.choice(string.ascii_letters + "09_-:é ") for _ in range(rng.randint(0, 31))
                ),
            ]
        )
        channel = rng.choice([0, 5, MAX_ID, MAX_ID + 1, 10**19, 10**20])
        game = rng.choice([0, 10**9 - 1, 10**9])
        stamp = rng.choice([0, 10**10 - 1, 10**10])
        written = f"t:{kind}:{action}:{channel}:{game}:{stamp}" + ("" if arg is None else f":{arg}")
        try:
            made = custom_id(kind, action, channel, game, stamp, arg)
        except ValueError:
            assert Click.parse(written) is None, written
            refused += 1
        else:
            assert made == written and Click.parse(made) is not None
            accepted += 1
    assert accepted > 100 and refused > 100


def test_numbers_from_clients_are_ascii_digits_a_database_can_hold() -> None:
    assert number(str(MAX_ID)) == MAX_ID and is_number("0") and number("007") == 7
    for text in (str(MAX_ID + 1), "9" * 20, "1" * 25, "9" * 30, "", None, "²", "٣", " 1", "1_0", "-1"):
        assert number(text) is None and not is_number(text), text
    assert Click.parse(f"t:hist:list:{MAX_ID}:0:0:1-all") is not None
    assert Click.parse(f"t:hist:list:{MAX_ID + 1}:0:0:1-all") is None


def test_components_are_laid_out_as_discord_ui_would() -> None:
    """Items without a row fill the first row with room (five buttons, or one select)."""
    buttons = [button("farkle", "toggle", 1, 2, 3, str(i), arg=f"{i}-on") for i in range(6)]
    menu = select("crap", "score", 1, 2, 3, [("Score Kings", "13-4")], placeholder="Score…")
    rows = action_rows([*buttons, menu, button("farkle", "bank", 1, 2, 3, "Bank", row=4)])
    assert [len(r["components"]) for r in rows] == [5, 1, 1, 1]
    assert rows[2]["components"][0]["type"] == 3 and rows[3]["components"][0]["label"] == "Bank"
    with pytest.raises(ValueError):
        action_rows(
            [
                button("farkle", "bank", 1, 2, 3, "B", row=0),
                menu.__class__(custom_id=menu.custom_id, placeholder="x", row=0),
            ]
        )
