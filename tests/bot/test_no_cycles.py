"""A click leaves no cyclic garbage: whatever it builds (the session's working copy, the
state, the table, its buttons) is freed by reference counting as soon as the click is
answered. One cycle per click (an exception kept with its traceback, which holds the frame
that kept it) left the whole render to the garbage collector, whose collections of it took
15-39 ms each in the flat-out bench (docs/performance.md, "Per click")."""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from bot.components import Click
from bot.service import Reply
from tests.bot.conftest import ALICE, BOB, Clock, make_tables, open_game

PLAYED = ("toggle", "roll", "bank", "bestroll", "bestbank")


@contextmanager
def garbage_kept() -> Iterator[list[object]]:
    """The objects that only the cyclic collector could free, of what ran inside."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    kept: list[object] = []
    try:
        yield kept
        gc.collect()
        kept.extend(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def ours(thing: object) -> bool:
    """An object of the bot's or the engines' making, or a frame of their code."""
    if isinstance(thing, FrameType):
        name = thing.f_code.co_filename
        return "/bot/" in name or "/games/" in name
    return type(thing).__module__.split(".")[0] in ("bot", "games")


def playable(reply: Reply) -> list[Click]:
    clicks = [Click.parse(item.custom_id) for item in reply.items or [] if not item.disabled]
    return [c for c in clicks if c is not None and c.action in PLAYED]


async def test_a_farkle_game_of_random_taps_leaves_no_cyclic_garbage(tmp_path: Path) -> None:
    tables = await make_tables(tmp_path / "games.sqlite3", Clock())
    rng = random.Random(3)
    nothing_scored = 0
    try:
        reply = await open_game(tables, ALICE, BOB)
        with garbage_kept() as kept:
            for _ in range(300):
                clicks = playable(reply)
                if not clicks:
                    break
                session = await tables.sessions.get(clicks[0].channel_id)
                assert session is not None
                player = ALICE if session.state.current_player.id == ALICE.id else BOB
                del session
                reply = await tables.click(player, rng.choice(clicks), 555)
                shown = reply.table.embed.description if reply.table is not None else None
                # "**Selected:** ⚂ · <why it scores nothing>" (a score shows "→ **points**")
                if shown and "**Selected:**" in shown and "→" not in shown:
                    nothing_scored += 1
    finally:
        await tables.store.close()
    assert nothing_scored, "no tap selected dice that score nothing: the test missed that path"
    assert [t for t in kept if ours(t)] == []
