"""Who sits at a session, as the index `/games` reads keeps it (bot/store/seats.py): the
lobby's players, or a started game's players still at the table, each with whether the game
waits on them. `Sessions.save` writes them with the move whenever they changed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.store.seats import Seat

if TYPE_CHECKING:
    from bot.sessions import Session
    from bot.tables.base import TableAdapter


def seats_of(session: Session, adapter: TableAdapter) -> list[Seat]:
    """The seats of `session` now (bots' seats too: a game may wait on a bot)."""
    lobby = session.lobby.players
    if session.state is None:
        return [Seat(p.id, p.name, waiting=False, started=False) for p in lobby]
    names = {p.id: p.name for p in lobby}
    waiting = adapter.waiting_ids(session.state)
    return [
        Seat(player, names.get(player, ""), waiting=player in waiting, started=True)
        for player in adapter.present_ids(session.state)
    ]
