"""`python -m bot migrate`: SQLite files of a sharded bot copied into one PostgreSQL database,
with progress, idempotently, verified; and the games play on from PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.records import ALL_GAMES, place_of
from bot.store import FinishedGame, Store
from games.text import line_from_json
from tests.bot.conftest import ALICE, BOB, GUILD, Clock, fetch_sql, find, make_tables, open_game
from tests.bot.test_ratings import seeded_games

ROOT = Path(__file__).resolve().parents[2]


def migrate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "migrate", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


async def shard_file(
    path: Path, clock: Clock, channel: int, finished: int, started: bool = False
) -> list[str]:
    """A file with `finished` finished games, one running game (a lobby; `started`: a game
    with a move made) and a server's settings; the running game's stored log."""
    tables = await make_tables(path, clock)
    for _ in range(finished):
        await open_game(tables, ALICE, BOB)
        # A turn played (its time runs out), so that the game has a story to chart.
        clock.now = (await tables.sessions.get(2000)).deadline
        await tables.expire(2000)
        await tables.end(ALICE, 2000, "farkle")
    settings = (await tables.settings(GUILD + channel)).model_copy(update={"turn_timer": 77})
    await tables.save_settings(GUILD + channel, settings)
    reply = await tables.open_lobby(ALICE, GUILD + channel, channel, "farkle", {})
    reply = await tables.click(BOB, find(reply, "join"), 555)
    if started:
        reply = await tables.click(ALICE, find(reply, "start"), 555)
        state = (await tables.sessions.get(channel)).state
        roller = ALICE if state.current_player.id == ALICE.id else BOB
        await tables.click(roller, find(reply, "roll"), 555)
    log = await tables.store.game_log(channel)
    await tables.store.close()
    return log


@pytest.mark.slow
async def test_two_shard_files_are_copied_once_and_verified(
    tmp_path: Path, pg_url: str, clock: Clock
) -> None:
    first, second = tmp_path / "bot-shards-0.sqlite3", tmp_path / "bot-shards-1.sqlite3"
    running = await shard_file(first, clock, 3001, finished=3, started=True)
    await shard_file(second, clock, 3002, finished=2)
    assert len(running) > 2  # the seating rolls, whose turn, the first throw

    done = migrate("--to", pg_url, "--from", str(first), str(second))
    assert done.returncode == 0, done.stderr
    out = done.stderr
    assert "bot-shards-0.sqlite3: finished_games [" in out and "3/3" in out  # the progress bar
    assert "bot-shards-0.sqlite3: finished_games: 3 rows, 3 copied, 0 already there, 3/3 verified" in out
    assert "bot-shards-1.sqlite3: finished_games: 2 rows, 2 copied, 0 already there, 2/2 verified" in out
    assert "bot-shards-1.sqlite3: sessions: 1 rows, 1 copied" in out
    assert "bot-shards-0.sqlite3: game_log: 2 rows, 2 copied, 0 already there, 2/2" in out
    # The second file's games 1 and 2 became 4 and 5; their players' rows went with them.
    assert "bot-shards-1.sqlite3: player_stats: 4 rows, 4 copied, 0 already there, 4/4" in out
    assert "bot-shards-1.sqlite3: player_records: added up from the copied player_stats" in out
    assert out.rstrip().endswith("done: every row is in PostgreSQL")

    # Again, the files found from the config (every per-shard file of its `database`).
    config = tmp_path / "config.toml"
    config.write_text(f'database = "{tmp_path}/bot{{shards}}.sqlite3"\n', encoding="utf-8")
    again = migrate("--to", pg_url, "--config", str(config))
    assert again.returncode == 0, again.stderr
    assert "finished_games: 3 rows, 0 copied, 3 already there, 3/3 verified" in again.stderr
    assert "sessions: 1 rows, 0 copied, 1 already there, 1/1 verified" in again.stderr
    assert "bot-shards-1.sqlite3: finished_games: 2 rows, 0 copied" in again.stderr
    assert "bot-shards-1.sqlite3: player_stats: 4 rows, 0 copied, 4 already there, 4/4" in again.stderr

    store = await Store.open(pg_url)
    games = await store.finished_games()
    assert len(games) == 5 and len({g["id"] for g in games}) == 5
    # Their logs and stories, and the running game's log so far, came along.
    assert all(
        str(line_from_json(g["log"][0])).startswith("Seating rolls:") and g["story"] for g in games
    )
    assert await store.game_log(3001) == running
    assert sorted(g["id"] for g in games)[:3] == [1, 2, 3]  # the first file's ids are kept
    assert await store.count_sessions() == 2
    assert await store.load_settings(GUILD + 3002) is not None
    stats = await fetch_sql(store, "SELECT game_id, player_id FROM player_stats ORDER BY 1, 2")
    assert stats == [(g, p) for g in range(1, 6) for p in (ALICE.id, BOB.id)]
    # The records of the server, found in both files, add up (once, after two runs).
    alice = await store.player_records(GUILD, ALICE.id, ["farkle"])
    assert [(r.kind, r.abandoned) for r in alice] == [("farkle", 5)]
    await store.close()

    # The bot plays on from PostgreSQL: the lobby copied from the second file starts, and a
    # new finished game gets an id after the copied ones.
    tables = await make_tables(pg_url, clock)
    lobby = await tables.status(3002, "farkle")
    await tables.click(ALICE, find(lobby, "start"), 555)
    await tables.end(ALICE, 3002, "farkle")
    assert max(g["id"] for g in await tables.store.finished_games()) == 6
    await tables.store.close()


async def test_games_outside_servers_keep_their_group_chats_leaderboard(
    tmp_path: Path, pg_url: str
) -> None:
    """A game outside servers counts on its channel's leaderboard after the copy too, when
    its id moved (the second file's game 1 becomes 2): `add_up` reads the channel from the
    copied finished game."""
    group, files = 3_000, [tmp_path / "bot-shards-0.sqlite3", tmp_path / "bot-shards-1.sqlite3"]
    for path, winner in zip(files, (ALICE.id, BOB.id), strict=True):
        store = await Store.open(path)
        await store.finish_session(
            group,
            FinishedGame(
                guild_id=None,
                channel_id=group,
                kind="farkle",
                players=[{"id": ALICE.id, "name": "Alice"}, {"id": BOB.id, "name": "Bob"}],
                scores={},
                winner_id=winner,
                rules={},
                outcome="test",
                started_at=1_700_000_000.0 + winner,
                finished_at=1_700_000_600.0 + winner,
            ),
        )
        await store.close()
    done = migrate("--to", pg_url, "--from", *map(str, files))
    assert done.returncode == 0, done.stderr
    store = await Store.open(pg_url)
    try:
        _, rows = await store.leaderboard(group, ALL_GAMES, "all", 0, 10)
        assert [(s.player_id, s.wins, s.games) for s in rows] == [
            (ALICE.id, 1, 2), (BOB.id, 1, 2)
        ]  # fmt: skip
        assert (await store.leaderboard(0, ALL_GAMES, "all", 0, 10))[0] == 0
        (alice,) = await store.player_records(None, ALICE.id, ["farkle"])
        assert (alice.games, alice.wins) == (2, 1)
    finally:
        await store.close()


@pytest.mark.slow
def test_a_wrong_target_or_a_missing_file_is_one_line(tmp_path: Path) -> None:
    bad = migrate("--to", str(tmp_path / "x.sqlite3"), "--from", str(tmp_path / "a.sqlite3"))
    assert bad.returncode == 2 and "must be a postgresql:// URL" in bad.stderr
    missing = migrate("--to", "postgresql://nobody@127.0.0.1:1/x", "--from", str(tmp_path / "a"))
    assert missing.returncode == 2 and "no SQLite file at" in missing.stderr


@pytest.mark.slow
async def test_ratings_and_seasons_come_along(tmp_path: Path, pg_url: str) -> None:
    """The ratings are not copied but replayed in PostgreSQL from the copied games: the
    same values, each game in the season it counted in."""
    path = tmp_path / "rated.sqlite3"
    lite = await Store.open(path)
    for what, game in seeded_games(120, seed=8):
        if what == "season":
            await lite.start_season(place_of(game.guild_id, game.channel_id), 1, 0.0)
        else:
            await lite.finish_session(game.channel_id, game)
    everything = "SELECT * FROM ratings ORDER BY place, kind, season, player_id"
    ratings = await fetch_sql(lite, everything)
    seasons = await fetch_sql(lite, "SELECT * FROM seasons ORDER BY place, season")
    await lite.close()
    assert ratings and seasons

    done = migrate("--to", pg_url, "--from", str(path))
    assert done.returncode == 0, done.stderr
    assert "rated.sqlite3: ratings: rated again below from the copied player_stats" in done.stderr
    assert f"ratings: {len(ratings)} ratings from " in done.stderr
    store = await Store.open(pg_url)
    try:
        assert await fetch_sql(store, everything) == ratings
        assert await fetch_sql(store, "SELECT * FROM seasons ORDER BY place, season") == seasons
    finally:
        await store.close()
