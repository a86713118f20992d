"""Sealed dice through the real client: a whole Farkle game shows its commitment from the
first table and its seed only on the last, every throw the table showed is in the game's
record, /verify answers privately (or to the channel) with every draw attached and
/stats dice draws the picture. Kuriki's and CRAP's whole games check the seed too
(tests/e2e/test_kuriki_games.py, test_crap_game.py), and a kill -9 keeps the stream
(tests/e2e/test_restart.py)."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from PIL import Image

from bot.pictures.luck import WIDTH
from bot.sealed import SHORT
from bot.verify import one_liner, verdict
from tests.e2e.farkle_play import open_game, play_to_end
from tests.e2e.harness import ALICE, BOB, MALLORY, TABLE, Driver, read_finished
from tests.e2e.hidden_info import assert_sealed_until_revealed

PLAYERS = [ALICE, BOB]
THROWN = re.compile(r"\b(Alice|Bob) rolled ((?:[1-6] )*[1-6])\b")


class Everything(logging.Handler):
    """Every line the bot logs, at any level."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def logged() -> Iterator[Everything]:
    handler = Everything()
    root = logging.getLogger("bot")
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def sealed_record(d: Driver, channel: int = TABLE) -> dict[str, Any]:
    """The channel's last finished game, its dice decoded."""
    assert d.database is not None
    row = read_finished(d.database, channel)[-1]
    row["dice"] = json.loads(row["dice"])
    return row


@pytest.mark.slow
@pytest.mark.e2e(seed=7)
async def test_a_farkle_game_is_sealed_shown_and_verified(d: Driver) -> None:
    with logged() as log:
        first = await open_game(d, TABLE, PLAYERS, rules="classic", target=1000)
        commitment = re.search(r"🔒 Dice sealed: ([0-9a-f]{16}) · /verify", first.text())
        assert commitment is not None, first.text()
        # While it runs, /verify gives the whole commitment, only to the one who asks.
        running = await d.slash(MALLORY, TABLE, "verify")
        assert running.ephemeral and running.callback_type == 4
        full = re.search(r"`([0-9a-f]{64})`", running.text)
        assert full is not None and full[1].startswith(commitment[1])
        assert await play_to_end(d, TABLE, PLAYERS) > 0
    row = sealed_record(d)
    dice = row["dice"]
    seed = dice["seed"]
    assert dice["commitment"] == full[1] and len(commitment[1]) == SHORT
    assert_sealed_until_revealed(d.fake, seed, log.records)
    final = d.table(TABLE)
    # The final table shows the commitment the running tables showed beside the seed.
    assert (
        f"🔓 Seed {seed}, sealed as {commitment[1]} · check the draws: /verify {row['id']}"
        in final.text()
    )

    # Every throw any table showed is a throw of the record, by the same player.
    names = {p.id: p.name for p in PLAYERS}
    recorded = {
        (names[e[2]], " ".join(map(str, e[4])))
        for m in dice["moves"]
        for e in m["draws"]
        if e[0] == "dice" and e[3] == "throw"
    }
    shown = {
        (who, faces)
        for message in d.fake.public(TABLE)
        for text in [message.text()]
        for who, faces in THROWN.findall(text)
    }
    assert len(shown) > 3 and shown <= recorded, shown - recorded
    assert verdict(dice).ok

    # /verify <number>: privately, the verdict and every draw in a file.
    answer = await d.slash(MALLORY, TABLE, "verify", game=row["id"])
    assert answer.ephemeral and answer.callback_type == 4 and answer.message is not None
    assert "the draws check out ✅" in answer.text and one_liner(seed) in answer.text
    attachment, machine = answer.message.attachments
    assert attachment["filename"] == f"game-{row['id']}-draws.txt"
    assert machine["filename"] == f"game-{row['id']}-draws.json"
    text = answer.message.files[attachment["id"]].decode()
    doc = json.loads(answer.message.files[machine["id"]])
    assert doc["seed"] == seed and doc["game"] == "farkle" and doc["draws"] == dice["at"]
    throws = [line for line in text.splitlines() if "'s throw: " in line]
    assert throws and all(line.startswith("✓ ") for line in throws) and "\n✗" not in text
    shared = await d.slash(ALICE, TABLE, "verify", game=row["id"], share=True)
    assert not shared.ephemeral and "check out" in shared.text
    nothing = await d.slash(ALICE, TABLE, "verify", game=row["id"] + 100)
    assert nothing.ephemeral and "no record of a game" in nothing.text
    idle = await d.slash(ALICE, TABLE, "verify")
    assert idle.ephemeral and "No game is running here" in idle.text

    # /stats dice: the picture of Alice's dice, in the answer's embed.
    stats = await d.slash(ALICE, TABLE, "stats", game="farkle", dice=True)
    assert stats.ephemeral and stats.message is not None
    [picture] = stats.message.attachments
    assert picture["filename"] == "dice.png"
    assert stats.message.embeds[0]["image"]["url"] == "attachment://dice.png"
    image = Image.open(io.BytesIO(stats.message.files[picture["id"]]))
    assert image.format == "PNG" and image.width == WIDTH  # drawn for a phone
    assert "Every die rolled, by face" in stats.text
