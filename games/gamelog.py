"""A game's log as its state holds it: the last lines the table shows (`log`), and every
line written since the keeper of the whole log last took them (`new_log`).

The whole log of a long game would make every saved state longer with every move, so the
state keeps only a window of it; the bot stores each move's new lines beside the state, in
the same commit (`take_log`), and the finished game keeps them all (its history). Log lines
are public: they say only what everyone at the table saw when it happened."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol, Self, TypeVar, cast

from pydantic import BaseModel

from games.copies import replaced
from games.text import Line, M

#: The first line of a log whose earlier lines were not kept: a game saved by a version
#: that kept only the table's window (its `new_log` is None).
EARLIER_NOT_KEPT = M("(The moves before these were not kept.)")


class Logged(Protocol):
    """A game's state as the log sees it: a pydantic model with `log` and `new_log`."""

    log: list[Line]
    new_log: list[Line] | None

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        ...


S = TypeVar("S", bound=Logged)


def write_log(state: Logged, texts: Iterable[Line], length: int) -> None:
    """Add `texts` to the state's log: the window keeps its last `length` lines, `new_log`
    all of them until they are taken. A state from before `new_log` (None) keeps None, so
    `take_log` can say its earlier lines were not kept."""
    lines = list(texts)
    if not lines:
        return  # (most moves of a throw write nothing: a die set aside)
    state.log = [*state.log, *lines][-length:]
    if state.new_log is not None:
        state.new_log = [*state.new_log, *lines]


def take_log(state: S) -> tuple[S, list[Line]]:
    """The lines written since the last take, and the state without them (the same object
    when there are none). A state from before `new_log` gives its window, after
    `EARLIER_NOT_KEPT`, and keeps every line from then on."""
    new = state.new_log
    if new == []:
        return state, []
    lines = new if new is not None else [EARLIER_NOT_KEPT, *state.log]
    if isinstance(state, BaseModel):  # (every state is)
        return cast(S, replaced(state, new_log=[])), list(lines)
    return state.model_copy(update={"new_log": []}), list(lines)
