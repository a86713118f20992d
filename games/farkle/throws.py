"""What a throw of n dice can give a player who must keep something: every distinct throw, its
probability and the scoring selections worth considering. The policy and its value tables
read the rules only through here and scoring.py, so every house rule is taken into account."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import factorial

from games.farkle.rules import FarkleRules
from games.farkle.scoring import Counts, counts_of, counts_value

#: A keep: (points, dice left to throw, where 0 means hot dice: all six come back).
Keep = tuple[int, int]


@dataclass(frozen=True)
class Throw:
    """One distinct throw (as face counts) with its probability and its useful keeps."""

    counts: Counts
    probability: float
    keeps: tuple[Keep, ...]


def throw_probability(counts: Counts) -> Fraction:
    """Probability of throwing exactly these face counts with sum(counts) dice."""
    n = sum(counts)
    ways = factorial(n)
    for c in counts:
        ways //= factorial(c)
    return Fraction(ways, 6**n)


def selections(
    counts: Counts, rules: FarkleRules, extended: frozenset[int]
) -> Iterator[tuple[Counts, int]]:
    """Every scoring selection (as face counts) of a throw worth more than nothing, with its
    points. A selection worth 0 is never better than a scoring one and is left out."""
    for sub in product(*(range(c + 1) for c in counts)):
        if any(sub):
            value = counts_value(sub, rules, extended)
            if value > 0:
                yield sub, value


@lru_cache(maxsize=8192)
def scoring_keeps(
    counts: Counts, rules: FarkleRules, extended: frozenset[int]
) -> tuple[tuple[Counts, int], ...]:
    """selections(), remembered and in a fixed order: the policy asks for the same throws
    again and again."""
    return tuple(sorted(selections(counts, rules, extended)))


def distinct(keeps: list[Keep]) -> tuple[Keep, ...]:
    """Each (points, dice left) once, fewest dice left first. No keep is dropped for scoring
    less than another leaving as many dice: more points can be worth less. Near the target,
    banking short of it can beat passing it (the opponent's last turn may then need only their
    bank minimum), and the tables follow a turn only so far (a longer one banks), so keeping
    less to throw on can be worth more. Nor for leaving fewer dice: one last die with three
    throws can beat two dice."""
    return tuple(sorted(set(keeps), key=lambda k: (k[1], k[0])))


def keeps_of(
    counts: Counts, rules: FarkleRules, extended: frozenset[int] = frozenset()
) -> tuple[Keep, ...]:
    """The keeps worth considering for a throw: every distinct (points, dice left)."""
    n = sum(counts)
    return distinct([(value, n - sum(sub)) for sub, value in selections(counts, rules, extended)])


@lru_cache(maxsize=64)
def throws(rules: FarkleRules, n: int) -> tuple[Throw, ...]:
    """Every distinct throw of n dice with a scoring keep. With one die the rules may give more
    throws (the engine makes the player throw again), folded in here: a throw of one die
    scores on its first scoring face within the allowed throws."""
    out: list[Throw] = []
    for faces in combinations_with_replacement(range(1, 7), n):
        counts = counts_of(faces)
        keeps = keeps_of(counts, rules)
        if keeps:
            out.append(Throw(counts, float(throw_probability(counts)), keeps))
    if n == 1 and rules.one_die_throws > 1:
        hit = sum(t.probability for t in out)
        scale = sum((1 - hit) ** k for k in range(rules.one_die_throws))
        out = [Throw(t.counts, t.probability * scale, t.keeps) for t in out]
    return tuple(out)


def farkle_chance(rules: FarkleRules, n: int) -> float:
    """Probability that throwing n dice (with the rules' extra one-die throws) scores nothing."""
    return max(0.0, 1.0 - sum(t.probability for t in throws(rules, n)))
