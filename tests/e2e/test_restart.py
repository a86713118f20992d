"""A crash mid-game loses nothing acknowledged: the bot is killed right after a move was
answered (in process: every task of it stopped, no close(); in a child process: SIGKILL),
a new bot starts on the same database and the same Discord, and the buttons already in the
channel carry the game on from that move to a recorded winner."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

from tests.e2e.fake_discord import FakeDiscord, FakeMessage, embed_text
from tests.e2e.farkle_play import (
    next_press,
    open_game,
    play_move,
    play_to_end,
    player,
    read_table,
    revision_of,
)
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    TABLE,
    Driver,
    FakeUser,
    bot_process,
    bury_corpses,
    read_finished,
    read_session,
    running_bot,
)


async def press_then_die(d: Driver, players: list[FakeUser]) -> dict[str, Any]:
    """The next press; the moment its answer arrives the bot dies. Returns the session row
    as committed then, read by another connection before the kill."""
    view = read_table(d.table(TABLE))
    _, button = next_press(view)
    rec = d.prepare_click(player(players, view.current), TABLE, custom_id=button["custom_id"])
    await d.fake.inject(rec)
    assert rec.acked is not None
    await rec.acked  # answered: the move must survive whatever happens next
    assert rec.callback_type == 7
    assert d.database is not None
    row = read_session(d.database, TABLE)
    if d.process is not None:
        await d.kill()
    else:
        await d.crash()
    assert row is not None
    assert row["revision"] == revision_of(view.message)  # what the answer showed was committed
    return row


async def carries_on(
    d: Driver, table: FakeMessage, players: list[FakeUser], committed: dict[str, Any]
) -> None:
    """The new bot holds exactly the committed game, shows what the table showed, takes the
    presses on the buttons already in the channel, and plays on to a recorded winner."""
    assert d.stored(TABLE) == committed
    view = read_table(table)
    status = await d.slash(players[0], TABLE, "farkle status")
    assert status.ephemeral and status.message is not None
    assert embed_text(status.message.embeds[0]) == embed_text(table.embeds[0])

    why, button = next_press(view)
    who = player(players, view.current)
    rec = await d.click(who, TABLE, custom_id=button["custom_id"], message=table)
    assert rec.callback_type == 7 and rec.message is table, (why, rec.text)
    assert d.stored(TABLE)["revision"] == committed["revision"] + 1  # type: ignore[index]

    assert await play_to_end(d, TABLE, players) >= 0
    final = read_table(table)
    assert d.database is not None
    [row] = read_finished(d.database, TABLE)
    assert final.winner is not None and row["winner_id"] == final.winner
    assert {p["id"] for p in json.loads(row["players"])} == {p.id for p in players}
    assert d.stored(TABLE) is None


async def test_a_crash_in_process_loses_nothing(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "e2e.sqlite3"
    players = [ALICE, BOB, CAROL]
    async with running_bot(db, fake=fake, seed=21) as d:
        table = await open_game(d, TABLE, players, rules="classic", target=1500)
        for _ in range(5):
            await play_move(d, TABLE, players)
        while not any(die.selected for die in read_table(table).dice):
            await play_move(d, TABLE, players)
        # Mid-turn, dice thrown, some tapped: the next press kills the bot once answered.
        dead = d.bot
        committed = await press_then_die(d, players)
    assert dead is not None and not dead.is_closed()  # nothing was shut down cleanly
    assert fake.gateway_connections == 0
    thread = dead.store.db._thread
    assert thread.is_alive()  # its SQLite connection is abandoned, still open

    async with running_bot(db, fake=fake, seed=22) as d:
        await carries_on(d, table, players, committed)
        assert d.problems == []

    await bury_corpses()
    assert not thread.is_alive()  # the abandoned thread does not keep the test running


async def test_sigkill_of_the_bot_process_loses_nothing(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "e2e.sqlite3"
    players = [ALICE, BOB]
    async with bot_process(db, fake, seed=31) as child:
        table = await open_game(child, TABLE, players, rules="on-the-table", target=1000)
        for _ in range(6):
            await play_move(child, TABLE, players)
        committed = await press_then_die(child, players)
        assert child.process is not None and child.process.returncode == -signal.SIGKILL
        assert child.problems == []
    assert fake.gateway_connections == 0

    async with running_bot(db, fake=fake, seed=32) as d:
        await carries_on(d, table, players, committed)
        assert d.problems == []


async def test_stopping_right_after_a_move_does_not_hang(d: Driver) -> None:
    """Every committed move pokes the turn timers; a shutdown (or crash) that cancels them
    within the next few loop turns must still stop them. (On Python 3.11 asyncio.wait_for
    swallowed such a cancel, so TurnTimers.stop() and bot.close() waited forever.)"""
    assert d.bot is not None
    await open_game(d, TABLE, [ALICE, BOB])
    timers = d.bot.timers
    loop = asyncio.get_running_loop()
    for hops in range(4):
        task = timers._task
        assert task is not None
        while not timers._wake._waiters:  # parked, waiting for a deadline or a poke
            await asyncio.sleep(0.005)

        def cancel_after(n: int, task: asyncio.Task[None] = task) -> None:
            if n:
                loop.call_soon(cancel_after, n - 1)
            else:
                task.cancel()

        timers.poke()  # what a move does
        cancel_after(hops)
        done, _ = await asyncio.wait([task], timeout=d.timeout)  # a hang, not a speed limit
        assert task in done and task.cancelled(), f"cancel after {hops} hops was swallowed"
        timers._task = None
        timers.start()
