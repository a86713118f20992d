"""The docs' pictures are made by `python -m tools.screenshots`: the command must keep
working, and each picture must show something (a table drawn, not an empty canvas)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image

from tools import discord_look
from tools.screenshots import expected, make


@pytest.mark.slow
async def test_every_picture_is_made_and_shows_something(tmp_path: Path) -> None:
    written = await make(tmp_path / "img")
    assert sorted(written) == sorted(expected(tmp_path / "img"))
    for path in written:
        assert path.stat().st_size > 3_000, path.name
        assert path.stat().st_size < 150_000, f"{path.name}: keep the docs' pictures small"
        with Image.open(path) as image:
            assert image.format == "PNG"
            width, height = image.size
            assert width >= 480 and height >= 300, (path.name, image.size)  # 480: two score pads
            colours = image.convert("RGB").getcolors(maxcolors=1_000_000) or []
            assert len(colours) > 50, f"{path.name} is nearly blank"
            if path.name.endswith("-table.png"):
                # the embed's colour bar and some green or blurple buttons are drawn
                rgb = {c for _, c in colours}
                assert (88, 101, 242) in rgb, path.name


# Emoji: the docs' pictures show them in colour, as Discord does, from Noto Color Emoji
# (.ci/run installs Debian's fonts-noto-color-emoji); without that font the tool still draws,
# with the bot's own drawings and signs DejaVu has.

CROWN = "\U0001f451"
TIMER = "\u23f1"
KEYCAP_3 = "3\ufe0f\u20e3"
EMOJI = frozenset(map(ord, f"{CROWN}{TIMER}\u25b6\U0001f3f3\U0001f308\U0001f1e9\U0001f1ea3"))


def _colourful(image: Image.Image) -> int:
    """Pixels far from grey: the dark theme and its text are grey, colour emoji are not."""
    colours = image.convert("RGB").getcolors(maxcolors=10_000_000) or []
    return sum(n for n, (r, g, b) in colours if max(r, g, b) - min(r, g, b) > 80)


def _drawn_line(text: str) -> Image.Image:
    canvas = discord_look.Canvas()
    canvas.line(0, 0, discord_look._plain(text, False), 16, discord_look.TEXT)
    return canvas.image.crop((0, 0, discord_look.WIDTH * discord_look.S, 40 * discord_look.S))


def test_a_grapheme_of_several_code_points_is_one_emoji() -> None:
    split = discord_look.split_emoji
    text = f"{KEYCAP_3} 3 \U0001f3f3\ufe0f\u200d\U0001f308 \U0001f1e9\U0001f1ea{CROWN}Ann \u25b6\ufe0e"
    assert [piece for piece, emoji in split(text, EMOJI) if emoji] == [
        KEYCAP_3, "\U0001f3f3\ufe0f\u200d\U0001f308", "\U0001f1e9\U0001f1ea", CROWN,
    ]
    # a plain 3 stays text, and so does an emoji asked for as text (U+FE0E, which is dropped)
    assert "".join(piece for piece, emoji in split(text, EMOJI) if not emoji) == " 3  Ann \u25b6"


def test_emoji_are_drawn_in_colour_from_the_emoji_font() -> None:
    if discord_look.EMOJI_FONT is None:
        # Like the PostgreSQL tests: a fresh machine with only Python and pip runs the suite,
        # and CI (which installs the font) makes a missing font a failure.
        message = "no Noto Color Emoji font: install Debian's fonts-noto-color-emoji"
        if os.environ.get("TABLEBOT_REQUIRE_EMOJI_FONT") == "1":
            pytest.fail(message + " (TABLEBOT_REQUIRE_EMOJI_FONT=1)", pytrace=False)
        pytest.skip(message + " to run this test (CONTRIBUTING)")
    runs = discord_look._plain(f"{TIMER} {KEYCAP_3} {CROWN} Ann", False)
    assert [r.kind for r in runs] == ["image", "text", "image", "text", "image", "text"]
    assert "".join(r.text for r in runs) == "   Ann"  # no stand-in signs (◷, ♛), no stray 3
    assert _colourful(_drawn_line(CROWN)) > 100
    assert _colourful(_drawn_line("Ann")) == 0


def test_without_the_emoji_font_signs_stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discord_look, "EMOJI_FONT", None)
    runs = discord_look._plain(f"{TIMER} {CROWN} Ann \U0001f3b2", False)
    assert [r.kind for r in runs] == ["text", "image"]  # the die is the bot's own drawing
    assert runs[0].text == "\u25f7 \u265b Ann "  # ◷ for ⏱, ♛ for 👑
    assert _colourful(_drawn_line(CROWN)) == 0
