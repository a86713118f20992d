"""Turn timers through the real client: when a player lets the clock run out, the bot plays
the safe move on its own and edits the table message over REST (no interaction to answer)."""

from __future__ import annotations

import asyncio
import re

import pytest

from bot.settings import GuildSettings
from tests.e2e.harness import ALICE, BOB, TABLE, Driver


@pytest.mark.e2e(defaults=GuildSettings(turn_timer=1))
async def test_an_absent_player_is_played_for_and_the_table_edited(d: Driver) -> None:
    await d.slash(ALICE, TABLE, "farkle start", rules="classic")
    await d.click(BOB, TABLE, label="Join")
    await d.click(ALICE, TABLE, label="Start")
    table = d.table(TABLE)
    first = re.search(r"<@(\d+)>'s turn", table.text())
    assert first and "Time for this move runs out" in table.text()
    edits = table.edits
    # Nobody presses anything: after the deadline the timer ends the absent player's turn.
    seen = ""
    for _ in range(60):
        await asyncio.sleep(0.1)
        if table.edits > edits and "ran out of time" in table.text():
            seen = table.text()  # read at once: the next player's clock runs 1 s too
            break
    assert "ran out of time" in seen, table.text()
    after = re.search(r"<@(\d+)>'s turn", seen)
    assert after and after[1] != first[1]  # the turn passed on, on the same table message
    await d.settle()
    assert d.fake.violations == []
