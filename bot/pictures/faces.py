"""Die faces and playing cards, drawn with Pillow (no third-party art), as 128x128 PNGs the
size Discord wants for an emoji. Shapes are drawn four times larger and scaled down, which
smooths their edges."""

from __future__ import annotations

import io
import math
from typing import Literal

from PIL import Image, ImageDraw

from bot.pictures.text import font
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
Colour = tuple[int, int, int, int]
_RED, _BLACK, _PURPLE = (200, 30, 40, 255), (25, 25, 25, 255), (120, 50, 160, 255)
#: The suits' colours: the usual two, or the four-colour deck (diamonds blue, clubs green)
#: where no two suits share a colour.
_SUIT_COLOURS: dict[bool, dict[str, Colour]] = {
    False: {"S": _BLACK, "H": _RED, "D": _RED, "C": _BLACK},
    True: {"S": _BLACK, "H": _RED, "D": (20, 90, 200, 255), "C": (20, 140, 50, 255)},
}


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


def _suit_shape(
    draw: ImageDraw.ImageDraw, s: str, cx: float, cy: float, r: float, colour: Colour
) -> None:
    """A suit pip centred on (cx, cy), `r` its half-height: drawn, not a font glyph, and
    shaped to stay apart at emoji size (22 px): a spade's sharp point against a club's
    round lobes."""

    def circle(x: float, y: float, rad: float) -> None:
        draw.ellipse((x - rad, y - rad, x + rad, y + rad), fill=colour)

    def stem(top: float) -> None:
        draw.polygon(
            [(cx - 0.1 * r, top), (cx + 0.1 * r, top), (cx + 0.3 * r, cy + r), (cx - 0.3 * r, cy + r)],
            fill=colour,
        )

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
    elif s == "S":  # narrow, with a sharp point
        circle(cx - 0.42 * r, cy + 0.22 * r, 0.42 * r)
        circle(cx + 0.42 * r, cy + 0.22 * r, 0.42 * r)
        draw.polygon(
            [(cx, cy - r), (cx + 0.82 * r, cy + 0.2 * r), (cx, cy + 0.5 * r), (cx - 0.82 * r, cy + 0.2 * r)],
            fill=colour,
        )
        stem(cy + 0.2 * r)
    elif s == "C":  # wide, three big round lobes
        circle(cx, cy - 0.52 * r, 0.48 * r)
        circle(cx - 0.6 * r, cy + 0.1 * r, 0.48 * r)
        circle(cx + 0.6 * r, cy + 0.1 * r, 0.48 * r)
        circle(cx, cy + 0.02 * r, 0.2 * r)
        stem(cy)
    else:
        raise ValueError(f"no suit {s!r}")


def _rank_text(img: Image.Image, text: str, box: tuple[int, int, int, int], colour: Colour) -> None:
    """`text` in bold filling `box`'s height, narrowed to its width when wider ('10'):
    the largest rank the card has room for, the first thing read at 22 px."""
    f = font(box[3] - box[1])
    bold = max(1, f.size // 16)
    left, top, right, bottom = f.getbbox(text, stroke_width=bold)
    mask = Image.new("L", (int(right - left), int(bottom - top)), 0)
    ImageDraw.Draw(mask).text(
        (-left, -top), text, font=f, fill=255, stroke_width=bold, stroke_fill=255
    )
    height = box[3] - box[1]
    width = min(round(mask.width * height / mask.height), box[2] - box[0])
    mask = mask.resize((width, height), Image.Resampling.LANCZOS)
    img.paste(Image.new("RGBA", mask.size, colour), ((box[0] + box[2] - width) // 2, box[1]), mask)


def _blank_card() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGBA", (_S, _S), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle(
        (10 * _SCALE, 2 * _SCALE, _S - 10 * _SCALE, _S - 2 * _SCALE),
        radius=12 * _SCALE,
        fill=(255, 255, 255, 255),
        outline=(90, 90, 90, 255),
        width=3 * _SCALE,
    )
    return img, draw


#: Where a card's rank (its upper half) and its suit (centre and half-height) go, at 1x.
_RANK_BOX = (16, 8, 112, 60)
_SUIT_AT, _SUIT_R = (64, 92), 29


def card_face(rank_: int, suit_: str | None, four_colours: bool = False) -> Image.Image:
    """A playing card: its rank large and bold in the upper half, its suit as large below
    (both readable at emoji size), in the suit's colour of the two- or four-colour deck;
    rank 0 (suit None) is the joker: 'JK' over a star."""
    img, draw = _blank_card()
    box = (
        _RANK_BOX[0] * _SCALE,
        _RANK_BOX[1] * _SCALE,
        _RANK_BOX[2] * _SCALE,
        _RANK_BOX[3] * _SCALE,
    )
    cx, cy, r = _SUIT_AT[0] * _SCALE, _SUIT_AT[1] * _SCALE, _SUIT_R * _SCALE
    if rank_ == 0:
        _rank_text(img, "JK", box, _PURPLE)
        points = []
        for i in range(10):  # a five-pointed star
            angle = math.pi / 2 + i * math.pi / 5
            rad = r * 1.05 if i % 2 == 0 else r * 0.45
            points.append((cx + rad * math.cos(angle), cy + 0.1 * r - rad * math.sin(angle)))
        draw.polygon(points, fill=_PURPLE)
        return _finish(img)
    if rank_ not in RANKS or suit_ not in SUITS:
        raise ValueError(f"no card {rank_}{suit_}")
    colour = _SUIT_COLOURS[four_colours][suit_]
    _rank_text(img, RANK_NAMES.get(rank_, str(rank_)), box, colour)
    _suit_shape(draw, suit_, cx, cy, r, colour)
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


def catalogue(four_colours: bool = False) -> dict[str, Image.Image]:
    """Every picture used as an emoji, by key: 18 dice (6 faces x 3 looks) and 53 cards
    (of the four-colour deck if asked)."""
    out: dict[str, Image.Image] = {}
    for face in _PIPS:
        for look in LOOKS:
            out[die_key(face, look)] = die_face(face, look)
    for card in range(52):  # one deck's cards: the second deck shares their pictures
        out[card_key(card)] = card_face(rank(card), suit(card), four_colours)
    out[card_key(JOKER_IDS[0])] = card_face(0, None)
    return out
