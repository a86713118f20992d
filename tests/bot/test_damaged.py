"""A stored game that cannot be loaded (an unknown game, unreadable JSON, a schema that no
longer validates, impossible values) blocks nothing: the channel is told what is wrong and
how to clear it, /<any game> end or a manager's /<game> start clears it, the row is kept
aside in damaged_sessions, and every other channel plays on."""

from __future__ import annotations

import json
import logging

import pytest

from bot.errors import APOLOGY, CorruptSession, UserError
from bot.service import Tables
from tests.bot.conftest import (
    ADMIN,
    ALICE,
    BOB,
    CHANNEL,
    GUILD,
    MALLORY,
    Clock,
    find,
    open_game,
    run_sql,
)

OTHER = CHANNEL + 1  # a healthy channel beside the damaged one


CASES = {
    # case: (column, value or a function of the stored data, what the channel is told)
    "unknown kind": ("kind", "chess", "a game this version of the bot does not know (chess)"),
    "invalid JSON": ("data", '{"lobby": 7', "damaged (unreadable data)"),
    "schema mismatch": (
        "data",
        lambda data: json.dumps({**data, "state": {"players": "nobody"}}),
        "saved by an incompatible version",
    ),
    "absurd revision": ("revision", 12345678901, "damaged (impossible values)"),
    # A sealed game never goes on unsealed: its record of draws lost, nulled or garbled.
    "draws missing": (
        "data",
        lambda data: json.dumps({k: v for k, v in data.items() if k != "draws"}),
        "damaged record of its sealed dice and cards",
    ),
    "draws nulled": (
        "data",
        lambda data: json.dumps({**data, "draws": None}),
        "damaged record of its sealed dice and cards",
    ),
    "draws garbled": (
        "data",
        lambda data: json.dumps({**data, "draws": {**data["draws"], "kept": "x"}}),
        "damaged record of its sealed dice and cards",
    ),
    # The row keeps the count of the moves' records stored beside it: one of them lost.
    "draws short": (
        "data",
        lambda data: json.dumps({**data, "draws": {**data["draws"], "kept": data["draws"]["kept"] + 1}}),
        "damaged record of its sealed dice and cards",
    ),
    # The score history beside the row: an entry of it lost.
    "history short": (
        "data",
        lambda data: json.dumps({**data, "history_kept": data["history_kept"] + 1}),
        "damaged (unreadable data)",
    ),
    # A row saved before the records were kept beside it: its record inline, garbled.
    "draws inline garbled": (
        "data",
        lambda data: json.dumps(
            {**data, "draws": {**{k: v for k, v in data["draws"].items() if k != "kept"}, "moves": "x"}}
        ),
        "damaged record of its sealed dice and cards",
    ),
    # A row of the versions before the "sealed" mark, its draws nulled: no telling an
    # unsealed game from a lost record, so it is taken as damaged.
    "draws nulled, unmarked": (
        "data",
        lambda data: json.dumps(
            {**{k: v for k, v in data.items() if k != "sealed"}, "draws": None}
        ),
        "damaged record of its sealed dice and cards",
    ),
    "deadline infinite": ("deadline", float("inf"), "damaged (impossible values)"),
}


async def damage(tables: Tables, case: str) -> str:
    """Start a Farkle game hosted by Alice in CHANNEL and one in OTHER, then damage
    CHANNEL's row behind the bot's back (as if edited while the bot was down)."""
    await open_game(tables, ALICE, BOB)
    await tables.open_lobby(BOB, GUILD, OTHER, "farkle", {})
    column, value, says = CASES[case]
    if callable(value):
        row = await tables.store.load_session(CHANNEL)
        assert row is not None
        value = value(json.loads(row.data))
    await run_sql(
        tables.store, f"UPDATE sessions SET {column} = ? WHERE channel_id = ?", value, CHANNEL
    )
    tables.sessions._cache.clear()
    return says


async def other_channel_plays(tables: Tables) -> None:
    lobby = await tables.status(OTHER, "farkle")
    await tables.click(ALICE, find(lobby, "join"), None)
    started = await tables.click(BOB, find(lobby, "start"), None)
    assert started.table is not None and (await tables.sessions.get(OTHER)).started


@pytest.mark.parametrize("case", list(CASES))
async def test_damaged_row_is_named_and_cleared_by_end(
    tables: Tables, case: str, caplog: pytest.LogCaptureFixture
) -> None:
    says = await damage(tables, case)
    before = await tables.store.load_session(CHANNEL)
    assert before is not None
    for attempt in (
        tables.status(CHANNEL, "farkle"),
        tables.leave(ALICE, CHANNEL, "kuriki"),
        tables.open_lobby(BOB, GUILD, CHANNEL, "crap", {}),
        tables.end(MALLORY, CHANNEL, "crap"),  # neither the host nor a manager
    ):
        with pytest.raises(CorruptSession) as refused:
            await attempt
        text = str(refused.value)
        assert says in text and "/farkle end" in text and "start a new game" in text
        assert APOLOGY not in text and "use /chess" not in text
    assert await tables.store.load_session(CHANNEL) == before  # nothing changed
    # No row contents in the log (hidden cards), and no ERROR: the bot is not at fault.
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert all(before.data not in r.getMessage() for r in caplog.records)

    await other_channel_plays(tables)  # the channel next door is not affected

    # The host can clear it when the row still says who that was; a manager always can,
    # with any game's /end.
    clearer = ADMIN if case == "invalid JSON" else ALICE  # unreadable: nobody is known
    if clearer is ALICE:
        assert "its host or a server manager" in text
    else:
        assert "a server manager can use" in text
        with pytest.raises(UserError):
            await tables.end(ALICE, CHANNEL, "kuriki")
    done = await tables.end(clearer, CHANNEL, "kuriki")
    assert done.content is not None and "cleared" in done.content
    assert "Nothing in the game was changed" not in done.content
    assert await tables.store.load_session(CHANNEL) is None
    (kept,) = await tables.store.damaged_sessions()
    assert kept["channel_id"] == CHANNEL and kept["data"] == before.data
    assert kept["kind"] == before.kind and kept["cleared_by"] == clearer.id
    assert kept["reason"] in ("unknown", "unreadable", "incompatible", "absurd", "draws")
    assert (kept["reason"] == "draws") == case.startswith("draws")
    # The channel is free again.
    reply = await tables.open_lobby(BOB, GUILD, CHANNEL, "farkle", {})
    assert reply.table is not None


@pytest.mark.parametrize("case", list(CASES))
async def test_a_managers_start_clears_a_damaged_row(tables: Tables, case: str) -> None:
    await damage(tables, case)
    before = await tables.store.load_session(CHANNEL)
    reply = await tables.open_lobby(ADMIN, GUILD, CHANNEL, "kuriki", {})
    assert reply.table is not None
    session = await tables.sessions.get(CHANNEL)
    assert session is not None and session.kind == "kuriki" and not session.started
    (kept,) = await tables.store.damaged_sessions()
    assert before is not None and kept["data"] == before.data
    await other_channel_plays(tables)


@pytest.mark.parametrize("case", list(CASES))
async def test_timers_and_catch_up_skip_a_damaged_row(
    tables: Tables, clock: Clock, case: str
) -> None:
    await damage(tables, case)
    if case != "deadline infinite":  # overdue, and its table behind
        await run_sql(
            tables.store,
            "UPDATE sessions SET deadline = ?, shown_revision = 0 WHERE channel_id = ?",
            clock.now - 5,
            CHANNEL,
        )
    tables.sessions._cache.clear()
    assert await tables.expire(CHANNEL) is None
    assert CHANNEL not in await tables.store.due_sessions(clock.now + 10**6)
    row = await tables.store.load_session(CHANNEL)
    assert row is not None and row.deadline is None  # kept until cleared, its timer stopped
    if case != "deadline infinite":  # (a stopped timer is all that row had wrong)
        assert await tables.catch_up(CHANNEL) is None
