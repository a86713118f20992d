"""Every game keeps its whole public log (on SQLite and PostgreSQL): each move's lines are
stored with the move, in the same commit; the state keeps only the table's window; the
finished game keeps them all, with its story. A game saved before whole logs were kept says
its earlier lines were not kept; removed sessions take their lines with them. And the
history of a player in a place, the most recent first."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bot.errors import MovedMeanwhile, UserError
from bot.history import EMPTY_LOG, LOG_PAGE_CHARS, game_view, log_pages
from bot.pictures.story import draw_story
from bot.records import place_of
from bot.service import Actor, Tables
from bot.store import FinishedGame, SessionRow, Store
from games.gamelog import EARLIER_NOT_KEPT
from games.text import line_from_json, line_json
from tests.bot.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    fetch_sql,
    find,
    make_tables,
    open_game,
    outcome,
    run_sql,
)

OTHER_CHANNEL = CHANNEL + 1
DM = 3000  # a channel outside any server: its own place


async def on_turn(tables: Tables) -> Actor:
    """Alice or Bob, whoever's turn it is in the channel's Farkle game."""
    session = await tables.sessions.get(CHANNEL)
    return ALICE if session.state.current_player.id == ALICE.id else BOB


async def play_out(tables: Tables, clock: Clock, kind: str, bots: int) -> list[str]:
    """Alice and `bots` bots play a whole game, Alice's turns running out (played as a bot
    would). After every commit the stored log ends with the table's window, only grows, and
    the saved state holds no line twice; returns the last log stored before the end."""
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, kind, {"bots": bots})
    await tables.table_posted(CHANNEL, 555)
    await tables.click(ALICE, find(reply, "start"), 555)
    stored: list[str] = []
    for _ in range(3000):
        session = await tables.sessions.get(CHANNEL)
        if session is None:
            return stored
        now = await tables.store.game_log(CHANNEL)
        assert now[: len(stored)] == stored  # appended to, never rewritten
        window = [line_json(line) for line in session.state.log]  # as the store keeps them
        assert window and now[-len(window) :] == window
        (row,) = await fetch_sql(tables.store, "SELECT data FROM sessions")
        assert json.loads(str(row[0]))["state"]["new_log"] == []  # kept beside it, not in it
        stored = now
        clock.now = session.deadline
        await tables.expire(CHANNEL)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(("kind", "bots"), [("farkle", 1), ("kuriki", 2), ("crap", 2)])
async def test_a_whole_game_keeps_its_whole_log(
    tables: Tables, clock: Clock, kind: str, bots: int
) -> None:
    before = await play_out(tables, clock, kind, bots)
    (game,) = await tables.store.finished_games(CHANNEL)
    log = game["log"]
    assert log[: len(before)] == before and len(log) > len(before)  # and the last move's
    assert len(log) > tables.adapters[kind].engine.LOG_LENGTH  # more than the table's window
    assert await tables.store.game_log(CHANNEL) == []  # moved into the finished game
    assert await fetch_sql(tables.store, "SELECT COUNT(*) FROM game_log") == [(0,)]
    if game["story"] is None:  # ended (abandoned) before a round was scored: no empty chart
        assert kind == "crap" and not any(game["scores"].values()), game["scores"]
        return
    assert game["story"]["chart"] == ("pads" if kind == "kuriki" else "line")
    assert draw_story(game["story"]).startswith(b"\x89PNG")  # drawn again from the record


async def test_the_log_goes_on_after_a_restart(db_path: Path, clock: Clock) -> None:
    tables = await make_tables(db_path, clock)
    reply = await open_game(tables, ALICE, BOB)
    reply = await tables.click(await on_turn(tables), find(reply, "roll"), 555)
    first = await tables.store.game_log(CHANNEL)
    assert line_from_json(first[-1]) == (await tables.sessions.get(CHANNEL)).state.log[-1]
    await tables.store.close()
    tables = await make_tables(db_path, clock)  # a new process: nothing in memory
    try:
        session = await tables.sessions.get(CHANNEL)
        clock.now = session.turn_deadline
        await tables.expire(CHANNEL)  # the turn runs out
        again = await tables.store.game_log(CHANNEL)
        assert again[: len(first)] == first and len(again) > len(first)
        assert any("ran out of time" in str(line_from_json(line)) for line in again[len(first) :])
        await tables.end(ALICE, CHANNEL, "farkle")
        (game,) = await tables.store.finished_games(CHANNEL)
        assert game["log"] == again and outcome(game) == "Ended early by Alice."
    finally:
        await tables.store.close()


async def test_a_game_saved_before_whole_logs_says_its_earlier_lines_were_not_kept(
    tables: Tables, clock: Clock
) -> None:
    reply = await open_game(tables, ALICE, BOB)
    await tables.click(await on_turn(tables), find(reply, "roll"), 555)
    session = await tables.sessions.get(CHANNEL)
    window = session.state.log
    # The row as an older version wrote it: no new_log, no lines beside it (and its record
    # of draws inline, not beside it either).
    data = json.loads(session_data := (await fetch_sql(tables.store, "SELECT data FROM sessions"))[0][0])
    del data["state"]["new_log"]
    data["draws"] = session.draws.to_json()
    assert session_data != json.dumps(data)
    await run_sql(tables.store, "UPDATE sessions SET data = ?", json.dumps(data))
    await run_sql(tables.store, "DELETE FROM game_log")
    tables.sessions._forget(CHANNEL)
    clock.now = session.turn_deadline
    await tables.expire(CHANNEL)
    log = await tables.store.game_log(CHANNEL)
    # What was kept: the marker, then the table's window as the first save after the
    # upgrade left it (the older lines it still showed, and that move's own).
    after = (await tables.sessions.get(CHANNEL)).state.log
    log = [line_from_json(line) for line in log]
    assert log[0] == EARLIER_NOT_KEPT and log[1:] == after
    assert window[-1] in after  # the window of the old version's last move is in it
    assert any("ran out of time" in str(line) for line in log)
    await tables.end(ALICE, CHANNEL, "farkle")
    (game,) = await tables.store.finished_games(CHANNEL)
    assert [line_from_json(line) for line in game["log"]] == log


async def test_a_move_refused_by_the_store_keeps_no_line(db_path: Path, clock: Clock) -> None:
    """Two processes share the database: the one that moves second is refused, and only
    the first one's lines are kept."""
    first = await make_tables(db_path, clock)
    second = await make_tables(db_path, clock)
    try:
        reply = await open_game(first, ALICE, BOB)
        await second.sessions.get(CHANNEL)  # both have the game in memory
        roller = await on_turn(first)
        await first.click(roller, find(reply, "roll"), 555)
        kept = await first.store.game_log(CHANNEL)
        with pytest.raises(MovedMeanwhile):
            await second.click(roller, find(reply, "roll"), 555)
        assert await second.store.game_log(CHANNEL) == kept
    finally:
        await first.store.close()
        await second.store.close()


async def test_removed_sessions_take_their_lines_with_them(tables: Tables, clock: Clock) -> None:
    for remove in ("set_aside", "delete_session"):
        reply = await open_game(tables, ALICE, BOB)
        await tables.click(await on_turn(tables), find(reply, "roll"), 555)
        assert await tables.store.game_log(CHANNEL) != []
        if remove == "set_aside":
            await tables.store.set_aside(CHANNEL, "test", None)
        else:
            await tables.store.delete_session(CHANNEL)
        tables.sessions._forget(CHANNEL)
        assert await tables.store.game_log(CHANNEL) == []


async def test_a_new_game_starts_without_lines_left_in_its_channel(db_path: Path) -> None:
    store = await Store.open(db_path)
    try:
        row = SessionRow(CHANNEL, GUILD, "farkle", "{}", 1, None, None, time.time())
        assert await store.save_session(row)
        row.revision, row.log = 2, ["an old game's line"]
        assert await store.save_session(row)
        await run_sql(store, "DELETE FROM sessions")  # gone behind the store's back
        row.revision, row.log = 1, []
        assert await store.save_session(row)
        assert await store.game_log(CHANNEL) == []
        row.revision, row.log = 2, ["Seating rolls: Ann 6, Bob 2"]
        assert await store.save_session(row)
        row.revision, row.log = 2, ["a second revision 2"]  # refused: not the next one
        assert not await store.save_session(row)
        assert await store.game_log(CHANNEL) == ["Seating rolls: Ann 6, Bob 2"]
    finally:
        await store.close()


# --------------------------------------------------------------------------- a player's games


def finished(
    kind: str, winner: int | None, at: float, *, guild: int | None = GUILD, channel: int = CHANNEL
) -> FinishedGame:
    players = [ALICE.id, BOB.id] if kind != "crap" else [ALICE.id, BOB.id, CAROL.id]
    return FinishedGame(
        guild_id=guild,
        channel_id=channel,
        kind=kind,
        players=[{"id": p, "name": f"P{p}"} for p in players],
        scores={str(p): 10 * n for n, p in enumerate(players)},
        winner_id=winner,
        rules={},
        outcome=f"{kind} at {at}",
        started_at=at - 600,
        finished_at=at,
        log=[f"{kind} line"],
    )


async def test_a_players_games_in_a_place_most_recent_first(db_path: Path) -> None:
    store = await Store.open(db_path)
    try:
        now = 1_700_000_000.0
        ids = [
            await store.finish_session(CHANNEL, finished("farkle", ALICE.id, now - 300)),
            await store.finish_session(OTHER_CHANNEL, finished("kuriki", BOB.id, now - 200, channel=OTHER_CHANNEL)),
            await store.finish_session(CHANNEL, finished("crap", None, now - 100)),
            await store.finish_session(DM, finished("farkle", BOB.id, now, guild=None, channel=DM)),
            await store.finish_session(CHANNEL, finished("farkle", ALICE.id, now, guild=GUILD + 1)),
        ]  # fmt: skip
        total, games = await store.player_games(GUILD, ALICE.id, None, 0, 10)
        assert total == 3 and [g.game_id for g in games] == [ids[2], ids[1], ids[0]]
        crap, kuriki, farkle = games
        assert (crap.kind, crap.won, crap.abandoned, crap.score) == ("crap", False, True, 0)
        assert (kuriki.won, kuriki.abandoned, farkle.won) == (False, False, True)
        assert farkle.outcome == f"farkle at {now - 300}" and farkle.finished_at == now - 300
        assert [p["id"] for p in crap.players] == [ALICE.id, BOB.id, CAROL.id]
        # One game only; a page further on; Carol played one of them.
        assert await store.player_games(GUILD, ALICE.id, "farkle", 0, 10) == (1, [farkle])
        assert await store.player_games(GUILD, ALICE.id, None, 1, 1) == (3, [kuriki])
        assert await store.player_games(GUILD, ALICE.id, None, 3, 10) == (3, [])
        assert [g.game_id for g in (await store.player_games(GUILD, CAROL.id, None, 0, 9))[1]] == [
            ids[2]
        ]
        # Outside servers the place is the channel (records.place_of).
        total, (dm,) = await store.player_games(place_of(None, DM), BOB.id, None, 0, 10)
        assert total == 1 and dm.game_id == ids[3] and dm.won
        assert (await store.player_games(GUILD + 1, BOB.id, None, 0, 10))[0] == 1
        # A finished game keeps the lines it was given after those stored with its moves.
        record = await store.finished_game(ids[0])
        assert record is not None and record["log"] == ["farkle line"]
    finally:
        await store.close()


# --------------------------------------------------------------------------- the pages


def test_log_pages_keep_whole_lines_within_discords_limits() -> None:
    lines = [f"line {n} " + "x" * (n % 300) for n in range(400)] + ["y" * 5000]
    pages = log_pages(lines)
    assert all(len(p) <= LOG_PAGE_CHARS for p in pages) and len(pages) > 10
    assert "\n".join(pages).split("\n") == [*lines[:-1], "y" * LOG_PAGE_CHARS]  # cut, not lost
    assert log_pages([]) == [""]


def test_an_opened_game_fits_an_embed_however_big() -> None:
    players = [{"id": 10**17 + n, "name": "N" * 32} for n in range(25)]
    game = {
        "id": 7,
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "kind": "farkle",
        "players": players,
        "scores": {str(p["id"]): 10**6 for p in players},
        "winner_id": players[0]["id"],
        "rules": {},
        "outcome": "o" * 900,
        "started_at": 0.0,
        "finished_at": 7200.0,
        "log": ["z" * 200] * 100,
        "story": None,
    }
    for page in range(len(log_pages(game["log"]))):
        embed, items = game_view(game, CHANNEL, page)
        assert len(embed) <= 6000 and all(len(f.value) <= 1024 for f in embed.fields)
        assert len(embed.description or "") <= 4096
        assert [i.label for i in items][-1] == "Share"
    assert "no picture kept" in embed.footer.text and "2 hours" in embed.fields[0].value
    empty, _ = game_view({**game, "log": []}, CHANNEL, 0)
    assert empty.description == EMPTY_LOG
    with pytest.raises(UserError):
        game_view(game, CHANNEL, 99)
