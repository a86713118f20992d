"""The Kuriki arena (`python -m bench.arena --game kuriki`): one opponent against the bot
players, the opponent's seat rotated with the seed. The opponents a sharp player would try:

- `truthful`: declares the truth (or the lowest allowed when it is too low), pulls a
  declaration above the median roll, takes the cup otherwise, pulls its own lie come back.
- `declare-X` for every value X: declares X whatever the dice (more when the dice are worth
  more, so Boxcars only on 6-6 for X = Double-Five; at least the standing declaration),
  answers as `truthful`. `declare-105` is the issue's Double-Five rule.
- `step-above`: the truth on a fresh roll, on a point one value above the standing one
  (or the truth when it is higher).
- `caller`: declares the truth and pulls by each bot's revealed lie rate (every pulled cup
  of theirs it saw, value by value), taking the cup only on what it expects to be true;
  `caller+105` declares Double-Five as `declare-105` and calls as `caller`.
- `rusk`: plays as `truthful` and proposes a Rusk on the bot with most lives on every roll
  the engine lets it (once per player per roll).

The games are played as bench.bots' are (`bench.bots_kuriki.game`): the clock moves 5
seconds a move, so a vote nobody answers closes after 12 moves, as a 60 s vote would."""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.arena import Cell
from bench.bots_kuriki import Chooser, answer, bot, declaring, play
from games.kuriki import policy
from games.kuriki.engine import Action, KurikiState, on_clock
from games.kuriki.values import declarable, roll_value


def player(
    declare: Callable[[KurikiState, int], int], respond: Callable[[KurikiState], Action] = answer
) -> Chooser:
    """An opponent from its declaration rule (`declare(view, truth)`) and its answer; the
    first Roller's direction is the bot's (the arena measures declarations, not seating)."""

    def mind(state: KurikiState, seat: int, rng: random.Random, now: float) -> Action | None:
        if on_clock(state) != seat:
            return None
        view = policy.observe(state, seat)
        if view.phase == "direction":
            return policy.choose(state, seat, rng, now)
        if view.phase == "roll":
            return Action(kind="roll", now=now)
        if view.phase == "declare":
            assert view.dice is not None
            return declaring(view, declare(view, roll_value(*view.dice, view.rules.two_digit)), now)
        return respond(view).model_copy(update={"now": now})

    return mind


def _truth(view: KurikiState, truth: int) -> int:
    return truth


def fixed(x: int) -> Callable[[KurikiState, int], int]:
    def declare(view: KurikiState, truth: int) -> int:
        value = max(x, truth)
        return value if view.minimum is None or value >= view.minimum else view.minimum

    return declare


def _step_above(view: KurikiState, truth: int) -> int:
    if view.minimum is None:
        return truth
    values = declarable(view.rules.two_digit)
    above = [v for v in values if v > view.minimum]
    return max(truth, above[0] if above else view.minimum)


def _calling(view: KurikiState) -> Action:
    """Pull by the Roller's revealed lie rate near this value (a Beta(1, 1) prior on each
    value's rate, pooled with the values next to it), against the risk of taking the cup."""
    assert view.declared is not None
    if view.dice is not None:
        return answer(view)
    two = view.rules.two_digit
    values = declarable(two)
    rank = {v: i for i, v in enumerate(values)}
    here = rank[view.declared]
    near = [
        s
        for s in view.said
        if s.p == view.roller and s.t is not None and abs(rank[s.v] - here) <= 1
    ]
    lie = (sum(s.t < s.v for s in near) + 1) / (len(near) + 2)  # type: ignore[operator]
    beat = policy.beat_chance(two, view.declared)
    take_risk = (1 - beat) * 0.8  # a forced lie of mine on a point is pulled this often
    return Action(kind="pull" if lie > min(0.5, take_risk) else "roll")


def rusk_proposer(state: KurikiState, seat: int, rng: random.Random, now: float) -> Action | None:
    """`truthful`, proposing a Rusk on the bot with most lives whenever it may."""
    if state.proposed.get(seat) != state.moment and not state.finished:
        others = [p for p in state.alive() if p.id != seat]
        target = max(others, key=lambda p: p.lives)
        if not any(v.accused == target.id for v in state.votes):
            return Action(kind="propose", value=str(target.id), rusk=True, now=now)
    return TRUTHFUL(state, seat, rng, now)


TRUTHFUL = player(_truth)


def opponents(two_digit: bool = False) -> dict[str, Chooser]:
    listed: dict[str, Chooser] = {"truthful": TRUTHFUL}
    for x in declarable(two_digit)[1:]:
        listed[f"declare-{x}"] = player(fixed(x))
    listed["step-above"] = player(_step_above)
    listed["caller"] = player(_truth, _calling)
    listed["caller+105"] = player(fixed(105), _calling)
    listed["rusk"] = rusk_proposer
    return listed


def against_bots(seed: int, players: int, opponent: Chooser) -> tuple[float, list[float]]:
    """`opponent` in seat (seed mod players), bots in the others: 1.0 when it wins alone
    (bots sharing the win when it is out count as its loss); the bots' decision times."""
    theirs = seed % players
    minds = [opponent if i == theirs else bot for i in range(players)]
    state, times = play(seed, minds)
    won = 1.0 if state.winner == theirs + 1 and not state.winners else 0.0
    return won, [t for i, ts in enumerate(times) if i != theirs for t in ts]


def cells(players: int) -> list[Cell]:
    """Every opponent at this table size. The issue's limits: two players, 60% (55% for
    the Double-Five rule); more, the fair share plus 10 points."""
    fair = 1 / players
    out = []
    for name, mind in opponents().items():
        limit = (0.55 if name == "declare-105" else 0.60) if players == 2 else fair + 0.10

        def play_one(seed: int, mind: Chooser = mind) -> tuple[float, list[float]]:
            return against_bots(seed, players, mind)

        out.append(Cell(name, players, play_one, fair, limit))
    return out
