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
from typing import Any

from pydantic import BaseModel

#: The shared fields sets, by model class and the fields they hold.
_SETS: dict[tuple[type, frozenset[str]], set[str]] = {}
#: The ids of the shared sets and rule dicts (they live as long as the tables above).
_SHARED: set[int] = set()
#: The shared rule dicts, by their JSON text; bounded, as custom rule sets are unbounded.
_RULES: dict[str, dict[str, Any]] = {}
RULES_KEPT = 1000


#: What may hold a model.
_INNER = (BaseModel, list, dict)


def share_fields_sets(value: Any) -> None:
    """Replace the fields sets of the models in `value` (models, lists, tuples, dict values,
    recursively; a list only when its first item is a model or a container) by the shared
    ones equal to them, where no later change can differ."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseModel):
            cls = type(item)
            mine = item.__pydantic_fields_set__
            frozen = cls.model_config.get("frozen", False)
            if id(mine) in _SHARED:
                if frozen:
                    continue  # shared already, and nothing in it can have been replaced
            elif frozen or len(mine) == len(cls.model_fields):
                key = (cls, frozenset(mine))
                shared = _SETS.get(key)
                if shared is None:
                    shared = _SETS[key] = set(mine)
                    _SHARED.add(id(shared))
                object.__setattr__(item, "__pydantic_fields_set__", shared)
            stack.extend(v for v in item.__dict__.values() if isinstance(v, _INNER))
        elif isinstance(item, list | tuple):
            if item and isinstance(item[0], _INNER):
                stack.extend(item)  # not a long list of numbers (a score history)
        elif isinstance(item, dict):
            stack.extend(v for v in item.values() if isinstance(v, _INNER))


def share_rules(options: dict[str, Any]) -> None:
    """Let `options["rules"]` (a dict nothing changes in place) be the same object as every
    equal rules dict shared before."""
    rules = options.get("rules")
    if not isinstance(rules, dict) or id(rules) in _SHARED:
        return
    key = json.dumps(rules, sort_keys=True, separators=(",", ":"), default=str)
    shared = _RULES.get(key)
    if shared is None:
        if len(_RULES) >= RULES_KEPT:
            return
        shared = _RULES[key] = rules
        _SHARED.add(id(shared))
    options["rules"] = shared
