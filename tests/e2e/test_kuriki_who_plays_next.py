"""Kuriki's first Roller chooses who plays next, by name ("Bob next"), not a direction
(clockwise means nothing on Discord); with two players there is nobody to choose, and no
table states a direction before anyone chose one (issue 31). Through the real client."""

from __future__ import annotations

import pytest

from tests.e2e.harness import ALICE, BOB, CAROL, DAVE, TABLE, Driver, FakeUser, mention
from tests.e2e.live_table import live_table, start, state_of

PEOPLE = {u.id: u for u in (ALICE, BOB, CAROL, DAVE)}


def footer(d: Driver) -> str:
    [embed] = live_table(d, "kuriki").embeds
    return str((embed.get("footer") or {}).get("text") or "")


def seat(people: list[FakeUser], user_id: int, step: int) -> FakeUser:
    i = [p.id for p in people].index(user_id)
    return people[(i + step) % len(people)]


@pytest.mark.e2e(seed=31)
async def test_the_first_roller_chooses_who_plays_next_by_name(d: Driver) -> None:
    people = [ALICE, BOB, CAROL, DAVE]
    await start(d, "kuriki", people, lives=2)
    first = PEOPLE[state_of(d, "kuriki").roller]
    after, before = seat(people, first.id, 1), seat(people, first.id, -1)
    table = live_table(d, "kuriki")
    assert [f"{after.name} next", f"{before.name} next"] == table.labels()[:2]
    assert "choose who plays next" in table.text()
    for word in ("clockwise", "direction", "↻", "↺", "Order of play"):
        assert word not in footer(d) and word not in table.text(), word
    await d.click(first, TABLE, label=f"{before.name} next", message=table)
    state = state_of(d, "kuriki")
    assert state.phase == "roll" and state.after(first.id) == before.id
    order = " → ".join(p.name for p in [first, before, seat(people, first.id, -2), after])
    assert f"Order of play: {order}" in footer(d)
    text = live_table(d, "kuriki").text()
    assert f"chose {before.name} to play next. Fresh roll." in text, text


@pytest.mark.e2e(seed=31)
async def test_two_players_have_nobody_to_choose(d: Driver) -> None:
    await start(d, "kuriki", [ALICE, BOB], lives=2)
    state = state_of(d, "kuriki")
    first = PEOPLE[state.roller]
    assert state.phase == "roll"
    table = live_table(d, "kuriki")
    assert not [label for label in table.labels() if label.endswith(" next")]
    assert f"🥤 {mention(first)} holds the cup: **fresh roll**" in table.text()
    for word in ("clockwise", "direction", "Order of play"):
        assert word not in table.text() and word not in footer(d), word
    (ping,) = [m for m in d.notifications(first) if m is table]
    assert (ping.content or "").startswith(f"{mention(first)}: the cup is yours: roll")
