"""Input no real client sends, but anyone can forge: each is a short private refusal, never
an ERROR (ERROR is kept for faults of the bot itself)."""

from __future__ import annotations

import logging

from tests.e2e.fake_discord import APPLICATION_COMMAND, button_row
from tests.e2e.harness import ALICE, MALLORY, TABLE, Driver


def _no_errors(d: Driver) -> None:
    assert not [r for r in d.logs.records if r.levelno >= logging.ERROR]
    d.logs.records.clear()


async def test_forged_unicode_digit_custom_id_is_refused_privately(d: Driver) -> None:
    await d.slash(ALICE, TABLE, "farkle start")
    forged = f"t:farkle:rematch:{TABLE}:1:0:\u00b2"
    planted = d.fake.add_message(TABLE, content="old", components=[button_row(("Go", forged))])
    rec = await d.click(ALICE, TABLE, custom_id=forged, message=planted)
    assert rec.callback_type == 4 and rec.ephemeral
    assert "Sorry" not in rec.text and rec.text
    _no_errors(d)


async def test_unconvertible_options_are_refused_privately(d: Driver) -> None:
    # A user option whose user Discord did not resolve, and a choice that is not offered.
    data = d._command_data("kuriki foul", {"player": MALLORY})
    data["options"][0]["options"][0]["value"] = "123456789012345678"
    del data["resolved"]
    rec = await d.dispatch(d.fake.interaction_payload(APPLICATION_COMMAND, ALICE, TABLE, data))
    assert rec.callback_type == 4 and rec.ephemeral
    assert rec.text and "Sorry" not in rec.text
    data = d._command_data("farkle start", {"rules": "classic"})
    data["options"][0]["options"][0]["value"] = "chess"
    rec = await d.dispatch(d.fake.interaction_payload(APPLICATION_COMMAND, ALICE, TABLE, data))
    assert rec.callback_type == 4 and rec.ephemeral
    assert "not one I can use" in rec.text and "Sorry" not in rec.text
    _no_errors(d)
