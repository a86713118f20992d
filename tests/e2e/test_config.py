"""/config as server admins meet it: Manage Server checked at run time, values validated,
settings stored and used by the next game; a bad option never reaches the bot."""

from __future__ import annotations

import pytest

from tests.e2e.harness import ADMIN, ALICE, BOB, TABLE, ClientRefused, Driver


async def test_config_needs_manage_server_at_run_time(d: Driver) -> None:
    # default_member_permissions hides /config, but server admins can change that:
    # the bot checks again when the command runs.
    (config,) = [c for c in d.commands() if c["name"] == "config"]
    assert config["default_member_permissions"] in ("32", 32)
    refused = await d.slash(ALICE, TABLE, "config timer", seconds=30)
    assert refused.ephemeral and "Manage Server" in refused.text
    shown = await d.slash(ADMIN, TABLE, "config show")
    assert shown.ephemeral and "Turn timer: **120 s**" in shown.message.text()


async def test_settings_are_stored_and_used_by_the_next_game(d: Driver) -> None:
    saved = await d.slash(ADMIN, TABLE, "config farkle", preset="classic", target=4000)
    assert saved.ephemeral and "Classic Farkle" in saved.message.text()
    await d.slash(ADMIN, TABLE, "config farkle-rule", rule="min_bank", value="400")
    await d.slash(ADMIN, TABLE, "config timer", seconds=0)
    await d.slash(ADMIN, TABLE, "config kuriki", lives=7, two_digit=True)
    shown = await d.slash(ADMIN, TABLE, "config show")
    text = shown.message.text()
    assert "min_bank = 400" in text and "Turn timer: **off**" in text and "Lives: **7**" in text
    await d.slash(ALICE, TABLE, "farkle start")
    assert "Classic Farkle" in d.table(TABLE).text() and "4000" in d.table(TABLE).text()
    await d.click(BOB, TABLE, label="Join")
    await d.click(ALICE, TABLE, label="Start")
    assert "needed to get on the table" in d.table(TABLE).text()
    assert "Time for this move" not in d.table(TABLE).text()  # the timer is off


async def test_the_lobby_timeout_is_set_in_minutes_and_used_by_the_next_lobby(d: Driver) -> None:
    shown = await d.slash(ADMIN, TABLE, "config show")
    assert "An unstarted lobby closes after **15 minutes**" in shown.message.text()
    saved = await d.slash(ADMIN, TABLE, "config lobby", minutes=5)
    assert saved.ephemeral and "closes after **5 minutes**" in saved.message.text()
    with pytest.raises(ClientRefused):
        await d.slash(ADMIN, TABLE, "config lobby", minutes=0)
    refused = await d.slash(ALICE, TABLE, "config lobby", minutes=60)
    assert refused.ephemeral and "Manage Server" in refused.text
    await d.slash(ALICE, TABLE, "crap start")
    stored = d.stored(TABLE)
    assert stored is not None and stored["deadline"] == pytest.approx(stored["created_at"] + 300)


async def test_bad_values_get_a_clear_answer_and_change_nothing(d: Driver) -> None:
    bad = await d.slash(ADMIN, TABLE, "config farkle-rule", rule="kind_scoring", value="triple")
    assert bad.ephemeral and "kind_scoring" in bad.text
    bad = await d.slash(ADMIN, TABLE, "config farkle-rule", rule="min_bank", value="lots")
    assert bad.ephemeral and "whole number" in bad.text
    shown = await d.slash(ADMIN, TABLE, "config show")
    assert "House rules" not in shown.message.text()
    # Out-of-range numbers never leave the Discord client.
    with pytest.raises(ClientRefused):
        await d.slash(ADMIN, TABLE, "config timer", seconds=99999)
