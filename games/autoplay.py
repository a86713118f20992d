"""Playing an absent player's part with a policy: the engines' timeouts use this when given a
chooser (the bot player's policy), and fall back to their fixed rule when it has no answer.
Also the rule every engine's timeout applies when nobody plays at all (`idle_turns`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from games.bots import is_bot
from games.errors import GameError
from games.text import Line, Mn, Msg

S = TypeVar("S")

#: Given a state and a seat, the move that seat makes (None: it has nothing to say).
Chooser = Callable[[Any, int], Any]
Apply = Callable[[S, int, Any, random.Random], tuple[S, list[Any]]]

#: Most moves a policy makes for one absent player in one timeout (a Farkle turn of many
#: throws); past it the fixed rule plays instead, so a timeout always ends.
MOVE_LIMIT = 60

#: Turns in a row that every person still in a game let run out, with no move of their own in
#: between, after which the game ends abandoned (no winner): a game nobody touches is nobody's
#: win, however well the bot policy played their turns.
IDLE_TURNS = 2
_IDLE = "nobody played for "
_IDLE_KEY = "nobody played for {n} turn"


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


def idle_turns(timeouts: Iterable[tuple[int, int]]) -> int | None:
    """Given each player still in the game with the turns in a row they let run out: how many
    turns nobody played, once every person among them let `IDLE_TURNS` or more run out; None
    while someone plays (or no person is left: that ends the game otherwise). Bots never
    count: they always move."""
    counts = [missed for seat, missed in timeouts if not is_bot(seat)]
    if not counts or min(counts) < IDLE_TURNS:
        return None
    return sum(counts)


def idle_message(turns: int) -> Msg:
    """Why a game nobody played ended (an engine's `ended_by_departure`), in the reader's
    language. A game saved before messages had keys keeps it as English text: "nobody
    played for 4 turns"."""
    return Mn("nobody played for {n} turn", "nobody played for {n} turns", turns)


def timed_out(name: str, times: int) -> Msg:
    """Why a player was taken out of a game after `times` timeouts in a row."""
    return Mn("{name} timed out {n} time", "{name} timed out {n} times", times, name=name)


def is_idle(why: Line | None) -> bool:
    """Whether a game ended because nobody played (see `idle_message`): by its message key,
    or the English text a game saved before messages had keys kept."""
    if why is None:
        return False
    if isinstance(why, str):
        return why.startswith(_IDLE)
    return why.k == _IDLE_KEY
