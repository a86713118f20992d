"""Away players through the table service (bot/away.py): a bot plays an away player's turns
(marked in the log, the game unrated), the pause everyone agreed to, coming back with one
press, refusals, and the book kept over a restart. The clock is the tests' own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.away import parse_away
from bot.away_table import AGREE, AWAY_KIND, BACK, PAUSE, RESUME
from bot.components import Click, TableItem
from bot.errors import UserError
from bot.service import Tables
from bot.sessions import Session
from games.errors import NotInGame
from tests.bot.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    MALLORY,
    Clock,
    fetch_sql,
    find,
    make_tables,
    open_game,
    outcome,
)

DAY = 86400


@asynccontextmanager
async def game(db_path: Path | str, clock: Clock, *players: object) -> AsyncIterator[Tables]:
    """A running Farkle game of `players` (default Alice and Bob) with a one-day timer; its
    store is closed after the block."""
    tables = await make_tables(db_path, clock, turn_timer=DAY)
    try:
        await open_game(tables, *(players or (ALICE, BOB)))  # type: ignore[arg-type]
        yield tables
    finally:
        await tables.store.close()


async def now_session(tables: Tables) -> Session:
    session = await tables.sessions.get(CHANNEL)
    assert session is not None
    return session


def away_click(session: Session, action: str) -> Click:
    return Click(AWAY_KIND, action, CHANNEL, session.game_id, 0)


def log_text(session: Session) -> list[str]:
    return [str(line) for line in session.state.log]


async def run_due(tables: Tables, clock: Clock, until: float) -> int:
    """Play every deadline due up to `until`, in order, as the timer loop would; returns
    how many were played."""
    played = 0
    while True:
        session = await tables.sessions.get(CHANNEL)
        if session is None or session.deadline is None or session.deadline > until:
            return played
        clock.now = max(clock.now, session.deadline)
        await tables.expire(CHANNEL)
        played += 1


def test_parse_away_reads_days_hours_and_minutes_and_refuses_the_rest() -> None:
    assert parse_away("2d") == 2 * DAY
    assert parse_away("1d12h") == 36 * 3600
    assert parse_away(" 3h 30m ") == 3 * 3600 + 1800
    assert parse_away("off") is None
    for bad in ("tomorrow", "8d", "30s", "0h", "", "2x"):
        with pytest.raises(UserError):
            parse_away(bad)


async def test_a_bot_plays_the_away_players_turns_marked_in_the_log_and_the_game_is_unrated(
    db_path: Path | str, clock: Clock
) -> None:
    async with game(db_path, clock) as tables:
        session = await now_session(tables)
        mover = session.state.current_player.id
        away, other = (ALICE, BOB) if mover == ALICE.id else (BOB, ALICE)
        reply = await tables.away(away, CHANNEL, 2 * DAY)
        assert reply.ephemeral and "<t:" in (reply.content or "")
        table = reply.update.table  # type: ignore[union-attr]
        assert any(away.name in f.value and "<t:" in f.value for f in table.embed.fields)
        session = await now_session(tables)
        assert session.away.is_away(away.id, clock.now)
        # The game waits on the away player: their turn is played a bot's pause later, not
        # a day later.
        assert session.deadline is not None and session.deadline < clock.now + 60
        await run_due(tables, clock, clock.now + 60)
        session = await now_session(tables)
        assert session.state.current_player.id == other.id
        assert f"A bot played for {away.name}, who is away." in log_text(session)
        assert session.away.stood_in == [away.id]
        assert session.state.player(away.id).timeouts == 0
        # The other one leaves: the game ends, and counts with the games with bots.
        await tables.leave(other, CHANNEL, "farkle")
        rows = await fetch_sql(
            tables.store, "SELECT player_id, with_bots, is_bot FROM player_stats ORDER BY player_id"
        )
        assert rows == [(ALICE.id, 1, 0), (BOB.id, 1, 0)]


@pytest.mark.parametrize("kind", ["kuriki", "crap"])
async def test_the_bot_plays_for_an_away_player_in_every_game(
    db_path: Path | str, clock: Clock, kind: str
) -> None:
    tables = await make_tables(db_path, clock, turn_timer=DAY)
    try:
        reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, kind, {})
        await tables.table_posted(CHANNEL, 555)
        for p in (BOB, CAROL):
            reply = await tables.click(p, find(reply, "join"), 555)
        await tables.click(ALICE, find(reply, "start"), 555)
        session = await now_session(tables)
        adapter = tables.adapters[kind]
        waited = adapter.on_clock(session.state)
        away = next(p for p in (ALICE, BOB, CAROL) if p.id == waited)
        await tables.away(away, CHANNEL, 2 * DAY)
        await run_due(tables, clock, clock.now + 60)
        session = await now_session(tables)
        assert adapter.on_clock(session.state) != away.id
        assert f"A bot played for {away.name}, who is away." in log_text(session)
        assert session.away.stood_in == [away.id]
    finally:
        await tables.store.close()


async def test_a_game_without_anyone_away_stays_rated_as_before(
    db_path: Path | str, clock: Clock
) -> None:
    async with game(db_path, clock) as tables:
        await tables.away(ALICE, CHANNEL, DAY)
        await tables.away(ALICE, CHANNEL, None)  # back before any turn of hers was played
        await tables.leave(BOB, CHANNEL, "farkle")
        rows = await fetch_sql(tables.store, "SELECT with_bots FROM player_stats")
        assert rows == [(0,), (0,)]


async def test_everyone_agreeing_pauses_the_game_until_the_away_time_ends(
    db_path: Path | str, clock: Clock
) -> None:
    async with game(db_path, clock, ALICE, BOB, CAROL) as tables:
        start = clock.now
        await tables.away(ALICE, CHANNEL, 2 * DAY, pause=True)
        session = await now_session(tables)
        assert session.away.pause is not None and not session.away.pause.on
        reply = await tables.away_press(BOB, away_click(session, AGREE))
        table = reply.update.table  # type: ignore[union-attr]
        assert any(c.action == AGREE for c in _clicks(table.items))
        session = await now_session(tables)
        assert not session.away.pause.on  # type: ignore[union-attr]  # Carol has not agreed
        reply = await tables.away_press(CAROL, away_click(session, AGREE))
        session = await now_session(tables)
        assert session.away.pause is not None and session.away.pause.on
        assert session.turn_deadline is None and session.bot_deadline is None
        assert session.deadline == pytest.approx(start + 2 * DAY)
        table = reply.update.table  # type: ignore[union-attr]
        assert any("paused" in f.value for f in table.embed.fields)
        assert any(c.action == RESUME for c in _clicks(table.items))
        moves = session.revision
        # Nothing runs until the pause ends; then the turn clock runs again, a full day.
        assert await run_due(tables, clock, start + 2 * DAY - 1) == 0
        assert (await now_session(tables)).revision == moves
        await run_due(tables, clock, start + 2 * DAY)
        session = await now_session(tables)
        assert session.away.pause is None and not session.away.away
        assert session.turn_deadline == pytest.approx(start + 3 * DAY)
        assert session.away.stood_in == []


async def test_resume_ends_the_pause_and_the_bot_plays_for_the_away_player_again(
    db_path: Path | str, clock: Clock
) -> None:
    async with game(db_path, clock) as tables:
        await tables.away(ALICE, CHANNEL, DAY, pause=True)
        session = await now_session(tables)
        await tables.away_press(BOB, away_click(session, AGREE))
        assert (await now_session(tables)).away.paused([ALICE.id, BOB.id], clock.now)
        await tables.away_press(BOB, away_click(session, RESUME))
        session = await now_session(tables)
        assert session.away.pause is None and session.away.is_away(ALICE.id, clock.now)
        assert session.turn_deadline is not None
        with pytest.raises(UserError):
            await tables.away_press(BOB, away_click(session, RESUME))


async def test_coming_back_is_one_press_and_a_strangers_press_is_refused(
    db_path: Path | str, clock: Clock
) -> None:
    async with game(db_path, clock) as tables:
        reply = await tables.away(ALICE, CHANNEL, DAY)
        back = next(c for c in _clicks(reply.items or []) if c.action == BACK)
        assert any(c.action == PAUSE for c in _clicks(reply.items or []))
        with pytest.raises(NotInGame):
            await tables.away_press(MALLORY, back)
        with pytest.raises(UserError):
            await tables.away_press(BOB, back)  # Bob is not away
        assert (await now_session(tables)).away.is_away(ALICE.id, clock.now)
        reply = await tables.away_press(ALICE, back)
        assert reply.ephemeral
        session = await now_session(tables)
        assert not session.away.is_away(ALICE.id, clock.now)
        table = reply.update.table  # type: ignore[union-attr]
        assert not any(c.kind == AWAY_KIND for c in _clicks(table.items))
        with pytest.raises(NotInGame):
            await tables.away(MALLORY, CHANNEL, DAY)


async def test_away_and_a_pause_survive_a_restart(db_path: Path | str, clock: Clock) -> None:
    async with game(db_path, clock) as tables:
        await tables.away(ALICE, CHANNEL, 2 * DAY, pause=True)
        await tables.away_press(BOB, away_click(await now_session(tables), AGREE))
        before = (await now_session(tables)).away
    tables = await make_tables(db_path, clock, turn_timer=DAY)
    try:
        session = await now_session(tables)
        assert session.away == before and session.away.pause is not None
        assert session.away.pause.on and session.away.is_away(ALICE.id, clock.now)
    finally:
        await tables.store.close()


async def test_when_everyone_is_away_the_game_waits_and_after_it_idle_turns_end_it(
    db_path: Path | str, clock: Clock
) -> None:
    async with game(db_path, clock) as tables:
        start = clock.now
        await tables.away(ALICE, CHANNEL, DAY)
        await tables.away(BOB, CHANNEL, 2 * DAY)
        session = await now_session(tables)
        assert session.turn_deadline is None and session.bot_deadline is None
        assert session.deadline == pytest.approx(start + DAY)
        # Alice's away time ends: the bot plays for Bob, Alice's turns run on her clock.
        # Bob's ends a day later; nobody comes back, every turn runs out, and the game
        # ends with no winner.
        await run_due(tables, clock, start + 30 * DAY)
        assert await tables.sessions.get(CHANNEL) is None
        rows = await fetch_sql(tables.store, "SELECT winner_id, outcome FROM finished_games")
        assert rows[0][0] is None and "nobody played for" in outcome({"outcome": rows[0][1]})


async def test_a_game_nobody_touches_ends_with_no_winner_after_its_timer_series_of_weeks(
    db_path: Path | str, clock: Clock
) -> None:
    """A seven-day timer: each turn runs out a week later; after every person let two run
    out, the game is over with no winner, as with a two-minute timer."""
    tables = await make_tables(db_path, clock, turn_timer=7 * DAY)
    try:
        await open_game(tables, ALICE, BOB)
        start = clock.now
        assert (await now_session(tables)).deadline == pytest.approx(start + 7 * DAY)
        assert await run_due(tables, clock, start + 7 * DAY * 4) == 4
        assert await tables.sessions.get(CHANNEL) is None
        rows = await fetch_sql(tables.store, "SELECT winner_id, outcome FROM finished_games")
        assert rows[0][0] is None
        assert outcome({"outcome": rows[0][1]}) == "Nobody wins: nobody played for 4 turns."
    finally:
        await tables.store.close()


def _clicks(items: list[TableItem]) -> list[Click]:
    return [c for c in (Click.parse(i.custom_id) for i in items) if c is not None]

