"""Property tests: random CRAP play from random seeds never creates or loses a card, never
shows a hidden card, refuses illegal moves without a trace and ends."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from games.autoplay import IDLE_TURNS, idle_message, is_idle
from games.crap.cards import RANKS, SUITS, full_deck, is_joker, rank
from games.crap.engine import (
    LOG_LENGTH,
    Action,
    CrapRules,
    CrapState,
    all_cards,
    apply,
    challenge_size,
    expire,
    legal_actions,
    new_game,
    next_deadline,
    on_clock,
    private_view,
    public_view,
    remove_player,
    scorable_ranks,
    timeout,
    waiting_for,
)
from games.errors import GameError, IllegalMove, NotInGame, NotYourTurn
from games.lobby import Seat

STRANGER = 999
TURN_KINDS = ("score", "recycle", "acquire", "challenge", "protect", "cooperate", "force")
ALL_KINDS = (*TURN_KINDS, "call_bluff", "no_call", "commit", "guess", "vote")

seeds = st.integers(min_value=0, max_value=2**32 - 1)
player_counts = st.integers(min_value=3, max_value=6)
rules_strategy = st.builds(
    CrapRules,
    threshold=st.sampled_from([100, 150]),
    jokers=st.booleans(),
    force_recycle=st.booleans(),
    bluff_window=st.sampled_from([5, 20]),
    vote_seconds=st.sampled_from([10, 60]),
)


def seat_list(n: int) -> list[Seat]:
    return [Seat(id=100 + i, name=f"P{i}") for i in range(n)]


# --------------------------------------------------------------------------- invariants


def hidden_cards(state: CrapState) -> set[int]:
    return {x for p in state.players for x in p.hand + p.protected} | set(state.deck)


def twin(state: CrapState, rng: random.Random) -> CrapState:
    """The same table with every hidden card (hands, protected rows, the deck) dealt afresh
    in the same numbers, and the Acquire's bluff flag flipped: the public sees no difference."""
    pool = [x for p in state.players for x in p.hand + p.protected] + state.deck
    rng.shuffle(pool)
    players = []
    for p in state.players:
        hand, pool = pool[: len(p.hand)], pool[len(p.hand) :]
        protected, pool = pool[: len(p.protected)], pool[len(p.protected) :]
        seen = {k: [*reversed(v), 0] for k, v in p.seen.items()}
        players.append(p.model_copy(update={"hand": hand, "protected": protected, "seen": seen}))
    update: dict[str, object] = {"players": players, "deck": pool}
    if state.acquire is not None:
        update["acquire"] = state.acquire.model_copy(update={"bluff": not state.acquire.bluff})
    if state.challenge is not None:
        c = state.challenge
        committed = {k: list(reversed(v)) for k, v in c.committed.items()}
        guesses = {k: (16 - g[0], g[1]) for k, g in c.guesses.items()}
        update["challenge"] = c.model_copy(update={"committed": committed, "guesses": guesses})
    return state.model_copy(update=update)


def check_view(state: CrapState, rng: random.Random) -> None:
    view = public_view(state)
    json.dumps(view)
    assert public_view(twin(state, rng)) == view, "the public view depends on a hidden card"
    assert view["deck"] == len(state.deck)
    for p, pv in zip(state.players, view["players"], strict=True):
        assert pv["hand"] == len(p.hand) and type(pv["hand"]) is int
        assert pv["protected"] == len(p.protected) and type(pv["protected"]) is int
        assert pv["seen"] == {}
    if state.challenge is not None:
        assert all(type(n) is int for n in view["challenge"]["committed"].values())
        assert all(g is None for g in view["challenge"]["guesses"].values())
    if state.acquire is not None:
        assert view["acquire"]["bluff"] is None
    # The discard pile is a count; cards the public view names: the scored sets.
    assert view["discard"] == len(state.discard) and type(view["discard"]) is int
    named: set[int] = set()
    for pv in view["players"]:
        for sv in pv["sets"]:
            named |= set(sv["cards"]) | ({sv["marker"]} if sv["marker"] is not None else set())
    assert not named & hidden_cards(state)
    # A private view is the public one and the seat's own cards: the player on turn's with the
    # ledger, every seat's without it (the ledger's serialization is most of the cost).
    full = private_view(state, state.current_player.id)
    full.pop("me")
    assert full == view
    bare = public_view(state, ledger=False)
    for p in state.players:
        mine = private_view(state, p.id, ledger=False)
        me = mine.pop("me")
        assert mine == bare
        assert me["hand"] == p.hand and me["protected"] == p.protected and me["seen"] == p.seen
        if state.challenge is not None and str(p.id) in state.challenge.committed:
            assert me["committed"] == state.challenge.committed[str(p.id)]
        else:
            assert "committed" not in me


def check_invariants(state: CrapState, rng: random.Random) -> None:
    # No card created, none lost: each is in exactly one place.
    assert sorted(all_cards(state)) == sorted(full_deck(state.rules.jokers))
    ids = [p.id for p in state.players]
    assert len(set(ids)) == len(ids) and 1 <= len(ids) <= 6
    assert 0 <= state.current < len(ids)
    assert len(state.log) <= LOG_LENGTH
    # Nothing took the lines written (the bot stores them with each move): new_log holds
    # the whole log, and the table's window is its end.
    assert state.new_log is not None and state.log == state.new_log[-LOG_LENGTH:]
    for p in state.players:
        assert p.score >= 0 and p.timeouts >= 0
        for s in p.sets:
            naturals = [x for x in s.cards if not is_joker(x)]
            assert naturals and {rank(x) for x in naturals} == {s.rank}
            assert len(s.cards) in ((7, 8) if s.double else (3, 4))
            assert (s.ace_value is not None) == (s.rank == 14)
    check_view(state, rng)
    assert CrapState.model_validate_json(state.model_dump_json()) == state
    if state.finished and state.ended_by_departure is not None:
        # Players left, one is at the table, or nobody played: nobody won.
        assert state.winners == [] and on_clock(state) is None
        assert len(state.players) == 1 or is_idle(state.ended_by_departure)
        assert (state.acquire, state.challenge, state.force) == (None, None, None)
        return
    if state.finished:
        assert state.winners and on_clock(state) is None
        assert (state.acquire, state.challenge, state.force) == (None, None, None)
        best = max(p.score for p in state.players)
        assert {state.player(w).score for w in state.winners} == {best}
        assert best >= state.rules.threshold or len(state.players) == 1
        for p in state.players:
            assert legal_actions(state, p.id) == set()
        return
    assert state.winners == [] and len(state.players) >= 2
    assert (state.acquire is not None) == (state.phase == "acquire")
    assert (state.challenge is not None) == (state.phase == "challenge")
    assert (state.force is not None) == (state.phase == "force_vote")
    if state.phase == "turn":
        assert waiting_for(state) == [state.current_player.id]
        assert legal_actions(state, state.current_player.id) >= {"recycle", "acquire"}
    if state.phase == "challenge":
        c = state.challenge
        assert c is not None and c.challenger != c.target and 1 <= c.die <= 6
        assert c.challenger == state.current_player.id
        for pid, cards in c.committed.items():
            hand = state.player(int(pid)).hand
            assert set(cards) <= set(hand) and len(cards) == min(c.die, len(hand))
        assert set(c.guesses) <= set(c.committed)
        assert waiting_for(state), "a challenge always waits for someone"
    if state.phase == "acquire":
        a = state.acquire
        assert a is not None and a.caller == state.current_player.id
        mine = state.player(a.caller)
        assert a.bluff == (not any(rank(x) == a.rank for x in mine.hand + mine.protected))
    if state.phase == "force_vote":
        f = state.force
        assert f is not None and f.caller == state.current_player.id and f.caller != f.target
        assert not set(f.yes) & set(f.no)


def check_refused(state: CrapState, user_id: int, action: Action, rng: random.Random) -> None:
    before = state.model_dump()
    with pytest.raises(GameError):
        apply(state, user_id, action, rng)
    assert state.model_dump() == before


# --------------------------------------------------------------------------- moves


def legal_move(state: CrapState, ch: random.Random, now: float) -> tuple[int, Action]:
    """A legal move for someone the table waits on; scores whenever it can (so games end)."""
    if state.phase == "acquire":
        a = state.acquire
        assert a is not None
        who = ch.choice([p.id for p in state.players if legal_actions(state, p.id)])
        return who, Action(kind=ch.choice(["call_bluff", "no_call", "no_call"]), now=now)
    if state.phase == "force_vote":
        voters = [p.id for p in state.players if "vote" in legal_actions(state, p.id)]
        return ch.choice(voters), Action(kind="vote", value=ch.choice(["yes", "no"]), now=now)
    who = ch.choice(waiting_for(state))
    me = state.player(who)
    acts = sorted(legal_actions(state, who))
    kind = "score" if "score" in acts and ch.random() < 0.8 else ch.choice(acts)
    others = [p.id for p in state.players if p.id != who]
    if kind == "score":
        r = ch.choice(scorable_ranks(me))
        cards = me.hand + me.protected
        naturals = [x for x in cards if rank(x) == r]
        jokers = [x for x in cards if is_joker(x)]
        n = 8 if len(naturals) + len(jokers) >= 8 and ch.random() < 0.5 else 4
        return who, Action(kind="score", cards=(naturals + jokers)[:n], now=now)
    if kind == "protect":
        return who, Action(kind=kind, cards=[ch.choice(me.hand)], now=now)
    if kind in ("challenge", "cooperate", "force"):
        return who, Action(kind=kind, target=ch.choice(others), now=now)
    if kind == "acquire":
        return who, Action(kind=kind, rank=ch.choice(RANKS), now=now)
    if kind == "commit":
        cards = ch.sample(me.hand, challenge_size(state, who))
        return who, Action(kind=kind, cards=cards, now=now)
    if kind == "guess":
        return who, Action(kind=kind, rank=ch.choice(RANKS), suit=ch.choice(SUITS), now=now)
    return who, Action(kind=kind, now=now)


def illegal_move(state: CrapState, ch: random.Random) -> tuple[int, Action]:
    """A move the rules must refuse now (at time 0, so that no window closes first)."""
    ids = [p.id for p in state.players]
    options = [(STRANGER, Action(kind=ch.choice(ALL_KINDS)))]
    if state.finished:
        return ch.choice([*options, (ch.choice(ids), Action(kind=ch.choice(ALL_KINDS)))])
    for uid in ids:
        banned = [k for k in ALL_KINDS if k not in legal_actions(state, uid)]
        options.append((uid, Action(kind=ch.choice(banned), target=ch.choice(ids), rank=5)))
    who = on_clock(state)
    if state.phase == "turn":
        assert who is not None
        me = state.player(who)
        not_mine = [x for x in full_deck(state.rules.jokers) if x not in me.hand + me.protected]
        options += [
            (who, Action(kind="protect", cards=[ch.choice(not_mine)])),
            (who, Action(kind="protect", cards=me.hand[:2] if len(me.hand) > 1 else [])),
            (who, Action(kind="acquire", rank=ch.choice([None, 0, 1, 15]))),
            (who, Action(kind=ch.choice(["challenge", "cooperate"]), target=who)),
            (who, Action(kind="challenge", target=STRANGER)),
            (who, Action(kind="score", cards=(me.hand + me.protected)[:3])),
            (who, Action(kind="score", cards=[*ch.sample(not_mine, 3), *me.hand[:1]])),
        ]
        other = ch.choice([i for i in ids if i != who])
        options.append((other, Action(kind=ch.choice(TURN_KINDS), target=who, rank=5)))
    elif state.phase == "challenge":
        assert who is not None
        c = state.challenge
        assert c is not None
        me = state.player(who)
        if str(who) not in c.committed:
            need = challenge_size(state, who)
            wrong = me.hand[: need - 1] if need else me.hand[:1] or [STRANGER]
            options += [
                (who, Action(kind="commit", cards=wrong)),
                (who, Action(kind="commit", cards=me.protected[:need] if me.protected else [-1])),
            ]
        else:
            options.append((who, Action(kind="guess", rank=ch.choice(RANKS), suit="X")))
            options.append((who, Action(kind="guess", rank=1, suit="S")))
    elif state.phase == "acquire":
        assert state.acquire is not None
        options.append((state.acquire.caller, Action(kind="call_bluff")))
    elif state.phase == "force_vote":
        f = state.force
        assert f is not None
        options.append((ch.choice([f.caller, f.target]), Action(kind="vote", value="yes")))
        voters = [i for i in ids if "vote" in legal_actions(state, i)]
        options.append((ch.choice(voters), Action(kind="vote", value="maybe")))
    return ch.choice(options)


def play(
    state: CrapState,
    dice: random.Random,
    ch: random.Random,
    cap: int,
    *,
    check: bool = True,
    departures: bool = False,
) -> tuple[CrapState, int]:
    """Random play with timeouts, closing windows and refused moves, checked after every
    step; returns the final state and the number of steps taken."""
    now = 0.0
    steps = 0
    while not state.finished and steps < cap:
        steps += 1
        now += ch.choice([0.0, 1.0, 1.0, 4.0, 30.0])
        r = ch.random()
        if r < 0.06:
            uid, action = illegal_move(state, ch)
            check_refused(state, uid, action, dice)
            continue
        deadline = next_deadline(state)
        if deadline is not None and deadline <= now:
            new, _ = expire(state, now, dice)
            assert new.phase != state.phase or new.finished
        elif r < 0.09:
            new, _ = timeout(state, dice, now)
        elif departures and r < 0.095 and state.phase == "turn":
            new, _ = remove_player(state, ch.choice([p.id for p in state.players]))
        else:
            uid, action = legal_move(state, ch, now)
            new, _ = apply(state, uid, action, dice)
        if check:
            check_invariants(new, ch)
        else:
            assert sorted(all_cards(new)) == sorted(full_deck(new.rules.jokers))
        state = new
    return state, steps


# --------------------------------------------------------------------------- properties


@pytest.mark.slow
@settings(max_examples=4, deadline=None)
@given(seed=seeds, players=player_counts, rules=rules_strategy)
def test_random_play_keeps_every_card_hides_hands_and_finishes(
    seed: int, players: int, rules: CrapRules
) -> None:
    dice = random.Random(seed)
    ch = random.Random(seed ^ 0x5EED)
    state, _ = new_game(seat_list(players), rules, dice)
    check_invariants(state, ch)
    state, steps = play(state, dice, ch, cap=1500)
    assert state.finished, f"not finished after {steps} steps"
    check_invariants(state, ch)
    for uid in [p.id for p in state.players] + [STRANGER]:
        check_refused(state, uid, Action(kind=ch.choice(ALL_KINDS)), dice)
    with pytest.raises(IllegalMove):
        timeout(state, dice)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(seed=seeds, players=player_counts, rules=rules_strategy)
@example(  # CI found it: everyone still seated let their turns run out (abandoned)
    seed=4285,
    players=3,
    rules=CrapRules(threshold=100, jokers=False, force_recycle=False, bluff_window=5, vote_seconds=10),
)
def test_departures_keep_every_card(seed: int, players: int, rules: CrapRules) -> None:
    dice = random.Random(seed)
    ch = random.Random(seed + 1)
    state, _ = new_game(seat_list(players), rules, dice)
    state, steps = play(state, dice, ch, cap=1500, check=False, departures=True)
    assert state.finished, f"not finished after {steps} steps"
    if is_idle(state.ended_by_departure):  # everyone left let their turns run out
        assert state.winners == [] and len(state.players) > 1
    elif len(state.players) > 1:
        assert max(p.score for p in state.players) >= rules.threshold


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(seed=seeds, players=player_counts, rules=rules_strategy)
def test_refused_moves_change_nothing(seed: int, players: int, rules: CrapRules) -> None:
    dice = random.Random(seed)
    ch = random.Random(~seed)
    state, _ = new_game(seat_list(players), rules, dice)
    now = 0.0
    for _ in range(30):
        if state.finished:
            break
        for _ in range(3):
            uid, action = illegal_move(state, ch)
            check_refused(state, uid, action, dice)
        with pytest.raises(NotInGame):
            apply(state, STRANGER, Action(kind=ch.choice(ALL_KINDS)), dice)
        if state.phase == "turn":
            other = ch.choice([p.id for p in state.players if p.id != on_clock(state)])
            with pytest.raises(NotYourTurn):
                apply(state, other, Action(kind=ch.choice(TURN_KINDS)), dice)
        now += 1.0
        deadline = next_deadline(state)
        if deadline is not None and deadline <= now:
            state, _ = expire(state, now, dice)
        else:
            uid, action = legal_move(state, ch, now)
            state, _ = apply(state, uid, action, dice)
    uid, action = illegal_move(state, ch)
    check_refused(state, uid, action, dice)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, players=player_counts, rules=rules_strategy)
def test_a_table_of_absent_players_ends(seed: int, players: int, rules: CrapRules) -> None:
    """Every turn times out: once every player let two turns in a row run out, nobody is
    playing and the game ends abandoned, everyone still seated."""
    dice = random.Random(seed)
    state, _ = new_game(seat_list(players), rules, dice)
    hands = {p.id: list(p.hand) for p in state.players}
    for _ in range(IDLE_TURNS * players):
        if state.finished:
            break
        who = on_clock(state)
        state, events = timeout(state, dice)
        assert events[0].kind == "skip" and events[0].player == who
        for p in state.players:
            assert p.hand == hands[p.id]  # a skipped turn moves no card
    assert state.finished and len(state.players) == players
    assert state.winners == [] and state.ended_by_departure == idle_message(2 * players)
    check_invariants(state, random.Random(seed))


@settings(max_examples=40, deadline=None)
@given(seed=seeds, players=player_counts, jokers=st.booleans())
def test_new_games_deal_two_dice_each(seed: int, players: int, jokers: bool) -> None:
    state, events = new_game(seat_list(players), CrapRules(jokers=jokers), random.Random(seed))
    check_invariants(state, random.Random(seed))
    sizes = [len(p.hand) for p in state.players]
    assert all(2 <= n <= 12 for n in sizes)
    assert len(state.deck) == len(full_deck(jokers)) - sum(sizes)
    assert len(state.current_player.hand) == min(sizes)
    assert events[0].kind == "deal"  # one line for the whole deal
    assert all(f"{p.name} " in str(events[0].text) for p in state.players)
