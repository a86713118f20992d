"""Fair seats: the view a CRAP bot decides from holds nothing a person in its seat does not
see in the public table, the log and their own private replies (issue 32). Each player's
uncalled bluffs are for the end-of-game stats only; the ledger of card movements says only
what the public lines said."""

from __future__ import annotations

from bench.bots_crap import bot, game, random_move
from bot.i18n import render
from games.crap.cards import grouped, rank_words
from games.crap.engine import (
    CrapRules,
    CrapState,
    Entry,
    private_view,
    public_ledger,
    public_view,
)
from tests.games.crap_helpers import ANN, BOB, CAT, K, Table, build, c

#: What a person's messages show of the table: the public table and log, their own cards.
SHOWN = {
    "rules", "players", "departed", "cooperator", "deck", "discard", "current", "phase",
    "acquire", "challenge", "force", "rounds", "history", "winners", "ended_by_departure",
    "reveals", "log", "new_log", "actions", "last_lines", "moment", "turns", "ledger", "me",
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
        # Ann's acquire: Bob's 7s are counted, never named; nobody's own cards appear.
        assert view["ledger"] == [
            {"k": "acquire", "p": ANN, "r": 7},
            {"k": "gave", "p": ANN, "r": 7, "g": [[BOB, 2]]},
            {"k": "left", "p": BOB},
        ]
        assert view["ledger"] == [e.model_dump(mode="json") for e in public_ledger(t.state)]
    assert "bluffs" not in str(public_view(t.state))



def new_records(before: CrapState, after: CrapState) -> list[Entry]:
    """The records a move added (the ledger drops its oldest beyond its length; records are
    shared between a state and the next)."""
    if not before.ledger:
        return list(after.ledger)
    last = before.ledger[-1]
    index = next(i for i in range(len(after.ledger) - 1, -1, -1) if after.ledger[i] is last)
    return list(after.ledger[index + 1 :])


def test_every_ledger_record_says_only_what_the_move_s_public_lines_said() -> None:
    """Over seeded games of bots and random players, each move's new records against the
    lines that move wrote to the log (as everyone read them): every card a record names was
    shown there (the same cards, grouped as the line shows them), every hand-over is there
    by name and count, every value asked for is named, a bluff shown is said to be one."""
    rules = CrapRules(threshold=300, jokers=True, force_recycle=True)
    checked = 0
    for seed in range(2):
        before: CrapState | None = None
        for state, _ in game(seed, [bot, random_move, bot], rules):
            if before is not None:
                lines = state.new_log[len(before.new_log or []) :]  # type: ignore[index]
                text = "\n".join(render(line) for line in lines)
                names = {p.id: p.name for p in [*state.players, *state.departed]}
                for e in new_records(before, state):
                    checked += 1
                    if e.c:
                        assert grouped(e.c) in text, (e, text)
                    for pid, n in e.g:
                        assert f"{names[pid]} {n}" in text, (e, text)
                    if e.r is not None:
                        assert render(rank_words(e.r)) in text or e.k == "gave", (e, text)
                    if e.b:
                        assert "was bluffing" in text or "Nobody has any" in text, (e, text)
            before = state
    assert checked > 200
