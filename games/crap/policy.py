"""Interim CRAP policy (replaced by the real one at merge): score a set when it can, else
recycle; never calls a bluff; commits its first cards and guesses the first value and suit."""

from __future__ import annotations

import random

from games.crap import engine
from games.crap.cards import RANKS, SUITS, is_joker, rank
from games.crap.engine import Action, CrapState


def choose(state: CrapState, seat: int, rng: random.Random, now: float = 0.0) -> Action | None:
    """The move `seat` makes now; None when it has nothing to do."""
    legal = engine.legal_actions(state, seat)
    me = next((p for p in state.players if p.id == seat), None)
    if not legal or me is None:
        return None
    if "score" in legal:
        r = engine.scorable_ranks(me)[0]
        cards = me.hand + me.protected
        natural = [c for c in cards if not is_joker(c) and rank(c) == r]
        jokers = [c for c in cards if is_joker(c)]
        return Action(kind="score", cards=(natural + jokers)[:4], now=now)
    if "recycle" in legal:
        return Action(kind="recycle", now=now)
    if "no_call" in legal:
        return Action(kind="no_call", now=now)
    if "commit" in legal:
        return Action(kind="commit", cards=me.hand[: engine.challenge_size(state, seat)], now=now)
    if "guess" in legal:
        return Action(kind="guess", rank=RANKS[0], suit=SUITS[0], now=now)
    if "vote" in legal:
        return Action(kind="vote", value="no", now=now)
    return None
