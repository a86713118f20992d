"""Sharing what many cached games hold alike, so a process that keeps thousands of games in
memory keeps one copy of each.

Every pydantic model carries the set of the fields it was given (`__pydantic_fields_set__`),
a new set for each model and each `model_copy`: about 5 KB of a cached Farkle game. Nothing
reads them but `model_dump(exclude_unset=True)`, so a set holding every field of its model
is replaced by one set per model class (pydantic only ever adds a field name to it, which a
full set already holds), and a frozen model's by one set per distinct value. The rules a
lobby keeps (`options["rules"]`, read only) are shared between the lobbies that chose the
same ones."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel

#: The shared fields sets, by model class and the fields they hold.
_SETS: dict[tuple[type, frozenset[str]], set[str]] = {}
#: The ids of the shared sets and rule dicts (they live as long as the tables above).
_SHARED: set[int] = set()
#: The shared rule dicts, by their JSON text; bounded, as custom rule sets are unbounded.
_RULES: dict[str, dict[str, Any]] = {}
RULES_KEPT = 1000


def fields_set(cls: type[BaseModel], names: Iterable[str]) -> set[str]:
    """The shared fields set of `cls` with these names (a model made with
    `model_construct(_fields_set=...)` can take it; never change it)."""
    key = (cls, frozenset(names))
    shared = _SETS.get(key)
    if shared is None:
        shared = _SETS[key] = set(key[1])
        _SHARED.add(id(shared))
    return shared


#: Each model class met: whether it is frozen, and how many fields it has; None for the
#: other types met, lists and dicts aside.
_KINDS: dict[type, tuple[bool, int] | None] = {}


def _kind(cls: type) -> tuple[bool, int] | None:
    if cls in _KINDS:
        return _KINDS[cls]
    kind = None
    if issubclass(cls, BaseModel):
        kind = (bool(cls.model_config.get("frozen")), len(cls.model_fields))
    _KINDS[cls] = kind
    return kind


def _inner(value: object) -> bool:
    """Whether `value` may hold a model: a model, a list or a dict."""
    cls = type(value)
    return cls is list or cls is dict or _kind(cls) is not None


def share_fields_sets(value: Any) -> None:
    """Replace the fields sets of the models in `value` (models, lists, tuples, dict values,
    recursively; a list only when its first item is a model or a container) by the shared
    ones equal to them, where no later change can differ."""
    stack = [value]
    while stack:
        item = stack.pop()
        cls = type(item)
        if cls is list or cls is tuple:
            if item and _inner(item[0]):
                stack.extend(item)  # not a long list of numbers (a score history)
        elif cls is dict:
            stack.extend(v for v in item.values() if _inner(v))
        elif (kind := _kind(cls)) is not None:
            frozen, full = kind
            mine = item.__pydantic_fields_set__
            if id(mine) in _SHARED:
                if frozen:
                    continue  # shared already, and nothing in it can have been replaced
            elif frozen or len(mine) == full:
                object.__setattr__(item, "__pydantic_fields_set__", fields_set(cls, mine))
            stack.extend(v for v in item.__dict__.values() if _inner(v))


R = TypeVar("R", bound=BaseModel)

#: The shared rule dict of each frozen rules model met (`rules_json`), and the frozen model
#: of each shared rule dict (`rules_model`), by the dict's id: a shared dict lives as long
#: as the process, so its id names no other object.
_BY_MODEL: dict[BaseModel, dict[str, Any]] = {}
_MODELS: dict[int, BaseModel] = {}


def rules_json(rules: BaseModel) -> dict[str, Any]:
    """`rules.model_dump(mode="json")`, the rules a lobby keeps (`options["rules"]`): for a
    frozen rules model, the one shared dict of equal rules (so a new lobby's rules are
    shared from the start, and `rules_model` reads them back without validating them)."""
    if not rules.model_config.get("frozen"):
        return rules.model_dump(mode="json")
    shared = _BY_MODEL.get(rules)
    if shared is None:
        shared = _shared_rules(rules.model_dump(mode="json"))
        if id(shared) in _SHARED and len(_BY_MODEL) < RULES_KEPT:
            _BY_MODEL[rules] = shared
            _MODELS.setdefault(id(shared), rules)
    return shared


def rules_model(model: type[R], rules: object) -> R:
    """`model.model_validate(rules)`: the rules a lobby keeps, as the game's model; for a
    shared dict and a frozen model, made once."""
    made = _MODELS.get(id(rules))
    if type(made) is model:
        return made
    made = model.model_validate(rules)
    if id(rules) in _SHARED and model.model_config.get("frozen"):
        _MODELS[id(rules)] = made
    return made


def share_rules(options: dict[str, Any]) -> None:
    """Let `options["rules"]` (a dict nothing changes in place) be the same object as every
    equal rules dict shared before."""
    rules = options.get("rules")
    if isinstance(rules, dict):
        options["rules"] = _shared_rules(rules)


def _shared_rules(rules: dict[str, Any]) -> dict[str, Any]:
    """The shared dict equal to `rules`: one shared before, else `rules` itself, shared
    from now on (beyond RULES_KEPT distinct rule sets, left its own)."""
    if id(rules) in _SHARED:
        return rules
    key = json.dumps(rules, sort_keys=True, separators=(",", ":"), default=str)
    shared = _RULES.get(key)
    if shared is None:
        if len(_RULES) >= RULES_KEPT:
            return rules
        shared = _RULES[key] = rules
        _SHARED.add(id(shared))
    return shared
