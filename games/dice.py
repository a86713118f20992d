"""Dice rules the games share, and how an engine throws dice."""

from __future__ import annotations

import random

from games.draws import Draws


def roll(rng: random.Random, count: int, roller: int, what: str) -> list[int]:
    """`count` dice thrown by `roller`; `what` names the throw ("throw", "roll-off"). A
    game's sealed draws (`games.draws.Draws`) record whose dice they were, for the check
    after the game and each player's dice in /stats; any other Random just rolls."""
    if isinstance(rng, Draws):
        return rng.dice(count, roller, what)
    return [rng.randint(1, 6) for _ in range(count)]


def roll_off(
    contenders: list[int], rng: random.Random, *, lowest_wins: bool = False
) -> tuple[int, list[dict[int, int]]]:
    """Everyone (player ids) rolls one die; those tied for the best roll again until one is
    left.

    Returns the winner and each round's rolls (for the table's log)."""
    rounds: list[dict[int, int]] = []
    while len(contenders) > 1:
        rolls = {c: roll(rng, 1, c, "roll-off")[0] for c in contenders}
        rounds.append(rolls)
        best = min(rolls.values()) if lowest_wins else max(rolls.values())
        contenders = [c for c, r in rolls.items() if r == best]
    return contenders[0], rounds
