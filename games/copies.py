"""The engines' working copy of a state: a move is made on a copy, so a refused move leaves
the caller's state untouched."""

from __future__ import annotations

import copy as _copy
from typing import Any, TypeVar

from pydantic import BaseModel

from games.shared import fields_set

M = TypeVar("M", bound=BaseModel)


def working_copy(state: M) -> M:
    """A deep copy of `state`, made by walking its fields: models are copied field by field
    (no validation: the state was valid, and a copy is equal to it), lists, dicts and sets
    item by item, and what cannot change is shared: numbers, text, frozen models (a rule
    set, a log line, a ledger record), tuples of those. Several times faster than
    rebuilding it from its dump by pydantic's validator, and it is on the path of every
    move. The log's lines and a ledger's records are frozen: the copy gets a list of its
    own, of the same lines. A history that moves only append to, of values that never
    change (Farkle's (player, score) pairs, CRAP's score dicts), is not walked either: it
    grows with the game, and a move at 10,000 would cost more than one at 300."""
    cls = type(state)
    fields = dict(state.__dict__)
    for name, value in fields.items():
        if value is None or type(value) in _ATOMS:
            continue
        if name in _FLAT_FIELDS and type(value) is list:
            fields[name] = list(value)
        else:
            fields[name] = _copied(value)
    return _model(cls, state, fields)


def replaced(model: M, **changes: Any) -> M:
    """`model.model_copy(update=changes)`: a shallow copy with `changes` (not validated),
    made as `working_copy` makes its models, for a third of the time."""
    fields = dict(model.__dict__)
    fields.update(changes)
    return _model(type(model), model, fields)


#: A state's log (games/gamelog.py): lines that are frozen messages or text; a ledger of
#: frozen records; and lists that moves only append to, of values that never change.
_FLAT_FIELDS = frozenset({"log", "new_log", "ledger", "history"})

#: The types whose values never change: shared by a copy.
_ATOMS = frozenset({int, float, bool, str, bytes, type(None)})


def _copied(value: Any) -> Any:
    """`value`, copied wherever a move could change it (see `working_copy`)."""
    cls = type(value)
    if cls in _ATOMS:
        return value
    if cls is list:
        return [v if type(v) in _ATOMS else _copied(v) for v in value]
    if cls is dict:
        return {k: v if type(v) in _ATOMS else _copied(v) for k, v in value.items()}
    if cls is tuple:
        if all(type(v) in _ATOMS for v in value):
            return value
        return tuple(_copied(v) for v in value)
    if cls is set:
        return set(value)  # of hashable, so unchanging, values
    if cls is frozenset:
        return value
    if isinstance(value, BaseModel):
        if _kind(cls)[0]:  # frozen
            return value
        fields = value.__dict__
        return _model(
            cls,
            value,
            {k: v if type(v) in _ATOMS else _copied(v) for k, v in fields.items()},
        )
    return _copy.deepcopy(value)


def _model(cls: type[M], original: M, fields: dict[str, Any]) -> M:
    """A model of `cls` holding `fields` (already copied), as `original` is. Its fields set
    is the shared one naming every field (games/shared.py), as a model validated from a full
    dump has: pydantic only ever adds to it, which changes nothing in a full set."""
    made = cls.__new__(cls)
    object.__setattr__(made, "__dict__", fields)
    object.__setattr__(made, "__pydantic_fields_set__", _kind(cls)[1])
    extra = original.__pydantic_extra__
    object.__setattr__(made, "__pydantic_extra__", None if extra is None else _copied(extra))
    private = original.__pydantic_private__
    object.__setattr__(made, "__pydantic_private__", None if private is None else _copied(private))
    return made


#: Each model class met: whether it is frozen, and its shared fields set naming every field.
_KINDS: dict[type[BaseModel], tuple[bool, set[str]]] = {}


def _kind(cls: type[BaseModel]) -> tuple[bool, set[str]]:
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _KINDS[cls] = (
            bool(cls.model_config.get("frozen")),
            fields_set(cls, cls.model_fields),
        )
    return kind
