"""The Farkle bot policy: always legal, its value table right on small targets, better than
the simple bot. Value tables are built for small targets only, so the file stays quick."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from functools import cache, lru_cache
from itertools import combinations_with_replacement

import numpy as np
import pytest

from games.farkle import optimal, policy, turnvalues
from games.farkle.engine import Action, FarklePlayer, FarkleState, PiggybackOffer, Turn, apply
from games.farkle.rules import PRESETS, FarkleRules
from games.farkle.scoring import best_score, counts_of
from games.farkle.selfplay import play
from games.farkle.throws import keeps_of, selections, throw_probability
from games.farkle.turnvalues import final_turn_chance, turn_model
from tests.games.test_farkle_properties import CUSTOM


def short(rules: FarkleRules, target: int) -> FarkleRules:
    return FarkleRules(**{**rules.model_dump(), "target": target})


HOUSE = {
    # every house rule on (the property tests' table), to a shorter target
    "everything on": CUSTOM.model_copy(update={"target": 1500}),
    "odd units": FarkleRules(
        name="Odd units",
        target=1234,
        target_inclusive=True,
        single_one=110,
        single_five=40,
        straight=None,
        three_pairs=None,
        kind_scoring="add",
    ),
    "piggyback classic": FarkleRules(
        **{**PRESETS["classic"].model_dump(), "target": 1500, "piggyback": True}
    ),
}
SHORT = {f"{name} to 1500": short(r, 1500) for name, r in PRESETS.items()} | HOUSE
#: A small target the value table is solved for in these tests (seconds).
SMALL = short(PRESETS["classic"], 600)
SMALL_CM = short(PRESETS["crappy-malappy"], 600)


def clear_models() -> None:
    turnvalues.turn_model.cache_clear()
    turnvalues.reach_table.cache_clear()
    turnvalues.expected_table.cache_clear()


@pytest.fixture(autouse=True)
def fresh_tables(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Turns here are followed to 1500 points (the bot: 8000), so the small tables solve fast."""
    monkeypatch.setattr(turnvalues, "TURN_CAP_POINTS", 1500)
    policy.forget()
    clear_models()
    yield
    policy.forget()
    clear_models()


@lru_cache(maxsize=8)
def solved(rules: FarkleRules) -> optimal.WinTable:
    return optimal.solve(rules)


def with_table(rules: FarkleRules) -> optimal.WinTable:
    table = solved(rules)
    optimal._tables[optimal._key(rules, optimal.CELL_BUDGET)] = table
    return table


# --------------------------------------------------------------------------- legality


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SHORT))
def test_policy_plays_only_legal_moves_and_games_end(name: str) -> None:
    """Every move goes through engine.apply (which raises on an illegal one); play() fails a
    game that never ends. Two to four players, against itself and the simple bot."""
    rules = SHORT[name]
    for seed in range(6):
        players = 2 + seed % 3
        choosers = [policy.choose if k % 2 == 0 else policy.baseline for k in range(players)]
        if seed % 2:
            choosers = [policy.choose] * players
        game = play(rules, choosers, seed)
        assert game.final is not None and game.final.finished
        assert game.winner is not None


@pytest.mark.slow
@pytest.mark.parametrize(
    "rules",
    [SMALL, SMALL_CM, short(HOUSE["everything on"], 700)],
    ids=["classic", "crappy-malappy", "everything on"],
)
def test_policy_with_table_plays_legally(rules: FarkleRules) -> None:
    with_table(rules)
    for seed in range(10):
        game = play(rules, [policy.choose, policy.choose, policy.baseline][: 2 + seed % 2], seed)
        assert game.final is not None and game.final.finished


def state_with(rules: FarkleRules, dice: list[int], **turn: object) -> FarkleState:
    return FarkleState(
        rules=rules,
        players=[
            FarklePlayer(id=1, name="Bot", score=2000, on_table=True),
            FarklePlayer(id=2, name="Ann", score=2000, on_table=True),
        ],
        turn=Turn(dice=dice, throws=1, **turn),  # type: ignore[arg-type]
    )


def finish_throw(state: FarkleState, seat: int) -> Action:
    """Apply the policy's toggles; return the roll, bank or piggyback that ends the throw."""
    rng = random.Random(0)
    for _ in range(8):
        action = policy.choose(state, seat, rng)
        assert action is not None
        if action.kind != "toggle":
            apply(state, seat, action, rng)  # legal
            return action
        state, _ = apply(state, seat, action, rng)
    pytest.fail("the policy kept toggling")


def test_a_throw_is_finished_in_a_few_moves_keeping_any_selection() -> None:
    """Toggles (with select) converge on the planned keep even from a different selection,
    and the plan may be other than the best-scoring keep."""
    rules = PRESETS["classic"]
    state = state_with(rules, [1, 1, 5, 2, 3, 4], selected=[2, 3])
    keep, kind = policy.plan(policy.observe(state, 1))
    rng = random.Random(0)
    for _ in range(8):
        action = policy.choose(state, 1, rng)
        assert action is not None
        state, _ = apply(state, 1, action, rng)
        if action.kind != "toggle":
            break
    else:
        pytest.fail("the policy kept toggling")
    assert action.kind == kind
    assert sum(keep) < 3  # keeping 1 1 5 would leave three dice; one 1 leaves five


def test_choose_is_none_when_not_the_seats_turn() -> None:
    state = state_with(PRESETS["classic"], [1, 2, 3, 4, 6, 6])
    assert policy.choose(state, 2, random.Random(0)) is None


def test_decides_from_the_seats_view_and_never_draws_dice() -> None:
    """Farkle hides nothing but the dice to come, so the view is the table without its log.
    The decision must not change with the log's words or the rng, and must not draw from
    the rng (that would change the game's dice)."""
    rules = PRESETS["crappy-malappy"]
    for seed in range(30):
        dice = [random.Random(seed).randint(1, 6) for _ in range(6)]
        if not best_score(dice, rules):
            continue
        state = state_with(rules, dice, total=seed * 50, since_hot=seed * 50)
        rng = random.Random(seed)
        before = rng.getstate()
        first = policy.choose(state, 1, rng)
        assert rng.getstate() == before
        other = state.model_copy(update={"log": ["Ann rolled 6 6 6 6 6 6.", "anything"]})
        assert policy.choose(other, 1, random.Random(seed + 1000)) == first


# --------------------------------------------------------------------------- choices


def test_piggybacks_on_a_rich_offer_and_not_on_a_poor_one() -> None:
    rules = short(PRESETS["on-the-table"], 20000)
    state = FarkleState(
        rules=rules,
        players=[
            FarklePlayer(id=1, name="Bot", score=5000, on_table=True),
            FarklePlayer(id=2, name="Ann", score=5000, on_table=True),
        ],
        piggyback=PiggybackOffer(player=2, dice=5, points=1500),
    )
    rng = random.Random(0)
    assert policy.choose(state, 1, rng) == Action(kind="piggyback")
    poor = state.model_copy(update={"piggyback": PiggybackOffer(player=2, dice=1, points=50)})
    assert policy.choose(poor, 1, rng) == Action(kind="roll")


def test_final_turn_plays_on_until_past_the_leader() -> None:
    rules = PRESETS["classic"]
    state = FarkleState(
        rules=rules,
        players=[
            FarklePlayer(id=1, name="Ann", score=10400, on_table=True),
            FarklePlayer(id=2, name="Bot", score=9000, on_table=True),
        ],
        current=1,
        final_turns=[2],
        turn=Turn(dice=[1, 1, 1, 5, 2, 3], throws=1, total=300, since_hot=300),
    )
    # 1000 + 50 + 300 = 1350 would bank 10350: short of 10400, so throw on.
    assert finish_throw(state, 2).kind == "roll"
    ahead = state.model_copy(update={"turn": Turn(dice=[1, 1, 1, 5, 2, 3], throws=1, total=500)})
    assert finish_throw(ahead, 2).kind == "bank"  # 10550 beats 10400


# --------------------------------------------------------------------------- the value table


@pytest.mark.slow
def test_table_chances_are_probabilities_and_monotone() -> None:
    for rules in (SMALL, SMALL_CM):
        table = solved(rules)
        start = table.start
        assert np.all(start >= 0) and np.all(start <= 1)
        assert np.all(table.roll >= -1e-6) and np.all(table.roll <= 1 + 1e-6)
        # More of my own points never hurts; more of theirs never helps.
        assert np.all(np.diff(start, axis=1) >= -1e-4)
        assert np.all(np.diff(start, axis=2) <= 1e-4)
        assert table.grid[-1] == turn_model(rules).goal - 1


def test_finish_the_round_favours_the_second_seat_and_one_more_turn_the_first() -> None:
    assert solved(SMALL_CM).start[0, 0, 0] < 0.5  # the second seat always gets the last turn
    assert solved(SMALL).start[0, 0, 0] > 0.5  # the first mover's edge


def test_a_throw_offers_every_distinct_keep() -> None:
    """1 1 5: a 1 or the 5 (two dice left), 1 1 or 1 5 (one left), all three (hot dice). The
    smaller keeps stay: near the target they can be worth more (tests below)."""
    keeps = keeps_of(counts_of([1, 1, 5]), PRESETS["classic"])
    assert keeps == ((250, 0), (150, 1), (200, 1), (50, 2), (100, 2))


Menu = tuple[tuple[float, frozenset[tuple[int, int]]], ...]


def every_keep(rules: FarkleRules, dice: int) -> Menu:
    """Every throw of `dice` dice, throws offering the same keeps merged: its probability and
    each (units scored, dice left) of every scoring selection. No keep is left out."""
    m = turn_model(rules)
    merged: dict[frozenset[tuple[int, int]], float] = {}
    for faces in combinations_with_replacement(range(1, 7), dice):
        counts = counts_of(faces)
        keeps = frozenset(
            (m.units(points), dice - sum(sub))
            for sub, points in selections(counts, rules, frozenset())
        )
        merged[keeps] = merged.get(keeps, 0.0) + float(throw_probability(counts))
    return tuple((p, keeps) for keeps, p in merged.items())


def turn_by_recursion(
    table: optimal.WinTable, role: int, mine: int, theirs: int
) -> Callable[[int, int, int], float]:
    """The chance to win throwing on from (turn total, dice to throw, units since hot dice), by
    plain recursion through every throw and every scoring selection, banking and farkling
    valued by the table's own turn-start chances. The table must hold the same values: it is
    the fixed point of this turn. Scores in units, on grid points."""
    rules = table.rules
    m = turn_model(rules)
    seen = table.at(role, mine, theirs, theirs > 0)
    need = m.need_on if mine > 0 else m.need_off
    menus = {dice: every_keep(rules, dice) for dice in range(1, 7)}

    def keep_value(total: int, left: int, since: int) -> float:
        if total >= m.cells:  # the turns followed end here: a longer one banks
            return seen.banked(total)
        on = throw_on(total, left or 6, since)
        may = total >= max(need, 1) and since >= m.h_top
        return max(on, seen.banked(total)) if may else on

    @cache
    def throw_on(total: int, dice: int, since: int) -> float:
        hit = miss = 0.0
        for p, keeps in menus[dice]:
            if keeps:
                hit += p * max(
                    keep_value(total + u, left, 0 if left == 0 else min(m.h_top, since + u))
                    for u, left in keeps
                )
            else:
                miss += p
        throws = rules.one_die_throws if dice == 1 else 1  # the last die may be thrown again
        return hit * sum(miss**k for k in range(throws)) + miss**throws * seen.farkle

    return throw_on


def test_keeping_fewer_points_to_stay_short_of_the_target_is_in_the_table() -> None:
    """Classic to 600 (pass 600 to win, 350 to bank): me at 50, the opponent at 500, 500 in
    the turn and five dice to throw. Throwing 1 1 2 2 5, keeping the 5 alone and banking 600
    (short of the target) beats keeping a 1 for 650: past the target, the opponent gets a last
    turn that needs only their 350 to bank. A table that tried only the most points for each
    count of dice left valued throwing on here at 0.462 instead of 0.472."""
    table = solved(SMALL)
    m = turn_model(SMALL)
    mine, theirs, total = 1, 10, 10  # units of 50
    seen = table.at(0, mine, theirs, True)
    assert seen.banked(total + 1) > seen.banked(total + 2) + 0.2  # 600 banked beats 650
    by_recursion = turn_by_recursion(table, 0, mine, theirs)(total, 5, 0)
    assert by_recursion == pytest.approx(0.472, abs=1e-3)
    assert seen.throw_on(total, m.state(5, 0)) == pytest.approx(by_recursion, abs=1e-4)


NO_PENALTY = {"farkle_penalty_every": 0, "crappy_malappy_wins": 0}
#: Rule sets where keeping fewer points for as many dice left can be worth more: the target
#: crossed with the opponent's last turn to come, or the turns followed cut short of it.
FIXED_POINT = {
    "classic to 650, turns cut at 1000": (short(PRESETS["classic"], 650), 1000),
    # the bank minimum counted afresh after hot dice
    "crappy malappy to 600, one more turn": (
        SMALL_CM.model_copy(update={**NO_PENALTY, "end_rule": "one_more_turn"}),
        1500,
    ),
    # two throws with the last die, an opening score, finish the round (two seats)
    "everything on to 700, turns cut at 600": (
        HOUSE["everything on"].model_copy(update={**NO_PENALTY, "target": 700}),
        600,
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FIXED_POINT))
def test_table_is_the_fixed_point_of_a_turn_trying_every_keep(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every in-turn chance of the table, for score pairs near the target and at the start,
    equals the plain recursion through every keep (farkle penalties, which the table counts
    at their average, are off here)."""
    rules, cap = FIXED_POINT[name]
    monkeypatch.setattr(turnvalues, "TURN_CAP_POINTS", cap)
    table = optimal.solve(rules)
    m = turn_model(rules)
    assert len(table.grid) == m.goal  # every score a grid point
    scores = [0, m.goal - 2, m.goal - 1]
    for role in range(optimal.roles_of(rules)):
        for mine in scores:
            for theirs in scores:
                throw_on = turn_by_recursion(table, role, mine, theirs)
                got = table.roll[role, :, :, mine, theirs]
                states = [(dice, h) for dice in range(1, 7) for h in range(m.h_top + 1)]
                want = [[throw_on(t, dice, h) for dice, h in states] for t in range(m.cells)]
                assert got == pytest.approx(np.array(want), abs=1e-4), (role, mine, theirs)


def brute_force_reach(rules: FarkleRules, need: int, dice: int = 6) -> float:
    """Chance of scoring at least `need` points in one turn (no bank minimum), by trying every
    throw of every die and every keep: the final-turn chance the table is built on."""

    @cache
    def chance(short_by: int, n: int) -> float:
        total = 0.0
        for faces in combinations_with_replacement(range(1, 7), n):
            counts = counts_of(faces)
            best = 0.0
            for sub, points in selections(counts, rules, frozenset()):
                rest = short_by - points
                left = n - sum(sub) or 6
                best = max(best, 1.0 if rest <= 0 else chance(rest, left))
            total += float(throw_probability(counts)) * best
        return total

    return chance(need, dice)


def test_final_turn_chance_matches_brute_force() -> None:
    rules = FarkleRules(name="Plain", target=1000, three_pairs=None, straight=None)
    for need in (50, 100, 200):
        assert final_turn_chance(rules, need, True) == pytest.approx(
            brute_force_reach(rules, need), abs=1e-9
        )
    # By hand: anything scores but six dice of 2, 3, 4, 6 with no face three times, which
    # is three pairs (4 x 6!/(2!2!2!) = 360 ways) or two pairs and two singles (6 x 180).
    assert final_turn_chance(rules, 50, True) == pytest.approx(1 - (360 + 1080) / 6**6)


def test_prepare_saves_the_table_and_loads_it_again(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = SMALL
    table = solved(rules)  # solved before solve() is replaced, so the test runs on its own
    monkeypatch.setattr(optimal, "solve", lambda rules, budget: table)
    built = optimal.prepare(rules, tmp_path)
    files = list(tmp_path.glob("farkle-*.npz"))
    assert len(files) == 1
    optimal.forget()
    loaded = optimal.prepare(rules, tmp_path)
    assert loaded is not built
    assert np.array_equal(loaded.roll, built.roll) and loaded.sweeps == built.sweeps
    assert optimal.cached(rules) is loaded


@pytest.mark.slow
def test_warm_builds_in_a_child_process_and_the_policy_then_uses_the_table(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turnvalues, "TURN_CAP_POINTS", 8000)  # as in the child process
    clear_models()
    policy.forget()
    rules = short(PRESETS["classic"], 500)
    monkeypatch.setattr(policy, "cache_dir", tmp_path)
    assert not policy.ready(rules)
    policy.warm(rules)
    thread = optimal._building[optimal._key(rules, optimal.CELL_BUDGET)]
    thread.join(timeout=120)
    assert policy.ready(rules)
    assert len(list(tmp_path.glob("farkle-*.npz"))) == 1  # saved by the child process
    assert optimal.warm(rules, tmp_path) is None  # nothing more to do


# --------------------------------------------------------------------------- strength


def win_rate(rules: FarkleRules, games: int) -> float:
    wins = 0
    for seed in range(games):
        if seed % 2 == 0:
            wins += play(rules, [policy.choose, policy.baseline], seed).winner == 0
        else:
            wins += play(rules, [policy.baseline, policy.choose], seed).winner == 1
    return wins / games


@pytest.mark.slow
def test_beats_the_simple_bot_without_a_table() -> None:
    # An equal policy would win about half; the measured rate over these seeds is 80%.
    assert win_rate(short(PRESETS["classic"], 3000), 60) > 0.65


def test_beats_the_simple_bot_with_the_table() -> None:
    with_table(SMALL_CM)
    # A 600-point game is mostly luck; the measured rate over these seeds is 66%.
    assert win_rate(SMALL_CM, 100) > 0.58
