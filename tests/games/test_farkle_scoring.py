"""Farkle scoring: an exhaustive comparison with an independent brute-force reference, plus
hand-picked examples from the rule texts of Crappy Malappy and Farkle."""

from __future__ import annotations

import gc
import itertools
import json
import random
import weakref
from collections import Counter
from functools import cache

import pytest

from games.copies import working_copy
from games.errors import GameError, InvalidSelection
from games.farkle.engine import FarkleState
from games.farkle.rules import PRESETS, FarkleRules
from games.farkle.scoring import (
    NotScoringSelection,
    best_score,
    best_selection,
    score_selection,
    triples_in,
)

FACES = range(1, 7)

# Every multiset of 1 to 6 dice, as a sorted tuple: C(6+6, 6) - 1 = 923 of them.
MULTISETS: list[tuple[int, ...]] = [
    combo for n in range(1, 7) for combo in itertools.combinations_with_replacement(FACES, n)
]


def test_there_are_923_multisets() -> None:
    assert len(MULTISETS) == 923
    assert len(set(MULTISETS)) == 923


# --------------------------------------------------------------------------- the reference
#
# A "set" is an explicit multiset of dice with a value. The score of setting aside exactly a
# selection is the best way to split it completely into sets from the list below (no split:
# not a scoring selection); the best score of a throw is the best over all its sub-multisets.
# Nothing here shares code with games.farkle.scoring.


def reference_sets(rules: FarkleRules, extended: frozenset[int]) -> list[tuple[Counter, int]]:
    sets: list[tuple[tuple[int, ...], int]] = []

    def triple(face: int) -> int:
        return rules.triple_ones if face == 1 else face * 100

    # Singles.
    sets.append(((1,), rules.single_one))
    sets.append(((5,), rules.single_five))
    # A face whose triple this turn extends: each further die of it is worth the triple.
    for face in extended:
        sets.append(((face,), triple(face)))
    # Three to six of a kind in one throw.
    for face in FACES:
        sets.append(((face,) * 3, triple(face)))
        for n in (4, 5, 6):
            if rules.kind_scoring == "singles":
                continue  # only the triple is a set; extra 1s/5s are singles above
            if rules.kind_scoring == "double":
                value = triple(face) * 2 ** (n - 3)
            elif rules.kind_scoring == "add":
                value = triple(face) * (n - 2)
            else:
                value = rules.flat_kind[n - 4]
            sets.append(((face,) * n, value))
    # Sets that take a whole throw of six dice.
    if rules.straight is not None:
        sets.append(((1, 2, 3, 4, 5, 6), rules.straight))
    if rules.three_pairs is not None:
        for a, b, c in itertools.combinations(FACES, 3):
            sets.append(((a, a, b, b, c, c), rules.three_pairs))
        if rules.four_and_pair_is_three_pairs:
            for a, b in itertools.permutations(FACES, 2):
                sets.append(((a, a, a, a, b, b), rules.three_pairs))
    if rules.two_triplets is not None:
        for a, b in itertools.combinations(FACES, 2):
            sets.append(((a, a, a, b, b, b), rules.two_triplets))
    return [(Counter(dice), value) for dice, value in sets]


class Reference:
    def __init__(self, rules: FarkleRules, extended: frozenset[int] = frozenset()) -> None:
        self.sets = reference_sets(rules, extended)

    @cache  # noqa: B019 - a handful of instances live for the whole test run on purpose
    def split(self, dice: tuple[int, ...]) -> int | None:
        """Best value of splitting all of `dice` (sorted) into sets; None when impossible."""
        if not dice:
            return 0
        have = Counter(dice)
        first = dice[0]  # the lowest die must belong to some set
        best: int | None = None
        for needed, value in self.sets:
            if needed[first] and all(have[f] >= n for f, n in needed.items()):
                rest = self.split(tuple(sorted((have - needed).elements())))
                if rest is not None and (best is None or value + rest > best):
                    best = value + rest
        return best

    def best(self, dice: tuple[int, ...]) -> int:
        """Most that any sub-multiset of the throw can score (0: farkle)."""
        options = {
            tuple(sorted(sub))
            for k in range(1, len(dice) + 1)
            for sub in itertools.combinations(dice, k)
        }
        return max((v for sub in options if (v := self.split(sub)) is not None), default=0)


CUSTOM_RULES: dict[str, FarkleRules] = {
    "singles": FarkleRules(kind_scoring="singles"),
    "singles+two-triplets": FarkleRules(kind_scoring="singles", two_triplets=2500),
    "add+two-triplets-low": FarkleRules(kind_scoring="add", two_triplets=700),
    "no-pairs-no-straight": FarkleRules(three_pairs=None, straight=None),
    "flat+four-and-pair": FarkleRules(
        kind_scoring="flat",
        flat_kind=(900, 1800, 4000),
        four_and_pair_is_three_pairs=True,
        triple_ones=300,
        single_five=75,
    ),
}
ALL_RULES: dict[str, FarkleRules] = {**PRESETS, **CUSTOM_RULES}


def test_presets_are_exactly_the_three_named() -> None:
    assert set(PRESETS) == {"crappy-malappy", "classic", "on-the-table"}


@pytest.mark.parametrize("name", list(ALL_RULES))
def test_exhaustive_against_reference(name: str) -> None:
    rules = ALL_RULES[name]
    ref = Reference(rules)
    scoring = 0
    for dice in MULTISETS:
        expected = ref.split(dice)
        if expected is None:
            with pytest.raises(NotScoringSelection):
                score_selection(dice, rules)
        else:
            scoring += 1
            assert score_selection(dice, rules) == expected, dice
        assert best_score(dice, rules) == ref.best(dice), dice
    # Sanity check of the reference itself: plenty of both kinds exist.
    assert 50 < scoring < 900


@pytest.mark.parametrize(
    "extended", [frozenset({4}), frozenset({1}), frozenset({2, 6}), frozenset({5})]
)
def test_exhaustive_extended_triples_against_reference(extended: frozenset[int]) -> None:
    rules = PRESETS["crappy-malappy"]
    ref = Reference(rules, extended)
    for dice in MULTISETS:
        expected = ref.split(dice)
        if expected is None:
            with pytest.raises(NotScoringSelection):
                score_selection(dice, rules, extended)
        else:
            assert score_selection(dice, rules, extended) == expected, dice
        assert best_score(dice, rules, extended) == ref.best(dice), dice


@pytest.mark.parametrize("name", list(ALL_RULES))
def test_best_selection_is_a_best_scoring_subset(name: str) -> None:
    rules = ALL_RULES[name]
    rng = random.Random(name)
    for dice in MULTISETS:
        shuffled = list(dice)
        rng.shuffle(shuffled)
        picked = best_selection(shuffled, rules)
        assert len(set(picked)) == len(picked)
        assert all(0 <= i < len(shuffled) for i in picked)
        best = best_score(shuffled, rules)
        if best == 0:
            assert picked == []
        else:
            assert score_selection([shuffled[i] for i in picked], rules) == best


def test_order_of_dice_does_not_matter() -> None:
    rules = PRESETS["crappy-malappy"]
    rng = random.Random(7)
    for dice in MULTISETS[::7]:
        shuffled = list(dice)
        rng.shuffle(shuffled)
        assert best_score(shuffled, rules) == best_score(dice, rules)
        try:
            expected = score_selection(dice, rules)
        except NotScoringSelection:
            with pytest.raises(NotScoringSelection):
                score_selection(shuffled, rules)
        else:
            assert score_selection(shuffled, rules) == expected


# --------------------------------------------------------------------------- the reference's own checks


def test_reference_knows_the_rule_text_examples() -> None:
    ref = Reference(PRESETS["crappy-malappy"])
    assert ref.split((1, 2, 3, 4, 5, 6)) == 2500
    assert ref.split((2, 2, 4, 4, 5, 5)) == 750
    assert ref.split((2, 3, 4)) is None
    assert ref.best((2, 2, 3, 4, 4, 6)) == 0


# --------------------------------------------------------------------------- rule-text examples

CM = PRESETS["crappy-malappy"]
CLASSIC = PRESETS["classic"]
TABLE = PRESETS["on-the-table"]


@pytest.mark.parametrize(
    ("rules", "dice", "score"),
    [
        # crappy-malappy.txt
        (CM, [1, 2, 3, 4, 5, 6], 2500),
        (CM, [6, 5, 4, 3, 2, 1], 2500),
        (CM, [2, 2, 4, 4, 5, 5], 750),
        (CM, [4, 4, 4], 400),
        (CM, [3, 3, 3], 300),
        (CM, [1, 1, 1], 1000),
        (CM, [1], 100),
        (CM, [5], 50),
        (CM, [5, 5], 100),
        (CM, [1, 5, 5], 200),
        (CM, [4, 4, 4, 4], 800),  # add: triple x (4 - 2)
        (CM, [4, 4, 4, 4, 4], 1200),
        (CM, [4, 4, 4, 4, 4, 4], 1600),
        (CM, [1, 1, 1, 1], 2000),
        (CM, [2, 2, 2, 3, 3, 3], 500),  # two triplets = sum of the triples
        # farkle.txt, variation 1 (classic)
        (CLASSIC, [1, 1, 1], 1000),
        (CLASSIC, [6, 6, 6], 600),
        (CLASSIC, [3, 3, 3, 3], 600),  # four of a kind = twice three
        (CLASSIC, [3, 3, 3, 3, 3], 1200),
        (CLASSIC, [3, 3, 3, 3, 3, 3], 2400),
        (CLASSIC, [2, 2, 3, 3, 6, 6], 500),
        (CLASSIC, [1, 2, 3, 4, 5, 6], 1500),
        (CLASSIC, [4, 4, 4, 6, 6, 6], 1000),
        # farkle.txt, variation 2 (on the table)
        (TABLE, [1, 1, 1], 300),
        (TABLE, [2, 2, 2, 2], 1000),
        (TABLE, [2, 2, 2, 2, 2], 2000),
        (TABLE, [2, 2, 2, 2, 2, 2], 3000),
        (TABLE, [3, 3, 4, 4, 6, 6], 1500),
        (TABLE, [3, 3, 3, 3, 6, 6], 1500),  # four of a kind and a pair is a doodad
        (TABLE, [1, 2, 3, 4, 5, 6], 1500),
        (TABLE, [2, 2, 2, 3, 3, 3], 2500),  # two sets of triples
    ],
)
def test_rule_text_examples(rules: FarkleRules, dice: list[int], score: int) -> None:
    assert score_selection(dice, rules) == score
    assert best_score(dice, rules) >= score


def test_three_of_a_kind_with_junk_scores_only_the_triple() -> None:
    # "Three of a kind (e.g. 4,4,4,2,3,6) you get the numeral x 100 pts."
    assert best_score([4, 4, 4, 2, 3, 6], CM) == 400
    assert sorted(best_selection([4, 4, 4, 2, 3, 6], CM)) == [0, 1, 2]
    with pytest.raises(NotScoringSelection):
        score_selection([4, 4, 4, 2, 3, 6], CM)


def test_rule_text_rolls() -> None:
    # "(1,2,2,3,4,4) you have scored 100 pts"; "(2,3,4,5,5)" -> both 5s; "(2,4,4)" is a crappy.
    assert best_score([1, 2, 2, 3, 4, 4], CM) == 100
    assert best_score([2, 3, 4, 5, 5], CM) == 100
    assert score_selection([5], CM) == 50
    assert best_score([2, 4, 4], CM) == 0
    assert best_score([2, 2, 3, 4, 4, 6], CM) == 0  # a crappy malappy throw


def test_sets_do_not_combine_across_throws() -> None:
    # farkle.txt: a triple of 5s then a single 5 is 500 + 50 = 550, not 1000.
    for rules in (CLASSIC, TABLE):
        assert score_selection([5, 5, 5], rules) + score_selection([5], rules) == 550
        assert score_selection([5, 5, 5, 5], rules) != 550  # the four only counts in one throw


def test_extended_triple_scores_each_later_die() -> None:
    # crappy-malappy.txt (Andy): 4,4,4 then another 4 = an additional 400; a later 1 after
    # 1,1,1 is worth 1000.
    assert score_selection([4], CM, extended=[4]) == 400
    assert score_selection([4, 4], CM, extended=[4]) == 800
    assert score_selection([1], CM, extended=[1]) == 1000
    assert score_selection([5], CM, extended=[5]) == 500
    assert best_score([4, 2, 3], CM, extended=[4]) == 400
    assert best_score([4, 2, 3], CM) == 0
    with pytest.raises(NotScoringSelection):
        score_selection([4], CM)


def test_six_dice_sets_need_six_dice() -> None:
    for rules in ALL_RULES.values():
        # Five dice of a straight are only their 1 and 5; two or two-and-a-half pairs are nothing.
        assert best_score([1, 2, 3, 4, 5], rules) == rules.single_one + rules.single_five
        assert best_score([2, 3, 4, 5, 6], rules) == rules.single_five
        assert best_score([2, 2, 3, 3, 4], rules) == 0
        for dice in ([2, 2, 3, 3], [2, 2, 3, 3, 4], [2, 3, 4, 6], [2, 2, 2, 3, 3]):
            with pytest.raises(NotScoringSelection):
                score_selection(dice, rules)


def test_three_pairs_need_three_different_faces() -> None:
    # Four of a kind and a pair is not three pairs unless the rule says so.
    with pytest.raises(NotScoringSelection):
        score_selection([3, 3, 3, 3, 6, 6], CLASSIC)  # the 6s do not score
    assert score_selection([3, 3, 3, 3, 6, 6], TABLE) == 1500
    # Six of a kind is never three pairs.
    assert score_selection([2] * 6, CLASSIC) == 1600
    with pytest.raises(NotScoringSelection):
        score_selection([3, 3, 4, 4, 6, 6], FarkleRules(three_pairs=None))
    with pytest.raises(NotScoringSelection):
        score_selection([1, 2, 3, 4, 5, 6], FarkleRules(straight=None))
    assert best_score([1, 2, 3, 4, 5, 6], FarkleRules(straight=None)) == 150


def test_singles_kind_scoring() -> None:
    singles = FarkleRules(kind_scoring="singles")
    assert score_selection([1, 1, 1, 1], singles) == 1100  # extra 1 is a single
    assert score_selection([5, 5, 5, 5, 5], singles) == 600
    assert best_score([2, 2, 2, 2], singles) == 200
    with pytest.raises(NotScoringSelection):
        score_selection([2, 2, 2, 2], singles)  # the fourth 2 does not score


def test_two_triplets_value() -> None:
    assert score_selection([2, 2, 2, 3, 3, 3], FarkleRules(two_triplets=2500)) == 2500
    assert score_selection([2, 2, 2, 3, 3, 3], FarkleRules(two_triplets=None)) == 500


def test_triples_in() -> None:
    assert triples_in([4, 4, 4, 1], CM) == {4}
    assert triples_in([4, 4, 4, 4, 1, 1], CM) == {4}
    assert triples_in([1, 1, 5, 5], CM) == set()
    assert triples_in([2, 2, 2, 3, 3, 3], CM) == {2, 3}


# --------------------------------------------------------------------------- errors


def test_invalid_selection_error_message_names_the_loose_dice() -> None:
    with pytest.raises(NotScoringSelection) as info:
        score_selection([1, 2, 5], CM)
    err = info.value
    assert isinstance(err, ValueError)
    assert isinstance(err, InvalidSelection)
    assert isinstance(err, GameError)
    assert str(err) == "Not a scoring selection: 2 is not part of a scoring set."

    with pytest.raises(NotScoringSelection, match=r"3, 4, 4 are not part of a scoring set"):
        score_selection([1, 3, 4, 4], CM)


def test_empty_selection_and_bad_faces_are_refused() -> None:
    with pytest.raises(NotScoringSelection, match="at least one scoring die"):
        score_selection([], CM)
    with pytest.raises(InvalidSelection, match="not a die face"):
        score_selection([1, 7], CM)
    with pytest.raises(InvalidSelection, match="not a die face"):
        best_score([0], CM)
    assert best_score([], CM) == 0


def test_best_selection_keeps_more_dice_among_equal_scores() -> None:
    # With 5s worth nothing, setting a 5 aside adds no points: the best selection leaves it.
    rules = FarkleRules(single_five=0)
    assert best_score([5, 1, 5], rules) == 100
    assert best_selection([5, 1, 5], rules) == [1]


def test_a_rule_sets_hash_is_kept_and_never_goes_stale() -> None:
    """The scoring caches key on rule sets: equal ones hash alike, a changed copy hashes as
    what it now is, and the kept hash shows in no dump and no comparison."""
    classic = PRESETS["classic"]
    same = FarkleRules.model_validate(classic.model_dump())
    assert hash(classic) == hash(same) and classic == same
    changed = classic.model_copy(update={"target": classic.target + 500})
    fresh = FarkleRules.model_validate({**classic.model_dump(), "target": classic.target + 500})
    assert changed == fresh and hash(changed) == hash(fresh) != hash(classic)
    assert changed != classic
    assert classic.model_dump() == same.model_dump()
    assert classic.model_dump_json() == same.model_dump_json()


def test_the_scoring_caches_tell_rule_sets_apart_by_their_values() -> None:
    """The caches key a rule set by its `scoring_key`: equal rule sets share it (and what
    one computed serves the other), a changed copy gets its own and scores by its own rules,
    and the key shows in no dump and no comparison."""
    classic = PRESETS["classic"]
    same = FarkleRules.model_validate(classic.model_dump())
    assert same is not classic and same.scoring_key == classic.scoring_key
    assert score_selection([5], classic) == 50 and best_score([5, 5, 2], classic) == 100
    richer = classic.model_copy(update={"single_five": 80})
    assert richer.scoring_key != classic.scoring_key
    assert score_selection([5], richer) == 80 and best_score([5, 5, 2], richer) == 160
    assert score_selection([5], same) == 50 and best_score([5, 5, 2], same) == 100
    assert "scoring_key" not in classic.model_dump() and classic == same
    assert classic.model_dump_json() == same.model_dump_json()


def test_the_scoring_caches_start_afresh_past_their_bound_of_rule_sets() -> None:
    """More distinct rule sets than the caches keep (a process hosting many servers' house
    rules): they start afresh, and every score is still its own rules'."""
    classic = PRESETS["classic"]
    many = [classic.model_copy(update={"single_five": v}) for v in range(1, 1100)]
    for rules in many:
        assert score_selection([5, 1], rules) == rules.single_five + 100
    assert score_selection([5, 1], many[0]) == 101 and best_score([5], classic) == 50


def test_games_of_one_rule_set_share_one_rules_object(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games loaded each from its own JSON hold one rules object, so the scoring caches find
    their key by identity and never run pydantic's equality (5 us) on a lookup; another rule
    set is another object, and one nothing uses any more is let go."""
    dump = {
        "rules": PRESETS["classic"].model_dump(mode="json"),
        "players": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Ben"}],
    }
    a = FarkleState.model_validate(dump)
    b = FarkleState.model_validate_json(json.dumps(dump))
    assert a.rules is b.rules is PRESETS["classic"] and working_copy(a).rules is a.rules
    other = FarkleState.model_validate({**dump, "rules": {**dump["rules"], "target": 777}})
    assert other.rules is not a.rules and other.rules.target == 777 and other.rules != a.rules
    gone = weakref.ref(other.rules)
    del other
    gc.collect()
    assert gone() is None
    compared: list[object] = []
    monkeypatch.setattr(FarkleRules, "__eq__", lambda x, y: compared.append(y) or x is y)
    for rules in (a.rules, b.rules, a.rules):
        assert score_selection([1, 5, 5], rules) == 200
        assert best_score([2, 2, 2, 1], rules) == 300
    assert compared == []
