"""Pictures through the real client: the dice and cards uploaded once as the application's
emojis and found again after a restart, the text kept when Discord refuses the upload, and
the story picture a finished table carries, uploaded once."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import pytest
from PIL import Image

from bot.pictures.emojis import PREFIX, wanted_emojis
from bot.pictures.faces import catalogue
from bot.pictures.story import LINE_W
from tests.e2e.fake_discord import FakeDiscord, FakeMessage
from tests.e2e.farkle_play import open_game, play_to_end, read_table
from tests.e2e.harness import ALICE, BOB, TABLE, Driver, running_bot

EMOJI_TAG = re.compile(r"<:(tb_\w+):(\d+)>")
PICTURES = len(catalogue())


def emoji_posts(fake: FakeDiscord) -> int:
    return sum(1 for r in fake.requests if r.method == "POST" and r.path.endswith("/emojis"))


async def roll_and_pick(d: Driver) -> FakeMessage:
    """Open a two-player Farkle game, roll, and select the first scoring die."""
    table = await open_game(d, TABLE, [ALICE, BOB])
    who = ALICE if read_table(table).current == ALICE.id else BOB
    table = d.on_table(await d.click(who, TABLE, label="Roll 6 dice", message=table), table)
    die = next(x for x in read_table(table).dice if x.face in (1, 5))
    return d.on_table(
        await d.click(who, TABLE, custom_id=die.button["custom_id"], message=table), table
    )


@pytest.mark.slow
@pytest.mark.e2e(seed=11)
async def test_emojis_are_uploaded_once_and_found_again_after_a_restart(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    database = tmp_path / "pictures.sqlite3"
    # An outdated picture of ours (its hash no longer matches) and someone else's emoji.
    fake.emojis[1] = {"id": "1", "name": f"{PREFIX}d1_000000", "roles": []}
    fake.emojis[2] = {"id": "2", "name": "server_logo", "roles": []}
    async with running_bot(database, fake=fake, pictures=True, seed=13) as d:
        assert d.bot is not None and d.bot.emoji_task is not None
        assert await d.bot.emoji_task is True
        names = fake.emoji_names()
        assert emoji_posts(fake) == PICTURES and len(names) == PICTURES + 1
        assert f"{PREFIX}d1_000000" not in names and "server_logo" in names
        ids = {e["name"]: int(e["id"]) for e in fake.emojis.values()}

        table = await roll_and_pick(d)
        # The thrown dice are pictures in the text, the selected one in its own look...
        thrown = next(line for line in table.text().splitlines() if "Thrown" in line)
        tags = EMOJI_TAG.findall(thrown)
        assert len(tags) == 6 and all(ids[name] == int(i) for name, i in tags)
        assert any(
            name.startswith(f"{PREFIX}d1s_") or name.startswith(f"{PREFIX}d5s_") for name, _ in tags
        )
        selected = next(line for line in table.text().splitlines() if "Selected" in line)
        assert EMOJI_TAG.search(selected) and "s_" in EMOJI_TAG.findall(selected)[0][0]
        # ...and so are the dice buttons: the selected one green with the selected face.
        dice = [b for b in table.buttons() if ":toggle:" in b["custom_id"]]
        assert len(dice) == 6 and all(int(b["emoji"]["id"]) in ids.values() for b in dice)
        picked = [b for b in dice if b["label"].endswith("✓")]
        assert len(picked) == 1 and picked[0]["style"] == 3
        assert "s_" in picked[0]["emoji"]["name"]
        assert all("s_" not in b["emoji"]["name"] for b in dice if b not in picked)

        # A whole game still plays to the end with pictures on.
        assert await play_to_end(d, TABLE, [ALICE, BOB]) > 0

    async with running_bot(database, fake=fake, pictures=True, seed=12) as again:
        assert again.bot is not None and again.bot.emoji_task is not None
        assert await again.bot.emoji_task is True
        assert emoji_posts(fake) == PICTURES  # nothing uploaded a second time
        assert again.bot.faces.die(3) == f"<:{_name(fake, 'd3_')}:{ids[_name(fake, 'd3_')]}>"


def _name(fake: FakeDiscord, key: str) -> str:
    return next(n for n in fake.emoji_names() if n.startswith(PREFIX + key))


@pytest.mark.slow
async def test_a_bot_set_to_the_four_colour_deck_switches_its_card_emojis(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """`four_colour_cards = true` after running with the usual deck: the blue diamonds and
    green clubs are uploaded and replace the red and black ones; nothing else changes."""
    database = tmp_path / "four.sqlite3"
    async with running_bot(database, fake=fake, pictures=True) as d:
        assert d.bot is not None and d.bot.emoji_task is not None
        assert await d.bot.emoji_task is True
    two = {name for name, _ in wanted_emojis().values()}
    assert set(fake.emoji_names()) == two
    async with running_bot(database, fake=fake, pictures=True, four_colour_cards=True) as d:
        assert d.bot is not None and d.bot.emoji_task is not None
        assert await d.bot.emoji_task is True
        four = wanted_emojis(four_colours=True)
        assert set(fake.emoji_names()) == {name for name, _ in four.values()}
        assert emoji_posts(fake) == PICTURES + 26  # 13 diamonds and 13 clubs
        assert d.bot.faces.card(2).startswith(f"<:{four['c2D'][0]}:")  # 2♦, blue


@pytest.mark.slow
@pytest.mark.parametrize(
    ("refusal", "limit"),
    [
        pytest.param((403, 50013, "Missing Permissions"), None, id="forbidden"),
        pytest.param(None, 10, id="limit-reached"),
    ],
)
async def test_a_refused_upload_keeps_the_text(
    fake: FakeDiscord, tmp_path: Path, refusal: tuple[int, int, str] | None, limit: int | None
) -> None:
    fake.emoji_refusal = refusal
    if limit is not None:
        fake.max_emojis = limit
    async with running_bot(tmp_path / "text.sqlite3", fake=fake, pictures=True, seed=13) as d:
        assert d.bot is not None and d.bot.emoji_task is not None
        assert await d.bot.emoji_task is False
        assert not d.bot.faces.pictures
        warnings = [r for r in d.logs.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1 and "as text" in warnings[0].getMessage()
        d.logs.records.clear()  # the one warning expected

        table = await roll_and_pick(d)
        assert "<:tb_" not in table.text() and "️⃣" in table.text()
        assert all("emoji" not in b for b in table.buttons())
        assert await play_to_end(d, TABLE, [ALICE, BOB]) > 0
        assert d.problems == []  # said once, and only once


@pytest.mark.slow
@pytest.mark.e2e(seed=3)
async def test_the_finished_table_carries_its_story_once(d: Driver) -> None:
    await open_game(d, TABLE, [ALICE, BOB], target=1000)
    await play_to_end(d, TABLE, [ALICE, BOB])
    final = d.table(TABLE)
    assert read_table(final).finished
    [attachment] = final.attachments
    assert attachment["filename"] == "story.png" and attachment["content_type"] == "image/png"
    data = final.files[attachment["id"]]
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) < 200 * 1024
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG" and image.size == (attachment["width"], attachment["height"])
        assert image.width == LINE_W and 560 < image.height < 800

    # Rematch edits the finished table (its button): the picture stays, not uploaded again.
    await d.click(BOB, TABLE, label="Rematch", message=final)
    assert final.attachments == [attachment]
    stories = [u for u in d.fake.uploads if u.filename == "story.png"]
    assert len(stories) == 1


@pytest.mark.slow
@pytest.mark.e2e(seed=3)
async def test_without_attach_files_the_finished_table_comes_without_its_picture(
    d: Driver,
) -> None:
    d.fake.refuse_files = True
    await open_game(d, TABLE, [ALICE, BOB], target=1000)
    await play_to_end(d, TABLE, [ALICE, BOB])
    final = d.table(TABLE)
    assert read_table(final).finished and final.attachments == []
    assert [b["label"] for b in final.buttons()] == ["Rematch"]
    assert any(u.filename == "story.png" for u in d.fake.uploads)  # it was tried
