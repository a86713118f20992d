"""Kuriki bot matchups for `python -m bench.bots`: the policy against "truthful" players and
against itself, played through the pure engine with seeded dice. How far a person can exploit
it (fixed declaration rules, callers, Rusk proposers, at every table size) is the arena's
question: `python -m bench.arena --game kuriki` (bench/arena_kuriki.py)."""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable, Iterator

from games.errors import GameError
from games.gamelog import take_log
from games.kuriki import policy
from games.kuriki.engine import Action, KurikiRules, KurikiState, apply, new_game, on_clock
from games.kuriki.values import declarable, roll_value
from games.lobby import Seat

Chooser = Callable[[KurikiState, int, random.Random, float], Action | None]
MAX_MOVES = 5000  # a 3-player game of 5 lives takes about a hundred
SECONDS_A_MOVE = 5.0


def median_roll(two_digit: bool) -> int:
    """The median value of a roll of two dice (a Kuriki counts as the highest)."""
    values = sorted(roll_value(a, b, two_digit) for a in range(1, 7) for b in range(1, 7))
    return values[len(values) // 2 - 1]


def truthful(
    state: KurikiState, seat: int, rng: random.Random, now: float = 0.0
) -> Action | None:
    """The baseline: declares the truth, or the lowest legal declaration when the truth is
    too low; pulls a declaration above the median roll and takes the cup otherwise. Having
    seen the dice itself (the cup came round), it pulls exactly the lies. It never passes."""
    if on_clock(state) != seat:
        return None
    view = policy.observe(state, seat)
    if view.phase == "direction":
        return Action(kind="direction", value="cw", now=now)
    if view.phase == "roll":
        return Action(kind="roll", now=now)
    if view.phase == "declare":
        assert view.dice is not None
        return declaring(view, roll_value(*view.dice, view.rules.two_digit), now)
    return answer(view).model_copy(update={"now": now})


def declaring(view: KurikiState, value: int, now: float) -> Action:
    """Declare `value`, or the lowest declaration allowed when it is too low."""
    two = view.rules.two_digit
    legal = [v for v in declarable(two) if view.minimum is None or v >= view.minimum]
    return Action(kind="declare", value=str(value if value in legal else legal[0]), now=now)


def answer(view: KurikiState) -> Action:
    """`truthful`'s answer as Next Guy: pull its own lie come back, or a declaration above
    the median roll; otherwise take the cup."""
    assert view.declared is not None
    two = view.rules.two_digit
    if view.dice is not None:
        lie = roll_value(*view.dice, two) < view.declared
        return Action(kind="pull" if lie else "roll")
    return Action(kind="pull" if view.declared > median_roll(two) else "roll")


def bot(state: KurikiState, seat: int, rng: random.Random, now: float = 0.0) -> Action | None:
    """The bot's move. Off the clock a bot only votes, so without a vote open it is not asked:
    the same games, without rebuilding its view for every seat off the clock."""
    if not state.votes and on_clock(state) != seat:
        return None
    return policy.choose(state, seat, rng, now)


def game(
    seed: int,
    choosers: list[Chooser],
    rules: KurikiRules | None = None,
    times: list[list[float]] | None = None,
) -> Iterator[KurikiState]:
    """One game, seat i (player id i + 1) played by choosers[i]: yields every state it
    passes through, the last one finished. Dice and the players' choices come from
    separate seeded generators. Each step first lets the seats off the clock vote or
    propose, then the one on the clock moves; its decision time (seconds) goes to `times`.

    Votes need time: the clock moves 5 seconds a move, so a vote nobody answers closes
    after 12 moves, as a 60 s vote would. The log's new lines are taken after every move,
    as the Discord bot stores them: a state that kept them all would make every view
    longer with every move."""
    dice = random.Random(seed)
    minds = random.Random(seed * 7919 + 1)
    seats = [Seat(id=i + 1, name=f"P{i + 1}") for i in range(len(choosers))]
    state, _ = new_game(seats, rules or KurikiRules(), dice)
    now = 0.0
    for _ in range(MAX_MOVES):
        yield state
        if state.finished:
            return
        now += SECONDS_A_MOVE
        who = on_clock(state)
        for p in state.alive():
            if p.id == who:
                continue
            aside = choosers[p.id - 1](state, p.id, minds, now)
            if aside is None or aside.kind not in ("vote", "propose"):
                continue
            try:
                state, _ = take_log(apply(state, p.id, aside, dice)[0])
            except GameError:  # a proposal the engine refuses: play on
                continue
            yield state
            if state.finished:
                return
        who = on_clock(state)
        assert who is not None
        start = time.perf_counter()
        action = choosers[who - 1](state, who, minds, now)
        if times is not None:
            times[who - 1].append(time.perf_counter() - start)
        assert action is not None, f"seat {who} is on the clock but chose nothing"
        state, _ = take_log(apply(state, who, action, dice)[0])
    raise RuntimeError(f"game {seed} did not end in {MAX_MOVES} moves")


def play(
    seed: int, choosers: list[Chooser], rules: KurikiRules | None = None
) -> tuple[KurikiState, list[list[float]]]:
    """Play `game` to the end: the final state and each seat's decision times on the clock."""
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


__all__ = [
    "answer",
    "bot",
    "declaring",
    "game",
    "matchups",
    "median_roll",
    "play",
    "seat_match",
    "truthful",
]
