"""custom_id is checked field by field (no regex per button); what it accepts is exactly
what `CUSTOM_ID` parses back, and it refuses everything else."""

from __future__ import annotations

import random
import string

import pytest

from bot.components import CUSTOM_ID, Click, action_rows, button, custom_id, select


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
        channel = rng.choice([0, 5, 10**19, 10**20])
        game = rng.choice([0, 10**9 - 1, 10**9])
        stamp = rng.choice([0, 10**10 - 1, 10**10])
        written = f"t:{kind}:{action}:{channel}:{game}:{stamp}" + ("" if arg is None else f":{arg}")
        try:
            made = custom_id(kind, action, channel, game, stamp, arg)
        except ValueError:
            assert CUSTOM_ID.fullmatch(written) is None, written
            refused += 1
        else:
            assert made == written and Click.parse(made) is not None
            accepted += 1
    assert accepted > 100 and refused > 100


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
