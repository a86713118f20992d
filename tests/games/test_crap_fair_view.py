"""Fair seats: the view a CRAP bot decides from holds nothing a person in its seat does not
see in the public table, the log and their own private replies (issue 32). Each player's
uncalled bluffs are for the end-of-game stats only."""

from __future__ import annotations

from games.crap.engine import private_view, public_view
from tests.games.crap_helpers import ANN, BOB, CAT, K, Table, build, c

#: What a person's messages show of the table: the public table and log, their own cards.
SHOWN = {
    "rules", "players", "departed", "cooperator", "deck", "discard", "current", "phase",
    "acquire", "challenge", "force", "rounds", "history", "winners", "ended_by_departure",
    "reveals", "log", "new_log", "actions", "last_lines", "moment", "turns", "me",
}  # fmt: skip
SHOWN_OF_A_PLAYER = {
    "id", "name", "hand", "protected", "sets", "score", "timeouts", "sets_scored",
    "best_round", "calls", "seen",
}  # fmt: skip


def sevens_acquired() -> Table:
    """Ann (one 7) acquires 7s: Bob hands over two, Cat has none."""
    t = Table(
        build(
            {
                ANN: [c(7, "S"), c(2, "S"), c(3, "S")],
                BOB: [c(7, "H"), c(7, "D"), c(4, "S"), c(5, "S")],
                CAT: [c(9, "S"), c(10, "S"), c(K, "S")],
            }
        )
    )
    t.do(ANN, "acquire", rank=7)
    t.do(BOB, "no_call")
    t.do(CAT, "no_call")
    return t


def test_the_view_a_bot_decides_from_holds_nothing_a_person_in_its_seat_does_not_see() -> None:
    t = sevens_acquired()
    t.p(BOB).bluffs = 2  # uncalled bluffs: nobody at the table knows them
    t.p(CAT).let_go_all = True
    t.remove(BOB)  # a leaver's record is hidden too
    for seat in (ANN, CAT):
        view = private_view(t.state, seat)
        assert set(view) <= SHOWN
        for p in [*view["players"], *view["departed"]]:
            assert set(p) <= SHOWN_OF_A_PLAYER, set(p) - SHOWN_OF_A_PLAYER
            if p["id"] != seat:
                assert p["seen"] == {} and (type(p["hand"]) is int or p["hand"] == [])
        assert set(view["me"]) == {"hand", "protected", "seen"}
    assert "bluffs" not in str(public_view(t.state))

