"""A Kuriki bot player: it declares, takes, pulls and passes from the odds of two dice and a
model of what a sensible player declares, and never peeks.

It decides only from what its seat may know: `observe` rebuilds the state from the seat's
private view (the dice only when the seat has seen them), and every choice is made from that.

The model of the others: a player who can tell the truth mostly does, now and then declaring
a little more; a player who cannot beat the standing declaration mostly declares exactly
it. Some Rollers (`RECKLESS`) declare the highest value on every fresh roll: a fresh top
declaration is true 1 time in 36, and a model without them would never pull one. From that,
Bayes gives how likely a declaration is a lie; a sensible player pulls when that beats the
risk of taking the cup. Every decision weighs the chance that this seat loses the point's
life against the chance that someone else does."""

from __future__ import annotations

import math
import random
from functools import lru_cache
from typing import Literal

from games.kuriki import beliefs
from games.kuriki.engine import Action, KurikiState, Vote, legal_actions, private_view, voters
from games.kuriki.values import KURIKI, declarable, roll_value

BLUFF_UP = 0.1  # how often a player who could tell the truth declares more
LIE_ABOVE_MINIMUM = 0.25  # how often a forced liar declares more than the minimum
STEP = 0.5  # a bluff one value higher is this much likelier than two values higher
PULL_ON_MINIMUM = 0.6  # how often a lie at the minimum is pulled, roughly
OTHERS = 0.15  # a life lost by an opponent, against one lost by this seat
ROLLER_PASSED = 0.15  # a Roller who passes their own roll on is rarely lying
SHARPNESS = 10.0  # how firmly a sensible player follows the odds when pulling
PASSED_ON_CAUGHT = 0.35  # at least this often a lie passed on is pulled on whoever passed it
COMES_BACK = 0.3  # how often a truth passed on comes round to this seat again
PULLED_BY_OTHERS = 0.2  # how often a truth passed on is pulled (and paid for) by another
RECKLESS = 0.05  # the share of Rollers who declare the highest value on a fresh roll, always
DOUBTFUL = 0.1  # a declaration likelier a lie than this is never passed back to its Roller
BLUFF_CHOICES = 3  # a bluff goes to one of this many best values (those better than the truth)
BLUFF_SPREAD = 8.0  # how much likelier a better of those is drawn
BAND_EDGES = (0.5, 0.25, 0.1)  # beliefs pool values by the chance a roll is worth as much


def observe(state: KurikiState, seat: int) -> KurikiState:
    """The table as `seat` knows it: the dice are there only if this seat has seen them."""
    return KurikiState.model_validate(private_view(state, seat))


def choose(state: KurikiState, seat: int, rng: random.Random, now: float = 0.0) -> Action | None:
    """The move `seat` makes now, or None when it has nothing to do. Foul votes first."""
    view = observe(state, seat)
    for vote in view.votes:
        action = _vote(view, seat, vote, now)
        if action is not None:
            return action
    acts = legal_actions(view, seat)
    if "direction" in acts:
        return Action(kind="direction", value=_direction(view, seat), now=now)
    if "reverse" in acts and _reverse_helps(view, seat):
        return Action(kind="reverse", now=now)
    if "declare" in acts:
        return Action(kind="declare", value=str(_declaration(view, seat, rng)), now=now)
    if "pull" in acts:
        return Action(kind=_response(view, seat, rng, "pass" in acts), now=now)
    if "roll" in acts:
        return Action(kind="roll", now=now)
    return None


# ----------------------------------------------------------------------------- the odds


@lru_cache(maxsize=4)
def _rolls(two_digit: bool) -> tuple[tuple[int, float], ...]:
    """Every roll's value and chance (Kuriki included)."""
    counts: dict[int, int] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            v = roll_value(a, b, two_digit)
            counts[v] = counts.get(v, 0) + 1
    return tuple((v, n / 36) for v, n in sorted(counts.items()))


@lru_cache(maxsize=256)
def beat_chance(two_digit: bool, declared: int) -> float:
    """The chance a roll matches or beats `declared` (a Kuriki beats anything)."""
    return sum(p for v, p in _rolls(two_digit) if v >= declared)


@lru_cache(maxsize=4)
def _at_least(two_digit: bool) -> dict[int, float]:
    """For each declarable value, the chance a roll that is not a Kuriki (a Kuriki is shown,
    never declared) is worth it or more."""
    kuriki = 2 / 36
    return {v: (beat_chance(two_digit, v) - kuriki) / (1 - kuriki) for v in declarable(two_digit)}


@lru_cache(maxsize=4)
def _exactly(two_digit: bool) -> dict[int, float]:
    """For each declarable value, the chance a roll that is not a Kuriki is worth just it."""
    odds = dict(_rolls(two_digit))
    kuriki = odds.get(KURIKI, 0.0)
    return {v: odds.get(v, 0.0) / (1 - kuriki) for v in declarable(two_digit)}


@lru_cache(maxsize=256)
def _band(two_digit: bool, value: int) -> frozenset[int]:
    """The values a belief about a player pools with `value`: those about as hard to roll
    (likely, even, unlikely, rare), so a few revealed cups say something about the rest."""
    at_least = _at_least(two_digit)

    def bucket(v: int) -> int:
        return sum(at_least[v] <= edge for edge in BAND_EDGES)

    return frozenset(v for v in at_least if bucket(v) == bucket(value))


@lru_cache(maxsize=4096)
def _declared_given(two_digit: bool, truth: int, minimum: int | None) -> dict[int, float]:
    """The model: what a player holding `truth` declares, with `minimum` standing."""
    legal = [v for v in declarable(two_digit) if minimum is None or v >= minimum]
    if truth >= legal[0]:
        base, rest, keep = truth, [v for v in legal if v > truth], 1 - BLUFF_UP
    else:
        base, rest, keep = legal[0], legal[1:], 1 - LIE_ABOVE_MINIMUM
    out = {base: keep if rest else 1.0}
    if rest:
        weights = [STEP**i for i in range(len(rest))]
        total = sum(weights)
        for v, w in zip(rest, weights, strict=True):
            out[v] = (1 - keep) * w / total
    return out


@lru_cache(maxsize=4096)
def lie_chance(two_digit: bool, declared: int, minimum: int | None) -> float:
    """How likely `declared` is a lie, given the rolls' odds and the model of the Roller:
    a sensible Roller (`_declared_given`) or, one time in `RECKLESS`, one who declares the
    highest value on a fresh roll whatever the dice. A Kuriki is shown at once, so a
    declaration never hides one. Without the reckless share a fresh top declaration would
    look true (the sensible bluff a step or two up, rarely that far) although the dice make
    it 1 in 36: declaring it every roll would never be pulled. On a point the model's forced
    lies already make a high declaration suspect."""
    fresh_top = minimum is None and declared == declarable(two_digit)[-1]
    lie = honest = 0.0
    for v, p in _rolls(two_digit):
        if v == KURIKI:
            continue
        said = _declared_given(two_digit, v, minimum).get(declared, 0.0)
        w = p * ((1 - RECKLESS) * said + RECKLESS * fresh_top)
        if v < declared:
            lie += w
        else:
            honest += w
    return lie / (lie + honest) if lie + honest else 1.0


@lru_cache(maxsize=4096)
def pull_chance(two_digit: bool, declared: int, minimum: int | None, depth: int = 2) -> float:
    """How likely a sensible Next Guy pulls `declared`: when a lie is likelier than the
    risk of taking the cup instead (looking `depth` takes ahead)."""
    risk_pull = 1 - lie_chance(two_digit, declared, minimum)
    risk_take = _take_risk(two_digit, declared, depth - 1)
    return 1 / (1 + math.exp(-SHARPNESS * (risk_take - risk_pull)))


def _take_risk(two_digit: bool, declared: int, depth: int = 2, q: float | None = None) -> float:
    """The chance of losing the life after taking the cup on `declared`: the roll does not
    beat it, so the declaration is a lie at the minimum, and it is pulled (with chance `q`
    when the caller knows it, else as a sensible Next Guy would)."""
    if q is not None:
        caught = q
    elif depth <= 0:
        caught = PULL_ON_MINIMUM
    else:
        caught = pull_chance(two_digit, declared, declared, depth)
    return (1 - beat_chance(two_digit, declared)) * caught


def _take_gain(two_digit: bool, declared: int) -> float:
    """The chance someone else loses after taking the cup: a Kuriki costs the Next Guy a
    life; a true declaration they pull costs them one."""
    kuriki = 2 / 36
    honest = beat_chance(two_digit, declared) - kuriki
    return kuriki + honest * pull_chance(two_digit, declared, declared) * 0.5


# ----------------------------------------------------------------------------- decisions


def _declaration(view: KurikiState, seat: int, rng: random.Random) -> int:
    """Mostly the truth (or, when it is too low, exactly the standing declaration), and now
    and then more: as often as the model expects of anyone, so the model stays true of this
    player too. A bluff goes to one of the values the table is least likely to pull for what
    they ask of it, drawn at random among the good ones: a bluff that always went to the same
    value would make every other declaration of this seat certainly true."""
    assert view.dice is not None
    two = view.rules.two_digit
    truth = roll_value(*view.dice, two)
    legal = [v for v in declarable(two) if view.minimum is None or v >= view.minimum]
    if truth >= legal[0]:
        honest, bluff_rate = truth, BLUFF_UP
    else:
        honest, bluff_rate = legal[0], LIE_ABOVE_MINIMUM
    if rng.random() >= bluff_rate:
        return honest
    scores = {d: _declaration_score(view, seat, d, truth) for d in legal if d >= honest}
    bluffs = sorted((d for d in scores if d > honest), key=lambda d: -scores[d])
    good = [d for d in bluffs[:BLUFF_CHOICES] if scores[d] > scores[honest]]
    if not good:
        return honest
    weights = [math.exp(BLUFF_SPREAD * (scores[d] - scores[good[0]])) for d in good]
    return rng.choices(good, weights)[0]


def _pulled(view: KurikiState, seat: int, d: int, minimum: int | None) -> float:
    """How likely the table pulls `d` declared by `seat`: the model's sensible Next Guy,
    corrected by how often this seat's own declarations like it were pulled in this game."""
    two = view.rules.two_digit
    return beliefs.pulled_rate(view.said, seat, _band(two, d), pull_chance(two, d, minimum))


def _declaration_score(view: KurikiState, seat: int, d: int, truth: int) -> float:
    """Others' risk of losing the life against this seat's, for declaring `d`: a lie costs
    this seat when pulled; a truth pulled, or a hard roll to beat, costs the Next Guy."""
    two = view.rules.two_digit
    q = _pulled(view, seat, d, view.minimum)
    lie = d > truth
    mine = q if lie else 0.0
    theirs = (0.0 if lie else q) + (1 - q) * _take_risk(two, d)
    return -mine + OTHERS * theirs


def lie_belief(view: KurikiState, declared: int) -> float:
    """How likely the standing declaration is a lie, for this seat: the model's odds for a
    sensible Roller, updated by every cup of this Roller's the table saw pulled, and never
    below the share of their high declarations the dice cannot account for
    (`games.kuriki.beliefs`)."""
    two = view.rules.two_digit
    fresh = view.minimum is None
    prior = lie_chance(two, declared, view.minimum)
    band = _band(two, declared)
    revealed = beliefs.revealed_lie_rate(view.said, view.roller, fresh, band, prior)
    floor = beliefs.excess_lie_floor(view.said, view.roller, fresh, declared, _exactly(two))
    return max(revealed, floor)


#: What the Next Guy does about a declaration.
Response = Literal["pull", "roll", "pass"]


def _response(
    view: KurikiState, seat: int, rng: random.Random, may_pass: bool
) -> Response:
    """Pull, take the cup ('roll') or pass, whichever risks this seat's life least. A
    doubtful declaration is never passed to the player who rolled it: he knows the dice."""
    two = view.rules.two_digit
    declared = view.declared
    assert declared is not None
    if view.dice is not None:  # the Roller, the cup come round: he knows
        if roll_value(*view.dice, two) < declared:
            return "pull"  # hate mail delivered: the last to pass it on pays
        return "pass" if may_pass else "roll"  # the truth: a pressure move
    lie = lie_belief(view, declared)
    if view.roller in view.passed:
        lie *= ROLLER_PASSED
    take = _take_risk(two, declared, q=_pulled(view, seat, declared, declared))
    options: dict[Response, float] = {
        "pull": -(1 - lie) + OTHERS * lie,
        "roll": -take + OTHERS * _take_gain(two, declared),
    }
    after = view.after(seat)
    if may_pass and not (after == view.roller and lie > DOUBTFUL):
        if after == view.roller:  # he has seen the dice: a lie comes straight back
            caught = lie
        else:  # the next player may pull it; failing that, the Roller will at the end
            caught = lie * max(pull_chance(two, declared, view.minimum), PASSED_ON_CAUGHT)
        # The truth may come round again, and then this seat must take the cup.
        comes_back = (1 - lie) * COMES_BACK * take
        # A truth passed on may be pulled by someone else, who then pays.
        options["pass"] = -(caught + comes_back) + OTHERS * (1 - lie) * PULLED_BY_OTHERS
    for k in options:
        options[k] += rng.uniform(0, 0.01)
    return max(options, key=lambda k: options[k])


def _direction(view: KurikiState, seat: int) -> str:
    """Play towards the opponent with more lives (clockwise when even): the Next Guy faces
    this seat's declarations and pays for its Kurikis."""
    i = [p.id for p in view.players].index(seat)
    n = len(view.players)
    cw, ccw = view.players[(i + 1) % n], view.players[(i - 1) % n]
    return "ccw" if ccw.lives > cw.lives else "cw"


def _reverse_helps(view: KurikiState, seat: int) -> bool:
    """After a Kuriki: reverse when the player behind has more lives than the one ahead."""
    ahead = view.player(view.after(seat))
    reversed_view = view.model_copy(update={"direction": -view.direction})
    behind = view.player(reversed_view.after(seat))
    return behind.lives > ahead.lives


def _vote(view: KurikiState, seat: int, vote: Vote, now: float) -> Action | None:
    """A foul vote judged by what this seat saw. A disrespect foul or a Rusk is a matter of
    what was said and done at the table, which a bot never sees (a sneaked peek, the one foul
    the game shows, is charged at once without a vote): it abstains, leaving the vote, so a
    foul needs a majority of the others who saw it (and, when nobody else is left to vote,
    the accused's answer). Accused with nobody else to vote, it declines: it did
    nothing to the dice."""
    if vote.deadline <= now:
        return None
    if seat == vote.accused and not voters(view, vote):
        return Action(kind="vote", vote=vote.id, value="decline", now=now)
    if seat in voters(view, vote) and seat not in (*vote.yes, *vote.no):
        return Action(kind="vote", vote=vote.id, value="abstain", now=now)
    return None
