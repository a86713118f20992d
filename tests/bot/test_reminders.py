"""Reminders over long turns (bot/reminders.py) on both stores: the schedule kept with the
turn, each reminder taken once (the claim and its outbox entry in one commit), quiet hours
holding or skipping one, direct messages only for who asked, and the Remind button's
limits. Nothing is posted here: bot/reminder_delivery.py is tested end to end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.components import Click
from bot.errors import UserError
from bot.reminder_times import HOUR, NUDGE_EVERY
from bot.reminders import NUDGE_KIND, Delivery
from bot.service import Reply, Tables
from bot.store.reminders import RemindPrefs
from tests.bot.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Clock, find, make_tables, run_sql

DAY = 86400


@pytest.fixture
async def day_tables(db_path: Path | str, clock: Clock) -> AsyncIterator[Tables]:
    t = await make_tables(db_path, clock, turn_timer=DAY)
    yield t
    await t.store.close()


async def start(tables: Tables) -> Reply:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {"rules": "classic"})
    await tables.table_posted(CHANNEL, 555)
    reply = await tables.click(BOB, find(reply, "join"), 555)
    return await tables.click(ALICE, find(reply, "start"), 555)


async def holder(tables: Tables) -> int:
    session = await tables.sessions.get(CHANNEL)
    assert session is not None
    (who,) = tables.adapters["farkle"].clock_holders(session.state)
    return int(who)


async def turn_end(tables: Tables) -> float:
    session = await tables.sessions.get(CHANNEL)
    assert session is not None and session.turn_deadline is not None
    return session.turn_deadline


async def test_a_day_long_turn_keeps_its_two_reminders_in_the_store(
    day_tables: Tables, clock: Clock
) -> None:
    reply = await start(day_tables)
    end = await turn_end(day_tables)
    row = await day_tables.store.reminder(CHANNEL)
    assert row is not None
    assert (row.turn_start, row.turn_end, row.sent) == (end - DAY, end, 0)
    assert row.remind_at == end - DAY / 2
    assert await day_tables.store.next_reminder() == end - DAY / 2
    assert any(Click.parse(i.custom_id).kind == NUDGE_KIND for i in reply.items or [])  # type: ignore[union-attr]
    assert await day_tables.reminders.due() == []  # nothing before half time


async def test_each_reminder_is_taken_once_with_its_outbox_entry(
    day_tables: Tables, clock: Clock
) -> None:
    await start(day_tables)
    end = await turn_end(day_tables)
    waiting = await holder(day_tables)
    clock.now = end - DAY / 2
    (first,) = await day_tables.reminders.due()
    assert (first.users, first.dms, first.by) == ([waiting], [], None)
    assert first.link() == f"https://discord.com/channels/{GUILD}/{CHANNEL}/555"
    assert await day_tables.reminders.due() == []  # taken: not again
    row = await day_tables.store.reminder(CHANNEL)
    assert row is not None and (row.sent, row.remind_at) == (1, end - HOUR)
    # A process that read the row before the claim cannot take it again.
    stale = row.__class__(**{**row.__dict__, "sent": 0})
    assert not await day_tables.store.claim_reminder(stale, None, first.outbox())
    assert [Delivery.of(r) for r in await day_tables.store.outbox()] == [first]
    await day_tables.reminders.posted(first)
    assert await day_tables.store.outbox() == []
    clock.now = end - HOUR
    (second,) = await day_tables.reminders.due()
    assert second.nonce != first.nonce
    row = await day_tables.store.reminder(CHANNEL)
    assert row is not None and (row.sent, row.remind_at) == (2, None)
    assert await day_tables.store.next_reminder() is None  # never more than the schedule


async def test_a_move_starts_the_turns_reminders_afresh(day_tables: Tables, clock: Clock) -> None:
    reply = await start(day_tables)
    end = await turn_end(day_tables)
    clock.now = end - DAY / 2
    assert len(await day_tables.reminders.due()) == 1
    mover = await holder(day_tables)
    actor = ALICE if mover == ALICE.id else BOB
    await day_tables.click(actor, find(reply, "roll"), 555)
    row = await day_tables.store.reminder(CHANNEL)
    assert row is not None and row.turn_end == clock.now + DAY and row.sent == 0


async def test_quiet_hours_hold_a_reminder_to_their_end_or_skip_it(
    day_tables: Tables, clock: Clock
) -> None:
    await start(day_tables)
    end = await turn_end(day_tables)
    waiting = await holder(day_tables)
    half = end - DAY / 2
    # Quiet around half time, ending two hours after it (in UTC).
    minute = int(half % DAY // 60)
    quiet = RemindPrefs(waiting, quiet_from=(minute - 60) % 1440, quiet_to=(minute + 120) % 1440, zone="UTC")
    await day_tables.store.save_remind_prefs(quiet, clock.now)
    clock.now = half
    assert await day_tables.reminders.due() == []
    row = await day_tables.store.reminder(CHANNEL)
    wakes = half - half % 60 + 2 * HOUR  # quiet hours end on the minute
    assert row is not None and (row.sent, row.remind_at) == (0, wakes)
    clock.now = wakes
    (held,) = await day_tables.reminders.due()
    assert held.users == [waiting]
    # The last reminder falls in quiet hours that end after the deadline: skipped.
    minute = int((end - HOUR) % DAY // 60)
    late = RemindPrefs(waiting, quiet_from=(minute - 10) % 1440, quiet_to=(minute + 120) % 1440, zone="UTC")
    await day_tables.store.save_remind_prefs(late, clock.now)
    clock.now = end - HOUR
    assert await day_tables.reminders.due() == []
    row = await day_tables.store.reminder(CHANNEL)
    assert row is not None and (row.sent, row.remind_at) == (2, None)
    assert len(await day_tables.store.outbox()) == 1  # the held one only


async def test_direct_messages_go_to_who_asked_and_discord_did_not_refuse(
    day_tables: Tables, clock: Clock
) -> None:
    await start(day_tables)
    end = await turn_end(day_tables)
    waiting = await holder(day_tables)
    await day_tables.store.save_remind_prefs(RemindPrefs(waiting, dm=True), clock.now)
    clock.now = end - DAY / 2
    (first,) = await day_tables.reminders.due()
    assert first.dms == [waiting]
    await day_tables.reminders.dm_refused(waiting)
    prefs = (await day_tables.store.remind_prefs([waiting]))[waiting]
    assert prefs.dm and prefs.dm_refused
    clock.now = end - HOUR
    (second,) = await day_tables.reminders.due()
    assert second.dms == []


async def test_remind_is_once_a_turn_and_rate_limited(day_tables: Tables, clock: Clock) -> None:
    await start(day_tables)
    waiting = await holder(day_tables)
    other = BOB.id if waiting == ALICE.id else ALICE.id
    with pytest.raises(UserError):
        await day_tables.reminders.nudge(CAROL.id, CHANNEL)  # not at the table
    with pytest.raises(UserError):
        await day_tables.reminders.nudge(waiting, CHANNEL)  # it waits for them
    nudge = await day_tables.reminders.nudge(other, CHANNEL)
    assert (nudge.users, nudge.by) == ([waiting], other)
    clock.now += NUDGE_EVERY + 1
    with pytest.raises(UserError):
        await day_tables.reminders.nudge(other, CHANNEL)  # once a turn
    assert [Delivery.of(r) for r in await day_tables.store.outbox()] == [nudge]
    # The timer plays the turn: the next one may be nudged once.
    clock.now = await turn_end(day_tables)
    await day_tables.expire(CHANNEL)
    waiting = await holder(day_tables)
    other = BOB.id if waiting == ALICE.id else ALICE.id
    again = await day_tables.reminders.nudge(other, CHANNEL)
    assert again.users == [waiting] and again.nonce != nudge.nonce
    # Another turn within NUDGE_EVERY of that nudge is not (no ping storm in a fast game).
    soon = Delivery.of((await day_tables.store.outbox())[0]).outbox()
    soon = soon.__class__(**{**soon.__dict__, "nonce": "another"})
    store = day_tables.store
    assert not await store.claim_nudge(CHANNEL, GUILD, 0, 1.0, clock.now + 60, NUDGE_EVERY, soon)
    assert await store.claim_nudge(
        CHANNEL, GUILD, 0, 1.0, clock.now + NUDGE_EVERY, NUDGE_EVERY, soon
    )
    assert len(await store.outbox()) == 3


async def test_short_turns_keep_no_reminders_and_show_no_button(
    db_path: Path | str, clock: Clock
) -> None:
    tables = await make_tables(db_path, clock, turn_timer=120)
    try:
        reply = await start(tables)
        assert await tables.store.reminder(CHANNEL) is None
        kinds = {Click.parse(i.custom_id).kind for i in reply.items or []}  # type: ignore[union-attr]
        assert NUDGE_KIND not in kinds
    finally:
        await tables.store.close()


async def test_a_turn_that_ended_is_forgotten_when_its_reminder_falls_due(
    day_tables: Tables, clock: Clock
) -> None:
    await start(day_tables)
    end = await turn_end(day_tables)
    await day_tables.end(ALICE, CHANNEL, "farkle")
    clock.now = end - DAY / 2
    assert await day_tables.reminders.due() == []
    assert await day_tables.store.reminder(CHANNEL) is None


async def test_a_restart_keeps_the_reminders_of_a_turn_the_dead_process_did_not(
    day_tables: Tables, clock: Clock
) -> None:
    """Died between the game's commit and keeping its turn's reminders: the table is left
    behind too, and the restart's catch-up keeps them; a turn kept already is unchanged."""
    await start(day_tables)
    end = await turn_end(day_tables)
    await run_sql(day_tables.store, "DELETE FROM reminders")
    await run_sql(day_tables.store, "UPDATE sessions SET shown_revision = 0")
    assert await day_tables.catch_up(CHANNEL) is not None
    row = await day_tables.store.reminder(CHANNEL)
    assert row is not None and (row.turn_end, row.sent, row.remind_at) == (end, 0, end - DAY / 2)
    clock.now = end - DAY / 2
    assert len(await day_tables.reminders.due()) == 1
    await run_sql(day_tables.store, "UPDATE sessions SET shown_revision = 0")
    assert await day_tables.catch_up(CHANNEL) is not None
    row = await day_tables.store.reminder(CHANNEL)
    assert row is not None and (row.sent, row.remind_at) == (1, end - HOUR)
