"""Ratings through the real client: a game played to its end rates both players; /stats
shows the rating and its change in the last game, /leaderboard ranks by it; a server
manager starts a new season with /config season (anyone else is refused), the new season
starts empty and the old one stays readable; options that do not go together get a short
private answer."""

from __future__ import annotations

import pytest

from tests.e2e.farkle_play import open_game, play_to_end, read_table
from tests.e2e.harness import ADMIN, ALICE, BOB, TABLE, Driver


@pytest.mark.slow
async def test_a_game_rated_shown_ranked_and_a_new_season(d: Driver) -> None:
    players = [ALICE, BOB]
    await open_game(d, TABLE, players, rules="on-the-table", target=1000)
    await play_to_end(d, TABLE, players)
    winner = read_table(d.table(TABLE)).winner
    loser = BOB if winner == ALICE.id else ALICE
    assert winner in (ALICE.id, BOB.id)

    mine = await d.slash(loser, TABLE, "stats", game="farkle")
    assert mine.ephemeral and "Rating **" in mine.text and " in the last game) · 1 rated game" in mine.text
    change = mine.text.split("Rating **")[1].split("(")[1].split(" in the last game")[0]
    assert change.startswith("-")  # the loser's rating went down

    board = await d.slash(ALICE, TABLE, "leaderboard", game="farkle", by="rating")
    assert board.ephemeral and "rating, season 1" in board.text
    lines = [line for line in board.text.splitlines() if "<@" in line]
    assert f"<@{winner}>" in lines[0] and f"<@{loser.id}>" in lines[1]
    assert "ranked by rating" in board.text

    wrong = await d.slash(ALICE, TABLE, "leaderboard", by="rating")
    assert wrong.ephemeral and "per game" in wrong.text
    wrong = await d.slash(ALICE, TABLE, "leaderboard", game="farkle", by="rating", period="week")
    assert wrong.ephemeral and "not a week or a month" in wrong.text

    refused = await d.slash(ALICE, TABLE, "config season", start=True)
    assert refused.ephemeral and "Manage Server" in refused.text
    shown = await d.slash(ADMIN, TABLE, "config season")
    assert shown.ephemeral and "rating season **1**" in shown.text
    started = await d.slash(ADMIN, TABLE, "config season", start=True)
    assert started.ephemeral and "Rating season **2** has started" in started.text

    fresh = await d.slash(ALICE, TABLE, "leaderboard", game="farkle", by="rating")
    assert "season 2" in fresh.text and "Nobody has a rated game here in this season" in fresh.text
    old = await d.slash(ALICE, TABLE, "leaderboard", game="farkle", season=1)
    assert "rating, season 1" in old.text
    assert [line for line in old.text.splitlines() if "<@" in line] == lines
    later = await d.slash(ALICE, TABLE, "leaderboard", game="farkle", season=3)
    assert later.ephemeral and "no season 3 yet" in later.text
    after = await d.slash(loser, TABLE, "stats", game="farkle")
    assert "Rating **" not in after.text  # no rated game in season 2 yet
