"""Turn timers through the real client: when a player lets the clock run out, the bot policy
plays their turn and shows the table over REST (no interaction to answer)."""

from __future__ import annotations

import re

import pytest

from bot.settings import GuildSettings
from games.text import line_from_text
from tests.e2e.bot_play import live, until
from tests.e2e.harness import ALICE, BOB, TABLE, Driver, is_summary, read_finished


@pytest.mark.e2e(defaults=GuildSettings(turn_timer=15))
async def test_an_absent_player_is_played_for_and_the_table_edited(d: Driver) -> None:
    await d.slash(ALICE, TABLE, "farkle start", rules="classic")
    await d.click(BOB, TABLE, label="Join")
    await d.click(ALICE, TABLE, label="Start")
    table = d.table(TABLE)
    first = re.search(r"<@(\d+)>'s turn", table.text())
    assert first and "Time for this move runs out" in table.text()
    # Nobody presses anything: after the deadline (the bot's clock moved on, not waited
    # for) the timer ends the absent player's turn. The turn passes, so the table is posted
    # afresh over REST (no interaction to answer), calling the next player, and the message
    # above becomes a summary without buttons.
    d.skip_ahead(15)

    def timed_out() -> bool:
        shown = d.tables(TABLE)  # none for a moment: the old table retires before the post
        return bool(shown) and shown[-1] is not table and "ran out of time" in shown[-1].text()

    await until(d, "the timer to play the absent turn", timed_out)
    live = d.tables(TABLE)[-1]
    seen = live.text()
    after = re.search(r"<@(\d+)>'s turn", seen)
    assert after and after[1] != first[1]  # the turn passed on
    assert live.interaction_metadata is None and live.webhook_id is None  # a channel message
    assert d.notified(live) == {int(after[1])}
    # The absent player's turn was played by the bot policy, in the usual words.
    assert "ran out of time; a bot played that turn for them." in seen
    assert is_summary(table) and table.buttons() == []
    await d.settle()
    assert d.fake.violations == []


@pytest.mark.e2e(defaults=GuildSettings(turn_timer=15))
async def test_a_game_nobody_plays_is_abandoned_not_won(d: Driver) -> None:
    """Nobody presses anything after Start: each player's turn runs out twice, and the game
    ends abandoned, with no winner and no win in the stats, in a new message that tells both."""
    await d.slash(ALICE, TABLE, "farkle start", rules="classic")
    await d.click(BOB, TABLE, label="Join")
    await d.click(ALICE, TABLE, label="Start")
    while (row := d.stored(TABLE)) is not None:  # each turn runs out on the moved clock
        d.skip_ahead(15)
        await until(
            d,
            "a turn to run out",
            lambda: (d.stored(TABLE) or {"revision": row["revision"] + 1})["revision"]
            > row["revision"],
        )
        await d.settle()
    await until(d, "the game's end", lambda: "nobody played" in live(d))
    final = d.table(TABLE)
    assert "**Abandoned:** nobody played for 4 turns, so nobody wins." in (
        final.text()
    )
    assert "🏆" not in final.text()
    assert d.notified(final) == {ALICE.id, BOB.id}  # posted afresh: an edit tells nobody
    [row] = read_finished(d.database, TABLE)  # type: ignore[arg-type]
    assert row["winner_id"] is None
    assert str(line_from_text(row["outcome"])) == "Nobody wins: nobody played for 4 turns."
    stats = await d.slash(ALICE, TABLE, "stats", game="farkle")
    assert "Abandoned: 1" in stats.text and "**0** wins" in stats.text
    await d.settle()
    assert d.fake.violations == []
