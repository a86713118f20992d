"""A table message drawn with Pillow the way Discord's dark theme shows it: the bot's name,
the text above the table, the embed (its colour bar, title, description, fields, footer) and
the buttons and menus with their styles. Dice and cards written as the bot's emoji tags are
drawn with `bot.pictures.faces`; text is written in the font the bot ships
(`bot.pictures.text`), so every machine draws the same picture.

Discord's markdown is read as far as the tables use it: **bold**, `code`, mentions,
timestamps and custom emojis. Emoji are drawn in colour, as Discord shows them, with the
Noto Color Emoji font when the machine has it (Debian: `apt-get install
fonts-noto-color-emoji`); the docs' pictures are made with it. Without it they are drawn
(🎲 a die, 🃏 the joker, 🤖 a robot's head) or stood in for by a sign DejaVu has (👑 ♛,
👁 ◉, ✋ ☚...). Only the docs' pictures use this font: the bot never does."""

from __future__ import annotations

import datetime as dt
import functools
import io
import re
from dataclasses import dataclass
from pathlib import Path

import discord
from PIL import Image, ImageDraw, ImageFont

from bot.components import TableItem, action_rows
from bot.pictures.faces import catalogue, die_face
from bot.pictures.story import robot
from bot.pictures.text import cmap, coverage, font
from bot.tables.base import Rendered

S = 2  # drawn at twice Discord's CSS pixels, as a phone's screen shows them
BACKGROUND = (49, 51, 56)
EMBED_BG = (43, 45, 49)
TEXT = (219, 222, 225)
WHITE = (242, 243, 245)
MUTED = (148, 155, 164)
MENTION_BG = (60, 66, 112)
MENTION_FG = (201, 205, 251)
CODE_BG = (30, 31, 34)
BUTTONS = {  # discord.ButtonStyle value -> colour
    1: (88, 101, 242),
    2: (78, 80, 88),
    3: (36, 128, 70),
    4: (218, 55, 60),
    5: (78, 80, 88),
}
WIDTH = 600  # the message column, CSS pixels
EMBED_WIDTH = 520  # Discord's widest embed
LEFT = 72  # where the message's text starts, right of the avatar
#: Where Linux distributions put Noto Color Emoji (Debian and Ubuntu, Fedora, Arch).
EMOJI_FONTS = (
    Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"),
    Path("/usr/share/fonts/google-noto-color-emoji-fonts/NotoColorEmoji.ttf"),
    Path("/usr/share/fonts/noto/NotoColorEmoji.ttf"),
)
#: The colour emoji font the pictures use, None when the machine has none.
EMOJI_FONT: Path | None = next((p for p in EMOJI_FONTS if p.is_file()), None)
EMOJI_SIZE = 109  # the one size of the font's colour bitmaps
#: What may follow an emoji in the same picture: the emoji variation selector, the keycap,
#: skin tones and the tags of subdivision flags.
EXTEND = frozenset([0xFE0F, 0x20E3, *range(0x1F3FB, 0x1F400), *range(0xE0020, 0xE0080)])
ZWJ = "\u200d"
KEYCAP_BASES = "0123456789#*"
#: Emoji the font lacks, written as a sign it has (when no colour emoji font is found).
STANDINS = {
    "👑": "♛", "👁": "◉", "✋": "☚", "🛡": "◈", "⏱": "◷", "⏳": "◷", "🥤": "☕", "🔥": "✹",
    "🏆": "★", "🍑": "●", "✅": "✓", "❌": "✗", "🎉": "★", "🔒": "⚷", "🔓": "⚷",
}  # fmt: skip
DRAWN = ("🎲", "🃏", "🤖")
TOKEN = re.compile(r"(<a?:\w+:\d+>|<@!?\d+>|<t:-?\d+(?::[tTdDfFR])?>|\*\*|`[^`\n]+`)")
EMOJI_TAG = re.compile(r"<a?:\w+:(\d+)>")


@dataclass
class Look:
    """What the drawing needs besides the message: the names of mentioned users, the
    moment 'now' for relative times, and the picture key of each emoji id."""

    names: dict[int, str]
    now: float
    emojis: dict[int, str]


@dataclass
class _Run:
    """A piece of one line: text in one style, or a picture (`image`)."""

    text: str = ""
    bold: bool = False
    kind: str = "text"  # text, mention, code (also a timestamp, on the same grey), image
    image: Image.Image | None = None


def _relative(ts: int, now: float) -> str:
    """A `<t:…:R>` timestamp as Discord writes it: 'in 2 minutes', '5 minutes ago'."""
    left = ts - now
    minutes = round(abs(left) / 60)
    if minutes < 1:
        amount = f"{round(abs(left))} seconds"
    else:
        amount = f"{minutes} minute" + ("s" if minutes != 1 else "")
    return f"in {amount}" if left >= 0 else f"{amount} ago"


def _runs(line: str, look: Look, bold: bool) -> list[_Run]:
    """A line of Discord markdown as runs; `bold` is the style the line starts in."""
    out: list[_Run] = []
    for part in TOKEN.split(line):
        if not part:
            continue
        if part == "**":
            bold = not bold
        elif m := EMOJI_TAG.fullmatch(part):
            out.append(_Run(kind="image", image=_emoji(look.emojis[int(m[1])])))
        elif part.startswith("<@"):
            uid = int(part.strip("<@!>"))
            out.append(_Run("@" + look.names.get(uid, "someone"), bold, "mention"))
        elif part.startswith("<t:"):
            ts = int(part[3:-1].split(":")[0])
            out.append(_Run(_relative(ts, look.now), bold, "code"))
        elif part.startswith("`"):
            out.append(_Run(part[1:-1], False, "code"))
        else:
            out.extend(_plain(part, bold))
    return out


def _plain(text: str, bold: bool) -> list[_Run]:
    """Plain text, split where an emoji is drawn as a picture."""
    if EMOJI_FONT is not None:
        return _with_emoji_font(text, bold, EMOJI_FONT)
    out: list[_Run] = []
    covered = coverage()
    buf = ""
    for ch in text.replace("\ufe0f", ""):
        if ch in DRAWN:
            out.append(_Run(buf, bold))
            out.append(_Run(kind="image", image=_drawn(ch)))
            buf = ""
            continue
        ch = STANDINS.get(ch, ch)
        if ord(ch) in covered or ch in " \t":
            buf += ch
    out.append(_Run(buf, bold))
    return [r for r in out if r.kind != "text" or r.text]


def _with_emoji_font(text: str, bold: bool, path: Path) -> list[_Run]:
    """Plain text with each emoji drawn from the colour emoji font at `path`, the rest in
    DejaVu (a character neither font has is left out, as without the emoji font)."""
    out: list[_Run] = []
    covered = coverage()
    buf = ""
    for piece, is_emoji in split_emoji(text, _emoji_chars(path)):
        if is_emoji:
            out.append(_Run(buf, bold))
            out.append(_Run(kind="image", image=_emoji_glyph(piece, path)))
            buf = ""
        else:
            buf += "".join(ch for ch in piece if ord(ch) in covered or ch in " \t")
    out.append(_Run(buf, bold))
    return [r for r in out if r.kind != "text" or r.text]


def split_emoji(text: str, emoji: frozenset[int]) -> list[tuple[str, bool]]:
    """`text` cut into single characters and whole emoji (True): an emoji is a character of
    `emoji` (the colour font's, as Discord shows such a character as an emoji even without
    U+FE0F; not ASCII, ©, ® or one asked for as text with U+FE0E) or a keycap (3️⃣), with
    what follows it in the same picture: U+FE0F, skin tones, tags, characters joined by U+200D,
    the second half of a flag."""
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(text):
        ch, after = text[i], text[i + 1 : i + 3]
        keycap = ch in KEYCAP_BASES and (after[:1] == "\u20e3" or after == "\ufe0f\u20e3")
        wanted = ord(ch) > 0xAE and ord(ch) in emoji and ord(ch) not in EXTEND
        if not (keycap or wanted) or after[:1] == "\ufe0e":
            if ch not in "\ufe0e\ufe0f":
                out.append((ch, False))
            i += 1
            continue
        j = i + 1
        if 0x1F1E6 <= ord(ch) <= 0x1F1FF and j < len(text) and 0x1F1E6 <= ord(text[j]) <= 0x1F1FF:
            j += 1  # a flag: two regional indicators
        while j < len(text):
            if ord(text[j]) in EXTEND:
                j += 1
            elif text[j] == ZWJ and j + 1 < len(text) and ord(text[j + 1]) in emoji:
                j += 2
            else:
                break
        out.append((text[i:j], True))
        i = j
    return out


@functools.cache
def _emoji_chars(path: Path) -> frozenset[int]:
    """The code points the colour emoji font draws."""
    return frozenset(cmap(path.read_bytes()))


@functools.cache
def _emoji_glyph(grapheme: str, path: Path) -> Image.Image:
    """One emoji drawn by the colour font, on a transparent square (the line scales it)."""
    f = ImageFont.truetype(path, EMOJI_SIZE)
    left, top, right, bottom = f.getbbox(grapheme)
    side = max(right - left, bottom - top)
    image = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    at = ((side - (right - left)) // 2 - left, (side - (bottom - top)) // 2 - top)
    ImageDraw.Draw(image).text(at, grapheme, font=f, embedded_color=True)
    return image


_PICTURES: dict[str, Image.Image] = {}


def _emoji(key: str) -> Image.Image:
    """The picture behind an emoji key ('d3s', 'cKH'): drawn once, then kept."""
    if not _PICTURES:
        _PICTURES.update(catalogue())
    return _PICTURES[key]


def _drawn(ch: str) -> Image.Image:
    """🎲, 🃏 and 🤖 as the bot's own drawings: a die, the joker, a robot's head."""
    if ch == "🎲":
        return die_face(5)
    if ch == "🃏":
        return _emoji("cjoker")
    image = Image.new("RGBA", (128, 128), (0, 0, 0, 0))
    robot(ImageDraw.Draw(image), 64, 60, 110, (170, 180, 190), EMBED_BG)
    return image


class Canvas:
    """A tall image the message is drawn into, cropped to what was drawn at the end."""

    def __init__(self, background: tuple[int, int, int] = BACKGROUND) -> None:
        self.image = Image.new("RGB", (WIDTH * S, 2400 * S), background)
        self.draw = ImageDraw.Draw(self.image)

    def text_width(self, runs: list[_Run], size: int) -> float:
        return sum(self._run_width(r, size) for r in runs)

    def _run_width(self, run: _Run, size: int) -> float:
        if run.kind == "image":
            return (size * 1.45 + 3) * S  # a pixel before, two after, as Discord spaces emoji
        width = font(size * S).getlength(run.text) + (S if run.bold else 0)
        return width + (8 * S if run.kind in ("mention", "code") else 0)

    def line(self, x: float, y: float, runs: list[_Run], size: int, colour: tuple[int, ...]) -> None:
        """One line of runs from (x, y), CSS pixels; text `size` px."""
        px, top = x * S, y * S
        f = font(size * S)
        emoji = round(size * 1.45 * S)
        middle = top + size * 0.7 * S
        for run in runs:
            if run.kind == "image" and run.image is not None:
                pic = run.image.resize((emoji, emoji), Image.Resampling.LANCZOS)
                self.image.paste(pic, (round(px + S), round(middle - emoji / 2)), pic)
                px += emoji + 3 * S
                continue
            fill = colour
            if run.kind in ("mention", "code"):
                box = (px, middle - size * 0.75 * S, px + f.getlength(run.text) + 8 * S, middle + size * 0.75 * S)
                self.draw.rounded_rectangle(box, radius=3 * S, fill=MENTION_BG if run.kind == "mention" else CODE_BG)
                fill = MENTION_FG if run.kind == "mention" else TEXT
                px += 4 * S
            stroke = 1 if run.bold else 0
            self.draw.text(
                (px, middle), run.text, font=f, fill=WHITE if run.bold else fill, anchor="lm",
                stroke_width=stroke, stroke_fill=WHITE if run.bold else fill,
            )
            px += f.getlength(run.text) + (S if run.bold else 0)
            if run.kind in ("mention", "code"):
                px += 4 * S

    def paragraph(
        self, x: float, y: float, text: str, size: int, width: float, look: Look,
        colour: tuple[int, ...] = TEXT, bold: bool = False,
    ) -> float:
        """Markdown `text` wrapped to `width` from (x, y); returns the y below it."""
        height = round(size * 1.4)
        for raw in text.split("\n"):
            runs = _runs(raw, look, bold)
            tall = any(r.kind == "image" for r in runs)
            for line in self._wrap(runs, size, width):
                self.line(x, y, line, size, colour)
                y += height + (6 if tall else 0)
        return y

    def _wrap(self, runs: list[_Run], size: int, width: float) -> list[list[_Run]]:
        """Runs cut into lines at spaces so that each fits `width` CSS pixels."""
        words: list[_Run] = []
        for run in runs:
            if run.kind != "text":
                words.append(run)
                continue
            for piece in re.split(r"(?<= )", run.text):
                if piece:
                    words.append(_Run(piece, run.bold))
        lines: list[list[_Run]] = [[]]
        used = 0.0
        for word in words:
            w = self._run_width(word, size) / S
            if lines[-1] and used + w > width and word.text.strip():
                lines.append([])
                used = 0.0
                if word.kind == "text":
                    word = _Run(word.text.lstrip(), word.bold)
                    w = self._run_width(word, size) / S
            lines[-1].append(word)
            used += w
        return lines

    def finish(self, bottom: float) -> bytes:
        """The PNG of what was drawn down to `bottom` (CSS pixels), in 256 colours."""
        image = self.image.crop((0, 0, WIDTH * S, round(bottom * S)))
        out = io.BytesIO()
        image.quantize(256, dither=Image.Dither.NONE).save(out, format="PNG", optimize=True)
        return out.getvalue()


def draw_message(table: Rendered, look: Look) -> bytes:
    """The PNG of `table` as a message of the bot in a channel (Discord's dark theme)."""
    c = Canvas()
    y = 16.0
    c.draw.ellipse((16 * S, y * S, 56 * S, (y + 40) * S), fill=BUTTONS[1])
    die = die_face(5).resize((26 * S, 26 * S), Image.Resampling.LANCZOS)
    c.image.paste(die, (23 * S, round((y + 7) * S)), die)
    name = [_Run("tablebot", True)]
    c.line(LEFT, y, name, 16, WHITE)
    badge_x = LEFT + c.text_width(name, 16) / S + 6
    c.draw.rounded_rectangle(
        (badge_x * S, (y + 3) * S, (badge_x + 30) * S, (y + 19) * S), radius=3 * S, fill=BUTTONS[1]
    )
    c.draw.text(((badge_x + 15) * S, (y + 11) * S), "APP", font=font(10 * S), fill=WHITE, anchor="mm")
    stamp = dt.datetime.fromtimestamp(look.now, dt.UTC).strftime("Today at %H:%M")
    c.draw.text(((badge_x + 38) * S, (y + 11) * S), stamp, font=font(12 * S), fill=MUTED, anchor="lm")
    y += 26
    if table.content:
        y = c.paragraph(LEFT, y, table.content, 16, WIDTH - LEFT - 16, look) + 4
    y = _embed(c, table.embed, y, look) + 8
    y = _components(c, table.items, y, look)
    return c.finish(y + 16)


def _embed(c: Canvas, embed: discord.Embed, top: float, look: Look) -> float:
    """The embed from `top`; returns the y below it."""
    x, inner = LEFT + 16, EMBED_WIDTH - 32
    y = top + 12
    # The text is drawn on a layer of the embed's colour (its height is known only once it
    # is drawn), then laid into the box.
    layer = Canvas(EMBED_BG)
    if embed.title:
        y = layer.paragraph(x, y, embed.title, 16, inner, look, WHITE, bold=True) + 6
    if embed.description:
        y = layer.paragraph(x, y, embed.description, 14, inner, look) + 6
    for fld in embed.fields:
        y = layer.paragraph(x, y, fld.name or "", 14, inner, look, WHITE, bold=True) + 2
        y = layer.paragraph(x, y, fld.value or "", 14, inner, look) + 8
    if embed.footer.text:
        y = layer.paragraph(x, y + 2, embed.footer.text, 12, inner, look, MUTED) + 2
    bottom = y + 10
    colour = embed.colour.to_rgb() if embed.colour else BUTTONS[2]
    c.draw.rounded_rectangle(
        (LEFT * S, top * S, (LEFT + EMBED_WIDTH) * S, bottom * S), radius=4 * S, fill=EMBED_BG
    )
    c.draw.rounded_rectangle(
        (LEFT * S, top * S, (LEFT + 4) * S, bottom * S), radius=2 * S, fill=colour
    )
    box = ((LEFT + 8) * S, round((top + 4) * S), (LEFT + EMBED_WIDTH - 4) * S, round((bottom - 4) * S))
    c.image.paste(layer.image.crop(box), box[:2])
    return bottom


def _components(c: Canvas, items: list[TableItem], top: float, look: Look) -> float:
    """The buttons and menus in the rows Discord receives (`bot.components.action_rows`)."""
    by_id = {item.custom_id: item for item in items}
    y = top
    for row in action_rows(items):
        x = float(LEFT)
        for component in row["components"]:
            x = _button(c, by_id[component["custom_id"]], x, y, look) + 8
        y += 40
    return y


def _button(c: Canvas, item: TableItem, x: float, y: float, look: Look) -> float:
    """One button or menu at (x, y); returns its right edge."""
    if item.placeholder is not None:
        right = x + 400
        c.draw.rounded_rectangle((x * S, y * S, right * S, (y + 32) * S), radius=4 * S, fill=(30, 31, 34))
        c.draw.text(((x + 12) * S, (y + 16) * S), item.placeholder, font=font(14 * S), fill=MUTED, anchor="lm")
        c.draw.text(((right - 16) * S, (y + 16) * S), "⌄", font=font(16 * S), fill=TEXT, anchor="mm")
        return right
    runs = _plain(item.label, False)
    if item.emoji is not None and item.emoji.id is not None:
        runs.insert(0, _Run(kind="image", image=_emoji(look.emojis[item.emoji.id])))
    width = c.text_width(runs, 14) / S + 32
    colour = BUTTONS.get(item.style, BUTTONS[2])
    text = WHITE
    if item.disabled:
        colour = tuple((a + b) // 2 for a, b in zip(colour, BACKGROUND, strict=True))
        text = (160, 162, 166)
    c.draw.rounded_rectangle((x * S, y * S, (x + width) * S, (y + 32) * S), radius=4 * S, fill=colour)
    c.line(x + 16, y + 16 - 14 * 0.7, runs, 14, text)
    return x + width
