"""Scoring one throw of Farkle dice. Results are cached by the counts of each face, the rules
and the faces whose triple has been extended, so the engine and the renderer can ask freely.
The caches key the rules by their `scoring_key`, a plain int: a lookup then hashes only
built-in values, where keying on the rule set called its `__hash__` (a Python method in
games/farkle/rules.py) for every lookup."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from itertools import product

from games.errors import InvalidSelection
from games.farkle.rules import FarkleRules
from games.text import M, Mn

FACES = (1, 2, 3, 4, 5, 6)
_IMPOSSIBLE = -1
#: The rule set behind each `scoring_key` the caches were asked about (one entry per
#: distinct rule set), for the cached functions to compute a missing entry; at most
#: `_MOST_RULES`, after which it and the caches start afresh.
_RULES: dict[int, FarkleRules] = {}
_MOST_RULES = 1024


def _key(rules: FarkleRules) -> int:
    """`rules.scoring_key`, its rules kept for the cached functions below."""
    key = rules.scoring_key
    if key not in _RULES:
        if len(_RULES) >= _MOST_RULES:
            for cached in (_best, _selection, _face_best):
                cached.cache_clear()
            _RULES.clear()
        _RULES[key] = rules
    return key


class NotScoringSelection(InvalidSelection):
    """Some selected die is not part of any scoring set."""


#: How many dice show each face, 1 to 6 (six counts). Typed as any length: the selections
#: are enumerated with itertools.product, whose tuples the checker cannot count.
Counts = tuple[int, ...]


def counts_of(dice: Iterable[int]) -> Counts:
    """How many of each face, 1 to 6; rejects anything that is not a die face."""
    counts = [0] * 6
    for d in dice:
        if d not in FACES:
            raise InvalidSelection(M("{face} is not a die face.", face=repr(d)))
        counts[d - 1] += 1
    return tuple(counts)


def _kind_value(face: int, n: int, rules: FarkleRules) -> int | None:
    """Value of n (3..6) dice of one face as one set, or None when that is not a set."""
    triple = rules.triple(face)
    if n == 3:
        return triple
    if rules.kind_scoring == "singles":
        return None
    if rules.kind_scoring == "double":
        doubling: int = 2 ** (n - 3)  # n >= 3: a whole number
        return triple * doubling
    if rules.kind_scoring == "add":
        return triple * (n - 2)
    return rules.flat_kind[n - 4]


@lru_cache(maxsize=4096)
def _face_best(face: int, n: int, key: int, extended: bool) -> int:
    """Most that n dice of one face score when every one must belong to a set (-1: impossible)."""
    if n == 0:
        return 0
    rules = _RULES[key]
    best = _IMPOSSIBLE
    single = {1: rules.single_one, 5: rules.single_five}.get(face)
    if extended:
        single = max(single or 0, rules.triple(face))
    options: list[tuple[int, int]] = []
    if single is not None:
        options.append((1, single))
    for size in range(3, n + 1):
        value = _kind_value(face, size, rules)
        if value is not None:
            options.append((size, value))
    for size, value in options:
        rest = _face_best(face, n - size, key, extended)
        if rest != _IMPOSSIBLE:
            best = max(best, value + rest)
    return best


def _whole_throw(counts: Counts, rules: FarkleRules) -> int:
    """Sets that need all six dice of a six-dice throw (0 when none applies)."""
    if sum(counts) != 6:
        return 0
    shape = sorted((c for c in counts if c), reverse=True)
    best = 0
    if rules.straight is not None and shape == [1] * 6:
        best = max(best, rules.straight)
    if rules.three_pairs is not None and (
        shape == [2, 2, 2] or (rules.four_and_pair_is_three_pairs and shape == [4, 2])
    ):
        best = max(best, rules.three_pairs)
    if rules.two_triplets is not None and shape == [3, 3]:
        best = max(best, rules.two_triplets)
    return best


@lru_cache(maxsize=65536)
def _selection(counts: Counts, key: int, extended: frozenset[int]) -> int:
    """Score of setting aside exactly these dice, or -1 when some die scores nothing."""
    total = 0
    for face, n in zip(FACES, counts, strict=True):
        part = _face_best(face, n, key, face in extended)
        if part == _IMPOSSIBLE:
            total = _IMPOSSIBLE
            break
        total += part
    return max(total, _whole_throw(counts, _RULES[key]) or _IMPOSSIBLE)


def counts_value(counts: Counts, rules: FarkleRules, extended: frozenset[int]) -> int:
    """Points for setting aside exactly these face counts, or -1 when some die scores
    nothing (score_selection without the checks and the explanation)."""
    return _selection(counts, _key(rules), extended)


def score_selection(dice: Iterable[int], rules: FarkleRules, extended: Iterable[int] = ()) -> int:
    """Points for setting aside exactly `dice` from one throw.

    `extended` holds the faces whose triple this turn makes every further die of that face
    worth the triple again (the Crappy Malappy rule). Raises NotScoringSelection naming the
    dice that are not part of a set.
    """
    dice = list(dice)
    counts = counts_of(dice)
    if not dice:
        raise NotScoringSelection(M("Select at least one scoring die."))
    ext = frozenset(extended)
    key = _key(rules)
    value = _selection(counts, key, ext)
    if value == _IMPOSSIBLE:
        loose = [
            str(face)
            for face, n in zip(FACES, counts, strict=True)
            if _face_best(face, n, key, face in ext) == _IMPOSSIBLE
            for _ in range(n)
        ]
        raise NotScoringSelection(
            Mn(
                "Not a scoring selection: {dice} is not part of a scoring set.",
                "Not a scoring selection: {dice} are not part of a scoring set.",
                len(loose),
                dice=", ".join(loose),
            )
        )
    return value


@lru_cache(maxsize=65536)
def _best(counts: Counts, key: int, extended: frozenset[int]) -> tuple[int, Counts]:
    best: tuple[int, Counts] = (0, (0, 0, 0, 0, 0, 0))
    for sub in product(*(range(n + 1) for n in counts)):
        value = _selection(sub, key, extended)
        # Prefer the higher score; among equals, keep more dice back to roll.
        if value > best[0] or (value == best[0] > 0 and sum(sub) < sum(best[1])):
            best = (value, sub)
    return best


def best_score(dice: Iterable[int], rules: FarkleRules, extended: Iterable[int] = ()) -> int:
    """The most one throw can set aside; 0 means the throw is a farkle."""
    return _best(counts_of(dice), _key(rules), frozenset(extended))[0]


def best_pick(
    dice: Iterable[int], rules: FarkleRules, extended: Iterable[int] = ()
) -> tuple[int, list[int]]:
    """A highest-scoring selection: its points, and its indexes into `dice` (fewest dice
    among equals; none for a farkle)."""
    dice = list(dice)
    value, sub = _best(counts_of(dice), _key(rules), frozenset(extended))
    want = list(sub)
    picked: list[int] = []
    for i, d in enumerate(dice):
        if want[d - 1]:
            want[d - 1] -= 1
            picked.append(i)
    return value, picked


def best_selection(
    dice: Iterable[int], rules: FarkleRules, extended: Iterable[int] = ()
) -> list[int]:
    """Indexes into `dice` of a highest-scoring selection (fewest dice among equals)."""
    return best_pick(dice, rules, extended)[1]


def triples_in(dice: Iterable[int], rules: FarkleRules) -> set[int]:
    """Faces the selection sets aside three or more of: the triples a turn may extend."""
    counts = counts_of(dice)
    return {face for face, n in zip(FACES, counts, strict=True) if n >= 3}
