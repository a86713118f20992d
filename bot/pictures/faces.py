"""Die faces and playing cards, drawn with Pillow (no third-party art), as 128x128 PNGs the
size Discord wants for an emoji. Shapes are drawn four times larger and scaled down, which
smooths their edges."""

from __future__ import annotations

import io
import math
from typing import Literal

from PIL import Image, ImageDraw, ImageFont

from games.crap.cards import JOKER_IDS, NATURAL_CARDS, RANK_NAMES, RANKS, SUITS, rank, suit

SIZE = 128
_SCALE = 4
_S = SIZE * _SCALE

DieLook = Literal["play", "aside", "selected"]
LOOKS: tuple[DieLook, ...] = ("play", "aside", "selected")

# Pip positions on a 3x3 grid (column, row), per face.
_PIPS = {
    1: [(1, 1)],
    2: [(0, 0), (2, 2)],
    3: [(0, 0), (1, 1), (2, 2)],
    4: [(0, 0), (2, 0), (0, 2), (2, 2)],
    5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)],
    6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)],
}
# (body, pips, border) per look: a die in play is white; a selected one green like the
# selected button, with a bright frame; a set-aside one grey and faded, out of play.
_DIE_COLOURS: dict[DieLook, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {
    "play": ((250, 250, 245, 255), (30, 30, 30, 255), (60, 60, 60, 255)),
    "selected": ((36, 128, 70, 255), (255, 255, 255, 255), (140, 255, 170, 255)),
    "aside": ((160, 160, 165, 170), (35, 35, 40, 235), (110, 110, 115, 170)),
}
_RED, _BLACK, _PURPLE = (200, 30, 40, 255), (25, 25, 25, 255), (120, 50, 160, 255)


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _finish(big: Image.Image) -> Image.Image:
    return big.resize((SIZE, SIZE), Image.Resampling.LANCZOS)


def die_face(face: int, look: DieLook = "play") -> Image.Image:
    """One die showing `face` (1-6) in the given look."""
    if face not in _PIPS:
        raise ValueError(f"a die has no face {face}")
    body, pip, border = _DIE_COLOURS[look]
    img = Image.new("RGBA", (_S, _S), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    margin = 6 * _SCALE
    frame = 10 * _SCALE if look == "selected" else 5 * _SCALE
    box = (margin, margin, _S - margin, _S - margin)
    draw.rounded_rectangle(box, radius=22 * _SCALE, fill=border)
    inner = tuple(v + frame * (1 if i < 2 else -1) for i, v in enumerate(box))
    draw.rounded_rectangle(inner, radius=18 * _SCALE, fill=body)
    step, radius = 30 * _SCALE, 11 * _SCALE
    for col, row in _PIPS[face]:
        cx, cy = _S // 2 + (col - 1) * step, _S // 2 + (row - 1) * step
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=pip)
    if look == "aside":  # a stroke across: this die no longer counts for the throw
        w = 4 * _SCALE
        draw.line(
            (
                margin + 8 * _SCALE,
                _S - margin - 8 * _SCALE,
                _S - margin - 8 * _SCALE,
                margin + 8 * _SCALE,
            ),
            fill=(70, 70, 75, 160),
            width=w,
        )
    return _finish(img)


def _suit_shape(draw: ImageDraw.ImageDraw, s: str, cx: float, cy: float, r: float) -> None:
    """A suit pip centred on (cx, cy), `r` its half-height: drawn, not a font glyph, so it
    never depends on the fonts of the machine."""
    colour = _RED if s in "HD" else _BLACK

    def circle(x: float, y: float, rad: float) -> None:
        draw.ellipse((x - rad, y - rad, x + rad, y + rad), fill=colour)

    if s == "D":
        draw.polygon(
            [(cx, cy - r), (cx + 0.75 * r, cy), (cx, cy + r), (cx - 0.75 * r, cy)], fill=colour
        )
    elif s == "H":
        circle(cx - 0.48 * r, cy - 0.35 * r, 0.52 * r)
        circle(cx + 0.48 * r, cy - 0.35 * r, 0.52 * r)
        draw.polygon(
            [(cx - 0.98 * r, cy - 0.2 * r), (cx + 0.98 * r, cy - 0.2 * r), (cx, cy + r)],
            fill=colour,
        )
    elif s == "S":
        circle(cx - 0.48 * r, cy + 0.2 * r, 0.5 * r)
        circle(cx + 0.48 * r, cy + 0.2 * r, 0.5 * r)
        draw.polygon(
            [(cx - 0.96 * r, cy + 0.08 * r), (cx + 0.96 * r, cy + 0.08 * r), (cx, cy - r)],
            fill=colour,
        )
        draw.polygon(
            [(cx, cy + 0.2 * r), (cx - 0.35 * r, cy + r), (cx + 0.35 * r, cy + r)], fill=colour
        )
    elif s == "C":
        circle(cx, cy - 0.45 * r, 0.42 * r)
        circle(cx - 0.5 * r, cy + 0.12 * r, 0.42 * r)
        circle(cx + 0.5 * r, cy + 0.12 * r, 0.42 * r)
        circle(cx, cy + 0.05 * r, 0.25 * r)
        draw.polygon([(cx, cy), (cx - 0.35 * r, cy + r), (cx + 0.35 * r, cy + r)], fill=colour)
    else:
        raise ValueError(f"no suit {s!r}")


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size)


def _blank_card() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGBA", (_S, _S), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    w = 96 * _SCALE
    left = (_S - w) // 2
    draw.rounded_rectangle(
        (left, 2 * _SCALE, left + w, _S - 2 * _SCALE),
        radius=12 * _SCALE,
        fill=(255, 255, 255, 255),
        outline=(90, 90, 90, 255),
        width=3 * _SCALE,
    )
    return img, draw


def card_face(rank_: int, suit_: str | None) -> Image.Image:
    """A playing card: its rank large at the top, its suit below (readable at emoji size);
    rank 0 (suit None) is the joker."""
    img, draw = _blank_card()
    if rank_ == 0:
        draw.text(
            (_S // 2, 34 * _SCALE), "JOKER", font=_font(24 * _SCALE), fill=_PURPLE, anchor="mm"
        )
        cx, cy, r = _S / 2, 84 * _SCALE, 30 * _SCALE
        points = []
        for i in range(10):  # a five-pointed star
            angle = math.pi / 2 + i * math.pi / 5
            rad = r if i % 2 == 0 else r * 0.45
            points.append((cx + rad * math.cos(angle), cy - rad * math.sin(angle)))
        draw.polygon(points, fill=_PURPLE)
        return _finish(img)
    if rank_ not in RANKS or suit_ not in SUITS:
        raise ValueError(f"no card {rank_}{suit_}")
    text = RANK_NAMES.get(rank_, str(rank_))
    colour = _RED if suit_ in "HD" else _BLACK
    size = 50 if len(text) == 1 else 44
    draw.text((_S // 2, 34 * _SCALE), text, font=_font(size * _SCALE), fill=colour, anchor="mm")
    _suit_shape(draw, suit_, _S / 2, 88 * _SCALE, 28 * _SCALE)
    return _finish(img)


# ---------------------------------------------------------------- the catalogue


def die_key(face: int, look: DieLook = "play") -> str:
    """'d3', 'd3a' (set aside), 'd3s' (selected): short, as it goes into an emoji name."""
    return f"d{face}" + {"play": "", "aside": "a", "selected": "s"}[look]


def card_key(card: int) -> str:
    """'cKH', 'c10S', 'cjoker': the same for both decks' copies of a card."""
    if card >= NATURAL_CARDS:
        return "cjoker"
    r = rank(card)
    return f"c{RANK_NAMES.get(r, str(r))}{suit(card)}"


def catalogue() -> dict[str, Image.Image]:
    """Every picture used as an emoji, by key: 18 dice (6 faces x 3 looks) and 53 cards."""
    out: dict[str, Image.Image] = {}
    for face in _PIPS:
        for look in LOOKS:
            out[die_key(face, look)] = die_face(face, look)
    for card in range(52):  # one deck's cards: the second deck shares their pictures
        out[card_key(card)] = card_face(rank(card), suit(card))
    out[card_key(JOKER_IDS[0])] = card_face(0, None)
    return out
