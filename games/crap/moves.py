"""Every legal move a CRAP player may make now, as engine Actions: what a computer player
(or a test) chooses from. Scoring lists one choice of cards per set (naturals first, the
fewest jokers); the other card choices only spend more jokers. Challenge cards are listed
as every combination, lazily (a big hand has many)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from games.crap.cards import RANKS, SUITS, is_joker, rank
from games.crap.engine import (
    Action,
    CPlayer,
    CrapState,
    challenge_size,
    legal_actions,
    scorable_ranks,
)


def set_cards(player: CPlayer, r: int, size: int) -> list[int] | None:
    """`size` (4 or 8) cards scoring rank r from hand and protected row, naturals first and
    jokers only to fill in; None when the player has not enough."""
    cards = player.hand + player.protected
    naturals = [c for c in cards if rank(c) == r]
    jokers = [c for c in cards if is_joker(c)]
    if not naturals or len(naturals) + len(jokers) < size:
        return None
    chosen = naturals[:size]
    return chosen + jokers[: size - len(chosen)]


def legal_moves(
    state: CrapState, seat: int, now: float = 0.0, kind: str | None = None
) -> Iterator[Action]:
    """The Actions `seat` may make now (only those of `kind` if given), each accepted by
    engine.apply at `now` unless a window closes by then."""
    kinds = legal_actions(state, seat)
    if kind is not None:
        kinds &= {kind}
    me = state.player(seat)
    others = [p.id for p in state.players if p.id != seat]
    if "score" in kinds:
        for r in scorable_ranks(me):
            for size in (4, 8):
                cards = set_cards(me, r, size)
                if cards is not None:
                    yield Action(kind="score", cards=cards, now=now)
    if "recycle" in kinds:
        yield Action(kind="recycle", now=now)
    if "acquire" in kinds:
        for r in RANKS:
            yield Action(kind="acquire", rank=r, now=now)
    if "protect" in kinds:
        for c in me.hand:
            yield Action(kind="protect", cards=[c], now=now)
    for k in ("challenge", "cooperate", "force"):
        if k in kinds:
            for target in others:
                yield Action(kind=k, target=target, now=now)
    for answer in ("call_bluff", "no_call"):
        if answer in kinds:
            yield Action(kind=answer, now=now)
    if "commit" in kinds:
        for chosen in combinations(me.hand, challenge_size(state, seat)):
            yield Action(kind="commit", cards=list(chosen), now=now)
    if "guess" in kinds:
        for r in RANKS:
            for s in SUITS:
                yield Action(kind="guess", rank=r, suit=s, now=now)
    if "vote" in kinds:
        for value in ("yes", "no"):
            yield Action(kind="vote", value=value, now=now)
