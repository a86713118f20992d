"""The public ledger of card movements (games/crap/ledger.py): each kind of movement is
recorded where the engine makes it, with exactly what the table was shown; it is saved with
the state and stays small."""

from __future__ import annotations

import json

from bench.bots_crap import bot, game, random_move
from games.crap.engine import CrapRules, CrapState, Entry, remove_player
from games.crap.ledger import KEEP
from tests.games.crap_helpers import ANN, BOB, CAT, Q, Table, build, c


def test_an_acquire_records_who_asked_for_what_and_who_handed_over_how_many() -> None:
    t = Table(
        build(
            {
                ANN: [c(7, "S"), c(2, "S")],
                BOB: [c(7, "H"), c(7, "D"), c(4, "S")],
                CAT: [c(9, "S"), c(7, "C")],
            }
        )
    )
    t.do(ANN, "acquire", rank=7)
    t.do(BOB, "no_call")
    t.do(CAT, "no_call")
    assert t.state.ledger == [
        Entry(k="acquire", p=ANN, r=7),
        Entry(k="gave", p=ANN, r=7, g=[(BOB, 2), (CAT, 1)]),
    ]


def test_a_called_bluff_and_its_random_discard() -> None:
    t = Table(build({ANN: [c(5, "S")], BOB: [c(2, "S"), c(3, "H")], CAT: [c(6, "D")]}))
    t.do(ANN, "acquire", rank=Q)
    t.rng.picks = [c(5, "S")]
    t.do(BOB, "call_bluff")
    assert t.state.ledger[-3:] == [
        Entry(k="acquire", p=ANN, r=Q),
        Entry(k="call", p=BOB, o=ANN, b=True),
        Entry(k="discard", p=ANN, c=[c(5, "S")]),
    ]


def test_a_wrong_call_shows_the_proof_and_nobody_having_any_shows_the_discard() -> None:
    t = Table(build({ANN: [c(Q, "S"), c(4, "H")], BOB: [c(2, "S")], CAT: [c(6, "D")]}))
    t.do(ANN, "acquire", rank=Q)
    t.rng.picks = [c(2, "S")]
    t.do(BOB, "call_bluff")
    assert t.state.ledger[-4:] == [
        Entry(k="acquire", p=ANN, r=Q),
        Entry(k="call", p=BOB, o=ANN, c=[c(Q, "S")]),
        Entry(k="discard", p=BOB, c=[c(2, "S")]),
        Entry(k="none", p=ANN, r=Q, c=[c(Q, "S")]),
    ]


def test_an_uncalled_bluff_nobody_could_answer_is_shown_a_bluff() -> None:
    t = Table(build({ANN: [c(5, "S")], BOB: [c(2, "S")], CAT: [c(6, "D")]}))
    t.do(ANN, "acquire", rank=Q)
    t.do(BOB, "no_call")
    t.do(CAT, "no_call")
    assert t.state.ledger[-1] == Entry(k="none", p=ANN, r=Q, b=True)


def test_every_kind_is_recorded_and_the_ledger_survives_a_json_round_trip() -> None:
    """Seeded games of bots and random players (jokers, force recycle) make every kind of
    movement; a leaver ends one. The saved state gives back the same records, a record is
    small, and the ledger keeps at most KEEP of them."""
    rules = CrapRules(threshold=300, jokers=True, force_recycle=True)
    kinds: set[str] = set()
    last: CrapState | None = None
    for seed in range(4):
        for state, _ in game(seed, [bot, random_move, bot, random_move], rules):
            kinds |= {e.k for e in state.ledger}
            if state.phase == "turn" and not state.finished:
                last = state
    assert last is not None
    left, _ = remove_player(last, last.current_player.id)
    kinds |= {e.k for e in left.ledger}
    assert kinds == set(Entry.model_fields["k"].annotation.__args__)  # type: ignore[union-attr]
    saved = left.model_dump_json()
    again = CrapState.model_validate_json(saved)
    assert again.ledger == left.ledger and 0 < len(again.ledger) <= KEEP
    records = json.loads(saved)["ledger"]
    size = len(json.dumps(records, separators=(",", ":"))) / len(records)
    assert size < 40, size  # ids here are one digit: a Discord id adds 17 bytes a record
    assert all(None not in r.values() and [] not in r.values() for r in records)
