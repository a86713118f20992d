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
from bot.pictures.text import drawable, fit, font, least_size, wrap, write

FILENAME = "dice.png"
#: Narrow enough that Discord's phone view (about 320 px wide) keeps every word legible:
#: the smallest text is `SMALL` (`text.least_size`), sentences wrap rather than shrink.
WIDTH = 640
SMALL = least_size(WIDTH)
PLOT = 200  # a panel's plot height
LINE = SMALL + 8  # a line of the words under a panel
LEFT, RIGHT = 76, WIDTH - 20
BAR = (88, 160, 255)
BAND = (62, 66, 74)


def _head(name: str, game: str) -> tuple[str, list[str]]:
    who = drawable(name)
    title = (
        _("{name}'s dice · {game}", name=who, game=game)
        if any(c.isalnum() for c in who)
        else _("Their dice · {game}", game=game)
    )
    legend = _("bars: rolled · gold: fair dice · band: fair dice 19 times in 20")
    return fit(title, 32, WIDTH - 40), wrap(legend, SMALL, WIDTH - 40)


def _words(spread: Spread) -> tuple[list[str], list[str]]:
    """The chi-square test under a panel, in words and in figures, wrapped to the width."""
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
    width = RIGHT - LEFT + 40
    return wrap(spread.words(), SMALL, width), wrap(figure, SMALL, width)


def _staggered(spread: Spread) -> bool:
    """Whether the outcomes' labels take two rows (too many for one: Kuriki's 21 rolls)."""
    slot = (RIGHT - LEFT) / len(spread.counts)
    return max(font(SMALL).getlength(t) for t in spread.labels) + 6 > slot


def panel_height(spread: Spread) -> int:
    """A panel's height: its heading, plot, labels and the chi-square test's lines."""
    words, figure = _words(spread)
    labels = LINE * (2 if _staggered(spread) else 1)
    return 34 + PLOT + 8 + labels + 8 + LINE * (len(words) + len(figure)) + 16


def _top(legend: list[str]) -> int:
    return 56 + LINE * len(legend) + 8


@plain_text()  # a picture reads no markdown: the name is drawn as written
def luck_picture(name: str, game: str, shown: list[Spread]) -> bytes:
    """`name`'s dice in `game` ("Farkle", "all games", in the reader's language), one panel
    per spread."""
    title, legend = _head(name, game)
    top = _top(legend)
    height = top + sum(panel_height(s) for s in shown)
    img = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(img)
    write(draw, (WIDTH // 2, 30), title, 32, TEXT, "mm")
    for i, line in enumerate(legend):
        write(draw, (WIDTH // 2, 56 + i * LINE), line, SMALL, MUTED, "mt")
    for spread in shown:
        _panel(draw, spread, top)
        top += panel_height(spread)
    return _png(img)


def picture_height(name: str, game: str, shown: list[Spread]) -> int:
    """The height `luck_picture` draws at."""
    return _top(_head(name, game)[1]) + sum(panel_height(s) for s in shown)


def _panel(draw: ImageDraw.ImageDraw, spread: Spread, top: int) -> None:
    left, right = LEFT, RIGHT
    head, bottom = top + 34, top + 34 + PLOT
    heading = _("{title}: {total}", title=_(spread.title), total=spread.total)
    write(draw, (20, top + 12), fit(heading, 24, WIDTH - 40), 24, TEXT, "lm")
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
        write(draw, (left - 8, y(v)), fit(number(v), SMALL, left - 10), SMALL, MUTED, "rm")
    slot = (right - left) / len(spread.counts)
    bar = min(slot * 0.6, 60)
    two_rows = _staggered(spread)
    for k, (seen, e, sd) in enumerate(zip(spread.counts, expected, spread_sd, strict=True)):
        mid = left + slot * (k + 0.5)
        x0, x1 = mid - slot * 0.45, mid + slot * 0.45
        draw.rectangle((x0, y(min(e + 2 * sd, high)), x1, y(max(e - 2 * sd, 0))), fill=BAND)
        if seen:
            draw.rectangle((mid - bar / 2, y(seen), mid + bar / 2, bottom), fill=BAR)
        draw.line((x0, y(e), x1, y(e)), fill=GOLD, width=3)
        row = k % 2 if two_rows else 0  # every other label a row lower: they do not touch
        write(draw, (mid, bottom + 8 + row * LINE), spread.labels[k], SMALL, TEXT, "mt")
    words, figure = _words(spread)
    y0 = bottom + 8 + LINE * (2 if two_rows else 1) + 8
    for i, line in enumerate(words):
        write(draw, (20, y0 + i * LINE), line, SMALL, TEXT, "lt")
    y0 += LINE * len(words)
    for i, line in enumerate(figure):
        write(draw, (20, y0 + i * LINE), line, SMALL, MUTED, "lt")
