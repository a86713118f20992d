"""Skill ratings on both stores: a rated game moves its players' ratings as OpenSkill's
Plackett-Luce model says for its finishing order (ties included); games with bots,
abandoned games, games of one person and games without places are unrated; ratings are
kept per place (server, or channel outside servers), game and season; a new season starts
everyone afresh and keeps the old standings; and a rebuild from the recorded games equals
the incremental ratings, over 1,000 seeded games."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce

import bot.store.ratings as ratings_module
from bot.cogs.stats import (
    PAGE_SIZE,
    board_choice,
    parse_rating_page,
    rating_line,
    rating_page,
    stats_embed,
)
from bot.components import Click
from bot.errors import UserError
from bot.history import finished_here, game_view
from bot.rebuild_ratings import main as rebuild_command
from bot.records import place_of, rating_points
from bot.service import Tables
from bot.store import FinishedGame, RevisionConflict, SessionRow, Store
from bot.store.ratings import FRESH, Rating
from tests.bot.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, fetch_sql, run_sql

ROOT = Path(__file__).resolve().parents[2]
NOW = 1_790_000_000.0
DAN = 14


def rated_game(
    places: dict[int, int],
    *,
    kind: str = "farkle",
    guild: int | None = GUILD,
    channel: int = CHANNEL,
    winner: int | None = -1,
    bots: tuple[int, ...] = (),
    at: float = NOW,
    with_places: bool = True,
) -> FinishedGame:
    """A finished game whose players finished in `places` (player -> place); the winner
    is the one placed first unless given (None: abandoned)."""
    first = min(places, key=lambda p: places[p])
    return FinishedGame(
        guild_id=guild,
        channel_id=channel,
        kind=kind,
        players=[{"id": p, "name": f"P{p}"} for p in places],
        scores={str(p): 100 * (9 - place) for p, place in places.items()},
        winner_id=first if winner == -1 else winner,
        rules={},
        outcome="test",
        started_at=at - 600,
        bots=list(bots),
        finished_at=at,
        places={str(p): place for p, place in places.items()} if with_places else {},
    )


async def rating(store: Store, player: int, *, kind: str = "farkle", place: int = GUILD,
                 season: int = 1) -> Rating | None:  # fmt: skip
    rows = await fetch_sql(
        store,
        "SELECT mu, sigma, games, last_change, last_game FROM ratings"
        " WHERE place = ? AND kind = ? AND season = ? AND player_id = ?",
        place, kind, season, player,
    )  # fmt: skip
    if not rows:
        return None
    mu, sigma, games, change, last = rows[0]
    return Rating(mu, sigma, games, change, last)  # type: ignore[arg-type]


def openskill_says(ranks: list[int], priors: list[tuple[float, float]] | None = None) -> list[Any]:
    """What the library itself computes, with its defaults, for one game."""
    model = PlackettLuce()
    teams = [[model.rating(*prior)] for prior in (priors or [(25.0, 25 / 3)] * len(ranks))]
    return [team[0] for team in model.rate(teams, ranks=[float(r) for r in ranks])]


@pytest.mark.slow
async def test_a_rated_game_moves_every_rating_as_the_model_says(tables: Tables) -> None:
    store = tables.store
    game_id = await store.finish_session(CHANNEL, rated_game({BOB.id: 1, CAROL.id: 2, ALICE.id: 3}))
    expected = openskill_says([1, 2, 3])
    for who, want in zip((BOB, CAROL, ALICE), expected, strict=True):
        got = await rating(store, who.id)
        assert got is not None and (got.mu, got.sigma) == (want.mu, want.sigma)
        assert got.games == 1 and got.last_game == game_id
        assert got.last_change == got.shown - FRESH.shown == want.mu - 3 * want.sigma
    bob, alice = await rating(store, BOB.id), await rating(store, ALICE.id)
    assert bob and alice and bob.shown > alice.shown and alice.mu < 25 < bob.mu
    # the second game starts from what the first left
    await store.finish_session(CHANNEL, rated_game({ALICE.id: 1, BOB.id: 2}))
    second = openskill_says([1, 2], [(alice.mu, alice.sigma), (bob.mu, bob.sigma)])
    alice2, bob2 = await rating(store, ALICE.id), await rating(store, BOB.id)
    assert alice2 and bob2 and (alice2.mu, bob2.mu) == (second[0].mu, second[1].mu)
    assert alice2.games == 2 and alice2.last_change == alice2.shown - alice.shown > 0
    assert bob2.last_change < 0
    rows = await fetch_sql(store, "SELECT season, position FROM player_stats ORDER BY game_id, position")
    assert rows == [(1, 1), (1, 2), (1, 3), (1, 1), (1, 2)]


async def test_ties_are_ties(tables: Tables) -> None:
    store = tables.store
    await store.finish_session(CHANNEL, rated_game({ALICE.id: 1, BOB.id: 2, CAROL.id: 2}))
    bob, carol = await rating(store, BOB.id), await rating(store, CAROL.id)
    assert bob == carol and bob is not None
    want = openskill_says([1, 2, 2])[1]
    assert (bob.mu, bob.sigma) == (want.mu, want.sigma)


@pytest.mark.parametrize(
    "game",
    [
        rated_game({ALICE.id: 1, 7: 2}, bots=(7,)),  # a bot seat
        rated_game({ALICE.id: 1, BOB.id: 2}, winner=None),  # abandoned: ended early, or left
        rated_game({ALICE.id: 1}),  # one person: nobody played against them
        rated_game({ALICE.id: 1, BOB.id: 2}, with_places=False),  # no finishing order kept
    ],
    ids=["bot", "abandoned", "alone", "no-places"],
)
async def test_unrated_games(tables: Tables, game: FinishedGame) -> None:
    store = tables.store
    await store.finish_session(CHANNEL, game)
    assert await fetch_sql(store, "SELECT COUNT(*) FROM ratings") == [(0,)]
    assert await fetch_sql(store, "SELECT DISTINCT season FROM player_stats") == [(None,)]
    assert (await store.rebuild_ratings()).games == 0
    # its other figures are still counted
    assert await store.player_records(GUILD, ALICE.id, ["farkle"])


async def test_ratings_are_per_place_and_game(tables: Tables) -> None:
    store = tables.store
    dm = 3_000  # a group DM: no server, its channel is the place
    await store.finish_session(CHANNEL, rated_game({ALICE.id: 1, BOB.id: 2}))
    await store.finish_session(dm, rated_game({BOB.id: 1, ALICE.id: 2}, guild=None, channel=dm))
    await store.finish_session(CHANNEL, rated_game({BOB.id: 1, ALICE.id: 2}, kind="kuriki"))
    assert place_of(None, dm) == dm
    first = openskill_says([1, 2])
    for place, kind, winner in ((GUILD, "farkle", ALICE), (dm, "farkle", BOB), (GUILD, "kuriki", BOB)):
        won = await rating(store, winner.id, kind=kind, place=place)
        assert won is not None and won.games == 1 and won.mu == first[0].mu
    total, board = await store.rating_board(dm, "farkle", 1, 0, 10)
    assert total == 2 and [s.player_id for s in board] == [BOB.id, ALICE.id]
    mine = await store.player_ratings(GUILD, BOB.id, ["farkle", "kuriki", "crap"], 1)
    assert [(r.kind, r.games) for r in mine] == [("farkle", 1), ("kuriki", 1)]
    assert mine[0].rating < 0 < mine[1].rating  # lost the Farkle game, won the Kuriki one


async def test_a_new_season_starts_everyone_afresh_and_keeps_the_old_one(tables: Tables) -> None:
    store = tables.store
    assert await store.current_season(GUILD) == 1
    for _ in range(3):
        await store.finish_session(CHANNEL, rated_game({ALICE.id: 1, BOB.id: 2, CAROL.id: 3}))
    _, season_one = await store.rating_board(GUILD, "farkle", 1, 0, 10)
    assert [s.player_id for s in season_one] == [ALICE.id, BOB.id, CAROL.id]
    assert [s.rank for s in season_one] == [1, 2, 3] and season_one[0].games == 3

    assert await store.start_season(GUILD, ADMIN_ID, NOW) == 2
    assert await store.current_season(GUILD) == 2
    assert await store.current_season(GUILD + 1) == 1  # another server keeps its season
    await store.finish_session(CHANNEL, rated_game({CAROL.id: 1, DAN: 2}))
    carol = await rating(store, CAROL.id, season=2)
    assert carol is not None and carol.games == 1  # afresh: her season 1 games are not in it
    assert carol.mu == openskill_says([1, 2])[0].mu
    total, season_two = await store.rating_board(GUILD, "farkle", 2, 0, 10)
    assert total == 2 and [s.player_id for s in season_two] == [CAROL.id, DAN]
    assert (await store.rating_board(GUILD, "farkle", 1, 0, 10))[1] == season_one  # kept
    assert await store.start_season(GUILD, ADMIN_ID, NOW + 1) == 3
    rows = await fetch_sql(store, "SELECT season, started_at, started_by FROM seasons ORDER BY season")
    assert rows == [(2, NOW, ADMIN_ID), (3, NOW + 1, ADMIN_ID)]
    # the rebuild keeps each game in the season it counted in
    assert await store.rebuild_ratings(write=False) == (await store.rebuild_ratings())
    assert await rating(store, CAROL.id, season=2) == carol


ADMIN_ID = 99


async def test_a_finish_that_loses_the_race_rates_nothing(tables: Tables) -> None:
    """A second finish of the same session (another process, or a retry) is refused before
    anything is written: no second rating update."""
    store = tables.store
    row = SessionRow(CHANNEL, GUILD, "farkle", "{}", 1, None, None, NOW)
    assert await store.save_session(row)
    game = rated_game({ALICE.id: 1, BOB.id: 2})
    await store.finish_session(CHANNEL, game, revision=1)
    once = await rating(store, ALICE.id)
    with pytest.raises(RevisionConflict):
        await store.finish_session(CHANNEL, game, revision=1)
    assert await rating(store, ALICE.id) == once
    assert await fetch_sql(store, "SELECT COUNT(*) FROM finished_games") == [(1,)]


def seeded_games(count: int, seed: int) -> list[tuple[str, FinishedGame]]:
    """`count` finished games of a few servers, a DM and every game, in random orders with
    ties, some with bots, abandoned or of one person; ("season", ...) marks where a server
    starts a new season."""
    rng = random.Random(seed)
    people = list(range(100, 130))
    out: list[tuple[str, FinishedGame]] = []
    for i in range(count):
        if rng.random() < 0.01:
            out.append(("season", rated_game({1: 1}, guild=rng.choice([GUILD, GUILD + 1]))))
            continue
        kind = rng.choice(["farkle", "kuriki", "crap"])
        seated = rng.sample(people, rng.randint(2, 6))
        if rng.random() < 0.05:
            seated = seated[:1]
        places: dict[int, int] = {}
        for n, p in enumerate(seated, start=1):  # ties with the one before, now and then
            places[p] = places[seated[n - 2]] if n > 1 and rng.random() < 0.15 else n
        bots = (seated[-1],) if len(seated) > 2 and rng.random() < 0.05 else ()
        guild = rng.choice([GUILD, GUILD, GUILD + 1, None])
        out.append((
            "game",
            rated_game(
                places, kind=kind, guild=guild, channel=CHANNEL + (guild is None),
                winner=None if rng.random() < 0.05 else -1, bots=bots, at=NOW + i,
            ),
        ))  # fmt: skip
    return out


@pytest.mark.slow
async def test_the_rebuild_equals_the_incremental_ratings_over_many_seeded_games(
    tables: Tables, db_path: Path | str
) -> None:
    """1,000 seeded games on SQLite; the first 300 of them on PostgreSQL, whose floats
    must come out equal as well (four new seasons among them)."""
    store = tables.store
    count = 1000 if isinstance(db_path, Path) else 300
    played = 0
    for what, game in seeded_games(count, seed=24):
        if what == "season":
            await store.start_season(place_of(game.guild_id, game.channel_id), 1, NOW)
        else:
            await store.finish_session(game.channel_id, game)
            played += 1
    assert played > 0.95 * count

    everything = "SELECT * FROM ratings ORDER BY place, kind, season, player_id"
    incremental = await fetch_sql(store, everything)
    seasons = {r[2] for r in incremental}
    assert len(incremental) > 200 and len(seasons) > 2

    check = await store.rebuild_ratings(write=False)
    assert check.differed == 0 and check.ratings == len(incremental)
    assert 0.8 * count < check.games < played
    rebuilt = await store.rebuild_ratings()
    assert rebuilt == check
    assert await fetch_sql(store, everything) == incremental  # every float equal

    # A rating changed behind the bot's back is found and put right; lost ones come back.
    await run_sql(store, "UPDATE ratings SET mu = mu + 1 WHERE player_id = 100")
    assert (await store.rebuild_ratings(write=False)).differed > 0
    await run_sql(store, "DELETE FROM ratings WHERE place = ?", GUILD)
    repaired = await store.rebuild_ratings()
    assert repaired.differed > 0
    assert await fetch_sql(store, everything) == incremental
    assert (await store.rebuild_ratings(write=False)).differed == 0


async def test_two_processes_rating_games_of_one_place_at_once(pg_url: str) -> None:
    """Two bot processes sharing PostgreSQL finish games of the same server and players at
    the same moments: no update is lost (each game reads the ratings the one before it
    wrote) and the order they were applied in is the one a rebuild replays."""
    first, second = await Store.open(pg_url), await Store.open(pg_url)
    try:
        rng = random.Random(5)
        people = [ALICE.id, BOB.id, CAROL.id, DAN]
        games = []
        for i in range(60):
            seated = rng.sample(people, 3)
            games.append(rated_game({p: n for n, p in enumerate(seated, 1)}, at=NOW + i))
        await asyncio.gather(*(
            (first if i % 2 else second).finish_session(CHANNEL + i, game)
            for i, game in enumerate(games)
        ))  # fmt: skip
        counted = await fetch_sql(first, "SELECT SUM(games) FROM ratings")
        assert counted == [(3 * len(games),)]  # nobody's update lost
        assert (await first.rebuild_ratings(write=False)).differed == 0
    finally:
        await first.close()
        await second.close()


def ratings_command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "ratings", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
async def test_the_rebuild_command(db_path: Path | str, tmp_path: Path) -> None:
    store = await Store.open(db_path)
    try:
        for what, game in seeded_games(40, seed=2):
            if what == "game":
                await store.finish_session(game.channel_id, game)
        ratings = (await store.rebuild_ratings(write=False)).ratings
        database = str(db_path)
        checked = ratings_command("rebuild", "--check", "--database", database)
        assert checked.returncode == 0, checked.stderr
        assert checked.stdout.startswith(f"{ratings} ratings from ")
        assert checked.stdout.rstrip().endswith("0 would change (a rating differs from the"
                                                " stored one, or only one of them exists)")
        await run_sql(store, "DELETE FROM ratings WHERE player_id = 100")
        lost = ratings_command("rebuild", "--check", "--database", database)
        assert lost.returncode == 1 and " 0 would change" not in lost.stdout
        # from the config's database, as the bot's own
        config = tmp_path / "config.toml"
        config.write_text(f'database = "{database}"\n', encoding="utf-8")
        done = ratings_command("rebuild", "--config", str(config))
        assert done.returncode == 0, done.stderr
        assert "changed" in done.stdout and " 0 changed" not in done.stdout
        assert (await store.rebuild_ratings(write=False)).differed == 0
    finally:
        await store.close()
    if isinstance(db_path, Path):  # once: a missing file is the same on either database
        missing = ratings_command("rebuild", "--database", str(tmp_path / "nothing.sqlite3"))
        assert missing.returncode == 2 and "no SQLite file at" in missing.stderr
        assert not (tmp_path / "nothing.sqlite3").exists()


# --------------------------------------------------------------------------- what players see


async def test_stats_show_the_rating_and_its_last_change(tables: Tables) -> None:
    store = tables.store
    await store.finish_session(CHANNEL, rated_game({ALICE.id: 1, BOB.id: 2}))
    await store.finish_session(CHANNEL, rated_game({BOB.id: 1, ALICE.id: 2}, kind="crap"))
    await store.finish_session(CHANNEL, rated_game({ALICE.id: 1, 7: 2}, kind="kuriki", bots=(7,)))
    kinds = ["farkle", "kuriki", "crap"]
    figures = await store.player_records(GUILD, ALICE.id, kinds)
    rated = await store.player_ratings(GUILD, ALICE.id, kinds, 1)
    text = json.dumps(stats_embed("Alice", figures, rated, 1).to_dict(), ensure_ascii=False)
    farkle = await rating(store, ALICE.id)
    assert farkle is not None
    points = rating_points(farkle.shown)
    assert points > 1000
    assert f"Rating **{points}** (+{points - 1000} in the last game) · 1 rated game, provisional" in text
    assert "in the last game)" in text and text.count("Rating **") == 2  # no Kuriki rating
    assert "starts at 1000" in text and "μ" not in text and "season" not in text
    crap = next(r for r in rated if r.kind == "crap")
    lost = rating_points(crap.rating) - 1000
    assert lost < 0 and f"Rating **{1000 + lost}** ({lost} in the last game)" in text
    await store.start_season(GUILD, ADMIN_ID, NOW)
    await store.finish_session(CHANNEL, rated_game({ALICE.id: 1, BOB.id: 2}))
    rated = await store.player_ratings(GUILD, ALICE.id, kinds, 2)
    text = json.dumps(stats_embed("Alice", figures, rated, 2).to_dict(), ensure_ascii=False)
    assert "in the last game) in season 2 · 1 rated game" in text


async def test_a_first_loss_is_a_small_step_down_from_1000_and_provisional(tables: Tables) -> None:
    """Everyone starts at 1000; losing a first game (of 2 to 4 players) takes off less than a
    tenth of it, and the rating says it is provisional until its fifth rated game."""
    store = tables.store
    for n in (2, 3, 4):
        players = {pid: place for place, pid in enumerate(range(500 * n, 500 * n + n), 1)}
        await store.finish_session(CHANNEL, rated_game(players))
        last = await rating(store, 500 * n + n - 1)
        assert last is not None
        assert 900 <= rating_points(last.shown) < 1000
        assert rating_points(last.shown - last.last_change) == 1000
    for _ in range(4):
        await store.finish_session(CHANNEL, rated_game({ALICE.id: 1, BOB.id: 2}))
        (alice,) = await store.player_ratings(GUILD, ALICE.id, ["farkle"], 1)
        line = rating_line(alice, 1)
        assert ("provisional" in line) == (alice.games < 5)
    await store.finish_session(CHANNEL, rated_game({ALICE.id: 1, BOB.id: 2}))
    (alice,) = await store.player_ratings(GUILD, ALICE.id, ["farkle"], 1)
    assert alice.games == 5 and "provisional" not in rating_line(alice, 1)


async def test_rating_boards_page_with_buttons_and_keep_old_seasons(tables: Tables) -> None:
    store = tables.store
    people = [1000 + i for i in range(2 * PAGE_SIZE + 3)]
    for winner in people:  # each beats the one player who always loses
        await store.finish_session(CHANNEL, rated_game({winner: 1, 999: 2}))
    await store.start_season(GUILD, ADMIN_ID, NOW)

    seen: list[int] = []
    embed, items = await rating_page(store, GUILD, CHANNEL, "farkle", 1, 0)
    assert "rating, season 1" in embed.title
    for page in range(3):
        assert embed.footer.text.startswith(f"Page {page + 1}/3 · ranked by rating")
        seen += [int(line.split("<@")[1].split(">")[0]) for line in embed.description.splitlines()]
        previous, following = items
        assert previous.disabled == (page == 0) and following.disabled == (page == 2)
        if page < 2:
            click = Click.parse(following.custom_id)
            assert click is not None and len(following.custom_id) <= 100
            assert parse_rating_page(click) == ("farkle", 1, page + 1)
            embed, items = await rating_page(store, GUILD, CHANNEL, "farkle", 1, page + 1)
    assert seen[-1] == 999 and sorted(seen[:-1]) == people
    # the first winner beat a fresh 999; each later one a 999 who had lost more, so won less
    assert seen[0] == people[0]
    last = embed.description.splitlines()[-1]
    assert last.startswith("**24.** <@999> · **") and "· 23 games" in last

    for forged in (
        f"t:board:page:{CHANNEL}:1:1:all-rating",  # ratings are per game
        f"t:board:page:{CHANNEL}:1:0:farkle-rating",  # no season 0
        f"t:board:flip:{CHANNEL}:1:1:farkle-rating",
    ):
        with pytest.raises(UserError, match="not one I recognise"):
            parse_rating_page(Click.parse(forged))
    assert parse_rating_page(Click.parse(f"t:board:page:{CHANNEL}:1:0:farkle-week")) is None
    with pytest.raises(UserError, match="not on this leaderboard"):
        await rating_page(store, GUILD, CHANNEL, "farkle", 1, 3)
    embed, items = await rating_page(store, GUILD, CHANNEL, "farkle", 2, 0)
    assert items == [] and "Nobody has a rated game here in this season yet (games with bots are not rated)." in embed.description


async def test_the_leaderboard_options_that_do_not_go_together(tables: Tables) -> None:
    store = tables.store
    assert await board_choice(store, GUILD, None, "week", None, None) is None  # wins
    assert await board_choice(store, GUILD, "farkle", None, "rating", None) == 1
    assert await board_choice(store, GUILD, "farkle", None, None, 1) == 1  # a season: rating
    for options, why in (
        ((None, None, "rating", None), "per game"),
        (("farkle", "month", "rating", None), "not a week or a month"),
        (("farkle", None, "wins", 1), "Seasons are for ratings"),
        (("farkle", None, None, 2), "in season 1: there is no season 2 yet"),
    ):
        with pytest.raises(UserError, match=why):
            await board_choice(store, GUILD, *options)
    await store.start_season(GUILD, ADMIN_ID, NOW)
    assert await board_choice(store, GUILD, "farkle", None, "rating", None) == 2
    assert await board_choice(store, GUILD, "farkle", None, "rating", 1) == 1


def test_a_rebuild_on_sqlite_stops_when_the_bot_writes_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On SQLite the bot should be stopped first; if it records something while the rebuild
    reads, the rebuild stops and writes nothing, saying so."""
    path = tmp_path / "busy.sqlite3"

    async def fill() -> list[tuple[object, ...]]:
        store = await Store.open(path)
        try:
            for what, game in seeded_games(30, seed=3):
                if what == "game":
                    await store.finish_session(game.channel_id, game)
            await run_sql(store, "UPDATE ratings SET mu = 0")  # something to rebuild
            return await fetch_sql(store, "SELECT * FROM ratings ORDER BY 1, 2, 3, 4")
        finally:
            await store.close()

    before = asyncio.run(fill())
    replay = ratings_module.rebuilt

    def bot_writes_meanwhile(*args: Any) -> Any:
        out = replay(*args)
        other = sqlite3.connect(path)  # the bot's own connection, committing a setting
        other.execute("INSERT INTO guild_settings VALUES (1, '{}', 0)")
        other.commit()
        other.close()
        return out

    monkeypatch.setattr(ratings_module, "rebuilt", bot_writes_meanwhile)
    assert rebuild_command(["rebuild", "--database", str(path)]) == 1
    assert "changed during the rebuild" in capsys.readouterr().err

    async def after() -> list[tuple[object, ...]]:
        store = await Store.open(path)
        try:
            return await fetch_sql(store, "SELECT * FROM ratings ORDER BY 1, 2, 3, 4")
        finally:
            await store.close()

    assert asyncio.run(after()) == before  # nothing written


async def test_a_games_rating_changes_are_what_recording_it_moved(tables: Tables) -> None:
    """/history shows each player's rating before and after a game: replayed from the
    place's rated games up to it, they are exactly what the update moved when the game was
    recorded (later games and other places change nothing); an unrated game has none."""
    store = tables.store
    first = await store.finish_session(CHANNEL, rated_game({BOB.id: 1, CAROL.id: 2, ALICE.id: 3}))
    after_first = {p.id: await rating(store, p.id) for p in (ALICE, BOB, CAROL)}
    second = await store.finish_session(CHANNEL, rated_game({ALICE.id: 1, BOB.id: 2}))
    after_second = {p.id: await rating(store, p.id) for p in (ALICE, BOB)}
    elsewhere = rated_game({ALICE.id: 2, BOB.id: 1}, guild=GUILD + 1)
    await store.finish_session(CHANNEL + 1, elsewhere)
    await store.finish_session(CHANNEL, rated_game({CAROL.id: 1, ALICE.id: 2}))
    unrated = await store.finish_session(CHANNEL, rated_game({ALICE.id: 1, BOB.id: 2}, bots=(7,)))

    changes = await store.rating_changes(first)
    assert changes == {pid: (FRESH.shown, r.shown) for pid, r in after_first.items() if r}
    changes = await store.rating_changes(second)
    for pid, now in after_second.items():
        assert now is not None and changes[pid] == (after_first[pid].shown, now.shown)  # type: ignore[union-attr]
    assert set(changes) == {ALICE.id, BOB.id}
    assert await store.rating_changes(unrated) == {}
    assert await store.rating_changes(999_999) == {}


async def test_an_opened_game_in_history_shows_its_rating_changes(tables: Tables) -> None:
    store = tables.store
    rated = await store.finish_session(CHANNEL, rated_game({BOB.id: 1, ALICE.id: 2}))
    unrated = await store.finish_session(CHANNEL, rated_game({BOB.id: 1, ALICE.id: 2}, bots=(7,)))
    bob, alice = await rating(store, BOB.id), await rating(store, ALICE.id)
    assert bob is not None and alice is not None
    embed, _ = game_view(await finished_here(store, rated, GUILD), CHANNEL, 0)
    [field] = [f for f in embed.fields if f.name == "Rating changes"]
    won, lost = rating_points(bob.shown), rating_points(alice.shown)
    assert field.value == (
        f"P{BOB.id} 1000 → {won} (+{won - 1000})\nP{ALICE.id} 1000 → {lost} ({lost - 1000})"
    )
    assert won > 1000 > lost
    embed, _ = game_view(await finished_here(store, unrated, GUILD), CHANNEL, 0)
    assert "Rating changes" not in [f.name for f in embed.fields]
