"""Luck, shown (bot/luck.py, bot/pictures/luck.py): the chi-square p-value against known
values, the verdict in plain words, and the picture, whatever script a name is written in."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from bot.luck import Spread, added, chi_square_p, cups, faces, spreads
from bot.pictures.luck import WIDTH, luck_picture, panel_height, picture_height
from bot.records import CUPS, FACES, LUCK, merge


@pytest.mark.parametrize(
    ("x", "freedom", "p"),
    [
        # scipy.stats.chi2.sf(x, freedom), to the digits printed here
        (3.841458820694124, 1, 0.05),
        (11.070497693516351, 5, 0.05),
        (15.08627246938899, 5, 0.01),
        (0.5, 5, 0.9921232932),
        (30.0, 20, 0.0698536607),
        (100.0, 5, 5.285148e-20),
        (4.0, 2, 0.1353352832),  # exp(-2): two degrees of freedom have a closed form
    ],
)
def test_the_p_value_is_the_chi_square_tail(x: float, freedom: int, p: float) -> None:
    assert chi_square_p(x, freedom) == pytest.approx(p, rel=1e-6)


def test_a_p_value_is_a_probability() -> None:
    assert chi_square_p(0, 5) == 1.0 and chi_square_p(-1, 3) == 1.0
    values = [chi_square_p(x / 4, 20) for x in range(400)]
    assert all(0 <= v <= 1 for v in values) and values == sorted(values, reverse=True)


def test_the_verdict_in_words() -> None:
    even = faces({k: 100 for k in FACES})
    assert even.p_value() == 1.0 and even.words().startswith("Nothing unusual")
    few = faces({"die_1": 3, "die_6": 9})
    assert few.p_value() is None
    assert few.words() == "Too few yet to tell luck from chance: 12 so far, about 30 are needed."
    loaded = faces({**{k: 100 for k in FACES}, "die_6": 160})  # sixes far too often
    assert loaded.p_value() < 0.001 and loaded.words().startswith("Very unusual")  # type: ignore[operator]
    odd = faces({**{k: 100 for k in FACES}, "die_6": 140})
    assert 0.001 <= odd.p_value() < 0.05 and odd.words().startswith("Unusual: fair dice")  # type: ignore[operator]
    assert "fair dice give a spread at least this uneven" in faces(
        {**{k: 100 for k in FACES}, "die_6": 110}
    ).words()


def test_kuriki_rolls_are_weighed_as_two_dice_fall() -> None:
    spread = cups({k: 36 for k in CUPS})
    assert spread.labels[:3] == ["2-1", "6-6", "5-5"] and spread.labels[-1] == "3-1"
    assert sum(spread.chances) == pytest.approx(1)
    assert spread.chances[0] == pytest.approx(2 / 36) and spread.chances[1] == pytest.approx(1 / 36)
    assert [s.title for s in spreads("kuriki", {})] == [
        "Every die rolled, by face",
        "Kuriki rolls under the cup",
    ]
    assert len(spreads("farkle", {})) == len(spreads(None, {})) == 1


def test_counts_add_up_over_games_and_kinds() -> None:
    assert added([{"die_1": 2}, {"die_1": 3, "die_6": 1}]) == {"die_1": 5, "die_6": 1}
    kept = merge("kuriki", {"die_1": 2, "cup_12": 1}, {"die_1": 1, "cup_12": 2, "cup_99": 7})
    assert kept == {"die_1": 3, "cup_12": 3}  # only what the game counts
    assert merge("farkle", {}, {"cup_12": 1}) == {}  # no cup in Farkle
    assert set(LUCK["kuriki"]) == set(FACES + CUPS) and len(CUPS) == 21


@pytest.mark.parametrize(
    "name",
    ["Ζωή Петров", "王小明", "🎲🎲", "Zoë", "a" * 200, "\u200b"],
    ids=["greek-cyrillic", "chinese", "emoji", "accent", "long", "invisible"],
)
def test_the_picture_is_drawn_for_any_name(name: str) -> None:
    rng = random.Random(1)
    luck: dict[str, int] = {}
    for _ in range(500):
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        for f in (a, b):
            luck[f"die_{f}"] = luck.get(f"die_{f}", 0) + 1
        low, high = sorted((a, b))
        luck[f"cup_{low}{high}"] = luck.get(f"cup_{low}{high}", 0) + 1
    shown = spreads("kuriki", luck)
    data = luck_picture(name, "Kuriki", shown)
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size == (WIDTH, picture_height(name, "Kuriki", shown))
    assert len(data) < 200_000
    # Something was drawn in each panel's plot: more than the background's few colours.
    rgb = image.convert("RGB")
    top = image.height - sum(panel_height(s) for s in shown)  # the first panel's top
    for spread in shown:
        top += 60
        colours = {rgb.getpixel((x, y)) for x in range(80, WIDTH - 30, 7) for y in range(top, top + 150, 7)}
        assert len(colours) >= 3
        top += panel_height(spread) - 60


def test_a_picture_of_no_dice_is_still_a_picture() -> None:
    data = luck_picture("Nobody", "all games", [faces({})])
    assert Image.open(io.BytesIO(data)).size == (WIDTH, picture_height("Nobody", "all games", [faces({})]))
    empty = Spread("x", ["a"], [0], [1.0])
    assert empty.p_value() is None and empty.chi_square() == 0
