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
    the copy gets a list of its own, of the same lines."""
    shared = _frozen_fields(type(state))
    logs = _LOG_FIELDS & type(state).model_fields.keys()
    data = state.model_dump(exclude=(shared | logs) or None)
    for name in shared:
        data[name] = getattr(state, name)  # the validator keeps a model instance as it is
    for name in logs:
        lines = getattr(state, name)
        data[name] = None if lines is None else list(lines)
    return type(state).model_validate(data)


#: A state's log (games/gamelog.py): lines that are frozen messages or text; a ledger of
#: frozen records.
_LOG_FIELDS = frozenset({"log", "new_log", "ledger"})


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
