"""Property tests: random play from random seeds never breaks the engine's invariants."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.errors import GameError, NotInGame, NotYourTurn
from games.farkle.engine import (
    LOG_LENGTH,
    Action,
    Event,
    FarkleState,
    apply,
    legal_actions,
    new_game,
    remove_player,
    selection_value,
    timeout,
)
from games.farkle.rules import PRESETS, FarkleRules
from games.farkle.scoring import best_score, best_selection
from games.lobby import Seat

KINDS = ("toggle", "roll", "bank", "piggyback")
CUSTOM = FarkleRules(
    name="Everything on",
    target=3000,
    kind_scoring="singles",
    two_triplets=2000,
    extend_triple_across_throws=True,
    min_bank=300,
    min_bank_after_hot_dice=True,
    opening=600,
    one_die_throws=2,
    farkle_penalty_every=3,
    farkle_penalty=500,
    crappy_malappy_wins=3,
    piggyback=True,
    seating="highest_last",
    end_rule="finish_round",
)
RULES = {**PRESETS, "custom": CUSTOM}
# The same rules played to a low target, so that random play reaches the end game often.
SHORT = {
    f"{name} to 1000": FarkleRules(**{**rules.model_dump(), "target": 1000})
    for name, rules in RULES.items()
}

seeds = st.integers(min_value=0, max_value=2**32 - 1)
rule_names = st.sampled_from(sorted(RULES))
any_rule_names = st.sampled_from(sorted(RULES | SHORT))
player_counts = st.integers(min_value=2, max_value=4)


def seat_list(n: int) -> list[Seat]:
    return [Seat(id=100 + i, name=f"P{i}") for i in range(n)]


def check_invariants(state: FarkleState) -> None:
    rules, turn = state.rules, state.turn
    ids = [p.id for p in state.players]
    gone = [p.id for p in state.departed]
    assert len(set(ids)) == len(ids) and not set(ids) & set(gone)
    assert all(1 <= d <= 6 for d in turn.dice) and len(turn.dice) <= 6
    assert all(1 <= d <= 6 for d in turn.set_aside)
    assert turn.selected == sorted(set(turn.selected))
    assert all(0 <= i < len(turn.dice) for i in turn.selected)
    assert turn.total >= 0 and 0 <= turn.since_hot <= turn.total
    assert len(turn.set_aside) + len(turn.dice) <= 6
    assert 0 <= turn.one_die_misses < rules.one_die_throws
    assert set(turn.extended) <= set(turn.set_aside)
    if not rules.extend_triple_across_throws:
        assert turn.extended == []
    if not rules.piggyback:
        assert state.piggyback is None and not turn.piggybacked
    for p in state.players + state.departed:
        assert p.farkles >= 0 and p.malappys >= 0 and p.timeouts >= 0
        assert p.malappys <= p.farkles
        if p.score < 0:
            assert rules.farkle_penalty_every
        if p.on_table is False:
            assert p.score <= 0
    if state.finished:
        assert state.turn == type(state.turn)()
        assert state.piggyback is None
        assert state.winner is None or state.winner in ids + gone
    else:
        assert len(state.players) >= 2
        assert all(p.timeouts < 3 for p in state.players)  # the third one removes a player
        assert 0 <= state.current < len(state.players)
        if rules.crappy_malappy_wins:
            assert all(p.malappys < rules.crappy_malappy_wins for p in state.players)
        if state.final_turns is not None:
            assert set(state.final_turns) <= set(ids)
            assert state.current_player.id in state.final_turns
    assert len(state.log) <= LOG_LENGTH
    # Nothing took the lines written (the bot stores them with each move): new_log holds
    # the whole log, and the table's window is its end.
    assert state.new_log is not None and state.log == state.new_log[-LOG_LENGTH:]
    # The state round-trips through JSON.
    assert FarkleState.model_validate_json(state.model_dump_json()) == state


def check_scores(
    old: FarkleState, new: FarkleState, events: list[Event], banked: int | None
) -> None:
    """Scores change only by a bank (by exactly what was banked) or a farkle penalty."""
    before = {p.id: p.score for p in old.players + old.departed}
    after = {p.id: p.score for p in new.players + new.departed}
    assert before.keys() == after.keys()
    for pid, score in after.items():
        delta = score - before[pid]
        kinds = {e.kind for e in events if e.player == pid}
        if "bank" in kinds:
            assert pid == old.current_player.id and delta == banked
        elif "penalty" in kinds:
            assert delta == -old.rules.farkle_penalty
        else:
            assert delta == 0, (pid, delta, events)


def check_refused(state: FarkleState, user_id: int, action: Action, rng: random.Random) -> None:
    before = state.model_dump()
    state_before = state.model_copy(deep=True)
    with pytest.raises(GameError):
        apply(state, user_id, action, rng)
    assert state.model_dump() == before and state == state_before


def random_illegal(state: FarkleState, chooser: random.Random) -> tuple[int, Action]:
    uid = state.current_player.id
    legal = legal_actions(state, uid)
    options: list[tuple[int, Action]] = [
        (uid, Action(kind=k, index=0)) for k in KINDS if k not in legal
    ]
    others = [p.id for p in state.players if p.id != uid]
    options.append((chooser.choice(others), Action(kind=chooser.choice(KINDS), index=0)))
    options.append((-1, Action(kind="roll")))
    bad_index = chooser.choice([-1, len(state.turn.dice), 6, 99, None])
    options.append((uid, Action(kind="toggle", index=bad_index)))
    return chooser.choice(options)


def legal_move(state: FarkleState, chooser: random.Random) -> Action:
    uid = state.current_player.id
    legal = sorted(legal_actions(state, uid))
    assert legal, "the current player always has a move"
    kind = chooser.choice(legal)
    index = chooser.randrange(len(state.turn.dice)) if kind == "toggle" else None
    return Action(kind=kind, index=index)


def expected_bank(state: FarkleState, action: Action | None) -> int | None:
    """What a bank (or a timeout's bank) would add to the current player's score."""
    turn = state.turn
    try:
        if action is None:
            return turn.total + best_score(turn.dice, state.rules, turn.extended)
        return turn.total + selection_value(state)
    except GameError:
        return None


def policy(state: FarkleState, threshold: int) -> Action:
    """Take the best dice; bank when allowed once the turn is worth `threshold` or few dice
    are left; otherwise roll."""
    uid = state.current_player.id
    legal = legal_actions(state, uid)
    turn = state.turn
    if "piggyback" in legal and state.piggyback is not None and state.piggyback.dice >= 3:
        return Action(kind="piggyback")
    if not turn.dice or legal == {"roll"}:
        return Action(kind="roll")
    want = best_selection(turn.dice, state.rules, turn.extended)
    wrong = sorted(set(want) ^ set(turn.selected))
    if wrong:
        return Action(kind="toggle", index=wrong[0])
    left = len(turn.dice) - len(want)
    value = turn.total + selection_value(state)
    if "bank" in legal and (value >= threshold or 0 < left <= 2):
        return Action(kind="bank")
    return Action(kind="roll")


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(seed=seeds, rules_name=any_rule_names, players=player_counts)
def test_random_play_keeps_invariants(seed: int, rules_name: str, players: int) -> None:
    dice = random.Random(seed)
    chooser = random.Random(~seed)
    state, _ = new_game(seat_list(players), (RULES | SHORT)[rules_name], dice)
    check_invariants(state)
    for _ in range(300):
        if state.finished:
            with pytest.raises(GameError):
                apply(state, state.players[0].id, Action(kind="roll"), dice)
            with pytest.raises(GameError):
                timeout(state, dice)
            break
        r = chooser.random()
        if r < 0.1:
            uid, action = random_illegal(state, chooser)
            check_refused(state, uid, action, dice)
            continue
        if r < 0.14:
            new, events = timeout(state, dice)
            banked = expected_bank(state, None)
        elif r < 0.145:
            who = chooser.choice(state.players).id
            new, events = remove_player(state, who)
            assert who in [p.id for p in new.departed]
            banked = None
        else:
            if r < 0.6:
                action = legal_move(state, chooser)
            else:
                action = policy(state, chooser.choice([300, 1000]))
                assert action.kind in legal_actions(state, state.current_player.id)
            uid = state.current_player.id
            banked = expected_bank(state, action) if action.kind == "bank" else None
            new, events = apply(state, uid, action, dice)  # a listed move is never refused
        check_scores(state, new, events, banked)
        check_invariants(new)
        state = new


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(seed=seeds, rules_name=rule_names, players=player_counts)
def test_refused_moves_never_change_state(seed: int, rules_name: str, players: int) -> None:
    dice = random.Random(seed)
    chooser = random.Random(seed + 1)
    state, _ = new_game(seat_list(players), RULES[rules_name], dice)
    for _ in range(40):
        if state.finished:
            break
        for _ in range(3):
            uid, action = random_illegal(state, chooser)
            check_refused(state, uid, action, dice)
        outsider = Action(kind=chooser.choice(KINDS), index=0)
        with pytest.raises(NotInGame):
            apply(state, 999, outsider, dice)
        if len(state.players) > 1:
            other = next(p.id for p in state.players if p != state.current_player)
            with pytest.raises(NotYourTurn):
                apply(state, other, outsider, dice)
        state, _ = apply(state, state.current_player.id, legal_move(state, chooser), dice)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(
    seed=seeds,
    rules_name=rule_names,
    players=player_counts,
    threshold=st.sampled_from([300, 500, 1000, 2000]),
)
def test_policy_games_finish_under_a_move_cap(
    seed: int, rules_name: str, players: int, threshold: int
) -> None:
    rules = RULES[rules_name]
    dice = random.Random(seed)
    state, _ = new_game(seat_list(players), rules, dice)
    moves = 0
    cap = 6000
    while not state.finished and moves < cap:
        state, _ = apply(state, state.current_player.id, policy(state, threshold), dice)
        moves += 1
    assert state.finished, f"not finished after {cap} moves"
    check_invariants(state)
    winner = next(p for p in state.players + state.departed if p.id == state.winner)
    if winner.malappys < rules.crappy_malappy_wins or not rules.crappy_malappy_wins:
        assert max(p.score for p in state.players) == winner.score
        reached = (
            winner.score >= rules.target if rules.target_inclusive else winner.score > rules.target
        )
        assert reached and winner.reached_target is not None
