"""The CRAP engine, driven with scripted dice and hand-built tables through every rule."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from bot.i18n import render
from games.crap.cards import RANKS, SUITS, full_deck, rank
from games.crap.engine import (
    LOG_LENGTH,
    Action,
    CrapRules,
    CrapState,
    ScoredSet,
    apply,
    challenge_size,
    highest_set,
    legal_actions,
    new_game,
    next_deadline,
    on_clock,
    private_view,
    public_view,
    scorable_ranks,
    timeout,
    waiting_for,
)
from games.errors import IllegalMove, InvalidSelection, NotInGame, NotYourTurn
from games.lobby import Seat

from .crap_helpers import (
    ANN,
    BOB,
    CAT,
    DAN,
    EVE,
    STRANGER,
    A,
    J,
    K,
    Q,
    ScriptedRandom,
    Table,
    build,
    c,
    check_cards,
    eight,
    four,
    joker,
    seats,
)

TURN = {"recycle", "acquire", "challenge", "cooperate", "protect"}


def a_set(r: int, cards: list[int] | None = None, **fields: object) -> ScoredSet:
    cards = four(r) if cards is None else cards
    return ScoredSet(rank=r, cards=cards, double=len(cards) == 8, **fields)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- rules and set-up


def test_rules_defaults_and_bounds() -> None:
    rules = CrapRules()
    assert (rules.threshold, rules.jokers, rules.force_recycle) == (1000, False, False)
    assert (rules.bluff_window, rules.vote_seconds) == (10, 60)
    for bad in ({"threshold": 99}, {"bluff_window": 4}, {"vote_seconds": 9}):
        with pytest.raises(ValidationError):
            CrapRules(**bad)  # type: ignore[arg-type]


def test_full_deck_is_two_decks_and_optional_jokers() -> None:
    plain, with_jokers = full_deck(False), full_deck(True)
    assert len(plain) == 104 and len(set(plain)) == 104
    assert len(with_jokers) == 108 and set(plain) < set(with_jokers)
    assert [rank(x) for x in with_jokers[104:]] == [0, 0, 0, 0]
    for r in RANKS:
        assert sum(1 for x in plain if rank(x) == r) == 8
    assert c(2, "S") == 0 and c(A, "C", 1) == 103


@pytest.mark.parametrize("jokers", [False, True])
def test_new_game_deals_two_dice_each_and_the_fewest_starts(jokers: bool) -> None:
    rng = ScriptedRandom([3, 4, 1, 1, 6, 6])
    state, events = new_game(seats(3), CrapRules(jokers=jokers), rng)
    assert not rng.script and rng.calls == [(1, 6)] * 6
    assert [p.id for p in state.players] == [ANN, BOB, CAT]  # join order is clockwise
    assert [len(p.hand) for p in state.players] == [7, 2, 12]
    assert all(p.protected == [] and p.sets == [] and p.score == 0 for p in state.players)
    assert len(state.deck) == (108 if jokers else 104) - 21
    check_cards(state)
    # The hands are the top of the shuffled deck, dealt in seat order.
    shuffled = rng.shuffled[0][::-1]
    assert state.player(ANN).hand == shuffled[:7]
    assert state.player(BOB).hand == shuffled[7:9]
    assert state.player(CAT).hand == shuffled[9:21]
    assert state.current_player.id == BOB and on_clock(state) == BOB
    assert state.phase == "turn" and state.rounds == 0 and state.winners == []
    assert [e.kind for e in events] == ["deal", "turn"]
    assert render(events[0].text) == "Everyone rolls two dice and draws: Ann 3+4, Bob 1+1, and Cat 6+6."
    assert events[-1].player == BOB
    assert legal_actions(state, BOB) == TURN
    assert legal_actions(state, ANN) == legal_actions(state, CAT) == set()


@pytest.mark.parametrize(
    ("dice", "first", "rolloffs"),
    [
        # Ann and Bob tie on 3 cards; Cat has 10. Roll-off Ann 4, Bob 2: the lowest starts.
        ([1, 2, 2, 1, 5, 5, 4, 2], BOB, 1),
        ([1, 2, 2, 1, 5, 5, 1, 6], ANN, 1),
        # All three tie, all tie again, then Bob and Cat tie on 2 and Cat rolls lower.
        ([1, 2, 2, 1, 1, 2, 3, 3, 3, 5, 2, 2, 6, 4], CAT, 3),
    ],
)
def test_ties_for_the_fewest_roll_off_and_the_lowest_starts(
    dice: list[int], first: int, rolloffs: int
) -> None:
    rng = ScriptedRandom(dice)
    state, events = new_game(seats(3), CrapRules(), rng)
    assert not rng.script
    assert state.current_player.id == first
    assert [e.kind for e in events].count("rolloff") == rolloffs
    assert events[-1].player == first


def test_the_rolloff_is_only_among_the_tied() -> None:
    rng = ScriptedRandom([1, 2, 6, 6, 2, 1, 3, 2])
    state, events = new_game(seats(3), CrapRules(), rng)
    assert state.current_player.id == CAT
    assert render(events[1].text) == "Roll-off: Ann 3 and Cat 2"


@pytest.mark.parametrize("n", [2, 7])
def test_three_to_six_players(n: int) -> None:
    seats_ = [Seat(id=i, name=f"P{i}") for i in range(n)]
    with pytest.raises(IllegalMove, match="3 to 6"):
        new_game(seats_, CrapRules(), ScriptedRandom([1] * 30))


@pytest.mark.parametrize("n", [3, 6])
def test_three_and_six_players_can_play(n: int) -> None:
    state, _ = new_game(seats(n), CrapRules(), ScriptedRandom([2, 2] * n + list(range(1, n + 1))))
    assert len(state.players) == n and state.current_player.id == ANN
    assert all(len(p.hand) == 4 for p in state.players)
    check_cards(state)


def test_play_goes_clockwise_and_wraps() -> None:
    t = Table(build({ANN: [c(2, "S")], BOB: [c(3, "S")], CAT: [c(4, "S")]}, current=BOB))
    order = []
    for _ in range(4):
        who = t.who
        order.append(who)
        t.do(who, "cooperate", target=ANN if who != ANN else BOB)
    assert order == [BOB, CAT, ANN, BOB]
    assert t.state.next_after(CAT).id == ANN


def test_strangers_and_players_out_of_turn_are_refused() -> None:
    t = Table(build({ANN: [c(2, "S")], BOB: [c(3, "S")], CAT: [c(4, "S")]}))
    assert legal_actions(t.state, STRANGER) == set()
    t.refused(STRANGER, "recycle", NotInGame)
    t.refused(BOB, "protect", NotYourTurn, match="Ann", cards=[c(3, "S")])
    t.refused(CAT, "acquire", NotYourTurn, rank=5)
    for kind in ("call_bluff", "no_call"):
        t.refused(BOB, kind, IllegalMove, match="no Acquire")
    t.refused(ANN, "commit", IllegalMove, cards=[])
    t.refused(ANN, "guess", IllegalMove, rank=2, suit="S")
    t.refused(ANN, "vote", IllegalMove, value="yes")
    t.refused(ANN, "force", IllegalMove, match="not played", target=BOB)
    t.refused(ANN, "score", IllegalMove, match="no four", cards=[c(2, "S")])
    with pytest.raises(NotInGame):
        private_view(t.state, STRANGER)


# --------------------------------------------------------------------------- score


def test_score_four_from_hand_and_protected() -> None:
    sevens = [c(7, "S"), c(7, "H"), c(7, "D")]
    state = build(
        {ANN: [*sevens, c(2, "C")], BOB: [c(3, "S")], CAT: [c(4, "S")]},
        protected={ANN: [c(7, "C", 1)]},
    )
    t = Table(state)
    assert scorable_ranks(t.p(ANN)) == [7]
    assert t.legal(ANN) == TURN | {"score"}
    t.do(ANN, "score", cards=[*sevens, c(7, "C", 1)])
    ann = t.p(ANN)
    assert ann.hand == [c(2, "C")] and ann.protected == []
    assert len(ann.sets) == 1
    st = ann.sets[0]
    assert (st.rank, st.double, st.points()) == (7, False, 70)
    assert sorted(st.cards) == sorted([*sevens, c(7, "C", 1)])
    assert ann.score == 0  # banked only in a scoring round
    assert ann.sets_scored == 1  # counted for the stats
    assert t.kinds() == ["score", "turn"] and t.state.current_player.id == BOB
    assert "(70 points)" in t.texts()


@pytest.mark.parametrize(
    ("cards", "error"),
    [
        ([c(7, "S"), c(7, "H"), c(7, "D")], InvalidSelection),  # three
        ([c(7, "S"), c(7, "H"), c(7, "D"), c(7, "C"), c(7, "S", 1)], InvalidSelection),  # five
        ([c(7, "S")] * 4, InvalidSelection),  # the same card four times
        ([c(7, "S"), c(7, "H"), c(7, "D"), c(2, "C")], InvalidSelection),  # two values
        ([c(7, "S"), c(7, "H"), c(7, "D"), c(7, "H", 1)], InvalidSelection),  # Bob's card
        (four(7) + four(2), InvalidSelection),  # eight, but of two values
        ([], InvalidSelection),
    ],
)
def test_illegal_scores(cards: list[int], error: type[Exception]) -> None:
    state = build(
        {ANN: [*four(7), c(7, "S", 1), c(3, "C")], BOB: [c(7, "H", 1)], CAT: [c(4, "S")]},
        protected={ANN: [*four(2)[1:], c(2, "S", 1)]},
    )
    Table(state).refused(ANN, "score", error, cards=cards)  # type: ignore[arg-type]


def test_score_is_not_offered_without_a_set() -> None:
    t = Table(build({ANN: [c(7, "S"), c(7, "H"), c(7, "D"), c(8, "S")]}))
    assert scorable_ranks(t.p(ANN)) == []
    assert "score" not in t.legal(ANN)
    t.refused(ANN, "score", IllegalMove, cards=[c(7, "S"), c(7, "H"), c(7, "D"), c(8, "S")])


def test_jokers_stand_in_and_cost_a_point_each() -> None:
    fours = four(4)
    state = build(
        {ANN: [*fours[:3], joker(0), joker(1)], BOB: [fours[3], joker(2)], CAT: [c(9, "S")]},
        jokers=True,
    )
    t = Table(state)
    assert scorable_ranks(t.p(ANN)) == [4]
    t.do(ANN, "score", cards=[*fours[:3], joker(0)])
    assert t.p(ANN).sets[0].points() == 39  # the rule text's example
    assert t.p(ANN).hand == [joker(1)]
    # Bob: one natural and a joker is not enough; two jokers and two naturals is 38.
    assert scorable_ranks(t.p(BOB)) == []
    st = a_set(4, [fours[0], fours[1], joker(0), joker(1)])
    assert st.points() == 38
    assert a_set(A, [*four(A)[:2], joker(0), joker(1)], ace_value=80).points() == 78


def test_a_set_needs_a_natural_card() -> None:
    state = build({ANN: [joker(i) for i in range(4)] + [c(5, "S")]}, jokers=True)
    t = Table(state)
    assert scorable_ranks(t.p(ANN)) == [5]  # one five and three jokers
    t.refused(ANN, "score", InvalidSelection, match="natural", cards=[joker(i) for i in range(4)])
    t.do(ANN, "score", cards=[c(5, "S"), joker(0), joker(1), joker(2)])
    assert t.p(ANN).sets[0].points() == 47
    assert scorable_ranks(t.p(ANN)) == []  # a lone joker scores nothing


def test_double_set_of_eight() -> None:
    t = Table(build({ANN: [*eight(7), c(2, "S")]}))
    t.do(ANN, "score", cards=eight(7))
    st = t.p(ANN).sets[0]
    assert st.double and len(st.cards) == 8
    assert st.points() == 160  # two sets of (7 + 1) x 10
    assert t.p(ANN).sets_scored == 2  # a double set is two sets in the stats too
    assert "double set" in t.texts() and t.p(ANN).hand == [c(2, "S")]


def test_double_set_with_a_joker() -> None:
    sevens = eight(7)[:7]
    t = Table(build({ANN: [*sevens, joker(3)]}, jokers=True))
    t.do(ANN, "score", cards=[*sevens, joker(3)])
    assert t.p(ANN).sets[0].points() == 159


def test_aces_with_no_set_on_the_table_are_worth_ten() -> None:
    t = Table(build({ANN: four(A)}))
    assert highest_set(t.state) is None
    t.do(ANN, "score", cards=four(A))
    st = t.p(ANN).sets[0]
    assert (st.rank, st.ace_value, st.marker, st.points()) == (A, 10, None, 10)
    assert t.kinds() == ["aces", "score", "turn"]
    assert "worth 10" in t.texts()


def test_aces_take_a_card_from_the_highest_set_and_are_fixed_at_its_value_plus_ten() -> None:
    kings, sevens = four(K), four(7)
    state = build(
        {ANN: four(A), BOB: [c(2, "S")], CAT: four(A, 1)},
        sets={BOB: [a_set(K, kings)], CAT: [a_set(7, sevens)]},
    )
    t = Table(state)
    assert highest_set(t.state)[0].id == BOB  # type: ignore[index]
    t.do(ANN, "score", cards=four(A))
    aces = t.p(ANN).sets[0]
    assert aces.ace_value == 140 and aces.points() == 140
    assert aces.marker in kings and aces.marker not in t.p(BOB).sets[0].cards
    assert len(t.p(BOB).sets[0].cards) == 3
    assert t.p(BOB).sets[0].points() == 130  # the robbed set keeps its worth
    assert len(t.p(CAT).sets[0].cards) == 4  # only the highest set gives a card
    assert aces.all_cards() == [*aces.cards, aces.marker]
    assert "taking K" in t.texts()
    # The Aces are now the highest set: the next Aces are worth 150 and take an Ace.
    t.do(BOB, "protect", cards=[c(2, "S")])
    t.do(CAT, "score", cards=four(A, 1))
    more = t.p(CAT).sets[-1]
    assert more.ace_value == 150 and more.marker is not None and rank(more.marker) == A
    assert len(t.p(ANN).sets[0].cards) == 3
    # A higher set played later does not change the Aces' worth.
    assert t.p(ANN).sets[0].points() == 140


def test_aces_count_your_own_sets_and_take_a_natural_card() -> None:
    queens = [joker(0), *four(Q)[:3]]
    state = build({ANN: four(A)}, sets={ANN: [a_set(Q, queens)]}, jokers=True)
    t = Table(state)
    t.do(ANN, "score", cards=four(A))
    aces = t.p(ANN).sets[1]
    assert aces.ace_value == 129  # queens with a joker are worth 119
    assert aces.marker in four(Q)  # a natural card, never the joker
    assert t.p(ANN).sets[0].cards == [joker(0), *four(Q)[1:3]]
    assert t.p(ANN).sets[0].points() == 119


def test_aces_leave_a_set_its_last_natural_card() -> None:
    """A set is of one value: Aces take a joker from a set with one natural card left, and
    nothing from a set that holds only that card."""
    queens = [joker(0), joker(1), joker(2), four(Q)[0]]
    state = build({ANN: four(A)}, sets={BOB: [a_set(Q, queens)]}, jokers=True)
    t = Table(state)
    t.do(ANN, "score", cards=four(A))
    assert t.p(ANN).sets[0].marker == joker(0)
    assert t.p(BOB).sets[0].cards == [joker(1), joker(2), four(Q)[0]]
    alone = build({ANN: four(A)}, sets={BOB: [a_set(Q, [four(Q)[0]])]})
    t = Table(alone)
    t.do(ANN, "score", cards=four(A))
    assert t.p(ANN).sets[0].marker is None and t.p(BOB).sets[0].cards == [four(Q)[0]]


def test_a_double_set_counts_as_its_value_plus_ten_for_aces() -> None:
    state = build({ANN: four(A)}, sets={BOB: [a_set(9, eight(9))], CAT: [a_set(8, four(8))]})
    t = Table(state)
    t.do(ANN, "score", cards=four(A))
    assert t.p(ANN).sets[0].ace_value == 110  # double nines: two sets of 100
    assert len(t.p(BOB).sets[0].cards) == 7


def test_aces_from_a_set_with_a_joker_are_worth_its_value_plus_ten() -> None:
    # "A set of Ace's is scored at the highest value set on the table ... plus 10": sevens
    # with a joker are worth 69, so the Aces are worth 79.
    sevens = [*four(7)[:3], joker(0)]
    t = Table(build({ANN: four(A)}, sets={BOB: [a_set(7, sevens)]}, jokers=True))
    t.do(ANN, "score", cards=four(A))
    aces = t.p(ANN).sets[0]
    assert aces.ace_value == 79 and aces.points() == 79
    assert aces.marker is not None and rank(aces.marker) == 7  # a natural seven is taken
    assert t.p(BOB).sets[0].points() == 69  # its joker still counts


def test_the_highest_set_for_aces_counts_jokers() -> None:
    # The highest set is the one worth most, jokers counted.
    nines_j = [four(9)[0], joker(0), joker(1), joker(2)]
    state = build({ANN: four(A)}, sets={BOB: [a_set(9, nines_j)], CAT: [a_set(8)]}, jokers=True)
    t = Table(state)
    t.do(ANN, "score", cards=four(A))
    assert t.p(ANN).sets[0].ace_value == 97  # Bob's nines: 90 - 3 = 87 > Cat's eights, 80
    state = build(
        {ANN: four(A)},
        sets={
            BOB: [a_set(9, [four(9)[0], joker(0), joker(1), joker(2)])],
            CAT: [a_set(9, [*four(9)[1:], joker(3)])],
        },
        jokers=True,
    )
    t = Table(state)
    t.do(ANN, "score", cards=four(A))
    assert t.p(ANN).sets[0].ace_value == 99  # Cat's nines with one joker (89) are higher
    assert len(t.p(CAT).sets[0].cards) == 3 and len(t.p(BOB).sets[0].cards) == 4


def test_aces_with_a_joker() -> None:
    aces = [*four(A)[:3], joker(1)]
    t = Table(build({ANN: aces}, sets={BOB: [a_set(6)]}, jokers=True))
    t.do(ANN, "score", cards=aces)
    assert t.p(ANN).sets[0].ace_value == 70
    assert t.p(ANN).sets[0].points() == 69


# --------------------------------------------------------------------------- recycle

RECYCLE_HAND = [c(2, "S"), c(3, "H"), c(K, "D")]
RECYCLE_DECK = [c(5, "S"), c(5, "H"), c(6, "S"), c(6, "H"), c(8, "S"), c(8, "H"), c(9, "S")]


def recycle_table(current: int = ANN) -> Table:
    state = build(
        {ANN: list(RECYCLE_HAND), BOB: [c(4, "S")], CAT: [c(4, "H")]},
        protected={ANN: [c(9, "C")], CAT: [c(10, "C")]},
        deck=list(RECYCLE_DECK),
        current=current,
    )
    return Table(state)


@pytest.mark.parametrize(("mine", "theirs"), [(3, 3), (5, 2)])
def test_recycle_roll_off_won_keeps_the_protected_cards(mine: int, theirs: int) -> None:
    t = recycle_table()
    t.do(ANN, "recycle", mine, theirs, 2, 4)
    ann = t.p(ANN)
    assert ann.hand == RECYCLE_DECK[:6]
    assert ann.protected == [c(9, "C")]
    assert t.state.discard == RECYCLE_HAND
    assert t.state.reveals[-1].cards == RECYCLE_HAND  # the hand was shown to all
    assert t.public()["reveals"][-1]["cards"] == RECYCLE_HAND
    assert f"Roll-off: Ann {mine}, Bob {theirs}" in t.texts()
    assert t.kinds() == ["recycle", "draw", "turn"]
    assert t.state.current_player.id == BOB


def test_recycle_roll_off_lost_discards_the_protected_cards_too() -> None:
    t = recycle_table()
    t.do(ANN, "recycle", 2, 5, 1, 1)
    ann = t.p(ANN)
    assert ann.hand == RECYCLE_DECK[:2] and ann.protected == []
    assert t.state.discard == [*RECYCLE_HAND, c(9, "C")]
    assert t.state.reveals[-1].cards == [c(9, "C")]  # shown as they go
    assert "Bob rolled higher: Ann's protected 9♣ goes too." in t.texts(), t.texts()


def test_recycle_roll_off_lost_with_two_protected_cards_says_they_go() -> None:
    state = build(
        {ANN: list(RECYCLE_HAND), BOB: [c(4, "S")], CAT: [c(4, "H")]},
        protected={ANN: [c(9, "C"), c(10, "C")]},
        deck=list(RECYCLE_DECK),
    )
    t = Table(state)
    t.do(ANN, "recycle", 2, 5, 1, 1)
    assert "Bob rolled higher: Ann's protected 9♣ 10♣ go too." in t.texts(), t.texts()


def test_recycle_roll_off_is_with_the_next_player_wrapping_round() -> None:
    t = recycle_table(current=CAT)
    t.do(CAT, "recycle", 1, 6, 1, 2)
    assert "Roll-off: Cat 1, Ann 6" in t.texts()
    assert t.p(CAT).protected == [] and t.p(CAT).hand == RECYCLE_DECK[:3]
    assert t.state.discard == [c(4, "H"), c(10, "C")]
    assert t.state.current_player.id == ANN


def test_recycle_an_empty_hand() -> None:
    t = Table(build({ANN: []}, deck=list(RECYCLE_DECK)))
    t.do(ANN, "recycle", 4, 4, 1, 1)
    assert t.p(ANN).hand == RECYCLE_DECK[:2] and t.state.discard == []


# --------------------------------------------------------------------------- acquire


def acquire_table(ann: list[int], ann_protected: tuple[int, ...] = (), **rules: object) -> Table:
    state = build(
        {
            ANN: list(ann),
            BOB: [c(K, "H"), c(K, "D"), c(3, "S")],
            CAT: [c(K, "S", 1), c(4, "S")],
        },
        protected={ANN: list(ann_protected), BOB: [c(K, "C")], CAT: [c(8, "C")]},
        **rules,
    )
    return Table(state)


def test_honest_acquire_uncalled_takes_all_unprotected_cards_of_that_value() -> None:
    t = acquire_table([c(K, "S"), c(2, "S")])
    t.do(ANN, "acquire", rank=K, now=100.0)
    assert t.state.phase == "acquire" and t.state.acquire is not None
    assert t.state.acquire.bluff is False and t.state.acquire.deadline == 110.0
    assert next_deadline(t.state) == 110.0
    assert on_clock(t.state) is None and waiting_for(t.state) == []
    assert t.legal(ANN) == set()
    assert t.legal(BOB) == t.legal(CAT) == {"call_bluff", "no_call"}
    assert t.p(ANN).hand == [c(K, "S"), c(2, "S")]  # nothing moves yet
    t.refused(ANN, "protect", IllegalMove, cards=[c(2, "S")])
    t.expire(109.9)
    assert t.state.phase == "acquire" and t.events == []
    t.expire(110.0)
    assert t.state.phase == "turn" and t.state.acquire is None
    assert t.p(ANN).hand == [c(K, "S"), c(2, "S"), c(K, "H"), c(K, "D"), c(K, "S", 1)]
    assert t.p(BOB).hand == [c(3, "S")] and t.p(BOB).protected == [c(K, "C")]
    assert t.p(CAT).hand == [c(4, "S")]
    assert t.state.discard == []
    assert t.state.current_player.id == BOB
    assert "acquires 3 Kings" in t.texts()


def test_one_card_acquired_is_counted_in_the_singular() -> None:
    t = Table(build({ANN: [c(9, "S")], BOB: [c(9, "H"), c(3, "S")], CAT: [c(4, "S")]}))
    t.do(ANN, "acquire", rank=9, now=0.0)
    t.expire(100.0)
    assert "Ann acquires 1 9 (Bob 1)." in t.texts(), t.texts()
    t = Table(build({ANN: [c(K, "S")], BOB: [c(K, "H")], CAT: [c(K, "D"), c(4, "S")]}))
    t.do(ANN, "acquire", rank=K, now=0.0)
    t.expire(100.0)
    assert "Ann acquires 2 Kings (Bob 1 and Cat 1)." in t.texts(), t.texts()
    t = Table(build({ANN: [c(J, "S")], BOB: [c(J, "H")], CAT: [c(4, "S")]}))
    t.do(ANN, "acquire", rank=J, now=0.0)
    t.expire(100.0)
    assert "Ann acquires 1 Jack (Bob 1)." in t.texts(), t.texts()


def test_all_others_answering_no_call_closes_the_window() -> None:
    t = acquire_table([c(K, "S")])
    t.do(ANN, "acquire", rank=K, now=0.0)
    t.do(BOB, "no_call", now=1.0)
    assert t.state.phase == "acquire" and t.state.acquire.declined == [BOB]  # type: ignore[union-attr]
    assert t.legal(BOB) == set()
    t.refused(BOB, "call_bluff", IllegalMove, now=2.0)  # a decline is final
    t.do(CAT, "no_call", now=2.0)
    assert t.state.phase == "turn" and len(t.p(ANN).hand) == 4


def test_bluff_called_right_nothing_moves_and_the_bluffer_discards_at_random() -> None:
    t = acquire_table([c(2, "S"), c(3, "H")], (c(5, "C"),))
    t.do(ANN, "acquire", rank=K, now=0.0)
    assert t.state.acquire.bluff is True  # type: ignore[union-attr]
    t.rng.picks = [c(3, "H")]
    t.do(BOB, "call_bluff", now=3.0)
    assert t.rng.choices == [[c(2, "S"), c(3, "H")]]  # the protected card is safe
    ann = t.p(ANN)
    assert ann.hand == [c(2, "S")] and ann.protected == [c(5, "C")]
    assert t.state.discard == [c(3, "H")]
    assert "discards a random card: 3♥" in t.texts()
    assert t.p(BOB).hand == [c(K, "H"), c(K, "D"), c(3, "S")]
    assert t.p(CAT).hand == [c(K, "S", 1), c(4, "S")]
    assert t.kinds() == ["bluff", "discard", "turn"]
    assert "was bluffing" in t.texts()
    assert t.state.phase == "turn" and t.state.current_player.id == BOB
    assert (t.p(BOB).calls, t.p(ANN).bluffs) == (1, 0)  # a bluff called rightly
    # The first to press wins: the window is closed for Cat.
    t.refused(CAT, "call_bluff", IllegalMove, now=4.0)


@pytest.mark.parametrize("lost", [c(4, "S"), c(K, "S", 1)])
def test_bluff_called_wrong_proof_is_shown_the_caller_discards_and_the_acquire_goes_on(
    lost: int,
) -> None:
    t = acquire_table([c(2, "S")], (c(K, "C", 1),))
    t.do(ANN, "acquire", rank=K, now=0.0)
    assert t.state.acquire.bluff is False  # type: ignore[union-attr]
    t.rng.picks = [lost]
    t.do(CAT, "call_bluff", now=1.0)
    assert t.state.reveals[-1].cards == [c(K, "C", 1)]  # the protected proof, shown
    assert t.public()["reveals"][-1]["cards"] == [c(K, "C", 1)]
    assert t.rng.choices == [[c(K, "S", 1), c(4, "S")]]  # Cat's unprotected hand only
    assert t.state.discard == [lost] and t.p(CAT).protected == [c(8, "C")]
    # A King still in Cat's hand is handed over; the four stays.
    assert t.p(CAT).hand == ([] if lost == c(4, "S") else [c(4, "S")])
    kings = [c(K, "H"), c(K, "D")] + ([c(K, "S", 1)] if lost != c(K, "S", 1) else [])
    ann = t.p(ANN)
    assert ann.hand == [c(2, "S"), *kings] and ann.protected == [c(K, "C", 1)]
    assert t.p(BOB).hand == [c(3, "S")] and t.p(BOB).protected == [c(K, "C")]
    assert t.kinds()[:2] == ["bluff", "discard"] and "shows K♣" in t.texts()
    assert t.p(CAT).calls == 0 and ann.bluffs == 0  # a wrong call, and no bluff
    assert t.state.current_player.id == BOB


def test_a_wrong_bluff_call_with_no_unprotected_card_discards_nothing() -> None:
    state = build(
        {ANN: [c(9, "S")], BOB: [c(9, "H")], CAT: []},
        protected={CAT: [c(4, "S")]},
    )
    t = Table(state)
    t.do(ANN, "acquire", rank=9, now=0.0)
    t.do(CAT, "call_bluff", now=1.0)
    assert t.p(CAT).protected == [c(4, "S")] and t.state.discard == []
    assert "no unprotected card" in t.texts()
    assert t.p(ANN).hand == [c(9, "S"), c(9, "H")]


def test_the_caller_cannot_call_their_own_bluff() -> None:
    t = acquire_table([c(2, "S")])
    t.do(ANN, "acquire", rank=K, now=0.0)
    # Told the true reason: the call is there, it is their own.
    t.refused(ANN, "call_bluff", IllegalMove, "^You can't call the bluff on your own Acquire.$", now=1.0)
    t.refused(ANN, "no_call", IllegalMove, "^It's your own Acquire: the others decide", now=1.0)
    t.refused(STRANGER, "call_bluff", NotInGame, now=1.0)
    t.do(BOB, "no_call", now=1.0)
    t.refused(BOB, "call_bluff", IllegalMove, "^You already let this Acquire go.$", now=2.0)
    t.do(CAT, "no_call", now=2.0)  # the window is closed: now there is no call to answer
    t.refused(CAT, "call_bluff", IllegalMove, "^There is no Acquire call for you to answer.$")


def test_let_bluffs_go_answers_every_window_for_the_player_the_open_one_too() -> None:
    t = acquire_table([c(K, "S"), c(2, "S")])
    t.do(CAT, "let_go_all", value="on", now=0.0)  # a setting: any time, not a move
    assert t.p(CAT).let_go_all and t.state.current_player.id == ANN and t.events == []
    t.do(ANN, "acquire", rank=K, now=0.0)
    assert t.state.phase == "acquire" and t.state.acquire.declined == [CAT]
    assert t.legal(CAT) == set() and t.legal(BOB) == {"call_bluff", "no_call"}
    t.do(BOB, "let_go_all", value="on", now=1.0)  # the open window is let go: it closes
    assert t.state.phase == "turn" and t.state.current_player.id == BOB
    assert "acquires 3 Kings" in t.texts()
    # With everyone else letting bluffs go, an Acquire goes through at once.
    t.do(ANN, "let_go_all", value="on", now=2.0)
    t.do(BOB, "acquire", rank=3, now=2.0)
    assert t.state.phase == "turn" and t.state.current_player.id == CAT
    assert "Everyone lets bluffs go." in t.texts(), t.texts()
    t.do(ANN, "let_go_all", value="off", now=3.0)
    assert not t.p(ANN).let_go_all


def test_a_call_after_the_window_is_refused_and_the_acquire_settles_uncalled() -> None:
    t = acquire_table([c(2, "S")])
    t.do(ANN, "acquire", rank=K, now=0.0)
    t.refused(BOB, "call_bluff", IllegalMove, now=25.0)
    assert t.state.phase == "acquire"  # the passed-in state is untouched
    t.expire(25.0)
    # An uncalled bluffer keeps what the others hand over and discards nothing.
    assert t.p(ANN).hand == [c(2, "S"), c(K, "H"), c(K, "D"), c(K, "S", 1)]
    assert t.state.discard == []


def test_the_next_players_move_after_the_window_settles_the_acquire_first() -> None:
    t = acquire_table([c(K, "S")])
    t.do(ANN, "acquire", rank=K, now=0.0)
    t.do(BOB, "protect", cards=[c(3, "S")], now=30.0)
    assert t.kinds()[0] == "acquired" and "protect" in t.kinds()
    assert "Ann acquires 3 Kings (Bob 2 and Cat 1)." in t.texts()
    assert t.p(BOB).protected == [c(K, "C"), c(3, "S")]
    assert len(t.p(ANN).hand) == 4 and t.state.current_player.id == CAT


def nobody_holds_table(ann: list[int], ann_protected: list[int]) -> Table:
    state = build(
        {ANN: ann, BOB: [c(3, "S")], CAT: [c(4, "S")]},
        protected={ANN: ann_protected, BOB: [c(5, "S")]},
    )
    return Table(state)


def test_nobody_holds_any_the_honest_caller_discards_one_from_the_hand() -> None:
    t = nobody_holds_table([c(9, "S"), c(2, "S")], [c(9, "H")])
    t.do(ANN, "acquire", rank=9, now=0.0)
    t.expire(20.0)
    assert t.p(ANN).hand == [c(2, "S")] and t.p(ANN).protected == [c(9, "H")]
    assert t.state.discard == [c(9, "S")]
    assert t.state.reveals[-1].cards == [c(9, "S")]
    assert "Nobody has any 9s: Ann discards 9♠" in t.texts()


def test_nobody_holds_any_the_protected_card_goes_if_it_is_the_only_one() -> None:
    t = nobody_holds_table([c(2, "S")], [c(9, "H")])
    t.do(ANN, "acquire", rank=9, now=0.0)
    t.do(BOB, "no_call")
    t.do(CAT, "no_call")
    assert t.p(ANN).hand == [c(2, "S")] and t.p(ANN).protected == []
    assert t.state.discard == [c(9, "H")]


def test_an_uncalled_bluff_nobody_can_satisfy_costs_nothing() -> None:
    t = nobody_holds_table([c(2, "S")], [c(7, "H")])
    t.do(ANN, "acquire", rank=9, now=0.0)
    t.expire(20.0)
    assert t.p(ANN).hand == [c(2, "S")] and t.p(ANN).protected == [c(7, "H")]
    assert t.state.discard == [] and t.rng.choices == []
    assert "Nobody has any 9s." in t.texts()
    assert t.state.current_player.id == BOB
    assert t.p(ANN).bluffs == 1 and t.p(BOB).calls == t.p(CAT).calls == 0  # nobody called it


def test_a_joker_does_not_prove_an_acquire() -> None:
    state = build({ANN: [joker(0), c(2, "S")], BOB: [c(5, "H")], CAT: []}, jokers=True)
    t = Table(state)
    t.do(ANN, "acquire", rank=5, now=0.0)
    assert t.state.acquire.bluff is True  # type: ignore[union-attr]
    t.do(BOB, "call_bluff", now=1.0)
    assert t.rng.choices == [[joker(0), c(2, "S")]]
    assert len(t.p(ANN).hand) == 1 and t.p(BOB).hand == [c(5, "H")]


@pytest.mark.parametrize("value", [None, 0, 1, 15])
def test_acquire_needs_a_face_value(value: int | None) -> None:
    t = acquire_table([c(2, "S")])
    t.refused(ANN, "acquire", IllegalMove, match="value", rank=value)


def test_the_bluff_flag_is_hidden() -> None:
    t = acquire_table([c(2, "S")])
    t.do(ANN, "acquire", rank=K, now=0.0)
    assert t.state.acquire.bluff is True  # type: ignore[union-attr]
    for view in (t.public(), t.private(ANN), t.private(BOB)):
        assert view["acquire"]["bluff"] is None
        assert view["acquire"]["rank"] == K and view["acquire"]["caller"] == ANN


# --------------------------------------------------------------------------- challenge

ANN_HAND = [c(5, "S"), c(6, "C"), c(9, "H"), c(Q, "S")]
BOB_HAND = [c(2, "H"), c(2, "D"), c(K, "D"), c(7, "S")]
DRAWS = [c(3, "C"), c(4, "C"), c(8, "C"), c(10, "C"), c(J, "C"), c(A, "C")]


def challenge_table(bob: list[int] = BOB_HAND, **rules: object) -> Table:
    state = build(
        {ANN: list(ANN_HAND), BOB: list(bob), CAT: [c(3, "S")]},
        protected={BOB: [c(2, "S")]},
        deck=list(DRAWS),
        **rules,
    )
    return Table(state)


def test_challenge_the_rule_texts_example_both_counts_twice() -> None:
    t = challenge_table()
    t.do(ANN, "challenge", 3, target=BOB)
    assert t.state.phase == "challenge" and t.state.challenge.die == 3  # type: ignore[union-attr]
    assert waiting_for(t.state) == [ANN, BOB]
    assert t.legal(ANN) == t.legal(BOB) == {"commit"} and t.legal(CAT) == set()
    assert challenge_size(t.state, ANN) == challenge_size(t.state, BOB) == 3
    t.refused(ANN, "guess", IllegalMove, rank=2, suit="D")
    t.refused(CAT, "commit", IllegalMove, cards=[c(3, "S")])
    shown_by_bob = [c(2, "H"), c(2, "D"), c(K, "D")]
    t.do(BOB, "commit", cards=shown_by_bob)
    assert waiting_for(t.state) == [ANN] and t.legal(BOB) == set()
    t.do(ANN, "commit", cards=ANN_HAND[:3])
    assert waiting_for(t.state) == [ANN] and t.legal(ANN) == {"guess"}
    t.refused(BOB, "guess", IllegalMove, rank=9, suit="S")  # the challenger names first
    t.do(ANN, "guess", rank=2, suit="D")
    assert waiting_for(t.state) == [BOB]
    # Bob names 9 of spades: 5♠ (suit) and 9♥ (value) match, 6♣ does not.
    t.do(BOB, "guess", rank=9, suit="S")
    assert t.state.phase == "turn" and t.state.challenge is None
    assert "matches 4 and draws 4" in t.texts() and "matches 2 and draws 2" in t.texts()
    # The cards go back to their owners: they never left the hands. The challenger draws first.
    assert t.p(ANN).hand == [*ANN_HAND, *DRAWS[:4]]
    assert t.p(BOB).hand == [*BOB_HAND, *DRAWS[4:6]]
    assert t.p(BOB).protected == [c(2, "S")]
    assert t.state.reveals[-1].cards == [*ANN_HAND[:3], *shown_by_bob]
    assert t.state.current_player.id == BOB


def test_challenge_hides_the_committed_cards_and_guesses_until_turned_up() -> None:
    t = challenge_table()
    t.do(ANN, "challenge", 2, target=BOB)
    t.do(BOB, "commit", cards=[c(2, "H"), c(7, "S")])
    t.do(ANN, "commit", cards=[c(5, "S"), c(Q, "S")])
    t.do(ANN, "guess", rank=7, suit="H")
    view = t.public()
    assert view["challenge"]["committed"] == {"1": 2, "2": 2}
    assert view["challenge"]["guesses"] == {"1": None}
    assert view["reveals"] == []
    assert t.private(BOB)["me"]["committed"] == [c(2, "H"), c(7, "S")]
    assert "committed" not in t.private(CAT)["me"]
    t.do(BOB, "guess", rank=A, suit="C")
    assert t.p(ANN).hand == [*ANN_HAND, *DRAWS[:2]]  # 2♥ by suit, 7♠ by value
    assert t.p(BOB).hand == BOB_HAND  # nothing matched


def test_fewer_unprotected_cards_than_the_die_commits_them_all_never_the_protected() -> None:
    t = challenge_table(bob=[c(2, "H"), c(3, "H")])
    t.do(ANN, "challenge", 5, target=BOB)
    assert challenge_size(t.state, BOB) == 2 and challenge_size(t.state, ANN) == 4
    t.refused(BOB, "commit", InvalidSelection, match="exactly 2", cards=[c(2, "H")])
    t.refused(BOB, "commit", InvalidSelection, cards=[c(2, "H"), c(2, "S")])  # protected
    t.refused(BOB, "commit", InvalidSelection, cards=[c(2, "H"), c(2, "H")])
    t.refused(ANN, "commit", InvalidSelection, cards=ANN_HAND[:3])
    t.refused(ANN, "commit", InvalidSelection, cards=[*ANN_HAND[:3], c(3, "S")])  # Cat's
    t.do(BOB, "commit", cards=[c(2, "H"), c(3, "H")])
    t.do(ANN, "commit", cards=ANN_HAND)
    t.do(ANN, "guess", rank=2, suit="H")
    t.do(BOB, "guess", rank=5, suit="S")
    assert t.p(ANN).hand == [*ANN_HAND, *DRAWS[:3]]  # 2♥ counts twice, 3♥ once
    assert t.p(BOB).hand == [c(2, "H"), c(3, "H"), *DRAWS[3:6]]  # 5♠ twice, Q♠ once
    assert t.p(BOB).protected == [c(2, "S")]


def test_a_player_with_no_unprotected_card_places_nothing() -> None:
    t = challenge_table(bob=[])
    t.do(ANN, "challenge", 4, target=BOB)
    assert t.state.challenge.committed == {"2": []}  # type: ignore[union-attr]
    assert waiting_for(t.state) == [ANN]
    t.do(ANN, "commit", cards=ANN_HAND)
    t.do(ANN, "guess", rank=2, suit="S")  # Bob's protected 2♠ is not in play
    t.do(BOB, "guess", rank=6, suit="C")
    assert t.p(ANN).hand == ANN_HAND
    assert t.p(BOB).hand == DRAWS[:2] and t.p(BOB).protected == [c(2, "S")]
    assert "matches 0 and draws 0" in t.texts()


def test_jokers_match_nothing_in_a_challenge() -> None:
    t = challenge_table(bob=[joker(0), joker(1)], jokers=True)
    t.do(ANN, "challenge", 2, target=BOB)
    t.do(BOB, "commit", cards=[joker(0), joker(1)])
    t.do(ANN, "commit", cards=ANN_HAND[:2])
    for r in RANKS:
        for s in SUITS:
            Table(t.state).do(ANN, "guess", rank=r, suit=s)  # every guess is legal
    t.do(ANN, "guess", rank=A, suit="S")
    t.do(BOB, "guess", rank=5, suit="S")
    assert t.p(ANN).hand == ANN_HAND  # the jokers matched nothing
    assert t.p(BOB).hand == [joker(0), joker(1), *DRAWS[:2]]


def test_challenge_targets_and_guesses_must_be_valid() -> None:
    t = challenge_table()
    t.refused(ANN, "challenge", IllegalMove, match="another", target=ANN)
    t.refused(ANN, "challenge", IllegalMove, match="another")
    t.refused(ANN, "challenge", NotInGame, target=STRANGER)
    t.do(ANN, "challenge", 1, target=CAT)
    t.do(ANN, "commit", cards=[c(9, "H")])
    t.do(CAT, "commit", cards=[c(3, "S")])
    for r, s in ((1, "S"), (15, "S"), (None, "S"), (5, "X"), (5, None), (5, "s")):
        t.refused(ANN, "guess", IllegalMove, rank=r, suit=s)
    t.do(ANN, "guess", rank=3, suit="S")
    t.do(CAT, "guess", rank=9, suit="H")
    assert t.p(ANN).hand == [*ANN_HAND, *DRAWS[:2]] and t.p(CAT).hand == [c(3, "S"), *DRAWS[2:4]]
    assert t.state.current_player.id == BOB


# --------------------------------------------------------------------------- protect


def test_protect_moves_one_card_from_hand_to_protected() -> None:
    t = Table(build({ANN: [c(2, "S"), c(3, "S")], BOB: [c(4, "S")]}))
    t.do(ANN, "protect", cards=[c(2, "S")])
    assert t.p(ANN).hand == [c(3, "S")] and t.p(ANN).protected == [c(2, "S")]
    assert t.kinds() == ["protect", "turn"] and "2♠" not in t.texts()
    assert t.public()["players"][0]["protected"] == 1
    assert t.private(ANN)["me"]["protected"] == [c(2, "S")]


@pytest.mark.parametrize(
    "cards", [[], [c(2, "S"), c(3, "S")], [c(5, "S")], [c(4, "S")], [c(2, "S"), c(2, "S")]]
)
def test_protect_exactly_one_card_of_your_hand(cards: list[int]) -> None:
    t = Table(build({ANN: [c(2, "S"), c(3, "S")], BOB: [c(4, "S")]}, protected={ANN: [c(5, "S")]}))
    t.refused(ANN, "protect", InvalidSelection, cards=cards)


def test_protect_needs_an_unprotected_card() -> None:
    t = Table(build({ANN: []}, protected={ANN: [c(5, "S")]}))
    assert t.legal(ANN) == TURN - {"protect"}
    t.refused(ANN, "protect", IllegalMove, cards=[c(5, "S")])


# --------------------------------------------------------------------------- co-operate


def test_cooperate_each_sees_the_others_unprotected_hand_then_each_draws_one() -> None:
    state = build(
        {ANN: [c(2, "S"), c(3, "S")], BOB: [c(4, "S")], CAT: [c(6, "S")]},
        protected={ANN: [c(5, "S")], BOB: [c(7, "S")]},
        deck=[c(8, "S"), c(9, "S")],
    )
    t = Table(state)
    t.do(ANN, "cooperate", target=BOB)
    assert t.p(ANN).seen == {"2": [c(4, "S")]}
    assert t.p(BOB).seen == {"1": [c(2, "S"), c(3, "S")]}
    assert t.p(CAT).seen == {}
    assert t.p(ANN).hand == [c(2, "S"), c(3, "S"), c(8, "S")]
    assert t.p(BOB).hand == [c(4, "S"), c(9, "S")]
    assert t.p(ANN).protected == [c(5, "S")] and t.p(BOB).protected == [c(7, "S")]
    assert t.private(ANN)["me"]["seen"] == {"2": [c(4, "S")]}
    assert t.private(BOB)["me"]["seen"] == {"1": [c(2, "S"), c(3, "S")]}
    assert all(p["seen"] == {} for p in t.public()["players"])
    assert t.state.current_player.id == BOB


def test_cooperate_hands_are_returned_once_seen() -> None:
    # "Once satisfied, they then return each others' hands": the co-operating player sees the
    # partner's hand in the reply to the co-operate, the partner until their own next move;
    # neither is kept for the rest of the game.
    state = build(
        {ANN: [c(2, "S"), c(3, "S")], BOB: [c(4, "S")], CAT: [c(6, "S")]},
        deck=[c(8, "S"), c(9, "S"), c(10, "S"), c(11, "S")],
    )
    t = Table(state)
    t.do(ANN, "cooperate", target=CAT)
    assert t.private(ANN)["me"]["seen"] == {"3": [c(6, "S")]}  # the reply right after
    assert t.private(CAT)["me"]["seen"] == {"1": [c(2, "S"), c(3, "S")]}
    assert t.state.current_player.id == BOB
    t.do(BOB, "protect", cards=[c(4, "S")])  # the next move at the table
    assert t.private(ANN)["me"]["seen"] == {}  # Ann's look is over
    assert t.private(CAT)["me"]["seen"] == {"1": [c(2, "S"), c(3, "S")]}  # Cat was pinged
    assert t.state.current_player.id == CAT
    t.do(CAT, "protect", cards=[c(6, "S")])  # Cat's own next move
    assert t.private(CAT)["me"]["seen"] == {} and t.state.cooperator is None
    assert all(p.seen == {} for p in t.state.players)


def test_a_cooperate_look_ends_on_a_timeout_too() -> None:
    state = build(
        {ANN: [c(2, "S")], BOB: [c(4, "S")], CAT: [c(6, "S")]}, deck=[c(8, "S"), c(9, "S")]
    )
    t = Table(state)
    t.do(ANN, "cooperate", target=BOB)
    t.timeout()  # Bob's turn is skipped: the next moment at the table
    assert t.p(ANN).seen == {} and t.p(BOB).seen == {"1": [c(2, "S")]}


def test_cooperate_needs_another_player() -> None:
    t = Table(build({ANN: [c(2, "S")]}))
    t.refused(ANN, "cooperate", IllegalMove, target=ANN)
    t.refused(ANN, "cooperate", IllegalMove)
    t.refused(ANN, "cooperate", NotInGame, target=STRANGER)


# --------------------------------------------------------------------------- force recycle


def force_table(players: int = 4) -> Table:
    hands = {i: [c(2 + i, "D")] for i in range(1, players + 1)}
    hands[BOB] = [c(K, "S"), c(K, "H")]
    state = build(
        hands,
        protected={BOB: [c(Q, "D")]},
        deck=list(RECYCLE_DECK),
        players=players,
        force_recycle=True,
    )
    return Table(state)


def test_force_recycle_is_an_option() -> None:
    t = force_table()
    assert "force" in t.legal(ANN)
    t.do(ANN, "force", target=BOB, now=10.0)
    assert t.state.phase == "force_vote" and next_deadline(t.state) == 70.0
    assert on_clock(t.state) is None


def test_force_recycle_passing_makes_the_target_recycle() -> None:
    t = force_table()
    t.do(ANN, "force", target=BOB, now=0.0)
    assert t.legal(CAT) == t.legal(DAN) == {"vote"}
    assert t.legal(ANN) == t.legal(BOB) == set()
    t.refused(ANN, "vote", IllegalMove, value="yes")
    t.refused(BOB, "vote", IllegalMove, value="no")
    t.refused(CAT, "vote", IllegalMove, match="yes or no", value="maybe")
    t.do(CAT, "vote", value="yes")
    assert t.state.phase == "force_vote"  # two voters: a majority is two
    t.refused(CAT, "vote", IllegalMove, value="yes")
    t.do(DAN, "vote", 4, 2, 3, 3, value="yes")
    assert t.state.phase == "turn" and t.state.force is None
    assert t.p(BOB).hand == RECYCLE_DECK[:6] and t.p(BOB).protected == [c(Q, "D")]
    assert t.state.discard == [c(K, "S"), c(K, "H")]
    assert "forced to recycle" in t.texts()
    assert t.state.current_player.id == BOB  # Ann's turn is over


def test_force_recycle_follows_the_roll_off_rules() -> None:
    t = force_table(3)
    t.do(ANN, "force", target=BOB, now=0.0)
    t.do(CAT, "vote", 1, 6, 1, 1, value="yes")  # the only voter; Bob loses the roll-off
    assert "Bob 1, Cat 6" in t.texts()
    assert t.p(BOB).protected == [] and t.p(BOB).hand == RECYCLE_DECK[:2]
    assert t.state.discard == [c(K, "S"), c(K, "H"), c(Q, "D")]


def test_force_recycle_voted_down() -> None:
    t = force_table()
    t.do(ANN, "force", target=BOB, now=0.0)
    t.do(CAT, "vote", value="no")  # a yes majority of two is now impossible
    assert t.state.phase == "turn" and t.state.force is None
    assert "voted down" in t.texts()
    assert t.p(BOB).hand == [c(K, "S"), c(K, "H")] and t.state.discard == []
    assert t.state.current_player.id == BOB


@pytest.mark.parametrize(
    ("votes", "passes"),
    [(["no", "yes", "yes"], True), (["yes", "no", "no"], False), (["no", "no"], False)],
)
def test_force_recycle_majority_of_three_voters(votes: list[str], passes: bool) -> None:
    t = force_table(5)
    t.do(ANN, "force", target=BOB, now=0.0)
    for voter, value in zip((CAT, DAN, EVE), votes, strict=False):
        dice = (6, 1, 1, 1) if passes and voter == EVE else ()
        t.do(voter, "vote", *dice, value=value)
    assert t.state.phase == "turn"
    assert (t.p(BOB).hand == RECYCLE_DECK[:2]) is passes


def test_force_recycle_times_out() -> None:
    t = force_table()
    t.do(ANN, "force", target=BOB, now=0.0)
    t.do(CAT, "vote", value="yes", now=5.0)
    t.timeout(now=30.0)  # nobody is on the clock in a vote
    assert t.state.phase == "force_vote" and t.events == []
    t.expire(59.0)
    assert t.state.phase == "force_vote"
    t.expire(60.0)
    assert t.state.phase == "turn" and "out of time" in t.texts()
    assert t.p(BOB).hand == [c(K, "S"), c(K, "H")]
    assert t.state.current_player.id == BOB


def test_force_recycle_needs_another_player() -> None:
    t = force_table()
    t.refused(ANN, "force", IllegalMove, target=ANN)
    t.refused(ANN, "force", NotInGame, target=STRANGER)


# --------------------------------------------------------------------------- scoring rounds


def test_scoring_round_mid_draw_banks_reshuffles_and_the_draw_completes() -> None:
    d1, d2 = c(5, "S"), c(5, "H")
    pile = [c(6, "S"), c(6, "H"), c(6, "D")]
    state = build(
        {ANN: [c(2, "S")], BOB: [c(3, "H")], CAT: []},
        protected={ANN: [c(3, "S")], BOB: [c(4, "S")]},
        sets={BOB: [a_set(K)], CAT: [a_set(7, eight(7)), a_set(A, four(A), ace_value=60)]},
        deck=[d1, d2],
        discard=pile,
        rest=CAT,
    )
    state.players[1].score = 40
    t = Table(state)
    t.do(ANN, "recycle", 6, 1, 2, 3)
    assert t.state.rounds == 1 and not t.state.finished
    assert [p.score for p in t.state.players] == [0, 40 + 130, 160 + 60]
    assert t.state.history == [{str(ANN): 0, str(BOB): 170, str(CAT): 220}]
    assert all(p.sets == [] and p.protected == [] for p in t.state.players)
    assert t.p(BOB).hand == [c(3, "H"), c(4, "S")]  # protected cards back in hand
    shuffled = t.rng.shuffled[-1]
    assert sorted(shuffled) == sorted([*pile, c(2, "S"), *four(K), *eight(7), *four(A)])
    # Ann drew the old deck's two, got her protected card back, then drew the owed three.
    assert t.p(ANN).hand == [d1, d2, c(3, "S"), *shuffled[::-1][:3]]
    assert t.state.deck == shuffled[:-3] and t.state.discard == []
    assert t.kinds() == ["recycle", "draw", "scoring", "turn"]
    assert "Bob banks 130 (total 170)" in t.texts()
    assert t.state.current_player.id == BOB and t.state.winners == []
    assert [p.best_round for p in t.state.players] == [0, 130, 220]


def test_drawing_the_last_card_is_not_yet_a_scoring_round() -> None:
    state = build({ANN: [], BOB: [c(2, "S")]}, deck=RECYCLE_DECK[:6], rest="discard")
    t = Table(state)
    t.do(ANN, "recycle", 4, 4, 3, 3)
    assert t.state.deck == [] and t.state.rounds == 0
    t.do(BOB, "cooperate", target=CAT)
    assert t.state.rounds == 1 and len(t.state.deck) == 104 - 6 - 1 - 2


def scoring_table(threshold: int, sets: dict[int, list[ScoredSet]]) -> Table:
    state = build(
        {ANN: [c(2, "S")], BOB: [c(3, "S")], CAT: []},
        sets=sets,
        deck=[],
        rest=CAT,
        threshold=threshold,
    )
    return Table(state)


def test_reaching_the_threshold_the_highest_total_wins() -> None:
    t = scoring_table(100, {ANN: [a_set(K)], BOB: [a_set(10)], CAT: [a_set(7)]})
    t.do(ANN, "cooperate", target=BOB)
    assert t.state.finished and t.state.phase == "over"
    assert t.state.winners == [ANN]
    assert [p.score for p in t.state.players] == [130, 100, 70]
    assert "Ann wins with 130" in t.texts()
    assert on_clock(t.state) is None
    for uid in (ANN, BOB, CAT):
        assert legal_actions(t.state, uid) == set()
        t.refused(uid, "recycle", IllegalMove, match="over")
    with pytest.raises(IllegalMove):
        timeout(t.state, t.rng)


def test_ties_share_the_win() -> None:
    t = scoring_table(100, {ANN: [a_set(10)], BOB: [a_set(5), a_set(5, four(5, 1))]})
    t.do(ANN, "cooperate", target=CAT)
    assert t.state.winners == [ANN, BOB]
    assert "Ann and Bob win with 100" in t.texts()


def test_no_winner_below_the_threshold_and_play_goes_on() -> None:
    t = scoring_table(200, {ANN: [a_set(K)], BOB: [a_set(Q)]})
    t.do(ANN, "cooperate", target=BOB)
    assert not t.state.finished and t.state.winners == []
    assert [p.score for p in t.state.players] == [130, 120, 0]
    assert len(t.state.deck) == 8 - 2 and t.state.current_player.id == BOB
    assert "Nobody has 200 yet" in t.texts()


def test_a_double_set_banks_as_two_sets_less_its_jokers() -> None:
    double = a_set(9, [*eight(9)[:7], joker(0)])
    state = build({ANN: [], BOB: []}, sets={ANN: [double]}, deck=[], rest=CAT, jokers=True)
    t = Table(state)
    t.do(ANN, "cooperate", target=BOB)
    assert t.state.rounds == 1 and t.p(ANN).score == 2 * 100 - 1


def test_a_multi_round_game_to_the_threshold() -> None:
    state = build(
        {ANN: four(K), BOB: [c(2, "S")], CAT: [c(3, "S")]},
        sets={ANN: [a_set(Q)]},
        deck=[],
        rest=CAT,
        threshold=200,
    )
    t = Table(state)
    # Round one: Ann banks 120, short of 200; the four Queens become the new deck.
    t.do(ANN, "cooperate", target=BOB)
    assert t.state.rounds == 1 and not t.state.finished
    assert t.p(ANN).score == 120 and len(t.state.deck) == 2
    assert t.p(ANN).best_round == 120
    t.do(BOB, "protect", cards=[c(2, "S")])
    t.do(CAT, "protect", cards=[c(3, "S")])
    t.do(ANN, "score", cards=four(K))
    t.do(BOB, "cooperate", target=CAT)
    assert t.state.deck == [] and t.state.rounds == 1
    # Round two: Cat must draw from the empty deck; Ann's Kings take her to 250.
    t.do(CAT, "cooperate", target=ANN)
    assert t.state.rounds == 2 and t.state.finished
    assert t.state.winners == [ANN] and t.p(ANN).score == 250
    assert t.p(ANN).best_round == 130  # the better of the two rounds
    assert c(2, "S") in t.p(BOB).hand and t.p(BOB).protected == []
    assert (t.state.acquire, t.state.challenge, t.state.force) == (None, None, None)


def test_a_scoring_round_inside_a_challenge_draw() -> None:
    state = build(
        {ANN: [c(5, "S")], BOB: [c(6, "S")], CAT: []},
        sets={BOB: [a_set(Q)]},
        deck=[c(7, "S")],
        rest=CAT,
    )
    t = Table(state)
    t.do(ANN, "challenge", 1, target=BOB)
    t.do(ANN, "commit", cards=[c(5, "S")])
    t.do(BOB, "commit", cards=[c(6, "S")])
    t.do(ANN, "guess", rank=6, suit="S")  # two: one from the deck, one after the round
    t.do(BOB, "guess", rank=5, suit="S")  # two more from the new deck
    assert t.state.rounds == 1 and t.p(BOB).score == 120
    assert len(t.p(ANN).hand) == 3 and len(t.p(BOB).hand) == 3
    assert len(t.state.deck) == 4 - 3 and t.state.phase == "turn"


# --------------------------------------------------------------------------- timeouts


def test_an_absent_players_turn_is_skipped() -> None:
    t = Table(build({ANN: [c(2, "S")], BOB: [c(3, "S")], CAT: [c(4, "S")]}))
    before = t.state.model_copy(deep=True)
    t.timeout()
    assert t.p(ANN).timeouts == 1 and t.state.current_player.id == BOB
    assert t.kinds() == ["skip", "turn"] and "ran out of time" in t.texts()
    assert [p.hand for p in t.state.players] == [p.hand for p in before.players]
    t.do(BOB, "protect", cards=[c(3, "S")])
    t.timeout()
    assert t.p(CAT).timeouts == 1 and t.p(BOB).timeouts == 0
    t.do(ANN, "cooperate", target=BOB)
    assert t.p(ANN).timeouts == 0  # acting resets the count


def test_three_timeouts_in_a_row_remove_the_player() -> None:
    state = build(
        {ANN: [c(2, "S")], BOB: four(3), CAT: four(4)},
        protected={ANN: [c(9, "S")]},
        sets={ANN: [a_set(7)]},
        force_recycle=True,
    )
    t = Table(state)
    assert "force" in t.legal(ANN)
    for round_ in range(3):
        t.timeout()
        if round_ < 2:
            assert t.p(ANN).timeouts == round_ + 1
            t.do(BOB, "protect", cards=[t.hand(BOB)[0]])
            t.do(CAT, "protect", cards=[t.hand(CAT)[0]])
    assert [p.id for p in t.state.players] == [BOB, CAT]
    assert "removed" in t.kinds() and "leaves the table" in t.texts()
    assert sorted(t.state.discard) == sorted([c(2, "S"), c(9, "S"), *four(7)])
    assert t.state.current_player.id == BOB and not t.state.finished
    with pytest.raises(NotInGame):
        t.state.player(ANN)
    assert "force" not in t.legal(BOB)  # two players left: nobody to vote


def test_timeouts_that_leave_one_player_end_the_game_with_no_winner() -> None:
    state = build({ANN: [c(2, "S")], BOB: four(3)}, sets={BOB: [a_set(13)]}, players=2)
    t = Table(state)
    t.state.players[1].score = 900  # far ahead, yet only left over: no win
    for round_ in range(3):
        t.timeout()
        if round_ < 2:
            t.do(BOB, "protect", cards=[t.hand(BOB)[0]])
    assert t.state.finished and t.state.winners == []
    assert render(t.state.ended_by_departure) == "Ann timed out 3 times"
    assert "Game over: Ann timed out 3 times, so nobody wins." in t.texts()
    assert [p.id for p in t.state.players] == [BOB]


def test_a_removed_player_is_forgotten_by_those_who_saw_their_hand() -> None:
    t = Table(build({ANN: [c(2, "S")], BOB: [c(3, "S")], CAT: [c(4, "S")]}, current=BOB))
    t.do(BOB, "cooperate", target=ANN)
    t.do(CAT, "cooperate", target=BOB)
    assert t.p(ANN).seen == {"2": [c(3, "S")]}
    t.remove(BOB)
    assert t.p(ANN).seen == {} and t.p(CAT).seen == {}
    # Bob is kept among the departed for the stats, without a card of his
    (bob,) = t.state.departed
    assert bob.id == BOB and (bob.hand, bob.protected, bob.sets, bob.seen) == ([], [], [], {})
    assert t.state.current_player.id == ANN


def test_removing_players_keeps_the_turn_with_the_right_player() -> None:
    t = Table(build({ANN: [c(2, "S")], BOB: [c(3, "S")], CAT: [c(4, "S")], DAN: []}, current=CAT))
    t.remove(ANN)  # before the current player
    assert t.state.current_player.id == CAT
    t.remove(CAT)  # the current player: the next one is on
    assert t.state.current_player.id == DAN and "Dan's turn." in t.texts()
    t.remove(DAN)
    assert t.state.finished and t.state.winners == []  # Bob is left, not a winner
    assert render(t.state.ended_by_departure) == "Dan left"
    assert t.state.current_player.id == BOB
    assert "Game over: Dan left, so nobody wins." in t.texts()
    assert legal_actions(t.state, BOB) == set()


def test_leaving_is_refused_mid_action_and_for_strangers() -> None:
    t = acquire_table([c(2, "S")])
    t.do(ANN, "acquire", rank=K, now=0.0)
    before = t.state.model_dump()
    with pytest.raises(IllegalMove):
        t.remove(BOB)
    with pytest.raises(NotInGame):
        t.remove(STRANGER)
    assert t.state.model_dump() == before


def test_a_timeout_during_an_acquire_waits_for_the_window() -> None:
    t = acquire_table([c(2, "S")])
    t.do(ANN, "acquire", rank=K, now=0.0)
    t.timeout(now=5.0)
    assert t.state.phase == "acquire" and t.events == []
    assert all(p.timeouts == 0 for p in t.state.players)
    t.timeout(now=20.0)  # the window has closed by then: the acquire settles
    assert t.state.phase == "turn" and len(t.p(ANN).hand) == 4
    # Bob's turn only starts now: he has not run out of time.
    assert t.state.current_player.id == BOB and "skip" not in t.kinds()
    assert all(p.timeouts == 0 for p in t.state.players)


def test_challenge_timeout_chooses_the_absent_players_cards_at_random() -> None:
    t = challenge_table()
    t.do(ANN, "challenge", 2, target=BOB)
    t.do(ANN, "commit", cards=[c(5, "S"), c(6, "C")])
    t.timeout()
    committed = t.state.challenge.committed["2"]  # type: ignore[union-attr]
    assert len(committed) == 2 and set(committed) <= set(BOB_HAND)
    assert t.p(BOB).timeouts == 1 and t.p(ANN).timeouts == 0
    # Ann was waiting, not absent: her guess is still hers to make.
    assert t.state.phase == "challenge" and waiting_for(t.state) == [ANN]
    assert t.state.challenge.guesses == {}  # type: ignore[union-attr]
    t.do(ANN, "guess", rank=2, suit="H")
    t.timeout()  # Bob is absent again: a random guess
    assert t.rng.choices[-2:] == [list(RANKS), list(SUITS)]
    assert t.state.phase == "turn" and t.p(BOB).timeouts == 2
    assert t.p(BOB).protected == [c(2, "S")]


def test_challenge_timeout_with_both_absent_commits_for_both() -> None:
    t = challenge_table()
    t.do(ANN, "challenge", 6, target=BOB)
    t.timeout()
    ch = t.state.challenge
    assert ch is not None and sorted(ch.committed) == ["1", "2"]
    assert sorted(ch.committed["1"]) == sorted(ANN_HAND)  # all four: fewer than the die
    assert sorted(ch.committed["2"]) == sorted(BOB_HAND)
    assert t.p(ANN).timeouts == t.p(BOB).timeouts == 1
    assert waiting_for(t.state) == [ANN]
    t.timeout()
    assert waiting_for(t.state) == [BOB] and t.p(ANN).timeouts == 2
    t.do(BOB, "guess", rank=5, suit="S")
    assert t.state.phase == "turn" and t.p(BOB).timeouts == 0


def test_a_player_absent_through_a_challenge_is_removed_once_it_settles() -> None:
    t = challenge_table()
    t.p(BOB).timeouts = 2
    t.do(ANN, "challenge", 1, target=BOB)
    t.do(ANN, "commit", cards=[c(5, "S")])
    t.timeout()  # Bob's third: the challenge is still open, so he stays for now
    assert t.p(BOB).timeouts == 3 and t.state.phase == "challenge"
    t.do(ANN, "guess", rank=2, suit="H")
    t.timeout()
    assert [p.id for p in t.state.players] == [ANN, CAT]
    assert t.state.phase == "turn" and t.state.current_player.id == CAT


# --------------------------------------------------------------------------- views and log


def test_public_view_shows_counts_and_private_view_a_players_own_cards() -> None:
    state = build(
        {ANN: [c(2, "S"), c(3, "S")], BOB: [c(4, "S")], CAT: [c(6, "S")]},
        protected={ANN: [c(5, "S")]},
        sets={BOB: [a_set(K)]},
        discard=[c(9, "D")],
    )
    state.players[1].score = 130
    view = public_view(state)
    json.dumps(view)
    assert [p["hand"] for p in view["players"]] == [2, 1, 1]
    assert [p["protected"] for p in view["players"]] == [1, 0, 0]
    assert view["players"][1]["sets"][0]["cards"] == four(K)
    assert view["players"][1]["score"] == 130
    assert view["deck"] == len(state.deck) and isinstance(view["deck"], int)
    assert view["discard"] == 1  # a count: a leaver's unseen cards end up there too
    mine = private_view(state, ANN)
    assert mine["me"] == {"hand": [c(2, "S"), c(3, "S")], "protected": [c(5, "S")], "seen": {}}
    assert {k: v for k, v in mine.items() if k != "me"} == view
    assert private_view(state, BOB)["me"]["hand"] == [c(4, "S")]


def test_the_log_keeps_the_latest_lines() -> None:
    t = Table(build({ANN: four(2), BOB: four(3), CAT: four(4)}))
    for _ in range(4):
        for uid in (ANN, BOB, CAT):
            t.do(uid, "protect", cards=[t.hand(uid)[0]])
    assert len(t.state.log) == LOG_LENGTH
    assert render(t.state.log[-1]) == "Ann's turn."


def test_apply_never_touches_the_state_it_is_given() -> None:
    t = recycle_table()
    before = t.state.model_copy(deep=True)
    new, _ = apply(t.state, ANN, Action(kind="recycle"), ScriptedRandom([3, 3, 1, 1]))
    assert t.state == before and new != before
    assert isinstance(new, CrapState)


def test_counted_nouns_agree_with_their_count() -> None:
    from games.crap.cards import cards_of

    assert [str(cards_of(n, r)) for n, r in ((1, K), (2, K), (1, 9), (3, 9))] == [
        "1 King",
        "2 Kings",
        "1 9",
        "3 9s",
    ]
