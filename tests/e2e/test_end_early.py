"""`/<game> end` early in a game (issue 31): the end is news for every other person at the
table, so the final table is a new message that mentions them (an edit notifies nobody, as
for a game that ends by its rules, docs/players.md "When a game ends"), and a game ended
before anything was scored carries no picture of an empty chart. Through the real client."""

from __future__ import annotations

import json

import pytest

from tests.e2e.fake_discord import FakeMessage
from tests.e2e.farkle_play import open_game, play_move, read_table
from tests.e2e.harness import ALICE, BOB, CAROL, TABLE, Driver, FakeUser, mention, read_finished
from tests.e2e.live_table import live_table, start


def pinged(message: FakeMessage) -> set[int]:
    """Whom the message's allowed_mentions let its content ping."""
    return {int(u) for u in (message.allowed_mentions or {}).get("users") or []}


async def end_early(d: Driver, kind: str, people: list[FakeUser]) -> FakeMessage:
    """Start `kind` with `people`, the host ends it at once; the channel's final table."""
    await start(d, kind, people)
    before = live_table(d, kind)
    ended = await d.slash(people[0], TABLE, f"{kind} end")
    assert not ended.ephemeral, ended.text
    final = d.table(TABLE)
    assert final is not before, "the final table is a new message, not an edit"
    others = {p.id for p in people[1:]}
    assert pinged(final) == others and d.notified(final) == others, final.allowed_mentions
    content = final.content or ""
    assert content.startswith(" ".join(mention(p) for p in people[1:]) + ": the game is over.")
    assert mention(people[0]) not in content  # never whoever ended it
    assert "Game ended early by" in final.text()
    return final


@pytest.mark.e2e(seed=5)
async def test_crap_end_pings_the_others_and_draws_no_empty_chart(d: Driver) -> None:
    final = await end_early(d, "crap", [ALICE, BOB, CAROL])
    assert final.attachments == [], final.attachments  # no round was scored: no chart
    [row] = read_finished(d.database, TABLE)  # type: ignore[arg-type]
    assert row["story"] is None


@pytest.mark.e2e(seed=5)
async def test_farkle_end_pings_the_others_and_draws_no_empty_chart(d: Driver) -> None:
    final = await end_early(d, "farkle", [ALICE, BOB])
    assert final.attachments == [], final.attachments
    [row] = read_finished(d.database, TABLE)  # type: ignore[arg-type]
    assert row["story"] is None


@pytest.mark.e2e(seed=5)
async def test_farkle_end_after_a_turn_charts_what_exists(d: Driver) -> None:
    """A turn was played: the picture charts it (each player's score after their turns)."""
    await open_game(d, TABLE, [ALICE, BOB])
    first = read_table(d.table(TABLE)).current
    while read_table(d.table(TABLE)).current == first:  # the first turn, to its bank or farkle
        await play_move(d, TABLE, [ALICE, BOB])
    await d.slash(ALICE, TABLE, "farkle end")
    final = d.table(TABLE)
    assert [a["filename"] for a in final.attachments] == ["story.png"]
    [row] = read_finished(d.database, TABLE)  # type: ignore[arg-type]
    story = json.loads(row["story"])
    assert max(len(s["points"]) for s in story["series"]) > 1, story
