"""Reminders over long turns through the real client, on the bot's injected clock: a
Farkle game with a one-day turn timer in a server channel, played over three days. The
player the game waits for is reminded at half time and an hour before the deadline, by a new
message that mentions them with a link to the table, and by a direct message where they
asked for one; quiet hours hold a reminder; the timer plays a turn nobody played; Remind
works once a turn; `/games` lists the game with whose turn and the link. (The kill -9
between two reminders is in test_reminder_restart.py.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot.settings import GuildSettings
from tests.e2e.bot_play import until
from tests.e2e.fake_discord import TOKEN_LIFETIME, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.farkle_play import next_press, open_game, read_table
from tests.e2e.harness import ALICE, BOB, GUILD, TABLE, Driver, running_bot
from tests.e2e.test_play_anywhere import no_channel_requests, place_in

DAY = 86400.0
HOUR = 3600.0


def reminders(d: Driver, user: FakeUser) -> list[FakeMessage]:
    """The bot's messages in the channel that notified `user` with a link to a table."""
    link = f"https://discord.com/channels/{GUILD}/{TABLE}/"
    return [m for m in d.notifications(user) if m.channel_id == TABLE and link in m.content]


def skip_to(d: Driver, when: float) -> None:
    """Move the bot's clock to `when`, and Discord's with it: the table's message ages as
    the bot counts (an old message is posted afresh rather than edited)."""
    seconds = when - bot_now(d)
    d.skip_ahead(seconds)
    d.fake.advance_clock(seconds)


def bot_now(d: Driver) -> float:
    assert d.bot is not None
    return d.bot.tables.clock()


async def turn_end(d: Driver) -> float:
    assert d.bot is not None
    session = await d.bot.tables.sessions.get(TABLE)
    assert session is not None and session.turn_deadline is not None
    return session.turn_deadline


def hhmm(at: float) -> str:
    """The UTC time of day of `at`, as /remind quiet takes it."""
    t = time.gmtime(at)
    return f"{t.tm_hour:02d}:{t.tm_min:02d}"


@pytest.mark.slow
@pytest.mark.e2e(defaults=GuildSettings(turn_timer=int(DAY)))
async def test_a_game_over_three_days_reminds_on_schedule(d: Driver) -> None:
    for user in (ALICE, BOB):
        answer = await d.slash(user, TABLE, "remind me", dms="on")
        assert answer.ephemeral and "Direct messages: on" in answer.text
    table = await open_game(d, TABLE, [ALICE, BOB], rules="classic")
    assert "Remind" in table.labels()
    first = read_table(table).current
    waiting, other = (ALICE, BOB) if first == ALICE.id else (BOB, ALICE)

    # Day 1, half time: a new message mentions the player, linking to the table, and a DM.
    end = await turn_end(d)
    skip_to(d, end - DAY / 2)
    await until(d, "the half-time reminder", lambda: len(reminders(d, waiting)) == 1)
    (half,) = reminders(d, waiting)
    assert half.content.endswith(f"/{TABLE}/{d.table(TABLE).id}")
    assert d.notified(half) == {waiting.id}
    await until(d, "its DM", lambda: len(d.fake.direct_messages(waiting.id)) == 1)
    assert reminders(d, other) == [] and d.fake.direct_messages(other.id) == []

    # Quiet hours around the last reminder (UTC, given as an offset): held to their end.
    last = end - HOUR
    quiet = await d.slash(
        waiting, TABLE, "remind quiet", hours=f"{hhmm(last - 1200)}-{hhmm(last + 1200)}", zone="+0"
    )
    assert "Quiet hours: " in quiet.text and "(+00:00)" in quiet.text
    skip_to(d, last + 60)
    assert d.bot is not None
    store = d.bot.tables.store
    held: list[float | None] = []

    async def is_held() -> bool:
        row = await store.reminder(TABLE)
        held[:] = [None if row is None else row.remind_at]
        return row is not None and row.remind_at is not None and row.remind_at > last + 60

    await until_async(d, "the last reminder to be held", is_held)
    assert len(reminders(d, waiting)) == 1
    wakes = held[0]
    assert wakes is not None and last + 1080 <= wakes <= last + 1260 and wakes < end
    skip_to(d, wakes)
    await until(d, "the held reminder", lambda: len(reminders(d, waiting)) == 2)
    await until(d, "its DM", lambda: len(d.fake.direct_messages(waiting.id)) == 2)

    # The deadline: the timer plays the turn, the other player's turn starts (one day).
    skip_to(d, end)
    await until(d, "the timeout", lambda: read_table(d.table(TABLE)).current == other.id)
    assert "ran out of time" in d.table(TABLE).text()

    # /games follows: the other player's turn, its deadline and the live table's link.
    link = f"https://discord.com/channels/{GUILD}/{TABLE}/{d.table(TABLE).id})"
    deadline = int(await turn_end(d))
    mine = (await d.slash(other, TABLE, "games")).text
    assert "**your turn**" in mine and link in mine and f"<t:{deadline}:R>" in mine, mine
    theirs = await d.slash(waiting, TABLE, "games")
    assert theirs.ephemeral and "waiting for " in theirs.text and link in theirs.text

    # Day 2: the first player presses Remind; once a turn.
    nudged = await d.click(waiting, TABLE, label="Remind", message=d.table(TABLE))
    assert nudged.ephemeral and f"<@{other.id}>" in nudged.text
    await until(d, "the nudge", lambda: len(reminders(d, other)) == 1)
    (nudge,) = reminders(d, other)
    assert f"<@{waiting.id}> reminds you" in nudge.content and d.notified(nudge) == {other.id}
    await until(d, "its DM", lambda: len(d.fake.direct_messages(other.id)) == 1)
    again = await d.click(waiting, TABLE, label="Remind", message=d.table(TABLE))
    assert again.ephemeral and "each turn may be nudged once" in again.text
    refused = await d.click(other, TABLE, label="Remind", message=d.table(TABLE))
    assert refused.ephemeral and "waiting for you" in refused.text
    await d.settle()
    assert len(reminders(d, other)) == 1
    # Half a day later the other player plays their turn to its end.
    end = await turn_end(d)
    skip_to(d, end - DAY / 2)
    await until(d, "day two's reminder", lambda: len(reminders(d, other)) == 2)
    while (view := read_table(await table_now(d))).current == other.id:
        # A table half a day old is posted afresh rather than edited: pressed by hand.
        _, button = next_press(view)
        await d.click(other, TABLE, custom_id=button["custom_id"], message=view.message)

    # Day 3: both reminders of the first player's turn, quiet hours over, then the timer.
    await d.slash(waiting, TABLE, "remind quiet", hours="off")
    end = await turn_end(d)
    skip_to(d, end - DAY / 2)
    await until(d, "day three's first reminder", lambda: len(reminders(d, waiting)) == 3)
    skip_to(d, end - HOUR)
    await until(d, "day three's last reminder", lambda: len(reminders(d, waiting)) == 4)
    skip_to(d, end)
    await until(d, "the second timeout", lambda: read_table(d.table(TABLE)).current == other.id)
    await d.settle()
    # Never more than the schedule: two a turn, one nudge, each DM once.
    assert len(reminders(d, waiting)) == 4 and len(reminders(d, other)) == 2
    assert len(d.fake.direct_messages(waiting.id)) == 4
    assert len(d.fake.direct_messages(other.id)) == 2
    assert await store.outbox() == []


async def table_now(d: Driver) -> FakeMessage:
    """The live table once the bot is done with it: reminders below a table count as the
    chatter that has it posted again at the bottom of the channel."""
    await d.settle()
    assert d.bot is not None
    bot = d.bot
    await until(d, "the table to be reposted", lambda: not bot._reposts and bool(d.tables(TABLE)))
    return d.table(TABLE)


async def until_async(d: Driver, what: str, ok: Callable[[], Awaitable[bool]]) -> None:
    """`until` for a check that reads the store (a hang fails, not a slow machine)."""
    deadline = time.monotonic() + d.timeout
    while not await ok():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {d.timeout} s for {what}")
        await asyncio.sleep(0.01)


@pytest.mark.e2e(defaults=GuildSettings(turn_timer=int(DAY)))
async def test_a_player_whose_dms_are_closed_is_reminded_in_the_channel(d: Driver) -> None:
    d.fake.closed_dms.update({ALICE.id, BOB.id})
    for user in (ALICE, BOB):
        await d.slash(user, TABLE, "remind me", dms="on")
    table = await open_game(d, TABLE, [ALICE, BOB], rules="classic")
    waiting = ALICE if read_table(table).current == ALICE.id else BOB
    end = await turn_end(d)
    skip_to(d, end - DAY / 2)
    await until(d, "the reminder", lambda: len(reminders(d, waiting)) == 1)
    assert d.bot is not None
    store = d.bot.tables.store

    async def refused() -> bool:
        prefs = (await store.remind_prefs([waiting.id])).get(waiting.id)
        return prefs is not None and prefs.dm_refused

    await until_async(d, "the refusal to be remembered", refused)
    shown = await d.slash(waiting, TABLE, "remind show")
    assert "Discord refused the last one" in shown.text
    assert d.fake.direct_messages(waiting.id) == []
    assert not [p for p in d.problems if "50007" in p and "WARNING" in p]


@pytest.mark.slow
async def test_where_the_bot_is_no_member_reminders_are_dms_and_remind_posts_as_pressed(
    tmp_path: Path,
) -> None:
    """A server that never added the bot: no reminder can go to the channel (every token
    expired), so the player's DM carries it; the table says so. Remind is a press, whose
    interaction may post: the mention appears in the channel through it."""
    fake = FakeDiscord(token_lifetime=TOKEN_LIFETIME)
    await fake.start()
    try:
        channel, _ = place_in(fake, "server without the bot")
        settings = GuildSettings(turn_timer=int(DAY))
        async with running_bot(tmp_path / "e2e.sqlite3", fake=fake, defaults=settings) as d:
            for user in (ALICE, BOB):
                await d.slash(user, channel, "remind me", dms="on")
            table = await open_game(d, channel, [ALICE, BOB], rules="classic")
            assert "reach players only as direct messages" in table.text()
            assert "Remind" in table.labels()
            waiting, other = (ALICE, BOB) if read_table(table).current == ALICE.id else (BOB, ALICE)
            assert d.bot is not None
            session = await d.bot.tables.sessions.get(channel)
            assert session is not None and session.turn_deadline is not None
            skip_to(d, session.turn_deadline - DAY / 2)  # every token has expired by then
            await until(d, "the DM", lambda: len(fake.direct_messages(waiting.id)) == 1)
            assert f"/{channel}/" in fake.direct_messages(waiting.id)[0].content
            no_channel_requests(d, channel)
            pressed = await d.click(other, channel, label="Remind", message=d.table(channel))
            assert pressed.ephemeral
            await until(d, "the DM", lambda: len(fake.direct_messages(waiting.id)) == 2)
            await d.settle()
            (nudge,) = [m for m in fake.notifications(waiting.id) if m.channel_id == channel]
            assert f"<@{other.id}> reminds you" in nudge.content and not nudge.ephemeral
            no_channel_requests(d, channel)  # it went through the press's interaction
    finally:
        await fake.stop()
