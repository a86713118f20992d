"""Interim Farkle policy (replaced by the real one at merge): keep the best dice, bank as
soon as the rules allow, otherwise roll. Farkle hides nothing, so the state is the seat's view."""

from __future__ import annotations

import random

from games.farkle import engine
from games.farkle.engine import Action, FarkleState


def choose(state: FarkleState, seat: int, rng: random.Random, now: float = 0.0) -> Action | None:
    """The move `seat` makes now; None when it is not their turn."""
    legal = engine.legal_actions(state, seat)
    if not legal:
        return None
    keep = engine.best_keep(state)
    if keep is not None:
        return Action(kind="bank" if keep[2] else "roll", best=True)
    return Action(kind="roll")
