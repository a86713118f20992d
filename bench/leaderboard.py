"""How fast /leaderboard and /stats answer with a million finished games in the database.

    python -m bench.leaderboard --games 1000000

Fills a SQLite file (seeded) with finished games and their per-player rows in one bulk
insert, builds the leaderboard totals with the same SQL migration 6 uses, then times the
store's queries as the bot runs them (leaderboards in the reader's thread, the rest on the
event loop; see bot/store/sqlite_connection.py): the busiest server's leaderboards
(all games and one game; this week, this month and all time; the first page and a deep one)
and the stats of its most active player and of a typical one, plus recording one more
finished game. Prints p50/p99 over repeated runs; asserts nothing about time."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import sqlite3
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench.common import header, ms, percentile
from bot.records import ALL_GAMES, GAME_TITLES, period_keys
from bot.store import REBUILD_SQL, FinishedGame, Store
from bot.store.rows import PLAYER_COLUMNS, PlayerRow

KINDS = [("farkle", 0.5), ("kuriki", 0.3), ("crap", 0.2)]
SEATS = {"farkle": (2, 4), "kuriki": (2, 6), "crap": (3, 5)}
DAY = 86400.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.leaderboard", description=__doc__)
    p.add_argument("--games", type=int, default=1_000_000)
    p.add_argument("--guilds", type=int, default=100, help="servers the games are spread over")
    p.add_argument("--players", type=int, default=20_000, help="players of the busiest server")
    p.add_argument("--days", type=int, default=365, help="the games finished over this many days")
    p.add_argument("--runs", type=int, default=200, help="timed runs of each query")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--db", type=Path, help="keep the filled file here (default: a temp dir)")
    return p.parse_args(argv)


def counters(kind: str, rng: random.Random) -> dict[str, int]:
    """Plausible per-game records of one player."""
    r = rng.randint
    if kind == "farkle":
        return {"farkles": r(0, 8), "hot_dice": r(0, 3), "best_turn": 50 * r(0, 60)}
    if kind == "kuriki":
        return {"kurikis": r(0, 2), "fouls": r(0, 2), "tarted": r(0, 1), "pull_lives": r(0, 3)}
    return {"sets": r(0, 6), "best_round": 10 * r(0, 40), "bluffs": r(0, 3), "calls": r(0, 2)}


def fill(path: Path, args: argparse.Namespace) -> tuple[int, float]:
    """Write the games; returns the busiest server's id and the seconds it took. Half the
    games are in the busiest server (the worst case for its leaderboard), the rest spread
    over the others; a few players play most (Zipf-like), 3% are abandoned, 5% have a bot."""
    rng = random.Random(args.seed)
    now = time.time()
    busiest = 1
    weights = [args.guilds] + [1] * (args.guilds - 1)
    pools = {
        g: max(50, args.players // (1 if g == busiest else 20)) for g in range(1, 1 + args.guilds)
    }
    zipf = list(itertools.accumulate(1 / (i + 1) ** 0.8 for i in range(max(pools.values()))))
    cum = {pool: zipf[:pool] for pool in set(pools.values())}
    kinds, kind_weights = zip(*KINDS, strict=True)
    started = time.perf_counter()
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("BEGIN")
    game_rows: list[tuple[Any, ...]] = []
    player_rows: list[tuple[Any, ...]] = []
    guilds = rng.choices(range(1, 1 + args.guilds), weights, k=args.games)
    for game_id, guild in enumerate(guilds, start=1):
        kind = rng.choices(kinds, kind_weights)[0]
        pool = pools[guild]
        seats = rng.randint(*SEATS[kind])
        everyone: list[int] = []
        while len(everyone) < seats:
            pick = rng.choices(range(pool), cum_weights=cum[pool])[0]
            pid = 10**17 + guild * 10**6 + pick
            if pid not in everyone:
                everyone.append(pid)
        bots: list[int] = []
        if seats > 2 and rng.random() < 0.05:  # the last seat was a bot
            bots = [rng.randint(1, 99)]
            everyone[-1] = bots[0]
        abandoned = rng.random() < 0.03
        winner = None if abandoned else rng.choice(everyone)
        at = now - rng.random() * args.days * DAY
        scores = {str(p): rng.randint(0, 10_000) for p in everyone}
        stats = {str(p): counters(kind, rng) for p in everyone}
        game = FinishedGame(
            guild_id=guild,
            channel_id=guild * 10 + 1,
            kind=kind,
            players=[{"id": p, "name": f"P{p % 10**6}"} for p in everyone],
            scores=scores,
            winner_id=winner,
            rules={},
            outcome="bench",
            started_at=at - 900,
            stats=stats,
            bots=bots,
            finished_at=at,
        )
        game_rows.append(
            (game_id, guild, game.channel_id, kind, json.dumps(game.players), json.dumps(scores),
             winner, "{}", "bench", at - 900, at, "[]" if not bots else json.dumps(bots))
        )  # fmt: skip
        player_rows += game.player_rows(game_id, at)
        if len(game_rows) >= 50_000:
            flush(con, game_rows, player_rows)
    flush(con, game_rows, player_rows)
    con.executescript(REBUILD_SQL)  # commits the transaction
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("ANALYZE")
    con.close()
    return busiest, time.perf_counter() - started


def flush(
    con: sqlite3.Connection, games: list[tuple[Any, ...]], players: list[tuple[Any, ...]]
) -> None:
    con.executemany(
        "INSERT INTO finished_games (id, guild_id, channel_id, kind, players, scores, winner_id,"
        " rules, outcome, started_at, finished_at, bots) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        games,
    )
    con.executemany(  # the columns the store writes (bot/store/rows.py), so they follow it
        f"INSERT INTO player_stats ({PLAYER_COLUMNS})"
        f" VALUES ({', '.join('?' * len(PlayerRow._fields))})",
        players,
    )
    games.clear()
    players.clear()


async def timed(runs: int, call: Callable[[], Awaitable[object]]) -> list[float]:
    await call()  # the first run reads the pages into the cache
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        await call()
        out.append(time.perf_counter() - t0)
    return out


async def measure(path: Path, busiest: int, args: argparse.Namespace) -> None:
    store = await Store.open(path)  # already at the newest version: no migration runs
    try:
        async with store.db.execute(
            "SELECT player_id, SUM(games + bot_games + abandoned) AS n FROM player_records"
            " WHERE guild_id = ? AND player_id > 99 GROUP BY player_id ORDER BY n DESC",
            (busiest,),
        ) as cur:
            ranked = [tuple(r) for r in await cur.fetchall()]
        top, median = ranked[0], ranked[len(ranked) // 2]
        keys = period_keys(time.time())
        sizes = Counter[str]()
        for period, key in keys.items():
            total, _ = await store.leaderboard(busiest, ALL_GAMES, key, 0, 10)
            sizes[period] = total
        print(
            f"  busiest server: {sizes['all']} players on its all-time board "
            f"({sizes['month']} this month, {sizes['week']} this week); its most active "
            f"player has {top[1]} games, a median one {median[1]}"
        )
        cases: list[tuple[str, Callable[[], Awaitable[object]]]] = []
        for period in ("all", "month", "week"):
            key = keys[period]  # type: ignore[index]
            for kind in (ALL_GAMES, "farkle"):
                name = "all games" if kind == ALL_GAMES else kind
                cases.append(
                    (f"/leaderboard {name}, {period}, page 1",
                     lambda k=kind, p=key: store.leaderboard(busiest, k, p, 0, 10))
                )  # fmt: skip
        deep = (sizes["all"] // 10 // 2) * 10
        cases.append(
            (f"/leaderboard all games, all, page {deep // 10 + 1}",
             lambda: store.leaderboard(busiest, ALL_GAMES, "all", deep, 10))
        )  # fmt: skip
        for who, (pid, _) in (("most active", top), ("median", median)):
            cases.append(
                (f"/stats of the {who} player, every game",
                 lambda p=pid: store.player_records(busiest, p, list(GAME_TITLES)))
            )  # fmt: skip
        cases.append(
            ("/stats of the most active player, farkle",
             lambda: store.player_records(busiest, top[0], ["farkle"]))
        )  # fmt: skip
        for name, call in cases:
            times = await timed(args.runs, call)
            print(
                f"  {name:<48} p50 {ms(percentile(times, 50)):>8}, p99 "
                f"{ms(percentile(times, 99)):>8}, max {ms(max(times)):>8}"
            )
        writes = []
        for i in range(args.runs):
            game = FinishedGame(
                guild_id=busiest, channel_id=7, kind="farkle",
                players=[{"id": top[0], "name": "T"}, {"id": median[0], "name": "M"}],
                scores={str(top[0]): 10_000, str(median[0]): 9_000},
                winner_id=top[0] if i % 2 else median[0], rules={}, outcome="bench",
                started_at=time.time() - 600,
                stats={str(top[0]): counters("farkle", random.Random(i))},
            )  # fmt: skip
            t0 = time.perf_counter()
            await store.finish_session(7, game)
            writes.append(time.perf_counter() - t0)
        print(
            f"  {'recording a finished game (2 players)':<48} p50 {ms(percentile(writes, 50)):>8}"
            f", p99 {ms(percentile(writes, 99)):>8}, max {ms(max(writes)):>8}"
        )
    finally:
        await store.close()


async def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    header(
        "bench.leaderboard",
        f"{args.games} finished games over {args.guilds} servers and {args.days} days, half "
        f"in the busiest; {args.runs} timed runs of each query (after one warm-up)",
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "leaderboard.sqlite3"
        path.unlink(missing_ok=True)
        store = await Store.open(path)  # the schema, by the migrations
        await store.close()
        busiest, seconds = fill(path, args)
        size = path.stat().st_size / 2**20
        print(f"  filled in {seconds:.0f} s: {size:.0f} MiB")
        await measure(path, busiest, args)


if __name__ == "__main__":
    asyncio.run(main())
