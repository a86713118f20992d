"""The first Roller leaves before choosing who plays next (QA finding 8): the next player is
the first Roller now, and neither the table nor their ping says they rolled highest (they
may have tied someone lower). Through the real discord.py client."""

from __future__ import annotations

import pytest

from tests.e2e.harness import ALICE, BOB, CAROL, DAVE, TABLE, Driver, mention
from tests.e2e.live_table import live_table, start, state_of

PEOPLE = {u.id: u for u in (ALICE, BOB, CAROL, DAVE)}


@pytest.mark.e2e(seed=31)
async def test_the_first_roller_leaves_and_the_next_is_not_said_to_have_rolled_highest(
    d: Driver,
) -> None:
    await start(d, "kuriki", [ALICE, BOB, CAROL, DAVE], lives=2)
    first = PEOPLE[state_of(d, "kuriki").roller]
    assert f"{mention(first)} rolled highest: first Roller" in live_table(d, "kuriki").text()
    await d.slash(first, TABLE, "kuriki leave")
    state = state_of(d, "kuriki")
    heir = PEOPLE[state.roller]
    assert heir is not first and state.phase == "direction"
    table = live_table(d, "kuriki")
    assert "rolled highest: first Roller." not in table.text()
    assert f"{mention(heir)} is the first Roller now: choose who plays next." in table.text()
    (ping,) = [m for m in d.notifications(heir) if m is table]
    assert (ping.content or "").startswith(
        f"{mention(heir)}: you're the first Roller now: choose who plays next."
    )
    after = PEOPLE[state.after(heir.id)]
    await d.click(heir, TABLE, label=f"{after.name} next", message=table)
    assert state_of(d, "kuriki").phase == "roll"
