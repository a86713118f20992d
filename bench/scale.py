"""What holds the event loop at ten times today's load: 50,000 running games and 100,000
finished ones in the database.

    python -m bench.scale --sessions 50000 --finished 100000 --history 5000

Fills the database (a SQLite WAL file, and a PostgreSQL server this benchmark starts) in
bulk with `--sessions` running sessions (rows of realistic size, one in 100 showing an
older revision than stored, as after a crash) and `--finished` finished games of two
players (their packed log and dice as a Farkle game's; one regular player sits at
`--history` of them, in one server), then times what the bot runs on the event loop at
such a size, `--runs` times each after one warm-up: `behind_sessions` (at every start and
RESUME), `count_sessions` (at start), recording a finished game of 300 log lines
(`finish_session`), and the regular player's /history (the first page and the last),
each as the bot awaits it. Beside its time (p50, max) it prints the event loop's longest
stall while it ran: a ticker coroutine notes how long the loop went without coming back to
it (what every other click waited). Then the start-up garbage collection
(`bot.tuning.freeze_start_up`) over a heap of `--heap` objects, as a bot's caches hold after
its guilds arrived: what it costs, beside the full collection it used to run. Asserts
nothing."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench.common import header, ms, own_postgres, percentile
from bot.records import place_of
from bot.store import FinishedGame, SessionRow, SqliteStore, Store
from bot.store.rows import PLAYER_COLUMNS
from bot.tuning import freeze_start_up

GUILD = 1_600_000_000_000_000_000
REGULAR = 1_600_000_000_000_500_001
FINISHED_AT = 1_700_000_000.0
#: A Farkle game's packed log and dice (bench.storage: some 2.3 and 1.7 KB).
LOG_BYTES, DICE_BYTES = 2300, 1700
#: A running session's JSON (bench.recovery: 4-8 KB with its sealed draws).
SESSION_BYTES = 6000


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__)
    p.add_argument("--sessions", type=int, default=50_000)
    p.add_argument("--finished", type=int, default=100_000)
    p.add_argument("--history", type=int, default=5_000, help="games of the regular player")
    p.add_argument("--runs", type=int, default=20, help="timed runs of each operation")
    p.add_argument("--heap", type=int, default=1_500_000, help="objects for the gc timing")
    p.add_argument("--stores", default="sqlite,postgresql")
    args = p.parse_args(argv)
    if args.history > args.finished:
        p.error("--history cannot exceed --finished")
    return args


def session_rows(count: int, rng: random.Random) -> list[tuple[Any, ...]]:
    """Running sessions as `sessions` stores them (channel, guild, kind, data, revision,
    message, deadline, created, updated, shown); one in 100 behind its table."""
    rows = []
    for n in range(count):
        revision = rng.randint(2, 400)
        data = json.dumps({"lobby": {}, "state": {"pad": rng.randbytes(SESSION_BYTES // 2).hex()}})
        shown = revision - 1 if n % 100 == 0 else revision
        rows.append(
            (
                GUILD + 10_000 + n, GUILD + n % 1000, "farkle", data, revision, GUILD + n,
                FINISHED_AT + rng.random() * 300 if n % 3 == 0 else None,
                FINISHED_AT, FINISHED_AT + rng.random() * 3600, shown,
            )
        )  # fmt: skip
    return rows


def finished_rows(args: argparse.Namespace, rng: random.Random) -> tuple[list[Any], list[Any]]:
    """Finished games (their `finished_games` columns but the id, which is their number)
    and their players' `player_stats` rows; the regular plays one game in
    finished/history, all in the first server."""
    every = args.finished // max(args.history, 1)
    games, players = [], []
    for n in range(1, args.finished + 1):
        guild = GUILD + (0 if n % every == 0 else n % 1000)
        seats = [REGULAR if n % every == 0 and n // every <= args.history else GUILD + 100 + n % 5000,
                 GUILD + 200_000 + n]  # fmt: skip
        at = FINISHED_AT + n
        players_json = json.dumps([{"id": s, "name": f"Player {s % 1000}"} for s in seats])
        games.append(
            (
                n, guild, GUILD + 10_000 + n % 50_000, "farkle", players_json,
                json.dumps({str(s): 10_000 - 50 * i for i, s in enumerate(seats)}), seats[0],
                json.dumps({"name": "Classic Farkle", "target": 10_000}), "Ann wins", at - 600, at,
                json.dumps({"rules": "classic"}), "[]", rng.randbytes(DICE_BYTES),
                rng.randbytes(LOG_BYTES), json.dumps({"chart": "line", "pad": "x" * 500}),
            )
        )  # fmt: skip
        for i, s in enumerate(seats):
            players.append((n, s, guild, "farkle", int(i == 0), 10_000 - 50 * i, 0, 0, 0, at,
                            "{}", i + 1, None))  # fmt: skip
    return games, players


GAME_COLUMNS = (
    "id, guild_id, channel_id, kind, players, scores, winner_id, rules, outcome, started_at,"
    " finished_at, lobby, bots, dice_packed, log_packed, story"
)
SESSION_COLUMNS = (
    "channel_id, guild_id, kind, data, revision, message_id, deadline, created_at,"
    " updated_at, shown_revision"
)


async def packed(store: Store) -> bool:
    """Whether the schema keeps a finished game's log and dice packed (migration 11): a
    version before it (measured for the figures before) is filled with text of the same
    sizes in `dice` and `log`."""
    if isinstance(store, SqliteStore):
        columns = [r[1] for r in await store.db.read("PRAGMA table_info(finished_games)")]
    else:
        columns = [
            r[0]
            for r in await store.pool.fetch(  # type: ignore[attr-defined]
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_name = 'finished_games'"
            )
        ]
    return "dice_packed" in columns


async def fill(store: Store, args: argparse.Namespace) -> None:
    rng = random.Random(1)
    sessions = session_rows(args.sessions, rng)
    games, players = finished_rows(args, rng)
    global GAME_COLUMNS
    if not await packed(store):
        GAME_COLUMNS = GAME_COLUMNS.replace("dice_packed, log_packed", "dice, log")
        games = [(*g[:13], g[13].hex()[: len(g[13])], g[14].hex()[: len(g[14])], g[15]) for g in games]
    if isinstance(store, SqliteStore):

        def bulk(conn: Any) -> None:
            for table, columns, rows in (
                ("sessions", SESSION_COLUMNS, sessions),
                ("finished_games", GAME_COLUMNS, games),
                ("player_stats", PLAYER_COLUMNS, players),
            ):
                marks = ",".join("?" * len(rows[0]))
                conn.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)

        store.db.transaction(bulk)
        await store.db.checkpoint()
        await store.db.execute("ANALYZE")
        return
    async with store.pool.acquire() as conn:  # type: ignore[attr-defined]
        for table, columns, rows in (
            ("sessions", SESSION_COLUMNS, sessions),
            ("finished_games", GAME_COLUMNS, games),
            ("player_stats", PLAYER_COLUMNS, players),
        ):
            await conn.copy_records_to_table(
                table, records=rows, columns=[c.strip() for c in columns.split(",")]
            )
        await conn.execute(
            "SELECT setval(pg_get_serial_sequence('finished_games', 'id'), $1)", args.finished
        )
        await conn.execute("ANALYZE")


class Stalls:
    """The event loop's longest stall while it runs: a ticker that yields to the loop
    again and again and notes the longest time it took to come back."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        before = time.perf_counter()
        while True:
            await asyncio.sleep(0)
            now = time.perf_counter()
            self.longest = max(self.longest, now - before)
            before = now

    async def __aenter__(self) -> Stalls:
        self._task = asyncio.create_task(self._tick())
        await asyncio.sleep(0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        await asyncio.sleep(0)  # the ticker comes back once more: a stall up to here counts
        await asyncio.sleep(0)
        self._task.cancel()


async def timed(
    label: str, runs: int, work: Callable[[int], Awaitable[object]], stats: dict[str, Any]
) -> None:
    """`work(i)` once to warm up, then `runs` times: its time and the loop's longest stall."""
    await work(-1)
    times, stalls = [], []
    for i in range(runs):
        async with Stalls() as stall:
            began = time.perf_counter()
            await work(i)
            times.append(time.perf_counter() - began)
        stalls.append(stall.longest)
    print(
        f"  {label:<44} p50 {ms(percentile(times, 50)):>9}, max {ms(max(times)):>9};"
        f" loop stalled at most {ms(max(stalls))}",
        flush=True,
    )
    stats[label] = max(stalls)


def a_finished_game(channel: int, i: int) -> FinishedGame:
    seats = [REGULAR, GUILD + 900_000 + i]
    return FinishedGame(
        guild_id=GUILD,
        channel_id=channel,
        kind="farkle",
        players=[{"id": s, "name": f"P{n}"} for n, s in enumerate(seats)],
        scores={str(seats[0]): 10_000, str(seats[1]): 8_000},
        winner_id=seats[0],
        rules={"name": "Classic Farkle", "target": 10_000},
        outcome="Ann wins",
        started_at=FINISHED_AT,
        finished_at=FINISHED_AT + 10**6 + i,
        places={str(seats[0]): 1, str(seats[1]): 2},
        dice={"commitment": "0" * 64,  # fmt: skip "v": 2, "seed": "0" * 32, "at": 600,
              "moves": [{"by": seats[i % 2], "act": "roll",
                         "draws": [["dice", i, seats[i % 2], "throw", [1, 5, 3, 2, 6, 4]]]}
                        for i in range(300)]},
        log=[{"k": "{name} banked {points}.", "a": {"name": "Ann", "points": 300}}],
        story={"chart": "line"},
    )


async def measure(name: str, database: Path | str, args: argparse.Namespace) -> None:
    store = await Store.open(database)
    try:
        began = time.perf_counter()
        await fill(store, args)
        print(
            f"{name}: filled in {time.perf_counter() - began:.0f} s with {args.sessions:,} running"
            f" sessions and {args.finished:,} finished games ({args.history:,} of them the"
            " regular player's)",
            flush=True,
        )
        stats: dict[str, Any] = {}
        await timed("behind_sessions (start, RESUME)", args.runs,
                    lambda i: store.behind_sessions(), stats)  # fmt: skip
        await timed("count_sessions (start)", args.runs, lambda i: store.count_sessions(), stats)

        async def moves(channel: int) -> None:
            """A running game of 100 saved moves, 3 log lines each (set-up, not timed)."""
            for revision in range(1, 101):
                lines = [json.dumps({"k": "{name} rolled {dice}.", "a": {"n": revision}})] * 3
                row = SessionRow(channel, GUILD, "farkle", "{}", revision, None, None,
                                 FINISHED_AT, log=lines)  # fmt: skip
                assert await store.save_session(row)

        finishes, longest = [], []
        for i in range(-1, args.runs):  # the first a warm-up
            channel = GUILD + 6_000_000 + i + 1
            await moves(channel)
            async with Stalls() as stall:
                began = time.perf_counter()
                await store.finish_session(channel, a_finished_game(channel, i + 1), revision=100)
                took = time.perf_counter() - began
            if i >= 0:
                finishes.append(took)
                longest.append(stall.longest)
        print(
            f"  {'recording a finished game (finish_session)':<44}"
            f" p50 {ms(percentile(finishes, 50)):>9}, max {ms(max(finishes)):>9};"
            f" loop stalled at most {ms(max(longest))}",
            flush=True,
        )
        place = place_of(GUILD, GUILD + 10_000)
        total, _ = await store.player_games(place, REGULAR, None, 0, 10)
        last = max(0, (total - 1) // 10 * 10)
        await timed(f"/history of a player of {total:,} games, page 1", args.runs,
                    lambda i: store.player_games(place, REGULAR, None, 0, 10), stats)  # fmt: skip
        await timed("  the same, its last page", args.runs,
                    lambda i: store.player_games(place, REGULAR, None, last, 10), stats)  # fmt: skip
    finally:
        await store.close()


def gc_timing(heap: int) -> None:
    """The start-up collection over `heap` objects: bot.tuning's, and a full gc.collect()."""
    gc.unfreeze()
    kept = [{"id": n, "name": str(n), "roles": [n]} for n in range(heap // 3)]
    began = time.perf_counter()
    gc.collect()
    full = time.perf_counter() - began
    gc.unfreeze()
    began = time.perf_counter()
    freeze_start_up()
    ours = time.perf_counter() - began
    gc.unfreeze()
    print(
        f"start-up collection over {len(gc.get_objects()):,} objects: freeze_start_up"
        f" {ms(ours)} on the loop (a full gc.collect() {ms(full)})"
    )
    del kept


async def run(args: argparse.Namespace) -> int:
    stores = args.stores.split(",")
    header(
        "bench.scale",
        f"the store's calls as the bot awaits them, in this process, with {args.sessions:,}"
        f" running sessions and {args.finished:,} finished games stored; SQLite: a WAL file;"
        " PostgreSQL: a server this benchmark started (fsync, synchronous commits on)",
    )
    with tempfile.TemporaryDirectory(prefix="tablebot-scale-") as tmp:
        if "sqlite" in stores:
            await measure("SQLite", Path(tmp) / "scale.sqlite3", args)
        if "postgresql" in stores:
            with own_postgres("bench_scale") as url:
                if url is None:
                    return 2
                await measure("PostgreSQL", url, args)
    gc_timing(args.heap)
    return 0


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
