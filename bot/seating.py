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
    """The seats of `session` now (bots' seats too: a game may wait on a bot): the list it
    was last saved with (`Session.seated`) when they are the same, without making them."""
    lobby = session.lobby.players
    if session.state is None:
        return [Seat(p.id, p.name, waiting=False, started=False) for p in lobby]
    waiting = adapter.waiting_ids(session.state)
    present = adapter.present_ids(session.state)
    known = session.seated
    if (
        known is not None
        and len(known) == len(present)
        and all(
            seat.started and seat.player_id == player and seat.waiting == (player in waiting)
            for seat, player in zip(known, present, strict=True)
        )
    ):
        return known  # the same (a started game's names are its lobby's, which stays)
    names = {p.id: p.name for p in lobby}
    return [
        Seat(player, names.get(player, ""), waiting=player in waiting, started=True)
        for player in present
    ]
