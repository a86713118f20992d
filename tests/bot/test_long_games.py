"""A long game's session row does not grow with it, on both stores: what a game gains with
every move (the records of its sealed draws, Farkle's score history) is appended beside
the row with the move that made it (bot/session_json.py `beside_json`), read back with the row
after a restart, and a row saved before, its record and history inline, plays on and
moves them beside at its next move."""

from __future__ import annotations

import json
from pathlib import Path

from bot.replies import Reply
from bot.service import Tables
from bot.verify import verdict
from tests.bot.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    Clock,
    fetch_sql,
    make_tables,
    open_game,
    run_sql,
)
from tests.bot.test_farkle_table import play_move


async def row_data(tables: Tables) -> dict[str, object]:
    ((data,),) = await fetch_sql(tables.store, "SELECT data FROM sessions WHERE channel_id = ?", CHANNEL)
    return json.loads(str(data))


async def beside(tables: Tables) -> tuple[list[object], list[object]]:
    """The records of draws and the history entries kept beside the row, oldest first."""
    rows = await fetch_sql(
        tables.store,
        "SELECT beside FROM game_log WHERE channel_id = ? AND beside IS NOT NULL ORDER BY revision",
        CHANNEL,
    )
    parts = [json.loads(str(text)) for (text,) in rows]
    return [m for p in parts for m in p.get("draws", [])], [h for p in parts for h in p.get("history", [])]


async def play(tables: Tables, moves: int, reply: Reply | None = None) -> Reply:
    """`moves` moves of a game too long to end, opened first unless `reply` is its table."""
    if reply is None:
        reply = await open_game(tables, ALICE, BOB, CAROL, rules="classic", target=100_000)
    for _ in range(moves):
        reply = await play_move(tables, reply)
    return reply


async def test_the_row_keeps_no_record_of_draws_nor_history(db_path: Path, clock: Clock) -> None:
    tables = await make_tables(db_path, clock)
    try:
        reply = await play(tables, 30)
        early = len(json.dumps(await row_data(tables)))
        await play(tables, 150, reply)
        session = await tables.sessions.get(CHANNEL)
        assert session is not None and session.draws is not None
        data = await row_data(tables)
        draws = data["draws"]
        assert isinstance(draws, dict) and "moves" not in draws
        assert "history" not in data["state"]  # type: ignore[operator]
        moves, history = await beside(tables)
        assert moves == session.draws.moves and len(moves) == draws["kept"] > 50
        assert [tuple(h) for h in history] == session.state.history  # type: ignore[misc]
        assert len(history) == data["history_kept"] > 10
        # 150 moves on, the row is no bigger than the table it holds makes it (the log's
        # window, the dice on the table): not some 21 bytes a move more.
        assert len(json.dumps(data)) < early + 600

        # Read back after a restart: the same game, which goes on from the same draw.
        await tables.store.close()
        tables = await make_tables(db_path, clock)
        again = await tables.sessions.get(CHANNEL)
        assert again is not None and again.draws is not None
        assert again.draws.moves == session.draws.moves
        assert again.draws.position == session.draws.position
        assert again.state.history == session.state.history
        await play(tables, 5, await tables.status(CHANNEL, "farkle"))
        after = await tables.sessions.get(CHANNEL)
        assert after is not None and after.draws is not None
        record = {"commitment": after.draws.commitment, **after.draws.to_json()}
        assert verdict(record).ok  # one stream from the first draw, none lost or twice
        moves, _ = await beside(tables)
        assert moves == after.draws.moves
    finally:
        await tables.store.close()


async def test_a_row_saved_before_plays_on_and_moves_them_beside(
    db_path: Path, clock: Clock
) -> None:
    tables = await make_tables(db_path, clock)
    try:
        await play(tables, 40)
        session = await tables.sessions.get(CHANNEL)
        assert session is not None and session.draws is not None
        # As an older version saved it: the whole record and history in the row, none beside.
        data = await row_data(tables)
        data["draws"] = session.draws.to_json()
        data["state"] = json.loads(session.state.model_dump_json())
        del data["history_kept"]
        await run_sql(tables.store, "UPDATE sessions SET data = ?", json.dumps(data))
        await run_sql(tables.store, "UPDATE game_log SET beside = NULL")
        tables.sessions._forget(CHANNEL)
        old = await tables.sessions.get(CHANNEL)
        assert old is not None and old.draws is not None
        assert old.draws.moves == session.draws.moves
        assert old.state.history == session.state.history
        await play(tables, 1, await tables.status(CHANNEL, "farkle"))
        now = await tables.sessions.get(CHANNEL)
        assert now is not None and now.draws is not None
        data = await row_data(tables)
        assert "moves" not in data["draws"] and "history" not in data["state"]  # type: ignore[operator]
        moves, history = await beside(tables)
        assert moves == now.draws.moves and len(moves) > len(session.draws.moves) - 1
        assert [tuple(h) for h in history] == now.state.history
    finally:
        await tables.store.close()
