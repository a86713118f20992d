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
