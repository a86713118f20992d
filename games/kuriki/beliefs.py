"""What a seat has learned about each player from the table's public record (`state.said`:
every declaration, and the dice of every pulled one), as a person at the table would.

Two kinds of evidence, per player and per kind of declaration (fresh roll or on a point):

- **Revealed cups.** Each pull shows "a lie!" or the truth: a Beta prior on the player's lie
  rate, centred on the sensible-player model (`policy.lie_chance`), updated by each one.
- **How often they declare a value.** The dice cap how often a declaration of `d` can be
  true: of `n` declarations, about `n * P(roll = d)`. A player who declares Double-Five
  on ten fresh rolls out of ten must be lying on most of them, pulled or not; the excess
  over the dice's share (with a couple of declarations counted true beforehand, so a few
  lucky rolls are forgiven) is a floor on their lie rate.

The same record tells how often a player's own declarations were pulled (`pulled_rate`), so
the bot can stop bluffing into someone who pulls everything."""

from __future__ import annotations

from games.kuriki.engine import Said

PRIOR_STRENGTH = 4.0  # the model counts as this many revealed cups
TRUE_PRIOR = 2.0  # declarations counted as true before the first is seen: luck forgiven


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
    said: list[Said], player: int, fresh: bool, declared: int, odds: dict[int, float]
) -> float:
    """The share of `player`'s declarations of `declared` (same kind: fresh or on a point)
    that the dice cannot account for: a floor on how often such a declaration of theirs is a
    lie. `odds[v]` is the chance a roll (not a Kuriki, which is shown) is worth exactly `v`:
    a declaration of `v` is true about that often, whoever declares it."""
    mine = [s for s in said if s.p == player and _fresh(s) == fresh]
    same = sum(1 for s in mine if s.v == declared)
    if not same:
        return 0.0
    true = len(mine) * odds[declared] + TRUE_PRIOR
    return max(0.0, 1.0 - true / (same + TRUE_PRIOR))


def pulled_rate(said: list[Said], player: int, band: frozenset[int], prior: float) -> float:
    """How often `player`'s declarations in `band` were pulled (Beta posterior mean; the
    prior counts as `PRIOR_STRENGTH` declarations)."""
    pulled = n = 0
    for s in said:
        if s.p == player and s.v in band:
            n += 1
            pulled += s.t is not None
    return (PRIOR_STRENGTH * prior + pulled) / (PRIOR_STRENGTH + n)
