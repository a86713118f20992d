"""The CRAP bot policy and the legal-move list it (and the random baseline) choose from: every
listed move is legal, the policy only makes legal moves and games end, it decides from what
its seat may know (the same decision whatever the hidden cards), it plays the game's ideas
and it beats players choosing a random legal move."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import islice

import pytest

from bench.bots_crap import bot, game, play, random_move, seat_match
from games.crap import policy
from games.crap.cards import full_deck, rank
from games.crap.engine import (
    Action,
    CrapRules,
    CrapState,
    ScoredSet,
    all_cards,
    apply,
    legal_actions,
)
from games.crap.ledger import Entry
from games.crap.moves import legal_moves
from games.errors import GameError
from tests.games.crap_helpers import ANN, BOB, CAT, A, K, Q, Table, build, c, four

FAST = CrapRules(threshold=200)
VARIANTS = [
    FAST,
    CrapRules(threshold=200, jokers=True),
    CrapRules(threshold=200, force_recycle=True, bluff_window=5),
    CrapRules(threshold=150, jokers=True, force_recycle=True),
]


def positions(seed: int, choosers: list, rules: CrapRules) -> Iterator[tuple[CrapState, float]]:
    """The states of one game as the bench plays it (but the last, finished), with the clock."""
    for state, now in game(seed, choosers, rules):
        if not state.finished:
            yield state, now


# ----------------------------------------------------------------------------- legal moves


def test_every_listed_move_is_legal_and_every_legal_kind_is_listed() -> None:
    checked = 0
    for seed, rules in enumerate(VARIANTS):
        for n, (state, now) in enumerate(positions(seed, [random_move] * 4, rules)):
            if n % 11:
                continue
            for p in state.players:
                kinds = legal_actions(state, p.id)
                moves = list(islice(legal_moves(state, p.id, now), 400))
                assert {m.kind for m in moves} == kinds
                for m in moves[:: max(1, len(moves) // 25)]:
                    apply(state, p.id, m, random.Random(0))  # raises if refused
                    checked += 1
            if n > 300:
                break
    assert checked > 200


def test_only_legal_kinds_are_listed_for_one_kind() -> None:
    state = build({ANN: [*four(K), c(5, "S")], BOB: [c(2, "H")], CAT: [c(3, "D")]})
    assert [m.cards for m in legal_moves(state, ANN, kind="score")] == [four(K)]
    assert list(legal_moves(state, BOB)) == []  # not Bob's turn
    assert len(list(legal_moves(state, ANN, kind="acquire"))) == 13


# ----------------------------------------------------------------------------- legality


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 6])
def test_the_policy_in_every_seat_plays_only_legal_moves_and_games_end(players: int) -> None:
    """play() applies every move through the engine, which refuses an illegal one, and
    fails a game that does not end within its bound."""
    for seed in range(2):
        rules = VARIANTS[(seed + players) % len(VARIANTS)]
        state, times = play(seed, [bot] * players, rules)
        assert state.finished and state.winners
        assert sorted(all_cards(state)) == sorted(full_deck(rules.jokers))
        assert all(times)


@pytest.mark.parametrize("players", [3, 5])
def test_the_policy_mixed_with_random_players_plays_legally(players: int) -> None:
    for seed in range(3):
        mine = seed % players
        choosers = [bot if i == mine else random_move for i in range(players)]
        state, _ = play(50 + seed, choosers, VARIANTS[seed % len(VARIANTS)])
        assert state.finished and state.winners


# ----------------------------------------------------------------------------- what it may know


def twin(state: CrapState, seat: int, rng: random.Random) -> CrapState:
    """The table with everything hidden from `seat` changed: the other players' hands and
    protected cards, the deck's order and the discard pile dealt afresh from their pooled
    cards (keeping what `seat` saw in a co-operate and every card shown to all), others'
    challenge cards and guesses, others' co-operate looks, and the Acquire's bluff flag."""
    me = state.player(seat)
    keep = {x for cards in me.seen.values() for x in cards}
    keep |= {x for rev in state.reveals for x in rev.cards}
    others = [p for p in state.players if p.id != seat]
    pool = [x for p in others for x in p.hand + p.protected if x not in keep]
    pool += [x for x in state.deck + state.discard if x not in keep]
    rng.shuffle(pool)

    def deal(cards: list[int]) -> list[int]:
        nonlocal pool
        out = []
        for x in cards:
            if x in keep:
                out.append(x)
            else:
                out.append(pool.pop())
        return out

    players = []
    for p in state.players:
        if p.id == seat:
            players.append(p)
            continue
        hand, protected = deal(p.hand), deal(p.protected)
        seen = {k: [*list(reversed(v)), 0] for k, v in p.seen.items()}
        players.append(p.model_copy(update={"hand": hand, "protected": protected, "seen": seen}))
    update: dict[str, object] = {"players": players, "deck": deal(state.deck)}
    update["discard"] = deal(state.discard)
    assert not pool
    if state.acquire is not None and state.acquire.caller != seat:
        update["acquire"] = state.acquire.model_copy(update={"bluff": not state.acquire.bluff})
    if state.challenge is not None:
        ch = state.challenge
        committed = {
            k: (
                v
                if k == str(seat)
                else rng.sample(next(p for p in players if str(p.id) == k).hand, len(v))
            )
            for k, v in ch.committed.items()
        }
        guesses = {k: (g if k == str(seat) else (16 - g[0], g[1])) for k, g in ch.guesses.items()}
        update["challenge"] = ch.model_copy(update={"committed": committed, "guesses": guesses})
    out = state.model_copy(update=update)
    assert sorted(all_cards(out)) == sorted(all_cards(state))
    return out


@pytest.mark.slow
def test_decisions_do_not_depend_on_what_the_seat_cannot_see() -> None:
    checked = changed = 0
    shuffler = random.Random(5)
    for seed, rules in enumerate(VARIANTS):
        mix = [bot, random_move, bot, random_move][: 3 + seed % 2]
        for n, (state, now) in enumerate(positions(seed, mix, rules)):
            if n % 3:
                continue
            for p in state.players:
                decision = policy.choose(state, p.id, random.Random(n), now)
                for _ in range(2):
                    other = twin(state, p.id, shuffler)
                    changed += other != state
                    assert policy.choose(other, p.id, random.Random(n), now) == decision
                    checked += 1
            if n > 600:
                break
    assert checked > 1000 and changed > 0.9 * checked


# ----------------------------------------------------------------------------- how it plays


def test_it_scores_its_best_set_and_a_double_when_it_has_eight() -> None:
    t = Table(build({ANN: four(Q) + four(K) + [c(2, "S")], BOB: [c(3, "H")], CAT: [c(4, "D")]}))
    action = policy.choose(t.state, ANN, random.Random(0))
    assert action == Action(kind="score", cards=four(K))
    t = Table(build({ANN: four(Q) + four(Q, 1), BOB: [c(3, "H")], CAT: [c(4, "D")]}))
    action = policy.choose(t.state, ANN, random.Random(0))
    assert action is not None and action.kind == "score" and len(action.cards) == 8


def test_aces_wait_for_a_set_worth_taking() -> None:
    hands = {ANN: [*four(A), c(7, "S"), c(7, "H")], BOB: [c(3, "H")], CAT: [c(4, "D")]}
    cheap = build(hands)  # no set on the table: Aces would be worth 10
    action = policy.choose(cheap, ANN, random.Random(0))
    assert action is not None and action.kind != "score"
    rich = build(hands, sets={BOB: [ScoredSet(rank=K, cards=four(K))]})
    assert policy.choose(rich, ANN, random.Random(0)) == Action(kind="score", cards=four(A))


def test_it_acquires_a_value_it_holds() -> None:
    state = build(
        {
            ANN: [c(9, "S"), c(9, "H"), c(9, "D"), c(3, "C")],
            BOB: [c(9, "C"), c(9, "S", 1), *[c(r, "H") for r in range(2, 9)]],
            CAT: [
                c(9, "H", 1),
                *[c(r, "C") for r in range(4, 9)],
                *[c(r, "D") for r in range(2, 9)],
            ],
        }
    )  # the others hold 21 cards, the deck 77: Ann expects some of the five 9s she lacks
    asked = [policy.choose(state, ANN, random.Random(seed)) for seed in range(40)]
    assert all(a is not None and a.kind == "acquire" for a in asked)
    assert {a.rank for a in asked if a is not None} == {9}


@pytest.mark.slow
def test_it_uses_every_part_of_the_game() -> None:
    """Over a few games against itself: honest Acquires and a few bluffs, calls, protects,
    challenges, recycles and scores."""
    used: dict[str, int] = {}

    def counting(state: CrapState, seat: int, rng: random.Random, now: float) -> Action | None:
        action = policy.choose(state, seat, rng, now)
        if action is not None:
            kind = action.kind
            if kind == "acquire":
                mine = state.player(seat).hand + state.player(seat).protected
                kind += "-honest" if any(rank(x) == action.rank for x in mine) else "-bluff"
            used[kind] = used.get(kind, 0) + 1
        return action

    for seed in range(3):
        play(seed, [counting] * 3, CrapRules(threshold=300))
    for kind in ("acquire-honest", "acquire-bluff", "call_bluff", "no_call", "protect"):
        assert used.get(kind, 0) > 0, kind
    for kind in ("challenge", "commit", "guess", "recycle", "score"):
        assert used.get(kind, 0) > 0, kind
    assert used["acquire-bluff"] < 0.2 * used["acquire-honest"]


def test_it_calls_a_bluff_it_can_count() -> None:
    """Ann asks for Queens; Bob holds four, the other four are scored: Ann has none."""
    state = build(
        {ANN: [c(5, "S")], BOB: [*four(Q), c(2, "S")], CAT: [c(6, "D")]},
        sets={CAT: [ScoredSet(rank=Q, cards=four(Q, 1))]},
    )
    t = Table(state)
    t.do(ANN, "acquire", rank=Q)
    assert policy.choose(t.state, BOB, random.Random(0)) == Action(kind="call_bluff")
    # Ann, with a big hand, very likely holds a King: a call would risk one of Bob's Queens.
    big = [c(r, s) for r in range(2, 8) for s in "SHD"] + [c(K, "S")]
    hand = [c(Q, "S"), c(Q, "H"), c(Q, "D"), c(2, "C")]
    t = Table(build({ANN: big, BOB: hand, CAT: [c(8, "C")]}))
    t.do(ANN, "acquire", rank=K)
    assert policy.choose(t.state, BOB, random.Random(0)) == Action(kind="no_call")


def test_what_it_saw_in_a_co_operate_counts() -> None:
    """Ann looked at Bob's hand: he holds the one King she has not seen. Blind, she would
    call him: the one unseen King is rarely in 3 cards, and the table saw his last two
    Acquires called as bluffs."""
    kings = [c(K, "S"), c(K, "H"), c(K, "D")]
    bob = [c(K, "C"), c(2, "S"), c(3, "S")]
    state = build(
        {ANN: [*kings, c(5, "H"), c(6, "H")], BOB: bob, CAT: [c(7, "D"), c(8, "D")]},
        sets={CAT: [ScoredSet(rank=K, cards=four(K, 1))]},
        current=BOB,
    )
    state.ledger = [
        Entry(k="acquire", p=BOB, r=Q),
        Entry(k="call", p=CAT, o=BOB, b=True),
    ] * 2
    t = Table(state)
    t.do(BOB, "acquire", rank=K)
    blind = policy.choose(t.state, ANN, random.Random(0))
    assert blind == Action(kind="call_bluff")
    t.state.player(ANN).seen = {str(BOB): list(bob)}
    assert policy.choose(t.state, ANN, random.Random(0)) == Action(kind="no_call")
    # On her own turn, the King she saw in Bob's hand makes her set.
    state.current = 0
    state.player(ANN).seen = {str(BOB): list(bob)}
    action = policy.choose(state, ANN, random.Random(0))
    assert action == Action(kind="acquire", rank=K)


def test_its_calls_learn_who_bluffs() -> None:
    """Bob asks for the one King Ann has not seen, in 3 cards: called when the table saw his
    Acquires called as bluffs, let go when it saw them proven."""
    def ann_answers(shown: list[Entry]) -> Action | None:
        state = build(
            {ANN: [*four(K)[:3], c(5, "H")], BOB: [c(K, "C"), c(2, "S"), c(3, "S")], CAT: []},
            sets={CAT: [ScoredSet(rank=K, cards=four(K, 1))]},
            current=BOB,
        )
        state.ledger = shown * 3
        t = Table(state)
        t.do(BOB, "acquire", rank=K)
        return policy.choose(t.state, ANN, random.Random(0))

    bluffs = [Entry(k="acquire", p=BOB, r=Q), Entry(k="call", p=CAT, o=BOB, b=True)]
    proven = [Entry(k="acquire", p=BOB, r=Q), Entry(k="call", p=CAT, o=BOB, c=[c(Q, "S", 1)])]
    assert ann_answers(bluffs) == Action(kind="call_bluff")
    assert ann_answers(proven) == Action(kind="no_call")


def test_it_does_not_ask_for_a_card_that_just_went_round_the_table() -> None:
    """Cat took the one loose Ace from Bob, who had taken it from Ann: asking for it again
    would send it round for ever (a game of three bots once did)."""
    state = build(
        {
            ANN: [c(K, "S"), c(K, "H"), c(Q, "S"), c(Q, "H"), c(2, "S")],
            BOB: [c(3, "S")],
            CAT: [c(A, "S")],
        },
        protected={ANN: [c(A, "H")], BOB: [c(A, "D")], CAT: [c(A, "C")]},
    )
    took = [Entry(k="acquire", p=CAT, r=A), Entry(k="gave", p=CAT, r=A, g=[(BOB, 1)])]
    state.ledger = list(took)  # Cat surely holds the Ace: worth asking for
    assert policy.choose(state, ANN, random.Random(0)) == Action(kind="acquire", rank=A)
    state.ledger = [Entry(k="acquire", p=BOB, r=A), Entry(k="gave", p=BOB, r=A, g=[(ANN, 1)])]
    state.ledger += took
    for seed in range(5):
        action = policy.choose(state, ANN, random.Random(seed))
        assert action is not None and action.rank != A, action


def test_it_does_not_ask_for_two_cards_that_go_round_the_table_in_turn() -> None:
    """For two rounds each Acquire took a King or an Ace from the one before: asking for
    either again would keep both going round for ever (seed 819 of the arena did)."""
    state = build(
        {
            ANN: [c(K, "S"), c(A, "S"), c(Q, "S"), c(Q, "H"), c(2, "S")],
            BOB: [c(K, "H")],
            CAT: [c(A, "H")],
        },
        protected={ANN: [c(A, "D")], BOB: [c(K, "D")], CAT: [c(A, "C")]},
    )
    rounds = []
    for asker, giver, r in ((BOB, ANN, K), (CAT, BOB, A), (ANN, CAT, K), (BOB, ANN, A)):
        rounds += [Entry(k="acquire", p=asker, r=r), Entry(k="gave", p=asker, r=r, g=[(giver, 1)])]
    state.ledger = rounds[-4:]  # one round only: Bob and Cat surely hold them, worth asking
    assert policy.choose(state, ANN, random.Random(0)) in (
        Action(kind="acquire", rank=K),
        Action(kind="acquire", rank=A),
    )
    state.ledger = rounds
    for seed in range(5):
        action = policy.choose(state, ANN, random.Random(seed))
        assert action is not None and action.rank not in (K, A), action


def test_it_protects_a_card_of_its_best_near_set() -> None:
    view_state = build(
        {ANN: [c(K, "S"), c(K, "H"), c(K, "D"), c(3, "C")], BOB: [c(2, "S")], CAT: [c(6, "D")]},
        rest="discard",
    )
    worth, card = policy._protect(policy.observe(view_state, ANN))
    assert worth > 0 and card is not None and rank(card) == K


def test_the_challenge_guess_is_what_is_most_unseen() -> None:
    """Ann holds and sees every 7 but one, and many hearts: she names neither."""
    sevens = [c(7, s) for s in "SHDC"] + [c(7, s, 1) for s in "SHD"]
    hearts = [c(r, "H") for r in range(2, 15) if r != 7]
    state = build({ANN: sevens + hearts, BOB: [c(5, "C"), c(6, "C"), c(8, "C")], CAT: [c(6, "D")]})
    t = Table(state)
    t.do(ANN, "challenge", 3, target=BOB)
    t.do(ANN, "commit", cards=policy.choose(t.state, ANN, random.Random(0)).cards)  # type: ignore[union-attr]
    t.do(BOB, "commit", cards=[c(5, "C"), c(6, "C"), c(8, "C")])
    guess = policy.choose(t.state, ANN, random.Random(0))
    assert guess is not None and guess.kind == "guess"
    assert guess.rank != 7 and guess.suit != "H"


def test_challenge_cards_are_the_loose_ones() -> None:
    state = build(
        {
            ANN: [c(K, "S"), c(K, "H"), c(K, "D"), c(3, "C"), c(5, "D")],
            BOB: [c(2, "S")],
            CAT: [c(6, "D")],
        }
    )
    t = Table(state)
    t.do(ANN, "challenge", 2, target=BOB)
    action = policy.choose(t.state, ANN, random.Random(0))
    assert action is not None and sorted(action.cards) == sorted([c(3, "C"), c(5, "D")])


def test_force_vote_and_no_move_when_not_waited_on() -> None:
    state = build(
        {ANN: [c(5, "S")], BOB: [c(2, "S")], CAT: [c(6, "D")]},
        sets={BOB: [ScoredSet(rank=K, cards=four(K))]},
        force_recycle=True,
    )
    t = Table(state)
    assert policy.choose(t.state, BOB, random.Random(0)) is None
    t.do(ANN, "force", target=BOB)
    assert policy.choose(t.state, CAT, random.Random(0)) == Action(kind="vote", value="yes")
    assert policy.choose(t.state, BOB, random.Random(0)) is None


def test_every_choice_is_accepted_by_the_engine() -> None:
    for seed in range(3):
        for state, now in islice(positions(seed, [bot, random_move, random_move], FAST), 0, 300, 4):
            for p in state.players:
                action = policy.choose(state, p.id, random.Random(seed), now)
                if action is None:
                    continue
                try:
                    apply(state, p.id, action, random.Random(0))
                except GameError as e:  # pragma: no cover - the failure message
                    raise AssertionError(f"{action} refused: {e}") from e


# ----------------------------------------------------------------------------- strength


@pytest.mark.slow
def test_it_beats_two_random_players() -> None:
    """Seeded, so the same every run: wins far more than the 1/3 of an equal player."""
    games = 15
    wins = sum(
        seat_match(seed, 3, random_move, CrapRules(threshold=300))[0] for seed in range(games)
    )
    assert wins / games > 0.7
