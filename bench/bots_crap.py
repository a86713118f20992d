"""CRAP bot matchups for `python -m bench.bots`: the policy against players choosing a
random legal move, and against itself, played through the pure engine with seeded cards."""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable, Iterator

from games.crap import policy
from games.crap.engine import (
    Action,
    CrapRules,
    CrapState,
    apply,
    challenge_size,
    expire,
    legal_actions,
    new_game,
    next_deadline,
)
from games.crap.moves import legal_moves
from games.lobby import Seat

Chooser = Callable[[CrapState, int, random.Random, float], Action | None]
MAX_MOVES = 40_000


def random_move(state: CrapState, seat: int, rng: random.Random, now: float = 0.0) -> Action | None:
    """The baseline: a legal move at random, the kind of move first (so a kind with many
    variants, such as Acquire's thirteen values, is not favoured), then its details."""
    kinds = sorted(legal_actions(state, seat))
    if not kinds:
        return None
    kind = rng.choice(kinds)
    if kind == "commit":
        hand = state.player(seat).hand
        return Action(kind="commit", cards=rng.sample(hand, challenge_size(state, seat)), now=now)
    return rng.choice(list(legal_moves(state, seat, now, kind)))


def bot(state: CrapState, seat: int, rng: random.Random, now: float = 0.0) -> Action | None:
    return policy.choose(state, seat, rng, now)


def game(
    seed: int,
    choosers: list[Chooser],
    rules: CrapRules | None = None,
    times: list[list[float]] | None = None,
    kept: Callable[[CrapState], CrapState] | None = None,
) -> Iterator[tuple[CrapState, float]]:
    """One game, seat i (player id i + 1) played by choosers[i]: yields every state it
    passes through with the clock then, the last one finished. Whoever the table waits on
    is asked, in seat order from the player whose turn it is; when nobody moves (every bot
    lets an Acquire go by waiting), the clock jumps to the window's deadline. Each seat's
    decision times (seconds) go to `times`. `kept` makes of each state what is kept of it
    before the table is asked (the arena takes the log, as the Discord bot stores it); by
    default the whole state, its log with every line of the game."""
    cards = random.Random(seed)
    minds = random.Random(seed * 7919 + 1)
    seats = [Seat(id=i + 1, name=f"P{i + 1}") for i in range(len(choosers))]
    state, _ = new_game(seats, rules or CrapRules(), cards)
    now = 0.0
    for _ in range(MAX_MOVES):
        yield state, now
        if state.finished:
            return
        if kept is not None:
            state = kept(state)
        now += 0.1  # bots answer well within any window
        n = len(state.players)
        order = [state.players[(state.current + i) % n].id for i in range(n)]
        for pid in order:
            if not legal_actions(state, pid):
                continue
            start = time.perf_counter()
            action = choosers[pid - 1](state, pid, minds, now)
            if times is not None:
                times[pid - 1].append(time.perf_counter() - start)
            if action is not None:
                state, _ = apply(state, pid, action, cards)
                break
        else:
            deadline = next_deadline(state)
            assert deadline is not None, "the table waits on nobody and no window is open"
            now = max(now, deadline)
            state, _ = expire(state, now, cards)
    raise RuntimeError(f"game {seed} did not end in {MAX_MOVES} moves")


def play(
    seed: int,
    choosers: list[Chooser],
    rules: CrapRules | None = None,
    kept: Callable[[CrapState], CrapState] | None = None,
) -> tuple[CrapState, list[list[float]]]:
    """Play `game` to the end: the final state and each seat's decision times."""
    times: list[list[float]] = [[] for _ in choosers]
    ((state, _),) = deque(game(seed, choosers, rules, times, kept), maxlen=1)
    return state, times


def seat_match(
    seed: int, players: int, opponent: Chooser, rules: CrapRules | None = None
) -> tuple[float, list[float]]:
    """The policy in seat (seed mod players), `opponent` in the others: 1.0 when the policy
    wins (a shared win counts as a share)."""
    mine = seed % players
    choosers = [bot if i == mine else opponent for i in range(players)]
    state, times = play(seed, choosers, rules)
    won = mine + 1 in state.winners
    return (1.0 / len(state.winners) if won else 0.0), times[mine]


def matchups(
    threshold: int = 1000,
) -> list[tuple[str, Callable[[int], tuple[float, list[float]]], float]]:
    """The matchups, each game to `threshold` points (1000: CrapRules' default)."""
    plain = CrapRules(threshold=threshold)
    jokers = CrapRules(threshold=threshold, jokers=True, force_recycle=True)
    return [
        (
            f"crap: policy vs 2 random-legal (3 players, {threshold} points)",
            lambda s: seat_match(s, 3, random_move, plain),
            1 / 3,
        ),
        (
            "crap: policy vs itself (3 players, seats rotated)",
            lambda s: seat_match(s, 3, bot, plain),
            1 / 3,
        ),
        (
            "crap: policy vs 3 random-legal (4 players, jokers, force recycle)",
            lambda s: seat_match(s, 4, random_move, jokers),
            1 / 4,
        ),
    ]
