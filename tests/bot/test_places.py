"""Places on the leaderboards (issue 30): players who tie share a place, as standard
competition ranking numbers them (1, 2, 2, 4), on every page, also when a tie runs over the
top of a page. On the rating board a tie is a rating equal as shown (a whole number,
`records.rating_points`): two players shown at 1400 are not first and second."""

from __future__ import annotations

import math
import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from bot.cogs.stats import leaderboard_page, rating_page
from bot.records import rating_number, rating_points
from bot.service import Tables
from bot.store.ratings import ahead_sql
from bot.store.rows import places
from tests.bot.conftest import CHANNEL, GUILD, run_sql

NOW = 1_800_000_000.0


def test_places_number_ties_as_competitions_do() -> None:
    assert places(["a", "a", "b", "c", "c", "c", "d"], 0, 0) == [1, 1, 3, 4, 4, 4, 7]
    # A page starting at row 10 inside a tie that began at row 8 (8 rows ahead of it).
    assert places(["c", "c", "d", "d"], 10, 8) == [9, 9, 13, 13]
    assert places([], 20, 0) == []


@given(st.floats(min_value=-1000, max_value=1000, allow_nan=False))
def test_a_rating_is_shown_as_its_points(value: float) -> None:
    shown = rating_number(value)
    assert int(shown.replace(",", "")) == rating_points(value)
    assert abs(rating_points(value) - (1000 + 20 * value)) <= 0.5


def test_a_newcomer_shows_1000() -> None:
    assert rating_number(0.0) == "1000" and rating_points(3.44) == 1069


def test_ratings_shown_above_are_counted_exactly_at_every_rounding_edge() -> None:
    """The count `ahead_sql` makes is the ratings whose points are higher, for values on,
    just below and just above every rounding edge (where float and decimal disagree)."""
    values = []
    for p in range(-60, 60):
        edge = (2 * p + 1) / 40  # 1000 + 20 x edge = 1000 + p + 1/2
        values += [edge, math.nextafter(edge, math.inf), math.nextafter(edge, -math.inf)]
        values += [p / 20, (p + 0.5) / 20 + 1e-12, (p + 0.5) / 20 - 1e-12, p / 10 + 0.0125]
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE ratings (place, kind, season, shown REAL)")
    db.executemany("INSERT INTO ratings VALUES (1, 'farkle', 1, ?)", [(v,) for v in values])
    points = [rating_points(v) for v in values]
    for value, mine in zip(values, points, strict=True):
        sql, bound = ahead_sql(value)
        [(counted,)] = db.execute(sql, (1, "farkle", 1, bound)).fetchall()
        assert counted == sum(p > mine for p in points), (value, sql, bound)


async def rate(tables: Tables, shown: list[float]) -> None:
    for i, value in enumerate(shown):
        await run_sql(
            tables.store,
            "INSERT INTO ratings (place, kind, season, player_id, mu, sigma, shown, games,"
            " last_change, last_game) VALUES (?, 'farkle', 1, ?, 25.0, 1.0, ?, 3, 0.5, 1)",
            GUILD,
            100 + i,
            value,
        )


async def test_equal_ratings_as_shown_share_a_place_on_every_page(tables: Tables) -> None:
    # 20.02, 20.0 and 19.98 all show as 1400 (1000 + 20 x value); 12.225 and 12.2 as 1244.
    await rate(tables, [20.02, 20.0, 19.98, 15.0, 15.0, 12.225, 12.2, 3.0])
    total, rows = await tables.store.rating_board(GUILD, "farkle", 1, 0, 10)
    assert total == 8
    assert [s.rank for s in rows] == [1, 1, 1, 4, 4, 6, 6, 8]
    for offset, size in ((2, 2), (4, 2), (1, 3), (5, 3), (6, 2)):
        _, page = await tables.store.rating_board(GUILD, "farkle", 1, offset, size)
        assert [s.rank for s in page] == [s.rank for s in rows[offset : offset + size]], offset
    embed, _items = await rating_page(tables.store, GUILD, CHANNEL, "farkle", 1, 0)
    lines = (embed.description or "").splitlines()
    assert [line.split()[0] for line in lines] == ["🥇"] * 3 + ["**4.**"] * 2 + ["**6.**"] * 2 + [
        "**8.**"
    ]
    assert all("**1400**" in line for line in lines[:3])


async def test_equal_wins_in_as_many_games_share_a_place(tables: Tables) -> None:
    totals = [(5, 10), (5, 10), (5, 12), (3, 4), (3, 4), (3, 4), (1, 1)]
    for i, (wins, games) in enumerate(totals):
        await run_sql(
            tables.store,
            "INSERT INTO player_totals (guild_id, kind, period, player_id, games, wins)"
            " VALUES (?, 'farkle', 'all', ?, ?, ?)",
            GUILD,
            200 + i,
            games,
            wins,
        )
    _, rows = await tables.store.leaderboard(GUILD, "farkle", "all", 0, 10)
    assert [s.rank for s in rows] == [1, 1, 3, 4, 4, 4, 7]
    for offset in range(1, 7):
        _, page = await tables.store.leaderboard(GUILD, "farkle", "all", offset, 2)
        assert [s.rank for s in page] == [s.rank for s in rows[offset : offset + 2]], offset
    embed, _items = await leaderboard_page(tables.store, GUILD, CHANNEL, "farkle", "all", 0, NOW)
    marks = [line.split()[0] for line in (embed.description or "").splitlines()]
    assert marks == ["🥇", "🥇", "🥉", "**4.**", "**4.**", "**4.**", "**7.**"]
