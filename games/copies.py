"""The engines' working copy of a state: a move is made on a copy, so a refused move leaves
the caller's state untouched."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def working_copy(state: M) -> M:
    """A deep copy of `state`, rebuilt from its dump by pydantic's validator (in Rust): two to
    three times faster than `model_copy(deep=True)`, which walks every object in Python, and
    it is on the path of every move."""
    return type(state).model_validate(state.model_dump())
