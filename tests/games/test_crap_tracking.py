"""What the bot knows of where cards are (games/crap/tracking.py), read from the ledger alone
at every decision: the same from the saved JSON as from the records, so a restart or another
game in the same process changes nothing."""

from __future__ import annotations

import random

from games.crap import policy
from games.crap.engine import CrapState, Entry
from games.crap.tracking import BLUFF_PRIOR, read
from tests.games.crap_helpers import ANN, BOB, CAT, Q, Table, build, c

PLAYERS = (ANN, BOB, CAT)


def test_an_acquire_places_the_cards_and_clears_the_givers() -> None:
    k = read(
        [
            Entry(k="draw", p=BOB, n=7),
            Entry(k="draw", p=CAT, n=5),
            Entry(k="acquire", p=ANN, r=7),
            Entry(k="gave", p=ANN, r=7, g=[(BOB, 2)]),
            Entry(k="draw", p=BOB, n=1),
        ],
        PLAYERS,
    )
    assert k.held(ANN, 7) == 2 and k.held(BOB, 7) == 0
    # Bob's 5 unknown cards had no 7 but the one drawn since; Cat's none.
    assert k.maybe(BOB, 7, loose=6) == 1 and k.maybe(CAT, 7, loose=5) == 0
    assert k.maybe(CAT, 7, loose=5, protected=2) == 2  # protected cards were not asked
    assert k.maybe(CAT, 8, loose=5) == 5  # nothing known of other values


def test_shown_cards_are_held_until_they_leave() -> None:
    k = read(
        [
            Entry(k="shown", p=BOB, c=[c(Q, "S"), c(Q, "H"), c(3, "D")]),
            Entry(k="discard", p=BOB, c=[c(Q, "S")]),
        ],
        PLAYERS,
    )
    assert k.held(BOB, Q) == 1 and k.held(BOB, 3) == 1 and k.pile == {Q: 1}
    k = read([Entry(k="shown", p=BOB, c=[c(Q, "S")]), Entry(k="recycle", p=BOB, c=[c(Q, "S")])], PLAYERS)
    assert k.held(BOB, Q) == 0 and k.maybe(BOB, Q, loose=0) == 0
    k = read([Entry(k="recycle", p=BOB, c=[c(2, "S")]), Entry(k="round", p=0)], PLAYERS)
    assert k.pile == {}


def test_bluff_rates_learn_from_what_the_table_saw() -> None:
    """Ann's Acquires shown honest pull her rate under the prior; Bob's shown bluffs push his
    over it; an unseen player starts from the table's rate."""
    shown = []
    for _ in range(6):
        shown += [Entry(k="acquire", p=ANN, r=5), Entry(k="none", p=ANN, r=5, c=[c(5, "S")])]
    for _ in range(3):
        shown += [Entry(k="acquire", p=BOB, r=Q), Entry(k="call", p=CAT, o=BOB, b=True)]
    k = read(shown, PLAYERS)
    prior = BLUFF_PRIOR[0] / sum(BLUFF_PRIOR)
    assert k.bluff_rate(ANN) < prior < k.bluff_rate(BOB)
    assert k.bluff_rate(ANN) < k.bluff_rate(CAT) < k.bluff_rate(BOB)
    # Cat called 3 of the 9 Acquires she could (the prior: 1 in 5); Ann none of 3.
    assert k.call_rate(CAT) > 0.25 > 0.15 > k.call_rate(ANN)


def test_the_json_ledger_gives_what_the_records_give() -> None:
    t = Table(build({ANN: [c(7, "S")], BOB: [c(7, "H"), c(7, "D")], CAT: [c(9, "S")]}))
    t.do(ANN, "acquire", rank=7)
    t.do(BOB, "no_call")
    t.do(CAT, "no_call")
    saved = CrapState.model_validate_json(t.state.model_dump_json())
    a = read(t.state.ledger, PLAYERS)
    b = read(saved.model_dump(mode="json")["ledger"], PLAYERS)
    assert a == b and a.held(ANN, 7) == 2


def test_a_restarted_bot_decides_the_same() -> None:
    """The same seeded decision from a state and from that state saved and read back."""
    t = Table(
        build(
            {
                ANN: [c(9, "S"), c(9, "H"), c(3, "C")],
                BOB: [c(9, "C"), c(4, "H"), c(5, "H")],
                CAT: [c(6, "C"), c(8, "D")],
            },
            current=BOB,
        )
    )
    t.do(BOB, "acquire", rank=4)
    t.do(ANN, "no_call")
    t.do(CAT, "no_call")  # Cat's turn
    saved = CrapState.model_validate_json(t.state.model_dump_json())
    for seed in range(5):
        a = policy.choose(t.state, CAT, random.Random(seed))
        assert a == policy.choose(saved, CAT, random.Random(seed))


def test_the_bot_does_not_call_an_asker_who_surely_holds_the_value() -> None:
    """Bob acquired Queens from Ann (the ledger says so): his next Acquire of Queens is no
    bluff in Ann's eyes; before, it might have been."""
    t = Table(
        build(
            {
                ANN: [c(Q, "S"), c(Q, "H"), c(Q, "D"), c(2, "S")],
                BOB: [c(Q, "C"), c(5, "S")],
                CAT: [c(6, "D")],
            },
            current=BOB,
        )
    )
    before = policy.observe(t.state, ANN)
    before.acquire = {"rank": Q, "caller": BOB}
    assert policy.bluff_chance(before) > 0
    t.do(BOB, "acquire", rank=Q)
    t.do(ANN, "no_call")
    t.do(CAT, "no_call")
    assert t.state.ledger[-1] == Entry(k="gave", p=BOB, r=Q, g=[(ANN, 3)])
    view = policy.observe(t.state, ANN)
    assert view.knowledge.held(BOB, Q) == 3  # his own Queen is his secret
    view.acquire = {"rank": Q, "caller": BOB}
    assert policy.bluff_chance(view) == 0.0
