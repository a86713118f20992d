"""A kill -9 at a game's end rates it once: the bot process (SIGKILL, on SQLite and on
PostgreSQL) dies inside the transaction that records the game, just before the ratings
are written, or right after that transaction committed, before anyone was told. A new
process starts on the same database: in the first case the game was not recorded and plays
to its end again, in the second it was and a press on the old table records nothing more.
Either way there is one finished game and every player's rating is one update: none lost,
none twice."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from bot.store import Store
from tests.bot.conftest import fetch_sql
from tests.e2e.fake_discord import FakeDiscord, InteractionRecord
from tests.e2e.farkle_play import next_press, open_game, play_to_end, player, read_table
from tests.e2e.harness import ALICE, BOB, GUILD, TABLE, Driver, bot_process

PLAYERS = [ALICE, BOB]


async def press_until_killed(d: Driver) -> InteractionRecord:
    """Play on until the press that ends the game, which kills the process (never answered)."""
    for _ in range(1000):
        view = read_table(d.table(TABLE))
        _, button = next_press(view)
        rec = d.prepare_click(player(PLAYERS, view.current), TABLE, custom_id=button["custom_id"])
        try:
            await d.dispatch(rec)
        except AssertionError:
            assert d.process is not None and d.process.returncode == -signal.SIGKILL
            return rec
    raise AssertionError("the game never ended")


async def rated_once(database: Path | str) -> None:
    """One finished game, and each player's rating is exactly one update from a fresh one
    by the places the game recorded."""
    store = await Store.open(database)
    try:
        assert await fetch_sql(store, "SELECT COUNT(*) FROM finished_games") == [(1,)]
        places = dict(await fetch_sql(store, "SELECT player_id, position FROM player_stats"))
        assert set(places) == {p.id for p in PLAYERS} and sorted(places.values()) == [1, 2]
        rows = await fetch_sql(
            store, "SELECT player_id, mu, sigma, games FROM ratings WHERE place = ?", GUILD
        )
        got = {r[0]: r[1:] for r in rows}
        model = PlackettLuce()
        ids = sorted(places, key=places.__getitem__)
        after = model.rate([[model.rating()] for _ in ids], ranks=[places[i] for i in ids])
        assert got == {pid: (new.mu, new.sigma, 1) for pid, (new,) in zip(ids, after, strict=True)}
    finally:
        await store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A SQLite file, or the URL of a PostgreSQL schema of the test's own."""
    if request.param == "sqlite":
        return tmp_path / "e2e.sqlite3"
    return str(request.getfixturevalue("pg_url"))


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["rating", "recorded"])
async def test_a_kill_9_at_a_games_end_rates_it_once(
    fake: FakeDiscord, tmp_path: Path, database: Path | str, moment: str
) -> None:
    logs = None if isinstance(database, Path) else tmp_path
    async with bot_process(database, fake, seed=41, die_at=moment, log_dir=logs) as child:
        await open_game(child, TABLE, PLAYERS, rules="on-the-table", target=1000)
        last = await press_until_killed(child)
        assert child.problems == []
    await fake.wait_gateway_connections(0)
    del fake.interactions[last.id]  # a dead process answers nothing: not the bot's fault

    async with bot_process(database, fake, seed=42, log_dir=logs) as d:
        if moment == "rating":
            # Nothing of the end was kept: the game is still on, and is played to its end.
            assert await fetch_sql_once(database, "SELECT COUNT(*) FROM ratings") == [(0,)]
            assert await play_to_end(d, TABLE, PLAYERS) > 0
        else:
            # The game was recorded and rated; pressing the old table again records nothing.
            again = d.prepare_click(last.user, TABLE, custom_id=last.payload["data"]["custom_id"])
            answer = await d.dispatch(again)
            assert answer.ephemeral
        assert d.problems == []
    await rated_once(database)


async def fetch_sql_once(database: Path | str, sql: str) -> list[tuple[object, ...]]:
    store = await Store.open(database)
    try:
        return await fetch_sql(store, sql)
    finally:
        await store.close()
