"""The bot's own share of a move, without Discord: `Tables.click` on a real SQLite file.

    python -m bench.service --moves 5000

One channel, two players, the same strategy as bench.interactions; each click goes through
the one write path (lock, load, engine move, commit, render) and then builds the view
discord.py would send. Prints per-move times of the parts, and the size of the game's whole
log (kept beside its session, whose size stays that of the table's window); then, for each
move of `--at` (a long game's click against an early one), the median `Tables.click` over
the `--window` clicks up to it and the saved session's size there. Asserts nothing about
time."""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import header
from bot.app import default_adapters
from bot.components import Click
from bot.service import Actor, Reply, Tables
from bot.settings import GuildSettings
from bot.store import Store
from games.farkle.rules import PRESETS
from games.farkle.scoring import best_selection


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.service", description=__doc__)
    p.add_argument("--moves", type=int, default=5000)
    p.add_argument("--rules", default="classic", choices=sorted(PRESETS))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--at", default="300", help="moves to compare a click at (and --moves)")
    p.add_argument("--window", type=int, default=200, help="clicks up to each of --at")
    args = p.parse_args(argv)
    args.marks = sorted({*(int(m) for m in args.at.split(",") if m), args.moves})
    if args.marks[0] < 1 or args.marks[-1] > args.moves:
        p.error("--at: moves between 1 and --moves")
    return args


def timed(spent: dict[str, float], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    if asyncio.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def async_wrapper(*a: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return await fn(*a, **kw)
            finally:
                spent[name] += time.perf_counter() - t

        return async_wrapper

    @functools.wraps(fn)
    def wrapper(*a: Any, **kw: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            spent[name] += time.perf_counter() - t

    return wrapper


def choose(reply: Reply, tables: Tables, channel: int, rules: Any) -> tuple[int, Click]:
    session = tables.sessions._cache[channel]
    state = session.state
    clicks = [Click.parse(i.custom_id) for i in reply.items or [] if not i.disabled]
    by_action: dict[str, list[Click]] = {}
    for c in clicks:
        if c is not None:
            by_action.setdefault(c.action, []).append(c)
    turn = state.turn
    if not turn.dice:
        return state.current_player.id, by_action["roll"][0]
    wrong = sorted(set(best_selection(turn.dice, rules)) ^ set(turn.selected))
    if wrong:
        toggle = next(c for c in by_action["toggle"] if (c.arg or "").startswith(f"{wrong[0]}-"))
        return state.current_player.id, toggle
    left = len(turn.dice) - len(turn.selected)
    if "bank" in by_action and ((left and left <= 2) or "roll" not in by_action):
        return state.current_player.id, by_action["bank"][0]
    return state.current_player.id, by_action["roll"][0]


async def run(args: argparse.Namespace) -> None:
    rules = PRESETS[args.rules]
    with tempfile.TemporaryDirectory(prefix="tablebot-service-") as tmp:
        store = await Store.open(Path(tmp) / "bench.sqlite3")
        tables = Tables(
            store=store,
            adapters=default_adapters(),
            defaults=GuildSettings(),
            rng=random.Random(args.seed),
        )
        spent = dict.fromkeys(("click", "engine", "save", "render", "view"), 0.0)
        adapter = tables.adapters["farkle"]
        adapter.apply = timed(spent, "engine", adapter.apply)  # type: ignore[method-assign]
        adapter.render = timed(spent, "render", adapter.render)  # type: ignore[method-assign]
        tables.sessions.save = timed(spent, "save", tables.sessions.save)  # type: ignore[method-assign]
        players = {1: Actor(1, "Ann"), 2: Actor(2, "Ben")}
        channel = 42
        reply = await tables.open_lobby(
            players[1], 7, channel, "farkle", {"rules": args.rules, "target": 1_000_000}
        )
        for actor, action in ((players[2], "join"), (players[1], "start")):
            click = next(
                c
                for c in (Click.parse(i.custom_id) for i in reply.items or [])
                if c and c.action == action
            )
            reply = await tables.click(actor, click, 1)
        for key in spent:
            spent[key] = 0.0
        clicks: list[float] = []
        sizes: dict[int, int] = {}  # the saved session's bytes at each of --at
        cpu0, t0 = time.process_time(), time.perf_counter()
        for move in range(1, args.moves + 1):
            who, click = choose(reply, tables, channel, rules)
            t = time.perf_counter()
            reply = await tables.click(players[who], click, 1)
            if reply.update is not None:  # what the bot records once Discord took the table
                await tables.shown(reply.update, reply.update.message_id or 1)
            u = time.perf_counter()
            reply.view().to_components()  # type: ignore[union-attr]
            spent["view"] += time.perf_counter() - u
            spent["click"] += u - t
            clicks.append(u - t)
            if move in args.marks:
                [(row,)] = await store.db.read(
                    "SELECT LENGTH(CAST(data AS BLOB)) FROM sessions WHERE channel_id = ?",
                    (channel,),
                )
                sizes[move] = row
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        # The game's whole log, kept beside its state (which keeps only the table's window).
        [(rows, size)] = await store.db.read(
            "SELECT COUNT(*), COALESCE(SUM(LENGTH(lines)), 0) FROM game_log WHERE channel_id = ?",
            (channel,),
        )
        lines = len(await store.game_log(channel))
        [(data,)] = await store.db.read("SELECT data FROM sessions WHERE channel_id = ?", (channel,))
        state_size = len(data.encode())
        draws_size = len(json.dumps(json.loads(data)["draws"], separators=(",", ":")).encode())
        await store.close()
    header("bench.service", "the table service in this process, no Discord; SQLite WAL file")
    n = args.moves

    def us(key: str) -> str:
        return f"{spent[key] / n * 1e6:.0f} us"

    rest = spent["click"] - spent["engine"] - spent["save"] - spent["render"]
    print(
        f"{n} moves ({args.rules}) in {wall:.2f} s = {n / wall:,.0f} moves/s, "
        f"CPU {cpu / n * 1e6:.0f} us/move (both threads)"
    )
    print(
        f"per move: Tables.click {us('click')} = engine move {us('engine')} + commit "
        f"(encode + SQLite) {us('save')} + render {us('render')} + the rest (lock, load, "
        f"copies, checks) {rest / n * 1e6:.0f} us; then the discord.py view {us('view')}"
    )
    print(
        f"log kept: {lines:,} lines in {rows:,} rows, {size / 1024:,.0f} KiB of JSON "
        f"({size / max(lines, 1):.0f} bytes a line); the saved session {state_size / 1024:.1f} KiB"
        f", of which the record of its sealed draws {draws_size / 1024:.1f} KiB"
    )
    first = None
    for mark in args.marks:
        window = clicks[max(0, mark - args.window) : mark]
        median = statistics.median(window)
        first = first or median
        print(
            f"click at move {mark:,}: Tables.click median {median * 1e6:.0f} us over the"
            f" {len(window)} clicks up to it ({median / first:.2f}x the first);"
            f" saved session {sizes[mark] / 1024:.1f} KiB"
        )


def main(argv: list[str] | None = None) -> int:
    asyncio.run(run(parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
