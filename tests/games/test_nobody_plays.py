"""Games that no person plays any more: repeated timeouts of every person end a game as
abandoned (the same rule, `autoplay.idle_turns`, in every engine), and a Kuriki game ends
at once when its last person is out (the bots still standing win together)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.autoplay import IDLE_TURNS, idle_message, idle_turns, is_idle
from games.bots import FIRST_BOT_ID
from games.farkle import engine as farkle
from games.farkle import policy as farkle_policy
from games.farkle.rules import PRESETS
from games.kuriki import engine as kuriki
from games.kuriki import policy as kuriki_policy
from games.kuriki.engine import KurikiRules
from games.lobby import Seat

ANN, BO = Seat(id=1, name="Ann"), Seat(id=2, name="Bo")
DICEY = Seat(id=FIRST_BOT_ID, name="🤖 Dicey")
ROLLY = Seat(id=FIRST_BOT_ID + 1, name="🤖 Rolly")


def test_idle_turns_counts_people_only() -> None:
    assert IDLE_TURNS == 2
    assert idle_turns([(1, 2), (2, 1)]) is None  # Bo moved since his last timeout but one
    assert idle_turns([(1, 2), (2, 2)]) == 4
    assert idle_turns([(1, 3), (DICEY.id, 0)]) == 3  # bots always move: they never count
    assert idle_turns([(DICEY.id, 5)]) is None  # no person: ended otherwise (nobody left)
    assert idle_turns([]) is None
    assert is_idle("nobody played for 4 turns")  # as a game saved before message keys
    assert not is_idle("Ann left") and not is_idle(None)
    # As a message (the engines' states keep a Line): read by its key, whatever the count.
    assert is_idle(idle_message(4)) and str(idle_message(4)) == "nobody played for 4 turns"
    assert str(idle_message(1)) == "nobody played for 1 turn"


def test_farkle_a_person_who_never_plays_against_a_bot_abandons_the_game() -> None:
    """The bot plays its own turns; the person's are timeouts (played by the policy, which
    might even reach the target for them): after two, the game is abandoned, nobody wins."""
    rng = random.Random(3)
    state, _ = farkle.new_game([ANN, DICEY], PRESETS["classic"], rng)
    timeouts = 0
    while not state.finished:
        seat = state.current_player.id
        if seat == DICEY.id:
            state, _ = farkle.apply(state, seat, farkle_policy.choose(state, seat, rng), rng)
        else:
            state, _ = farkle.timeout(state, rng, lambda s, who: farkle_policy.choose(s, who, rng))
            timeouts += 1
    assert timeouts == IDLE_TURNS
    assert state.winner is None and str(state.ended_by_departure) == "nobody played for 2 turns"
    assert sorted(p.id for p in state.players) == [ANN.id, DICEY.id]  # nobody removed
    assert str(state.log[-1]) == "Game over: nobody played for 2 turns, so nobody wins."


def test_farkle_one_move_of_a_person_keeps_the_game_going() -> None:
    rng = random.Random(4)
    state, _ = farkle.new_game([ANN, BO], PRESETS["classic"], rng)
    first = state.current_player.id
    for _ in range(3):  # first, second, first: two in a row for the first, one for the other
        state, _ = farkle.timeout(state, rng)
    assert not state.finished
    second = state.current_player.id
    state, _ = farkle.apply(state, second, farkle.Action(kind="roll"), rng)  # a move of his own
    while state.current_player.id == second and not state.finished:
        state, _ = farkle.timeout(state, rng)  # his turn runs out: his count is 1 again
    assert not state.finished and state.player(second).timeouts == 1
    assert state.player(first).timeouts == 2
    state, _ = farkle.timeout(state, rng)  # the first's third: out, and the game with him
    assert state.finished and state.ended_by_departure is not None
    assert not is_idle(str(state.ended_by_departure))


def kuriki_game(*seats: Seat, lives: int = 5) -> kuriki.KurikiState:
    return kuriki.new_game(list(seats), KurikiRules(lives=lives), random.Random(1))[0]


def test_kuriki_a_person_who_never_plays_against_bots_abandons_the_game() -> None:
    rng = random.Random(5)
    state = kuriki_game(ANN, DICEY, ROLLY)
    timeouts = 0
    while not state.finished:
        seat = kuriki.on_clock(state)
        assert seat is not None
        if seat == ANN.id:
            state, _ = kuriki.timeout(state, rng)
            timeouts += 1
        else:
            action = kuriki_policy.choose(state, seat, rng)
            state, _ = kuriki.apply(state, seat, action, rng)
        assert timeouts <= IDLE_TURNS
    assert state.winner is None and state.winners == []
    assert str(state.ended_by_departure) == "nobody played for 2 turns" and not state.player(ANN.id).left


def knock_out(state: kuriki.KurikiState, seat: int) -> kuriki.KurikiState:
    """Charge Rusks (three fouls each: a life) until `seat` is out."""
    while not state.player(seat).out:
        state, _ = kuriki.charge_rusk(state, seat)
    return state


def test_kuriki_ends_when_its_last_person_is_out_and_the_bots_standing_win() -> None:
    state = kuriki_game(ANN, DICEY, BO, ROLLY, lives=3)
    state.player(ROLLY.id).lives = 2  # Dicey has more lives: he comes first
    state = knock_out(state, ANN.id)
    assert not state.finished  # Bo is still in
    state = knock_out(state, BO.id)
    assert state.finished and state.phase == "over"
    assert state.winner == DICEY.id and state.winners == [DICEY.id, ROLLY.id]
    assert state.ended_by_departure is None
    from bot.i18n import render  # the names joined as the reader's language joins them

    assert render(state.log[-1]) == "Game over: no person is left standing, so 🤖 Dicey and 🤖 Rolly win!"


def test_kuriki_bots_standing_share_the_stakes_and_one_left_wins_alone() -> None:
    state = kuriki_game(ANN, DICEY, ROLLY, lives=1)
    state.rules = KurikiRules(lives=1, stake=10, foul_price=0)
    state.pot = 5
    state = knock_out(state, ANN.id)
    assert state.winners == [DICEY.id, ROLLY.id]
    # 3 x 10 at stake and 5 in the pot: 17 and 18, the odd one to the first.
    assert [state.player(b).purse for b in (DICEY.id, ROLLY.id)] == [18, 17]
    alone = knock_out(kuriki_game(ANN, DICEY, BO, lives=1), ANN.id)
    assert not alone.finished
    alone = knock_out(alone, BO.id)
    assert alone.winner == DICEY.id and alone.winners == []


@pytest.mark.parametrize("seats", [(ANN, BO, DICEY), (ANN, DICEY, ROLLY)])
def test_kuriki_a_person_leaving_is_not_a_knock_out(seats: Any) -> None:
    """Leaving stays a departure (the service ends a game no person is left in with no
    winner); only the rules' knock-out of the last person hands the bots the win."""
    state = kuriki_game(*seats)
    state, _ = kuriki.remove_player(state, ANN.id)
    assert not state.finished and state.winners == []
