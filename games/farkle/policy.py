"""The Farkle bot player: what it keeps, whether it throws on or banks, whether it piggybacks.

It plays to win, not to score: with two players (and against the strongest opponent with
more) it reads the value-iteration table of optimal.py for the rules in force, once that table
is built (`warm` starts it in the background; `choose` never waits for it). Until then, and
for rules no table covers, it maximises the points a turn can expect and banks when banking
reaches the target. In a final turn it plays only to beat the leader.

Farkle hides nothing but the future dice: every player sees every score, throw and offer.
`observe` still builds the seat's view (the state without its log, which is words for people)
and every decision is made from that view alone; the dice to come are the engine's rng, which
the policy never touches."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Literal

from games.farkle import optimal
from games.farkle.engine import (
    Action,
    FarkleState,
    best_keep,
    can_piggyback,
    may_bank,
    must_reroll_last_die,
)
from games.farkle.rules import FarkleRules
from games.farkle.scoring import FACES, Counts, best_selection, counts_of, triples_in
from games.farkle.throws import scoring_keeps, throw_probability
from games.farkle.turnvalues import TurnModel, expected_table, reach_table, turn_model

#: Where prepared tables are saved (None: memory only). The bot sets it from its settings.
cache_dir: Path | None = None


def warm(rules: FarkleRules) -> None:
    """Start building the table for these rules in the background (a child process when
    `cache_dir` is set); no-op once built. `choose` plays without it until it is ready."""
    m = turn_model(rules)
    expected_table(rules, True)
    expected_table(rules, False)
    reach_table(rules, _reach_cells(m))
    optimal.warm(rules, cache_dir)


def prepare(rules: FarkleRules) -> optimal.WinTable:
    """Build (or load from `cache_dir`) the table for these rules now. Blocking."""
    return optimal.prepare(rules, cache_dir)


def ready(rules: FarkleRules) -> bool:
    """True when `choose` plays these rules from the table (else from the fallback)."""
    return optimal.cached(rules) is not None


def forget() -> None:
    """Drop every table and remembered plan (tests that swap tables)."""
    optimal.forget()
    _plan.cache_clear()


def observe(state: FarkleState, seat: int) -> FarkleState:
    """What `seat` knows: the whole table (Farkle has no hidden information) but not the log,
    which only repeats it in words."""
    return state.model_copy(update={"log": []})  # shallow: the policy never changes it


def choose(state: FarkleState, seat: int, rng: random.Random, now: float = 0.0) -> Action | None:
    """The move `seat` makes now, or None when it is not that seat's turn. A throw takes a few
    moves (toggles, then roll or bank); each call gives the next one, so call until the throw
    or turn is done. Uses the rule set's table when it is built, never waits for it."""
    return _choose(state, seat, tables=True)


def fallback(state: FarkleState, seat: int, rng: random.Random, now: float = 0.0) -> Action | None:
    """`choose` as it plays while no table is built (the benchmark measures what that costs)."""
    return _choose(state, seat, tables=False)


def _choose(state: FarkleState, seat: int, tables: bool) -> Action | None:
    if state.finished or state.current_player.id != seat:
        return None
    view = observe(state, seat)
    turn = view.turn
    if not turn.dice:
        if can_piggyback(view) and _judge(view, tables).piggyback_better(view):
            return Action(kind="piggyback")
        return Action(kind="roll")
    if must_reroll_last_die(view):
        return Action(kind="roll")
    keep, kind = plan(view, tables)
    return _next_move(view, keep, kind)


def baseline(state: FarkleState, seat: int, rng: random.Random, now: float = 0.0) -> Action | None:
    """The benchmark's opponent: keeps every scoring die and banks at the first legal chance."""
    if state.finished or state.current_player.id != seat:
        return None
    turn = state.turn
    if not turn.dice or must_reroll_last_die(state):
        return Action(kind="roll")
    keep = best_keep(state)
    assert keep is not None, "a throw that is not a farkle has a scoring keep"
    return Action(kind="bank" if keep[2] else "roll", best=True)


# --------------------------------------------------------------------------- planning


#: How a planned throw ends: roll the dice left, or bank the turn.
Ending = Literal["roll", "bank"]


def plan(view: FarkleState, tables: bool = True) -> tuple[Counts, Ending]:
    """The dice to keep from the throw on the table (as face counts) and whether to then
    "roll" or "bank": the choice with the best value under the judge for this position.
    Remembered per position, so the toggles that carry a plan out cost nothing."""
    table = optimal.cached(view.rules) if tables else None
    key = view.model_dump_json(exclude={"log": True, "turn": {"selected"}})
    return _plan(key, view.rules, table is not None)


@lru_cache(maxsize=256)
def _plan(key: str, rules: FarkleRules, tables: bool) -> tuple[Counts, Ending]:
    view = FarkleState.model_validate_json(key)
    turn = view.turn
    judge = _judge(view, tables)
    ext = frozenset(turn.extended)
    best: tuple[float, Counts, Ending] | None = None
    for sub, points in scoring_keeps(counts_of(turn.dice), rules, ext):
        left = len(turn.dice) - sum(sub)
        hot = left == 0
        options: list[tuple[float, Ending]] = []  # banking first: it wins ties, being the sure thing
        if may_bank(view, points, hot):
            options.append((judge.bank(view, points), "bank"))
        options.append((judge.throw_on(view, sub, points, hot), "roll"))
        for value, kind in options:
            if best is None or value > best[0] + 1e-12:
                best = (value, sub, kind)
    assert best is not None, "a scoring throw always has a scoring selection"
    return best[1], best[2]


def _next_move(view: FarkleState, keep: Counts, kind: Ending) -> Action:
    """One move towards setting aside `keep` then `kind`: the one-tap best keep when it is that,
    else a toggle of the first die that is not as wanted, else the roll or bank itself."""
    turn, rules = view.turn, view.rules
    best = best_selection(turn.dice, rules, turn.extended)
    if counts_of(turn.dice[i] for i in best) == keep:
        return Action(kind=kind, best=True)
    wanted = _indexes(turn.dice, keep)
    for i in range(len(turn.dice)):
        chosen = i in turn.selected
        if chosen != (i in wanted):
            return Action(kind="toggle", index=i, select=not chosen)
    return Action(kind=kind)


def _indexes(dice: list[int], keep: Counts) -> set[int]:
    """The first dice of each face, as many as `keep` asks for."""
    want = list(keep)
    out: set[int] = set()
    for i, d in enumerate(dice):
        if want[d - 1]:
            want[d - 1] -= 1
            out.add(i)
    return out


# --------------------------------------------------------------------------- judges


@dataclass
class _Position:
    """The numbers every judge needs (points, as the engine counts them)."""

    mine: int
    theirs: int  # the strongest opponent's score
    their_table: bool
    role: int  # 1: the second seat under "finish the round" (reaching the target ends it)
    total: int  # turn total so far (points)
    since_hot: int  # points since hot dice


def _position(view: FarkleState) -> _Position:
    me = view.current_player
    others = [p for p in view.players if p.id != me.id]
    leader = max(others, key=lambda p: p.score)
    last = view.current == len(view.players) - 1
    role = 1 if view.rules.end_rule == "finish_round" and last else 0
    return _Position(
        me.score, leader.score, leader.on_table, role, view.turn.total, view.turn.since_hot
    )


class _Judge:
    """Values a keep followed by throwing on, a keep followed by banking, a piggyback. Each
    judge reads its own table through _roll (turn total in units, turn state) and _bank
    (turn total in points); `farkle` is what a farkle is worth, `sure` the best there is."""

    farkle: float = 0.0
    sure: float = 1.0

    def __init__(self, view: FarkleState) -> None:
        self.rules = view.rules
        self.m = turn_model(view.rules)
        self.pos = _position(view)

    def _roll(self, total: int, state: int) -> float:
        raise NotImplementedError

    def _bank(self, total_points: int) -> float:
        raise NotImplementedError

    def bank(self, view: FarkleState, points: int) -> float:
        return self._bank(self.pos.total + points)

    def throw_on(self, view: FarkleState, keep: Counts, points: int, hot: bool) -> float:
        m = self.m
        left = len(view.turn.dice) - sum(keep)
        extended = self._extended(view, keep, hot)
        if extended and left <= 3:
            return self._look_ahead(view, points, left, extended)
        h = 0 if hot else m.units(self.pos.since_hot + points)
        return self._roll(m.units(self.pos.total + points), m.state(left or 6, h))

    def piggyback_better(self, view: FarkleState) -> bool:
        offer = view.piggyback
        assert offer is not None
        m = self.m
        state = m.state(offer.dice, m.units(offer.points))
        return self._roll(m.units(offer.points), state) > self._roll(0, m.state(6, 0))

    def _extended(self, view: FarkleState, keep: Counts, hot: bool) -> frozenset[int]:
        if not self.rules.extend_triple_across_throws or hot:
            return frozenset()
        kept = [f for f, n in zip(FACES, keep, strict=True) for _ in range(n)]
        return frozenset(view.turn.extended) | frozenset(triples_in(kept, self.rules))

    def _look_ahead(
        self, view: FarkleState, points: int, left: int, extended: frozenset[int]
    ) -> float:
        """Throwing on with extended triples (which the tables do not follow): every throw of
        the dice left, exactly, then the tables."""
        total = self.pos.total + points
        since = self.pos.since_hot + points
        m = self.m
        value = 0.0
        for p, keeps in _menu(self.rules, left, extended):
            best = self.farkle if not keeps else -float("inf")
            for rest, more in keeps:
                hot = rest == 0
                h = 0 if hot else m.units(since + more)
                v = self._roll(m.units(total + more), m.state(rest or 6, h))
                if v < self.sure and _may_bank(view, total + more, since + more, hot):
                    v = max(v, self._bank(total + more))
                best = max(best, v)
            value += p * best
        return value


class _Expected(_Judge):
    """No table: the most points the turn can expect; banking that reaches the target wins."""

    sure = float("inf")

    def __init__(self, view: FarkleState) -> None:
        super().__init__(view)
        self.r = expected_table(view.rules, view.current_player.on_table)[1]
        rules = view.rules
        every = rules.farkle_penalty_every
        self.farkle = -self.m.units(rules.farkle_penalty) / every if every else 0.0

    def _roll(self, total: int, state: int) -> float:
        return float(self.r[min(total, self.r.shape[0] - 1), state])

    def _bank(self, total_points: int) -> float:
        if _reaches(self.rules, self.pos.mine + total_points):
            return self.sure
        return float(self.m.units(total_points))


class _Final(_Judge):
    """A final turn: only beating the leader counts."""

    def __init__(self, view: FarkleState) -> None:
        super().__init__(view)
        me = view.current_player
        best = max(p.score for p in view.players if p.id != me.id)
        self.need = best - me.score + 1  # points this turn must reach
        self.q = reach_table(view.rules, _reach_cells(self.m))

    def _roll(self, total: int, state: int) -> float:
        r = max(0, -(-self.need // self.m.unit) - total)
        return float(self.q[r, state]) if r < self.q.shape[0] else 0.0

    def _bank(self, total_points: int) -> float:
        return 1.0 if total_points >= self.need else 0.0


class _Optimal(_Judge):
    """The two-player table: the chance to win."""

    def __init__(self, view: FarkleState, table: optimal.WinTable) -> None:
        super().__init__(view)
        u = self.m.unit
        pos = self.pos
        self.seen = table.at(pos.role, pos.mine / u, pos.theirs / u, pos.their_table)
        self.farkle = self.seen.farkle

    def _roll(self, total: int, state: int) -> float:
        return self.seen.throw_on(total, state)

    def _bank(self, total_points: int) -> float:
        return self.seen.banked(self.m.units(total_points))


@lru_cache(maxsize=64)
def _menu(
    rules: FarkleRules, dice: int, extended: frozenset[int]
) -> tuple[tuple[float, tuple[tuple[int, int], ...]], ...]:
    """Every throw of `dice` dice: its probability and its keeps as (dice left, points)."""
    out = []
    for faces in combinations_with_replacement(FACES, dice):
        counts = counts_of(faces)
        keeps = tuple(
            (dice - sum(sub), points) for sub, points in scoring_keeps(counts, rules, extended)
        )
        out.append((float(throw_probability(counts)), keeps))
    return tuple(out)


def _may_bank(view: FarkleState, total: int, since_hot: int, hot: bool) -> bool:
    """The engine's bank rule for a turn total reached in a later throw."""
    rules = view.rules
    if total < rules.bank_minimum(view.current_player.on_table):
        return False
    afresh = rules.min_bank_after_hot_dice and rules.min_bank
    return not afresh or (not hot and since_hot >= rules.min_bank)


def _reach_cells(m: TurnModel) -> int:
    """How far the final-turn table reaches (the same one the value table uses)."""
    return optimal._reach_cells(m)


def _reaches(rules: FarkleRules, score: int) -> bool:
    return score >= rules.target if rules.target_inclusive else score > rules.target


def _judge(view: FarkleState, tables: bool = True) -> _Judge:
    """Final turn: beat the leader. Otherwise the table when it is ready, else the expectation."""
    me = view.current_player
    others = [p for p in view.players if p.id != me.id]
    if any(_reaches(view.rules, p.score) for p in others):
        return _Final(view)
    table = optimal.cached(view.rules) if tables else None
    if table is None or _reaches(view.rules, me.score):
        return _Expected(view)
    return _Optimal(view, table)
