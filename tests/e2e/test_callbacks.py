"""How a click is answered: the table message is updated in the callback itself (type 7),
without asking Discord to send the updated message back, which the bot would only decode and
throw away (`bot/respond.py`); with a discord.py whose parts moved, it answers the old way."""

from __future__ import annotations

import gc
import logging

import discord
import pytest

import bot.respond
from tests.e2e.fake_discord import InteractionRecord
from tests.e2e.harness import ALICE, BOB, CAROL, TABLE, Driver


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


async def test_an_answered_click_is_freed_without_the_garbage_collector(d: Driver) -> None:
    """discord.py's InteractionResponse points back to its interaction: left alone, every
    click's interaction, message, member and user wait for a garbage collection. Once the bot
    answered, it lets go of the response, so they are freed at once."""
    await roll(d)
    table = d.table(TABLE)
    player = ALICE if f"<@{ALICE.id}>'s turn" in table.text() else BOB
    die = next(b["custom_id"] for b in table.buttons() if ":toggle:" in b["custom_id"])
    gc.collect()
    gc.disable()
    try:
        moved = await d.click(player, TABLE, custom_id=die, message=table)
        live = d.table(TABLE)
        enabled = next(b["custom_id"] for b in live.buttons() if not b.get("disabled"))
        refused = await d.click(CAROL, TABLE, custom_id=enabled, message=live)  # not playing
        await d.settle()
        alive = [o for o in gc.get_objects() if isinstance(o, discord.Interaction)]
    finally:
        gc.enable()
    assert moved.callback_type == 7 and refused.ephemeral
    assert alive == []
