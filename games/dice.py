"""Dice rules the games share."""

from __future__ import annotations

import random


def roll_off(
    contenders: list[int], rng: random.Random, *, lowest_wins: bool = False
) -> tuple[int, list[dict[int, int]]]:
    """Everyone rolls one die; those tied for the best roll again until one is left.

    Returns the winner and each round's rolls (for the table's log)."""
    rounds: list[dict[int, int]] = []
    while len(contenders) > 1:
        rolls = {c: rng.randint(1, 6) for c in contenders}
        rounds.append(rolls)
        best = min(rolls.values()) if lowest_wins else max(rolls.values())
        contenders = [c for c, r in rolls.items() if r == best]
    return contenders[0], rounds
