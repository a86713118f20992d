"""Playing an absent player's part with a policy: the engines' timeouts use this when given a
chooser (the bot player's policy), and fall back to their fixed rule when it has no answer.
Also what every engine does once a timeout is played or a player leaves (`Departures`): the
rule for a game nobody plays any more (`idle_turns`), taking out a player who timed out too
often, a player leaving, and a game abandoned."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from games.bots import is_bot
from games.copies import working_copy
from games.errors import GameError, IllegalMove
from games.text import Line, M, Mn, Msg

S = TypeVar("S")
G = TypeVar("G", bound=BaseModel)  # a game's state
E = TypeVar("E")  # an engine's Event

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
#: Timeouts in a row after which a player is taken out of the game.
TIMEOUTS_BEFORE_REMOVAL = 3
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


class Seated(Protocol):
    """A player as the shared code reads them (every engine's player model is one)."""

    id: int
    name: str
    timeouts: int


@dataclass(frozen=True)
class Departures(Generic[G, E]):
    """What the three engines' timeout, remove_player and abandon share, written once; each
    engine gives the parts that are its own. `event(kind=, player=, text=)` is its Event;
    `remove(s, id, events, why)` takes a player out (`why` ends the game when too few are
    left); `end(s, why, events)` ends it with no winner; `log(s, events)` writes its log;
    `over(s)` tells a finished game; `left` and `removed` are its lines for a player who
    left and for one taken out after `TIMEOUTS_BEFORE_REMOVAL` timeouts."""

    event: Callable[..., E]
    remove: Callable[[G, int, list[E], Line], None]
    end: Callable[[G, Line, list[E]], None]
    log: Callable[[G, list[E]], None]
    over: Callable[[G], bool]
    left: Callable[[str], Msg] = lambda name: M("{name} left the table.", name=name)
    removed: Callable[[str], Msg] = lambda name: Mn(
        "{name} timed out {n} time in a row and leaves the table.",
        "{name} timed out {n} times in a row and leaves the table.",
        TIMEOUTS_BEFORE_REMOVAL,
        name=name,
    )

    def refuse_if_over(self, state: G) -> None:
        if self.over(state):
            raise IllegalMove(M("This game is over."))

    def leave(
        self, state: G, user_id: int, check: Callable[[G, Any], None] | None = None
    ) -> tuple[G, list[E]]:
        """`user_id` leaves (`remove_player`): refused when the game is over or by the
        engine's `check(state, player)`; otherwise they are out, and the game goes on or
        ends as the engine's `remove` says."""
        self.refuse_if_over(state)
        who = state.player(user_id)  # type: ignore[attr-defined]  # every state has it
        if check is not None:
            check(state, who)
        s = working_copy(state)
        events = [self.event(kind="removed", player=user_id, text=self.left(who.name))]
        self.remove(s, user_id, events, M("{name} left", name=who.name))
        self.log(s, events)
        return s, events

    def abandon(self, state: G, why: Line) -> tuple[G, list[E]]:
        """End the game with no winner because of a departure (`why`: e.g. only bots are
        left)."""
        s = working_copy(state)
        events: list[E] = []
        self.end(s, why, events)
        self.log(s, events)
        return s, events

    def after_timeout(
        self,
        s: G,
        standing: Iterable[Seated],
        due: Sequence[Seated],
        may_remove: Callable[[G], bool] = lambda s: True,
    ) -> list[E]:
        """Once a timeout is played (its players' `timeouts` counted) on `s`: the game ends
        abandoned when every person `standing` let their last turns run out (`idle_turns`);
        otherwise each of `due` (who ran out of time) with `TIMEOUTS_BEFORE_REMOVAL` in a
        row is taken out, while the game goes on and the engine's `may_remove(s)` allows
        it. Changes `s`; returns the events, not yet logged."""
        events: list[E] = []
        idle = None if self.over(s) else idle_turns((p.id, p.timeouts) for p in standing)
        if idle is not None:
            self.end(s, idle_message(idle), events)
            return events
        for p in due:
            if p.timeouts >= TIMEOUTS_BEFORE_REMOVAL and not self.over(s) and may_remove(s):
                events.append(self.event(kind="removed", player=p.id, text=self.removed(p.name)))
                self.remove(s, p.id, events, timed_out(p.name, TIMEOUTS_BEFORE_REMOVAL))
        return events
