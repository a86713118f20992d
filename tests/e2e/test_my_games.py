"""/games through the real client: a player in games in a server channel, a group DM and a
DM between users (the last two reached through user installs, where the bot is no member)
sees each, privately, with whose turn it is, when that turn runs out and a link to its
table message; the games waiting on them first. A day's timer running out moves the turn,
and the list follows."""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e import farkle_play
from tests.e2e.harness import ALICE, BOB, CAROL, GUILD, TABLE, Driver, eventually

DAY = 86400


def turn_deadline(d: Driver, channel: int) -> int:
    stored = d.stored(channel)
    assert stored is not None
    return int(json.loads(stored["data"])["turn_deadline"])


def lines_by_channel(text: str) -> dict[int, str]:
    """Each line of the list, by the channel its link names."""
    found = {}
    for line in text.splitlines():
        link = re.search(r"https://discord\.com/channels/[^/]+/(\d+)/(\d+)", line)
        if link:
            found[int(link.group(1))] = line
    return found


@pytest.mark.slow
async def test_games_in_a_server_a_group_dm_and_a_dm_are_listed_with_whose_turn_and_links(
    d: Driver,
) -> None:
    for user in (ALICE, BOB, CAROL):
        d.fake.install(user)
    group = d.fake.add_group_dm([ALICE, BOB, CAROL]).id
    pair = d.fake.add_dm(ALICE, BOB).id
    await farkle_play.open_game(d, TABLE, [ALICE, BOB])
    await d.slash(BOB, group, "farkle start", timer="1d")
    for user in (ALICE, CAROL):
        await d.click(user, group, label="Join")
    await d.click(BOB, group, label="Start")
    await d.slash(ALICE, pair, "kuriki start", timer="3d")
    await d.click(BOB, pair, label="Join")
    await d.click(ALICE, pair, label="Start")

    shown = await d.slash(ALICE, TABLE, "games")
    assert shown.ephemeral, shown.text
    lines = lines_by_channel(shown.text)
    assert set(lines) == {TABLE, group, pair}
    assert d.bot is not None
    order = []
    for channel in (TABLE, group, pair):
        line = lines[channel]
        where = str(GUILD) if channel == TABLE else "@me"
        table = d.table(channel)
        assert f"https://discord.com/channels/{where}/{channel}/{table.id})" in line, line
        session = await d.bot.tables.sessions.get(channel)
        assert session is not None
        waiting = d.bot.tables.adapters[session.kind].waiting_on(session.state)
        assert ("**your turn**" in line) == (ALICE.id in waiting), line
        names = {ALICE.id: "Alice", BOB.id: "Bob", CAROL.id: "Carol"}
        if ALICE.id not in waiting:
            assert "waiting for " + " and ".join(names[p] for p in waiting) in line, line
        assert f"<t:{turn_deadline(d, channel)}:R>" in line, line
        order.append((ALICE.id not in waiting, channel))
    assert ("direct messages" in lines[group]) and f"<#{TABLE}>" in lines[TABLE]
    listed = sorted(lines, key=lambda c: shown.text.index(lines[c]))
    # Waiting on Alice first, then the others; each group in the order it began waiting.
    opened = [TABLE, group, pair]
    assert [c for _m, c in sorted(order, key=lambda o: (o[0], opened.index(o[1])))] == listed
    # A day passes in the group DM: the timer plays the turn, and the list follows it.
    before = turn_deadline(d, group)
    d.skip_ahead(DAY + 1)
    await eventually("the day's timer to play the turn", lambda: turn_deadline(d, group) != before)
    await d.settle()
    after = turn_deadline(d, group)
    assert after > before + DAY - 5
    again = lines_by_channel((await d.slash(CAROL, TABLE, "games")).text)
    assert set(again) == {group}  # Carol sits only there
    assert f"<t:{after}:R>" in again[group]
    assert d.problems == []
