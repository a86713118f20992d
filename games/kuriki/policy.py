"""Interim Kuriki policy (replaced by the real one at merge): the first legal move of the
seat's own view: clockwise, roll, the lowest declaration, pull; votes no, declines fouls."""

from __future__ import annotations

import random

from games.kuriki import engine
from games.kuriki.engine import Action, KurikiState


def choose(state: KurikiState, seat: int, rng: random.Random, now: float = 0.0) -> Action | None:
    """The move `seat` makes now; None when it has nothing to do."""
    for vote in state.votes:
        electors = engine.voters(state, vote)
        if seat == vote.accused and not electors:
            return Action(kind="vote", vote=vote.id, value="decline", now=now)
        if seat in electors and seat not in vote.yes + vote.no:
            return Action(kind="vote", vote=vote.id, value="no", now=now)
    legal = engine.legal_actions(state, seat)
    if "direction" in legal:
        return Action(kind="direction", value="cw", now=now)
    if "declare" in legal:
        return Action(kind="declare", value=str(engine.declarations(state)[0]), now=now)
    if "pull" in legal:
        return Action(kind="pull", now=now)
    if "roll" in legal:
        return Action(kind="roll", now=now)
    return None
