"""The picture a finished table carries: the game's story at a glance. Farkle: each player's
score after each of their turns, the target marked; CRAP: the scores after each scoring
round, the threshold marked; Kuriki: the star score pads of the rule text (one arm per life,
the centre last), with crowns and fouls.

Drawn on Discord's dark background, large enough to read on a phone, saved as a palette PNG
(well under 200 KB). Rendering takes tens of milliseconds: callers run it in a thread.

A picture is drawn from its story (`story_of`: plain data, a line chart's series or the score
pads, everything public), which the finished game keeps, so /history draws it again later
(`draw_story`). Its words are messages (`games.text.Msg`), rendered in the reader's language
when it is drawn; a story kept by an earlier version holds English text, drawn as it is."""

from __future__ import annotations

import io
import itertools
import math
from collections.abc import Callable
from typing import Annotated, Any, Literal

from PIL import Image, ImageDraw
from pydantic import BaseModel, Field, TypeAdapter

from bot.i18n import _n, _p, number, plain_text, render
from bot.pictures.text import fit, font, least_size, player_names, write
from games.bots import is_bot
from games.crap.engine import CrapState
from games.farkle.engine import FarkleState
from games.kuriki.engine import KurikiState
from games.text import Line, M, Mn, Msg

FILENAME = "story.png"
BACKGROUND = (43, 45, 49)
TEXT = (235, 236, 238)
MUTED = (150, 155, 165)
GRID = (70, 73, 80)
TARGET = (237, 66, 69)
GOLD = (250, 200, 40)
#: Line colours, distinct on a dark background; a table of more players reuses them dashed.
COLOURS = [
    (88, 160, 255),
    (87, 242, 135),
    (254, 231, 92),
    (235, 69, 158),
    (255, 145, 60),
    (160, 120, 255),
    (60, 220, 220),
    (240, 240, 240),
    (190, 140, 90),
    (255, 110, 110),
]


class Series(BaseModel):
    """One player's line: their scores at x = 0, 1, 2... `bot`: drawn with a robot's head
    instead of the 🤖 of its name; `left`: the player left the game."""

    name: str
    points: list[int]
    won: bool = False
    bot: bool = False
    left: bool = False


class LineStory(BaseModel):
    """Scores over time (Farkle, CRAP): a line per player and the target."""

    chart: Literal["line"] = "line"
    title: Line
    x_label: Line
    series: list[Series]
    target: int
    target_label: Line


class Pad(BaseModel):
    """One Kuriki player's score pad."""

    name: str
    bot: bool = False
    lives: int
    crowns: int = 0
    fouls: int = 0
    won: bool = False
    tarted: bool = False
    left: bool = False


class PadStory(BaseModel):
    """Kuriki: the score pads in seating order."""

    chart: Literal["pads"] = "pads"
    title: Line
    lives: int
    pads: list[Pad]


Story = Annotated[LineStory | PadStory, Field(discriminator="chart")]
_STORY: TypeAdapter[LineStory | PadStory] = TypeAdapter(Story)


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    # A palette keeps the file small (a few dozen KB); the fast quantizer keeps the drawing
    # to tens of milliseconds.
    image.quantize(colors=64, method=Image.Quantize.FASTOCTREE).save(
        out, format="PNG", compress_level=6
    )
    return out.getvalue()


def _nice_step(span: float) -> int:
    """A round grid step giving about five lines over `span`."""
    raw = max(span / 5, 1)
    power = 10 ** math.floor(math.log10(raw))
    return int(next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw))


#: The line charts' width: a phone shows their axes and legend legibly (`least_size`).
LINE_W = 640


@plain_text()  # a picture reads no markdown: names are drawn as written
def line_chart(story: LineStory) -> bytes:
    """Scores over time, one line per player, with the target as a dashed red line and a
    legend of names and final scores (the winner's in gold, with a crown)."""
    title, x_label, series = render(story.title), render(story.x_label), story.series
    target, target_label = story.target, render(story.target_label)
    width, small = LINE_W, least_size(LINE_W)
    height = 560 + 34 * len(series) + 16  # the legend: a player a line
    img = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(img)
    write(draw, (width // 2, 30), fit(title, 32, width - 40), 32, TEXT, "mm")
    left, right, top, bottom = 90, width - 24, 70, 490
    values = [v for s in series for v in s.points] + [0, target]
    low, high = min(values), max(values)
    high += max((high - low) // 12, 1)
    step = _nice_step(high - low)
    low = math.floor(low / step) * step

    def y(v: float) -> float:
        return bottom - (v - low) / (high - low) * (bottom - top)

    longest = max((len(s.points) for s in series), default=1)
    last_x = max(longest - 1, 1)

    def x(i: float) -> float:
        return left + i / last_x * (right - left)

    for v in range(int(low), int(high) + 1, step):
        draw.line((left, y(v), right, y(v)), fill=GRID, width=1)
        write(draw, (left - 8, y(v)), fit(number(v), small, left - 10), small, MUTED, "rm")
    # about one turn number per 60 px: a long game's numbers never touch
    x_step = max(1, _nice_step(last_x * 60 / (right - left) * 5) if last_x > 8 else 1)
    for i in range(0, last_x + 1, x_step):
        write(draw, (x(i), bottom + 12), str(i), small, MUTED, "mt")
    write(draw, ((left + right) // 2, bottom + 42), fit(x_label, small, right - left), small, MUTED, "mt")
    _dashed(draw, (left, y(target)), (right, y(target)), TARGET, 3)
    write(draw, (left + 8, y(target) - 6), fit(target_label, small, right - left), small, TARGET, "lb")
    for n, s in enumerate(series):
        colour = COLOURS[n % len(COLOURS)]
        pts = [(x(i), y(v)) for i, v in enumerate(s.points)]
        if len(pts) > 1:
            if n >= len(COLOURS):
                for a, b in itertools.pairwise(pts):
                    _dashed(draw, a, b, colour, 4)
            else:
                draw.line(pts, fill=colour, width=4, joint="curve")
        for px, py in pts[-1:]:
            draw.ellipse((px - 6, py - 6, px + 6, py + 6), fill=colour)
    names = player_names([s.name for s in series])
    for n, (s, name) in enumerate(zip(series, names, strict=True)):
        colour = COLOURS[n % len(COLOURS)]
        lx, ly = 30, 570 + n * 34
        draw.rectangle((lx, ly - 8, lx + 26, ly + 8), fill=colour)
        ink = GOLD if s.won else TEXT
        tx = lx + 38
        if s.won:
            _crown(draw, tx + 11, ly + 2, GOLD)
            tx += 32
        if s.bot:
            robot(draw, tx + 11, ly, 22, ink, BACKGROUND)
            tx += 30
        final = number(s.points[-1] if s.points else 0)
        score = (
            " " + _p("a player who left the game", "(left): {score}", score=final)
            if s.left
            else f": {final}"
        )
        room = width - 20 - tx - font(24).getlength(score)
        draw.text((tx, ly), fit(name, 24, room) + score, font=font(24), fill=ink, anchor="lm")
    return _png(img)


def _dashed(
    draw: ImageDraw.ImageDraw,
    a: tuple[float, float],
    b: tuple[float, float],
    colour: tuple[int, int, int],
    width: int,
    dash: float = 14,
) -> None:
    length = math.dist(a, b)
    if length == 0:
        return
    steps = int(length // dash)
    for k in range(0, steps + 1, 2):
        t0, t1 = k * dash / length, min((k + 1) * dash / length, 1)
        draw.line(
            (
                a[0] + (b[0] - a[0]) * t0,
                a[1] + (b[1] - a[1]) * t0,
                a[0] + (b[0] - a[0]) * t1,
                a[1] + (b[1] - a[1]) * t1,
            ),
            fill=colour,
            width=width,
        )


# ---------------------------------------------------------------- per game


def farkle_line(state: FarkleState) -> LineStory:
    """Each player's score after each of their turns (0 before the first)."""
    winners = {state.winner}
    target = state.rules.target
    return LineStory(
        # The rule set's name: a preset's translated where the catalogues have it
        title=M("Farkle · {rules}", rules=Msg(k=state.rules.name)),
        x_label=M("turns played"),
        series=[
            Series(
                name=p.name,
                points=[0] + [score for pid, score in state.history if pid == p.id],
                won=p.id in winners,
                bot=is_bot(p.id),
                left=p in state.departed,
            )
            for p in state.players + state.departed
        ],
        target=target,
        target_label=(
            M("target {target}", target=target)
            if state.rules.target_inclusive
            else M("beat {target}", target=target)
        ),
    )


def crap_line(state: CrapState) -> LineStory:
    """Every player's score after each scoring round (0 before the first)."""
    return LineStory(
        title=M("CRAP · scores after each scoring round"),
        x_label=M("scoring rounds"),
        series=[
            Series(
                name=p.name,
                points=[0] + [r.get(str(p.id), 0) for r in state.history],
                won=p.id in state.winners,
                bot=is_bot(p.id),
            )
            for p in state.players
        ],
        target=state.rules.threshold,
        target_label=M("threshold {threshold}", threshold=state.rules.threshold),
    )


def kuriki_pads(state: KurikiState) -> PadStory:
    """Each player's lives, Kurikis and fouls, the winners and the Tarted player."""
    winners = state.winners or ([] if state.winner is None else [state.winner])
    return PadStory(
        title=Mn("Kuriki · {n} life", "Kuriki · {n} lives", state.rules.lives),
        lives=state.rules.lives,
        pads=[
            Pad(
                name=p.name,
                bot=is_bot(p.id),
                lives=p.lives,
                crowns=p.crowns,
                fouls=p.fouls,
                won=p.id in winners,
                tarted=p.id == state.tarted,
                left=p.left,
            )
            for p in state.players
        ],
    )


def farkle_story(state: FarkleState) -> bytes:
    return line_chart(farkle_line(state))


def crap_story(state: CrapState) -> bytes:
    return line_chart(crap_line(state))


def kuriki_story(state: KurikiState) -> bytes:
    return pad_chart(kuriki_pads(state))


PAD_W, PAD_H = 240, 300
#: Score pads a row: two, so that a phone (about 320 px wide) shows a pad's words legibly.
PAD_COLUMNS = 2


@plain_text()
def pad_chart(story: PadStory) -> bytes:
    """One score pad per player, in seating order: a star of `lives - 1` arms, a spot at an
    arm's end per life lost and the centre for the last life; crowns for Kurikis, the fouls
    counted in words ("2 fouls"); the winner framed in gold, the Tarted player named."""
    pads = story.pads
    cols = min(len(pads), PAD_COLUMNS) or 1
    rows = math.ceil(len(pads) / cols) if pads else 1
    img = Image.new("RGB", (cols * PAD_W, 60 + rows * PAD_H), BACKGROUND)
    draw = ImageDraw.Draw(img)
    write(draw, (img.width // 2, 30), fit(render(story.title), 30, img.width - 20), 30, TEXT, "mm")
    names = player_names([p.name for p in pads])
    for n, (pad, name) in enumerate(zip(pads, names, strict=True)):
        left, top = (n % cols) * PAD_W, 60 + (n // cols) * PAD_H
        _pad(draw, pad, name, story.lives, left, top)
    return _png(img)


def _pad(draw: ImageDraw.ImageDraw, p: Pad, name: str, lives: int, left: int, top: int) -> None:
    won = p.won
    ink, spot, paper = (40, 40, 60), (200, 30, 40), (250, 247, 232)
    box = (left + 10, top + 6, left + PAD_W - 10, top + PAD_H - 10)
    draw.rounded_rectangle(
        box,
        radius=14,
        fill=paper,
        outline=GOLD if won else (120, 120, 120),
        width=6 if won else 2,
    )
    icon = 30 if p.bot else 0  # a bot's robot head, before its name
    name = fit(name, 24, PAD_W - 40 - icon)
    nx = left + (PAD_W - font(24).getlength(name) - icon) / 2
    if icon:
        robot(draw, nx + 11, top + 30, 22, ink, paper)
    draw.text((nx + icon, top + 30), name, font=font(24), fill=ink, anchor="lm")
    cx, cy, arm = left + PAD_W // 2, top + 140, 70
    arms = lives - 1
    ends = []
    for k in range(arms):  # arms evenly spread, the first pointing up
        angle = -math.pi / 2 + k * 2 * math.pi / arms
        ends.append((cx + arm * math.cos(angle), cy + arm * math.sin(angle)))
    for ex, ey in ends:
        draw.line((cx, cy, ex, ey), fill=ink, width=4)
    lost = lives - p.lives
    for ex, ey in ends[:lost]:
        draw.ellipse((ex - 11, ey - 11, ex + 11, ey + 11), fill=spot)
    if lost >= lives:  # the last life: the centre where the arms cross
        draw.ellipse((cx - 13, cy - 13, cx + 13, cy + 13), fill=spot)
    else:
        draw.ellipse((cx - 5, cy - 5, cx + 5, cy + 5), fill=ink)
    y = top + 232
    crowns = p.crowns if p.crowns <= 7 else 1  # many: one crown and how many ("👑 ×12")
    for c in range(crowns):
        _crown(draw, left + 30 + c * 26, y, GOLD)
    if crowns < p.crowns:
        write(draw, (left + 50, y), f"×{p.crowns}", 20, ink, "lm")
    fouls = _n("{n} foul", "{n} fouls", p.fouls) if p.fouls else ""
    status = (
        _p("score pad", "winner")
        if won
        # Translators: Kuriki's name for the first player out (a proper noun in the rules)
        else _p("score pad", "Tarted")
        if p.tarted
        else _p("a player who left the game", "left")
        if p.left
        else ""
    )
    bottom = "  ".join(t for t in (fouls, status) if t)
    write(draw, (left + PAD_W // 2, top + 268), fit(bottom, 20, PAD_W - 24), 20, spot, "mm")


def _crown(draw: ImageDraw.ImageDraw, x: float, y: float, colour: tuple[int, int, int]) -> None:
    """A small crown (a Kuriki), its base centred on (x, y)."""
    draw.polygon(
        [
            (x - 11, y + 8),
            (x - 11, y - 6),
            (x - 5, y),
            (x, y - 10),
            (x + 5, y),
            (x + 11, y - 6),
            (x + 11, y + 8),
        ],
        fill=colour,
        outline=(120, 90, 0),
    )


def robot(
    draw: ImageDraw.ImageDraw,
    x: float,
    y: float,
    h: float,
    colour: tuple[int, int, int],
    eyes: tuple[int, int, int],
) -> None:
    """A robot's head `h` high centred on (x, y), the mark of a bot player: drawn, since no
    font of a reasonable size has the 🤖 emoji. `eyes` is the colour behind it."""
    draw.line((x, y - 0.5 * h, x, y - 0.25 * h), fill=colour, width=max(2, round(h / 11)))
    draw.ellipse((x - 0.1 * h, y - 0.55 * h, x + 0.1 * h, y - 0.35 * h), fill=colour)
    draw.rectangle((x - 0.56 * h, y - 0.02 * h, x + 0.56 * h, y + 0.26 * h), fill=colour)  # ears
    draw.rounded_rectangle(
        (x - 0.45 * h, y - 0.28 * h, x + 0.45 * h, y + 0.5 * h), radius=0.14 * h, fill=colour
    )
    for ex in (x - 0.2 * h, x + 0.2 * h):
        draw.ellipse((ex - 0.1 * h, y - 0.02 * h, ex + 0.1 * h, y + 0.18 * h), fill=eyes)
    draw.line((x - 0.18 * h, y + 0.33 * h, x + 0.18 * h, y + 0.33 * h), fill=eyes, width=2)


STORIES: dict[str, Callable[[Any], LineStory | PadStory]] = {
    "farkle": farkle_line,
    "kuriki": kuriki_pads,
    "crap": crap_line,
}


def story_of(kind: str, state: Any) -> dict[str, Any] | None:
    """What the finished game's picture draws, as JSON-ready data (all of it public), or
    None for a game that has none, or nothing to chart yet."""
    tell = STORIES.get(kind)
    if tell is None:
        return None
    story = tell(state)
    return story.model_dump(mode="json") if worth_drawing(story) else None


def worth_drawing(story: LineStory | PadStory) -> bool:
    """Scores over time before anyone scored (a game ended before its first turn or round,
    `/<game> end`) would be an empty grid: no picture. Score pads always show the lives."""
    return not isinstance(story, LineStory) or any(len(s.points) > 1 for s in story.series)


def draw_story(story: dict[str, Any]) -> bytes:
    """The picture of a story `story_of` gave (raises ValueError for one it did not)."""
    told = _STORY.validate_python(story)
    return line_chart(told) if isinstance(told, LineStory) else pad_chart(told)


def story_picture(kind: str, state: Any) -> bytes | None:
    """The finished game's picture, or None for a game that has none."""
    story = story_of(kind, state)
    return None if story is None else draw_story(story)
