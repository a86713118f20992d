"""A game's edges at the service, on both databases: the tables of two games of one
channel, one ended the moment the next was opened, kept apart (updates, marks and the
cached session keyed by the game, not the channel)."""

from __future__ import annotations

from pathlib import Path

from tests.bot.conftest import ALICE, BOB, CHANNEL, GUILD, Clock, find, make_tables
from tests.bot.test_table_flow import farkle_game, message_at, show

PLAYERS = {a.id: a for a in (ALICE, BOB)}


async def test_the_end_of_one_game_and_the_next_lobby_stay_apart(
    db_path: Path, clock: Clock
) -> None:
    """Alice's move is shown (an edit: SQLite keeps its mark back a moment), then she ends
    the game and Bob opens a lobby at once; the lobby is shown first, then the final table
    (the order that lost it before). The final table is not overtaken by the lobby, nor
    aimed at it, and the lobby's row and cached session keep the lobby's message and
    revision, not the ended game's."""
    tables = await make_tables(db_path, clock, seed=3)
    try:
        started = await farkle_game(tables, clock)
        table = message_at(clock.now) + 5
        await show(tables, started, table)
        session = await tables.sessions.get(CHANNEL)
        mover = PLAYERS[session.state.current_player.id]  # type: ignore[union-attr]
        rolled = await tables.click(mover, find(started, "roll"), table)
        await tables.shown(rolled.update, table)  # type: ignore[arg-type]
        ended = await tables.end(ALICE, CHANNEL, "farkle")
        clock.now += 0.001  # (the next moment: a game is told apart by when it was opened)
        lobby = await tables.open_lobby(BOB, GUILD, CHANNEL, "farkle", {})
        assert not tables.overtaken(ended.update)  # type: ignore[arg-type]
        assert tables.aimed(ended.update) is ended.update  # type: ignore[arg-type]
        lobby_id = message_at(clock.now) + 9
        await show(tables, lobby, lobby_id)
        assert tables.aimed(ended.update).message_id == table  # type: ignore[arg-type, union-attr]
        await tables.shown(ended.update, table)  # type: ignore[arg-type]
        await tables.store.behind_sessions()  # (SQLite writes a deferred mark there)
        row = await tables.store.load_session(CHANNEL)
        assert row is not None and (row.message_id, row.shown_revision) == (lobby_id, 1)
        cached = tables.sessions.cached(CHANNEL)
        assert cached is not None and (cached.message_id, cached.shown_revision) == (lobby_id, 1)
    finally:
        await tables.store.close()
