"""Pydantic's validation errors in words, one short line per problem, naming the key.

A config file's reader writes keys: a mistyped key gets the key it was probably meant to be
(`turn_timr: unknown key; did you mean turn_timer?`), a bad value the range or type its key
takes, and neither gets pydantic's URLs or input dumps. /config's sentences (bot/settings.py
`explain`) read the same problems."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

#: The error type of `located`: problems a validator found below the field it validates.
NESTED = "nested"


@dataclass(frozen=True)
class Problem:
    """One validation problem: where it is in the file, and the model its key belongs to."""

    loc: tuple[str | int, ...]
    kind: str
    msg: str
    input: Any = None
    ctx: dict[str, Any] = field(default_factory=dict)
    #: The model whose field (or unknown key) `loc[-1]` is; None below a plain dict or list.
    model: type[BaseModel] | None = None

    @property
    def key(self) -> str:
        return ".".join(str(p) for p in self.loc)


def located(
    found: Sequence[tuple[Sequence[str], ErrorDetails | dict[str, Any]]], model: type[BaseModel]
) -> PydanticCustomError:
    """The error a field validator raises for values it checked itself against `model` (each
    preset's house rules against FarkleRules), so that they keep their places in the file:
    each error's `at` below the field, then its own location within `model`."""
    errors = [{**err, "at": tuple(at)} for at, err in found]
    first = str(errors[0].get("msg", "invalid value")) if errors else "invalid value"
    # The message is a template: braces in it would be read as placeholders.
    template = first.replace("{", "(").replace("}", ")")
    return PydanticCustomError(NESTED, template, {"errors": errors, "model": model})


def problems(exc: ValidationError, root: type[BaseModel] | None = None) -> list[Problem]:
    """Every problem of `exc`, those of `located` errors in their own places."""
    found: list[Problem] = []
    for err in exc.errors(include_url=False):
        loc = tuple(p for p in err["loc"] if p != "__root__")
        ctx = err.get("ctx") or {}
        if err["type"] == NESTED:
            for inner in ctx["errors"]:
                found.append(_problem(loc + inner["at"], inner, ctx["model"]))
        else:
            found.append(_problem((), err, root))
    return found


def _problem(
    prefix: tuple[str | int, ...], err: ErrorDetails | dict[str, Any], model: type[BaseModel] | None
) -> Problem:
    loc = tuple(p for p in err.get("loc", ()) if p != "__root__")
    for part in loc[:-1]:  # down to the model that holds the last key
        info = model.model_fields.get(str(part)) if model is not None else None
        sub = info.annotation if info is not None else None
        model = sub if isinstance(sub, type) and issubclass(sub, BaseModel) else None
    return Problem(
        loc=prefix + loc,
        kind=str(err.get("type", "")),
        msg=str(err.get("msg", "invalid value")).removeprefix("Value error, "),
        input=err.get("input"),
        ctx=dict(err.get("ctx") or {}),
        model=model,
    )


def bounds(problem: Problem) -> tuple[Any, Any]:
    """The lowest and highest value the problem's key takes (None: no such bound)."""
    low = high = None
    name = str(problem.loc[-1]) if problem.loc else ""
    info = problem.model.model_fields.get(name) if problem.model is not None else None
    for rule in info.metadata if info is not None else ():
        if isinstance(rule, (Ge, Gt)):
            low = rule.ge if isinstance(rule, Ge) else rule.gt
        elif isinstance(rule, (Le, Lt)):
            high = rule.le if isinstance(rule, Le) else rule.lt
    return low, high


def shown(value: Any) -> str:
    """A value as it is written in TOML, cut short."""
    text = json.dumps(value) if isinstance(value, bool) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _range(low: Any, high: Any) -> str:
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f" of at least {low}"
    return f" of at most {high}" if high is not None else ""


_TYPES = {
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "string": "text in quotes",
    "list": "a list such as [0, 1]",
    "dict": "a table",
    "model": "a table",
}


def _suggestion(key: str, model: type[BaseModel] | None) -> str:
    """"; did you mean turn_timer?": the closest key of the same table, else of a table
    below it (a server default written at the top of the file)."""
    if model is None:
        return ""
    close = difflib.get_close_matches(key, list(model.model_fields), n=1)
    if close:
        return f"; did you mean {close[0]}?"
    for name, info in model.model_fields.items():
        sub = info.annotation
        if isinstance(sub, type) and issubclass(sub, BaseModel):
            close = difflib.get_close_matches(key, list(sub.model_fields), n=1)
            if close:
                return f"; did you mean {close[0]} under [{name}]?"
    return ""


def what_is_wrong(problem: Problem) -> str:
    """The problem without its key: "unknown key; did you mean turn_timer?", "must be a
    whole number from 0 to 3600, not 99999"."""
    kind, given = problem.kind, f", not {shown(problem.input)}"
    if kind == "extra_forbidden":
        return "unknown key" + _suggestion(str(problem.loc[-1]), problem.model)
    low, high = bounds(problem)
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        return f"must be{_range(low, high) or ' in range'}{given}"
    base = kind.split("_")[0]
    if base in _TYPES and kind.endswith(("_type", "_parsing", "_from_float")):
        number = base in ("int", "float")
        return f"must be {_TYPES[base]}{_range(low, high) if number else ''}{given}"
    if kind == "literal_error":
        return f"must be {problem.ctx.get('expected', 'one of the listed values')}{given}"
    if kind == "finite_number":
        return f"must be a finite number{given}"
    return problem.msg


def describe(exc: ValidationError, root: type[BaseModel]) -> list[str]:
    """One line per problem: "defaults.turn_timr: unknown key; did you mean turn_timer?"."""
    lines = []
    for problem in problems(exc, root):
        text = what_is_wrong(problem)
        lines.append(f"{problem.key}: {text}" if problem.key else text)
    return lines
