"""Whole Farkle games between policies through the pure engine, for the tests and the
benchmark: every move goes through engine.apply, so an illegal move raises there."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from games.farkle.engine import Action, FarklePlayer, FarkleState, apply
from games.farkle.rules import FarkleRules

Chooser = Callable[[FarkleState, int, random.Random, float], Action | None]

#: No game takes this many moves: a policy that loops (or an engine that never ends) fails.
MOVE_LIMIT = 50_000


class RunawayGame(RuntimeError):
    """A game went past MOVE_LIMIT moves."""


@dataclass
class Played:
    """How one game went: the winner's seat index (in the order given), moves, decision times
    per seat index."""

    winner: int | None
    moves: int
    times: dict[int, list[float]] = field(default_factory=dict)
    final: FarkleState | None = None


def play(rules: FarkleRules, choosers: list[Chooser], seed: int) -> Played:
    """Play one seeded game; choosers[k] plays the k-th seat in turn order (no seating roll,
    so a benchmark can put a policy first or second)."""
    rng = random.Random(seed)
    players = [FarklePlayer(id=k + 1, name=f"P{k + 1}") for k in range(len(choosers))]
    state = FarkleState(rules=rules, players=players)
    times: dict[int, list[float]] = {k: [] for k in range(len(choosers))}
    moves = 0
    while not state.finished:
        moves += 1
        if moves > MOVE_LIMIT:
            raise RunawayGame(f"seed {seed}: no end after {MOVE_LIMIT} moves")
        uid = state.current_player.id
        began = time.perf_counter()
        action = choosers[uid - 1](state, uid, rng, 0.0)
        times[uid - 1].append(time.perf_counter() - began)
        if action is None:
            raise RuntimeError(f"seed {seed}: the player to move chose nothing")
        state, _ = apply(state, uid, action, rng)
    winner = state.winner - 1 if state.winner is not None else None
    return Played(winner, moves, times, state)
