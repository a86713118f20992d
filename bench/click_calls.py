"""How far one click travels through the code: the calls one Farkle Roll makes in the
project's own modules (bot/ and games/), how many modules it visits, and how often it goes
back into a module it has already been in.

    python -m bench.click_calls

A game of two players on a real SQLite file in a temporary directory, through `Tables` as the
component handler calls it; the first Roll of the game is watched with `sys.setprofile`. Only
calls into a function whose code lives in bot/ or games/ count (a coroutine resumed counts
again, as the profiler sees it). A hop is a call from one project module into another (the
caller being the nearest project function on the stack); a re-entry is a hop into a module
the click had already visited. The figures are counts, not times: they change only when the
code does. Asserts nothing."""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from bench.common import REPO, header
from bot.app import default_adapters
from bot.components import Click
from bot.service import Actor, Reply, Tables
from bot.settings import GuildSettings
from bot.store import Store

ROOTS = tuple(str(REPO / part) + "/" for part in ("bot", "games"))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.click_calls", description=__doc__)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--top", type=int, default=8, help="modules and hops to list by count")
    return p.parse_args(argv)


def module_of(filename: str) -> str | None:
    """`bot.moves` for REPO/bot/moves.py; None outside bot/ and games/."""
    if not filename.startswith(ROOTS):
        return None
    relative = Path(filename).relative_to(REPO).with_suffix("")
    return ".".join(relative.parts).removesuffix(".__init__")


@dataclass
class Walk:
    """What the profiler saw of one click."""

    calls: int = 0
    hops: int = 0
    reentries: int = 0
    visited: set[str] = field(default_factory=set)
    per_module: Counter[str] = field(default_factory=Counter)
    per_hop: Counter[tuple[str, str]] = field(default_factory=Counter)
    _modules: dict[str, str | None] = field(default_factory=dict)

    def _module(self, frame: FrameType | None) -> str | None:
        if frame is None:
            return None
        name = frame.f_code.co_filename
        if name not in self._modules:
            self._modules[name] = module_of(name)
        return self._modules[name]

    def watch(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        module = self._module(frame)
        if module is None:
            return
        self.calls += 1
        self.per_module[module] += 1
        caller = frame.f_back
        while caller is not None and self._module(caller) is None:
            caller = caller.f_back
        came_from = self._module(caller)
        if came_from is not None and came_from != module:
            self.hops += 1
            self.per_hop[came_from, module] += 1
            if module in self.visited:
                self.reentries += 1
        self.visited.add(module)


def button(reply: Reply, action: str) -> Click:
    clicks = (Click.parse(item.custom_id) for item in reply.items or [])
    return next(c for c in clicks if c is not None and c.action == action)


async def run(args: argparse.Namespace) -> Walk:
    with tempfile.TemporaryDirectory(prefix="tablebot-click-calls-") as tmp:
        store = await Store.open(Path(tmp) / "bench.sqlite3")
        try:
            tables = Tables(
                store=store,
                adapters=default_adapters(),
                defaults=GuildSettings(),
                rng=random.Random(args.seed),
            )
            ann, ben = Actor(1, "Ann"), Actor(2, "Ben")
            reply = await tables.open_lobby(ann, 7, 42, "farkle", {})
            reply = await tables.click(ben, button(reply, "join"), 1)
            reply = await tables.click(ann, button(reply, "start"), 1)
            if reply.update is not None:
                await tables.shown(reply.update, reply.update.message_id or 1)
            roll = button(reply, "roll")
            session = tables.sessions.cached(42)
            assert session is not None
            first = {ann.id: ann, ben.id: ben}[session.state.current_player.id]
            walk = Walk()
            sys.setprofile(walk.watch)
            try:
                await tables.click(first, roll, 1)
            finally:
                sys.setprofile(None)
        finally:
            await store.close()
    return walk


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    walk = asyncio.run(run(args))
    header("bench.click_calls", "the table service in this process, no Discord; SQLite file")
    print(
        f"one Farkle Roll (Tables.click): {walk.calls} calls in {len(walk.visited)} modules "
        f"of bot/ and games/; {walk.hops} module hops, {walk.reentries} of them re-entries "
        f"into a module already visited"
    )
    busiest = ", ".join(f"{m} {n}" for m, n in walk.per_module.most_common(args.top))
    print(f"  most calls: {busiest}")
    hops = ", ".join(f"{a} -> {b} {n}" for (a, b), n in walk.per_hop.most_common(args.top))
    print(f"  most hops: {hops}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
