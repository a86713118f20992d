"""Start options standing in for /config outside servers, through the real client: a value
/config would refuse is refused in its words in a group DM and a DM (privately, nothing
opened); in the server that added the bot an option that is its setting points to /config;
/help outside servers lists the start options instead of /config."""

from __future__ import annotations

import json

import pytest

from tests.e2e.harness import ALICE, BOB, CAROL, TABLE, Driver


async def test_a_refused_start_option_in_a_group_dm_and_a_dm(d: Driver) -> None:
    assert d.bot is not None
    d.fake.install(ALICE)
    group = d.fake.add_group_dm([ALICE, BOB, CAROL]).id
    pair = d.fake.add_dm(ALICE, BOB).id
    own = d.fake.add_dm(ALICE, d.fake.bot).id
    for place, options, words in (
        (group, {"house_rule": "target", "value": "100"}, "Target must be at least 500."),
        (own, {"house_rule": "min_bank", "value": "lots"}, "Bank minimum takes a whole number"),
        (pair, {"house_rule": "one_die_throws", "value": "9"}, "must be at most 6"),
        (group, {"timer": "8d"}, "The turn timer must be at most 7 days."),
        (pair, {"timer": "tomorrow"}, "write it like 90s, 10m, 12h, 1d or 1d12h"),
        (group, {"house_rule": "piggyback"}, "A house rule takes both options"),
    ):
        refused = await d.slash(ALICE, place, "farkle start", **options)
        assert refused.callback_type == 4 and refused.ephemeral, refused.text
        assert words in refused.text
        assert await d.bot.store.load_session(place) is None
        assert d.fake.public(place) == []


async def test_in_the_server_its_settings_rule(d: Driver) -> None:
    assert d.bot is not None
    refused = await d.slash(ALICE, TABLE, "farkle start", timer="30s")
    assert refused.ephemeral and "This server's settings rule here" in refused.text
    assert "the turn timer with </config timer:" in refused.text  # a clickable /config timer
    refused = await d.slash(ALICE, TABLE, "crap start", bluff_window=60)
    assert "the bluff window with </config crap:" in refused.text
    assert await d.bot.store.load_session(TABLE) is None


async def test_help_outside_servers_names_the_start_options(d: Driver) -> None:
    d.fake.install(ALICE)
    group = d.fake.add_group_dm([ALICE, BOB]).id
    outside = (await d.slash(ALICE, group, "help")).message.text()
    assert "Settings here: the host's start options" in outside
    assert "`timer`" in outside and "`house_rule` + `value`" in outside
    assert "config" not in outside
    inside = (await d.slash(ALICE, TABLE, "help")).message.text()
    assert "Server managers (Manage Server)" in inside and "start options" not in inside


async def test_a_start_with_a_timer_of_a_day_gives_each_move_a_day(d: Driver) -> None:
    """Outside servers the host's `timer:1d` is the game's: the lobby says a day, the
    turn's deadline is a day on, and its Rematch keeps it."""
    assert d.bot is not None
    d.fake.install(ALICE)
    group = d.fake.add_group_dm([ALICE, BOB, CAROL]).id
    await d.slash(ALICE, group, "farkle start", timer="1d")
    assert "**1 day** for each move" in d.table(group).text()
    await d.click(BOB, group, label="Join")
    await d.click(ALICE, group, label="Start")
    stored = d.stored(group)
    assert stored is not None
    turn = json.loads(stored["data"])["turn_deadline"]
    assert turn == pytest.approx(d.bot.tables.clock() + 86400, abs=5)
