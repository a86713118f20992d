"""The engines' working copy: equal to the state, independent of it wherever a move can
change something, and sharing only what cannot change (a frozen rule set)."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from games.copies import working_copy
from games.farkle import engine
from games.farkle.engine import Action
from games.farkle.rules import PRESETS
from games.lobby import Seat


def test_a_farkle_copy_shares_only_its_frozen_rules() -> None:
    rng = random.Random(3)
    seats = [Seat(id=1, name="Ann"), Seat(id=2, name="Bob")]
    state, _ = engine.new_game(seats, PRESETS["classic"], rng)
    state, _ = engine.apply(state, state.current_player.id, Action(kind="roll"), rng)
    copy = working_copy(state)
    assert copy == state and copy is not state
    assert copy.rules is state.rules  # frozen: it cannot change under either of them
    with pytest.raises(ValidationError):
        copy.rules.target = 1  # type: ignore[misc]
    copy.turn.dice.append(6)
    copy.players[0].score += 500
    copy.log.append("changed")
    assert state.turn.dice != copy.turn.dice
    assert state.players[0].score != copy.players[0].score
    assert "changed" not in state.log


def test_a_copy_is_independent_at_every_depth_and_shares_what_cannot_change() -> None:
    """Nested models, lists of lists, dicts, sets and tuples holding models are copied;
    numbers, text, frozen models and tuples of numbers are the same objects."""
    from pydantic import BaseModel, ConfigDict

    class Frozen(BaseModel):
        model_config = ConfigDict(frozen=True)
        text: str

    class Inner(BaseModel):
        values: list[int]
        tag: Frozen

    class Outer(BaseModel):
        inners: list[Inner]
        grid: list[list[int]]
        by_name: dict[str, Inner]
        seen: set[int]
        pair: tuple[int, int]
        boxed: tuple[Inner, int]
        maybe: Inner | None = None

    tag = Frozen(text="kept")
    state = Outer(
        inners=[Inner(values=[1], tag=tag)],
        grid=[[1, 2], [3]],
        by_name={"a": Inner(values=[2], tag=tag)},
        seen={1},
        pair=(1, 2),
        boxed=(Inner(values=[3], tag=tag), 4),
    )
    copy = working_copy(state)
    assert copy == state and copy.model_dump_json() == state.model_dump_json()
    assert copy.inners[0].tag is tag and copy.pair is state.pair
    copy.inners[0].values.append(9)
    copy.grid[0].append(9)
    copy.by_name["a"].values.append(9)
    copy.by_name["b"] = copy.by_name["a"]
    copy.seen.add(9)
    copy.boxed[0].values.append(9)
    copy.maybe = Inner(values=[], tag=tag)
    assert state == Outer(
        inners=[Inner(values=[1], tag=tag)],
        grid=[[1, 2], [3]],
        by_name={"a": Inner(values=[2], tag=tag)},
        seen={1},
        pair=(1, 2),
        boxed=(Inner(values=[3], tag=tag), 4),
    )


def test_a_copys_fields_set_names_every_field_and_assignment_leaves_the_original() -> None:
    """As a copy validated from a full dump: every field counts as set, and setting one on
    the copy (pydantic adds its name to the set) changes nothing of the original."""
    rng = random.Random(5)
    state, _ = engine.new_game(
        [Seat(id=1, name="Ann"), Seat(id=2, name="Bob")], PRESETS["classic"], rng
    )
    copy = working_copy(state)
    assert copy.turn.model_fields_set == set(type(copy.turn).model_fields)
    fields_before = set(state.turn.model_fields_set)
    copy.turn.total = 300
    copy.turn = engine.Turn()
    assert state.turn.total == 0 and state.turn.model_fields_set == fields_before


def test_replaced_is_model_copy_with_an_update() -> None:
    """A shallow copy with the changes, as `model_copy(update=...)` makes it; the original
    keeps its own value."""
    from games.copies import replaced

    rng = random.Random(6)
    state, _ = engine.new_game(
        [Seat(id=1, name="Ann"), Seat(id=2, name="Bob")], PRESETS["classic"], rng
    )
    assert state.new_log
    taken = replaced(state, new_log=[])
    assert taken == state.model_copy(update={"new_log": []}) and taken is not state
    assert taken.new_log == [] and state.new_log and taken.players is state.players
