"""A kill -9 between two reminders: the bot process dies while posting the first (after
taking it, committed with its outbox entry), before Discord saw the post or after Discord
made it but before its answer came back. The restarted bot posts the outbox again with the
same nonce, which Discord enforces: the first reminder arrives once, never twice nor not at
all, and the second comes on schedule, once."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

import pytest
from aiohttp import web

from bot.settings import GuildSettings
from bot.store import Store
from tests.e2e.bot_play import until
from tests.e2e.fake_discord import FakeDiscord, FakeMessage, FakeUser
from tests.e2e.farkle_play import open_game, read_table
from tests.e2e.harness import (
    ALICE,
    BOB,
    GUILD,
    TABLE,
    bot_process,
    eventually,
    read_session,
    running_bot,
)

DAY = 86400.0
HOUR = 3600.0


def reminders(fake: FakeDiscord, user: FakeUser) -> list[FakeMessage]:
    link = f"https://discord.com/channels/{GUILD}/{TABLE}/"
    return [m for m in fake.notifications(user.id) if m.channel_id == TABLE and link in m.content]


def turn_end(database: Path) -> float:
    row = read_session(database, TABLE)
    assert row is not None
    return float(json.loads(row["data"])["turn_deadline"])


async def day_long_turns(database: Path) -> None:
    """The server's turn timer: one day (written before the bot starts)."""
    store = await Store.open(database)
    try:
        await store.save_settings(GUILD, GuildSettings(turn_timer=int(DAY)).model_dump_json())
    finally:
        await store.close()


@pytest.mark.slow
@pytest.mark.parametrize("dies", ["before the post", "before its answer"])
async def test_a_kill_between_two_reminders_sends_each_once(
    fake: FakeDiscord, tmp_path: Path, dies: str
) -> None:
    db = tmp_path / "e2e.sqlite3"
    await day_long_turns(db)
    reached = asyncio.Event()
    release = asyncio.Event()

    async def hold_the_answer(stage: str, request: web.Request) -> None:
        """Discord made the reminder; its answer waits until the bot is dead."""
        if (
            stage == "answer"
            and request.method == "POST"
            and request.path.endswith(f"/channels/{TABLE}/messages")
            and not reached.is_set()
        ):
            reached.set()
            await release.wait()

    die_at = "reminder" if dies == "before the post" else None
    async with bot_process(db, fake, seed=5, die_at=die_at) as child:
        for user in (ALICE, BOB):
            await child.slash(user, TABLE, "remind me", dms="on")
        table = await open_game(child, TABLE, [ALICE, BOB], rules="classic")
        waiting = ALICE if read_table(table).current == ALICE.id else BOB
        end = turn_end(db)
        if die_at is None:
            fake.holds.append(hold_the_answer)
        child.skip_ahead(end - DAY / 2 - time.time() + 5)
        assert child.process is not None
        if die_at is None:
            await asyncio.wait_for(reached.wait(), child.timeout)
            assert len(reminders(fake, waiting)) == 1  # Discord has it; the bot does not know
            await child.kill()
            fake.holds.remove(hold_the_answer)
            release.set()
        else:
            await asyncio.wait_for(child.process.wait(), child.timeout)
            child.crashed = True
            assert reminders(fake, waiting) == []  # it died before posting
        assert child.process.returncode == -signal.SIGKILL
        assert fake.direct_messages(waiting.id) == []
    await eventually("the dead bot's connection to drop", lambda: fake.gateway_connections == 0)

    async with running_bot(db, fake=fake, seed=6) as d:
        # At start-up the outbox is posted: the reminder once, and its DM.
        await until(d, "the DM", lambda: len(fake.direct_messages(waiting.id)) == 1)
        await d.settle()
        assert len(reminders(fake, waiting)) == 1
        assert d.bot is not None
        store = d.bot.tables.store
        assert await store.outbox() == []
        d.skip_ahead(end - HOUR - d.bot.tables.clock())
        await until(d, "the second reminder", lambda: len(reminders(fake, waiting)) == 2)
        await until(d, "its DM", lambda: len(fake.direct_messages(waiting.id)) == 2)
        await d.settle()
        row = await store.reminder(TABLE)
        assert row is not None and (row.sent, row.remind_at) == (2, None)
        assert len(reminders(fake, waiting)) == 2 and await store.outbox() == []
        assert d.problems == []
