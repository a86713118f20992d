"""The Farkle turn engine, driven with scripted dice through every preset rule and its edges."""

from __future__ import annotations

import random

import pytest

from games.errors import GameError, IllegalMove, InvalidSelection, NotInGame, NotYourTurn
from games.farkle.engine import (
    Action,
    FarkleState,
    apply,
    can_piggyback,
    legal_actions,
    new_game,
    public_view,
    remove_player,
    selection_value,
    standings,
    timeout,
)
from games.farkle.rules import MAX_PLAYERS_LIMIT, PRESETS, FarkleRules
from games.farkle.scoring import NotScoringSelection
from games.lobby import Seat
from games.text import M, Msg

from .farkle_helpers import ScriptedRandom, Table

CM = PRESETS["crappy-malappy"]
CLASSIC = PRESETS["classic"]
TABLE = PRESETS["on-the-table"]
ANN, BOB, CAT = 1, 2, 3
ON = {"on_table": True}
FARKLE_SIX = (2, 2, 3, 4, 4, 6)  # no 1, 5, triple, straight or three pairs


def with_rules(rules: FarkleRules, **changes: object) -> FarkleRules:
    return FarkleRules(**{**rules.model_dump(), **changes})


def seats(n: int) -> list[Seat]:
    return [Seat(id=i, name=name) for i, name in zip(range(1, n + 1), "ABCD", strict=False)]


def order(state: FarkleState) -> list[int]:
    return [p.id for p in state.players]


# --------------------------------------------------------------------------- presets


def test_preset_table() -> None:
    assert set(PRESETS) == {"crappy-malappy", "classic", "on-the-table"}
    for rules in PRESETS.values():
        assert (rules.single_one, rules.single_five) == (100, 50)
    assert (CM.target, CM.target_inclusive, CM.triple_ones, CM.kind_scoring) == (
        8000,
        True,
        1000,
        "add",
    )
    assert (CM.three_pairs, CM.straight, CM.two_triplets) == (750, 2500, None)
    assert CM.extend_triple_across_throws and CM.min_bank_after_hot_dice
    assert (CM.min_bank, CM.opening, CM.one_die_throws) == (250, 0, 1)
    assert (CM.farkle_penalty_every, CM.farkle_penalty, CM.crappy_malappy_wins) == (7, 1000, 2)
    assert (CM.piggyback, CM.seating, CM.end_rule) == (False, "highest_last", "finish_round")

    assert (CLASSIC.target, CLASSIC.target_inclusive, CLASSIC.kind_scoring) == (
        10000,
        False,
        "double",
    )
    assert (CLASSIC.three_pairs, CLASSIC.straight, CLASSIC.two_triplets) == (500, 1500, None)
    assert (CLASSIC.min_bank, CLASSIC.opening, CLASSIC.one_die_throws) == (350, 1000, 3)
    assert not CLASSIC.extend_triple_across_throws and not CLASSIC.min_bank_after_hot_dice
    assert (CLASSIC.farkle_penalty_every, CLASSIC.crappy_malappy_wins) == (0, 0)
    assert (CLASSIC.piggyback, CLASSIC.seating, CLASSIC.end_rule) == (
        False,
        "highest_first",
        "one_more_turn",
    )

    assert (TABLE.target, TABLE.target_inclusive, TABLE.triple_ones) == (50000, False, 300)
    assert (TABLE.kind_scoring, TABLE.flat_kind) == ("flat", (1000, 2000, 3000))
    assert (TABLE.three_pairs, TABLE.four_and_pair_is_three_pairs) == (1500, True)
    assert (TABLE.straight, TABLE.two_triplets) == (1500, 2500)
    assert (TABLE.min_bank, TABLE.opening, TABLE.one_die_throws) == (0, 500, 1)
    assert (TABLE.farkle_penalty_every, TABLE.crappy_malappy_wins) == (0, 0)
    assert (TABLE.piggyback, TABLE.seating, TABLE.end_rule) == (
        True,
        "highest_first",
        "one_more_turn",
    )


# --------------------------------------------------------------------------- seating


@pytest.mark.parametrize(
    ("rules", "rolls", "expected"),
    [
        (CLASSIC, [2, 5, 3], [2, 3, 1]),  # B highest, goes first
        (CM, [2, 5, 3], [3, 1, 2]),  # B highest, goes last
        (CLASSIC, [2, 3, 5], [3, 1, 2]),
        (CM, [2, 3, 5], [1, 2, 3]),  # the last seat is highest: join order stays
        (CM, [6, 3, 5], [2, 3, 1]),
        # A and C tie on 6 and re-roll alone (B does not): C wins the re-roll with 5.
        (CLASSIC, [6, 2, 6, 3, 5], [3, 1, 2]),
        (CM, [6, 2, 6, 3, 5], [1, 2, 3]),
        # Everyone ties, then A and B tie again, then B wins.
        (CLASSIC, [4, 4, 4, 6, 6, 1, 2, 3], [2, 3, 1]),
        (TABLE, [4, 4, 4, 6, 6, 1, 2, 3], [2, 3, 1]),
        (CM, [4, 4, 4, 6, 6, 1, 2, 3], [3, 1, 2]),
    ],
)
def test_seating(rules: FarkleRules, rolls: list[int], expected: list[int]) -> None:
    rng = ScriptedRandom(rolls)
    state, events = new_game(seats(3), rules, rng)
    assert not rng.script, "every scripted seating roll is used"
    assert order(state) == expected
    assert state.current == 0 and state.turn_number == 1
    assert all(p.score == 0 and not p.on_table for p in state.players)
    seating = [e for e in events if e.kind == "seating"]
    highest = expected[0] if rules.seating == "highest_first" else expected[-1]
    how = "goes first" if rules.seating == "highest_first" else "goes last"
    assert str(seating[-1].text) == f"{'ABC'[highest - 1]} rolled highest and {how}."
    assert str(seating[0].text).startswith("Seating rolls: A ")
    assert events[-1].kind == "turn" and events[-1].player == expected[0]


def test_seating_rerolls_only_the_tied() -> None:
    rng = ScriptedRandom([6, 2, 6, 3, 5])
    _, events = new_game(seats(3), CLASSIC, rng)
    assert len(rng.calls) == 5
    # The second line says it is a tie-break, and of which roll.
    assert [str(e.text) for e in events if e.kind == "seating"][:2] == [
        "Seating rolls: A 6, B 2, C 6",
        "Tied on 6, rolled again: A 3, C 5",
    ]


def test_new_game_needs_two_players() -> None:
    with pytest.raises(IllegalMove):
        new_game(seats(1), CLASSIC, ScriptedRandom())


# --------------------------------------------------------------------------- bank minimum


def test_bank_minimum_250() -> None:
    t = Table(CM)
    t.roll(1, 2, 2, 3, 4, 4)
    t.take(1)
    assert t.legal() == {"toggle", "roll"}
    with pytest.raises(IllegalMove, match="250"):
        t.bank()
    t.roll(2, 3, 4, 5, 5)
    t.take(5, 5)  # 200 this turn
    assert "bank" not in t.legal()
    with pytest.raises(IllegalMove, match=r"need 250 this turn to bank \(you have 200\)"):
        t.bank()
    t.roll(1, 2, 3)
    t.take(1)
    assert "bank" in t.legal()
    t.bank()
    assert t.p(ANN).score == 300
    assert t.who == BOB


def test_bank_minimum_250_exactly_is_enough() -> None:
    t = Table(CM)
    t.roll(1, 1, 5, 2, 3, 4)
    t.take(1, 1, 5)
    t.bank()
    assert t.p(ANN).score == 250


def test_bank_minimum_counted_afresh_after_hot_dice() -> None:
    t = Table(CM)
    t.roll(1, 1, 1, 5, 5, 5)
    t.take(1, 1, 1, 5, 5, 5)  # 1500, all six: hot dice
    t.roll(1, 5, 5, 2, 3, 4)
    assert "hot_dice" in t.kinds()
    assert t.state.turn.total == 1500 and t.state.turn.since_hot == 0
    assert t.p(ANN).hot_dice == 1 and t.p(ANN).best_turn == 0  # counted for the stats
    t.take(1)
    assert "bank" not in t.legal()
    with pytest.raises(IllegalMove, match=r"afresh.*you have 100"):
        t.bank()
    t.take(5, 5)
    with pytest.raises(IllegalMove, match="you have 200"):
        t.bank()
    t.roll(1, 2, 3)
    t.take(1)
    t.bank()
    assert t.p(ANN).score == 1800
    assert t.p(ANN).best_turn == 1800 and t.p(ANN).hot_dice == 1


def test_bank_minimum_not_afresh_in_classic() -> None:
    t = Table(CLASSIC, Ann=ON)
    t.roll(2, 2, 3, 3, 4, 4)  # three pairs: 500
    t.take(2, 2, 3, 3, 4, 4)
    t.roll(1, 2, 3, 4, 6, 6)
    t.take(1)
    assert "bank" in t.legal()
    t.bank()
    assert t.p(ANN).score == 600


def test_bank_minimum_350() -> None:
    t = Table(CLASSIC, Ann=ON)
    t.roll(1, 1, 5, 2, 3, 4)
    t.take(1, 1, 5)
    with pytest.raises(IllegalMove, match=r"need 350 this turn to bank \(you have 250\)"):
        t.bank()
    t.roll(1, 2, 3)
    t.take(1)
    t.bank()
    assert t.p(ANN).score == 350


# --------------------------------------------------------------------------- opening


def test_classic_opening_1000_in_one_turn() -> None:
    t = Table(CLASSIC)
    t.roll(6, 6, 6, 1, 1, 5)
    t.take(6, 6, 6, 1, 1, 5)  # 850 with all six dice
    assert t.legal() == {"toggle", "roll"}
    with pytest.raises(IllegalMove, match=r"need 1000 this turn to get on the table"):
        t.bank()
    assert not t.p(ANN).on_table
    t.roll(1, 5, 3, 4, 6, 6)  # hot dice
    t.take(1)
    with pytest.raises(IllegalMove, match=r"\(you have 950\)"):
        t.bank()
    t.take(5)
    t.bank()
    assert t.p(ANN).score == 1000 and t.p(ANN).on_table


def test_classic_opening_exactly_1000_and_then_350() -> None:
    t = Table(CLASSIC, players=2)
    t.roll(5, 5, 5, 5, 2, 3)  # four 5s: 1000
    t.take(5, 5, 5, 5)
    t.bank()
    assert t.p(ANN).score == 1000 and t.p(ANN).on_table
    t.roll(*FARKLE_SIX)  # Bob farkles
    t.roll(1, 1, 5, 2, 3, 4)  # Ann needs only 350 now
    t.take(1, 1, 5)
    with pytest.raises(IllegalMove, match=r"need 350 this turn to bank \(you have 250\)"):
        t.bank()
    t.roll(1, 2, 3)
    t.take(1)
    t.bank()
    assert t.p(ANN).score == 1350


def test_opening_does_not_accumulate_across_turns() -> None:
    t = Table(CLASSIC, players=2)
    t.roll(5, 5, 5, 1, 1, 2)
    t.take(5, 5, 5, 1, 1)
    t.timeout()  # 700 is not enough to open: the turn (and the 700) is lost
    assert t.p(ANN).score == 0 and not t.p(ANN).on_table
    t.roll(*FARKLE_SIX)  # Bob
    t.roll(5, 5, 5, 2, 3, 4)
    t.take(5, 5, 5)
    with pytest.raises(IllegalMove, match="you have 500"):
        t.bank()


def test_on_the_table_opening_500_then_no_minimum() -> None:
    t = Table(TABLE, players=2)
    t.roll(4, 4, 4, 5, 2, 3)
    t.take(4, 4, 4)
    with pytest.raises(
        IllegalMove, match=r"need 500 this turn to get on the table \(you have 400\)"
    ):
        t.bank()
    t.take(5)
    with pytest.raises(IllegalMove, match="you have 450"):
        t.bank()
    t.roll(5, 2)
    t.take(5)
    t.bank()
    assert t.p(ANN).score == 500 and t.p(ANN).on_table
    t.roll(*FARKLE_SIX)  # Bob
    t.roll(5, 2, 3, 4, 6, 6)
    t.take(5)
    t.bank()  # 50 is enough once on the table
    assert t.p(ANN).score == 550


# --------------------------------------------------------------------------- one die left


def classic_with_one_die() -> Table:
    t = Table(CLASSIC, Ann=ON)
    t.roll(1, 1, 1, 5, 5, 2)
    t.take(1, 1, 1, 5, 5)  # 1100, one die left
    return t


def test_classic_one_die_scores_on_third_throw() -> None:
    t = classic_with_one_die()
    t.roll(3)
    assert "farkle" not in t.kinds()
    assert "2 more throws" in t.texts()
    assert t.legal() == {"roll"}
    with pytest.raises(IllegalMove):
        t.do("toggle", 0)
    with pytest.raises(IllegalMove):
        t.bank()
    t.roll(4)
    assert "1 more throw." in t.texts()
    assert t.legal() == {"roll"}
    t.roll(5)
    assert t.legal() == {"toggle"}
    t.take(5)
    t.bank()
    assert t.p(ANN).score == 1150


def test_classic_one_die_scores_on_second_throw() -> None:
    t = classic_with_one_die()
    t.roll(2)
    t.roll(1)
    t.take(1)
    t.bank()
    assert t.p(ANN).score == 1200


def test_classic_one_die_farkles_after_three_misses() -> None:
    t = classic_with_one_die()
    t.roll(2)
    t.roll(3)
    t.roll(4)
    assert "farkle" in t.kinds()
    assert "losing 1100" in t.texts()
    assert t.p(ANN).score == 0 and t.p(ANN).farkles == 1
    assert t.who == BOB and t.state.turn.total == 0


def test_classic_one_die_misses_reset_after_a_hit() -> None:
    t = classic_with_one_die()
    t.roll(2)
    assert t.state.turn.one_die_misses == 1
    t.roll(1)
    assert t.state.turn.one_die_misses == 0


@pytest.mark.parametrize("rules", [CM, TABLE])
def test_one_throw_with_one_die(rules: FarkleRules) -> None:
    t = Table(rules, Ann=ON)
    t.roll(1, 1, 5, 5, 2, 6)
    t.take(1, 1, 5, 5)
    t.roll(1, 3)
    t.take(1)
    t.roll(4)  # the last die, one chance only
    assert "farkle" in t.kinds()
    assert t.who == BOB and t.p(ANN).score == 0


# --------------------------------------------------------------------------- extended triples


def test_extended_triple_scores_a_later_single() -> None:
    t = Table(CM)
    t.roll(4, 4, 4, 2, 3, 6)
    t.take(4, 4, 4)
    t.roll(4, 2, 3)
    assert t.state.turn.extended == [4]
    t.take(4)
    t.roll(4, 4)  # two more later 4s: 400 each
    t.take(4, 4)
    assert t.state.turn.total == 800
    assert selection_value(t.state) == 800
    # All six dice are used: hot dice, which Crappy Malappy does not let you bank at once.
    t.roll(2, 3, 4, 6, 6, 1)
    assert t.state.turn.total == 1600 and t.state.turn.extended == []
    t.take(1)
    with pytest.raises(IllegalMove, match="afresh"):
        t.bank()


def test_extended_triple_of_ones_is_1000_each() -> None:
    t = Table(CM)
    t.roll(1, 1, 1, 2, 3, 4)
    t.take(1, 1, 1)
    t.roll(1, 2, 3)
    t.take(1)
    t.bank()
    assert t.p(ANN).score == 2000


def test_extended_triple_resets_after_hot_dice() -> None:
    t = Table(CM)
    t.roll(4, 4, 4, 2, 3, 6)
    t.take(4, 4, 4)
    t.roll(4, 1, 5)
    t.take(4, 1, 5)  # 400 + 400 + 100 + 50: hot dice
    t.roll(4, 2, 3, 6, 6, 2)  # a 4 is worth nothing again
    assert "hot_dice" in t.kinds() and "farkle" in t.kinds()
    assert t.p(ANN).malappys == 0  # not the first throw of the turn
    assert t.who == BOB


def test_extended_triple_does_not_last_past_the_turn() -> None:
    t = Table(CM, players=2)
    t.roll(4, 4, 4, 2, 3, 6)
    t.take(4, 4, 4)
    t.bank()
    assert t.state.turn.extended == []
    t.roll(1, 2, 3, 3, 4, 6)  # Bob
    t.take(1)
    t.roll(1, 2, 3, 4, 6)
    t.take(1)
    t.roll(4, 2, 3, 6)  # a 4 for Bob is nothing: he never set aside 4,4,4
    assert "farkle" in t.kinds()


def test_no_extension_in_classic() -> None:
    t = Table(CLASSIC, Ann=ON)
    t.roll(4, 4, 4, 2, 3, 6)
    t.take(4, 4, 4)
    t.roll(4, 2, 3)
    assert "farkle" in t.kinds()


# --------------------------------------------------------------------------- farkle penalty


def test_seventh_farkle_costs_1000_and_may_go_negative() -> None:
    t = Table(CM, Ann={"score": 500, "farkles": 6})
    t.roll(1, 2, 2, 3, 4, 6)
    t.take(1)
    t.roll(2, 2, 3, 4, 6)
    assert "penalty" in t.kinds()
    assert t.p(ANN).farkles == 7 and t.p(ANN).score == -500
    # Crappy Malappy's own words: a farkle is a crappy, in the log as on the table.
    assert "Ann rolled 2 2 3 4 6: Crappy, losing 100!" in t.texts(), t.texts()
    assert "Ann's 7th crappy: -1000." in t.texts()


def test_other_rule_sets_say_farkle() -> None:
    from games.farkle.engine import nth

    assert [str(nth(n)) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "101st",
    ]
    t = Table(PRESETS["classic"])
    t.roll(2, 2, 3, 4, 6, 6)
    assert ": Farkle!" in t.texts() and "rolled" in t.texts()
    assert PRESETS["classic"].farkle_word == "farkle" and CM.farkle_word == "crappy"


def test_only_every_seventh_farkle_is_penalised() -> None:
    t = Table(CM, players=2, Ann={"score": 500, "farkles": 5}, Bob={"farkles": 13})
    t.roll(2, 2, 3, 4, 6, 6)  # Ann's 6th
    assert "penalty" not in t.kinds() and t.p(ANN).score == 500
    t.roll(2, 2, 3, 4, 6, 6)  # Bob's 14th
    assert "penalty" in t.kinds() and t.p(BOB).score == -1000
    t.roll(2, 2, 3, 4, 6, 6)  # Ann's 7th (and a crappy malappy: her second one)
    assert t.p(ANN).score == -500
    assert t.state.finished and t.state.winner == ANN


def test_no_farkle_penalty_in_classic() -> None:
    t = Table(CLASSIC, Ann={"score": 500, "farkles": 6})
    t.roll(*FARKLE_SIX)
    assert t.p(ANN).farkles == 7 and t.p(ANN).score == 500
    assert "penalty" not in t.kinds()


# --------------------------------------------------------------------------- crappy malappy


def test_first_crappy_malappy_is_counted() -> None:
    t = Table(CM)
    t.roll(*FARKLE_SIX)
    assert "Crappy malappy" in t.texts()
    assert t.p(ANN).malappys == 1 and t.p(ANN).farkles == 1
    assert not t.state.finished and t.who == BOB


def test_second_crappy_malappy_wins_at_once() -> None:
    t = Table(CM, Ann={"malappys": 1}, Bob={"score": 7900}, Cat={"score": 6000})
    t.roll(*FARKLE_SIX)
    assert "malappy_win" in t.kinds() and "game_over" in t.kinds()
    assert t.state.finished and t.state.winner == ANN
    assert t.legal(BOB) == set()
    with pytest.raises(IllegalMove, match="over"):
        t.roll(1, 2, 3, 4, 5, 6)


def test_crappy_malappy_not_after_hot_dice() -> None:
    t = Table(CM)
    t.roll(2, 2, 3, 3, 4, 4)  # three pairs: 750
    t.take(2, 2, 3, 3, 4, 4)
    t.roll(*FARKLE_SIX)
    assert "farkle" in t.kinds() and "Crappy malappy" not in t.texts()
    assert t.p(ANN).malappys == 0 and t.p(ANN).farkles == 1


def test_crappy_malappy_not_with_fewer_dice() -> None:
    t = Table(CM, Ann={"malappys": 1})
    t.roll(1, 2, 2, 3, 4, 6)
    t.take(1)
    t.roll(2, 2, 3, 4, 6)
    assert t.p(ANN).malappys == 1 and not t.state.finished


def test_crappy_malappy_not_after_piggyback() -> None:
    rules = with_rules(CM, piggyback=True, min_bank_after_hot_dice=False)
    t = Table(rules, Ann=ON, Bob={"on_table": True, "malappys": 1})
    t.roll(2, 2, 3, 3, 4, 4)
    t.take(2, 2, 3, 3, 4, 4)
    t.bank()  # 750 with all six dice set aside: Bob may take all six
    assert t.state.piggyback is not None and t.state.piggyback.dice == 6
    t.piggyback(*FARKLE_SIX)
    assert t.p(BOB).farkles == 1 and t.p(BOB).malappys == 1
    assert not t.state.finished


def test_no_crappy_malappy_in_classic() -> None:
    t = Table(CLASSIC, Ann={"malappys": 1})
    t.roll(*FARKLE_SIX)
    assert t.p(ANN).malappys == 1 and not t.state.finished
    assert "Crappy" not in t.texts()


# --------------------------------------------------------------------------- piggyback


def on_the_table_after_ann_banks() -> Table:
    t = Table(TABLE, Ann=ON, Bob=ON, Cat=ON)
    t.roll(1, 5, 2, 3, 4, 6)
    t.take(1, 5)
    t.bank()  # 150, four dice left unrolled
    assert t.state.piggyback is not None
    assert (t.state.piggyback.player, t.state.piggyback.dice, t.state.piggyback.points) == (
        ANN,
        4,
        150,
    )
    return t


def test_piggyback_continues_from_the_banked_total() -> None:
    t = on_the_table_after_ann_banks()
    assert t.legal() == {"roll", "piggyback"}
    t.piggyback(1, 2, 3, 4)
    assert t.state.turn.total == 150 and t.state.turn.piggybacked
    t.take(1)
    t.roll(5, 2, 3)  # the turn continues with the dice left
    t.take(5)
    t.bank()
    assert t.p(BOB).score == 300 and t.p(ANN).score == 150


def test_piggyback_farkle_loses_it() -> None:
    t = on_the_table_after_ann_banks()
    t.piggyback(2, 3, 4, 6)
    assert "farkle" in t.kinds() and "losing 150" in t.texts()
    assert t.p(BOB).score == 0 and t.p(ANN).score == 150
    assert t.who == CAT and t.state.piggyback is None
    assert t.legal() == {"roll"}


def test_piggyback_only_on_the_table() -> None:
    t = Table(TABLE, Ann=ON)
    t.roll(1, 5, 2, 3, 4, 6)
    t.take(1, 5)
    t.bank()
    assert t.state.piggyback is not None
    assert t.legal() == {"roll"}  # Bob is not on the table
    before = t.state.model_dump()
    with pytest.raises(IllegalMove, match="on the table"):
        t.piggyback()
    assert t.state.model_dump() == before


def test_piggyback_offer_lapses_when_not_taken() -> None:
    t = on_the_table_after_ann_banks()
    t.roll(*FARKLE_SIX)  # Bob starts afresh and farkles
    assert t.who == CAT and t.state.piggyback is None
    assert t.legal() == {"roll"}
    with pytest.raises(IllegalMove):
        t.piggyback()


def test_piggyback_only_before_the_first_throw() -> None:
    t = on_the_table_after_ann_banks()
    t.roll(1, 2, 3, 4, 6, 6)
    assert "piggyback" not in t.legal()
    with pytest.raises(IllegalMove):
        t.piggyback()


def test_piggyback_after_hot_dice_bank_offers_six() -> None:
    t = Table(TABLE, Ann=ON, Bob=ON)
    t.roll(1, 2, 3, 4, 5, 6)
    t.take(1, 2, 3, 4, 5, 6)
    t.bank()
    assert t.state.piggyback is not None and t.state.piggyback.dice == 6
    t.piggyback(5, 2, 2, 3, 4, 6)
    assert t.state.turn.total == 1500
    t.take(5)
    t.bank()
    assert t.p(BOB).score == 1550


def test_no_piggyback_without_the_rule() -> None:
    for rules in (CLASSIC, CM):
        t = Table(rules, Ann=ON, Bob=ON)
        t.roll(1, 1, 1, 2, 3, 4)
        t.take(1, 1, 1)
        t.bank()
        assert t.state.piggyback is None
        assert t.legal() == {"roll"}
        with pytest.raises(IllegalMove):
            t.piggyback()


# --------------------------------------------------------------------------- end of the game


def bank_for(t: Table, dice: tuple[int, ...], take: tuple[int, ...]) -> None:
    t.roll(*dice)
    t.take(*take)
    t.bank()


BANK_250 = ((1, 1, 5, 2, 3, 4), (1, 1, 5))
BANK_350 = ((1, 1, 1, 2, 3, 4), (1, 1, 1))  # 1000 in classic


def test_finish_round_reaching_the_target_exactly() -> None:
    t = Table(CM, Ann={"score": 7900}, Bob={"score": 7750}, Cat={"score": 0})
    t.roll(*FARKLE_SIX)  # Ann
    bank_for(t, *BANK_250)  # Bob: exactly 8000 counts
    assert "final_round" in t.kinds() and "the rest of the round plays" in t.texts()
    assert t.state.final_turns == [CAT]
    assert t.p(BOB).reached_target == 2
    assert t.who == CAT
    bank_for(t, *BANK_250)  # Cat plays the rest of the round
    assert t.state.finished and t.state.winner == BOB
    assert [p.id for p in standings(t.state)] == [BOB, ANN, CAT]


def test_finish_round_a_later_seat_can_overtake() -> None:
    t = Table(CM, Bob={"score": 7750}, Cat={"score": 7900})
    t.state.current = 1
    bank_for(t, *BANK_250)  # Bob 8000
    t.roll(1, 1, 1, 2, 3, 4)
    t.take(1, 1, 1)
    t.bank()  # Cat 8900
    assert t.state.finished and t.state.winner == CAT
    assert t.p(ANN).score == 0  # Ann did not get another turn


def test_finish_round_trigger_in_the_last_seat_ends_at_once() -> None:
    t = Table(CM, Ann={"score": 7990}, Cat={"score": 7750})
    t.state.current = 2
    bank_for(t, *BANK_250)
    assert "the round is over" in t.texts()
    assert t.state.finished and t.state.winner == CAT
    assert t.kinds()[-1] == "game_over"


def test_classic_target_must_be_passed() -> None:
    t = Table(CLASSIC, players=2, Ann={"score": 9000, "on_table": True})
    bank_for(t, *BANK_350)  # exactly 10000
    assert t.p(ANN).score == 10000
    assert t.state.final_turns is None and t.p(ANN).reached_target is None
    t.roll(*FARKLE_SIX)  # Bob
    t.roll(5, 2, 2, 3, 4, 6)
    t.take(5)
    t.roll(1, 1, 1, 2, 3)
    t.take(1, 1, 1)
    t.bank()  # 11050
    assert t.state.final_turns == [BOB]


def test_one_more_turn_for_everyone_else() -> None:
    t = Table(CLASSIC, Ann={"score": 9500}, Bob={"score": 9500, "on_table": True})
    t.state.current = 1
    bank_for(t, *BANK_350)  # Bob 10500
    assert "everyone else gets one more turn" in t.texts()
    assert t.state.final_turns == [CAT, ANN]
    t.roll(*FARKLE_SIX)  # Cat
    assert not t.state.finished and t.who == ANN
    t.roll(*FARKLE_SIX)  # Ann
    assert t.state.finished and t.state.winner == BOB


@pytest.mark.parametrize("rules", [CLASSIC, TABLE])
def test_one_more_turn_trigger_in_the_last_seat(rules: FarkleRules) -> None:
    target = rules.target
    t = Table(rules, Cat={"score": target - 900, "on_table": True})
    t.state.current = 2
    t.roll(1, 1, 1, 1, 2, 3)  # 2000 in classic, 1000 flat on the table
    t.take(1, 1, 1, 1)
    t.bank()
    assert t.state.final_turns == [ANN, BOB]
    assert t.who == ANN
    t.roll(*FARKLE_SIX)
    assert not t.state.finished
    t.roll(*FARKLE_SIX)
    assert t.state.finished and t.state.winner == CAT


def test_tie_goes_to_who_reached_the_target_first() -> None:
    # Bob reaches 10050 first; Ann, earlier in the seating, ties him in her last turn.
    t = Table(
        CLASSIC,
        Ann={"score": 9050, "on_table": True},
        Bob={"score": 9050, "on_table": True},
    )
    t.state.current = 1
    bank_for(t, *BANK_350)  # Bob 10050
    t.roll(*FARKLE_SIX)  # Cat
    bank_for(t, *BANK_350)  # Ann 10050
    assert t.p(ANN).score == t.p(BOB).score == 10050
    assert t.p(BOB).reached_target < t.p(ANN).reached_target
    assert t.state.finished and t.state.winner == BOB
    assert [p.id for p in standings(t.state)][:2] == [BOB, ANN]


def test_tie_goes_to_who_reached_the_target_first_from_the_first_seat() -> None:
    t = Table(CLASSIC, Ann={"score": 9050, "on_table": True}, Bob={"score": 9050})
    bank_for(t, *BANK_350)  # Ann 10050 first
    bank_for(t, *BANK_350)  # Bob opens with exactly 1000: 10050
    t.roll(*FARKLE_SIX)  # Cat
    assert t.state.finished and t.state.winner == ANN


def test_higher_score_beats_reaching_first() -> None:
    t = Table(CLASSIC, players=2, Ann={"score": 9050, "on_table": True}, Bob={"score": 9500})
    bank_for(t, *BANK_350)  # Ann 10050
    bank_for(t, *BANK_350)  # Bob 10500
    assert t.state.finished and t.state.winner == BOB


# --------------------------------------------------------------------------- timeouts


def test_timeout_before_rolling_ends_the_turn() -> None:
    t = Table(CM)
    t.timeout()
    assert t.who == BOB and t.p(ANN).timeouts == 1 and t.p(ANN).score == 0
    assert "ran out of time; turn over." in t.texts()


def test_timeout_banks_the_best_selection_when_allowed() -> None:
    t = Table(CM)
    t.roll(1, 1, 1, 5, 2, 3)
    t.take(5)  # Ann's own, smaller selection is replaced by the best one
    t.timeout()
    assert "bank" in t.kinds()
    assert t.p(ANN).score == 1050 and t.who == BOB


def test_timeout_below_the_minimum_ends_the_turn_and_loses_the_total() -> None:
    t = Table(CM)
    t.roll(1, 2, 2, 3, 4, 6)
    t.take(1)
    t.roll(5, 2, 3, 4, 6)
    t.timeout()
    assert "bank" not in t.kinds() and "losing 100" in t.texts()
    assert t.p(ANN).score == 0 and t.who == BOB


def test_timeout_while_the_last_die_must_be_rethrown() -> None:
    t = classic_with_one_die()
    t.roll(2)
    t.timeout()
    assert t.p(ANN).score == 0 and t.who == BOB and t.state.turn.total == 0


def three_turns_of_timeouts(t: Table, others: int) -> None:
    for turn in range(3):
        assert t.who == ANN
        assert ANN in order(t.state)
        t.timeout()
        if turn < 2:
            assert t.p(ANN).timeouts == turn + 1
            for _ in range(others):
                bank_for(t, *BANK_250)


def test_three_timeouts_in_a_row_remove_the_player() -> None:
    t = Table(CM)
    three_turns_of_timeouts(t, others=2)
    assert "removed" in t.kinds()
    assert [p.id for p in t.state.departed] == [ANN]
    assert order(t.state) == [BOB, CAT]
    assert t.who == BOB and not t.state.finished


def test_three_timeouts_leaving_one_player_end_the_game_with_no_winner() -> None:
    t = Table(CM, players=2, Ann={"score": 5000})
    three_turns_of_timeouts(t, others=1)
    assert t.state.finished and t.state.winner is None
    assert t.p(ANN) in t.state.departed
    assert str(t.state.ended_by_departure) == "Ann timed out 3 times"
    assert "Ann timed out 3 times, so nobody wins." in t.texts()


def test_an_action_resets_the_timeout_count() -> None:
    t = Table(CM, players=2)
    for _ in range(2):
        t.timeout()
        bank_for(t, *BANK_250)
    assert t.p(ANN).timeouts == 2
    t.roll(1, 2, 2, 3, 4, 6)
    assert t.p(ANN).timeouts == 0
    t.timeout()
    t.timeout()  # Bob
    t.timeout()
    assert t.p(ANN).timeouts == 2 and ANN in order(t.state)


def test_timeout_on_a_finished_game_is_refused() -> None:
    t = Table(CM, Ann={"malappys": 1})
    t.roll(*FARKLE_SIX)
    assert t.state.finished
    with pytest.raises(IllegalMove):
        t.timeout()
    with pytest.raises(IllegalMove):
        t.remove(BOB)


# --------------------------------------------------------------------------- leaving


def test_remove_player_during_own_turn() -> None:
    t = Table(CM)
    t.roll(1, 2, 2, 3, 4, 6)
    t.take(1)
    number = t.state.turn_number
    t.remove(ANN)
    assert [p.id for p in t.state.departed] == [ANN]
    assert t.who == BOB and t.state.turn.total == 0 and t.state.turn.dice == []
    assert t.state.turn_number == number + 1
    assert t.kinds() == ["removed", "turn"]


def test_remove_player_in_the_last_seat_during_own_turn() -> None:
    t = Table(CM)
    t.state.current = 2
    t.remove(CAT)
    assert t.who == ANN


def test_remove_player_before_the_current_seat_keeps_the_turn() -> None:
    t = Table(CM)
    t.state.current = 2
    t.roll(1, 2, 2, 3, 4, 6)
    t.remove(ANN)
    assert t.who == CAT and t.state.turn.dice == [1, 2, 2, 3, 4, 6]


def test_remove_player_after_the_current_seat() -> None:
    t = Table(CM)
    t.roll(1, 2, 2, 3, 4, 6)
    t.remove(CAT)
    assert t.who == ANN and t.state.turn.dice == [1, 2, 2, 3, 4, 6]
    assert order(t.state) == [ANN, BOB]


def test_the_last_player_left_does_not_win() -> None:
    """A leaver does not hand the other player a win they did not earn (issue: "@bob wins
    with 0" after Ann left on the first turn)."""
    t = Table(CM, players=2)
    t.roll(1, 2, 2, 3, 4, 6)
    t.remove(ANN)
    assert t.state.finished and t.state.winner is None
    assert str(t.state.ended_by_departure) == "Ann left"
    assert t.kinds() == ["removed", "game_over"]
    assert str(t.events[-1].text) == "Game over: Ann left, so nobody wins."
    assert legal_actions(t.state, BOB) == set()


def test_a_leaver_ahead_on_points_hands_nobody_the_win() -> None:
    t = Table(CM, players=2, Ann={"score": 100}, Bob={"score": 5000})
    t.remove(BOB)
    assert t.state.finished and t.state.winner is None and str(t.state.ended_by_departure) == "Bob left"


def test_old_states_without_the_departure_field_still_load() -> None:
    t = Table(CM)
    data = t.state.model_dump(mode="json")
    del data["ended_by_departure"]
    assert FarkleState.model_validate(data).ended_by_departure is None


def test_the_log_and_reasons_are_messages_that_round_trip_and_old_text_still_loads() -> None:
    """The state keeps message keys with their arguments, never text: they survive JSON, and
    a game saved with English lines (and an English departure) loads and keeps them."""
    t = Table(CM, players=2)
    t.remove(BOB)
    state = t.state
    assert all(isinstance(line, Msg) for line in state.log)
    assert state.ended_by_departure == M("{name} left", name="Bob")
    again = FarkleState.model_validate_json(state.model_dump_json())
    assert again == state and again.new_log == state.new_log
    data = state.model_dump(mode="json")
    data["log"], data["new_log"] = ["Ann rolled 1 2 3 4 6 6.", "Bob left the game."], None
    data["ended_by_departure"] = "Bob left"
    old = FarkleState.model_validate(data)
    assert old.log == ["Ann rolled 1 2 3 4 6 6.", "Bob left the game."]
    assert old.ended_by_departure == "Bob left"


def test_refusals_are_messages_in_english_for_logs() -> None:
    t = Table(CLASSIC)
    with pytest.raises(IllegalMove) as refused:
        t.bank()
    assert isinstance(refused.value.message, Msg)
    assert str(refused.value) == "Roll first: there is nothing to bank yet."


def test_leaving_during_the_final_round_can_end_it() -> None:
    t = Table(CM, Bob={"score": 7750})
    t.state.current = 1
    bank_for(t, *BANK_250)
    assert t.state.final_turns == [CAT]
    t.remove(CAT)
    assert t.state.finished and t.state.winner == BOB


def test_leaving_after_the_winner_reached_the_target_still_ends_with_their_win() -> None:
    """The last final turn's player leaves: the round is complete, the win was earned."""
    t = Table(CM, players=2, Ann={"score": 7750})
    bank_for(t, *BANK_250)
    assert t.state.final_turns == [BOB]
    t.remove(BOB)
    assert t.state.finished and t.state.winner == ANN
    assert t.state.ended_by_departure is None


def test_leaving_clears_the_leavers_piggyback_offer() -> None:
    t = on_the_table_after_ann_banks()
    t.remove(ANN)
    assert t.state.piggyback is None
    assert t.legal() == {"roll"}


def test_remove_unknown_player_is_refused() -> None:
    t = Table(CM)
    before = t.state.model_dump()
    with pytest.raises(NotInGame):
        t.remove(99)
    assert t.state.model_dump() == before


# --------------------------------------------------------------------------- refused moves


def refused(t: Table, error: type[GameError], kind: str, index: int | None = None, **kw: int):
    before = t.state.model_dump()
    original = t.state
    with pytest.raises(error) as info:
        t.do(kind, index, **kw)
    assert t.state is original
    assert t.state.model_dump() == before
    return info.value


def test_refused_moves_leave_the_state_unchanged() -> None:
    t = Table(CM)
    t.roll(1, 2, 2, 3, 4, 6)
    t.take(1)
    calls = len(t.rng.calls)
    refused(t, NotYourTurn, "roll", user_id=BOB)
    refused(t, NotInGame, "roll", user_id=99)
    refused(t, IllegalMove, "bank")  # 100 is below 250
    refused(t, IllegalMove, "toggle", 6)
    refused(t, IllegalMove, "toggle", -1)
    refused(t, IllegalMove, "toggle", None)
    refused(t, IllegalMove, "piggyback")
    t.do("toggle", 0)  # unselect the 1
    assert t.state.turn.selected == []
    refused(t, InvalidSelection, "roll")  # nothing selected
    refused(t, InvalidSelection, "bank")
    t.do("toggle", 1)  # a 2
    err = refused(t, NotScoringSelection, "roll")
    assert "2 is not part of a scoring set" in str(err)
    assert len(t.rng.calls) == calls, "no refused move threw dice"


def test_stale_toggle_index_after_fewer_dice() -> None:
    t = Table(CM)
    t.roll(1, 2, 2, 3, 4, 5)
    t.take(1, 5)
    t.roll(2, 3, 4, 6)
    refused(t, IllegalMove, "toggle", 5)
    refused(t, IllegalMove, "toggle", 4)


def test_moves_before_rolling_are_refused() -> None:
    t = Table(CM)
    refused(t, IllegalMove, "toggle", 0)
    refused(t, IllegalMove, "bank")
    refused(t, IllegalMove, "piggyback")
    assert t.legal() == {"roll"}


def test_moves_on_a_finished_game_are_refused() -> None:
    t = Table(CM, Ann={"malappys": 1})
    t.roll(*FARKLE_SIX)
    assert t.state.finished
    refused(t, IllegalMove, "roll", user_id=BOB)


def test_successful_move_does_not_mutate_its_input() -> None:
    t = Table(CM)
    before = t.state.model_dump()
    rng = ScriptedRandom([1, 2, 3, 4, 5, 6])
    new, events = apply(t.state, ANN, Action(kind="roll"), rng)
    assert t.state.model_dump() == before
    assert new.turn.dice == [1, 2, 3, 4, 5, 6] and events[0].kind == "roll"
    new2, _ = timeout(new, ScriptedRandom())
    assert new.turn.dice == [1, 2, 3, 4, 5, 6] and new2.current == 1
    new3, _ = remove_player(new2, CAT)
    assert len(new2.players) == 3 and len(new3.players) == 2


def test_legal_actions_only_for_the_current_player() -> None:
    t = Table(CM)
    assert t.legal(ANN) == {"roll"}
    assert t.legal(BOB) == set() and t.legal(99) == set()
    t.roll(1, 2, 2, 3, 4, 6)
    assert t.legal(ANN) == {"toggle"}
    t.take(1)
    assert t.legal(ANN) == {"toggle", "roll"}


# --------------------------------------------------------------------------- serialisation


def test_state_round_trips_through_json() -> None:
    t = on_the_table_after_ann_banks()
    t.piggyback(1, 2, 3, 4)
    t.take(1)
    t.state.final_turns = [CAT, ANN]
    t.remove(ANN)
    state = t.state
    assert state.departed and state.turn.piggybacked and state.turn.selected
    again = FarkleState.model_validate_json(state.model_dump_json())
    assert again == state
    assert again.rules == TABLE and again.rules.flat_kind == (1000, 2000, 3000)
    assert public_view(state) == state.model_dump(mode="json")
    # The round-tripped state plays on exactly like the original.
    rng_a, rng_b = ScriptedRandom([5, 2, 3]), ScriptedRandom([5, 2, 3])
    a, _ = apply(state, BOB, Action(kind="roll"), rng_a)
    b, _ = apply(again, BOB, Action(kind="roll"), rng_b)
    assert a == b


def test_legal_actions_rejects_unknown_users_quietly() -> None:
    t = Table(CM)
    assert legal_actions(t.state, 12345) == set()


def test_hot_dice_cannot_be_banked_when_counted_afresh() -> None:
    """Crappy Malappy: "you get all the dice back. Now you must roll a minimum of 250 pts
    again, in order to keep your points" - the hot-dice selection itself cannot be banked."""
    t = Table(CM)
    t.roll(1, 1, 5, 2, 3, 4)
    t.take(1, 1, 5)
    t.roll(4, 4, 4)
    t.take(4, 4, 4)  # 250 + 400, all dice used: hot dice
    assert "bank" not in t.legal() and "roll" in t.legal()
    before = t.state.model_dump()
    with pytest.raises(IllegalMove, match="Hot dice"):
        t.bank()
    assert t.state.model_dump() == before


def test_hot_dice_can_be_banked_in_classic() -> None:
    t = Table(CLASSIC, Ann=ON)
    t.roll(2, 2, 3, 3, 4, 4)
    t.take(2, 2, 3, 3, 4, 4)  # three pairs, hot dice
    assert "bank" in t.legal()
    t.bank()
    assert t.p(ANN).score == 500


def test_leaving_on_your_turn_ends_the_game_cleanly_and_drops_the_offer() -> None:
    t = Table(TABLE, Ann=ON, Bob=ON)
    t.roll(1, 2, 3, 4, 6, 6)
    t.take(1)
    t.bank()  # Bob is offered 5 dice
    assert t.state.piggyback is not None
    t.remove(BOB)  # on his own turn: the offer was his alone
    assert t.state.piggyback is None and t.state.current_player.id == CAT
    assert not can_piggyback(t.state)
    t.remove(CAT)
    assert t.state.finished and t.state.winner is None and str(t.state.ended_by_departure) == "Cat left"
    assert t.state.current_player.id == ANN


# --------------------------------------------------------------------------- keep the best


def test_keep_best_and_roll_sets_aside_the_best_selection() -> None:
    from games.farkle.engine import best_keep

    t = Table(CM)
    t.roll(1, 1, 1, 5, 2, 3)
    t.take(5)  # whatever was tapped is replaced by the best selection
    assert best_keep(t.state) == (1050, 2, True)
    t.rng.load(5, 6)
    t.state, t.events = apply(t.state, ANN, Action(kind="roll", best=True), t.rng)
    assert t.state.turn.total == 1050 and t.state.turn.set_aside == [1, 1, 1, 5]
    assert t.state.turn.dice == [5, 6]


def test_keep_best_and_bank_in_one_move() -> None:
    t = Table(CM)
    t.roll(1, 1, 1, 5, 2, 3)
    t.state, t.events = apply(t.state, ANN, Action(kind="bank", best=True), t.rng)
    assert t.p(ANN).score > 0 and t.who == BOB


def test_keep_best_bank_refused_below_the_minimum() -> None:
    from games.farkle.engine import best_keep

    t = Table(CM)
    t.roll(1, 2, 2, 3, 4, 6)
    assert best_keep(t.state) == (100, 5, False)
    with pytest.raises(IllegalMove, match="250"):
        apply(t.state, ANN, Action(kind="bank", best=True), t.rng)


def test_keep_best_with_nothing_thrown_is_refused() -> None:
    from games.farkle.engine import best_keep

    t = Table(CM)
    assert best_keep(t.state) is None
    with pytest.raises(IllegalMove, match="no scoring dice"):
        apply(t.state, ANN, Action(kind="roll", best=True), t.rng)


def test_keep_best_hot_dice_offers_six_again() -> None:
    from games.farkle.engine import best_keep

    t = Table(CM)
    t.roll(1, 1, 1, 1, 5, 5)
    value, left, _ = best_keep(t.state)
    assert left == 6 and value > 0


def test_crappy_malappy_has_no_player_limit_up_to_a_full_discord_table() -> None:
    # "There is no limit to the number of players": capped at 25, what one table shows;
    # the other rule sets keep 10, and a house rule may set any number from 2 to 25.
    assert MAX_PLAYERS_LIMIT == 25
    assert PRESETS["crappy-malappy"].max_players == 25
    assert PRESETS["classic"].max_players == PRESETS["on-the-table"].max_players == 10
    assert FarkleRules(max_players=2).max_players == 2
    for bad in (1, 26):
        with pytest.raises(ValueError):
            FarkleRules(max_players=bad)
    # Stored rules from before the field still load, with the old limit.
    old = PRESETS["classic"].model_dump(mode="json")
    del old["max_players"]
    assert FarkleRules.model_validate(old).max_players == 10
    # A 25-player game plays round the whole table (every turn timing out) and ends.
    rng = random.Random(3)
    state, _ = new_game(
        [Seat(id=i, name=f"P{i}") for i in range(1, 26)], PRESETS["crappy-malappy"], rng
    )
    assert len(state.players) == 25
    seen = set()
    for _ in range(25):
        seen.add(state.current_player.id)
        state, _ = timeout(state, rng)
    assert seen == set(range(1, 26))


def test_the_score_history_has_every_turn_and_old_saves_load_without_it() -> None:
    """(player, score) after each turn, banked or farkled: the end-of-game chart's data."""
    t = Table(CM)
    t.roll(1, 1, 5, 2, 3, 4)
    t.take(1, 1, 5)
    t.bank()
    t.roll(*FARKLE_SIX)
    assert t.state.history == [(ANN, 250), (BOB, 0)]
    saved = t.state.model_dump(mode="json")
    del saved["history"]
    assert FarkleState.model_validate(saved).history == []


@pytest.mark.parametrize("rules", list(PRESETS.values()), ids=list(PRESETS))
def test_may_bank_says_what_bank_shortfall_says(rules: FarkleRules) -> None:
    """The table asks whether one may bank without the message: the same answer, for
    every preset, on and off the table, before and after hot dice, and on hot dice."""
    from games.farkle.engine import Turn, bank_shortfall, may_bank

    state, _ = new_game([Seat(id=ANN, name="Ann"), Seat(id=BOB, name="Bob")], rules, random.Random(1))
    asked = set()
    for on_table in (False, True):
        for total in (0, 50, 200, 300, 350, 500, 1000):
            for since_hot in {0, 50, total}:
                state.turn = Turn(total=total, since_hot=since_hot)
                state.current_player.on_table = on_table
                for value in (0, 50, 100, 250, 300, 500, 1500):
                    for hot in (False, True):
                        allowed = may_bank(state, value, hot)
                        assert allowed == (bank_shortfall(state, value, hot) is None)
                        asked.add(allowed)
    assert asked == {True, False}


def test_a_tap_on_a_die_changes_only_the_copy_it_is_made_on() -> None:
    """A tap is made on a copy that shares all but the selection with the state before
    (`_tap_copy`): the state before is untouched, whatever the taps; the state after is
    the one a whole copy gives; a mover with timeouts counted gets them reset as always."""
    from games.copies import working_copy

    rng = random.Random(11)
    state, _ = new_game([Seat(id=ANN, name="Ann"), Seat(id=BOB, name="Bob")], CLASSIC, rng)
    mover = state.current_player.id
    state, _ = apply(state, mover, Action(kind="roll"), rng)
    while not state.turn.dice:  # (a farkle on the first throw: the next player's)
        mover = state.current_player.id
        state, _ = apply(state, mover, Action(kind="roll"), rng)
    for index, select in ((0, None), (1, True), (0, None), (1, False), (2, True)):
        before = state.model_dump_json()
        expected = working_copy(state)
        expected.turn.selected = sorted(
            set(expected.turn.selected) ^ {index}
            if select is None
            else set(expected.turn.selected) | {index}
            if select
            else set(expected.turn.selected) - {index}
        )
        after, events = apply(state, mover, Action(kind="toggle", index=index, select=select), rng)
        assert state.model_dump_json() == before and after == expected and not events
        state = after
    state.current_player.timeouts = 2  # (as a timeout leaves it)
    after, _ = apply(state, mover, Action(kind="toggle", index=3), rng)
    assert after.current_player.timeouts == 0 and state.current_player.timeouts == 2
