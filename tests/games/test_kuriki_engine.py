"""The Kuriki engine, driven with scripted dice through every rule and its edges."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from games.errors import GameError, IllegalMove, NotInGame, NotYourTurn
from games.kuriki.engine import (
    LOG_LENGTH,
    Action,
    KurikiRules,
    KurikiState,
    apply,
    charge_rusk,
    declarations,
    legal_actions,
    new_game,
    next_vote_deadline,
    next_ways,
    on_clock,
    remove_player,
    timeout,
    voters,
)
from games.kuriki.values import KURIKI, legal_declarations

from .kuriki_helpers import (
    ANN,
    BOB,
    CAT,
    DAN,
    STRANGER,
    ScriptedRandom,
    Table,
    money,
    seats,
)

# --------------------------------------------------------------------------- rules


def test_rules_defaults_and_bounds() -> None:
    rules = KurikiRules()
    assert rules.lives == 5
    assert not rules.two_digit and not rules.reverse_after_kuriki
    assert rules.stake == 0
    for lives in (1, 9):
        assert KurikiRules(lives=lives).lives == lives
    for lives in (0, 10, -1):
        with pytest.raises(ValidationError):
            KurikiRules(lives=lives)


# --------------------------------------------------------------------------- seating


@pytest.mark.parametrize(
    ("rolls", "first", "rounds"),
    [
        ([3, 5, 2], BOB, 1),
        ([6, 5, 4], ANN, 1),
        ([1, 2, 6], CAT, 1),
        # Ann and Cat tie on 6 and re-roll alone (Bob does not): Cat wins with 5.
        ([6, 2, 6, 3, 5], CAT, 2),
        # Everyone ties, everyone ties again, then Bob and Cat tie, then Cat wins.
        ([4, 4, 4, 6, 6, 6, 2, 5, 5, 1, 3], CAT, 4),
    ],
)
def test_seating(rolls: list[int], first: int, rounds: int) -> None:
    rng = ScriptedRandom(rolls)
    state, events = new_game(seats(3), KurikiRules(), rng)
    assert not rng.script, "every scripted start roll is used"
    assert len(rng.calls) == len(rolls)
    assert all(call == (1, 6) for call in rng.calls)
    assert state.roller == first and state.phase == "direction"
    assert on_clock(state) == first
    assert [p.id for p in state.players] == [ANN, BOB, CAT]  # seats stay in join order
    assert [e.kind for e in events] == ["seating"] * rounds + ["first"]
    assert events[-1].player == first
    assert str(events[0].text).startswith("Start rolls: Ann ")
    assert legal_actions(state, first) == {"direction"}
    for other in {ANN, BOB, CAT} - {first}:
        assert legal_actions(state, other) == set()


def test_seating_rerolls_only_the_tied() -> None:
    rng = ScriptedRandom([6, 2, 6, 3, 5])
    _, events = new_game(seats(3), KurikiRules(), rng)
    assert str(events[1].text) == "Start rolls: Ann 3, Cat 5"


def test_new_game_players() -> None:
    rng = ScriptedRandom([6, 1, 1, 1])
    state, _ = new_game(seats(4), KurikiRules(lives=7, stake=50), rng)
    for p in state.players:
        assert (p.lives, p.fouls, p.crowns, p.purse, p.timeouts) == (7, 0, 0, -50, 0)
    assert state.pot == 0 and state.dice is None and state.winner is None
    assert state.tarted is None


def test_strangers_have_no_moves() -> None:
    t = Table()
    assert t.legal(STRANGER) == set()
    t.point(3, 4, 7)
    assert t.legal(STRANGER) == set()


def test_new_game_needs_two_players() -> None:
    with pytest.raises(IllegalMove):
        new_game(seats(1), KurikiRules(), ScriptedRandom([6]))


# --------------------------------------------------------------------------- direction


def test_clockwise_is_increasing_seat_index() -> None:
    t = Table(4, first=CAT, direction=None)
    t.do("direction", "cw")
    assert t.state.direction == 1 and t.state.phase == "roll" and t.who == CAT
    assert "Cat chose Dan to play next" in t.texts()
    assert [t.state.after(i) for i in (ANN, BOB, CAT, DAN)] == [BOB, CAT, DAN, ANN]
    t.point(3, 4, 7)
    assert t.state.next_guy == DAN


def test_counter_clockwise() -> None:
    t = Table(4, first=BOB, direction=None)
    t.do("direction", "ccw")
    assert t.state.direction == -1
    assert "Bob chose Ann to play next" in t.texts()
    assert [t.state.after(i) for i in (ANN, BOB, CAT, DAN)] == [DAN, ANN, BOB, CAT]
    t.point(3, 4, 7)
    assert t.state.next_guy == ANN
    t.pass_()
    assert t.state.next_guy == DAN


def test_the_choice_is_offered_as_who_plays_next() -> None:
    t = Table(4, first=BOB, direction=None)
    assert next_ways(t.state) == [("cw", CAT), ("ccw", ANN)]
    assert "Bob rolled highest: first Roller, and chooses who plays next." in t.texts()


def test_two_players_have_no_direction_to_choose() -> None:
    """With two players the only other player plays next either way: no choice is asked,
    the first Roller holds the cup at once."""
    t = Table(2, first=BOB)
    assert t.state.phase == "roll" and t.who == BOB
    assert "direction" not in t.legal(BOB)
    assert "Bob rolled highest: first Roller." in t.texts() and "chooses" not in t.texts()
    t.point(3, 4, 7)
    assert t.state.next_guy == ANN


def test_three_players_one_leaves_before_the_choice_no_choice_is_left() -> None:
    t = Table(3, first=BOB, direction=None)
    t.state, t.events = remove_player(t.state, CAT)
    assert t.state.phase == "roll" and t.who == BOB and "direction" not in t.legal(BOB)
    t = Table(3, first=BOB, direction=None)
    t.state, t.events = remove_player(t.state, BOB)
    assert t.state.phase == "roll" and t.who == CAT
    assert "Cat is the first Roller now." in t.texts()


def test_an_old_two_player_game_saved_before_the_choice_still_plays() -> None:
    """A game saved while two players still had to choose a direction loads and goes on;
    only one way is offered, and either plays the same."""
    t = Table(2, first=BOB)
    old = KurikiState.model_validate(t.state.model_dump(mode="json") | {"phase": "direction"})
    assert next_ways(old) == [("cw", ANN)]
    t.state = old
    t.do("direction", "ccw")
    assert t.state.phase == "roll" and "Bob chose Ann to play next" in t.texts()


def test_direction_is_chosen_by_the_first_roller_only_once() -> None:
    t = Table(3, first=BOB, direction=None)
    t.refused("direction", "cw", user_id=ANN, error=NotYourTurn, match="Bob")
    t.refused("direction", "left", user_id=BOB, error=IllegalMove, match="who plays next")
    t.refused("direction", None, user_id=BOB, error=IllegalMove)
    t.refused("roll", user_id=BOB, error=IllegalMove)
    t.do("direction", "cw")
    t.refused("direction", "ccw", user_id=BOB, error=IllegalMove)
    assert t.legal(BOB) == {"roll"}


# --------------------------------------------------------------------------- declaring


def test_roller_rolls_peeks_and_declares() -> None:
    t = Table()
    t.roll(2, 5)
    assert t.state.phase == "declare" and t.who == ANN
    assert t.legal(ANN) == {"declare"}
    assert t.legal(BOB) == {"sneak"}
    assert t.state.seen == [ANN]
    assert t.private(ANN)["dice"] == [2, 5]
    assert t.public()["dice"] is None
    assert declarations(t.state) == legal_declarations(False, None)
    t.declare(7)
    assert t.state.phase == "respond"
    assert (t.state.declared, t.state.responsible, t.state.next_guy) == (7, ANN, BOB)
    assert t.who == BOB and t.legal(BOB) == {"roll", "pull", "pass", "sneak"}
    assert t.legal(ANN) == set()
    assert str(t.events[-1].text) == "Ann declares 7."


@pytest.mark.parametrize("value", [4, 11, 101, 106])
def test_fresh_roll_may_declare_anything(value: int) -> None:
    t = Table()
    t.point(3, 4, value)  # a lie or an understatement alike
    assert t.state.declared == value


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (KURIKI, "never declared"),
        (3, "values offered"),
        (12, "values offered"),
        (100, "values offered"),
        (107, "values offered"),
        (43, "values offered"),  # a two-digit declaration in the standard game
        ("seven", "Choose one"),
        ("", "Choose one"),
        (None, "Choose one"),
    ],
)
def test_illegal_declarations(value: object, match: str) -> None:
    t = Table()
    t.roll(3, 4)
    t.refused("declare", value, error=IllegalMove, match=match)  # type: ignore[arg-type]
    assert t.state.phase == "declare"


def test_two_digit_declarations() -> None:
    t = Table(two_digit=True)
    t.roll(3, 4)
    assert 43 in declarations(t.state) and 34 in declarations(t.state)
    for bad in (7, 11, 12, 21, 44, 70):
        t.refused("declare", bad, error=IllegalMove)
    t.declare(34)
    assert t.state.declared == 34


def test_declaring_is_the_rollers_alone() -> None:
    t = Table()
    t.roll(3, 4)
    t.refused("declare", 7, user_id=BOB, error=NotYourTurn, match="Ann")
    t.refused("pull", user_id=ANN, error=IllegalMove, match="not declared yet")
    t.refused("pull", user_id=BOB, error=NotYourTurn)
    t.refused("pass", user_id=ANN, error=IllegalMove, match="not possible right now")
    t.refused("roll", user_id=ANN, error=IllegalMove, match="not declared yet")


# --------------------------------------------------------------------------- pulling


def test_pull_on_a_lie() -> None:
    t = Table()
    t.point(2, 3, 9)  # 5, declared 9
    t.pull()
    assert t.lives() == {ANN: 4, BOB: 5, CAT: 5}
    assert "a lie!" in t.texts()
    # Bob's pull took Ann's life: counted for the stats
    assert [p.pull_lives for p in t.state.players] == [0, 1, 0]
    reveal = t.state.last_reveal
    assert reveal is not None
    assert (reveal.dice, reveal.declared, reveal.liar, reveal.loser) == ((2, 3), 9, True, ANN)
    # The puller starts the next point with a fresh roll.
    assert t.state.phase == "roll" and t.who == BOB
    assert t.state.dice is None and t.state.declared is None and t.state.minimum is None
    assert t.state.seen == [] and t.state.passed == []
    assert t.public()["last_reveal"] == {
        "dice": [2, 3],
        "declared": 9,
        "liar": True,
        "loser": ANN,
    }
    t.point(1, 3, 4)  # any declaration: a fresh roll
    assert t.state.declared == 4


@pytest.mark.parametrize(
    ("dice", "declared", "two_digit"),
    [
        ((4, 5), 9, False),  # the exact truth
        ((4, 5), 6, False),  # understated
        ((1, 1), 11, False),  # Snake-Eyes beats 11
        ((3, 4), 43, True),
        ((3, 4), 34, True),
        ((2, 2), 65, True),
    ],
)
def test_pull_on_the_truth(dice: tuple[int, int], declared: int, two_digit: bool) -> None:
    t = Table(two_digit=two_digit)
    t.point(*dice, declared)
    t.pull()
    assert t.lives() == {ANN: 5, BOB: 4, CAT: 5}
    assert "not a lie." in t.texts()
    assert all(p.pull_lives == 0 for p in t.state.players)  # the truth: nobody took a life
    assert t.state.last_reveal is not None and not t.state.last_reveal.liar
    assert t.state.last_reveal.loser == BOB
    # The responsible player (the Roller) starts the next point.
    assert t.state.phase == "roll" and t.who == ANN


@pytest.mark.parametrize(
    ("dice", "declared"),
    [((3, 4), 51), ((3, 4), 45), ((6, 5), 101), ((1, 3), 32)],
)
def test_two_digit_lies(dice: tuple[int, int], declared: int) -> None:
    t = Table(two_digit=True)
    t.point(*dice, declared)
    t.pull()
    assert t.state.last_reveal is not None and t.state.last_reveal.liar
    assert t.lives()[ANN] == 4 and t.who == BOB


def test_a_lie_can_be_missed() -> None:
    t = Table()
    t.point(2, 3, 9)  # a lie
    t.roll(6, 5)  # Bob takes the cup instead of pulling
    t.declare(10)
    t.pull()  # Cat pulls Bob's honest roll
    assert t.lives() == {ANN: 5, BOB: 5, CAT: 4}
    assert t.state.last_reveal is not None and t.state.last_reveal.dice == (6, 5)
    assert t.who == BOB


# --------------------------------------------------------------------------- passing


def test_hate_mail_comes_home() -> None:
    t = Table()
    t.point(1, 3, 10)  # Ann lies: 4 declared as 10
    t.pass_()  # Bob passes: he is responsible now
    assert (t.state.responsible, t.state.next_guy, t.state.passed) == (BOB, CAT, [BOB])
    assert t.state.dice == (1, 3) and t.state.seen == [ANN]  # the cup does not move
    assert t.private(BOB)["dice"] is None
    t.pass_()  # Cat passes it on, back to the Roller
    assert (t.state.responsible, t.state.next_guy) == (CAT, ANN)
    assert t.who == ANN and t.legal(ANN) == {"roll", "pull", "pass"}
    assert t.private(ANN)["dice"] == [1, 3]  # Ann knows the lie is coming home
    t.pull()  # ...and pulls it on Cat, who passed it to her
    assert t.lives() == {ANN: 5, BOB: 5, CAT: 4}
    assert t.state.last_reveal is not None and t.state.last_reveal.loser == CAT
    assert t.who == ANN and t.state.phase == "roll"


def test_roller_passes_the_truth_and_the_first_passer_must_act() -> None:
    t = Table()
    t.point(5, 5, 105)  # the truth
    t.pass_()  # Bob
    t.pass_()  # Cat
    t.pass_()  # Ann, the Roller, passes her own roll
    assert (t.state.responsible, t.state.next_guy) == (ANN, BOB)
    assert t.state.passed == [BOB, CAT, ANN]
    assert t.legal(BOB) == {"roll", "pull", "sneak"}  # no second pass
    t.refused("pass", error=IllegalMove, match="passed this roll once already")
    t.pull()
    assert t.lives() == {ANN: 5, BOB: 4, CAT: 5}
    assert t.who == ANN


def test_a_pressure_lie_passed_around_costs_the_roller() -> None:
    t = Table()
    t.point(2, 2, 104)  # a lie: 102 declared as 104
    t.pass_()
    t.pass_()
    t.pass_()  # Ann passes her own lie
    t.pull()  # Bob must act; he pulls on Ann
    assert t.lives() == {ANN: 4, BOB: 5, CAT: 5}
    assert t.who == BOB


def test_pass_once_per_roll_resets_when_the_cup_is_taken() -> None:
    t = Table()
    t.point(3, 4, 7)
    t.pass_()  # Bob
    t.roll(4, 4)  # Cat takes the cup: a new roll
    assert t.state.passed == []
    t.declare(104)
    t.pass_()  # Ann
    assert t.who == BOB and "pass" in t.legal(BOB)  # Bob may pass this new roll
    t.pass_()
    t.pass_()  # Cat, the Roller
    assert t.who == ANN and "pass" not in t.legal(ANN)


def test_two_players_pass_and_pull() -> None:
    t = Table(2)
    t.point(1, 3, 8)  # a lie
    t.pass_()  # Bob passes back to Ann
    assert (t.state.responsible, t.state.next_guy) == (BOB, ANN)
    t.pull()
    assert t.lives() == {ANN: 5, BOB: 4}


# --------------------------------------------------------------------------- taking the cup


def test_taking_the_cup_must_declare_at_least_the_standing_declaration() -> None:
    t = Table()
    t.point(3, 4, 9)
    t.roll(1, 3)  # Bob takes the cup
    assert "Bob takes the cup and rolls on 9." in t.texts()
    assert t.state.phase == "declare" and t.who == BOB
    assert t.state.minimum == 9 and t.state.dice == (1, 3)
    assert t.state.seen == [BOB] and t.private(ANN)["dice"] is None
    assert declarations(t.state) == [9, 10, 11, 101, 102, 103, 104, 105, 106]
    t.refused("declare", 8, error=IllegalMove, match="at least 9")
    t.refused("declare", 4, error=IllegalMove, match="at least 9")
    t.declare(9)  # equal is allowed (and a lie here)
    assert (t.state.responsible, t.state.next_guy) == (BOB, CAT)
    t.pull()
    assert t.lives() == {ANN: 5, BOB: 4, CAT: 5}
    assert t.who == CAT


def test_taking_the_cup_at_the_top() -> None:
    t = Table(two_digit=True)
    t.point(6, 6, 106)
    t.roll(6, 5)
    assert declarations(t.state) == [106]
    t.refused("declare", 65, error=IllegalMove, match=r"Double-Six \(Boxcars\)")
    t.declare(106)
    assert t.state.declared == 106


def test_the_roller_may_take_his_own_passed_cup() -> None:
    t = Table()
    t.point(3, 4, 7)
    t.pass_()
    t.pass_()
    t.roll(6, 6)  # Ann takes the cup on her own 7
    assert t.state.minimum == 7 and t.who == ANN
    t.declare(106)
    assert t.state.next_guy == BOB


# --------------------------------------------------------------------------- Kuriki


@pytest.mark.parametrize("dice", [(1, 2), (2, 1)])
def test_kuriki_on_a_fresh_roll(dice: tuple[int, int]) -> None:
    t = Table()
    t.roll(*dice)
    assert t.lives() == {ANN: 5, BOB: 4, CAT: 5}
    assert t.p(ANN).crowns == 1 and t.p(BOB).crowns == 0
    assert t.kinds()[:2] == ["roll", "kuriki"] and "kuriki3" not in t.kinds()
    assert "KURIKI" in t.texts() and "Crown number 1" in t.texts()
    reveal = t.state.last_reveal
    assert reveal is not None and reveal.dice == dice and reveal.loser == BOB
    # Shown at once, never declared: the Roller keeps the cup for a fresh roll.
    assert t.state.phase == "roll" and t.who == ANN
    assert t.state.dice is None and t.state.declared is None and t.state.minimum is None
    t.point(1, 3, 4)
    assert t.state.declared == 4


def test_kuriki_counter_clockwise_hits_the_other_neighbour() -> None:
    t = Table(3, direction="ccw")
    t.roll(1, 2)
    assert t.lives() == {ANN: 5, BOB: 5, CAT: 4}


def test_kuriki_when_taking_the_cup() -> None:
    t = Table()
    t.point(3, 3, 103)
    t.roll(2, 1)  # Bob takes the cup and rolls a Kuriki
    assert t.lives() == {ANN: 5, BOB: 5, CAT: 4}
    assert t.p(BOB).crowns == 1
    assert t.state.phase == "roll" and t.who == BOB
    assert t.state.minimum is None and t.state.declared is None
    assert t.state.responsible is None and t.state.next_guy is None
    t.point(1, 3, 5)  # a fresh roll: the old 103 is gone
    assert t.state.declared == 5


def test_every_third_kuriki() -> None:
    t = Table(4, lives=9)
    t.roll(1, 2)
    t.roll(1, 2)
    assert t.lives() == {ANN: 9, BOB: 7, CAT: 9, DAN: 9}
    t.roll(2, 1)  # the third: Bob loses two, everyone else but Ann one
    assert t.lives() == {ANN: 9, BOB: 5, CAT: 8, DAN: 8}
    assert "kuriki3" in t.kinds()
    assert "Bob loses 2 lives" in t.texts()
    t.roll(1, 2)
    t.roll(1, 2)
    assert t.lives() == {ANN: 9, BOB: 3, CAT: 8, DAN: 8}
    assert "kuriki3" not in t.kinds()
    t.roll(1, 2)  # the sixth
    assert t.lives() == {ANN: 9, BOB: 1, CAT: 7, DAN: 7}
    assert "kuriki3" in t.kinds() and "tarts" in t.kinds()
    assert t.p(ANN).crowns == 6


def test_crowns_are_counted_per_player() -> None:
    t = Table(3, lives=9)
    t.roll(1, 2)
    t.roll(1, 2)  # Ann: two crowns
    t.point(3, 3, 103)
    t.roll(1, 2)  # Bob takes the cup: his first crown, not the table's third
    assert (t.p(ANN).crowns, t.p(BOB).crowns) == (2, 1)
    assert "kuriki3" not in t.kinds()
    assert t.lives() == {ANN: 9, BOB: 7, CAT: 8}
    t.point(3, 4, 7)
    t.pull()  # Cat pulls the truth: Bob starts again
    t.roll(1, 2)
    t.roll(1, 2)  # Bob's third
    assert "kuriki3" in t.kinds()
    assert t.lives() == {ANN: 8, BOB: 7, CAT: 8 - 1 - 1 - 2}


def test_third_kuriki_can_end_the_game() -> None:
    t = Table(3, lives=2)
    t.roll(1, 2)
    t.roll(1, 2)  # Bob is out: Tarted
    assert t.p(BOB).out and t.state.tarted == BOB
    t.roll(1, 2)  # Ann's third: Cat (now the Next Guy) loses two
    assert t.state.finished and t.state.winner == ANN
    assert t.lives() == {ANN: 2, BOB: 0, CAT: 0}


# --------------------------------------------------------------------------- reverse


def test_reverse_after_kuriki() -> None:
    t = Table(4, reverse_after_kuriki=True)
    assert "reverse" not in t.legal(ANN)
    t.roll(1, 2)
    assert t.state.can_reverse and t.legal(ANN) == {"roll", "reverse"}
    t.refused("reverse", user_id=BOB, error=NotYourTurn)
    t.do("reverse")
    assert t.state.direction == -1 and not t.state.can_reverse
    assert t.events[-1].kind == "reverse" and "reverses" in t.texts()
    t.refused("reverse", error=IllegalMove, match="only right after your Kuriki")
    t.point(3, 4, 7)
    assert t.state.next_guy == DAN
    t.roll(1, 2)  # Dan takes the cup and rolls a Kuriki: the Next Guy is now Cat
    assert t.lives() == {ANN: 5, BOB: 4, CAT: 4, DAN: 5}


def test_reverse_must_come_before_the_fresh_roll() -> None:
    t = Table(reverse_after_kuriki=True)
    t.roll(1, 2)
    t.roll(3, 4)
    assert not t.state.can_reverse
    t.declare(7)
    t.pull()  # Bob pulls the truth: Ann starts, with no Kuriki to reverse on
    assert t.who == ANN and t.legal(ANN) == {"roll"}
    t.refused("reverse", error=IllegalMove)


def test_no_reverse_without_the_variant() -> None:
    t = Table()
    t.roll(1, 2)
    assert not t.state.can_reverse and t.legal(ANN) == {"roll"}
    t.refused("reverse", error=IllegalMove, match="only right after your Kuriki")


def test_a_second_kuriki_allows_reversing_again() -> None:
    t = Table(reverse_after_kuriki=True)
    t.roll(1, 2)
    t.do("reverse")
    t.roll(2, 1)  # the Next Guy is now Cat
    assert t.lives() == {ANN: 5, BOB: 4, CAT: 4}
    assert t.state.can_reverse
    t.do("reverse")
    assert t.state.direction == 1


# --------------------------------------------------------------------------- lives and the end


def test_in_the_tarts_tarted_out_and_winner() -> None:
    t = Table(3, lives=2)
    t.point(1, 3, 10)
    t.pull()  # Ann lied
    assert t.lives() == {ANN: 1, BOB: 2, CAT: 2}
    assert t.events_of("tarts")[0].player == ANN
    assert "Ann is in the Tarts." in t.texts()
    t.point(3, 4, 7)  # Bob, the truth
    t.pull()  # Cat loses
    assert "tarts" in t.kinds()
    t.point(3, 4, 9)  # Bob lies
    t.pull()  # Cat pulls: Bob loses
    assert t.lives() == {ANN: 1, BOB: 1, CAT: 1}
    t.point(5, 5, 105)  # Cat
    t.pull()  # Ann pulls the truth and is out first: Tarted
    assert t.p(ANN).out and t.state.tarted == ANN
    tarted = t.events_of("tarted")
    assert len(tarted) == 1 and tarted[0].player == ANN
    assert "Pop-Tarts" in str(tarted[0].text) and "Brown Sugar and Cinnamon" in str(tarted[0].text)
    assert not t.state.finished
    assert t.who == CAT  # the Roller rolls again
    t.point(2, 3, 6)
    assert t.state.next_guy == BOB  # Ann is skipped
    assert t.legal(ANN) == set()
    t.refused("sneak", user_id=ANN, error=IllegalMove, match="out of this game")
    t.pull()  # Bob pulls a lie: Cat is out, Bob wins
    assert t.state.finished and t.state.winner == BOB
    assert t.state.tarted == ANN  # only the first one out is Tarted
    assert "out" in t.kinds() and "tarted" not in t.kinds()
    assert t.kinds()[-1] == "game_over" and "Bob is the last one standing" in t.texts()
    assert on_clock(t.state) is None
    assert all(legal_actions(t.state, p) == set() for p in (ANN, BOB, CAT))
    t.refused("roll", user_id=BOB, error=IllegalMove, match="over")
    with pytest.raises(IllegalMove):
        timeout(t.state, t.rng)
    with pytest.raises(IllegalMove):
        remove_player(t.state, BOB)
    with pytest.raises(IllegalMove):
        charge_rusk(t.state, BOB)


def test_nobody_is_in_the_tarts_once_someone_is_tarted() -> None:
    # "In the Tarts" is one life left *at risk of being Tarted*: only the first one out is
    # Tarted, so after that a player on one life is not in the Tarts.
    t = Table(4, lives=2)
    t.point(1, 3, 10)
    t.pull()  # Ann lied: one life left, in the Tarts
    assert t.events_of("tarts")[0].player == ANN
    t.point(1, 3, 10)  # Bob lies
    t.pull()  # Cat pulls: Bob on one life, in the Tarts too
    assert [e.player for e in t.events_of("tarts")] == [BOB]
    t.point(3, 4, 9)  # Cat lies
    t.pull()  # Dan pulls: Cat on one life
    assert [e.player for e in t.events_of("tarts")] == [CAT]
    t.point(3, 4, 9)  # Dan lies
    t.pass_()  # Ann passes the lie on: she is responsible
    t.pull()  # Bob pulls on Ann: Ann is out first, Tarted
    assert t.state.tarted == ANN and "tarted" in t.kinds()
    assert t.lives() == {ANN: 0, BOB: 1, CAT: 1, DAN: 2}
    t.point(3, 4, 9)  # Bob (the puller) lies
    t.pull()  # Cat pulls: Bob is out, not Tarted
    assert "tarted" not in t.kinds() and "out" in t.kinds()
    # Someone dropping to one life after the Tarting is not in the Tarts.
    t = Table(3, lives=2)
    t.roll(1, 2)
    t.roll(1, 2)  # Bob is Tarted
    assert t.state.tarted == BOB
    t.point(3, 4, 9)  # Ann lies
    t.pull()  # Cat pulls: Ann on one life, but nobody is at risk of being Tarted any more
    assert t.lives() == {ANN: 1, BOB: 0, CAT: 2}
    assert "tarts" not in t.kinds() and "Tarts" not in t.texts()


def test_a_puller_out_of_lives_hands_the_cup_on() -> None:
    t = Table(3, lives=1)
    t.point(1, 3, 9)
    t.pull()  # Ann lied and is out: Bob, the puller, starts
    assert t.state.tarted == ANN and t.who == BOB
    t.point(3, 4, 7)
    assert t.state.next_guy == CAT


def test_a_truth_pulled_after_passes_the_roller_rolls_again() -> None:
    # "If he Pulls the Cup and the Roller was not lying, then the Next Guy loses a life, and
    # the Roller rolls again": the one who rolled, not the last passer.
    t = Table(4, lives=2)
    t.point(3, 4, 7)
    t.pass_()
    t.pass_()
    assert t.state.responsible == CAT and t.state.passed == [BOB, CAT]
    t.pull()  # Dan pulls the truth: Dan loses, Ann (the Roller) rolls again
    assert t.lives() == {ANN: 2, BOB: 2, CAT: 2, DAN: 1}
    assert t.state.last_reveal is not None and t.state.last_reveal.loser == DAN
    assert t.who == ANN and t.state.phase == "roll" and t.state.minimum is None
    assert "Ann starts the next point" in t.texts()


def test_a_truth_pulled_after_the_cup_was_taken_the_taker_rolls_again() -> None:
    t = Table(4)
    t.point(3, 4, 7)
    t.roll(4, 5)  # Bob takes the cup: he is the Roller of these dice
    t.declare(9)
    t.pass_()  # Cat passes
    t.pull()  # Dan pulls the truth: Dan loses, Bob rolls again
    assert t.lives() == {ANN: 5, BOB: 5, CAT: 5, DAN: 4}
    assert t.who == BOB


def test_a_lie_pulled_after_passes_costs_the_last_passer() -> None:
    # Passing "assumes responsibility for the Roll": a lie costs the last passer, and the
    # puller starts the next point.
    t = Table(4)
    t.point(3, 4, 9)  # a lie
    t.pass_()
    t.pass_()
    t.pull()  # Dan pulls on Cat
    assert t.lives() == {ANN: 5, BOB: 5, CAT: 4, DAN: 5}
    assert t.who == DAN


def test_lives_never_go_below_zero() -> None:
    t = Table(4, lives=1)
    t.roll(1, 2)
    t.roll(1, 2)
    assert t.lives() == {ANN: 1, BOB: 0, CAT: 0, DAN: 1}
    assert t.state.tarted == BOB and not t.state.finished
    t.roll(1, 2)  # the third: Dan, on one life, loses "two"
    assert t.state.finished and t.lives() == {ANN: 1, BOB: 0, CAT: 0, DAN: 0}


# --------------------------------------------------------------------------- sneaking


def test_sneak_a_peek_is_a_foul_and_shows_the_dice() -> None:
    t = Table()
    t.point(2, 6, 9)
    assert "sneak" in t.legal(CAT)
    t.sneak(CAT)
    assert t.p(CAT).fouls == 1 and t.kinds() == ["foul"]
    assert "Foul on Cat" in t.texts() and "1 foul)" in t.texts()
    assert t.state.seen == [ANN, CAT]
    assert t.private(CAT)["dice"] == [2, 6]
    assert t.private(BOB)["dice"] is None
    assert t.public()["dice"] is None
    # The turn did not move.
    assert t.state.phase == "respond" and t.who == BOB
    assert "sneak" not in t.legal(CAT)
    t.refused("sneak", user_id=CAT, error=IllegalMove, match="already seen")
    t.refused("sneak", user_id=ANN, error=IllegalMove, match="already seen")
    t.pass_()
    assert t.private(CAT)["dice"] == [2, 6]
    t.pull()  # once pulled the dice are public, but no longer under the cup
    assert t.private(CAT)["dice"] is None
    assert t.state.last_reveal is not None and t.state.last_reveal.dice == (2, 6)


def test_sneak_before_the_declaration_and_the_next_guy_sneaking() -> None:
    t = Table()
    t.roll(4, 6)
    t.sneak(BOB)
    assert t.private(BOB)["dice"] == [4, 6] and t.state.phase == "declare"
    t.declare(11)
    t.sneak(CAT)
    assert t.p(BOB).fouls == 1 and t.p(CAT).fouls == 1
    t.pull()  # Bob knows: a lie
    assert t.lives() == {ANN: 4, BOB: 5, CAT: 5}


def test_a_peek_does_not_carry_over_to_a_new_roll() -> None:
    t = Table()
    t.point(3, 4, 7)
    t.sneak(CAT)
    t.roll(5, 6)  # Bob takes the cup
    assert t.state.seen == [BOB]
    assert t.private(CAT)["dice"] is None and t.private(ANN)["dice"] is None
    assert "sneak" in t.legal(CAT)


def test_nothing_to_sneak_at_between_rolls() -> None:
    t = Table(direction=None)
    t.refused("sneak", user_id=BOB, error=IllegalMove, match="nothing under the cup")
    t.do("direction", "cw")
    t.refused("sneak", user_id=BOB, error=IllegalMove, match="nothing under the cup")
    t.refused("sneak", user_id=STRANGER, error=NotInGame)


# --------------------------------------------------------------------------- fouls


def test_every_third_foul_costs_a_life() -> None:
    t = Table(lives=9)
    for n in range(1, 8):
        t.point(3, 4, 7)
        t.sneak(CAT)
        assert t.p(CAT).fouls == n
        assert t.p(CAT).lives == 9 - n // 3
        if n % 3 == 0:
            assert f"Cat loses a life for {n} fouls" in t.texts()
        else:
            assert "life" not in t.kinds()
        t.pull()  # Bob pulls the truth; Ann starts again
    assert t.p(CAT).lives == 7 and t.p(BOB).lives == 2


def test_rusk_is_a_triple_foul() -> None:
    t = Table()
    t.rusk(BOB)
    assert t.p(BOB).fouls == 3 and t.p(BOB).lives == 4
    assert "Rusk" in t.texts()
    t.point(3, 4, 7)
    t.sneak(BOB)  # 4 fouls: no life
    assert t.p(BOB).lives == 4
    t.rusk(BOB)  # 7 fouls: past the sixth, one more life
    assert t.p(BOB).fouls == 7 and t.p(BOB).lives == 3
    assert t.kinds().count("life") == 1


def test_rusk_on_top_of_earlier_fouls() -> None:
    t = Table()
    t.point(3, 4, 7)
    t.sneak(BOB)
    t.pull()
    t.point(3, 4, 7)
    t.sneak(CAT)
    t.rusk(CAT)
    assert t.p(CAT).fouls == 4 and t.p(CAT).lives == 4
    t.rusk(CAT)
    t.rusk(CAT)  # 10 fouls: the 6th and 9th each cost a life
    assert t.p(CAT).fouls == 10 and t.p(CAT).lives == 2


def test_rusk_refusals_leave_the_state() -> None:
    t = Table(lives=1)
    t.point(1, 3, 9)
    t.pull()  # Ann is out
    before = t.state.model_dump()
    with pytest.raises(IllegalMove, match="out of the game"):
        charge_rusk(t.state, ANN)
    with pytest.raises(NotInGame):
        charge_rusk(t.state, STRANGER)
    assert t.state.model_dump() == before


def test_foul_vote_passes_by_majority() -> None:
    # "Charged by a player and agreed-to by acclamation from the other players": the voters
    # are the players other than the accuser and the accused, and a majority of them agrees.
    t = Table(4)
    t.propose(ANN, DAN, now=100.0, reason="called a die a dice")
    assert len(t.state.votes) == 1
    vote = t.state.votes[0]
    assert (vote.id, vote.accused, vote.proposer, vote.yes, vote.no) == (1, DAN, ANN, [], [])
    assert voters(t.state, vote) == [BOB, CAT] and not vote.rusk
    assert vote.deadline == 160.0 and next_vote_deadline(t.state) == 160.0
    assert vote.reason == "called a die a dice" and "called a die a dice" in t.texts()
    assert "The other players vote." in t.texts()
    t.vote(BOB, 1, "yes", now=110.0)  # one of two voters: not yet a majority
    assert len(t.state.votes) == 1 and t.p(DAN).fouls == 0
    t.vote(CAT, 1, "yes", now=111.0)  # two of two
    assert t.state.votes == [] and t.p(DAN).fouls == 1
    assert t.kinds() == ["foul"] and "Foul on Dan: called a die a dice" in t.texts()
    assert next_vote_deadline(t.state) is None
    # The next proposal gets the next id and the default reason.
    t.propose(BOB, DAN, now=120.0)
    assert t.state.votes[0].id == 2 and "disrespecting the dice" in t.texts()


def test_one_foul_proposal_per_player_per_roll() -> None:
    """Nothing else would limit how often a foul is proposed (issue 32): a second proposal
    by the same player on the same roll is refused, whoever it accuses; others may still
    propose, and the next roll allows it again."""
    t = Table(4)
    t.propose(ANN, DAN, now=1.0)
    t.vote(BOB, 1, "no", now=2.0)
    assert t.state.votes == []
    t.refused("propose", DAN, user_id=ANN, error=IllegalMove, match="on this roll already")
    t.refused("propose", BOB, user_id=ANN, error=IllegalMove, match="on this roll already")
    t.propose(BOB, CAT, now=4.0)
    t.roll(3, 4)
    t.propose(ANN, DAN, now=5.0)
    assert [v.proposer for v in t.state.votes] == [BOB, ANN]


def test_the_table_keeps_every_declaration_and_the_truth_of_a_pulled_one() -> None:
    """What the log showed everyone, for the bots to learn who bluffs from (issue 32)."""
    t = Table(2)
    t.roll(1, 3)
    t.declare(9)
    t.roll(5, 5)  # Bob takes the cup
    t.declare(105)
    t.pull()  # Ann pulls the truth
    said = [(s.p, s.v, s.m, s.t) for s in t.state.said]
    assert said == [(ANN, 9, None, None), (BOB, 105, 9, 105)]
    assert t.public()["said"] == [s.model_dump() for s in t.state.said]


def test_the_accuser_does_not_vote_on_his_own_foul() -> None:
    t = Table(3)
    t.propose(ANN, BOB)
    t.refused("vote", "yes", user_id=ANN, error=IllegalMove, match="You called this foul", vote=1)
    t.refused("vote", "accept", user_id=BOB, error=IllegalMove, match="accused", vote=1)
    t.vote(CAT, 1, "yes")  # Cat is the only voter: her yes is the majority
    assert t.p(BOB).fouls == 1


def test_foul_vote_fails_by_votes() -> None:
    t = Table(4)
    t.propose(ANN, DAN, now=0.0)
    t.vote(BOB, 1, "no")  # one no of two voters: the foul can no longer get a majority
    assert t.state.votes == [] and t.p(DAN).fouls == 0
    assert t.kinds() == ["vote_failed"] and "voted down" in t.texts()


def test_foul_vote_majority_of_a_larger_table() -> None:
    t = Table(5)
    t.propose(ANN, BOB, now=0.0)  # voters: Cat, Dan, Eve: two needed
    t.vote(CAT, 1, "yes")
    assert len(t.state.votes) == 1 and t.p(BOB).fouls == 0
    t.vote(DAN, 1, "no")
    assert len(t.state.votes) == 1
    t.vote(5, 1, "yes")
    assert t.state.votes == [] and t.p(BOB).fouls == 1


@pytest.mark.parametrize(("answer", "fouls"), [("accept", 1), ("decline", 0)])
def test_two_players_the_accused_accepts_or_it_is_not_charged(answer: str, fouls: int) -> None:
    t = Table(2)
    t.propose(BOB, ANN)
    assert len(t.state.votes) == 1 and voters(t.state, t.state.votes[0]) == []
    assert "Ann accepts it or it is not charged" in t.texts()
    t.refused("vote", "yes", user_id=BOB, error=IllegalMove, match="You called this foul", vote=1)
    t.refused("vote", "yes", user_id=ANN, error=IllegalMove, match="Accept", vote=1)
    t.vote(ANN, 1, answer)
    assert t.state.votes == [] and t.p(ANN).fouls == fouls
    if answer == "decline":
        assert t.kinds() == ["vote_failed"] and "not charged" in t.texts()


def test_two_players_an_unanswered_foul_is_not_charged() -> None:
    t = Table(2)
    t.propose(BOB, ANN, now=0.0)
    t.expire(60.0)
    assert t.state.votes == [] and t.p(ANN).fouls == 0 and t.kinds() == ["vote_failed"]


def test_a_rusk_is_proposed_and_voted_like_any_foul() -> None:
    t = Table(4)
    t.do("propose", DAN, user_id=ANN, rusk=True)
    vote = t.state.votes[0]
    assert vote.rusk and str(vote.reason) == "a Rusk (manhandling the cup)"
    assert "calls a Rusk (a triple foul) on Dan" in t.texts()
    t.vote(BOB, 1, "yes")
    t.vote(CAT, 1, "yes")
    assert t.p(DAN).fouls == 3 and t.p(DAN).lives == 4  # a triple foul: a life
    t.do("propose", CAT, user_id=DAN, rusk=True)
    t.vote(ANN, 2, "no")  # one no of two voters: voted down
    assert t.p(CAT).fouls == 0 and t.state.votes == []
    t = Table(2)
    t.do("propose", BOB, user_id=ANN, rusk=True)
    t.vote(BOB, 1, "accept")
    assert t.p(BOB).fouls == 3 and t.p(BOB).lives == 4


def test_foul_vote_times_out() -> None:
    t = Table(5, vote_seconds=30)
    t.propose(ANN, DAN, now=100.0)
    t.vote(BOB, 1, "no", now=110.0)
    assert t.state.votes[0].deadline == 130.0
    t.expire(129.9)
    assert len(t.state.votes) == 1 and t.events == []
    t.expire(130.0)
    assert t.state.votes == [] and t.kinds() == ["vote_failed"]
    assert "Time is up" in t.texts() and t.p(DAN).fouls == 0


def test_an_expired_vote_cannot_be_carried_late() -> None:
    t = Table(4)
    t.propose(ANN, DAN, now=0.0)
    t.refused("vote", "yes", user_id=BOB, error=IllegalMove, match="closed", vote=1, now=60.0)
    assert len(t.state.votes) == 1  # refused: nothing changed, not even the expiry
    t.point(3, 4, 7)  # any later move closes it, with the caller's clock
    t.do("pull", now=61.0)
    assert t.state.votes == [] and "vote_failed" in t.kinds() and t.p(DAN).fouls == 0


def test_timeout_closes_expired_votes() -> None:
    t = Table(3)
    t.propose(ANN, CAT, now=0.0)
    t.timeout(3, 4, now=61.0)
    assert t.state.votes == [] and t.kinds()[0] == "vote_failed"


@pytest.mark.parametrize(
    ("proposer", "accused", "error", "match"),
    [
        (ANN, ANN, IllegalMove, "yourself"),
        (ANN, STRANGER, NotInGame, None),
        (ANN, "bob", IllegalMove, "accuse"),
        (ANN, None, NotInGame, None),
        (STRANGER, BOB, NotInGame, None),
    ],
)
def test_bad_proposals_are_refused(
    proposer: int, accused: object, error: type[GameError], match: str | None
) -> None:
    t = Table(3)
    t.refused("propose", accused, user_id=proposer, error=error, match=match)  # type: ignore[arg-type]


def test_one_vote_per_accused_and_per_voter() -> None:
    t = Table(5)
    t.propose(ANN, DAN)
    t.refused("propose", DAN, user_id=BOB, error=IllegalMove, match="already a foul vote")
    t.refused("vote", "yes", user_id=DAN, error=IllegalMove, match="accused", vote=1)
    t.refused("vote", "yes", user_id=ANN, error=IllegalMove, match="You called", vote=1)
    t.vote(BOB, 1, "no")
    t.refused("vote", "yes", user_id=BOB, error=IllegalMove, match="voted already", vote=1)
    t.refused("vote", "maybe", user_id=CAT, error=IllegalMove, match="yes or no", vote=1)
    t.refused("vote", "yes", user_id=CAT, error=IllegalMove, match="closed", vote=7)
    t.refused("vote", "yes", user_id=CAT, error=IllegalMove, match="closed")
    t.propose(BOB, CAT)  # another accused may be voted on at the same time
    assert [v.accused for v in t.state.votes] == [DAN, CAT]


def test_out_players_neither_vote_nor_count() -> None:
    t = Table(4, lives=1)
    t.point(1, 3, 9)
    t.pull()  # Ann is out
    t.refused("propose", CAT, user_id=ANN, error=IllegalMove, match="out of this game")
    t.refused("propose", ANN, user_id=BOB, error=IllegalMove, match="out of the game")
    t.propose(BOB, DAN)  # voters: Bob and Cat: both needed
    assert len(t.state.votes) == 1
    t.vote(CAT, 1, "yes")
    assert t.p(DAN).fouls == 1


def test_a_vote_on_a_player_who_goes_out_is_dropped() -> None:
    t = Table(4, lives=1)
    t.propose(BOB, ANN)
    t.point(1, 3, 9)
    t.pull()  # Ann lied and is out
    assert t.state.votes == []


def test_a_vote_on_a_player_who_leaves_is_dropped() -> None:
    t = Table(4)
    t.propose(BOB, CAT)
    t.remove(CAT)
    assert t.state.votes == []


# --------------------------------------------------------------------------- fouls mid-point


def test_next_guy_fouled_out_by_his_own_peek_starts_a_fresh_point() -> None:
    t = Table(4, lives=1)
    for accuser, voter in ((ANN, CAT), (CAT, ANN)):  # Bob: one life, two fouls
        t.propose(accuser, BOB)  # (one proposal per player per roll)
        t.vote(voter, t.state.votes[0].id, "yes")
        t.vote(DAN, t.state.votes[0].id, "yes")
    assert t.p(BOB).fouls == 2 and t.p(BOB).lives == 1
    t.point(3, 4, 7)
    t.sneak(BOB)
    assert t.p(BOB).out and t.state.tarted == BOB
    assert not t.state.finished
    # The point Bob was part of starts afresh with the next player still in.
    assert t.state.phase == "roll" and t.who == CAT
    assert t.state.dice is None and t.state.declared is None and t.state.seen == []
    t.point(5, 6, 11)
    assert t.state.next_guy == DAN


def test_roller_fouled_out_mid_declaration() -> None:
    t = Table(3, lives=1)
    t.roll(3, 4)
    t.rusk(ANN)
    assert t.p(ANN).out and t.who == BOB and t.state.phase == "roll"
    assert t.state.dice is None


def test_bystander_fouled_out_leaves_the_point_alone() -> None:
    t = Table(4, lives=1)
    t.point(3, 4, 7)
    t.rusk(DAN)
    assert t.p(DAN).out
    assert (t.state.phase, t.state.declared, t.state.next_guy) == ("respond", 7, BOB)
    assert t.state.dice == (3, 4)


def test_first_roller_fouled_out_before_choosing_direction() -> None:
    t = Table(4, lives=1, direction=None)
    t.rusk(ANN)
    assert t.state.phase == "direction" and t.who == BOB
    t.do("direction", "ccw")
    assert t.who == BOB and t.state.direction == -1


# --------------------------------------------------------------------------- stakes


def test_stakes_fouls_pot_and_kuriki() -> None:
    t = Table(3, stake=100, foul_price=25)
    assert [p.purse for p in t.state.players] == [-100, -100, -100]
    assert money(t.state) == 0
    t.point(3, 4, 7)
    t.sneak(CAT)
    assert t.state.pot == 25 and t.p(CAT).purse == -125
    t.rusk(BOB)
    assert t.state.pot == 100 and t.p(BOB).purse == -175
    assert money(t.state) == 0
    t.pull()  # Bob pulls the truth; Ann starts
    t.roll(1, 2)  # Ann's Kuriki collects the pot
    assert t.state.pot == 0 and t.p(ANN).purse == 0
    assert "collects the foul pot of 100" in t.texts()
    assert money(t.state) == 0


def test_stakes_the_winner_takes_the_stakes_and_the_pot() -> None:
    t = Table(3, lives=1, stake=10, foul_price=3)
    t.point(3, 4, 7)
    t.sneak(CAT)
    t.pull()  # Bob pulls the truth and is out
    t.point(1, 3, 9)
    t.pull()  # Cat pulls Ann's lie: Cat wins 3 stakes and the pot of 3
    assert t.state.finished and t.state.winner == CAT
    assert "Cat takes the stakes and the pot: 33." in t.texts()
    assert [p.purse for p in t.state.players] == [-10, -10, 20]
    assert t.state.pot == 0
    assert sum(p.purse for p in t.state.players) == 0


def test_no_stakes_no_money() -> None:
    t = Table(3)
    t.point(3, 4, 7)
    t.sneak(CAT)
    t.rusk(BOB)
    assert t.state.pot == 0 and all(p.purse == 0 for p in t.state.players)
    assert "prize" not in t.kinds()


def test_kuriki_with_an_empty_pot_says_nothing_of_money() -> None:
    t = Table(stake=10)
    t.roll(1, 2)
    assert "pot" not in t.kinds() and t.p(ANN).purse == -10


# --------------------------------------------------------------------------- timeouts


def test_direction_timeout_is_clockwise() -> None:
    t = Table(3, first=BOB, direction=None)
    t.timeout()
    assert t.state.direction == 1 and t.state.phase == "roll" and t.who == BOB
    assert t.kinds()[0] == "timeout" and t.p(BOB).timeouts == 1


def test_roll_timeout_rolls_and_declares_the_lowest() -> None:
    t = Table()
    t.timeout(4, 5)
    assert t.state.phase == "respond" and t.state.declared == 4  # a fresh roll: anything
    assert t.state.dice == (4, 5) and t.p(ANN).timeouts == 1
    assert t.kinds() == ["timeout", "roll", "declare"]
    assert "Ann declares the lowest allowed, 4, whatever the dice." in t.texts()


def test_roll_timeout_with_a_kuriki() -> None:
    t = Table()
    t.timeout(1, 2)
    assert t.state.phase == "roll" and t.who == ANN
    assert t.lives()[BOB] == 4 and "declare" not in t.kinds()


def test_declare_timeout_two_digit_declares_the_lowest() -> None:
    t = Table(two_digit=True)
    t.roll(3, 4)
    t.timeout()
    assert t.state.declared == 13


@pytest.mark.parametrize("dice", [(1, 3), (6, 6), (5, 5), (6, 5)])
def test_declare_timeout_on_a_point_declares_the_standing_declaration(
    dice: tuple[int, int],
) -> None:
    t = Table()
    t.point(5, 5, 105)
    t.roll(*dice)  # Bob takes the cup on 105
    t.timeout()
    assert t.state.declared == 105 and t.state.responsible == BOB


@pytest.mark.parametrize("passes", [0, 1])
def test_an_absent_rollers_declaration_does_not_tell_the_truth(passes: int) -> None:
    """The same timeout with hidden dice that make the declaration the truth (6-6 on
    Walnuts) and a lie (2-3): everything public (the view, the log, the events) is the same."""

    def public_after(dice: tuple[int, int]) -> tuple[dict[str, object], list[str]]:
        t = Table(4)
        t.point(4, 4, 104)
        for _ in range(passes):
            t.pass_()
        t.roll(*dice)  # the Next Guy takes the cup on Walnuts...
        t.timeout()  # ...and runs out of time declaring
        assert t.state.dice == dice and t.state.declared == 104
        return t.public(), [str(e.text) for e in t.events]

    true_case, lie_case = public_after((6, 6)), public_after((2, 3))
    assert true_case == lie_case
    assert true_case[0]["dice"] is None
    assert not any("truth" in line for line in true_case[1])


def test_a_fresh_roll_timeout_is_the_same_whatever_the_dice() -> None:
    def public_after(dice: tuple[int, int]) -> dict[str, object]:
        t = Table(3)
        t.timeout(*dice)  # Ann does not roll: the timeout rolls and declares for her
        assert t.state.dice == dice
        return t.public()

    assert public_after((6, 6)) == public_after((1, 3)) == public_after((2, 5))


def test_respond_timeout_pulls() -> None:
    t = Table()
    t.point(2, 3, 9)
    t.timeout()
    assert t.kinds()[:2] == ["timeout", "pull"]
    assert t.lives()[ANN] == 4 and t.who == BOB
    assert t.p(BOB).timeouts == 1


def test_three_timeouts_in_a_row_remove_the_player() -> None:
    t = Table(3, direction=None)
    t.timeout()  # Ann: direction
    t.timeout(2, 3)  # Ann: rolls and declares 4, the lowest
    assert t.p(ANN).timeouts == 2
    t.pull()  # Bob pulls the truth; Ann starts again
    t.timeout(4, 4)  # the third in a row
    assert t.p(ANN).left and t.p(ANN).out
    assert "removed" in t.kinds() and "3 times in a row" in t.texts()
    assert t.state.phase == "roll" and t.who == BOB
    assert t.state.dice is None and t.state.declared is None


def test_a_move_resets_the_timeout_count() -> None:
    t = Table(3)
    t.timeout(2, 3)
    t.pull()  # Bob pulls the truth; Ann starts
    t.timeout(2, 3)
    assert t.p(ANN).timeouts == 2
    t.pull()
    t.point(3, 4, 7)  # Ann moves herself
    assert t.p(ANN).timeouts == 0
    t.pull()
    t.timeout(2, 3)
    assert t.p(ANN).timeouts == 1 and not t.p(ANN).left


def test_timeouts_of_the_next_guy_count_too() -> None:
    t = Table(2, lives=9)
    for n in range(1, 3):
        t.point(3, 4, 7)
        t.timeout()  # Bob pulls the truth
        assert t.p(BOB).timeouts == n
    t.point(3, 4, 7)
    t.timeout()
    assert t.state.finished and t.state.winner is None
    assert str(t.state.ended_by_departure) == "Bob timed out 3 times"
    assert "Bob timed out 3 times, so nobody wins." in t.texts()


def test_a_timeout_that_ends_the_game_removes_nobody() -> None:
    t = Table(2, lives=3)
    for _ in range(3):
        t.point(3, 4, 7)
        t.timeout()  # Bob pulls the truth
    assert t.state.finished and t.state.winner == ANN
    assert t.p(BOB).timeouts == 3 and t.p(BOB).lives == 0
    assert "removed" not in t.kinds() and not t.p(BOB).left


# --------------------------------------------------------------------------- leaving


def test_remove_a_bystander_keeps_the_point() -> None:
    t = Table(4)
    t.point(3, 4, 7)
    t.remove(DAN)
    assert t.p(DAN).left and t.p(DAN).lives == 0
    assert t.kinds() == ["removed"] and "Dan left the table." in t.texts()
    assert (t.state.phase, t.state.declared, t.state.next_guy) == ("respond", 7, BOB)
    assert t.state.dice == (3, 4)


@pytest.mark.parametrize(
    ("leaver", "starter"),
    [(BOB, CAT), (ANN, BOB)],
)
def test_remove_a_player_of_the_point_starts_afresh(leaver: int, starter: int) -> None:
    t = Table(4)
    t.point(3, 4, 7)
    t.remove(leaver)
    assert t.state.phase == "roll" and t.who == starter
    assert t.state.dice is None and t.state.declared is None
    assert t.state.responsible is None and t.state.next_guy is None
    assert t.state.seen == [] and t.state.passed == []
    assert t.kinds() == ["removed", "cup"]


def test_remove_a_passer_starts_afresh() -> None:
    t = Table(4)
    t.point(3, 4, 7)
    t.pass_()  # Bob
    t.pass_()  # Cat
    t.remove(BOB)
    assert t.state.phase == "roll" and t.who == CAT


def test_remove_the_roller_before_he_declares() -> None:
    t = Table(3)
    t.roll(3, 4)
    t.remove(ANN)
    assert t.state.phase == "roll" and t.who == BOB


def test_remove_the_kuriki_roller_loses_the_reverse() -> None:
    t = Table(3, reverse_after_kuriki=True)
    t.roll(1, 2)
    t.remove(ANN)
    assert t.who == BOB and not t.state.can_reverse
    assert "reverse" not in t.legal(BOB)


def test_remove_the_first_roller_before_the_direction() -> None:
    t = Table(4, direction=None)
    t.remove(ANN)
    assert t.state.phase == "direction" and t.who == BOB
    assert t.legal(BOB) == {"direction"}


def test_remove_down_to_one_player_ends_the_game_with_no_winner() -> None:
    """Bob is the last one standing only because Ann left: no win, and the stakes go back."""
    t = Table(2, stake=5)
    t.point(3, 4, 7)
    t.remove(ANN)
    assert t.state.finished and t.state.winner is None
    assert str(t.state.ended_by_departure) == "Ann left"
    assert t.kinds() == ["removed", "game_over"]
    assert str(t.events[-1].text) == (
        "Game over: Ann left, so nobody wins. The stakes go back to everyone."
    )
    assert t.p(BOB).purse == 0 and t.p(ANN).purse == 0 and money(t.state) == 0
    assert t.state.dice is None and on_clock(t.state) is None
    assert legal_actions(t.state, BOB) == set()


def test_a_departure_leaves_the_pot_of_fouls_unclaimed() -> None:
    t = Table(3, stake=10, foul_price=4)
    t.point(3, 4, 7)
    t.sneak(CAT)  # a foul: 4 into the pot
    assert t.state.pot == 4
    t.remove(CAT)
    t.remove(BOB)
    assert t.state.finished and t.state.winner is None and str(t.state.ended_by_departure) == "Bob left"
    assert t.p(ANN).purse == 0 and t.p(CAT).purse == -4 and t.state.pot == 4
    assert money(t.state) == 0


def test_the_last_one_standing_by_lives_still_wins_after_an_earlier_departure() -> None:
    t = Table(3, lives=1)
    t.remove(CAT)
    assert not t.state.finished
    t.point(1, 3, 9)
    t.pull()  # Bob pulls a lie: Ann loses her only life, Bob earned the win
    assert t.state.finished and t.state.winner == BOB and t.state.ended_by_departure is None


def test_remove_refusals() -> None:
    t = Table(3, lives=1)
    t.point(1, 3, 9)
    t.pull()
    with pytest.raises(IllegalMove, match="already out"):
        remove_player(t.state, ANN)
    with pytest.raises(NotInGame):
        remove_player(t.state, STRANGER)


# --------------------------------------------------------------------------- views


def test_public_view_never_shows_the_dice_under_the_cup() -> None:
    t = Table()
    for step in ("roll", "declare", "sneak", "pass", "take"):
        if step == "roll":
            t.roll(6, 6)
        elif step == "declare":
            t.declare(106)
        elif step == "sneak":
            t.sneak(CAT)
        elif step == "pass":
            t.pass_()
        else:
            t.roll(5, 5)
        assert t.state.dice is not None
        assert t.public()["dice"] is None
        assert t.public() == {**t.state.model_dump(mode="json"), "dice": None}
    assert t.private(CAT)["dice"] == [5, 5]  # Cat is the Roller now
    assert t.private(ANN)["dice"] is None and t.private(BOB)["dice"] is None
    assert t.private(STRANGER)["dice"] is None


def test_state_round_trips_through_json() -> None:
    t = Table(two_digit=True, stake=10)
    t.point(3, 4, 43)
    t.sneak(CAT)
    t.propose(BOB, CAT, now=5.0)
    again = KurikiState.model_validate_json(t.state.model_dump_json())
    assert again == t.state


def test_log_keeps_the_last_lines() -> None:
    t = Table()
    for _ in range(10):
        t.point(3, 4, 7)
        t.pass_()
    assert len(t.state.log) == LOG_LENGTH
    assert str(t.state.log[-1]) == "Bob passes, taking responsibility for 7."


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("setup", "user_id", "action", "error"),
    [
        ("direction", BOB, Action(kind="direction", value="cw"), NotYourTurn),
        ("direction", ANN, Action(kind="roll"), IllegalMove),
        ("direction", ANN, Action(kind="declare", value="7"), IllegalMove),
        ("roll", ANN, Action(kind="declare", value="7"), IllegalMove),
        ("roll", ANN, Action(kind="pull"), IllegalMove),
        ("roll", ANN, Action(kind="pass"), IllegalMove),
        ("roll", BOB, Action(kind="roll"), NotYourTurn),
        ("roll", ANN, Action(kind="direction", value="ccw"), IllegalMove),
        ("declare", ANN, Action(kind="declare", value="200"), IllegalMove),
        ("declare", BOB, Action(kind="declare", value="7"), NotYourTurn),
        ("respond", ANN, Action(kind="pull"), NotYourTurn),
        ("respond", CAT, Action(kind="pass"), NotYourTurn),
        ("respond", BOB, Action(kind="declare", value="9"), IllegalMove),
        ("respond", BOB, Action(kind="reverse"), IllegalMove),
        ("respond", STRANGER, Action(kind="pull"), NotInGame),
        ("respond", STRANGER, Action(kind="sneak"), NotInGame),
        ("respond", BOB, Action(kind="vote", value="yes", vote=1), IllegalMove),
        ("respond", BOB, Action(kind="propose", value=str(STRANGER)), NotInGame),
    ],
)
def test_refused_moves_leave_the_state_unchanged(
    setup: str, user_id: int, action: Action, error: type[GameError]
) -> None:
    t = Table(direction=None)
    if setup != "direction":
        t.do("direction", "cw")
    if setup in ("declare", "respond"):
        t.roll(3, 4)
    if setup == "respond":
        t.declare(9)
    before = t.state.model_dump()
    copy = t.state.model_copy(deep=True)
    calls = len(t.rng.calls)
    with pytest.raises(error):
        apply(t.state, user_id, action, t.rng)
    assert t.state.model_dump() == before and t.state == copy
    assert len(t.rng.calls) == calls  # no dice were thrown


def test_refusal_after_an_expired_vote_keeps_it_open() -> None:
    t = Table(4)
    t.propose(ANN, DAN, now=0.0)
    t.point(3, 4, 7)
    before = t.state.model_dump()
    with pytest.raises(NotYourTurn):
        apply(t.state, CAT, Action(kind="pull", now=1000.0), t.rng)
    assert t.state.model_dump() == before and len(t.state.votes) == 1


def test_a_foul_can_end_the_game() -> None:
    t = Table(2, lives=1, stake=20, foul_price=5)
    t.point(3, 4, 7)
    t.rusk(BOB)
    assert t.state.finished and t.state.winner == ANN and t.state.tarted == BOB
    assert t.state.dice is None and t.state.pot == 0
    assert [p.purse for p in t.state.players] == [35, -35]


def test_an_abstaining_voter_leaves_the_vote_and_the_others_decide() -> None:
    """A voter who saw nothing (a bot) abstains: the majority is then of the others, so a
    foul among people is not held up, nor made impossible, by the bots at the table."""
    t = Table(players=4)
    t.propose(ANN, BOB, now=0.0)
    [vote] = t.state.votes
    t.vote(CAT, vote.id, "abstain")
    assert t.state.votes and voters(t.state, t.state.votes[0]) == [DAN]
    with pytest.raises(IllegalMove):
        t.vote(CAT, vote.id, "yes")  # an abstention is final, like a vote
    t.vote(DAN, vote.id, "yes")
    assert t.state.votes == [] and t.state.player(BOB).fouls == 1
