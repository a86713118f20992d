"""What the pictures cost: drawing the 71 emoji pictures at start-up, drawing each game's
story picture, and how long the event loop stalls while a story is drawn (in a thread, as
the bot does, and on the loop itself, for comparison).

    python -m bench.pictures --repeat 20

Prints figures; asserts nothing about time."""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

from bench.common import header, percentile
from bot.pictures.emojis import wanted_emojis
from bot.pictures.story import crap_story, farkle_story, kuriki_story
from games.crap import engine as crap
from games.farkle import engine as farkle
from games.farkle.rules import PRESETS
from games.kuriki.engine import KurikiState
from games.lobby import Seat


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.pictures", description=__doc__)
    p.add_argument("--repeat", type=int, default=20, help="renders of each story picture")
    return p.parse_args(argv)


def finished_games() -> dict[str, tuple[Callable[[Any], bytes], Any]]:
    """Large finished games: 10 Farkle players over 30 rounds, 12 Kuriki players, CRAP
    with 6 players over 12 scoring rounds."""
    rng = random.Random(1)
    seats = [Seat(id=i, name=f"Player number {i}") for i in range(1, 13)]
    state, _ = farkle.new_game(seats[:10], PRESETS["classic"], rng)
    score = {p.id: 0 for p in state.players}
    for _ in range(30):
        for p in state.players:
            score[p.id] += rng.choice((0, 0, 50, 300, 750))
            state.history.append((p.id, score[p.id]))
    kuriki = KurikiState.model_validate(
        {
            "rules": {"lives": 9},
            "roller": 1,
            "players": [
                {"id": s.id, "name": s.name, "lives": s.id % 10, "fouls": 7, "crowns": 9}
                for s in seats
            ],
            "winner": 9,
        }
    )
    cstate, _ = crap.new_game(seats[:6], crap.CrapRules(), rng)
    running = {str(s.id): 0 for s in seats[:6]}
    for _ in range(12):
        running = {k: v + rng.randrange(0, 120) for k, v in running.items()}
        cstate.history.append(dict(running))
    return {
        "farkle": (farkle_story, state),
        "kuriki": (kuriki_story, kuriki),
        "crap": (crap_story, cstate),
    }


async def loop_stall(render: Callable[[], Any], in_thread: bool) -> float:
    """The longest gap (ms) between ticks of a 1 ms ticker while `render` runs."""
    gaps: list[float] = []
    done = False

    async def ticker() -> None:
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    if in_thread:
        await asyncio.to_thread(render)
    else:
        render()
    await asyncio.sleep(0.005)
    done = True
    await task
    return max(gaps) * 1000


async def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    header("bench.pictures", f"{args.repeat} renders of each story picture")
    start = time.perf_counter()
    wanted = wanted_emojis()
    spent = time.perf_counter() - start
    sizes = sorted(len(data) for _, data in wanted.values())
    print(
        f"emoji pictures: {len(wanted)} drawn and encoded in {spent * 1000:.0f} ms; "
        f"PNG sizes {sizes[0]}-{sizes[-1]} bytes (limit 262144)"
    )
    for kind, (draw, state) in finished_games().items():
        times, data = [], b""
        for _ in range(args.repeat):
            t = time.perf_counter()
            data = draw(state)
            times.append((time.perf_counter() - t) * 1000)
        threaded = [await loop_stall(lambda d=draw, s=state: d(s), True) for _ in range(5)]
        inline = [await loop_stall(lambda d=draw, s=state: d(s), False) for _ in range(5)]
        print(
            f"{kind} story: {len(data)} bytes; render p50 {percentile(times, 50):.0f} ms, "
            f"max {max(times):.0f} ms; longest event-loop stall while drawing: "
            f"in a thread {max(threaded):.0f} ms, on the loop {max(inline):.0f} ms"
        )


if __name__ == "__main__":
    asyncio.run(main())
