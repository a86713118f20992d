"""Numbers no Discord client sends (issue 30), sent by hand: slash options outside the range
a command declares (Discord's client keeps them in; discord.py trusts whatever comes), a
user option without Discord's resolved data or with an id of 25 digits, and buttons whose
custom_id carries 20 to 30 digits where an id goes. Each gets a short private refusal; none
reaches the database (whose integers are signed 64-bit: today they raised OverflowError, an
apology and an ERROR each), none changes the game running in the channel, and the bot logs
nothing at ERROR."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.e2e.fake_discord import APPLICATION_COMMAND, FakeUser, button_row
from tests.e2e.harness import ALICE, BOB, MALLORY, TABLE, Driver, read_finished
from tests.e2e.neutral_play import final_table, open_game, play_to_end

HUGE = ["9223372036854775808", "18446744073709551616", "1" * 20, "9" * 25, "9" * 30]
GHOST = FakeUser(int("7" * 25), "Ghost")  # an id no Discord user has, nor any database


def refused(rec: Any, *words: str) -> str:
    """A short private answer, no apology; its text."""
    assert rec.callback_type == 4 and rec.ephemeral, (rec.callback_type, rec.text)
    assert rec.text and "Sorry" not in rec.text and "went wrong" not in rec.text, rec.text
    assert all(w in rec.text for w in words), rec.text
    return rec.text


def no_errors(d: Driver) -> None:
    errors = [r for r in d.logs.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    d.logs.records.clear()


async def command(d: Driver, user: FakeUser, name: str, raw: Any, **given: Any) -> Any:
    """/`name` with the options `given`, the first one's value then replaced by `raw` (JSON
    as a hand-made interaction carries it)."""
    data = d._command_data(name, given)
    node = data
    while node.get("options") and node["options"][0]["type"] in (1, 2):
        node = node["options"][0]
    node["options"][0]["value"] = raw
    return await d.dispatch(d.fake.interaction_payload(APPLICATION_COMMAND, user, TABLE, data))


async def with_user(d: Driver, user: FakeUser, name: str, ghost: FakeUser, resolved: bool) -> Any:
    """/`name` player:`ghost`, with Discord's resolved data for it or (`resolved` False)
    without."""
    data = d._command_data(name, {"player": BOB})
    data["options"][0]["value"] = str(ghost.id)
    if resolved:
        data["resolved"] = {"users": {str(ghost.id): ghost.payload()}}
    else:
        data.pop("resolved", None)
    return await d.dispatch(d.fake.interaction_payload(APPLICATION_COMMAND, user, TABLE, data))


@pytest.mark.e2e(seed=5)
async def test_out_of_range_options_are_refused_and_change_nothing(d: Driver) -> None:
    await open_game(d, "farkle", [ALICE, BOB], target=1000)
    before = d.stored(TABLE)

    for value in (9223372036854775808, 18446744073709551616, 0, -1, "12", True, 1.5):
        text = refused(await command(d, MALLORY, "verify", value, game=1))
        assert "whole number from 1 to" in text and "e+" not in text, text
    for value in (-1, 0, 100_001, 10**30):
        text = refused(await command(d, MALLORY, "leaderboard", value, season=1, game="farkle"))
        assert "from 1 to 100,000" in text and "season -1" not in text, text
    for name in ("stats", "history"):
        for resolved in (True, False):
            text = refused(await with_user(d, MALLORY, name, GHOST, resolved))
            assert "choose a player from the list" in text, text
    # A start option and a setting: the same check, for every command.
    refused(await command(d, ALICE, "farkle start", 10**19, target=1000), "500 to 1,000,000")
    refused(await command(d, ALICE, "farkle start", "x" * 41, value="y"), "1 to 40 characters")

    assert d.stored(TABLE) == before
    no_errors(d)


@pytest.mark.e2e(seed=6)
async def test_forged_buttons_with_long_numbers_are_refused_and_change_nothing(
    d: Driver,
) -> None:
    await open_game(d, "farkle", [ALICE, BOB], target=500)
    await play_to_end(d, "farkle", [ALICE, BOB], seed=6)
    assert d.database is not None
    [row] = read_finished(d.database, TABLE)
    final = final_table(d, "farkle")
    await open_game(d, "farkle", [ALICE, BOB], target=1000)  # a game running meanwhile
    before = d.stored(TABLE)

    async def press(custom_id: str, values: list[str] | None = None) -> Any:
        planted = d.fake.add_message(TABLE, content="old", components=[button_row(("Go", custom_id))])
        if values is None:
            return await d.click(MALLORY, TABLE, custom_id=custom_id, message=planted)
        data = {"custom_id": custom_id, "component_type": 3, "id": 1, "values": values}
        rec = d.fake.interaction_payload(3, MALLORY, TABLE, data, planted)
        return await d.dispatch(rec)

    for digits in HUGE:
        refused(await press(f"t:farkle:rematch:{TABLE}:1:0:{digits}"))
        refused(await press(f"t:hist:list:{TABLE}:0:0:{digits}-all"))
        refused(await press(f"t:hist:game:{TABLE}:0:0:{digits}"))
        refused(await press(f"t:hist:share:{TABLE}:0:0:{digits}"))
        refused(await press(f"t:hist:open:{TABLE}:0:0:{ALICE.id}-all", [digits]))
        refused(await press(f"t:farkle:roll:{digits[:20]}:1:0"))
    # The real ones still work: the finished game opens from history, its Rematch exists.
    opened = await press(f"t:hist:game:{TABLE}:0:0:{row['id']}")
    assert opened.callback_type == 7 and "Farkle" in opened.text, opened.text
    assert final.buttons()

    assert d.stored(TABLE) == before
    no_errors(d)
