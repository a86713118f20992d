"""What games played over days cost while nobody moves, and how long /games takes.

    python -m bench.over_days --games 10000 100000 --player-games 50

For each size in `--games`, a SQLite file (filled by this process) holds that many running
Farkle games (copies of one real game's stored row, started through the table service with a
7-day turn timer, each with its two seats in /games' index and its turn's reminders row as
the game's commit keeps it, bot/reminders.py `Reminders.new_turn`, with the reminders before
now taken). Their deadlines are spread evenly from two hours to seven days ahead, leaving out
the hour in which a game's half-time reminder would fall, so that each game's next reminder
(half time, or an hour before its deadline, bot/reminder_times.py `schedule`) is at least an
hour ahead too. The bot's timer loop (bot/timers.py `TurnTimers`, over a real table service)
then runs through an hour on an injected clock: each time it wakes, as it does every
`MAX_SLEEP` (30) seconds, the clock moves on those 30 seconds, so an hour is 120 wakes. The
hour is one "while nothing happens" (issue 35): no deadline and no reminder falls due in it,
so it measures what waiting costs; what a reminder costs when it falls due is one game read
and one commit, like a move. All of it runs in a fresh process that opens the file as the bot
does. Printed: that process's CPU for the hour (with tracemalloc tracing, which slows it), the
store's reads for the sessions and for the reminders (each wake reads the next reminder, the
reminders due and the outbox) and any reminder written, the games read and kept in memory
(none), the memory Python holds for the bot since before the store was opened (tracemalloc)
and RSS. Then `/games` (bot/games_list.py `my_games`: the store's index
read and the answer written) for a player who sits at `--player-games` of those games,
`--runs` times after a warm-up: p50 and p99. Asserts nothing."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import bot.timers as timers
from bench.common import header, percentile, proc_memory
from bot.app import default_adapters
from bot.components import Click
from bot.games_list import my_games
from bot.reminder_times import HOUR, schedule
from bot.service import Actor, Tables
from bot.settings import GuildSettings
from bot.store import SqliteStore, Store
from bot.timers import TurnTimers
from bot.tuning import tune_gc

WEEK = 7 * 86400
START = 1_800_000_000.0
GUILD = 1_700_000_000_000_000_000
CHANNELS = GUILD + 1_000_000
PEOPLE = GUILD + 5_000_000
REGULAR = GUILD + 9_999_999  # the player whose /games is timed


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.over_days", description=__doc__)
    p.add_argument("--games", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--player-games", type=int, default=50)
    p.add_argument("--runs", type=int, default=500, help="/games answers timed")
    p.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--database", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


class Clock:
    """The table service's clock: moved on by hand."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


async def real_row(path: Path) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    """A started two-player Farkle game as the bot stores it (its session row and what it
    keeps beside it), with a 7-day turn timer; its commit kept the turn's reminders row,
    which `fill` writes for each copy as that commit would (checked here)."""
    store = await Store.open(path)
    tables = Tables(
        store=store,
        adapters=default_adapters(),
        defaults=GuildSettings(turn_timer=WEEK),
        rng=random.Random(1),
        clock=Clock(),
    )
    ann, ben = Actor(PEOPLE, "Ann"), Actor(PEOPLE + 1, "Ben")
    reply = await tables.open_lobby(ann, GUILD, CHANNELS, "farkle", {"rules": "classic"})
    await tables.table_posted(CHANNELS, CHANNELS + 1)
    for actor, action in ((ben, "join"), (ann, "start")):
        click = next(
            c for c in (Click.parse(i.custom_id) for i in reply.items or []) if c and c.action == action
        )
        reply = await tables.click(actor, click, CHANNELS + 1)
    await store.close()
    con = sqlite3.connect(path)
    try:
        row = con.execute(
            "SELECT data, revision, message_id, created_at FROM sessions WHERE channel_id = ?",
            (CHANNELS,),
        ).fetchone()
        logged = con.execute(
            "SELECT revision, lines, beside FROM game_log WHERE channel_id = ?", (CHANNELS,)
        ).fetchall()
        reminder = con.execute(
            "SELECT turn_start, turn_end, sent, remind_at FROM reminders WHERE channel_id = ?",
            (CHANNELS,),
        ).fetchone()
    finally:
        con.close()
    assert reminder == (START, START + WEEK, 0, schedule(START, START + WEEK)[0]), reminder
    return row, logged


#: No game's half time falls in the idle hour: deadlines whose would are moved past it.
GAP = HOUR + 60


def turn(n: int, games: int) -> tuple[float, int, float]:
    """Game `n`'s turn deadline and its reminders row as the bot keeps it (a turn of 7 days
    that started a week before its deadline; the reminders before now taken): how many
    were taken and when the next is due. Deadlines are spread evenly from two hours to
    seven days ahead, leaving out the hour in which half times would fall, so that every
    game's next reminder (and deadline) is at least an hour ahead."""
    deadline = START + 2 * HOUR + 60 + (WEEK - 2 * HOUR - 120 - GAP) * n / games
    if deadline > START + WEEK / 2:
        deadline += GAP
    slots = schedule(deadline - WEEK, deadline)
    sent = sum(1 for at in slots if at <= START)
    return deadline, sent, slots[sent]


def fill(path: Path, games: int, row: tuple[Any, ...], logged: list[Any], player_games: int) -> None:
    """`games` copies of the game, one per channel, their deadlines and reminders as
    `turn` spreads them; two seats each, the regular player at `player_games` of them."""
    data, revision, _message, created = row
    rng = random.Random(2)
    every = max(1, games // max(player_games, 1))
    sessions, logs, seats, reminders = [], [], [], []
    for n in range(games):
        channel = CHANNELS + n
        deadline, sent, remind_at = turn(n, games)
        reminders.append((channel, GUILD + n % 1000, deadline - WEEK, deadline, sent, remind_at))
        text = data.replace(f'"turn_deadline":{START + WEEK}', f'"turn_deadline":{deadline}')
        sessions.append((channel, GUILD + n % 1000, "farkle", text, revision, channel + 1,
                         deadline, created, START - rng.random() * WEEK, revision))  # fmt: skip
        logs += [(channel, r, lines, beside) for r, lines, beside in logged]
        first = REGULAR if n % every == 0 and n // every < player_games else PEOPLE + 2 * (n % 20_000)
        since = START - rng.random() * WEEK
        seats += [(first, channel, "Ann", 1, since, 1), (PEOPLE + 2 * (n % 20_000) + 1, channel, "Ben", 0, since, 1)]
    con = sqlite3.connect(path)
    try:
        with con:
            con.execute("DELETE FROM sessions")
            con.execute("DELETE FROM game_log")
            con.execute("DELETE FROM seats")
            con.execute("DELETE FROM reminders")
            con.executemany(
                "INSERT INTO sessions (channel_id, guild_id, kind, data, revision, message_id,"
                " deadline, created_at, updated_at, shown_revision) VALUES (?,?,?,?,?,?,?,?,?,?)",
                sessions,
            )
            con.executemany("INSERT INTO game_log (channel_id, revision, lines, beside) VALUES (?,?,?,?)", logs)
            con.executemany(
                "INSERT INTO seats (player_id, channel_id, name, waiting, since, started)"
                " VALUES (?,?,?,?,?,?)",
                seats,
            )
            con.executemany(
                "INSERT INTO reminders (channel_id, guild_id, turn_start, turn_end, sent,"
                " remind_at) VALUES (?,?,?,?,?,?)",
                reminders,
            )
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.execute("ANALYZE")
    finally:
        con.close()


#: The store's calls counted over the idle hour: the sessions' (the timer loop's and a game
#: read), the reminders' reads each wake, and what taking a reminder would read and write.
SESSION_CALLS = ("next_deadline", "due_sessions", "load_session")
REMINDER_READS = ("next_reminder", "due_reminders", "outbox", "remind_prefs", "reminder")
REMINDER_WRITES = ("claim_reminder", "hold_reminder", "drop_reminders", "schedule_reminders", "posted")


def rss_kib() -> int:
    return proc_memory(os.getpid()).get("VmRSS", 0)


async def idle_hour(path: Path, args: argparse.Namespace) -> Tables:
    """The timer loop through an hour in which no deadline falls (see the module's
    docstring); prints what it cost. Returns the table service, still open."""
    store = await Store.open(path)
    clock = Clock()
    tables = Tables(store=store, adapters=default_adapters(), rng=random.Random(3), clock=clock)
    reads = dict.fromkeys([*SESSION_CALLS, *REMINDER_READS, *REMINDER_WRITES], 0)
    wakes = 3600 / timers.MAX_SLEEP
    hour = asyncio.Event()
    for name in reads:
        method = getattr(store, name)

        async def counted(*a: Any, _name: str = name, _method: Any = method) -> Any:
            reads[_name] += 1
            if _name == "next_deadline":
                clock.now += timers.MAX_SLEEP  # the 30 s the loop sleeps pass
                if reads[_name] >= wakes:
                    hour.set()
            return await _method(*a)

        setattr(store, name, counted)
    loop = TurnTimers(SimpleBot(tables))  # type: ignore[arg-type]  # it reads .tables only
    timers.MAX_SLEEP, real_sleep = 0.0005, timers.MAX_SLEEP  # wake at once, not in 30 s
    gc.collect()
    rss_before = rss_kib()
    held_before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    cpu = time.process_time()
    loop.start()
    await hour.wait()
    spent = time.process_time() - cpu
    await loop.stop()
    current, peak = tracemalloc.get_traced_memory()
    timers.MAX_SLEEP = real_sleep
    taken = sum(reads[name] for name in REMINDER_WRITES)
    print(
        f"  an idle hour ({reads['next_deadline']} wakes, {reads['next_deadline'] * real_sleep / 3600:.0f} h"
        f" on the clock): CPU {spent * 1000:.1f} ms, store reads: {reads['next_deadline']}"
        f" next_deadline + {reads['due_sessions']} due_sessions; reminders: {reads['next_reminder']}"
        f" next_reminder + {reads['due_reminders']} due_reminders + {reads['outbox']} outbox,"
        f" {reads['remind_prefs']} remind_prefs, {taken} written; {reads['load_session']} games"
        f" read, {len(tables.sessions._cache)} in memory",
        flush=True,
    )
    print(
        f"  memory over the hour: {(current - held_before) / 1024:+.1f} KiB held, peak"
        f" {(peak - held_before) / 1024:.1f} KiB above the start (tracemalloc); RSS"
        f" {(rss_kib() - rss_before) / 1024:+.1f} MiB",
        flush=True,
    )
    return tables


class SimpleBot:
    """What TurnTimers reads of the bot: its table service."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables


async def games_list(tables: Tables, args: argparse.Namespace) -> None:
    """/games for the regular player, timed (p50, p99)."""
    reply = await my_games(tables, REGULAR)  # warm-up
    assert reply.embed is not None
    times = []
    for _ in range(args.runs):
        began = time.perf_counter()
        await my_games(tables, REGULAR)
        times.append(time.perf_counter() - began)
    total, _games = await tables.store.player_seats(REGULAR, 200)
    print(
        f"  /games for a player in {total} of them: p50 {percentile(times, 50) * 1000:.2f} ms,"
        f" p99 {percentile(times, 99) * 1000:.2f} ms ({args.runs} answers)",
        flush=True,
    )


async def prepare(path: Path, games: int, args: argparse.Namespace) -> None:
    """The database of `games` running games (in the parent: its memory is not measured)."""
    row, logged = await real_row(path)
    began = time.perf_counter()
    fill(path, games, row, logged, args.player_games)
    size = path.stat().st_size / 1024 / 1024
    print(
        f"{games:,} running games, deadlines 2 h to 7 days ahead, reminders 1 h to 7 days ({size:.0f} MiB file, filled"
        f" in {time.perf_counter() - began:.1f} s):",
        flush=True,
    )


async def child(args: argparse.Namespace, path: Path) -> None:
    tune_gc()
    gc.collect()
    rss_start = rss_kib()
    tracemalloc.start()
    tables = await idle_hour(path, args)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(
        f"  the bot's memory after the hour: {held / 1024 / 1024:.2f} MiB held by Python since"
        f" before the store was opened (tracemalloc); RSS {rss_start / 1024:.1f} MiB before,"
        f" {rss_kib() / 1024:.1f} MiB after",
        flush=True,
    )
    assert isinstance(tables.store, SqliteStore)
    await games_list(tables, args)
    await tables.store.close()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child is not None:
        asyncio.run(child(args, Path(args.database)))
        return 0
    header("bench.over_days", "the timer loop and /games over a real table service; SQLite")
    given = list(argv if argv is not None else sys.argv[1:])
    for games in args.games:
        with tempfile.TemporaryDirectory(prefix="tablebot-days-") as tmp:
            path = Path(tmp) / "bench.sqlite3"
            asyncio.run(prepare(path, games, args))
            subprocess.run(
                [sys.executable, "-m", "bench.over_days", *given, "--child", str(games),
                 "--database", str(path)],
                check=True,
            )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
