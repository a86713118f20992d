"""A crash mid-game loses nothing acknowledged: the bot is killed right after a move was
answered (in process: every task of it stopped, no close(); in a child process: SIGKILL),
a new bot starts on the same database and the same Discord, and the buttons already in the
channel carry the game on from that move to a recorded winner. The game's stored log (its
history) holds exactly the lines of the committed moves, and goes on from there."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import render
from bot.tables.farkle import FarkleTable
from bot.verify import verdict
from games.farkle.engine import FarkleState
from games.text import line_from_json
from tests.e2e.fake_discord import FakeDiscord, FakeMessage, InteractionRecord, embed_text
from tests.e2e.farkle_play import (
    next_press,
    open_game,
    play_move,
    play_to_end,
    player,
    read_table,
    stamp_of,
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
    is_summary,
    read_finished,
    read_session,
    read_shown,
    running_bot,
)
from tests.e2e.hidden_info import stored_beside, stored_log


def shows(message: FakeMessage, row: dict[str, Any]) -> None:
    """`message`, the answer to a press, shows the game of the committed `row`: as the live
    table, whose buttons answer its decision (its stamp) and show its dice; or as the summary
    of a table posted afresh below, which shows its last moves."""
    state = FarkleState.model_validate(json.loads(row["data"])["state"])
    if is_summary(message):
        assert message.buttons() == []
        moves = (message.embeds[0].get("description") or "").splitlines()[:-1]
        assert moves == state.log[-2:], (moves, state.log[-2:])
        return
    view = read_table(message)
    game = int(row["created_at"] * 1000) % 1_000_000_000
    assert stamp_of(message) == (game, FarkleTable().stamp(state, "roll", None))
    assert view.current == state.current_player.id
    assert [(die.face, die.selected) for die in view.dice] == [
        (f, i in state.turn.selected) for i, f in enumerate(state.turn.dice)
    ]


async def press_then_die(
    d: Driver, players: list[FakeUser]
) -> tuple[dict[str, Any], InteractionRecord, list[str]]:
    """The next press; the moment its answer arrives the bot dies. Returns the session row
    as committed then, read by another connection before the kill, the press, and the
    game's stored log then (it ends with the lines the committed state's table shows)."""
    view = read_table(d.table(TABLE))
    _, button = next_press(view)
    rec = d.prepare_click(player(players, view.current), TABLE, custom_id=button["custom_id"])
    await d.fake.inject(rec)
    assert rec.acked is not None
    await rec.acked  # answered: the move must survive whatever happens next
    assert rec.callback_type == 7 and rec.message is view.message
    assert d.database is not None
    row = read_session(d.database, TABLE)
    log = stored_log(d.database, TABLE)
    if d.process is not None:
        await d.kill()
    else:
        await d.crash()
    assert row is not None
    shows(view.message, row)  # what the answer showed was committed
    window = FarkleState.model_validate(json.loads(row["data"])["state"]).log
    assert window and log[-len(window) :] == [render(x) for x in window]  # ...and its lines
    keeps_beside(d, row)  # ...and the draws and the history it keeps beside the row
    return row, rec, log


def keeps_beside(d: Driver, row: dict[str, Any]) -> None:
    """The row keeps only the head of its draws and no history: the records of its draws
    and its history are beside it, as many as it says, committed with it."""
    assert d.database is not None
    data = json.loads(row["data"])
    moves, history = stored_beside(d.database, TABLE)
    assert "moves" not in data["draws"] and "history" not in data["state"]
    assert moves and len(moves) == data["draws"]["kept"]
    assert len(history) == data["history_kept"]


async def caught_up(d: Driver, committed: dict[str, Any]) -> FakeMessage:
    """The latest table once the new bot has brought it up to date: a table that shows an
    older state than the committed one (the old bot died between its commit and showing
    it) is edited, or posted afresh, at start-up; then the bot records it as current."""
    assert d.database is not None
    deadline = time.monotonic() + d.timeout
    while True:
        latest = d.tables(TABLE)[-1]
        revision, shown = read_shown(d.database, TABLE) or (0, 0)
        try:
            shows(latest, committed)
            assert shown == revision == committed["revision"], (shown, revision)
            await d.settle()
            return latest
        except AssertionError:
            if time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.01)


async def carries_on(
    d: Driver,
    table: FakeMessage,
    players: list[FakeUser],
    committed: dict[str, Any],
    last: InteractionRecord,
    log: list[str],
) -> None:
    """The new bot holds exactly the committed game, shows it on the live table, takes the
    presses on the buttons already in the channel, and plays on to a recorded winner, whose
    log goes on from the committed one (`log`). `table` is the table the last press
    (`last`) was made on before the bot died."""
    # (The message id may differ: the new bot posts the table afresh if the old one died
    # before it could.)
    stored = d.stored(TABLE)
    assert stored is not None
    assert {**stored, "message_id": None} == {**committed, "message_id": None}
    assert d.database is not None and stored_log(d.database, TABLE) == log
    keeps_beside(d, stored)
    live = await caught_up(d, committed)
    assert d.stored(TABLE)["message_id"] == live.id  # type: ignore[index]
    assert live is table or is_summary(table)

    # Whatever the old bot posted and did not live to record (a table posted afresh as the
    # press's follow-up, just before the kill) was retired: only the live table can be pressed.
    assert [m for m in d.tables(TABLE) if m.live_components()] == [live]
    on = live

    view = read_table(on)
    _, button = next_press(view)
    who = player(players, view.current)
    rec = await d.click(who, TABLE, custom_id=button["custom_id"], message=on)
    live = d.on_table(rec, on)
    assert d.stored(TABLE)["revision"] == committed["revision"] + 1  # type: ignore[index]

    # /farkle status posts the same table at the bottom, with its buttons.
    shown = embed_text(live.embeds[0])
    status = await d.slash(players[0], TABLE, "farkle status")
    assert status.callback_type == 4 and not status.ephemeral and status.message is not None
    assert embed_text(status.message.embeds[0]) == shown
    assert d.table(TABLE) is status.message and is_summary(live)

    assert await play_to_end(d, TABLE, players) >= 0
    final = read_table(d.table(TABLE))
    assert d.database is not None
    [row] = read_finished(d.database, TABLE)
    assert final.winner is not None and row["winner_id"] == final.winner
    assert {p["id"] for p in json.loads(row["players"])} == {p.id for p in players}
    assert d.stored(TABLE) is None
    # The dice went on from the draw the dead bot had committed, with its seed: one stream
    # from the first draw to the last, none lost or drawn twice, every one the seed's.
    dice = json.loads(row["dice"])
    assert verdict(dice).ok and dice["seed"] == json.loads(committed["data"])["draws"]["seed"]
    whole = json.loads(row["log"])
    assert [render(line_from_json(x)) for x in whole[: len(log)]] == log and len(whole) > len(log)
    winner = next(p.name for p in players if p.id == final.winner)
    assert str(line_from_json(whole[-1])) == f"Game over: {winner} wins!"


@pytest.mark.slow
async def test_a_crash_in_process_loses_nothing(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "e2e.sqlite3"
    players = [ALICE, BOB, CAROL]
    async with running_bot(db, fake=fake, seed=21) as d:
        await open_game(d, TABLE, players, rules="classic", target=1500)
        for _ in range(5):
            await play_move(d, TABLE, players)
        while not any(die.selected for die in read_table(d.table(TABLE)).dice):
            await play_move(d, TABLE, players)
        # Mid-turn, dice thrown, some tapped: the next press kills the bot once answered.
        dead = d.bot
        table = d.table(TABLE)
        committed, last, log = await press_then_die(d, players)
    assert dead is not None and not dead.is_closed()  # nothing was shut down cleanly
    assert fake.gateway_connections == 0
    assert dead.store.db.is_open  # its SQLite connections are abandoned, still open
    reader = dead.store.db.reader
    assert reader is not None and reader._thread.is_alive()

    async with running_bot(db, fake=fake, seed=22) as d:
        await carries_on(d, table, players, committed, last, log)
        assert d.problems == []

    await bury_corpses()
    assert not reader._thread.is_alive()  # the abandoned thread does not keep the test running


@pytest.mark.slow
async def test_sigkill_of_the_bot_process_loses_nothing(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "e2e.sqlite3"
    players = [ALICE, BOB]
    async with bot_process(db, fake, seed=31) as child:
        await open_game(child, TABLE, players, rules="on-the-table", target=1000)
        for _ in range(6):
            await play_move(child, TABLE, players)
        table = child.table(TABLE)
        committed, last, log = await press_then_die(child, players)
        assert child.process is not None and child.process.returncode == -signal.SIGKILL
        assert child.problems == []
    assert fake.gateway_connections == 0

    async with running_bot(db, fake=fake, seed=32) as d:
        await carries_on(d, table, players, committed, last, log)
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
