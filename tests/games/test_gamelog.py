"""A game's log in its state: the table's window and the lines not yet taken, which the bot
takes with each saved move (`games.gamelog`)."""

from __future__ import annotations

import random

from games.farkle import engine as farkle
from games.farkle import policy
from games.farkle.rules import PRESETS
from games.gamelog import EARLIER_NOT_KEPT, take_log, write_log
from games.lobby import Seat

SEATS = [Seat(id=1, name="Ann"), Seat(id=2, name="Bob")]


def test_an_action_longer_than_the_window_keeps_every_line_until_taken() -> None:
    state, _ = farkle.new_game(SEATS, PRESETS["classic"], random.Random(1))
    start = list(state.log)
    assert state.new_log == start  # a new game: everything written so far
    lines = [f"line {n}" for n in range(30)]
    write_log(state, lines, farkle.LOG_LENGTH)
    assert state.log == lines[-farkle.LOG_LENGTH :]
    assert state.new_log == start + lines
    taken, got = take_log(state)
    assert got == start + lines and taken.new_log == [] and taken.log == state.log
    assert state.new_log == start + lines  # the state taken from is left as it was
    again, none = take_log(taken)
    assert none == [] and again is taken  # nothing new: the same object, nothing copied


def play(take: bool) -> tuple[list[str], farkle.FarkleState]:
    """A seeded game of two Farkle bots to 2,000; with `take`, the lines taken after every
    move (as the bot saves each one), else the whole log left in the state."""
    rng = random.Random(4)
    rules = PRESETS["classic"].model_copy(update={"target": 2000})
    state, _ = farkle.new_game(SEATS, rules, rng)
    taken: list[str] = []
    while not state.finished:
        if take:
            state, lines = take_log(state)
            taken += lines
        seat = state.current_player.id
        state = farkle.apply(state, seat, policy.choose(state, seat, rng), rng)[0]
    state, lines = take_log(state)
    return (taken + lines if take else lines), state


def test_a_whole_game_taken_after_every_move_loses_and_repeats_nothing() -> None:
    taken, state = play(take=True)
    whole, same = play(take=False)
    assert same.log == state.log  # the same game
    assert taken == whole and len(whole) > 3 * farkle.LOG_LENGTH
    assert whole[-farkle.LOG_LENGTH :] == state.log
    assert str(whole[0]).startswith("Seating rolls:") and "wins" in str(whole[-1])


def test_a_state_from_before_new_log_gives_its_window_after_a_marker() -> None:
    state, _ = farkle.new_game(SEATS, PRESETS["classic"], random.Random(1))
    old = farkle.FarkleState.model_validate(state.model_dump(exclude={"new_log"}))
    assert old.new_log is None
    write_log(old, ["a move after the upgrade"], farkle.LOG_LENGTH)
    assert old.new_log is None  # still: its earlier lines are not known
    taken, lines = take_log(old)
    assert lines == [EARLIER_NOT_KEPT, *old.log] and lines[-1] == "a move after the upgrade"
    assert taken.new_log == []
    write_log(taken, ["and one more"], farkle.LOG_LENGTH)
    assert take_log(taken)[1] == ["and one more"]  # from then on, every line
