"""An absent player's timeout played by a policy (a chooser): every engine lets it make
the absent player's moves, keeps counting the timeouts (three in a row: out), and plays its
fixed rule when the chooser has no answer or a refused one."""

from __future__ import annotations

import random
from typing import Any

from games.crap import engine as crap
from games.crap import policy as crap_policy
from games.farkle import engine as farkle
from games.farkle import policy as farkle_policy
from games.farkle.rules import PRESETS
from games.lobby import Seat

SEATS = [Seat(id=1, name="Ann"), Seat(id=2, name="Bo"), Seat(id=3, name="Cy")]


def test_farkle_the_policy_plays_the_absent_players_turn_and_timeouts_count() -> None:
    rng = random.Random(5)
    state, _ = farkle.new_game(SEATS[:2], PRESETS["classic"], rng)
    asked: list[int] = []

    def chooser(s: Any, seat: int) -> Any:
        asked.append(seat)
        return farkle_policy.choose(s, seat, rng)

    counts = {p.id: 0 for p in state.players}
    for _ in range(4):
        absent = state.current_player
        turn = state.turn_number
        state, events = farkle.timeout(state, rng, chooser)
        assert asked and set(asked) == {absent.id}  # only the absent player is played
        asked.clear()
        assert state.finished or state.turn_number != turn  # their turn is over
        # The moves in the words of a person's moves, then (last, so the table shows it)
        # that a bot played them.
        ran_out = f"{absent.name} ran out of time; a bot played that turn for them."
        assert str(events[0].text).startswith(f"{absent.name} rolled")
        assert [str(e.text) for e in events].count(ran_out) == 1
        assert ran_out in [str(line) for line in state.log[-2:]]
        assert [e.text for e in events][-len(state.log) :] == state.log[-len(events) :]
        counts[absent.id] += 1
        if state.finished:
            break
        assert state.player(absent.id).timeouts == counts[absent.id]


def test_farkle_a_chooser_with_no_answer_plays_the_fixed_rule() -> None:
    rng = random.Random(6)
    state, _ = farkle.new_game(SEATS[:2], PRESETS["classic"], rng)
    absent = state.current_player.id
    state, _ = farkle.timeout(state, rng, lambda s, seat: None)
    assert state.current_player.id != absent
    assert state.player(absent).timeouts == 1
    assert "ran out of time; turn over." in str(state.log[-2])


def test_farkle_three_timeouts_in_a_row_still_remove_the_player() -> None:
    rng = random.Random(7)
    state, _ = farkle.new_game(SEATS, PRESETS["classic"], rng)
    ann = state.current_player.id

    def chooser(s: Any, seat: int) -> Any:
        return farkle_policy.choose(s, seat, rng)

    for _ in range(3):
        while state.current_player.id != ann:  # the others play their turns themselves
            who = state.current_player.id
            state, _ = farkle.apply(state, who, farkle_policy.choose(state, who, rng), rng)
        state, _ = farkle.timeout(state, rng, chooser)
    assert ann not in [p.id for p in state.players]
    assert any("timed out 3 times in a row" in str(line) for line in state.log)


def test_crap_the_policy_plays_an_absent_turn_or_the_turn_is_skipped() -> None:
    rng = random.Random(8)
    state, _ = crap.new_game(SEATS, crap.CrapRules(threshold=300), rng)
    absent = state.current_player.id
    played, _ = crap.timeout(state, rng, chooser=lambda s, seat: crap_policy.choose(s, seat, rng))
    assert played.player(absent).timeouts == 1
    said = [str(line) for line in played.log]
    assert f"{played.player(absent).name} ran out of time: a bot plays their turn." in said
    assert not any("turn skipped" in line for line in said)
    skipped, _ = crap.timeout(state, rng, chooser=lambda s, seat: None)
    assert skipped.player(absent).timeouts == 1
    assert any("turn skipped" in str(line) for line in skipped.log)
