"""Away over days, in a server channel with a one-day turn timer, on the bot's injected
clock (never waited for in real time): `/away 2d` has a bot play the player's turns (the log
says so, and the finished game is unrated); a pause everyone agreed to holds; coming back is
one press; a stranger's press is refused; a restart keeps the away player and the pause."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bot.settings import GuildSettings
from tests.e2e.bot_play import until
from tests.e2e.fake_discord import FakeDiscord, FakeMessage
from tests.e2e.farkle_play import open_game, play_move, read_table
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    MALLORY,
    TABLE,
    Driver,
    FakeUser,
    running_bot,
)

DAY = 86400
ONE_DAY_TIMER = GuildSettings(turn_timer=DAY)
PLAYERS = [ALICE, BOB, CAROL]


def stored_away(d: Driver) -> dict[str, object]:
    row = d.stored(TABLE)
    assert row is not None
    return dict(json.loads(row["data"]).get("away") or {})


def away_field(message: FakeMessage) -> str:
    """The table's Away field ('' when nobody is away)."""
    for embed in message.embeds:
        for f in embed.get("fields") or []:
            if f["name"] == "Away":
                return str(f["value"])
    return ""


def with_bots(d: Driver) -> list[tuple[int, int]]:
    assert d.database is not None
    con = sqlite3.connect(d.database)
    try:
        return con.execute(
            "SELECT player_id, with_bots FROM player_stats ORDER BY player_id"
        ).fetchall()
    finally:
        con.close()


async def bot_plays_for(d: Driver, who: FakeUser) -> None:
    """The table waits on away `who`: a bot's pause later (moved on the bot's clock), the
    timer plays their turn."""
    row = d.stored(TABLE)
    assert row is not None
    seen = row["revision"]
    d.skip_ahead(2)
    await until(d, f"the bot to play for {who.name}", lambda: _moved(d, seen))
    await d.settle()


def shown(d: Driver, line: str, away: FakeUser) -> bool:
    """Whether the live table has moved past `away`'s turn and its log shows `line`."""
    table = d.table(TABLE)
    view = read_table(table)
    return (view.finished or view.current != away.id) and line in table.text()


def _moved(d: Driver, revision: int) -> bool:
    row = d.stored(TABLE)
    return row is None or row["revision"] > revision


@pytest.mark.slow
@pytest.mark.e2e(seed=3, defaults=ONE_DAY_TIMER)
async def test_away_for_two_days_a_bot_plays_the_turns_and_the_game_is_unrated(d: Driver) -> None:
    await open_game(d, TABLE, PLAYERS, rules="classic", target=1000)
    away = next(p for p in PLAYERS if p.id == read_table(d.table(TABLE)).current)
    said = await d.slash(away, TABLE, "away", time="2d")
    assert said.ephemeral and "a bot plays your turns" in said.text
    assert said.message is not None and "I'm back" in said.message.labels()
    assert f"💤 {away.name}: away until <t:" in away_field(d.table(TABLE))
    played_for = 0
    line = f"A bot played for {away.name}, who is away."
    for _ in range(400):
        view = read_table(d.table(TABLE))
        if view.finished:
            break
        if view.current == away.id:
            await bot_plays_for(d, away)
            played_for += 1
            # The timer loop's table update is not an interaction the harness settles:
            # waited for (a loaded machine shows the committed move a moment later).
            await until(d, "the table to show the stand-in's move", lambda: shown(d, line, away))
        else:
            await play_move(d, TABLE, PLAYERS, bank_at=300)
    assert read_table(d.table(TABLE)).finished and played_for >= 1
    # Unrated, as a game with bot seats: every player's row counts with the bot games.
    assert with_bots(d) == sorted((p.id, 1) for p in PLAYERS)


@pytest.mark.slow
@pytest.mark.e2e(seed=4, defaults=ONE_DAY_TIMER)
async def test_a_pause_everyone_agrees_to_and_coming_back_with_one_press(d: Driver) -> None:
    await open_game(d, TABLE, PLAYERS)
    asked = await d.slash(ALICE, TABLE, "away", time="2d", pause=True)
    assert asked.ephemeral and "asked the others to pause" in asked.text
    table = d.table(TABLE)
    assert "Alice asks to pause the game until <t:" in away_field(table)
    assert "Agreed so far: Alice." in away_field(table)
    # A stranger's press is refused privately, and changes nothing.
    refused = await d.click(MALLORY, TABLE, label="Agree to pause", message=table)
    assert refused.ephemeral and "You are not in this game" in refused.text
    assert stored_away(d)["pause"]["agreed"] == [ALICE.id]  # type: ignore[index]
    await d.click(BOB, TABLE, label="Agree to pause", message=d.table(TABLE))
    assert "Agreed so far: Alice and Bob." in away_field(d.table(TABLE))  # not Carol yet
    assert "paused until" not in away_field(d.table(TABLE))
    await d.click(CAROL, TABLE, label="Agree to pause", message=d.table(TABLE))
    table = d.table(TABLE)
    assert "The game is paused until <t:" in away_field(table), away_field(table)
    row = d.stored(TABLE)
    assert row is not None and json.loads(row["data"])["turn_deadline"] is None
    # A day later nothing has moved: no turn ran out, no bot played.
    revision = row["revision"]
    d.skip_ahead(DAY)
    await d.settle()
    assert d.stored(TABLE)["revision"] == revision  # type: ignore[index]
    # Back: one press on the table.
    back = await d.click(ALICE, TABLE, label="I'm back", message=d.table(TABLE))
    assert back.ephemeral and "Welcome back" in back.text
    assert away_field(d.table(TABLE)) == ""
    assert stored_away(d).get("away") in (None, {}) and stored_away(d).get("pause") is None
    assert json.loads(d.stored(TABLE)["data"])["turn_deadline"] is not None  # type: ignore[index]
    # Nobody is away now: "I'm back" is gone, and /away off says so privately.
    off = await d.slash(BOB, TABLE, "away", time="off")
    assert off.ephemeral and "You are not away" in off.text


@pytest.mark.slow
async def test_a_restart_keeps_the_away_player_and_the_pause(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "e2e.sqlite3"
    async with running_bot(db, fake=fake, seed=5, defaults=ONE_DAY_TIMER) as d:
        await open_game(d, TABLE, [ALICE, BOB])
        await d.slash(ALICE, TABLE, "away", time="1d12h", pause=True)
        await d.click(BOB, TABLE, label="Agree to pause", message=d.table(TABLE))
        before = stored_away(d)
        table = d.table(TABLE)
        assert "paused" in away_field(table)
        await d.crash()
    async with running_bot(db, fake=fake, seed=6, defaults=ONE_DAY_TIMER) as d:
        assert stored_away(d) == before
        # The buttons on the table from before the restart still work.
        resumed = await d.click(BOB, TABLE, label="Resume", message=d.table(TABLE))
        assert resumed.ephemeral and "The game goes on" in resumed.text
        assert "paused" not in away_field(d.table(TABLE))
        assert "💤 Alice: away until" in away_field(d.table(TABLE))
        back = await d.slash(ALICE, TABLE, "away", time="off")
        assert back.ephemeral and "Welcome back" in back.text
        assert away_field(d.table(TABLE)) == ""
