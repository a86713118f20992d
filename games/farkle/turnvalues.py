"""The rules of one turn in table form, and the two single-turn values every policy needs:
the most points a turn can expect (the fallback policy, far from the end) and the chance of
scoring at least some amount (a final turn: beat the leader or lose).

Points are counted in the rule set's scoring unit (50 in every preset). The turn state after a
keep is (turn total, dice to throw, points since hot dice up to the bank minimum): the last part
only matters when the bank minimum is counted afresh after hot dice."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, reduce
from math import ceil, gcd

import numpy as np

from games.farkle.rules import FarkleRules
from games.farkle.throws import farkle_chance, throws

#: The longest turn the tables follow, in points: a turn total beyond it is banked. Turns that
#: long are rare enough (about 1 in 1000) that the cut changes no decision that matters.
TURN_CAP_POINTS = 8000
#: Most cells along the turn-total axis; a rule set with a finer scoring unit is coarsened.
MAX_TURN_CELLS = 200


def turn_cap(rules: FarkleRules) -> int:
    """The longest turn followed, in points: a few thousand past the target at most."""
    return min(TURN_CAP_POINTS, rules.target + 3000)


def scoring_unit(rules: FarkleRules) -> int:
    """The largest unit every score, threshold and the target are a multiple of (coarsened when
    that would make the turn tables too long)."""
    values = [
        rules.single_one,
        rules.single_five,
        *(rules.triple(f) for f in range(1, 7)),
        rules.three_pairs or 0,
        rules.straight or 0,
        rules.two_triplets or 0,
        *(rules.flat_kind if rules.kind_scoring == "flat" else ()),
        rules.target,
        rules.min_bank,
        rules.opening,
        rules.farkle_penalty if rules.farkle_penalty_every else 0,
    ]
    unit = reduce(gcd, [v for v in values if v], 0) or 50
    cap = turn_cap(rules)
    return unit * max(1, ceil(cap / (unit * MAX_TURN_CELLS)))


@dataclass(frozen=True)
class Keeps:
    """Throws of n dice that offer the same number of keeps, as arrays ready for NumPy:
    probability (G,), and per keep (G, O) its points, dice left after it (hot dice: 6) and
    whether it was hot dice."""

    probs: np.ndarray
    points: np.ndarray
    dice: np.ndarray
    hot: np.ndarray


@dataclass(frozen=True)
class TurnModel:
    """One rule set's turn, in units: for each number of dice, the distinct throws grouped by
    the keeps they offer (throws offering the same keeps are merged)."""

    unit: int
    goal: int  # the lowest score (in units) that reaches the target
    cells: int  # turn totals followed: 0 .. cells - 1
    h_top: int  # bank minimum after hot dice, in units (0: the rule is off)
    need_on: int  # turn total needed to bank while on the table
    need_off: int  # ... while not yet on the table
    keeps: tuple[tuple[Keeps, ...], ...]  # index n - 1
    farkle: tuple[float, ...]  # per n: chance of a farkle
    most: int  # the most points one keep scores

    @property
    def states(self) -> int:
        """Turn states per total: dice to throw (1-6) x points since hot dice (0..h_top)."""
        return 6 * (self.h_top + 1)

    def state(self, n: int, h: int) -> int:
        return (n - 1) * (self.h_top + 1) + min(h, self.h_top)

    def units(self, points: int) -> int:
        """Points as a count of units (a positive score is at least one unit)."""
        u = round(points / self.unit)
        return max(u, 1) if points > 0 else u

    def successors(self, k: Keeps, h: int) -> np.ndarray:
        """Turn state after each keep, from a state with h since hot dice."""
        after_h = np.where(k.hot, 0, np.minimum(self.h_top, h + k.points))
        return (k.dice - 1) * (self.h_top + 1) + after_h


@lru_cache(maxsize=32)
def turn_model(rules: FarkleRules) -> TurnModel:
    unit = scoring_unit(rules)

    def up(points: int) -> int:
        return -(-points // unit)

    goal = up(rules.target) if rules.target_inclusive else rules.target // unit + 1
    h_top = up(rules.min_bank) if rules.min_bank_after_hot_dice and rules.min_bank else 0
    per_n = []
    for n in range(1, 7):
        groups: dict[tuple[tuple[int, int], ...], float] = {}
        for t in throws(rules, n):
            key = tuple(sorted({(max(1, round(p / unit)), left) for p, left in t.keeps}))
            groups[key] = groups.get(key, 0.0) + t.probability
        buckets = []
        for width in sorted({len(k) for k in groups}):
            keys = [k for k in groups if len(k) == width]
            buckets.append(
                Keeps(
                    probs=np.array([groups[k] for k in keys]),
                    points=np.array([[p for p, _ in k] for k in keys], dtype=np.int64),
                    dice=np.array([[left or 6 for _, left in k] for k in keys], dtype=np.int64),
                    hot=np.array([[left == 0 for _, left in k] for k in keys]),
                )
            )
        per_n.append(tuple(buckets))
    return TurnModel(
        unit=unit,
        goal=goal,
        cells=min(MAX_TURN_CELLS, up(turn_cap(rules))) + 1,
        h_top=h_top,
        need_on=up(rules.min_bank),
        need_off=up(rules.bank_minimum(False)),
        keeps=tuple(per_n),
        farkle=tuple(farkle_chance(rules, n) for n in range(1, 7)),
        most=max(int(k.points.max()) for ks in per_n for k in ks),
    )


@lru_cache(maxsize=32)
def reach_table(rules: FarkleRules, needed_cells: int) -> np.ndarray:
    """Q[r, s]: the chance of banking at least r more units from turn state s (after a keep,
    about to choose), playing only to get there: a final turn against the leader."""
    m = turn_model(rules)
    q = np.zeros((needed_cells, m.states))
    succ = _successors(m)

    stacked = [[np.stack(per_h) for per_h in ks] for ks in succ]  # [n][bucket]: (h, G, O)

    def roll(r: int) -> np.ndarray:
        out = np.zeros(m.states)
        for n in range(1, 7):
            first = m.state(n, 0)
            for b, k in enumerate(m.keeps[n - 1]):
                rows = np.maximum(r - k.points, 0)
                best = q[rows, stacked[n - 1][b]].max(axis=2)  # (h, G)
                out[first : first + m.h_top + 1] += best @ k.probs
        return out

    done = np.zeros(m.states)
    for n in range(1, 7):
        done[m.state(n, m.h_top)] = 1.0
    q[0] = done
    if m.h_top:  # reached but not allowed to bank yet: keep throwing (hot dice may loop)
        for _ in range(60):
            q[0] = np.maximum(done, roll(0))
    for r in range(1, needed_cells):
        q[r] = roll(r)
    return q


def final_turn_chance(rules: FarkleRules, needed_points: int, on_table: bool) -> float:
    """Chance that a whole turn (six dice, nothing yet) banks at least needed_points."""
    m = turn_model(rules)
    need = max(m.units(needed_points), m.need_on if on_table else m.need_off, 1)
    q = reach_table(rules, m.cells + 1)
    if need >= q.shape[0]:
        return 0.0
    return float(q[need, m.state(6, 0)])


@lru_cache(maxsize=64)
def expected_table(rules: FarkleRules, on_table: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(W, R): W[t, s] the most a turn can expect to bank from total t in turn state s after a
    keep (banking when allowed or throwing on), R[t, s] the expectation of throwing on. A farkle
    banks nothing and costs the average farkle penalty."""
    m = turn_model(rules)
    top = m.cells + m.most + 1
    w = np.zeros((top, m.states))
    r = np.zeros((top, m.states))
    penalty = (
        m.units(rules.farkle_penalty) / rules.farkle_penalty_every
        if rules.farkle_penalty_every
        else 0.0
    )
    succ = _successors(m)
    total = np.arange(top, dtype=float)
    for t in range(top - 1, -1, -1):
        for n in range(1, 7):
            for h in range(m.h_top + 1):
                s = m.state(n, h)
                if t >= m.cells:
                    r[t, s] = t
                    continue
                r[t, s] = -m.farkle[n - 1] * penalty
                for b, k in enumerate(m.keeps[n - 1]):
                    rows = np.minimum(t + k.points, top - 1)
                    r[t, s] += k.probs @ w[rows, succ[n - 1][b][h]].max(axis=1)
        bankable = t >= (m.need_on if on_table else m.need_off)
        for n in range(1, 7):
            for h in range(m.h_top + 1):
                s = m.state(n, h)
                can = bankable and h >= m.h_top
                w[t, s] = max(r[t, s], total[t]) if can else r[t, s]
    return w, r


def _successors(m: TurnModel) -> list[list[list[np.ndarray]]]:
    """succ[n - 1][bucket][h]: the turn state after each keep."""
    return [[[m.successors(k, h) for h in range(m.h_top + 1)] for k in ks] for ks in m.keeps]
