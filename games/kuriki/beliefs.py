"""What a seat has learned about each player from the table's public record (`state.said`:
every declaration, and the dice of every pulled one), as a person at the table would.

Two kinds of evidence, per player and per kind of declaration (fresh roll or on a point):

- **Revealed cups.** Each pull shows "a lie!" or the truth: a Beta prior on the player's lie
  rate, centred on the sensible-player model (`policy.lie_chance`), updated by each one.
- **How often they declare high.** The dice cap how often a declaration of at least `d` can
  be true: of `n` declarations, about `n * P(roll >= d)`. A player who declares Double-Five
  on ten fresh rolls out of ten must be lying on most of them, pulled or not; the excess
  over the dice's share (less two standard deviations, so luck is forgiven) is a floor on
  their lie rate.

The same record tells how often a player's own declarations were pulled (`pulled_rate`), so
the bot can stop bluffing into someone who pulls everything."""

from __future__ import annotations

import math

from games.kuriki.engine import Said

PRIOR_STRENGTH = 4.0  # the model counts as this many revealed cups
SLACK = 2.0  # standard deviations of luck forgiven before high declarations count as lies


def _fresh(s: Said) -> bool:
    return s.m is None


def revealed_lie_rate(
    said: list[Said], player: int, fresh: bool, band: frozenset[int], prior: float
) -> float:
    """The Beta posterior mean of `player`'s lie rate for declarations of a value in `band`
    (fresh or on a point), from every pulled cup of theirs the table saw."""
    lies = shown = 0
    for s in said:
        if s.p == player and s.t is not None and _fresh(s) == fresh and s.v in band:
            shown += 1
            lies += s.t < s.v
    return (PRIOR_STRENGTH * prior + lies) / (PRIOR_STRENGTH + shown)


def excess_lie_floor(
    said: list[Said], player: int, fresh: bool, declared: int, at_least: dict[int, float]
) -> float:
    """The share of `player`'s declarations of at least `declared` (same kind) that the dice
    cannot account for: a floor on how often such a declaration of theirs is a lie.
    `at_least[v]` is the chance a roll (not a Kuriki, which is shown) is worth `v` or more."""
    mine = [s for s in said if s.p == player and _fresh(s) == fresh]
    if not mine:
        return 0.0
    high = sum(1 for s in mine if s.v >= declared)
    if not high:
        return 0.0
    expected = len(mine) * at_least[declared]
    excess = high - expected - SLACK * math.sqrt(expected + 1.0)
    return max(0.0, min(1.0, excess / high))


def pulled_rate(said: list[Said], player: int, band: frozenset[int], prior: float) -> float:
    """How often `player`'s declarations in `band` were pulled (Beta posterior mean; the
    prior counts as `PRIOR_STRENGTH` declarations)."""
    pulled = n = 0
    for s in said:
        if s.p == player and s.v in band:
            n += 1
            pulled += s.t is not None
    return (PRIOR_STRENGTH * prior + pulled) / (PRIOR_STRENGTH + n)
