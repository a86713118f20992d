"""Kuriki bot matchups for `python -m bench.bots`: the policy against "truthful" players and
against itself, played through the pure engine with seeded dice. How far a person can exploit
it (fixed declaration rules, callers, Rusk proposers, at every table size) is the arena's
question: `python -m bench.arena --game kuriki` (bench/arena_kuriki.py)."""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable, Iterator

from games.kuriki import policy
from games.kuriki.engine import Action, KurikiRules, KurikiState, apply, new_game, on_clock
from games.kuriki.values import declarable, roll_value
from games.lobby import Seat

Chooser = Callable[[KurikiState, int, random.Random], Action | None]
MAX_MOVES = 5000  # a 3-player game of 5 lives takes about a hundred


def median_roll(two_digit: bool) -> int:
    """The median value of a roll of two dice (a Kuriki counts as the highest)."""
    values = sorted(roll_value(a, b, two_digit) for a in range(1, 7) for b in range(1, 7))
    return values[len(values) // 2 - 1]


def truthful(state: KurikiState, seat: int, rng: random.Random) -> Action | None:
    """The baseline: declares the truth, or the lowest legal declaration when the truth is
    too low; pulls a declaration above the median roll and takes the cup otherwise. Having
    seen the dice itself (the cup came round), it pulls exactly the lies. It never passes."""
    view = policy.observe(state, seat)
    if on_clock(view) != seat:
        return None
    two = view.rules.two_digit
    if view.phase == "direction":
        return Action(kind="direction", value="cw")
    if view.phase == "roll":
        return Action(kind="roll")
    if view.phase == "declare":
        assert view.dice is not None
        truth = roll_value(*view.dice, two)
        legal = [v for v in declarable(two) if view.minimum is None or v >= view.minimum]
        return Action(kind="declare", value=str(truth if truth in legal else legal[0]))
    assert view.declared is not None
    if view.dice is not None:
        lie = roll_value(*view.dice, two) < view.declared
        return Action(kind="pull" if lie else "roll")
    return Action(kind="pull" if view.declared > median_roll(two) else "roll")


def bot(state: KurikiState, seat: int, rng: random.Random) -> Action | None:
    return policy.choose(state, seat, rng)


def game(
    seed: int,
    choosers: list[Chooser],
    rules: KurikiRules | None = None,
    times: list[list[float]] | None = None,
) -> Iterator[KurikiState]:
    """One game, seat i (player id i + 1) played by choosers[i]: yields every state it
    passes through, the last one finished. Dice and the players' choices come from
    separate seeded generators; each seat's decision times (seconds) go to `times`."""
    dice = random.Random(seed)
    minds = random.Random(seed * 7919 + 1)
    seats = [Seat(id=i + 1, name=f"P{i + 1}") for i in range(len(choosers))]
    state, _ = new_game(seats, rules or KurikiRules(), dice)
    for _ in range(MAX_MOVES):
        yield state
        if state.finished:
            return
        who = on_clock(state)
        assert who is not None
        start = time.perf_counter()
        action = choosers[who - 1](state, who, minds)
        if times is not None:
            times[who - 1].append(time.perf_counter() - start)
        assert action is not None, f"seat {who} is on the clock but chose nothing"
        state, _ = apply(state, who, action, dice)
    raise RuntimeError(f"game {seed} did not end in {MAX_MOVES} moves")


def play(
    seed: int, choosers: list[Chooser], rules: KurikiRules | None = None
) -> tuple[KurikiState, list[list[float]]]:
    """Play `game` to the end: the final state and each seat's decision times."""
    times: list[list[float]] = [[] for _ in choosers]
    (state,) = deque(game(seed, choosers, rules, times), maxlen=1)
    return state, times


def seat_match(
    seed: int, players: int, opponent: Chooser, rules: KurikiRules | None = None
) -> tuple[float, list[float]]:
    """The policy in seat (seed mod players), `opponent` in the others: 1.0 when the policy
    is last standing."""
    mine = seed % players
    choosers = [bot if i == mine else opponent for i in range(players)]
    state, times = play(seed, choosers, rules)
    return (1.0 if state.winner == mine + 1 else 0.0), times[mine]


def matchups() -> list[tuple[str, Callable[[int], tuple[float, list[float]]], float]]:
    return [
        (
            "kuriki: policy vs 2 truthful (3 players, 5 lives)",
            lambda s: seat_match(s, 3, truthful),
            1 / 3,
        ),
        (
            "kuriki: policy vs itself (3 players, seats rotated)",
            lambda s: seat_match(s, 3, bot),
            1 / 3,
        ),
        (
            "kuriki: policy vs 2 truthful (3 players, two-digit, reverse)",
            lambda s: seat_match(
                s, 3, truthful, KurikiRules(two_digit=True, reverse_after_kuriki=True)
            ),
            1 / 3,
        ),
    ]


__all__ = ["matchups", "median_roll", "play", "seat_match", "truthful"]
