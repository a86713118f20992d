"""The engines' working copy of a state: a move is made on a copy, so a refused move leaves
the caller's state untouched."""

from __future__ import annotations

import functools
from typing import TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def working_copy(state: M) -> M:
    """A deep copy of `state`, rebuilt from its dump by pydantic's validator (in Rust): two to
    three times faster than `model_copy(deep=True)`, which walks every object in Python, and
    it is on the path of every move. Frozen sub-models (a rule set) cannot change, so the
    copy shares them instead of rebuilding them: half the cost of a Farkle state's copy. The
    log's lines are frozen messages too, and so are a ledger's records (games/crap/ledger.py):
    the copy gets a list of its own, of the same lines. A history that moves only append to,
    of values that never change (Farkle's (player, score) pairs), is not validated again
    either: it grows with the game, and a move at 10,000 would cost more than one at 300."""
    shared = _frozen_fields(type(state))
    fields = type(state).model_fields.keys()
    logs = _LOG_FIELDS & fields
    kept = _KEPT_FIELDS & fields
    data = state.model_dump(exclude=set(shared | logs | kept) or None)
    for name in shared:
        data[name] = getattr(state, name)  # the validator keeps a model instance as it is
    for name in logs:
        lines = getattr(state, name)
        data[name] = None if lines is None else list(lines)
    copy = type(state).model_validate(data)
    for name in kept:
        setattr(copy, name, list(getattr(state, name)))  # a list of its own, the same values
    return copy


#: A state's log (games/gamelog.py): lines that are frozen messages or text; a ledger of
#: frozen records.
_LOG_FIELDS = frozenset({"log", "new_log", "ledger"})
#: Lists that moves only append to, of values that never change (tuples of numbers).
_KEPT_FIELDS = frozenset({"history"})


@functools.cache
def _frozen_fields(model: type[BaseModel]) -> frozenset[str]:
    """The fields of `model` that always hold a frozen model."""
    return frozenset(
        name
        for name, info in model.model_fields.items()
        if isinstance(info.annotation, type)
        and issubclass(info.annotation, BaseModel)
        and info.annotation.model_config.get("frozen")
    )
