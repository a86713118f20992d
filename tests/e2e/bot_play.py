"""Playing against bot players through the real client: a person presses, then waits, as a
person would, for the table to show the bots' moves (they come over REST after the server's
`bot_delay`, no interaction to answer)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from typing import Any

from games.bots import FIRST_BOT_ID, LAST_BOT_ID, bot_name
from tests.e2e.fake_discord import FakeMessage, InteractionRecord
from tests.e2e.harness import ALICE, HANG, TABLE, Driver, FakeUser, mention

DICEY, ROLLY = FIRST_BOT_ID, FIRST_BOT_ID + 1


async def until(
    d: Driver, what: str, ok: Callable[[], bool], timeout: float = HANG, channel: int = TABLE
) -> None:
    """Wait (polling the fake Discord) until `ok()`; fails naming `what` after `timeout`
    (a hang, not a speed limit), showing the end of `channel`. An `ok` that cannot look yet
    (no table while the bot posts it afresh: the old one summed up, the new one on its way,
    which the timer loop's updates leave visible to a poll) counts as not yet."""
    deadline = time.monotonic() + timeout
    while not _holds(ok):
        if time.monotonic() > deadline:
            shown = "\n---\n".join(m.text() for m in d.fake.public(channel)[-3:])
            raise AssertionError(f"waited {timeout} s for {what}; the channel ends:\n{shown}")
        await asyncio.sleep(0.02)


def _holds(ok: Callable[[], bool]) -> bool:
    try:
        return ok()
    except AssertionError as e:
        if "no table message" in str(e):
            return False
        raise


async def run_out_turns(
    d: Driver, what: str, ok: Callable[[], bool], channel: int = TABLE, most: int = 60
) -> None:
    """Let turn timers run out, one deadline at a time on the bot's moved clock (never
    waited for in real time), until `ok()`; fails naming `what`."""
    for _ in range(most):
        row = d.stored(channel)
        if ok() or row is None:
            break
        d.skip_ahead(15)
        seen = row["revision"]
        await until(d, "a turn to run out", lambda r=seen: _moved_on(d, channel, r), channel=channel)
        await d.settle()
    await until(d, what, ok, channel=channel)


def _moved_on(d: Driver, channel: int, revision: int) -> bool:
    """The channel's game was saved after `revision`, or is over (its row gone)."""
    row = d.stored(channel)
    return row is None or row["revision"] > revision


def game_over(text: str) -> bool:
    """The table shows a game's end: its winners named once above it ("🏆 … wins the Farkle
    game!"), or why nobody won ("Game over: …")."""
    return "Game over" in text or re.search(r"🏆 .+ wins? the \w+ game!", text) is not None


def my_move(message: FakeMessage, user: FakeUser) -> bool:
    """The table asks `user` to move: a fresh table mentions whom it waits for."""
    return mention(user) in (message.content or "")


def asks(d: Driver, user: FakeUser, channel: int = TABLE) -> bool:
    """The channel's table asks `user` to move."""
    tables = d.tables(channel)
    return bool(tables) and my_move(tables[-1], user)


def live(d: Driver, channel: int = TABLE) -> str:
    """The text of the channel's table, or '' while there is none."""
    tables = d.tables(channel)
    return tables[-1].text() if tables else ""


def no_bot_is_mentioned(d: Driver, channel: int = TABLE) -> None:
    """No message anyone can see mentions a bot id, and no message notified one; bots
    are shown by their names."""
    for m in d.fake.public(channel):
        text = m.text()
        for bot_id in range(FIRST_BOT_ID, LAST_BOT_ID + 1):
            assert f"<@{bot_id}>" not in text, text
        assert not any(FIRST_BOT_ID <= u <= LAST_BOT_ID for u in d.notified(m)), m.content


def named(bot_id: int) -> str:
    return bot_name(bot_id)


def select_of(message: FakeMessage, action: str) -> dict[str, Any] | None:
    """The string select of `message` whose custom_id names `action` (t:<game>:<action>:…)."""
    return next(
        (
            c
            for c in message.all_components()
            if c.get("type") == 3 and str(c.get("custom_id", "")).split(":")[2] == action
        ),
        None,
    )


async def choose_first(
    d: Driver, user: FakeUser, message: FakeMessage, action: str
) -> InteractionRecord:
    """`user` chooses the first options the select for `action` allows (as few as it takes)."""
    comp = select_of(message, action)
    assert comp is not None, f"no {action} select: {message.text()}"
    values = [o["value"] for o in comp["options"]][: comp.get("min_values", 1)]
    return await d.select(user, TABLE, values, custom_id=comp["custom_id"], message=message)


def own_ephemeral(rec: InteractionRecord, user: FakeUser) -> FakeMessage | None:
    """The reply only `user` sees, among an answer and its follow-ups."""
    for m in [rec.message, *rec.followups]:
        if m is not None and m.ephemeral:
            assert m.visible_to == user.id
            return m
    return None


async def play_farkle_against_dicey(d: Driver, channel: int = TABLE) -> tuple[int, int]:
    """Alice plays the Farkle table against 🤖 Dicey to the end, pressing on her turns and
    waiting, on the bot's, to be called again; returns her presses and the bot turns seen."""
    from tests.e2e.farkle_play import next_press, read_table

    alice = ALICE
    presses = bot_turns = 0
    while not game_over(d.table(channel).text()):
        table = d.table(channel)
        view = read_table(table)
        if view.current == alice.id:
            _, button = next_press(view, bank_at=350)
            rec = await d.click(alice, channel, custom_id=button["custom_id"], message=table)
            assert rec.callback_type == 7, rec.text
            presses += 1
        else:
            # The bot's turn: the table names it, and Alice waits for her turn (a table
            # posted afresh that mentions her) or the end of the game.
            assert f"**{bot_name(DICEY)}'s turn**" in table.text(), table.text()
            # Nothing to press: every button of a Farkle turn is the bot's.
            assert f"{bot_name(DICEY)} is thinking…" in table.text(), table.text()
            assert table.live_components() == [], table.labels()
            bot_turns += 1
            await until(
                d,
                "the bot's turn to end",
                lambda: game_over(live(d, channel)) or asks(d, alice, channel),
            )
        assert presses < 600
    return presses, bot_turns
