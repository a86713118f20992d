"""The cup's hidden-information check must be able to fail: a cup message that shows the
dice under the cup (in the press that rolled them, or later disguised as a pull's result)
fails the game at that press, naming the request and the text; so does a line showing them
in the game's stored log (its history)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from bot.tables.kuriki import KurikiTable
from tests.e2e.harness import ALICE, BOB, CAROL, TABLE, Driver
from tests.e2e.kuriki_play import Habits, KurikiGame, play_to_end

HONEST = KurikiTable._situation


def leaking(phase: str, shown_as: str) -> Any:
    def situation(self: KurikiTable, session: Any, state: Any) -> list[str]:
        lines = HONEST(self, session, state)
        if state.dice is not None and state.phase == phase:
            lines.append(shown_as.format(a=state.dice[1], b=state.dice[0]))
        return lines

    return situation


@pytest.mark.parametrize(
    ("phase", "shown_as", "caught"),
    [
        # On the table edit that answers Roll, before the ephemeral shows the dice.
        ("declare", "psst, {a}-{b}", "the dice under the cup went public"),
        # Later, on the cup posted afresh after the declaration (it calls the Next Guy; the
        # declaration's public follow-up), dressed up as a pull.
        ("respond", "Last pull: {a}-{b} = x", "secret leaked: POST /api/v10/webhooks/"),
    ],
    ids=["on-the-roll", "disguised-as-a-pull"],
)
@pytest.mark.e2e(seed=327)
async def test_dice_on_the_cup_are_caught(
    d: Driver, monkeypatch: pytest.MonkeyPatch, phase: str, shown_as: str, caught: str
) -> None:
    game = await KurikiGame.open(d, [ALICE, BOB, CAROL], lives=3)
    monkeypatch.setattr(KurikiTable, "_situation", leaking(phase, shown_as))
    with pytest.raises(AssertionError, match=caught) as failed:
        await play_to_end(game, Habits(pull_at=8))
    assert game.presses <= 3  # the first roll, its declaration
    text = str(failed.value)
    assert shown_as.split("{")[0] in text
    d.fake.violations.clear()  # checked: the teardown would fail on it otherwise
    game.secrets.stop()


@pytest.mark.e2e(seed=327)
async def test_dice_in_the_stored_log_are_caught(d: Driver) -> None:
    """The check of the game's stored log (what its history will show) can fail too: a line
    with the dice under the cup, planted among the stored lines, fails the next press."""
    game = await KurikiGame.open(d, [ALICE, BOB, CAROL], lives=3)
    await game.choose()
    roll = await game.roll()
    assert roll is not None and d.database is not None
    assert game.secrets.stored is not None and game.secrets.stored.leaks == []
    con = sqlite3.connect(d.database)
    with con:
        con.execute(
            "INSERT INTO game_log (channel_id, revision, lines) VALUES (?, 100000, ?)",
            (TABLE, json.dumps([f"psst, the cup hides {roll.dice}"])),
        )
    con.close()
    with pytest.raises(AssertionError, match="secret in the history"):
        await game.declare(roll, roll.truth)
    assert "psst, the cup hides" in game.secrets.stored.leaks[0]
    d.fake.violations.clear()  # checked: the teardown would fail on it otherwise
    game.secrets.stop()
