"""The scripted RNG every engine test uses: dice come from a script, and running out of
script fails loudly instead of silently rolling something else."""

from __future__ import annotations

import random
from collections.abc import Iterable


class ScriptedRandom(random.Random):
    """A Random whose randint returns scripted values, failing loudly when they run out."""

    def __init__(self, values: Iterable[int] = ()) -> None:
        super().__init__(0)
        self.script: list[int] = list(values)
        self.calls: list[tuple[int, int]] = []

    def load(self, *values: int) -> None:
        self.script.extend(values)

    def randint(self, a: int, b: int) -> int:
        self.calls.append((a, b))
        if not self.script:
            raise AssertionError(
                f"scripted dice ran out (randint({a}, {b}) call {len(self.calls)})"
            )
        value = self.script.pop(0)
        assert a <= value <= b, f"scripted {value} is outside randint({a}, {b})"
        return value
