"""Away players as a game keeps them (games/away.py): the book of who is away, the pause, and
a part played for an away player through the engine, which must not count as a turn let run
out (`autoplay.idle_turns`), while a game everyone lets run out once back still ends."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.autoplay import IDLE_TURNS, is_idle
from games.away import AwayBook, stand_in
from games.crap import engine as crap
from games.crap import policy as crap_policy
from games.farkle import engine as farkle
from games.farkle import policy as farkle_policy
from games.farkle.rules import PRESETS
from games.kuriki import engine as kuriki
from games.kuriki import policy as kuriki_policy
from games.lobby import Seat

ANN, BO, CY = Seat(id=1, name="Ann"), Seat(id=2, name="Bo"), Seat(id=3, name="Cy")
T = 1_700_000_000.0
DAY = 86400.0


def test_the_book_says_who_is_away_until_when_and_forgets_them_after() -> None:
    book = AwayBook().go(ANN.id, "Ann", T + DAY)
    assert book.is_away(ANN.id, T) and not book.is_away(ANN.id, T + DAY)
    assert not book.is_away(BO.id, T)
    assert book.stand_ins([ANN.id, BO.id], T) == [ANN.id]
    assert book.next_change() == T + DAY
    assert book.lapsed(T + DAY).away == {} and not AwayBook()
    assert not book.back(ANN.id).is_away(ANN.id, T)
    # The book is stored as JSON with the game: it reads back the same (int keys too).
    assert AwayBook.model_validate_json(book.model_dump_json()) == book


def test_everyone_away_is_a_pause_and_nobody_is_played_for() -> None:
    book = AwayBook().go(ANN.id, "Ann", T + DAY).go(BO.id, "Bo", T + 2 * DAY)
    assert book.paused([ANN.id, BO.id], T) and book.stand_ins([ANN.id, BO.id], T) == []
    assert not book.paused([ANN.id, BO.id], T + DAY)  # Ann's time is over: Bo is played for
    assert book.stand_ins([ANN.id, BO.id], T + DAY) == [BO.id]
    assert not AwayBook().paused([], T)


def test_a_pause_holds_once_everyone_still_playing_agreed_and_ends_with_the_away_time() -> None:
    seated = [ANN.id, BO.id, CY.id]
    book = AwayBook().go(ANN.id, "Ann", T + DAY).ask_pause(ANN.id, seated)
    assert book.pause is not None and book.pause.agreed == [ANN.id] and not book.pause.on
    assert book.stand_ins(seated, T) == [ANN.id]  # until everyone agrees, the bot plays
    book = book.agree(BO.id, seated).agree(BO.id, seated)
    assert book.pause is not None and book.pause.agreed == [ANN.id, BO.id] and not book.pause.on
    book = book.agree(CY.id, seated)
    assert book.paused(seated, T) and book.stand_ins(seated, T) == []
    assert not book.paused(seated, T + DAY) and book.lapsed(T + DAY).pause is None
    assert book.resume().pause is None and book.resume().is_away(ANN.id, T)
    assert book.back(ANN.id).pause is None  # back: the pause they asked for is over
    alone = AwayBook().go(ANN.id, "Ann", T + DAY).ask_pause(ANN.id, [ANN.id])
    assert alone.pause is not None and alone.pause.on


def test_played_for_is_kept_once() -> None:
    book = AwayBook().played_for(ANN.id).played_for(ANN.id).played_for(BO.id)
    assert book.stood_in == [ANN.id, BO.id]


def farkle_part(state: farkle.FarkleState, seat: int, rng: random.Random) -> Any:
    return stand_in(
        state,
        seat,
        state.player(seat).name,
        lambda s, who: farkle_policy.choose(s, who, rng),
        farkle.apply,
        rng,
        lambda s: s.finished or s.current_player.id != seat,
        farkle.LOG_LENGTH,
    )


def test_farkle_a_turn_played_for_an_away_player_is_theirs_and_marked_in_the_log() -> None:
    rng = random.Random(2)
    state, _ = farkle.new_game([ANN, BO], PRESETS["classic"], rng)
    seat = state.current_player.id
    state.player(seat).timeouts = 1  # they had let one turn run out before going away
    after = farkle_part(state, seat, rng)
    assert after is not None and after.current_player.id != seat
    assert str(after.log[-1]) == f"A bot played for {after.player(seat).name}, who is away."
    assert after.player(seat).timeouts == 0
    assert len(after.log) <= farkle.LOG_LENGTH
    assert str(after.new_log[-1]) == str(after.log[-1])  # stored with the move's lines


def test_farkle_away_turns_never_make_the_game_look_abandoned() -> None:
    """Ann is away (her turns are played for her); Bo lets his run out: never `idle`, however
    long it goes on (Bo is taken out after three, as ever). Once Ann's away time is over
    and both let their turns run out, the game ends with no winner."""
    rng = random.Random(5)
    state, _ = farkle.new_game([ANN, BO], PRESETS["classic"], rng)
    while state.player(BO.id).timeouts < IDLE_TURNS:
        if state.current_player.id == ANN.id:
            state = farkle_part(state, ANN.id, rng)
        else:
            state, _ = farkle.timeout(state, rng)
    # Without Ann's away turns, this would be the end: every person let two run out.
    assert not state.finished and state.player(ANN.id).timeouts == 0
    # Back from away, nobody plays: two turns each run out and the game is abandoned.
    state, _ = farkle.new_game([ANN, BO], PRESETS["classic"], rng)
    state = farkle_part(state, state.current_player.id, rng)
    while not state.finished:
        state, _ = farkle.timeout(state, rng)
    assert state.winner is None and is_idle(state.ended_by_departure)


@pytest.mark.parametrize("game", ["kuriki", "crap"])
def test_the_policy_plays_an_away_players_part_in_every_game(game: str) -> None:
    rng = random.Random(11)
    engine: Any = kuriki if game == "kuriki" else crap
    policy: Any = kuriki_policy if game == "kuriki" else crap_policy
    rules = engine.KurikiRules() if game == "kuriki" else engine.CrapRules()
    state, _ = engine.new_game([ANN, BO, CY], rules, rng)
    seat = engine.on_clock(state)
    assert seat is not None
    name = state.player(seat).name
    after = stand_in(
        state,
        seat,
        name,
        lambda s, who: policy.choose(s, who, rng),
        engine.apply,
        rng,
        lambda s: s.finished or not engine.legal_actions(s, seat),
        engine.LOG_LENGTH,
    )
    assert after is not None and after != state
    assert str(after.log[-1]) == f"A bot played for {name}, who is away."
    assert after.player(seat).timeouts == 0


def test_nothing_to_play_leaves_the_state_alone() -> None:
    rng = random.Random(1)
    state, _ = farkle.new_game([ANN, BO], PRESETS["classic"], rng)
    idle = state.players[1].id if state.current_player.id == state.players[0].id else state.players[0].id
    assert farkle_part(state, idle, rng) is None  # not their turn: nothing is played
