"""/config as server admins meet it: Manage Server checked at run time, values validated,
settings stored and used by the next game; a bad option never reaches the bot."""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e.harness import ADMIN, ALICE, BOB, TABLE, Driver


async def test_config_needs_manage_server_at_run_time(d: Driver) -> None:
    # default_member_permissions hides /config, but server admins can change that:
    # the bot checks again when the command runs.
    (config,) = [c for c in d.commands() if c["name"] == "config"]
    assert config["default_member_permissions"] in ("32", 32)
    refused = await d.slash(ALICE, TABLE, "config timer", time="30s")
    assert refused.ephemeral and "Manage Server" in refused.text
    shown = await d.slash(ADMIN, TABLE, "config show")
    assert shown.ephemeral and "Turn timer: **2 minutes**" in shown.message.text()


async def test_settings_are_stored_and_used_by_the_next_game(d: Driver) -> None:
    saved = await d.slash(ADMIN, TABLE, "config farkle", preset="classic", target=4000)
    assert saved.ephemeral and "Classic Farkle" in saved.message.text()
    await d.slash(ADMIN, TABLE, "config farkle-rule", rule="min_bank", value="400")
    await d.slash(ADMIN, TABLE, "config timer", time="off")
    await d.slash(ADMIN, TABLE, "config kuriki", lives=7, two_digit=True)
    shown = await d.slash(ADMIN, TABLE, "config show")
    text = shown.message.text()
    assert "Bank minimum: 400" in text and "Turn timer: **off**" in text and "Lives: **7**" in text
    await d.slash(ALICE, TABLE, "farkle start")
    assert "Classic Farkle" in d.table(TABLE).text() and "4,000" in d.table(TABLE).text()
    await d.click(BOB, TABLE, label="Join")
    await d.click(ALICE, TABLE, label="Start")
    assert "needed to get on the table" in d.table(TABLE).text()
    assert "Time for this move" not in d.table(TABLE).text()  # the timer is off


async def test_the_lobby_timeout_is_set_as_a_length_and_used_by_the_next_lobby(d: Driver) -> None:
    shown = await d.slash(ADMIN, TABLE, "config show")
    assert "An unstarted lobby closes after **15 minutes**" in shown.message.text()
    saved = await d.slash(ADMIN, TABLE, "config lobby", time="5m")
    assert saved.ephemeral and "closes after **5 minutes**" in saved.message.text()
    for bad, why in (("30s", "at least 1 minute"), ("8d", "at most 7 days"), ("soon", "90s, 10m")):
        refused = await d.slash(ADMIN, TABLE, "config lobby", time=bad)
        assert refused.ephemeral and why in refused.text, refused.text
    refused = await d.slash(ALICE, TABLE, "config lobby", time="1h")
    assert refused.ephemeral and "Manage Server" in refused.text
    await d.slash(ALICE, TABLE, "crap start")
    stored = d.stored(TABLE)
    assert stored is not None and stored["deadline"] == pytest.approx(stored["created_at"] + 300)


async def test_bad_values_get_a_clear_answer_and_change_nothing(d: Driver) -> None:
    bad = await d.slash(ADMIN, TABLE, "config farkle-rule", rule="kind_scoring", value="triple")
    assert bad.ephemeral and "Four or more of a kind: only as a triple plus singles" in bad.text, bad.text
    bad = await d.slash(ADMIN, TABLE, "config farkle-rule", rule="min_bank", value="lots")
    assert bad.ephemeral and "whole number" in bad.text
    shown = await d.slash(ADMIN, TABLE, "config show")
    assert "House rules" not in shown.message.text()
    # A length out of range, or none at all, is refused in words.
    for bad, why in (("8d", "at most 7 days"), ("10s", "at least 15 seconds"), ("x", "1d12h")):
        refused = await d.slash(ADMIN, TABLE, "config timer", time=bad)
        assert refused.ephemeral and why in refused.text, refused.text
    shown = await d.slash(ADMIN, TABLE, "config show")
    assert "Turn timer: **2 minutes**" in shown.message.text()


async def test_a_turn_timer_of_days_is_set_and_shown_in_days(d: Driver) -> None:
    """A family plays a few turns a day: `/config timer 3d` gives each move three days,
    said in days everywhere, and the turn's deadline is three days on."""
    saved = await d.slash(ADMIN, TABLE, "config timer", time="3d")
    assert saved.ephemeral and "Turn timer: **3 days**" in saved.message.text()
    await d.slash(ALICE, TABLE, "farkle start")
    assert "**3 days** for each move" in d.table(TABLE).text()
    await d.click(BOB, TABLE, label="Join")
    await d.click(ALICE, TABLE, label="Start")
    stored = d.stored(TABLE)
    assert stored is not None
    turn = json.loads(stored["data"])["turn_deadline"]
    assert d.bot is not None
    assert turn == pytest.approx(d.bot.tables.clock() + 3 * 86400, abs=5)


async def test_the_lobby_describes_the_rules_that_will_be_played(d: Driver) -> None:
    """House rules and a target chosen at start show in the lobby, not the preset's blurb."""
    await d.slash(ADMIN, TABLE, "config farkle-rule", rule="min_bank", value="300")
    await d.slash(ALICE, TABLE, "farkle start", target=5000)
    text = d.table(TABLE).text()
    assert "Crappy Malappy** with house rules" in text, text
    assert "300 to bank" in text and "250 to bank" not in text, text
    # The preset's 8,000 appears nowhere (mentions and times left out: their ids are random).
    words = re.sub(r"<[^>]*>", "", text)
    assert "5,000 to win" in text and "8,000" not in words, text
    assert "every 7th crappy costs 1,000" in text, text


async def test_config_speaks_in_words(d: Driver) -> None:
    """House rules read as a player says them; the rule choices are whole words."""
    (config,) = [c for c in d.commands() if c["name"] == "config"]
    (rule_cmd,) = [o for o in config["options"] if o["name"] == "farkle-rule"]
    (rule,) = [o for o in rule_cmd["options"] if o["name"] == "rule"]
    names = [c["name"] for c in rule["choices"]]
    assert len(names) <= 25 and all(len(n) <= 100 and not n.endswith(" ") for n in names)
    assert "Straight 1-6: points, or not scored" in names
    await d.slash(ADMIN, TABLE, "config farkle-rule", rule="straight", value="none")
    await d.slash(ADMIN, TABLE, "config farkle-rule", rule="piggyback", value="yes")
    text = (await d.slash(ADMIN, TABLE, "config show")).message.text()
    assert "Straight 1-6: not scored" in text and "Piggyback: on" in text, text
    assert "= None" not in text and "= True" not in text
    bad = await d.slash(ADMIN, TABLE, "config farkle-rule", rule="target", value="100")
    assert "Target must be at least 500." in bad.text, bad.text
