"""/stats and /leaderboard from the store: the records of scripted games of each kind, games
against bots and abandoned games counted apart, the leaderboard's periods and pages (and the
refusal of a stale or forged page button), and the migration of a version-4 file."""

from __future__ import annotations

import datetime as dt
import json
import random
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from bot.cogs.stats import PAGE_SIZE, leaderboard_page, parse_page, stats_embed
from bot.components import Click
from bot.errors import UserError
from bot.records import ALL_GAMES, period_keys, place_of
from bot.service import Actor, Tables
from bot.store import MIGRATIONS, REBUILD_SQL, FinishedGame, SqliteStore, Store
from games.crap.engine import finishing_order as crap_order
from games.kuriki.engine import declarations
from games.kuriki.engine import finishing_order as kuriki_order
from games.places import places
from tests.bot.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    fetch_sql,
    make_tables,
    open_game,
)
from tests.bot.test_crap_table import play, start_crap
from tests.bot.test_farkle_table import play_move
from tests.bot.test_kuriki_table import start_kuriki

PLAYERS = {a.id: a for a in (ALICE, BOB, CAROL)}
# Monday 23 November 2026, noon UTC: "this week" began this morning, "this month" on the 1st.
NOW = dt.datetime(2026, 11, 23, 12, tzinfo=dt.UTC).timestamp()
DAY = 86400.0


def spy_outcome(tables: Tables, kind: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Keep the last state the adapter recorded a game from, to compare the stats with."""
    seen: dict[str, Any] = {}
    adapter = tables.adapters[kind]
    original = adapter.outcome

    def outcome(state: Any) -> Any:
        seen["state"] = state
        return original(state)

    monkeypatch.setattr(adapter, "outcome", outcome)
    return seen


async def figures(tables: Tables, actor: Actor, kind: str) -> Any:
    (fig,) = await tables.store.player_records(GUILD, actor.id, [kind])
    return fig


@pytest.mark.parametrize(
    ("preset", "word"), [("crappy-malappy", "crappys"), ("classic", "farkles")]
)
async def test_farkle_records_after_a_whole_game(
    tables: Tables, monkeypatch: pytest.MonkeyPatch, preset: str, word: str
) -> None:
    seen = spy_outcome(tables, "farkle", monkeypatch)
    reply = await open_game(tables, ALICE, BOB, CAROL, rules=preset, target=3000)
    for _ in range(3000):
        if await tables.sessions.get(CHANNEL) is None:
            break
        reply = await play_move(tables, reply)
    final = seen["state"]
    assert final.finished and final.winner in PLAYERS
    assert sum(p.farkles for p in final.players) > 0  # the script does farkle
    for p in final.players:
        fig = await figures(tables, PLAYERS[p.id], "farkle")
        assert (fig.games, fig.wins, fig.abandoned, fig.bot_games) == (
            1,
            int(p.id == final.winner),
            0,
            0,
        )
        assert fig.best_score == p.score
        expected = {word: p.farkles, "hot_dice": p.hot_dice, "best_turn": p.best_turn}
        if preset == "crappy-malappy":
            expected["malappys"] = p.malappys
        assert fig.records == expected
    winner = PLAYERS[final.winner]
    text = json.dumps(
        stats_embed(winner.name, [await figures(tables, winner, "farkle")]).to_dict(),
        ensure_ascii=False,
    )
    assert "**1** game · **1** win (100%)" in text
    # Crappy Malappy's words in its games, Farkle's elsewhere
    assert ("Crappys" in text) == (preset == "crappy-malappy")
    assert ("Farkles" in text) == (preset == "classic")


async def press(
    tables: Tables, actor: Actor, action: str, values: tuple[str, ...] = (), kind: str = "kuriki"
) -> Any:
    """A click on the live decision (a select's `values` on the player's private message)."""
    session = await tables.sessions.get(CHANNEL)
    stamp = tables.adapters[kind].stamp_of(session.state, action, None)
    click = Click(kind, action, CHANNEL, session.game_id, stamp, None, values)
    return await tables.click(actor, click, 900 if values else 777, ephemeral=bool(values))


async def test_kuriki_records_after_a_whole_game(
    tables: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = spy_outcome(tables, "kuriki", monkeypatch)
    rng = random.Random(5)
    await start_kuriki(tables, ALICE, BOB, CAROL, lives=3)
    for _ in range(500):
        session = await tables.sessions.get(CHANNEL)
        if session is None:
            break
        state = session.state
        if state.phase == "direction":
            await press(tables, PLAYERS[state.roller], "cw")
        elif state.phase == "roll":
            await press(tables, PLAYERS[state.roller], "roll")
        elif state.phase == "declare":  # the truth or a lie, at random
            await press(
                tables, PLAYERS[state.roller], "declare", (str(rng.choice(declarations(state))),)
            )
        else:
            await press(tables, PLAYERS[state.next_guy], "pull")
    final = seen["state"]
    assert final.finished and final.winner in PLAYERS and final.tarted in PLAYERS
    assert sum(p.pull_lives for p in final.players) > 0
    for p in final.players:
        fig = await figures(tables, PLAYERS[p.id], "kuriki")
        assert (fig.games, fig.wins) == (1, int(p.id == final.winner))
        assert fig.records == {
            "kurikis": p.crowns,
            "fouls": p.fouls,
            "tarted": int(p.id == final.tarted),
            "pull_lives": p.pull_lives,
        }
    await rated_in_finishing_order(tables, "kuriki", places(kuriki_order(final)))
    assert len(final.out_order) == 2  # the last one out is second
    assert places(kuriki_order(final))[final.out_order[-1]] == 2


async def rated_in_finishing_order(tables: Tables, kind: str, expected: dict[int, int]) -> None:
    """The whole game was recorded with the engine's finishing places, and rated by them."""
    rows = await fetch_sql(tables.store, "SELECT player_id, position, season FROM player_stats")
    assert {r[0]: r[1] for r in rows} == expected and {r[2] for r in rows} == {1}
    _, board = await tables.store.rating_board(GUILD, kind, 1, 0, 10)
    assert [s.player_id for s in board] == sorted(expected, key=lambda p: (expected[p], p))


async def test_crap_records_after_a_whole_game(
    db_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = await make_tables(db_path, clock, seed=5)
    seen = spy_outcome(tables, "crap", monkeypatch)
    rng = random.Random(11)
    table = await start_crap(tables, threshold=150, jokers=True)
    for _ in range(3000):
        if await tables.sessions.get(CHANNEL) is None:
            break
        table = await play(tables, table, rng, clock)
    final = seen["state"]
    assert final.finished and final.winners
    assert sum(p.sets_scored for p in final.players) > 0
    assert sum(p.bluffs + p.calls for p in final.players) > 0
    for p in final.players:
        fig = await figures(tables, PLAYERS[p.id], "crap")
        assert (fig.games, fig.wins) == (1, int(p.id in final.winners))
        assert fig.best_score == p.score
        assert fig.records == {
            "sets": p.sets_scored,
            "best_round": p.best_round,
            "bluffs": p.bluffs,
            "calls": p.calls,
        }
    await rated_in_finishing_order(tables, "crap", places(crap_order(final)))
    await tables.store.close()


async def test_abandoned_games_are_counted_apart(tables: Tables) -> None:
    await open_game(tables, ALICE, BOB)
    await tables.leave(BOB, CHANNEL, "farkle")  # one left: no winner
    await open_game(tables, ALICE, BOB)
    await tables.end(ALICE, CHANNEL, "farkle")  # ended early by the host
    for who in (ALICE, BOB):
        fig = await figures(tables, who, "farkle")
        assert (fig.games, fig.wins, fig.abandoned) == (0, 0, 2)
    text = json.dumps(
        stats_embed("Alice", [await figures(tables, ALICE, "farkle")]).to_dict(), ensure_ascii=False
    )
    assert "Abandoned: 2" in text and "**0** games · **0** wins" in text
    total, rows = await tables.store.leaderboard(GUILD, ALL_GAMES, "all", 0, 10)
    assert (total, rows) == (0, [])


def game(
    winner: int | None,
    players: tuple[int, ...] = (ALICE.id, BOB.id),
    *,
    kind: str = "farkle",
    at: float = NOW,
    bots: tuple[int, ...] = (),
    stats: dict[str, dict[str, int]] | None = None,
) -> FinishedGame:
    return FinishedGame(
        guild_id=GUILD,
        channel_id=CHANNEL,
        kind=kind,
        players=[{"id": p, "name": f"P{p}"} for p in players],
        scores={str(p): 1000 * (p == winner) for p in players},
        winner_id=winner,
        rules={},
        outcome="test",
        started_at=at - 600,
        bots=list(bots),
        stats=stats or {},
        finished_at=at,
    )


async def test_games_against_a_bot_are_counted_apart(tables: Tables) -> None:
    store = tables.store
    await store.finish_session(CHANNEL, game(ALICE.id, (ALICE.id, 7), bots=(7,)))
    await store.finish_session(CHANNEL, game(7, (ALICE.id, 7), bots=(7,)))
    await store.finish_session(CHANNEL, game(BOB.id))
    alice = await figures(tables, ALICE, "farkle")
    assert (alice.games, alice.wins, alice.bot_games, alice.bot_wins) == (1, 0, 2, 1)
    text = json.dumps(stats_embed("Alice", [alice]).to_dict(), ensure_ascii=False)
    assert "**3** games (1 ranked) · **1** win (33%)" in text and "Against bots" not in text
    # the bot is never on the leaderboard, and games against it do not count there
    _, rows = await store.leaderboard(GUILD, "farkle", "all", 0, 10)
    assert [(s.player_id, s.games, s.wins) for s in rows] == [(BOB.id, 1, 1), (ALICE.id, 1, 0)]
    rows = await fetch_sql(store, "SELECT is_bot FROM player_stats WHERE player_id = 7")
    assert [r[0] for r in rows] == [1, 1]


async def test_stats_of_every_game_and_of_nobody(tables: Tables) -> None:
    store = tables.store
    await store.finish_session(CHANNEL, game(ALICE.id))
    await store.finish_session(CHANNEL, game(BOB.id, kind="kuriki"))
    both = await store.player_records(GUILD, ALICE.id, ["farkle", "kuriki", "crap"])
    assert [(f.kind, f.games, f.wins) for f in both] == [("farkle", 1, 1), ("kuriki", 1, 0)]
    assert await store.player_records(GUILD + 1, ALICE.id, ["farkle"]) == []  # another server
    text = json.dumps(stats_embed("Carol", []).to_dict(), ensure_ascii=False)
    assert "no finished games in this server yet" in text


GROUP, OTHER_GROUP = 3_000, 3_001  # group DMs: games there have no server


def outside(winner: int | None, players: tuple[int, ...], channel: int = GROUP) -> FinishedGame:
    """A game played outside servers (through a user install) in `channel`."""
    return replace(game(winner, players), guild_id=None, channel_id=channel)


async def test_games_outside_servers_count_for_stats_and_their_own_leaderboard(
    tables: Tables,
) -> None:
    """/stats outside servers adds up every game outside servers; a group chat's leaderboard
    is its own games; a server's board and stats never include them."""
    store = tables.store
    for winner in (ALICE.id, ALICE.id, BOB.id):
        await store.finish_session(GROUP, outside(winner, (ALICE.id, BOB.id)))
    await store.finish_session(OTHER_GROUP, outside(CAROL.id, (CAROL.id, ALICE.id), OTHER_GROUP))
    await store.finish_session(CHANNEL, game(BOB.id))

    async def board(place: int) -> list[tuple[int, int, int]]:
        _, rows = await store.leaderboard(place, ALL_GAMES, "all", 0, 10)
        return [(s.player_id, s.wins, s.games) for s in rows]

    assert await board(place_of(None, GROUP)) == [(ALICE.id, 2, 3), (BOB.id, 1, 3)]
    assert await board(place_of(None, OTHER_GROUP)) == [(CAROL.id, 1, 1), (ALICE.id, 0, 1)]
    assert await board(GUILD) == [(BOB.id, 1, 1), (ALICE.id, 0, 1)]
    assert await board(0) == []  # no board of every game outside servers
    _, week = await store.leaderboard(GROUP, "farkle", period_keys(NOW)["week"], 0, 10)
    assert [s.player_id for s in week] == [ALICE.id, BOB.id]

    (alice,) = await store.player_records(None, ALICE.id, ["farkle"])
    assert (alice.games, alice.wins) == (4, 2)  # both group chats together
    (here,) = await store.player_records(GUILD, ALICE.id, ["farkle"])
    assert (here.games, here.wins) == (1, 0)
    text = json.dumps(stats_embed("Alice", [alice], in_server=False).to_dict(), ensure_ascii=False)
    assert "Games outside servers (DMs and group chats together)." in text
    assert "**4** games · **2** wins (50%)" in text
    nothing = json.dumps(stats_embed("Dave", [], in_server=False).to_dict(), ensure_ascii=False)
    assert "Dave has no finished games outside servers (DMs and group chats together) yet" in nothing

    embed, items = await leaderboard_page(store, GROUP, GROUP, ALL_GAMES, "all", 0, NOW)
    assert embed.description.splitlines()[0] == f"🥇 <@{ALICE.id}> · **2** wins · 3 games · –"
    assert items == []


async def test_leaderboard_periods_and_win_rate(tables: Tables) -> None:
    store = tables.store
    for _ in range(5):  # Alice: 5 games this week, 3 won
        await store.finish_session(CHANNEL, game(BOB.id, (ALICE.id, BOB.id)))
    for _ in range(3):
        await store.finish_session(CHANNEL, game(ALICE.id, (ALICE.id, CAROL.id)))
    await store.finish_session(CHANNEL, game(CAROL.id, (CAROL.id, BOB.id), at=NOW - 3 * DAY))
    await store.finish_session(CHANNEL, game(CAROL.id, (CAROL.id, BOB.id), at=NOW - 30 * DAY))

    async def board(period: str, kind: str = ALL_GAMES) -> list[tuple[int, int, int]]:
        key = period_keys(NOW)[period]  # type: ignore[index]
        _, rows = await store.leaderboard(GUILD, kind, key, 0, 10)
        return [(s.player_id, s.wins, s.games) for s in rows]

    assert await board("week") == [(BOB.id, 5, 5), (ALICE.id, 3, 8), (CAROL.id, 0, 3)]
    assert await board("month") == [(BOB.id, 5, 6), (ALICE.id, 3, 8), (CAROL.id, 1, 4)]
    assert await board("all") == [(BOB.id, 5, 7), (ALICE.id, 3, 8), (CAROL.id, 2, 5)]
    assert await board("all", "kuriki") == []
    embed, items = await leaderboard_page(store, GUILD, CHANNEL, ALL_GAMES, "week", 0, NOW)
    lines = embed.description.splitlines()
    assert lines[0] == f"🥇 <@{BOB.id}> · **5** wins · 5 games · 100%"
    assert lines[1] == f"🥈 <@{ALICE.id}> · **3** wins · 8 games · 38%"
    assert lines[2] == f"🥉 <@{CAROL.id}> · **0** wins · 3 games · –"  # under 5 games: no rate
    assert items == [] and embed.footer.text.startswith("Page 1/1")
    assert "this week" in embed.title


async def test_leaderboard_pages_with_buttons_and_refuses_stale_or_forged_ones(
    tables: Tables,
) -> None:
    store = tables.store
    people = [1000 + i for i in range(2 * PAGE_SIZE + 3)]
    for i, p in enumerate(people):  # player i wins i games
        for _ in range(i):
            await store.finish_session(CHANNEL, game(p, (p, 999_999)))
    total, _ = await store.leaderboard(GUILD, "farkle", "all", 0, 1)
    assert total == len(people)  # all but the one with no game, and the one who always loses

    seen: list[int] = []
    embed, items = await leaderboard_page(store, GUILD, CHANNEL, "farkle", "month", 0, NOW)
    for page in range(3):
        assert embed.footer.text.startswith(f"Page {page + 1}/3")
        seen += [int(line.split("<@")[1].split(">")[0]) for line in embed.description.splitlines()]
        previous, following = items
        assert previous.disabled == (page == 0) and following.disabled == (page == 2)
        assert len(previous.custom_id) <= 100
        if page < 2:
            click = Click.parse(following.custom_id)
            assert click is not None and click.kind == "board"
            kind, period, asked = parse_page(click, NOW + 60)
            assert (kind, period, asked) == ("farkle", "month", page + 1)
            embed, items = await leaderboard_page(store, GUILD, CHANNEL, kind, period, asked, NOW)
    assert seen == [*people[:0:-1], 999_999]  # most wins first
    back = parse_page(Click.parse(previous.custom_id), NOW)
    assert back == ("farkle", "month", 1)

    # A button of last month's leaderboard: refused, not silently showing this month
    with pytest.raises(UserError, match="earlier month"):
        parse_page(Click.parse(following.custom_id), NOW + 8 * DAY)
    stamp = Click.parse(following.custom_id).stamp
    for forged in (
        f"t:board:page:{CHANNEL}:1:{stamp}:poker-month",
        f"t:board:page:{CHANNEL}:1:{stamp}:farkle-year",
        f"t:board:flip:{CHANNEL}:1:{stamp}:farkle-month",
    ):
        with pytest.raises(UserError, match="not one I recognise"):
            parse_page(Click.parse(forged), NOW)
    kind, period, page = parse_page(
        Click.parse(f"t:board:page:{CHANNEL}:7:{stamp}:farkle-month"), NOW
    )
    with pytest.raises(UserError, match="not on this leaderboard"):
        await leaderboard_page(store, GUILD, CHANNEL, kind, period, page, NOW)


def test_period_keys_are_calendar_weeks_and_months() -> None:
    keys = period_keys(NOW)
    assert keys == {"week": "w2026-11-23", "month": "m2026-11", "all": "all"}
    sunday = dt.datetime(2026, 11, 22, 23, 59, tzinfo=dt.UTC).timestamp()
    assert period_keys(sunday)["week"] == "w2026-11-16"


# --------------------------------------------------------------------------- migration


async def test_a_version_4_file_with_finished_games_is_counted(tmp_path: Path) -> None:
    path = tmp_path / "v4.sqlite3"
    rows = [  # kind, players, scores, winner, rules, finished_at
        ("farkle", [ALICE.id, BOB.id], {ALICE.id: 5200, BOB.id: 3100}, ALICE.id, {}, NOW),
        ("crap", [ALICE.id, BOB.id, CAROL.id], {ALICE.id: 200, BOB.id: 200, CAROL.id: 50},
         ALICE.id, {"winners": [ALICE.id, BOB.id]}, NOW - 3 * DAY),
        ("kuriki", [ALICE.id, CAROL.id], {ALICE.id: 2, CAROL.id: 0}, None, {}, NOW - 40 * DAY),
        ("farkle", [BOB.id, CAROL.id], {BOB.id: 6000, CAROL.id: 10}, BOB.id, {}, NOW - 6 * DAY),
    ]  # fmt: skip
    async with aiosqlite.connect(path) as db:
        await db.executescript("".join(MIGRATIONS[:4]) + "PRAGMA user_version=4;")
        for kind, players, scores, winner, rules, at in rows:
            await db.execute(
                "INSERT INTO finished_games (guild_id, channel_id, kind, players, scores,"
                " winner_id, rules, outcome, started_at, finished_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    GUILD,
                    CHANNEL,
                    kind,
                    json.dumps([{"id": p, "name": f"P{p}"} for p in players]),
                    json.dumps({str(k): v for k, v in scores.items()}),
                    winner,
                    json.dumps(rules),
                    "old",
                    at - 600,
                    at,
                ),
            )
        await db.commit()
    store = await Store.open(path)
    try:
        assert await store.schema_version() == len(MIGRATIONS)
        alice = {
            f.kind: f
            for f in await store.player_records(GUILD, ALICE.id, ["farkle", "kuriki", "crap"])
        }
        assert (alice["farkle"].games, alice["farkle"].wins, alice["farkle"].best_score) == (
            1,
            1,
            5200,
        )
        assert (alice["crap"].wins, alice["kuriki"].abandoned, alice["kuriki"].games) == (1, 1, 0)
        assert alice["farkle"].records == {}  # older rows kept no counters
        bob = (await store.player_records(GUILD, BOB.id, ["crap"]))[0]
        assert bob.wins == 1  # a tie: both winners won
        # periods computed in SQL are the ones Python computes for new games
        async with store.db.execute(
            "SELECT DISTINCT period FROM player_totals WHERE period != 'all' ORDER BY period"
        ) as cur:
            periods = [r[0] for r in await cur.fetchall()]
        expected = {k for _, _, _, w, _, at in rows if w for k in period_keys(at).values()}
        assert set(periods) == expected - {"all"}
        _, week = await store.leaderboard(GUILD, ALL_GAMES, period_keys(NOW)["week"], 0, 10)
        assert [(s.player_id, s.wins) for s in week] == [(ALICE.id, 1), (BOB.id, 0)]
        _, ever = await store.leaderboard(GUILD, "farkle", "all", 0, 10)
        assert [(s.player_id, s.wins, s.games) for s in ever] == [
            (ALICE.id, 1, 1), (BOB.id, 1, 2), (CAROL.id, 0, 1)
        ]  # fmt: skip
        # and a game finished after the upgrade adds to the same totals
        await store.finish_session(CHANNEL, game(CAROL.id, (CAROL.id, ALICE.id)))
        _, week = await store.leaderboard(GUILD, "farkle", period_keys(NOW)["week"], 0, 10)
        assert [(s.player_id, s.wins, s.games) for s in week] == [
            (CAROL.id, 1, 1), (ALICE.id, 1, 2), (BOB.id, 0, 1)
        ]  # ties on wins: fewer games first  # fmt: skip
    finally:
        await store.close()
    con = sqlite3.connect(path)
    try:
        columns = [r[1] for r in con.execute("PRAGMA table_info(finished_games)")]
        assert "bots" in columns  # migration 5 ran
        assert con.execute("SELECT COUNT(*) FROM player_stats").fetchone()[0] == 2 + 3 + 2 + 2 + 2
    finally:
        con.close()


async def test_the_running_totals_match_a_rebuild_from_the_game_rows(
    tmp_path: Path, clock: Clock
) -> None:
    """What each finished game adds as it is recorded is what migration 6 (and the
    benchmark) computes from the per-game rows (SQLite's SQL: a PostgreSQL database records
    the same way, which the other tests check on both)."""
    tables = await make_tables(tmp_path / "rebuild.sqlite3", clock)
    store = tables.store
    assert isinstance(store, SqliteStore)
    try:
        rng = random.Random(3)
        people = (ALICE.id, BOB.id, CAROL.id)
        for i in range(60):
            kind = rng.choice(["farkle", "kuriki", "crap"])
            seated = tuple(rng.sample(people, 2)) + ((7,) if i % 7 == 0 else ())
            winner = None if i % 9 == 0 else rng.choice(seated)
            stats = {str(p): {"farkles": rng.randint(0, 5), "best_turn": rng.randint(0, 3000),
                              "kurikis": rng.randint(0, 2), "sets": rng.randint(0, 3),
                              "best_round": rng.randint(0, 200)} for p in seated}  # fmt: skip
            bots = (7,) if 7 in seated else ()
            at = NOW - rng.randint(0, 60) * DAY
            played = game(winner, seated, kind=kind, at=at, bots=bots, stats=stats)
            if i % 3 == 1:  # outside servers, in one of two group chats
                played = replace(played, guild_id=None, channel_id=GROUP + i % 2)
            await store.finish_session(played.channel_id, played)

        async def everything() -> tuple[object, ...]:
            async with store.db.execute("SELECT * FROM player_totals ORDER BY 1, 2, 3, 4") as cur:
                totals = await cur.fetchall()
            records = [
                await store.player_records(place, p, ["farkle", "kuriki", "crap"])
                for p in people
                for place in (GUILD, None)
            ]
            return totals, records

        before = await everything()
        assert len(before[0]) > 20 and all(before[1])
        assert {row[0] for row in before[0]} == {GUILD, GROUP, OTHER_GROUP}
        await store.db.executescript(REBUILD_SQL)
        assert await everything() == before
    finally:  # a failed check must not leave the file's thread running
        await store.close()
