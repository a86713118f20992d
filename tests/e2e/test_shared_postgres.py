"""Several bot processes, one PostgreSQL database, one Discord serving all their shards:
each process plays the games of its own servers; when one is killed (SIGKILL) the other
plays its overdue turn deadlines; and a reshard (every process restarted with another
shard_count) keeps every game, now served by whichever process owns its server."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import asyncpg
import pytest

from bot.store import Shards, Store
from bot.store.postgres import owned_filter
from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.farkle_play import open_game, play_move, read_table
from tests.e2e.harness import ADMIN, ALICE, BOB, CAROL, DAVE, HANG, Driver, bot_process

# Servers chosen for where Discord puts them ((guild_id >> 22) % shard_count):
#   with 2 shards: EAST and NORTH on shard 0, WEST on shard 1;
#   with 3 shards: EAST on 0, WEST on 1, NORTH on 2.
EAST, WEST, NORTH = 6 << 22, 7 << 22, 8 << 22
TABLES = {EAST: EAST + 1, WEST: WEST + 1, NORTH: NORTH + 1}
PLAYERS = {EAST: [ALICE, BOB], WEST: [CAROL, DAVE], NORTH: [BOB, CAROL]}
TAKEOVER = 1.0
EAST_TIMER = 15  # the least turn timer: EAST's


def shard(guild: int, count: int) -> int:
    """The shard the bot serves `guild` from, by its own rule (`Shards.serves`)."""
    (served_by,) = [i for i in range(count) if Shards(count, (i,)).serves(guild)]
    return served_by


async def test_the_servers_fall_where_the_test_says(pg_url: str) -> None:
    """The bot's two rules for whose a guild is (`Shards.serves` in Python and
    `owned_filter` in the PostgreSQL store's SQL) put each server where the test plays it."""
    assert [shard(g, 2) for g in (EAST, WEST, NORTH)] == [0, 1, 0]
    assert [shard(g, 3) for g in (EAST, WEST, NORTH)] == [0, 1, 2]
    conn = await asyncpg.connect(pg_url)
    try:
        for count in (2, 3):
            for guild in (EAST, WEST, NORTH):
                owners = [
                    i
                    for i in range(count)
                    if await conn.fetchval(
                        f"SELECT {owned_filter(Shards(count, (i,)))}"
                        " FROM (VALUES ($1::bigint)) AS row(guild_id)",
                        guild,
                    )
                ]
                assert owners == [shard(guild, count)], (guild, count)
    finally:
        await conn.close()


async def wait_for(what: str, check, timeout: float = HANG) -> None:  # type: ignore[no-untyped-def]
    """Until `check()` holds (a timer or a takeover, not a speed limit)."""
    end = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > end:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.1)


@pytest.mark.slow
async def test_two_processes_a_kill_and_a_reshard(tmp_path: Path, pg_url: str) -> None:
    fake = FakeDiscord()
    for guild, name in ((EAST, "East"), (WEST, "West"), (NORTH, "North")):
        fake.add_guild(guild, name, {TABLES[guild]: "games"}, owner_id=ADMIN.id)
    await fake.start()
    store = await Store.open(pg_url)
    # EAST plays with the shortest turn timer (a row saved with 3 s before the 15-second
    # minimum loads as 15 s), the others with the default (2 minutes): a process's clock is
    # moved past EAST's deadlines (Driver.skip_ahead), never past the others'.
    await store.save_settings(EAST, '{"turn_timer": 3}')
    try:
        await play_across_processes(fake, store, pg_url, tmp_path)
    finally:
        await store.close()
        await fake.stop()
    assert fake.violations == [], "\n".join(fake.violations)


async def revision(store: Store, channel: int) -> int:
    row = await store.load_session(channel)
    assert row is not None, f"the game of channel {channel} is gone"
    return row.revision


async def play_across_processes(
    fake: FakeDiscord, store: Store, url: str, logs: Path
) -> None:
    def start(count: int, ids: list[int], seed: int):  # type: ignore[no-untyped-def]
        return bot_process(
            url, fake, seed=seed, shards=(count, ids), takeover_after=TAKEOVER, log_dir=logs
        )

    async with start(2, [0], 1) as first, start(2, [1], 2) as second:
        # Games in both processes: each server's interactions reach only its own shard.
        await open_game(second, TABLES[WEST], PLAYERS[WEST], rules="classic")
        await open_game(first, TABLES[NORTH], PLAYERS[NORTH], rules="classic")
        await play_move(second, TABLES[WEST], PLAYERS[WEST])
        await play_move(first, TABLES[NORTH], PLAYERS[NORTH])
        assert await store.count_sessions() == 2
        # EAST's game starts and its first process dies at once: the second, which does
        # not serve EAST, plays the overdue deadline and shows it in EAST's channel.
        table = await open_game(first, TABLES[EAST], PLAYERS[EAST], rules="classic")
        started = await revision(store, TABLES[EAST])
        waited_for = read_table(table).current
        await first.kill()
        assert fake.gateway_connections == 1
        # The survivor's clock passes EAST's deadline by more than the takeover wait.
        second.skip_ahead(EAST_TIMER + TAKEOVER + 1)

        async def timed_out() -> bool:
            return "ran out of time" in fake_table_text(second, TABLES[EAST])

        await wait_for("the surviving process plays the dead one's deadline", timed_out)
        assert await revision(store, TABLES[EAST]) > started
        after = read_table(second.table(TABLES[EAST]))
        assert after.current != waited_for  # the turn passed on
        # WEST, the second process's own, plays on meanwhile.
        await play_move(second, TABLES[WEST], PLAYERS[WEST])
        assert second.problems == [], "\n".join(second.problems)

    # Reshard: 3 shards over two new processes. EAST's deadlines are now the first new
    # process's own (played at once, not after a takeover); NORTH moves to the other
    # process, WEST to the first: every game is still there and plays on.
    assert fake.gateway_connections == 0
    kept = {g: await revision(store, TABLES[g]) for g in (WEST, NORTH)}
    east = await revision(store, TABLES[EAST])
    async with start(3, [0, 1], 3) as low:
        low.skip_ahead(2 * EAST_TIMER + TAKEOVER + 1)  # past the deadline the survivor set

        async def east_moves() -> bool:
            row = await store.load_session(TABLES[EAST])
            if row is None:  # timed out until one player was left: the game is recorded
                return bool(await store.finished_games(TABLES[EAST]))
            return row.revision > east

        await wait_for("EAST's new owner plays its deadlines", east_moves)
        async with start(3, [2], 4) as high:
            await play_move(high, TABLES[NORTH], PLAYERS[NORTH])
            await play_move(low, TABLES[WEST], PLAYERS[WEST])
            for guild, before in kept.items():
                assert await revision(store, TABLES[guild]) == before + 1
            assert high.problems == [], "\n".join(high.problems)
        assert low.problems == [], "\n".join(low.problems)
    east_kept = await store.load_session(TABLES[EAST]) or await store.finished_games(TABLES[EAST])
    assert east_kept


def fake_table_text(d: Driver, channel: int) -> str:
    try:
        return d.table(channel).text()
    except AssertionError:
        return ""
