"""Text in the pictures: one font shipped with the bot (DejaVu Sans, `fonts/` with its
licence), so every machine draws the same letters, and names made drawable with it.
Pillow's default font has no Greek, Cyrillic or most accents, and no font has every
script: a character the font lacks would be drawn as an empty box."""

from __future__ import annotations

import functools
import struct
import unicodedata
from pathlib import Path

from PIL import ImageDraw, ImageFont

from bot.i18n import _

FONT_FILE = Path(__file__).with_name("fonts") / "DejaVuSans.ttf"


@functools.cache
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(FONT_FILE, size)


@functools.cache
def coverage() -> frozenset[int]:
    """The code points the shipped font draws."""
    return frozenset(cmap(FONT_FILE.read_bytes()))


def cmap(data: bytes) -> set[int]:
    """The code points a TrueType font maps to a glyph, read from its Unicode cmap subtable
    (format 12, else format 4): a few lines instead of a font library."""
    tables = {
        tag: offset
        for tag, _, offset, _ in (
            struct.unpack_from(">4sIII", data, 12 + 16 * i)
            for i in range(struct.unpack_from(">H", data, 4)[0])
        )
    }
    base = tables[b"cmap"]
    subtables = {}
    for i in range(struct.unpack_from(">H", data, base + 2)[0]):
        platform, _, offset = struct.unpack_from(">HHI", data, base + 4 + 8 * i)
        if platform in (0, 3):  # Unicode, Windows
            subtables[struct.unpack_from(">H", data, base + offset)[0]] = base + offset
    out: set[int] = set()
    if 12 in subtables:
        at = subtables[12]
        for g in range(struct.unpack_from(">I", data, at + 12)[0]):
            start, end, glyph = struct.unpack_from(">III", data, at + 16 + 12 * g)
            out.update(range(start if glyph else start + 1, end + 1))
        return out
    at = subtables[4]
    segments = struct.unpack_from(">H", data, at + 6)[0] // 2
    ends = struct.unpack_from(f">{segments}H", data, at + 14)
    starts = struct.unpack_from(f">{segments}H", data, at + 16 + 2 * segments)
    deltas = struct.unpack_from(f">{segments}h", data, at + 16 + 4 * segments)
    ranges_at = at + 16 + 6 * segments
    for i, (start, end, delta) in enumerate(zip(starts, ends, deltas, strict=True)):
        range_offset = struct.unpack_from(">H", data, ranges_at + 2 * i)[0]
        for c in range(start, min(end, 0xFFFE) + 1):
            if range_offset == 0:
                glyph = (c + delta) & 0xFFFF
            else:
                glyph = struct.unpack_from(
                    ">H", data, ranges_at + 2 * i + range_offset + 2 * (c - start)
                )[0]
                glyph = glyph and (glyph + delta) & 0xFFFF
            if glyph:
                out.add(c)
    return out


def drawable(text: str) -> str:
    """`text` with only what the font draws: a character it lacks becomes its plain
    letters when it has them (𝓙𝓪𝓷𝓮 → Jane, ｆｕｌｌ → full, ǹ → n), else is dropped (emoji,
    other scripts); invisible characters (joiners, variation selectors) go too."""
    covered = coverage()
    out = []
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf"):
            continue
        if ord(ch) in covered:
            out.append(ch)
            continue
        out.extend(
            c
            for c in unicodedata.normalize("NFKD", ch)
            if ord(c) in covered and not unicodedata.combining(c)
        )
    return " ".join("".join(out).split())


def player_names(names: list[str]) -> list[str]:
    """The players' names as a picture writes them, in order: `drawable`, or 'Player N' (N
    the place in `names`) when no letter or digit is left (a name in a script the font
    lacks, 王小明) or when two different names would read the same; in the current language."""
    shown = [drawable(n) for n in names]
    owners: dict[str, set[str]] = {}
    for name, text in zip(names, shown, strict=True):
        owners.setdefault(text, set()).add(name)
    return [
        text
        if any(c.isalnum() for c in text) and len(owners[text]) == 1
        else _("Player {n}", n=n)
        for n, text in enumerate(shown, 1)
    ]


def fit(text: str, size: int, width: float) -> str:
    """`text` cut with '…' so that it is at most `width` pixels wide at `size`."""
    f = font(size)
    if f.getlength(text) <= width:
        return text
    while text and f.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


#: Pictures are read on phones, where Discord shows them about 320 px wide: the smallest
#: text in a picture `width` pixels wide is `least_size(width)`, whose capitals are then at
#: least `PHONE_CAP` pixels high there.
PHONE_WIDTH = 320
PHONE_CAP = 8


def cap_height(size: int) -> int:
    """The height of a capital letter in the shipped font at `size`, in pixels."""
    top, bottom = font(size).getbbox("H")[1::2]
    return int(bottom - top)  # whole pixels (the stubs type the box as floats)


def least_size(width: int) -> int:
    """The smallest font size still legible in a picture `width` pixels wide shown
    `PHONE_WIDTH` wide: its capitals at least `PHONE_CAP` pixels high there."""
    size = 8
    while cap_height(size) * PHONE_WIDTH / width < PHONE_CAP:
        size += 1
    return size


def wrap(text: str, size: int, width: float) -> list[str]:
    """`text` broken into lines at most `width` pixels wide at `size`, between words (a
    word longer than a line is cut with '…')."""
    f = font(size)
    lines: list[str] = []
    for word in text.split():
        if lines and f.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(fit(word, size, width))
    return lines or [""]


def write(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: tuple[int, ...],
    anchor: str = "la",
) -> None:
    """Draw `text` in the shipped font, leaving out what it cannot draw."""
    draw.text(xy, drawable(text), font=font(size), fill=fill, anchor=anchor)
