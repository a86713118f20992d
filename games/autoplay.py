"""Playing an absent player's part with a policy: the engines' timeouts use this when given a
chooser (the bot player's policy), and fall back to their fixed rule when it has no answer."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TypeVar

from games.errors import GameError

S = TypeVar("S")

#: Given a state and a seat, the move that seat makes (None: it has nothing to say).
Chooser = Callable[[Any, int], Any]
Apply = Callable[[S, int, Any, random.Random], tuple[S, list[Any]]]

#: Most moves a policy makes for one absent player in one timeout (a Farkle turn of many
#: throws); past it the fixed rule plays instead, so a timeout always ends.
MOVE_LIMIT = 60


def play_part(
    state: S,
    seat: int,
    chooser: Chooser,
    apply: Apply[S],
    rng: random.Random,
    done: Callable[[S], bool],
) -> tuple[S, list[Any]] | None:
    """The state after `chooser` played `seat`'s moves until `done` says their part is over,
    and the events of those moves; None when it could not (no answer, a refused move, too
    many moves): the caller plays the engine's fixed rule from `state` instead."""
    s, events = state, []
    for _ in range(MOVE_LIMIT):
        action = chooser(s, seat)
        if action is None:
            return None
        try:
            s, happened = apply(s, seat, action, rng)
        except GameError:
            return None
        events += happened
        if done(s):
            return s, events
    return None
