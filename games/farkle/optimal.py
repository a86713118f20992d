"""Optimal two-player Farkle by value iteration, as Busche and Neller solved it: the chance the
player to move wins, over (my banked score, the opponent's, my turn total, dice to throw),
computed from the rule set itself (every preset and house rule).

Banked scores live on a grid (every scoring unit when the table fits the memory budget, a
coarser step otherwise, read between steps by linear interpolation); the turn total is kept
in single scoring units. When the target is reached the other player's last turn is played
exactly (the chance of beating the leader in one turn); with the "finish the round" rule the
table also knows which seat moves, because the second seat reaching the target ends the game.
What the table leaves out (house rules whose state would not fit: the farkle counters behind
penalties and crappy malappy wins, triples extended across throws, piggyback offers) the
policy adds at decision time or averages in (a farkle costs the average penalty)."""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import os
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from games.farkle.rules import FarkleRules
from games.farkle.turnvalues import TurnModel, reach_table, turn_model

log = logging.getLogger(__name__)

#: Table cells (roles x turn totals x turn states x score grid^2) kept at most: 12M float32 cells
#: are 48 MB. A rule set whose exact table is larger gets a coarser score grid.
CELL_BUDGET = 12_000_000
#: Value iteration stops when no turn-start chance moves by more than this.
TOLERANCE = 1e-5
MAX_SWEEPS = 400
#: Names how tables are computed: a saved table of another version is built again (2: every
#: distinct keep is tried, not only the most points for each number of dice left).
VERSION = 2


@dataclass
class WinTable:
    """The solved game for one rule set. All scores are in the model's scoring unit."""

    rules: FarkleRules
    grid: np.ndarray  # banked scores (units) of the grid points, 0 .. goal - 1
    roll: np.ndarray  # [role, t, state, i, j]: chance to win when throwing on
    start: np.ndarray  # [role, i, j]: chance to win at the start of a turn
    sweeps: int
    seconds: float
    _seen: dict[tuple[int, float, float, bool], Seen] = field(default_factory=dict, repr=False)

    @property
    def model(self) -> TurnModel:
        return turn_model(self.rules)

    @property
    def nbytes(self) -> int:
        return int(self.roll.nbytes + self.start.nbytes + self.grid.nbytes)

    def _corners(self, score: float) -> tuple[int, int, float]:
        """Grid points either side of a score (units) and the weight of the upper one."""
        g = self.grid
        x = min(max(score, 0.0), float(g[-1]))
        hi = int(np.searchsorted(g, x, side="left"))
        if hi == 0 or g[hi] == x:
            return hi, hi, 0.0
        lo = hi - 1
        return lo, hi, (x - g[lo]) / (g[hi] - g[lo])

    def bank(self, role: int, mine: float, theirs: float, total: int, their_table: bool) -> float:
        """Chance to win banking `total` (units) now: at the goal the game ends (second seat,
        finish the round) or the opponent gets one last turn to beat us."""
        return self.at(role, mine, theirs, their_table).banked(total)

    def at(self, role: int, mine: float, theirs: float, their_table: bool) -> Seen:
        """Every chance one decision may ask for, for these banked scores: read once from the
        table (interpolated between grid points), then looked up in plain lists. A turn's
        decisions share one read."""
        key = (role, mine, theirs, their_table)
        seen = self._seen.get(key)
        if seen is None:
            if len(self._seen) > 64:
                self._seen.clear()
            seen = self._seen[key] = self._read(role, mine, theirs, their_table)
        return seen

    def _read(self, role: int, mine: float, theirs: float, their_table: bool) -> Seen:
        m = self.model
        i0, i1, wi = self._corners(mine)
        j0, j1, wj = self._corners(theirs)
        r = self.roll[role]
        plane = (1 - wi) * ((1 - wj) * r[:, :, i0, j0] + wj * r[:, :, i0, j1]) + wi * (
            (1 - wj) * r[:, :, i1, j0] + wj * r[:, :, i1, j1]
        )
        totals = np.arange(self.roll.shape[1] + m.most + 1)
        after = mine + totals
        bank = np.empty(len(totals))
        below = after < m.goal
        other = self.start[(role + 1) % roles_of(self.rules)]
        row = other[j0] * (1 - wj) + other[j1] * wj  # their start, over my score after banking
        bank[below] = 1.0 - np.interp(after[below], self.grid, row)
        if role == 1:
            bank[~below] = 1.0
        else:
            q = reach_table(self.rules, _reach_cells(m))
            floor = max(m.need_on if their_table else m.need_off, 1)
            need = np.maximum(np.floor(after[~below] - theirs).astype(int) + 1, floor)
            chance = np.where(
                need < q.shape[0], q[np.minimum(need, q.shape[0] - 1), m.state(6, 0)], 0
            )
            bank[~below] = 1.0 - chance
        farkle = 1.0 - float(np.interp(mine, self.grid, row))
        return Seen(plane.tolist(), bank.tolist(), farkle)


@dataclass
class Seen:
    """The table read for one position: roll[t][state], bank[t] (turn total t in units) and
    the chance to win after a farkle."""

    roll: list[list[float]]
    bank: list[float]
    farkle: float

    def throw_on(self, total: int, state: int) -> float:
        return self.roll[min(total, len(self.roll) - 1)][state]

    def banked(self, total: int) -> float:
        return self.bank[min(total, len(self.bank) - 1)]


def roles_of(rules: FarkleRules) -> int:
    """Finish-the-round games need to know whether the mover is the first or second seat."""
    return 2 if rules.end_rule == "finish_round" else 1


def _reach_cells(m: TurnModel) -> int:
    return m.goal + m.cells + m.most + 2


def grid_for(rules: FarkleRules, budget: int = CELL_BUDGET) -> np.ndarray:
    """The banked-score grid: every unit if the table fits `budget`, else an even coarser step."""
    m = turn_model(rules)
    per_pair = roles_of(rules) * m.cells * m.states
    return _grid(m.goal, max(2, int((budget / per_pair) ** 0.5)))


def _grid(goal: int, most: int) -> np.ndarray:
    """At most `most` banked scores from 0 evenly to goal - 1 (units); the last is goal - 1 so
    the scores just short of the target are exact."""
    step = max(1, -(-(goal - 1) // (most - 1)))
    points = list(range(0, goal, step))
    if points[-1] != goal - 1:
        points.append(goal - 1)
    return np.array(points, dtype=np.int64)


# --------------------------------------------------------------------------- value iteration


def solve(rules: FarkleRules, budget: int = CELL_BUDGET, tolerance: float = TOLERANCE) -> WinTable:
    """Value iteration to convergence. Each sweep plays one more turn of look-ahead: the
    turn-start chances of the last sweep value banking and farkling, and a backward pass over
    turn totals (all score pairs at once) gives every in-turn chance and the new turn starts.
    A large grid starts from the solution of a grid three times coarser, which saves most of
    the sweeps."""
    began = time.perf_counter()
    m = turn_model(rules)
    roll, start, sweeps, grid = _solve_on(rules, m, grid_for(rules, budget), tolerance)
    seconds = time.perf_counter() - began
    log.info("Farkle table for %s: %d sweeps, %.1f s", rules.name, sweeps, seconds)
    return WinTable(rules, grid, roll, start, sweeps, seconds)


def _solve_on(
    rules: FarkleRules, m: TurnModel, grid: np.ndarray, tolerance: float
) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    roles = roles_of(rules)
    start = np.full((roles, len(grid), len(grid)), 0.5)
    if len(grid) > 30:
        _, coarse, _, cgrid = _solve_on(rules, m, _grid(m.goal, len(grid) // 3), tolerance)
        lo, hi, w = _interp_weights(cgrid, grid)
        for role in range(roles):
            rows = coarse[role][lo] * (1 - w)[:, None] + coarse[role][hi] * w[:, None]
            start[role] = rows[:, lo] * (1 - w) + rows[:, hi] * w
    roll, start, sweeps = _iterate(rules, m, grid, start, tolerance)
    return roll, start, sweeps, grid


def _iterate(
    rules: FarkleRules, m: TurnModel, grid: np.ndarray, start: np.ndarray, tolerance: float
) -> tuple[np.ndarray, np.ndarray, int]:
    n_grid = len(grid)
    pairs = n_grid * n_grid
    roles = roles_of(rules)
    top = m.cells + m.most + 1
    reach = reach_table(rules, _reach_cells(m))
    need = np.where(grid > 0, m.need_on, m.need_off)
    top_h = [m.state(n, m.h_top) for n in range(1, 7)]
    succ = [
        [np.stack([m.successors(k, h) for h in range(m.h_top + 1)]) for k in ks] for ks in m.keeps
    ]
    probs = [[k.probs.astype(np.float32) for k in ks] for ks in m.keeps]
    penalty_every = rules.farkle_penalty_every
    penalty = m.units(rules.farkle_penalty) if penalty_every else 0

    # Banking at or past the goal: the opponent's last turn must beat us. final[x, j].
    xs = np.arange(int(grid[-1]) + top + 1)
    final = np.empty((len(xs), n_grid))
    for jj, theirs in enumerate(grid):
        floor = m.need_on if theirs > 0 else m.need_off
        lead = np.maximum(xs - theirs + 1, floor)
        final[:, jj] = np.where(
            lead < reach.shape[0],
            1.0 - reach[np.minimum(lead, reach.shape[0] - 1), m.state(6, 0)],
            1.0,
        )

    lo, hi, w = _interp_weights(grid, np.arange(m.goal))
    roll = np.zeros((roles, m.cells, m.states, n_grid, n_grid), dtype=np.float32)
    work = np.empty((top, m.states, pairs), dtype=np.float32)
    sweeps = 0
    for sweeps in range(1, MAX_SWEEPS + 1):  # noqa: B007 - the count is reported
        change = 0.0
        for role in range(roles):
            theirs_start = start[(role + 1) % roles]  # [their score, my score], their view
            banked = np.empty((len(xs), n_grid))  # [my score after banking, their score]
            banked[: m.goal] = 1.0 - (theirs_start[:, lo] * (1 - w) + theirs_start[:, hi] * w).T
            banked[m.goal :] = 1.0 if role == 1 else final[m.goal :]
            farkled = 1.0 - theirs_start.T  # [i, j]
            if penalty_every:
                plo, phi, pw = _interp_weights(grid, np.maximum(grid - penalty, 0))
                pen = 1.0 - (theirs_start[:, plo] * (1 - pw) + theirs_start[:, phi] * pw).T
                farkled = farkled + (pen - farkled) / penalty_every
            flat_farkle = farkled.reshape(-1).astype(np.float32)
            for t in range(top - 1, -1, -1):
                bank_now = banked[grid + t].reshape(-1).astype(np.float32)
                if t >= m.cells:
                    work[t] = bank_now
                    continue
                for n in range(1, 7):
                    value = np.multiply(flat_farkle, m.farkle[n - 1])[None, :]  # [h, i*j]
                    for b, k in enumerate(m.keeps[n - 1]):
                        rows = np.minimum(t + k.points, top - 1)
                        picked = work[rows, succ[n - 1][b]].max(axis=2)  # [h, G, i*j]
                        value = value + np.einsum("g,hgp->hp", probs[n - 1][b], picked)
                    first = m.state(n, 0)
                    work[t, first : first + m.h_top + 1] = value
                roll[role, t] = work[t].reshape(m.states, n_grid, n_grid)
                may = np.repeat(t >= need, n_grid) & (t > 0)
                for s in top_h:
                    np.maximum(work[t, s], np.where(may, bank_now, 0.0), out=work[t, s])
            new = roll[role, 0, m.state(6, 0)].astype(float)
            change = max(change, float(np.abs(new - start[role]).max()))
            start[role] = new
        if change < tolerance:
            break
    return roll, start, sweeps


def _interp_weights(grid: np.ndarray, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each score in xs (units, within the grid), the grid points around it and the weight
    of the upper one."""
    xs = np.clip(xs, 0, grid[-1])
    hi = np.searchsorted(grid, xs, side="left")
    exact = grid[np.minimum(hi, len(grid) - 1)] == xs
    lo = np.where(exact, hi, hi - 1)
    lo = np.maximum(lo, 0)
    hi = np.where(exact, hi, hi)
    span = np.maximum(grid[hi] - grid[lo], 1)
    w = np.where(exact, 0.0, (xs - grid[lo]) / span)
    return lo, hi, w


# --------------------------------------------------------------------------- the cache

_tables: dict[str, WinTable] = {}
_building: dict[str, threading.Thread] = {}
_lock = threading.Lock()


@lru_cache(maxsize=64)
def _key(rules: FarkleRules, budget: int) -> str:
    """Names a table: the rules that matter, the budget and how turns are modelled."""
    m = turn_model(rules)
    text = f"v{VERSION}:{budget}:{m.unit}:{m.cells}:" + rules.model_dump_json(
        exclude={"name", "max_players"}
    )
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def cached(rules: FarkleRules, budget: int = CELL_BUDGET) -> WinTable | None:
    """The table for these rules if it is in memory now; never waits or builds."""
    return _tables.get(_key(rules, budget))


def prepare(
    rules: FarkleRules, cache_dir: Path | str | None = None, budget: int = CELL_BUDGET
) -> WinTable:
    """The table for these rules: from memory, else from `cache_dir` (if given), else solved
    now (seconds to a few minutes) and saved there. Blocking: call it off the event loop."""
    key = _key(rules, budget)
    if key in _tables:
        return _tables[key]
    path = Path(cache_dir) / f"farkle-{key}.npz" if cache_dir is not None else None
    table = _load(rules, path) if path is not None and path.exists() else None
    if table is None:
        table = solve(rules, budget)
        if path is not None:
            _save(table, path)
    reach_table(rules, _reach_cells(turn_model(rules)))  # decisions read it: have it ready
    with _lock:
        _tables[key] = table
    return table


def warm(
    rules: FarkleRules, cache_dir: Path | str | None = None, budget: int = CELL_BUDGET
) -> threading.Thread | None:
    """Start preparing the table in the background (once per rule set); returns the thread
    (join it to wait), or None when the table is already in memory. With a cache_dir the
    solving runs in a child process, so the caller's interpreter (the bot's event loop) is
    not slowed by it, and the thread then loads the saved table."""
    key = _key(rules, budget)
    with _lock:
        if key in _tables:
            return None
        thread = _building.get(key)
        if thread is None or not thread.is_alive():
            thread = threading.Thread(
                target=_warm, args=(rules, cache_dir, budget), daemon=True, name="farkle-table"
            )
            _building[key] = thread
            thread.start()
    return thread


def _warm(rules: FarkleRules, cache_dir: Path | str | None, budget: int) -> None:
    if cache_dir is not None:
        path = Path(cache_dir) / f"farkle-{_key(rules, budget)}.npz"
        if not path.exists():
            child = multiprocessing.get_context("spawn").Process(
                target=_solve_to_file,
                args=(rules.model_dump_json(), str(path), budget),
                name="farkle-table",
                daemon=True,
            )
            child.start()
            child.join()
            if child.exitcode != 0:
                log.warning(
                    "Building the Farkle table in a child process failed (%s)", child.exitcode
                )
    prepare(rules, cache_dir, budget)


def _solve_to_file(rules_json: str, path: str, budget: int) -> None:
    """The child process of warm(): solve and save."""
    rules = FarkleRules.model_validate_json(rules_json)
    _save(solve(rules, budget), Path(path))


def forget() -> None:
    """Drop every table from memory (tests)."""
    with _lock:
        _tables.clear()
    _key.cache_clear()


def _save(table: WinTable, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    np.savez(
        tmp,
        grid=table.grid,
        roll=table.roll,
        start=table.start,
        meta=np.array([table.sweeps, table.seconds]),
    )
    tmp.replace(path)


def _load(rules: FarkleRules, path: Path) -> WinTable | None:
    try:
        with np.load(path) as data:
            meta = data["meta"]
            return WinTable(
                rules, data["grid"], data["roll"], data["start"], int(meta[0]), float(meta[1])
            )
    except (OSError, ValueError, KeyError) as exc:
        log.warning("Ignoring unreadable Farkle table %s: %s", path, exc)
        return None
