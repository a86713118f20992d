"""The drawn pictures: emoji-sized dice and cards, every one distinct, the text they stand
in for when there are no emojis, and the end-of-game story pictures."""

from __future__ import annotations

import io
import itertools
import random
import re
import unicodedata
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFont

from bot.pictures import story
from bot.pictures.emojis import Faces, emoji_name, load_emojis, wanted_emojis
from bot.pictures.faces import LOOKS, SIZE, card_face, card_key, catalogue, die_face, die_key
from bot.pictures.story import crap_story, farkle_story, kuriki_story, story_picture
from bot.pictures.text import coverage, drawable, fit, font, player_names
from games.bots import FIRST_BOT_ID, bot_name
from games.crap import engine as crap
from games.crap.cards import full_deck, label, sort_cards
from games.farkle import engine as farkle
from games.farkle.rules import PRESETS
from games.kuriki.engine import KurikiState
from games.lobby import Seat

SEATS = [Seat(id=i, name=n) for i, n in enumerate(["Ann", "Bob", "Cat", "Dan", "Eve"], 1)]


def pixels(image: Image.Image) -> list[bytes]:
    raw, n = image.tobytes(), len(image.getbands())
    return [raw[i : i + n] for i in range(0, len(raw), n)]


@pytest.fixture(scope="module")
def pictures() -> dict[str, Image.Image]:
    return catalogue()


def test_every_die_face_in_every_look_and_every_card_is_drawn(pictures: dict) -> None:
    assert len(pictures) == 6 * 3 + 52 + 1
    assert {die_key(f, look) for f in range(1, 7) for look in LOOKS} <= set(pictures)
    assert {card_key(c) for c in full_deck(jokers=True)} <= set(pictures)
    for image in pictures.values():
        assert image.size == (SIZE, SIZE) and image.mode == "RGBA"


def test_no_two_pictures_look_alike(pictures: dict) -> None:
    raw = {key: image.tobytes() for key, image in pictures.items()}
    for (a, x), (b, y) in itertools.combinations(raw.items(), 2):
        assert x != y, f"{a} and {b} are the same picture"
    # A die set aside or selected differs from the same face in play in most of its pixels.
    for face in range(1, 7):
        play = die_face(face).convert("RGB")
        for look in ("aside", "selected"):
            other = die_face(face, look).convert("RGB")
            differ = sum(p != q for p, q in zip(pixels(play), pixels(other), strict=True))
            assert differ > SIZE * SIZE // 3, (face, look)


def test_pips_are_where_the_face_says() -> None:
    """The centre pip is on the odd faces only (1, 3, 5): the drawing follows the face."""
    for face in range(1, 7):
        centre = die_face(face).getpixel((SIZE // 2, SIZE // 2))
        assert (centre[0] < 100) == (face % 2 == 1), face


def test_red_suits_are_red_and_black_are_black() -> None:
    def reds(image: Image.Image) -> int:
        return sum(1 for r, g, b, a in pixels(image) if a > 200 and r > 150 and g < 80)

    assert reds(card_face(13, "H")) > 500 and reds(card_face(13, "D")) > 500
    assert reds(card_face(13, "S")) == 0 and reds(card_face(13, "C")) == 0
    with pytest.raises(ValueError):
        card_face(1, "H")


def test_the_four_colour_deck_gives_each_suit_its_own_colour() -> None:
    def count(image: Image.Image, colour: Callable[[int, int, int], bool]) -> int:
        return sum(1 for r, g, b, a in pixels(image) if a > 200 and colour(r, g, b))

    def red(r: int, g: int, b: int) -> bool:
        return r > 150 and g < 80 and b < 80

    def blue(r: int, g: int, b: int) -> bool:
        return b > 150 and r < 80

    def green(r: int, g: int, b: int) -> bool:
        return g > 110 and r < 80 and b < 100

    four = {s: card_face(13, s, four_colours=True) for s in "SHDC"}
    assert count(four["H"], red) > 500 and count(four["D"], blue) > 500
    assert count(four["C"], green) > 500
    assert all(count(four["S"], c) == 0 for c in (red, blue, green))
    assert count(four["D"], red) == 0 and count(card_face(13, "D"), blue) == 0
    assert card_face(0, None, four_colours=True).tobytes() == card_face(0, None).tobytes()


def emoji_size(image: Image.Image) -> Image.Image:
    """A picture as Discord shows an emoji in a message: 22 pixels, in grey."""
    return image.resize((22, 22), Image.Resampling.LANCZOS).convert("L")


def test_cards_stay_readable_at_emoji_size(pictures: dict) -> None:
    """Rank and suit are large: the rank's ink (the joker's 'JK') fills most of the card's
    upper half, and a spade and a club of the same rank differ clearly at 22 pixels (the
    club wide with round lobes, the spade narrow and pointed)."""
    for key, image in pictures.items():
        if key.startswith("c"):
            on_white = Image.alpha_composite(Image.new("RGBA", image.size, "white"), image)
            grey = on_white.convert("L").crop((30, 6, 98, 59))  # the upper half, no border
            ink = grey.point(lambda v: 255 if v < 160 else 0).getbbox()
            assert ink is not None and ink[3] - ink[1] >= 48, (key, ink)
    for rank in ("2", "10", "K", "A"):
        spade, club = emoji_size(pictures[f"c{rank}S"]), emoji_size(pictures[f"c{rank}C"])
        differ = sum(ImageChops.difference(spade, club).get_flattened_data()) / 255
        assert differ > 15, (rank, differ)


@pytest.mark.slow
def test_emoji_pictures_fit_discords_rules() -> None:
    wanted = wanted_emojis()
    names = [name for name, _ in wanted.values()]
    assert len(set(names)) == len(names)
    for name, data in wanted.values():
        assert re.fullmatch(r"[A-Za-z0-9_]{2,32}", name)
        assert data.startswith(b"\x89PNG") and len(data) < 256 * 1024
    # The name follows the picture: a redrawn picture gets a new name, the same one keeps it.
    assert emoji_name("d1", b"a") == emoji_name("d1", b"a") != emoji_name("d1", b"b")


def test_without_emojis_the_tables_keep_todays_text() -> None:
    faces = Faces()
    assert not faces.pictures
    assert faces.die(3) == "3️⃣" and faces.die(3, "aside") == "3" and faces.die(3, "selected") == "3"
    assert faces.die_emoji(3) is None and faces.card_emoji(0) is None
    assert faces.pair((3, 4)) == "3-4"
    hand = [51, 0, 104]
    assert (
        faces.cards(hand) == " ".join(label(c) for c in [0, 51, 104]) and faces.cards([]) == "none"
    )


def test_with_emojis_dice_and_cards_are_pictures_unless_too_long() -> None:
    faces = Faces()
    emojis = {
        key: discord.PartialEmoji(name=f"tb_{key}_abcdef", id=1000 + n)
        for n, key in enumerate(catalogue())
    }
    faces.use(emojis)
    assert faces.die(3) == f"<:tb_d3_abcdef:{emojis['d3'].id}>"
    assert faces.die(3, "aside") == f"<:tb_d3a_abcdef:{emojis['d3a'].id}>"
    assert faces.pair((3, 4)).count("<:tb_") == 2
    assert faces.card(0) == f"<:tb_c2S_abcdef:{emojis['c2S'].id}>"
    assert faces.card(52) == faces.card(0)  # the second deck's copy looks the same
    many = list(range(60))
    assert faces.cards(many, room=1000) == " ".join(label(c) for c in sort_cards(many))


# ---------------------------------------------------------------- the story pictures


PADS_W = story.PAD_COLUMNS * story.PAD_W  # Kuriki's score pads, two a row


def assert_story(data: bytes, width: int) -> Image.Image:
    assert data.startswith(b"\x89PNG") and len(data) < 200 * 1024
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.width == width
    return image


def test_farkle_story_of_a_whole_game() -> None:
    rng = random.Random(5)
    state, _ = farkle.new_game(SEATS[:4], PRESETS["classic"], rng)
    while not state.finished:
        state = farkle.timeout(state, rng)[0]  # farkles and timeouts: a long, flat game
        if len(state.history) > 30:
            state = farkle.remove_player(state, state.players[0].id)[0]
    assert_story(farkle_story(state), story.LINE_W)
    assert story_picture("farkle", state) == farkle_story(state)


def test_kuriki_story_with_the_most_players() -> None:
    players = [
        {"id": i, "name": f"Player {i}", "lives": i % 6, "fouls": i % 4, "crowns": i % 3}
        for i in range(1, 13)
    ]
    state = KurikiState.model_validate(
        {"rules": {"lives": 5}, "roller": 1, "players": players, "tarted": 6, "winner": 5}
    )
    image = assert_story(kuriki_story(state), PADS_W)
    assert image.height == 60 + 6 * 300  # two pads a row
    one_life = state.model_copy(update={"rules": state.rules.model_copy(update={"lives": 1})})
    assert_story(kuriki_story(one_life), PADS_W)  # no arms: only the centre


def test_kuriki_story_writes_fouls_as_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pad says "1 foul" / "3 fouls" in words, never a row of strokes read as a number."""
    drawn: list[str] = []
    real = story.write
    monkeypatch.setattr(story, "write", lambda d, xy, text, *a: (drawn.append(text), real(d, xy, text, *a)))
    players = [
        {"id": i, "name": f"P{i}", "lives": 2, "fouls": fouls} for i, fouls in ((1, 0), (2, 1), (3, 3))
    ]
    state = KurikiState.model_validate({"rules": {"lives": 3}, "roller": 1, "players": players})
    assert_story(kuriki_story(state), PADS_W)
    bottoms = [t for t in drawn if "foul" in t]
    assert bottoms == ["1 foul", "3 fouls"], drawn
    assert not any("|" in t for t in drawn)


def test_crap_story_after_scoring_rounds() -> None:
    state, _ = crap.new_game(SEATS[:3], crap.CrapRules(), random.Random(2))
    state.history = [{"1": 100, "2": 0, "3": 40}, {"1": 300, "2": 1020, "3": 90}]
    state.winners = [2]
    assert_story(crap_story(state), story.LINE_W)
    assert story_picture("none", state) is None


# ---------------------------------------------------------------- names in every script

#: A bot, accents, Cyrillic, Greek, a script the font lacks (CJK), an emoji.
AWKWARD = [bot_name(FIRST_BOT_ID), "Zoë Ünal", "Дмитрий", "Σοφία", "王小明", "😀 Ann"]


def awkward_stories() -> dict[str, tuple[Callable[[Any], bytes], Any]]:
    """A finished game of each kind whose players are named AWKWARD, seated in that order."""
    ids = [FIRST_BOT_ID] + [10**17 + n for n in range(1, len(AWKWARD))]
    seats = [Seat(id=i, name=n) for i, n in zip(ids, AWKWARD, strict=True)]
    fstate, _ = farkle.new_game(seats, PRESETS["classic"], random.Random(1))
    fstate.players = [p for i in ids for p in fstate.players if p.id == i]
    fstate.history = [(i, 50 * n) for n, i in enumerate(ids)]
    fstate.winner = ids[0]
    kstate = KurikiState.model_validate(
        {
            "rules": {"lives": 5},
            "roller": ids[0],
            "players": [{"id": i, "name": n, "lives": 2} for i, n in zip(ids, AWKWARD, strict=True)],
            "winner": ids[0],
        }
    )
    cstate, _ = crap.new_game(seats, crap.CrapRules(), random.Random(2))
    cstate.players = [p for i in ids for p in cstate.players if p.id == i]
    cstate.history = [{str(i): 100 * n for n, i in enumerate(ids)}]
    cstate.winners = [ids[0]]
    return {
        "farkle": (farkle_story, fstate),
        "kuriki": (kuriki_story, kstate),
        "crap": (crap_story, cstate),
    }


def glyph(f: ImageFont.FreeTypeFont | ImageFont.ImageFont, ch: str) -> tuple[Any, bytes]:
    mask = f.getmask(ch)
    return mask.size, bytes(mask)


def missing_glyphs(text: str, f: ImageFont.FreeTypeFont | ImageFont.ImageFont) -> list[str]:
    """The characters of `text` that `f` draws as its empty box (.notdef, the glyph of a
    code point no font has)."""
    box = glyph(f, "\U0010ffff")
    return [ch for ch in text if not ch.isspace() and glyph(f, ch) == box]


@pytest.mark.parametrize("kind", ["farkle", "kuriki", "crap"])
def test_every_name_is_drawn_without_a_missing_glyph(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[str] = []
    real_text = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, text: Any, *args: Any, **kwargs: Any) -> Any:
        f = kwargs.get("font") or (args[1] if len(args) > 1 else None)
        assert f is not None and missing_glyphs(text, f) == [], text
        drawn.append(text)
        return real_text(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    robots: list[float] = []
    real_robot = story.robot
    monkeypatch.setattr(story, "robot", lambda d, x, *a: robots.append(x) or real_robot(d, x, *a))
    draw, state = awkward_stories()[kind]
    assert_story(draw(state), PADS_W if kind == "kuriki" else story.LINE_W)
    names = " ".join(drawn)
    # Latin with accents, Cyrillic and Greek as they are; the emoji the font has; the bot's
    # name with a robot's head drawn before it instead of 🤖; the name in a script the font
    # lacks as the player's place.
    for name in ("Dicey", "Zoë Ünal", "Дмитрий", "Σοφία", "😀 Ann", "Player 5"):
        assert name in names, (name, drawn)
    assert "🤖" not in names and "王" not in names and len(robots) == 1


def test_the_font_covers_latin_greek_and_cyrillic() -> None:
    """The shipped font's table of characters (read without a font library) agrees with
    what it draws: every letter of these scripts, and no CJK."""
    letters = [
        chr(c)
        for c in [*range(0x20, 0x250), *range(0x370, 0x3D0), *range(0x400, 0x526)]
        if unicodedata.category(chr(c)).startswith("L")
    ]
    f = font(20)
    assert all(ord(ch) in coverage() for ch in letters)
    assert missing_glyphs("".join(letters), f) == []
    assert ord("王") not in coverage() and missing_glyphs("王", f) == ["王"]


def test_names_the_font_cannot_draw_fall_back_to_readable_text() -> None:
    assert drawable("🤖 Dicey") == "Dicey"
    assert drawable("𝓙𝓪𝓷𝓮 ｆｕｌｌ") == "Jane full"  # styled letters become plain ones
    assert drawable("👨\u200d👩\u200d👧 Fam") == "Fam"  # an emoji the font lacks, its joiners
    assert drawable("Zoë Ünal") == "Zoë Ünal" and drawable("王小明") == ""
    # No letter left, or two different names that would read the same: the player's place.
    assert player_names(["王小明", "Li 王", "Li 张", "Ann", "Ann", "Σοφία"]) == [
        "Player 1",
        "Player 2",
        "Player 3",
        "Ann",
        "Ann",
        "Σοφία",
    ]
    assert fit("Bartholomew the Magnificent", 24, 150).endswith("…")
    assert font(24).getlength(fit("Bartholomew the Magnificent", 24, 150)) <= 150
    assert fit("Ann", 24, 150) == "Ann"


class RacingApplication:
    """A client whose first upload loses a race: another process of the bot uploaded the
    same picture a moment before, so Discord refuses the name (it exists now)."""

    def __init__(self) -> None:
        self.emojis: list[SimpleNamespace] = []
        self.raced = False

    async def fetch_application_emojis(self) -> list[SimpleNamespace]:
        return list(self.emojis)

    async def create_application_emoji(self, *, name: str, image: bytes) -> SimpleNamespace:
        emoji = SimpleNamespace(name=name, id=len(self.emojis) + 1)
        self.emojis.append(emoji)
        if not self.raced:
            self.raced = True
            taken = SimpleNamespace(status=400, reason="Bad Request")
            raise discord.HTTPException(taken, {"code": 50035, "message": "name taken"})  # type: ignore[arg-type]
        return emoji


@pytest.mark.slow
async def test_an_upload_that_lost_a_race_uses_the_emoji_that_won() -> None:
    app, faces = RacingApplication(), Faces()
    assert await load_emojis(app, faces) is True  # type: ignore[arg-type]
    assert faces.pictures and len(app.emojis) == len(catalogue())
    assert faces.die(1).startswith("<:tb_d1_") and faces.die(1).endswith(":1>")


class Application:
    """An application's emojis as `load_emojis` lists, creates and deletes them."""

    def __init__(self, names: list[str]) -> None:
        self.emojis: list[SimpleNamespace] = []
        self.created: list[str] = []
        for name in names:
            self.emojis.append(self._emoji(name))

    def _emoji(self, name: str) -> SimpleNamespace:
        emoji = SimpleNamespace(name=name, id=len(self.emojis) + len(self.created) + 1)

        async def delete() -> None:
            self.emojis.remove(emoji)

        emoji.delete = delete
        return emoji

    async def fetch_application_emojis(self) -> list[SimpleNamespace]:
        return list(self.emojis)

    async def create_application_emoji(self, *, name: str, image: bytes) -> SimpleNamespace:
        emoji = self._emoji(name)
        self.emojis.append(emoji)
        self.created.append(name)
        return emoji


#: Emojis of the release before the cards were redrawn larger (its dice look the same).
PREVIOUS_CARDS = {"cKH": "tb_cKH_9b37b4", "c10S": "tb_c10S_a1bfde", "cjoker": "tb_cjoker_4cbeb2"}


@pytest.mark.slow
async def test_an_upgrade_uploads_the_redrawn_cards_and_deletes_the_old_ones() -> None:
    wanted = wanted_emojis()
    kept = [name for key, (name, _) in wanted.items() if key not in PREVIOUS_CARDS]
    app, faces = Application([*kept, *PREVIOUS_CARDS.values(), "server_logo"]), Faces()
    assert await load_emojis(app, faces) is True  # type: ignore[arg-type]
    # Only the redrawn pictures are uploaded, under their new names; the old ones are gone.
    assert sorted(app.created) == sorted(wanted[key][0] for key in PREVIOUS_CARDS)
    assert {e.name for e in app.emojis} == {name for name, _ in wanted.values()} | {"server_logo"}
    assert faces.card(104).startswith(f"<:{wanted['cjoker'][0]}:")

    # Switching to the four-colour deck uploads its blue diamonds and green clubs and deletes
    # the red and black ones; the dice, spades, hearts and the joker stay as they are.
    app.created.clear()
    four = wanted_emojis(four_colours=True)
    assert await load_emojis(app, faces, four_colours=True) is True  # type: ignore[arg-type]
    assert len(app.created) == 26
    assert all(re.fullmatch(r"tb_c\w+[DC]_[0-9a-f]{6}", name) for name in app.created)
    assert {e.name for e in app.emojis} == {name for name, _ in four.values()} | {"server_logo"}
    assert faces.card(2).startswith(f"<:{four['c2D'][0]}:")  # the 2 of diamonds, in blue


# ---------------------------------------------------------------- read on a phone


def phone_picture(kind: str) -> bytes:
    """A picture of each kind in its busiest form: many players, long names, many turns."""
    from bot.luck import spreads
    from bot.pictures.luck import luck_picture

    if kind == "farkle":
        state, _ = farkle.new_game(SEATS, PRESETS["classic"], random.Random(5))
        for turn in range(60):
            state.history.append((SEATS[turn % 5].id, 250 * turn))
        return farkle_story(state)
    if kind == "kuriki":
        players = [
            {"id": i, "name": f"Grandmother {i}", "lives": i % 6, "fouls": i % 4, "crowns": i}
            for i in range(1, 13)
        ]
        return kuriki_story(
            KurikiState.model_validate(
                {"rules": {"lives": 5}, "roller": 1, "players": players, "tarted": 6, "winner": 5}
            )
        )
    if kind == "crap":
        draw, state = awkward_stories()["crap"]
        return draw(state)
    luck = {f"die_{f}": 40 + 3 * f for f in range(1, 7)}
    luck |= {f"cup_{a}{b}": 9 + a + b for a in range(1, 7) for b in range(a, 7)}
    return luck_picture("Grandmother Zoë", "Kuriki", spreads("kuriki", luck))


@pytest.mark.parametrize("kind", ["farkle", "kuriki", "crap", "luck"])
def test_every_picture_is_legible_on_a_phone(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord shows a picture about 320 px wide on a phone: scaled to that, every text in
    it (labels, axes, legends, the chi-square sentence) has capitals at least 8 px high, lies
    inside the picture, and the chi-square sentences are whole (wrapped, not cut)."""
    from bot.pictures.text import cap_height

    drawn: list[tuple[str, int, tuple[float, float, float, float]]] = []
    real_text = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, text: Any, *args: Any, **kwargs: Any) -> Any:
        f = kwargs["font"]
        if text.strip():
            box = self.textbbox(xy, text, font=f, anchor=kwargs.get("anchor"))
            drawn.append((text, int(f.size), box))
        return real_text(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    image = Image.open(io.BytesIO(phone_picture(kind)))
    scale = 320 / image.width
    assert drawn
    for words, size, (x0, y0, x1, y1) in drawn:
        assert cap_height(size) * scale >= 8, (words, size, image.width)
        assert x0 >= 0 and x1 <= image.width and y0 >= 0 and y1 <= image.height, (words, image.size)
    if kind == "luck":
        said = " ".join(words for words, _size, _box in drawn)
        assert "degrees of freedom, p = " in said and "…" not in said
        assert "Nothing unusual" in said or "Unusual" in said
