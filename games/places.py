"""Finishing places: where each player ended a game, as ratings read it. Every engine says
its finishing order as groups of player ids, best first, a group being players the game
does not tell apart (equal scores, or out at once); `places` numbers them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

#: Groups of player ids, best first; the players of one group tie.
Order = list[list[int]]


def places(order: Iterable[Sequence[int]]) -> dict[int, int]:
    """Each player's place from a finishing order: 1 for the first group, and a group after
    n players is placed n + 1, so tied players share a place and the next is skipped (1, 2,
    2, 4). A player named twice keeps their first (better) place; empty groups are skipped."""
    out: dict[int, int] = {}
    for group in order:
        fresh = [p for p in dict.fromkeys(group) if p not in out]
        place = len(out) + 1
        for p in fresh:
            out[p] = place
    return out


def by_score(players: Iterable[tuple[int, int]]) -> Order:
    """(id, score) pairs as groups of equal score, highest first, in their given order
    within a group."""
    groups: dict[int, list[int]] = {}
    for pid, score in players:
        groups.setdefault(score, []).append(pid)
    return [groups[s] for s in sorted(groups, reverse=True)]


def exits(gone: Sequence[int]) -> Order:
    """Players who went out of a game (they left, or lost their last life), in the order
    they went: each below everyone still in it, and below whoever went after them."""
    return [[p] for p in reversed(gone)]
