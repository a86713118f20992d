"""A finished game's log and record of draws are stored packed (bot/store/packed.py), on both
stores: what /history and /verify read back is what was recorded, a row recorded before
they were packed reads as it did, and a packed value damaged on disk is said to be damaged
(logged, shown as such) without crashing anything."""

from __future__ import annotations

import json
import logging
import zlib

import pytest

from bot.history import DAMAGED_LOG, finished_here, game_view
from bot.records import place_of
from bot.service import Tables
from bot.store.packed import ZLIB_JSON, Unreadable, pack, unpack
from bot.verify import verify_answer
from tests.bot.conftest import CHANNEL, GUILD, Clock, fetch_sql, run_sql
from tests.bot.test_sealed import whole_game


async def recorded(tables: Tables, clock: Clock) -> dict[str, object]:
    await whole_game(tables, "farkle", clock)
    (record,) = await tables.store.finished_games(CHANNEL)
    return record


async def test_a_finished_game_keeps_its_log_and_draws_packed(
    tables: Tables, clock: Clock
) -> None:
    record = await recorded(tables, clock)
    ((text_dice, text_log, dice, log),) = await fetch_sql(
        tables.store,
        "SELECT dice, log, dice_packed, log_packed FROM finished_games WHERE id = ?",
        record["id"],
    )
    assert text_dice is None and text_log is None  # only the packed columns are written
    assert isinstance(dice, bytes) and isinstance(log, bytes)
    assert dice[0] == log[0] == ZLIB_JSON
    assert unpack(dice) == record["dice"] and unpack(log) == record["log"]
    assert isinstance(record["dice"], dict) and record["dice"]["moves"]
    assert isinstance(record["log"], list) and len(record["log"]) > 20
    assert len(dice) < len(json.dumps(record["dice"])) / 2  # packed, not merely moved
    answer = await verify_answer(
        tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, record["id"]
    )
    assert "the draws check out ✅" in (answer.embed.title or ""), answer.embed.title


async def test_a_game_recorded_before_packing_reads_as_it_did(
    tables: Tables, clock: Clock
) -> None:
    record = await recorded(tables, clock)
    # As migration 11 found it: the JSON text in `dice` and `log`, no packed values.
    await run_sql(
        tables.store,
        "UPDATE finished_games SET dice = ?, log = ?, dice_packed = NULL, log_packed = NULL"
        " WHERE id = ?",
        json.dumps(record["dice"]),
        json.dumps(record["log"]),
        record["id"],
    )
    again = await tables.store.finished_game(int(record["id"]))  # type: ignore[call-overload]
    assert again == record
    answer = await verify_answer(
        tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, record["id"]
    )
    assert "the draws check out ✅" in (answer.embed.title or "")


@pytest.mark.parametrize(
    "damage",
    [
        lambda packed: packed[: len(packed) // 2],  # cut short
        lambda packed: bytes((9,)) + packed[1:],  # a format this version does not know
        lambda packed: packed[:20] + bytes(b ^ 0xFF for b in packed[20:40]) + packed[40:],
        lambda packed: pack("{not json") or b"",
        lambda packed: b"",
    ],
    ids=["cut", "format", "flipped", "not-json", "empty"],
)
async def test_a_damaged_packed_value_is_said_damaged(
    tables: Tables, clock: Clock, caplog: pytest.LogCaptureFixture, damage: object
) -> None:
    record = await recorded(tables, clock)
    game_id = int(record["id"])  # type: ignore[call-overload]
    ((dice, log),) = await fetch_sql(
        tables.store,
        "SELECT dice_packed, log_packed FROM finished_games WHERE id = ?",
        game_id,
    )
    await run_sql(
        tables.store,
        "UPDATE finished_games SET dice_packed = ?, log_packed = ? WHERE id = ?",
        damage(dice),  # type: ignore[operator]
        damage(log),  # type: ignore[operator]
        game_id,
    )
    with caplog.at_level(logging.WARNING, logger="bot.store.packed"):
        again = await tables.store.finished_game(game_id)
    assert again is not None
    assert again["dice"] == Unreadable("dice") and again["log"] == Unreadable("log")
    said = [r.getMessage() for r in caplog.records]
    for column in ("dice", "log"):
        assert any(f"The {column} of finished game {game_id} cannot be read" in m for m in said)
    assert all(str(dice[1:9]) not in r.getMessage() for r in caplog.records)  # no contents
    # /verify: a damaged record, no files; /history: the game, its log said to be damaged.
    answer = await verify_answer(
        tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, game_id
    )
    assert "cannot be read" in (answer.embed.description or "") and not answer.files
    game = await finished_here(tables.store, game_id, place_of(GUILD, CHANNEL))
    embed, _ = game_view(game, CHANNEL, 0)
    assert embed.description == DAMAGED_LOG
    assert embed.fields[0].name == "Result"  # the rest of the game is shown as ever


def test_packing_keeps_the_json_text_exactly() -> None:
    text = json.dumps({"moves": [["dice", 0, 12, "throw", [1, 5]]] * 50, "é": "ü"})
    packed = pack(text)
    assert packed is not None and packed[0] == ZLIB_JSON
    assert zlib.decompress(packed[1:]).decode() == text
    assert unpack(packed) == json.loads(text)
    assert pack(None) is None
