"""What a move stores as JSON (the session row's tail, what goes beside it, the log lines) is
written by orjson (bot/json_text.py): read back, it must be what the standard library's
`json.dumps` gave before, to the last bit of a float and the last character of a name, on
both stores and through a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.json_text import compact
from bot.service import Actor
from bot.store import SessionRow, Store
from tests.bot.conftest import CHANNEL, GUILD, Clock, fetch_sql, make_tables, open_game
from tests.bot.test_farkle_table import play_move

NAMES = ["Zoë 🎲", "Łukasz \"Ł\" \\ /", "名前\u2028\t\x01", "ﷺ\u202eRTL"]

VALUES: list[object] = [
    {"turn_deadline": 1_700_000_123.456789, "bot_deadline": None, "ping": [11, 12]},
    [0.1, 1e16, 1e-7, 5e-324, 1.7976931348623157e308, -0.0, 2.5, 3.0],
    {"names": NAMES, "by": 2**63 - 1, "low": -(2**63), "flag": True},
    {"draws": [{"by": 11, "act": "roll", "draws": [["dice", 0, 11, "throw", [1, 5, 6]]]}]},
    [{"k": "{name} banked {n}.", "a": {"name": n, "n": 350}} for n in NAMES],
    {"empty": {}, "nothing": [], "text": ""},
]


@pytest.mark.parametrize("value", VALUES)
def test_what_is_written_reads_back_as_json_dumps_wrote_it(value: object) -> None:
    text = compact(value)
    assert json.loads(text) == json.loads(json.dumps(value))
    assert repr(json.loads(text)) == repr(json.loads(json.dumps(value)))  # (-0.0, 3.0 as floats)


def test_what_orjson_refuses_the_standard_library_writes() -> None:
    for value in [{"big": 2**64}, {"huge": -(2**80)}, {1: "a", 2.5: "b"}]:
        assert compact(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


async def test_log_lines_and_beside_read_back_equal(db_path: Path | str) -> None:
    store = await Store.open(db_path)
    try:
        log: list[dict[str, object] | str] = [
            {"k": "{name} banked {n}.", "a": {"name": name, "n": 350}} for name in NAMES
        ]
        log.append("a line saved as text: Grüße")
        beside = compact({"draws": [{"by": 11, "act": "bank", "draws": []}], "history": [[1, 2.5]]})
        row = SessionRow(
            CHANNEL, GUILD, "farkle", '{"lobby":{}}', 1, None, 1_700_000_123.456789,
            1_700_000_000.25, log=log, beside=[beside],
        )  # fmt: skip
        assert await store.save_session(row)
        assert await store.game_log(CHANNEL) == json.loads(json.dumps(log))
        loaded = await store.load_session(CHANNEL)
        assert loaded is not None and loaded.beside == [beside]
        assert loaded.deadline == row.deadline
    finally:
        await store.close()


async def test_a_game_of_non_ascii_names_with_timers_loads_as_it_was(
    db_path: Path | str,
) -> None:
    clock = Clock()
    clock.now += 0.123456789
    players = [Actor(id=11 + i, name=name) for i, name in enumerate(NAMES[:3])]
    tables = await make_tables(db_path, clock, turn_timer=120)
    try:
        reply = await open_game(tables, *players, rules="classic", target=100_000)
        for _ in range(12):
            clock.now += 1.000001
            reply = await play_move(tables, reply)
        session = await tables.sessions.get(CHANNEL)
        assert session is not None and session.turn_deadline is not None
        assert session.turn_deadline != int(session.turn_deadline)  # (a float to the bit)
        ((data,),) = await fetch_sql(tables.store, "SELECT data FROM sessions WHERE channel_id = ?", CHANNEL)
        assert json.loads(str(data))["turn_deadline"] == session.turn_deadline
        log = await tables.store.game_log(CHANNEL)

        await tables.store.close()
        tables = await make_tables(db_path, clock, turn_timer=120)
        again = await tables.sessions.get(CHANNEL)
        assert again is not None and again.draws is not None and session.draws is not None
        assert again.turn_deadline == session.turn_deadline
        assert again.bot_deadline == session.bot_deadline and again.ping == session.ping
        assert again.lobby == session.lobby and again.state == session.state
        assert again.draws.moves == session.draws.moves
        assert await tables.store.game_log(CHANNEL) == log
        assert any(name in json.dumps(log, ensure_ascii=False) for name in NAMES[:3])
    finally:
        await tables.store.close()
