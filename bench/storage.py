"""What a real game costs in the database: its running session while it is played, and the
finished game kept for /history, /stats and /verify once it is over.

    python -m bench.storage --games 20 --cache-dir /tmp/farkle-tables

Plays `--games` seeded two-player Classic Farkle games to 10,000 (`--rules`, `--target`)
through the table service on a real SQLite file, as the bot records them: two people each
press the buttons that make the Farkle bot policy's move (its value table built first, or
loaded from `--cache-dir`), every move committed with its log lines and its sealed dice.
The same two people play every game, so the per-player summaries (records, leaderboard
totals, ratings) do not grow with the games: what grows is the game itself. Prints, per
game, the finished_games row by column (the whole log, the record of every die with the
seed, the story picture's data, the rest; the log and the dice as stored, packed, and as
the JSON they unpack to), the player rows, and the database file's growth per game after
VACUUM; and the running session's row at its largest (its sealed draws apart). Sizes only:
asserts nothing."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.common import header
from bot.app import default_adapters
from bot.components import Click
from bot.replies import Reply
from bot.service import Actor, Tables
from bot.settings import GuildSettings
from bot.store import Store
from games.farkle import optimal, policy
from games.farkle.engine import Action, FarkleState
from games.farkle.rules import PRESETS, FarkleRules

GUILD = 1_500_000_000_000_000_000
CHANNEL = GUILD + 1
PEOPLE = (Actor(1_500_000_000_000_100_001, "Ann"), Actor(1_500_000_000_000_100_002, "Ben"))
MAX_CLICKS = 20_000
#: The finished_games columns reported apart (the rest are a few hundred bytes together);
#: the log and the dice are stored packed (bot/store/packed.py), older rows as text.
HEAVY = ("log", "dice", "story", "lobby")
PACKED = ("log", "dice")
#: The button that makes each kind of policy move (bot/tables/farkle.py).
BUTTON = {"toggle": "toggle", "roll": "roll", "bank": "bank", "piggyback": "piggy"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.storage", description=__doc__)
    p.add_argument("--games", type=int, default=20, help="games played, seeds 1..N")
    p.add_argument("--rules", default="classic", choices=sorted(PRESETS))
    p.add_argument("--target", type=int, default=None, help="default: the preset's (10,000)")
    p.add_argument("--cache-dir", default=None, help="load/save the policy's value table here")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error("--games must be at least 1")
    return args


def click_for(reply: Reply, action: Action) -> Click:
    """The button on the table that makes `action`, as a person would press it."""
    items = reply.table.items if reply.table is not None else reply.items
    clicks = [Click.parse(i.custom_id) for i in items or [] if not i.disabled]
    offered = {c.action: c for c in clicks if c is not None and c.action != "toggle"}
    if action.kind == "toggle":
        return next(
            c
            for c in clicks
            if c is not None and c.action == "toggle" and (c.arg or "").startswith(f"{action.index}-")
        )
    if action.best and f"best{action.kind}" in offered:
        return offered[f"best{action.kind}"]
    # (no Keep button: the selection already is the best keep, so Roll or Bank does it)
    return offered[BUTTON[action.kind]]


async def play_game(tables: Tables, seed: int, options: dict[str, object]) -> tuple[int, bool]:
    """One game from /farkle start to its end; returns how many presses it took, and
    whether the policy decided every move from its value table (not its fallback)."""
    minds = random.Random(seed)
    reply = await tables.open_lobby(PEOPLE[0], GUILD, CHANNEL, "farkle", options)
    await tables.table_posted(CHANNEL, 1)
    for actor, action in ((PEOPLE[1], "join"), (PEOPLE[0], "start")):
        click = next(
            c for c in (Click.parse(i.custom_id) for i in reply.items or []) if c and c.action == action
        )
        reply = await tables.click(actor, click, 1)
    by_id = {p.id: p for p in PEOPLE}
    from_table = True
    for clicks in range(MAX_CLICKS):
        session = await tables.sessions.get(CHANNEL)
        if session is None:
            return clicks, from_table
        state: FarkleState = session.state
        from_table = from_table and policy.ready(state.rules)
        seat = state.current_player.id
        action = policy.choose(state, seat, minds)
        assert action is not None, "the policy has no move for the player on turn"
        reply = await tables.click(by_id[seat], click_for(reply, action), 1)
        if reply.update is not None:  # what the bot records once Discord took the table
            await tables.shown(reply.update, 1)
    raise RuntimeError(f"game {seed} did not end in {MAX_CLICKS} clicks")


async def session_size(store: Store) -> tuple[int, int]:
    """The running session's row: its JSON's bytes, and those of its sealed draws."""
    rows = await store.db.read("SELECT data FROM sessions WHERE channel_id = ?", (CHANNEL,))
    if not rows:
        return 0, 0
    data = rows[0][0]
    draws = json.loads(data).get("draws")
    return len(data.encode()), len(json.dumps(draws, separators=(",", ":")).encode())


def stored_size(value: object) -> int:
    """A column's bytes as stored: a BLOB's own, text as UTF-8, a number as its text."""
    if value is None:
        return 0
    if isinstance(value, bytes):
        return len(value)
    return len(str(value).encode())


async def vacuumed_size(store: Store, path: Path) -> int:
    await store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    await store.db.execute("VACUUM")
    return path.stat().st_size


async def run(args: argparse.Namespace) -> int:
    rules = PRESETS[args.rules]
    if args.target:
        rules = FarkleRules(**{**rules.model_dump(), "target": args.target})
    options: dict[str, object] = {"rules": args.rules, "target": rules.target}
    began = time.perf_counter()
    table = optimal.prepare(rules, args.cache_dir)
    took = time.perf_counter() - began
    largest = (0, 0)
    clicks: list[int] = []
    from_table = True
    with tempfile.TemporaryDirectory(prefix="tablebot-storage-") as tmp:
        path = Path(tmp) / "bench.sqlite3"
        store = await Store.open(path)
        try:
            empty = await vacuumed_size(store, path)
            tables = Tables(
                store=store,
                adapters=default_adapters(),
                defaults=GuildSettings(),
                rng=random.Random(1),
            )
            sizes = tables.sessions.save

            async def measured_save(session: object) -> None:  # the row at its largest
                nonlocal largest
                await sizes(session)  # type: ignore[arg-type]
                largest = max(largest, await session_size(store))

            tables.sessions.save = measured_save  # type: ignore[method-assign]
            for seed in range(1, args.games + 1):
                tables.rng.seed(seed)  # the seeds of the games' sealed dice
                presses, ready = await play_game(tables, seed, options)
                clicks.append(presses)
                from_table = from_table and ready
            columns = await store.db.read_with_columns("SELECT * FROM finished_games ORDER BY id")
            records = await store.finished_games()
            [(player_rows,)] = await store.db.read("SELECT COUNT(*) FROM player_stats")
            full = await vacuumed_size(store, path)
        finally:
            await store.close()
    names, rows = columns
    header(
        "bench.storage",
        f"{args.games} seeded two-player games of {rules.name} to {rules.target:,} through the "
        "table service (SQLite WAL file, no Discord), both people pressing the buttons of the "
        "Farkle bot policy's moves",
    )
    how = "loaded" if took < table.seconds / 2 else "built"
    print(
        f"  the policy's value table: {how} in {took:.1f} s; every move decided from it: "
        + ("yes" if from_table else "NO (the policy's fallback played some)")
    )
    per_game: dict[str, list[int]] = {name: [] for name in (*HEAVY, "the rest", "row")}
    as_json: dict[str, list[int]] = {name: [] for name in PACKED}
    for row in rows:
        record = dict(zip(names, row, strict=True))
        total = 0
        sizes: dict[str, int] = {}
        for name, value in record.items():
            size = stored_size(value)
            total += size
            column = name.removesuffix("_packed")
            sizes[column] = sizes.get(column, 0) + size
        for name in HEAVY:
            per_game[name].append(sizes.get(name, 0))
        per_game["row"].append(total)
        per_game["the rest"].append(total - sum(per_game[h][-1] for h in HEAVY))
    for game in records:
        for name in PACKED:
            value = game[name]
            as_json[name].append(
                0 if value is None else len(json.dumps(value, separators=(",", ":")).encode())
            )
    logs = [len(game["log"] or []) for game in records]  # type: ignore[arg-type]
    print(
        f"games: {len(rows)} finished, {statistics.mean(clicks):,.0f} presses and "
        f"{statistics.mean(logs):,.0f} log lines a game (mean)"
    )

    def kb(values: list[int]) -> str:
        return f"{statistics.mean(values) / 1000:.1f} KB (min {min(values) / 1000:.1f}, max {max(values) / 1000:.1f})"

    print(f"finished game row (finished_games), per game: {kb(per_game['row'])}")
    for name in (*HEAVY, "the rest"):
        packed = f", packed from {kb(as_json[name])} of JSON" if name in PACKED else ""
        print(f"  {name:<9} {kb(per_game[name])}{packed}")
    print(
        f"database file after VACUUM: {(full - empty) / len(rows) / 1000:.1f} KB per finished "
        f"game, its row, its {player_rows / len(rows):.0f} player rows and their indexes "
        f"({full / 1000:,.0f} KB with {len(rows)} games, {empty / 1000:,.0f} KB empty)"
    )
    print(
        f"running session row at its largest: {largest[0] / 1000:.1f} KB of JSON, of which "
        f"its sealed draws {largest[1] / 1000:.1f} KB"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
