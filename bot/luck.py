"""Luck, shown: a player's dice against fair dice, so that "the dice hate me" can be looked
at. The counts are kept with their records as games end (`records.LUCK`, counted from each
game's sealed draws by bot/sealed.py); what fair dice give is arithmetic; how unusual the
difference is, Pearson's chi-square test, its p-value computed here (no scipy needed).
bot/pictures/luck.py draws it."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from bot.i18n import N_, _
from bot.records import CUPS, FACES, percent
from games.kuriki.values import roll_value

#: A chi-square test needs about this many expected in every box to mean anything.
MIN_EXPECTED = 5


@dataclass(frozen=True)
class Spread:
    """Counts of outcomes against their chances with fair dice. `title` is a catalogue key,
    shown as `_(spread.title)`; `labels` are dice, shown as they are."""

    title: str
    labels: list[str]
    counts: list[int]
    chances: list[float]

    @property
    def total(self) -> int:
        return sum(self.counts)

    def expected(self) -> list[float]:
        return [self.total * p for p in self.chances]

    def chi_square(self) -> float:
        return sum(
            (seen - e) ** 2 / e for seen, e in zip(self.counts, self.expected(), strict=True) if e
        )

    def p_value(self) -> float | None:
        """How often fair dice would look at least this uneven; None with too few dice."""
        if not self.total or min(self.expected()) < MIN_EXPECTED:
            return None
        return chi_square_p(self.chi_square(), len(self.counts) - 1)

    def words(self) -> str:
        """The test's answer in plain words, in the current language."""
        p = self.p_value()
        if p is None:
            need = math.ceil(MIN_EXPECTED / min(self.chances))
            return _(
                "Too few yet to tell luck from chance: {total} so far, about {need} are needed.",
                total=self.total,
                need=need,
            )
        if p >= 0.05:
            return _(
                "Nothing unusual: fair dice give a spread at least this uneven {often} of the "
                "time.",
                often=percent(p, 1),
            )
        if p >= 0.01:
            return _(
                "Unusual: fair dice are this uneven only {often} of the time (among many "
                "players, a few see it by chance).",
                often=percent(p, 1),
            )
        if p >= 0.001:
            return _(
                "Unusual: fair dice are this uneven less than {often} of the time (among many "
                "players, a few see it by chance).",
                often=percent(1, 100),
            )
        return _("Very unusual: fair dice are this uneven less than once in a thousand tries.")


def faces(luck: dict[str, int]) -> Spread:
    """Every die rolled, by its face."""
    return Spread(
        N_("Every die rolled, by face"),
        [str(face) for face in range(1, 7)],
        [luck.get(key, 0) for key in FACES],
        [1 / 6] * 6,
    )


def cups(luck: dict[str, int]) -> Spread:
    """Kuriki rolls under the cup, the best first (Kuriki, the doubles, then 6-5 down to
    3-1): a double is 1 roll in 36, any other pair 2 in 36."""
    keys = sorted(CUPS, key=lambda k: -roll_value(int(k[-1]), int(k[-2]), two_digit=True))
    return Spread(
        N_("Kuriki rolls under the cup"),
        [f"{key[-1]}-{key[-2]}" for key in keys],  # the high die first
        [luck.get(key, 0) for key in keys],
        [(1 if key[-1] == key[-2] else 2) / 36 for key in keys],
    )


def spreads(kind: str | None, luck: dict[str, int]) -> list[Spread]:
    """What the picture shows: the faces, and for Kuriki its rolls too."""
    shown = [faces(luck)]
    if kind == "kuriki":
        shown.append(cups(luck))
    return shown


def added(lucks: Iterable[dict[str, int]]) -> dict[str, int]:
    """Several games' counts together (/stats over every game)."""
    out: dict[str, int] = {}
    for luck in lucks:
        for key, count in luck.items():
            out[key] = out.get(key, 0) + count
    return out


def chi_square_p(x: float, freedom: int) -> float:
    """P(X >= x) for X chi-square with `freedom` degrees: the regularized upper incomplete
    gamma function Q(freedom/2, x/2), by its series below a+1 and its continued fraction
    above (the textbook way, good to about 1e-12)."""
    if x <= 0:
        return 1.0
    a, half = freedom / 2, x / 2
    scale = math.exp(-half + a * math.log(half) - math.lgamma(a))
    if half < a + 1:
        term = total = 1 / a
        n = a
        for _step in range(10_000):
            n += 1
            term *= half / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return min(1.0, max(0.0, 1 - total * scale))
    tiny = 1e-300
    b = half + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, max(0.0, scale * h))
