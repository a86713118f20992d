"""The picture /stats dice attaches: a player's dice against fair dice (bot/luck.py). One
panel per spread: a bar per outcome, the count fair dice would give as a gold tick across
it, and a shaded band where fair dice land 19 times in 20 (two standard deviations); under
each panel the chi-square test in words. Drawn like the story picture (bot/pictures/story.py):
Discord's dark background, the bundled font, a small palette PNG. Callers run it in a thread
(`asyncio.to_thread` copies the context: the words are in the reader's language)."""

from __future__ import annotations

import math

from PIL import Image, ImageDraw

from bot.i18n import _, _n, number, plain_text
from bot.luck import Spread
from bot.pictures.story import BACKGROUND, GOLD, GRID, MUTED, TEXT, _nice_step, _png
from bot.pictures.text import drawable, fit, write

FILENAME = "dice.png"
WIDTH = 960
PANEL = 380  # a panel's height, its words included
BAR = (88, 160, 255)
BAND = (62, 66, 74)


@plain_text()  # a picture reads no markdown: the name is drawn as written
def luck_picture(name: str, game: str, shown: list[Spread]) -> bytes:
    """`name`'s dice in `game` ("Farkle", "all games", in the reader's language), one panel
    per spread."""
    height = 90 + PANEL * len(shown)
    img = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(img)
    who = drawable(name)
    title = (
        _("{name}'s dice · {game}", name=who, game=game)
        if any(c.isalnum() for c in who)
        else _("Their dice · {game}", game=game)
    )
    write(draw, (WIDTH // 2, 30), fit(title, 32, WIDTH - 60), 32, TEXT, "mm")
    legend = _("bars: rolled · gold: fair dice · band: fair dice 19 times in 20")
    write(draw, (WIDTH // 2, 62), fit(legend, 18, WIDTH - 40), 18, MUTED, "mm")
    for i, spread in enumerate(shown):
        _panel(draw, spread, 90 + i * PANEL)
    return _png(img)


def _panel(draw: ImageDraw.ImageDraw, spread: Spread, top: int) -> None:
    left, right = 80, WIDTH - 30
    head, bottom = top + 34, top + PANEL - 110
    heading = _("{title}: {total}", title=_(spread.title), total=spread.total)
    write(draw, (left, top + 12), fit(heading, 24, right - left), 24, TEXT, "lm")
    expected = spread.expected()
    spread_sd = [
        math.sqrt(spread.total * p * (1 - p)) for p in spread.chances
    ]  # a count's standard deviation with fair dice
    high = max([*spread.counts, *(e + 2 * sd for e, sd in zip(expected, spread_sd, strict=True)), 1])
    step = _nice_step(high)
    high = math.ceil(high / step) * step

    def y(v: float) -> float:
        return bottom - v / high * (bottom - head)

    for v in range(0, int(high) + 1, step):
        draw.line((left, y(v), right, y(v)), fill=GRID, width=1)
        write(draw, (left - 10, y(v)), number(v), 18, MUTED, "rm")
    slot = (right - left) / len(spread.counts)
    bar = min(slot * 0.6, 60)
    label_size = 20 if slot >= 34 else 15
    for k, (seen, e, sd) in enumerate(zip(spread.counts, expected, spread_sd, strict=True)):
        mid = left + slot * (k + 0.5)
        x0, x1 = mid - slot * 0.45, mid + slot * 0.45
        draw.rectangle((x0, y(min(e + 2 * sd, high)), x1, y(max(e - 2 * sd, 0))), fill=BAND)
        if seen:
            draw.rectangle((mid - bar / 2, y(seen), mid + bar / 2, bottom), fill=BAR)
        draw.line((x0, y(e), x1, y(e)), fill=GOLD, width=3)
        write(draw, (mid, bottom + 8), spread.labels[k], label_size, TEXT, "mt")
    p = spread.p_value()
    figure = (
        _n(
            "chi-square {chi}, {n} degree of freedom, p = {p}",
            "chi-square {chi}, {n} degrees of freedom, p = {p}",
            len(spread.counts) - 1,
            chi=number(spread.chi_square(), 1),
            p=number(p, 3),
        )
        if p is not None
        else _("not enough yet for the chi-square test")
    )
    write(draw, (left, bottom + 44), fit(spread.words(), 20, right - left), 20, TEXT, "lt")
    write(draw, (left, bottom + 74), fit(figure, 18, right - left), 18, MUTED, "lt")
