"""How a click is answered: the table message is updated in the callback itself (type 7),
without asking Discord to send the updated message back, which the bot would only decode and
throw away (`bot/respond.py`); with a discord.py whose parts moved, it answers the old way."""

from __future__ import annotations

import logging

import pytest

import bot.respond
from tests.e2e.fake_discord import InteractionRecord
from tests.e2e.harness import ALICE, BOB, TABLE, Driver


def callback_requests(d: Driver, record: InteractionRecord) -> list:
    path = f"/interactions/{record.id}/{record.token}/callback"
    return [r for r in d.fake.requests if r.path.endswith(path)]


async def roll(d: Driver) -> InteractionRecord:
    await d.slash(ALICE, TABLE, "farkle start", rules="classic")
    await d.click(BOB, TABLE, label="Join")
    await d.click(ALICE, TABLE, label="Start")
    player = ALICE if f"<@{ALICE.id}>'s turn" in d.table(TABLE).text() else BOB
    return await d.click(player, TABLE, label="Roll 6 dice")


async def test_a_table_click_is_answered_without_reading_the_message_back(d: Driver) -> None:
    rolled = await roll(d)
    assert rolled.callback_type == 7 and "Thrown:" in d.table(TABLE).text()
    [callback] = callback_requests(d, rolled)
    assert callback.status == 204 and "with_response" not in callback.query
    # Every click of the game went that way: no update asked for the message back.
    updates = [
        r for r in d.fake.requests if r.path.endswith("/callback") and r.body.get("type") == 7
    ]
    assert updates and all("with_response" not in r.query for r in updates)


async def test_a_discord_py_without_those_parts_answers_through_edit_message(
    d: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot.respond, "_PARTS", False)
    monkeypatch.setattr(bot.respond, "_warned", False)
    rolled = await roll(d)
    assert rolled.callback_type == 7 and "Thrown:" in d.table(TABLE).text()
    [callback] = callback_requests(d, rolled)
    assert callback.status == 200 and callback.query.get("with_response") == "1"
    warnings = [r.getMessage() for r in d.logs.records if r.levelno == logging.WARNING]
    assert warnings == ["discord.py's interaction callback moved: edits read the message back"]
    d.logs.records.clear()  # the one warning expected
