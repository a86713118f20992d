"""The bot as players meet it: commands registered, a lobby opened, joined and started, dice
rolled, and the refusals a bystander and an unknown button get; then a restart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.fake_discord import FakeDiscord, button_row
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    MALLORY,
    TABLE,
    Driver,
    FakeUser,
    is_summary,
    mention,
    running_bot,
)

ACK_LIMIT = 3.0  # Discord's contract, not a benchmark: later answers are refused.


def whose_turn(d: Driver, *players: FakeUser) -> FakeUser:
    m = re.search(r"<@(\d+)>'s turn", d.table(TABLE).text())
    assert m, d.table(TABLE).text()
    return next(p for p in players if p.id == int(m[1]))


@pytest.mark.e2e(seed=7)  # Bob plays first: the table calls him, not the host
async def test_smoke(d: Driver) -> None:
    commands = {c["name"]: c for c in d.commands()}
    assert {"farkle", "config"} <= set(commands)
    subs = {o["name"] for o in commands["farkle"]["options"] if o["type"] == 1}
    assert {"start", "rules", "status", "leave", "end"} <= subs

    opened = await d.slash(ALICE, TABLE, "farkle start", rules="classic", target=5000)
    assert opened.callback_type == 4 and not opened.ephemeral
    lobby = d.table(TABLE)
    assert lobby.id == opened.message.id
    assert "join the table" in lobby.text() and "5,000" in lobby.text()

    await d.click(BOB, TABLE, label="Join")
    assert mention(BOB) in d.table(TABLE).text() and d.table(TABLE) is lobby
    started = await d.click(ALICE, TABLE, label="Start")
    assert started.callback_type == 7 and started.message.id == lobby.id
    # The lobby is reduced to a summary; the table is posted below it, calling the player
    # whose turn it is (and only them).
    first = d.on_table(started, lobby)
    assert first is not lobby and is_summary(lobby) and lobby.buttons() == []
    player = whose_turn(d, ALICE, BOB)
    assert first.content.startswith(mention(player)) and d.notified(first) == {player.id}

    edits = first.edits
    rolled = await d.click(player, TABLE, label="Roll 6 dice")
    table = d.table(TABLE)
    assert rolled.callback_type == 7 and rolled.message is first and table is first
    assert table.edits > edits and "Thrown:" in table.text()
    assert any(b["custom_id"].startswith("t:farkle:toggle:") for b in table.buttons())

    die = next(b for b in table.buttons() if b["custom_id"].startswith("t:farkle:toggle:"))
    refused = await d.click(CAROL, TABLE, custom_id=die["custom_id"])
    assert refused.callback_type == 4 and refused.ephemeral
    assert "not in this game" in refused.text
    assert refused.message in d.visible(CAROL, TABLE)
    for other in (ALICE, BOB, MALLORY):
        assert refused.message not in d.visible(other, TABLE)
    assert d.table(TABLE).text() == table.text()

    # A button no version of the table makes (say, left by an older bot): a polite refusal.
    d.fake.add_message(TABLE, content="Old poll", components=[button_row(("Vote", "garbage"))])
    garbage = await d.click(MALLORY, TABLE, custom_id="garbage")
    assert garbage.callback_type == 4 and garbage.ephemeral
    assert "not one I recognise" in garbage.text
    assert d.ephemerals(MALLORY, TABLE) == [garbage.message]
    assert garbage.message not in d.visible(CAROL, TABLE)

    assert d.fake.violations == []
    latencies = d.fake.ack_latencies()
    assert len(latencies) == 6
    assert all(t is not None and t < ACK_LIMIT for t in latencies.values()), latencies


async def test_buttons_survive_a_restart(tmp_path: Path) -> None:
    """The same Discord (messages, commands) and the same database, a new bot process."""
    fake = FakeDiscord()
    fake.add_guild(GUILD, "Game night", {TABLE: "games"}, owner_id=ALICE.id)
    await fake.start()
    try:
        async with running_bot(tmp_path / "e2e.sqlite3", fake=fake) as d:
            await d.slash(ALICE, TABLE, "farkle start")
            await d.click(BOB, TABLE, label="Join")
            assert d.problems == []
        async with running_bot(tmp_path / "e2e.sqlite3", fake=fake) as d:
            started = await d.click(ALICE, TABLE, label="Start")
            assert started.callback_type == 7
            assert "'s turn" in d.table(TABLE).text()
            assert d.problems == []
    finally:
        await fake.stop()


async def test_help_lists_the_games_with_clickable_commands(d: Driver) -> None:
    """/help: the games, how to start one and the admin commands, each command a mention
    Discord makes clickable (`</farkle start:id>`, with the id the sync returned)."""
    ids = {c["name"]: str(c["id"]) for c in d.commands()}
    shown = await d.slash(BOB, TABLE, "help")
    assert shown.ephemeral and shown.message is not None
    text = shown.message.text()
    commands = ("farkle start", "kuriki start", "crap start", "config show", "stats", "leaderboard")
    for command in commands:
        assert f"</{command}:{ids[command.split()[0]]}>" in text, text
    assert "Farkle" in text and "Kuriki" in text and "CRAP" in text
    assert "/farkle start" not in text.replace("</farkle start:", "")  # no plain fallback
    # The player counts are the lobbies' (Crappy Malappy, the default, seats 25 at one table).
    farkle = "**Farkle** (2-25 players; 2-10 with Classic Farkle or On the Table)"
    assert farkle in text, text
    assert "**Kuriki** (2-12 players)" in text and "**CRAP** (3-6 players)" in text, text
    await d.slash(ALICE, TABLE, "farkle start")
    assert "2-25 players, bots included" in d.table(TABLE).text()
    await d.slash(ALICE, TABLE, "farkle end")
    await d.slash(ALICE, TABLE, "farkle start", rules="classic")
    assert "2-10 players, bots included" in d.table(TABLE).text()


async def test_suggested_commands_are_clickable_wherever_they_are_suggested(d: Driver) -> None:
    """A refusal that suggests a command and a lobby that points at the rules both carry
    clickable command mentions, not plain text to retype."""
    ids = {c["name"]: str(c["id"]) for c in d.commands()}
    refused = await d.slash(BOB, TABLE, "crap status")
    assert refused.ephemeral and refused.message is not None
    assert f"</crap start:{ids['crap']}>" in refused.message.text(), refused.message.text()
    await d.slash(ALICE, TABLE, "kuriki start")
    lobby = d.table(TABLE).text()
    assert f"</kuriki rules:{ids['kuriki']}>" in lobby, lobby
