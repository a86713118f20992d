"""Property tests: random Kuriki play from random seeds never breaks the engine's invariants."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.autoplay import TIMEOUTS_BEFORE_REMOVAL, is_idle
from games.errors import GameError, IllegalMove, NotInGame, NotYourTurn
from games.kuriki.engine import (
    LOG_LENGTH,
    Action,
    KurikiRules,
    KurikiState,
    apply,
    charge_rusk,
    declarations,
    expire_votes,
    legal_actions,
    new_game,
    on_clock,
    private_view,
    public_view,
    remove_player,
    timeout,
)
from games.kuriki.values import KURIKI, declarable, roll_value
from games.lobby import Seat

from .kuriki_helpers import money

TURN_KINDS = ("direction", "roll", "declare", "pull", "pass", "reverse")
STRANGER = 999

seeds = st.integers(min_value=0, max_value=2**32 - 1)
player_counts = st.integers(min_value=2, max_value=6)
rules_strategy = st.builds(
    KurikiRules,
    lives=st.integers(min_value=1, max_value=9),
    two_digit=st.booleans(),
    reverse_after_kuriki=st.booleans(),
    stake=st.sampled_from([0, 1, 100]),
    foul_price=st.sampled_from([0, 1, 25]),
    vote_seconds=st.sampled_from([10, 60]),
)


def seat_list(n: int) -> list[Seat]:
    return [Seat(id=100 + i, name=f"P{i}") for i in range(n)]


def alive_ids(state: KurikiState) -> list[int]:
    return [p.id for p in state.alive()]


# --------------------------------------------------------------------------- invariants


def check_invariants(state: KurikiState) -> None:
    rules = state.rules
    ids = [p.id for p in state.players]
    alive = alive_ids(state)
    assert len(set(ids)) == len(ids)
    for p in state.players:
        assert 0 <= p.lives <= rules.lives
        assert p.fouls >= 0 and p.crowns >= 0 and p.timeouts >= 0
        if p.left:
            assert p.lives == 0
    # Money: every purse, the pot and the stakes the table holds add up to nothing.
    assert money(state) == 0
    if not rules.stake:
        assert state.pot == 0 and all(p.purse == 0 for p in state.players)
    # The dice under the cup are never public; only those who saw them see them.
    view = public_view(state)
    assert view["dice"] is None
    json.dumps(view)
    for p in state.players:
        mine = private_view(state, p.id)
        if state.dice is not None and p.id in state.seen:
            assert mine["dice"] == list(state.dice)
        else:
            assert mine["dice"] is None
        assert {**mine, "dice": None} == view
    assert private_view(state, STRANGER)["dice"] is None
    # Votes concern players still in, and nobody votes twice.
    for v in state.votes:
        assert v.accused in alive and v.proposer not in v.yes + v.no
        assert not set(v.yes) & set(v.no) and v.accused not in v.yes + v.no
    assert len({v.accused for v in state.votes}) == len(state.votes)
    assert state.tarted is None or state.player(state.tarted).lives == 0
    assert len(state.log) <= LOG_LENGTH
    # Nothing took the lines written (the bot stores them with each move): new_log holds
    # the whole log, and the table's window is its end.
    assert state.new_log is not None and state.log == state.new_log[-LOG_LENGTH:]
    if state.finished:
        assert state.dice is None and state.votes == []
        assert on_clock(state) is None
        if state.ended_by_departure is not None:  # nobody earned the win
            assert state.winner is None and state.winners == []
            # Players left, leaving one at most with lives; or nobody played for turns on end.
            if not is_idle(str(state.ended_by_departure)):
                assert any(p.left for p in state.players) and len(alive) <= 1
        else:
            assert len(alive) <= 1  # (people only here: bots never win together)
            assert state.winner == (alive[0] if alive else None) and state.winners == []
    else:
        assert len(alive) >= 2 and state.winner is None
        who = on_clock(state)
        assert who in alive, "the table never waits for a player who is out"
        assert state.player(who).timeouts < TIMEOUTS_BEFORE_REMOVAL
        assert legal_actions(state, who) - {"sneak"}, "the player on the clock has a move"
        assert state.roller in alive
        check_phase(state)
    # The state round-trips through JSON.
    assert KurikiState.model_validate_json(state.model_dump_json()) == state


def check_phase(state: KurikiState) -> None:
    values = declarable(state.rules.two_digit)
    if state.phase in ("direction", "roll"):
        assert state.dice is None and state.seen == []
        assert state.next_guy is None and state.responsible is None and state.passed == []
        if state.phase == "direction":
            assert state.direction == 1
    else:
        assert state.dice is not None and all(1 <= d <= 6 for d in state.dice)
        assert roll_value(*state.dice, state.rules.two_digit) != KURIKI  # shown at once
        assert state.seen[0] == state.roller and len(set(state.seen)) == len(state.seen)
        assert not state.can_reverse
    if state.phase == "declare":
        assert state.next_guy is None and state.passed == []
        assert state.minimum is None or state.minimum in values
    if state.phase == "respond":
        assert state.declared in values
        assert state.minimum is None or state.declared >= state.minimum
        assert state.next_guy in alive_ids(state) and state.responsible is not None
        assert state.next_guy != state.responsible
        assert state.next_guy == state.after(state.responsible)
        assert len(set(state.passed)) == len(state.passed)
        assert state.passed[-1:] in ([], [state.responsible])


def check_step(old: KurikiState, new: KurikiState) -> None:
    """Lives only go down, crowns and fouls only up, and a finished game stays so."""
    for before, after in zip(old.players, new.players, strict=True):
        assert before.id == after.id
        assert after.lives <= before.lives
        assert after.crowns >= before.crowns and after.fouls >= before.fouls
        if before.lives == 0:
            assert after.lives == 0
    if old.tarted is not None:
        assert new.tarted == old.tarted


def check_refused(state: KurikiState, user_id: int, action: Action, rng: random.Random) -> None:
    before = state.model_dump()
    copy = state.model_copy(deep=True)
    with pytest.raises(GameError):
        apply(state, user_id, action, rng)
    assert state.model_dump() == before and state == copy


# --------------------------------------------------------------------------- moves


def random_illegal(state: KurikiState, chooser: random.Random, now: float) -> tuple[int, Action]:
    """A move the rules must refuse now."""
    options: list[tuple[int, Action]] = [
        (STRANGER, Action(kind=chooser.choice((*TURN_KINDS, "sneak")), now=now))
    ]
    out = [p.id for p in state.players if p.out]
    if out:
        options.append((chooser.choice(out), Action(kind=chooser.choice(TURN_KINDS), now=now)))
    if state.finished:
        return chooser.choice(options)
    who = on_clock(state)
    assert who is not None
    legal = legal_actions(state, who)
    options += [(who, Action(kind=k, now=now)) for k in TURN_KINDS if k not in legal]
    others = [i for i in alive_ids(state) if i != who]
    options.append((chooser.choice(others), Action(kind=chooser.choice(TURN_KINDS), now=now)))
    if state.phase == "declare":
        wrong = [v for v in (KURIKI, 0, 3, 12, 21, 99, 100, 107) if v not in declarations(state)]
        if state.minimum is not None:
            wrong += [v for v in declarable(state.rules.two_digit) if v < state.minimum]
        value = chooser.choice([*map(str, wrong), "x", ""])
        options.append((who, Action(kind="declare", value=value, now=now)))
    if state.phase == "direction":
        options.append((who, Action(kind="direction", value="up", now=now)))
    if state.dice is None:
        options.append((chooser.choice(alive_ids(state)), Action(kind="sneak", now=now)))
    else:
        options.append((chooser.choice(state.seen), Action(kind="sneak", now=now)))
    me = chooser.choice(alive_ids(state))
    options.append((me, Action(kind="propose", value=str(me), now=now)))
    options.append((me, Action(kind="vote", vote=state.next_vote, value="yes", now=now)))
    return chooser.choice(options)


def turn_move(state: KurikiState, chooser: random.Random, truthful: float) -> Action:
    """A legal move for the player on the clock; pulls often enough that games end."""
    who = on_clock(state)
    assert who is not None
    legal = legal_actions(state, who) - {"sneak"}
    if state.phase == "direction":
        return Action(kind="direction", value=chooser.choice(["cw", "ccw"]))
    if state.phase == "declare":
        options = declarations(state)
        assert state.dice is not None
        truth = roll_value(*state.dice, state.rules.two_digit)
        if truth in options and chooser.random() < truthful:
            return Action(kind="declare", value=str(truth))
        return Action(kind="declare", value=str(chooser.choice(options)))
    if state.phase == "respond":
        r = chooser.random()
        kind = "pull" if r < 0.4 else "pass" if r < 0.7 and "pass" in legal else "roll"
        assert kind in legal
        return Action(kind=kind)
    return Action(kind=chooser.choice(sorted(legal)))


def side_move(state: KurikiState, chooser: random.Random, now: float) -> tuple[int, Action] | None:
    """A legal foul-related move by anyone: a peek, a proposal or a vote."""
    alive = alive_ids(state)
    r = chooser.random()
    if r < 0.4:
        peekers = [i for i in alive if "sneak" in legal_actions(state, i)]
        return (chooser.choice(peekers), Action(kind="sneak", now=now)) if peekers else None
    live = [v for v in state.votes if v.deadline > now]  # the others close on this move
    if r < 0.7 or not live:
        open_on = {v.accused for v in live}
        accused = [i for i in alive if i not in open_on]
        if not accused:
            return None
        target = chooser.choice(accused)
        # One proposal per player per roll: those who proposed on this one wait.
        proposers = [
            i for i in alive if i != target and state.proposed.get(i) != state.moment
        ]
        if not proposers:
            return None
        proposer = chooser.choice(proposers)
        rusk = chooser.random() < 0.2
        return proposer, Action(
            kind="propose", value=str(target), now=now, reason="a dice", rusk=rusk
        )
    vote = chooser.choice(live)
    electors = [i for i in alive if i not in (vote.accused, vote.proposer)]
    if not electors:  # two players: the accused answers
        answer = chooser.choice(["accept", "decline"])
        return vote.accused, Action(kind="vote", vote=vote.id, value=answer, now=now)
    voters = [i for i in electors if i not in vote.yes + vote.no]
    if not voters:
        return None
    value = chooser.choice(["yes", "no"])
    return chooser.choice(voters), Action(kind="vote", vote=vote.id, value=value, now=now)


def play(
    state: KurikiState, dice: random.Random, chooser: random.Random, cap: int
) -> tuple[KurikiState, int]:
    """Random play with timeouts, departures, fouls and refused moves; returns the final
    state and the number of moves made."""
    now = 0.0
    truthful = chooser.random()
    moves = 0
    while not state.finished and moves < cap:
        now += chooser.choice([0.0, 1.0, 7.5, 30.0])
        r = chooser.random()
        if r < 0.08:
            uid, action = random_illegal(state, chooser, now)
            check_refused(state, uid, action, dice)
            continue
        if r < 0.12:
            new, _ = timeout(state, dice, now)
        elif r < 0.125:
            new, _ = remove_player(state, chooser.choice(alive_ids(state)))
        elif r < 0.13:
            new, _ = charge_rusk(state, chooser.choice(alive_ids(state)))
        elif r < 0.135:
            new, _ = expire_votes(state, now)
        elif r < 0.2:
            side = side_move(state, chooser, now)
            if side is None:
                continue
            new, _ = apply(state, side[0], side[1], dice)
        else:
            who = on_clock(state)
            assert who is not None
            new, _ = apply(state, who, turn_move(state, chooser, truthful), dice)
        check_step(state, new)
        check_invariants(new)
        state = new
        moves += 1
    return state, moves


# --------------------------------------------------------------------------- properties


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(seed=seeds, players=player_counts, rules=rules_strategy)
def test_random_play_keeps_invariants_and_finishes(
    seed: int, players: int, rules: KurikiRules
) -> None:
    dice = random.Random(seed)
    chooser = random.Random(~seed)
    state, _ = new_game(seat_list(players), rules, dice)
    check_invariants(state)
    state, moves = play(state, dice, chooser, cap=3000)
    assert state.finished, f"not finished after {moves} moves"
    check_invariants(state)
    if rules.stake and state.winner is None:  # players left: the stakes went back
        assert state.ended_by_departure is not None
        assert sum(p.purse for p in state.players) + state.pot == 0
    elif rules.stake:
        assert sum(p.purse for p in state.players) == 0 and state.pot == 0
        winner = state.player(state.winner)  # type: ignore[arg-type]
        # The winner has the others' stakes, less at most the fouls he paid.
        floor = (players - 1) * rules.stake - winner.fouls * rules.foul_price
        assert winner.purse >= floor
    for uid in [p.id for p in state.players] + [STRANGER]:
        with pytest.raises(GameError):
            apply(state, uid, Action(kind="roll"), dice)
    with pytest.raises(IllegalMove):
        timeout(state, dice)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(seed=seeds, players=player_counts, rules=rules_strategy)
def test_refused_moves_never_change_state(seed: int, players: int, rules: KurikiRules) -> None:
    dice = random.Random(seed)
    chooser = random.Random(seed + 1)
    state, _ = new_game(seat_list(players), rules, dice)
    for _ in range(60):
        if state.finished:
            break
        for _ in range(3):
            uid, action = random_illegal(state, chooser, 0.0)
            check_refused(state, uid, action, dice)
        who = on_clock(state)
        assert who is not None
        with pytest.raises(NotInGame):
            apply(state, STRANGER, Action(kind=chooser.choice(TURN_KINDS)), dice)
        other = chooser.choice([i for i in alive_ids(state) if i != who])
        with pytest.raises(NotYourTurn):
            apply(state, other, Action(kind=chooser.choice(TURN_KINDS)), dice)
        state, _ = apply(state, who, turn_move(state, chooser, 0.5), dice)
    uid, action = random_illegal(state, chooser, 0.0)
    check_refused(state, uid, action, dice)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, players=player_counts, two_digit=st.booleans())
def test_timeouts_alone_finish_the_game(seed: int, players: int, two_digit: bool) -> None:
    """A table of absent players: every move times out, and the game still ends (abandoned,
    once every player let two turns in a row run out, unless lives ran out first)."""
    dice = random.Random(seed)
    state, _ = new_game(seat_list(players), KurikiRules(two_digit=two_digit), dice)
    for _ in range(500):
        if state.finished:
            break
        who = on_clock(state)
        new, events = timeout(state, dice)
        assert events[0].kind == "timeout" and events[0].player == who
        if state.phase == "declare":  # the lowest allowed, whatever the dice
            assert new.declared == declarations(state)[0]
        check_step(state, new)
        check_invariants(new)
        state = new
    assert state.finished
