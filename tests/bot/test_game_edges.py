"""A game's edges at the service, on both databases: the final table of a game the timers
ended where the bot is no member, kept until someone sees it (`Endings.late_ending`), and
the tables of two games of one channel, one ended the moment the next was opened, kept
apart (updates, marks and the cached session keyed by the game, not the channel)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import aiosqlite
import pytest

from bot.errors import GameOver, NoSession
from bot.reach import Window
from bot.replies import Reply, TableUpdate
from bot.service import Tables
from bot.store import MIGRATIONS, FinishedGame, Store, migration_sql
from tests.bot.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Clock, find, make_tables
from tests.bot.test_table_flow import farkle_game, message_at, show

OTHER = CHANNEL + 1
PLAYERS = {a.id: a for a in (ALICE, BOB)}


def away(tables: Tables, clock: Clock, channel: int = CHANNEL) -> None:
    """The channel is one the bot is no member of: an interaction came from there."""
    tables.sessions.arrived(channel, Window(f"token-{channel}", clock.now, limited=True))


async def timed_out(tables: Tables, clock: Clock) -> Reply:
    """Nobody presses: every turn runs out until the game ends; the last expiry's answer."""
    while True:
        clock.now += 61
        reply = await tables.expire(CHANNEL)
        assert reply is not None and reply.update is not None
        if await tables.sessions.get(CHANNEL) is None:
            return reply


async def away_game(tables: Tables, clock: Clock) -> tuple[Reply, TableUpdate]:
    """A Farkle game of Alice and Bob where the bot is no member, ended by the timers; its
    table as last shown, and the update nothing could show (every token had expired)."""
    away(tables, clock)
    started = await tables.open_lobby(ALICE, None, CHANNEL, "farkle", {}, server=False)
    lobby = message_at(clock.now)
    await show(tables, started, lobby)
    joined = await tables.click(BOB, find(started, "join"), lobby)
    await show(tables, joined, lobby)
    table = await tables.click(ALICE, find(joined, "start"), lobby)
    await show(tables, table, message_at(clock.now) + 1)
    end = await timed_out(tables, clock)
    assert end.update is not None and end.update.ending is not None
    return table, end.update


@pytest.mark.parametrize("settings", [{"turn_timer": 60}])
async def test_an_end_nothing_could_show_is_shown_once_at_status(
    db_path: Path, clock: Clock, settings: dict[str, int]
) -> None:
    tables = await make_tables(db_path, clock, **settings)  # type: ignore[arg-type]
    try:
        _, unseen = await away_game(tables, clock)
        kept = await tables.store.unseen_ending(CHANNEL)
        assert kept is not None and kept.game_id == unseen.ending
        # Carol, who watched, asks for the table: the final one, calling both players.
        status = await tables.status(CHANNEL, "farkle", CAROL)
        update = status.update
        assert update is not None and update.ending == unseen.ending and update.fresh
        assert set(update.ping) == {ALICE.id, BOB.id}
        assert [i.label for i in update.table.items] == ["Rematch"]
        assert "🔓 Seed" in (update.table.embed.footer.text or "")
        await tables.shown(update, message_at(clock.now) + 7)
        assert await tables.store.unseen_ending(CHANNEL) is None
        with pytest.raises(NoSession):
            await tables.status(CHANNEL, "farkle", CAROL)
    finally:
        await tables.store.close()


@pytest.mark.parametrize("settings", [{"turn_timer": 60}])
async def test_a_press_on_the_old_table_shows_the_end_and_two_at_once_show_it_once(
    db_path: Path, clock: Clock, settings: dict[str, int]
) -> None:
    tables = await make_tables(db_path, clock, **settings)  # type: ignore[arg-type]
    try:
        table, unseen = await away_game(tables, clock)
        old = table.update.message_id  # type: ignore[union-attr]
        click = find(table, "roll")
        # Alice and Bob press the old table at the same moment: both are answered with the
        # end (Bob's press, decided last, shows it; Alice's is overtaken: only the old
        # table it was pressed on goes quiet), calling the other.
        alice = await tables.click(ALICE, click, old)
        bob = await tables.click(BOB, click, old)
        for reply, other in ((alice, BOB), (bob, ALICE)):
            assert reply.on_table and reply.update is not None
            assert reply.update.ending == unseen.ending and reply.update.ping == (other.id,)
        assert tables.overtaken(alice.update)  # type: ignore[arg-type]
        assert not tables.overtaken(bob.update)  # type: ignore[arg-type]
        await tables.shown(bob.update, message_at(clock.now) + 9)  # type: ignore[arg-type]
        assert tables.overtaken(bob.update)  # type: ignore[arg-type]  # never shown twice
        # Seen: the old table's buttons find no game now.
        with pytest.raises(NoSession):
            await tables.click(ALICE, click, old)
    finally:
        await tables.store.close()


async def test_where_the_bot_is_a_member_nothing_is_kept(db_path: Path, clock: Clock) -> None:
    """The bot shows an end in its own channels itself: no finished game is kept unseen,
    and a press on an ended game's button there says the game is over."""
    tables = await make_tables(db_path, clock)
    try:
        started = await farkle_game(tables, clock)
        await tables.end(ALICE, CHANNEL, "farkle")
        assert await tables.store.unseen_ending(CHANNEL) is None
        clock.now += 1  # (a game's buttons name it by when it was opened)
        await tables.open_lobby(BOB, GUILD, CHANNEL, "farkle", {})
        with pytest.raises(GameOver):
            await tables.click(ALICE, find(started, "roll"), 555)
    finally:
        await tables.store.close()


async def test_only_the_channels_latest_game_can_be_unseen(db_path: Path) -> None:
    store = await Store.open(db_path)
    try:

        def game(channel: int, unseen: str | None) -> FinishedGame:
            return FinishedGame(
                guild_id=None, channel_id=channel, kind="farkle", players=[{"id": 11}],
                scores={"11": 0}, winner_id=None, rules={}, outcome="test", started_at=1.5,
                unseen=unseen,
            )  # fmt: skip

        first = await store.finish_session(CHANNEL, game(CHANNEL, '{"a":1}'))
        elsewhere = await store.finish_session(OTHER, game(OTHER, '{"b":2}'))
        found = await store.unseen_ending(CHANNEL)
        assert found is not None and (found.game_id, found.unseen) == (first, '{"a":1}')
        assert (found.channel_id, found.kind, found.started_at) == (CHANNEL, "farkle", 1.5)
        await store.finish_session(CHANNEL, game(CHANNEL, None))  # seen where it ended
        assert await store.unseen_ending(CHANNEL) is None
        last = await store.finish_session(CHANNEL, game(CHANNEL, '{"c":3}'))
        assert (await store.unseen_ending(CHANNEL)).game_id == last  # type: ignore[union-attr]
        await store.ending_shown(last)
        assert await store.unseen_ending(CHANNEL) is None
        assert (await store.unseen_ending(OTHER)).game_id == elsewhere  # type: ignore[union-attr]
    finally:
        await store.close()


async def test_a_file_from_before_unseen_endings_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "v9.sqlite3"
    async with aiosqlite.connect(path) as db:
        older = [s for m in MIGRATIONS[:9] for s in migration_sql(m, "sqlite")]
        await db.executescript(";\n".join([*older, "PRAGMA user_version=9;"]))
        await db.execute(
            "INSERT INTO finished_games (guild_id, channel_id, kind, players, scores, rules,"
            " outcome, started_at, finished_at) VALUES (NULL, ?, 'farkle', '[]', '{}', '{}',"
            " 'old', 1, 2)",
            (CHANNEL,),
        )
        await db.commit()
    store = await Store.open(path)
    try:
        assert await store.schema_version() == len(MIGRATIONS)
        assert await store.unseen_ending(CHANNEL) is None  # an old game was shown as it ended
    finally:
        await store.close()
    con = sqlite3.connect(path)
    try:
        assert con.execute("SELECT unseen FROM finished_games").fetchall() == [(None,)]
        indexes = [r[1] for r in con.execute("PRAGMA index_list(finished_games)")]
        assert "finished_unseen" in indexes
    finally:
        con.close()


async def test_the_end_of_one_game_and_the_next_lobby_stay_apart(
    db_path: Path, clock: Clock
) -> None:
    """Alice's move is shown (an edit: SQLite keeps its mark back a moment), then she ends
    the game and Bob opens a lobby at once; the lobby is shown first, then the final table
    (the order that lost it before). The final table is not overtaken by the lobby, nor
    aimed at it, and the lobby's row and cached session keep the lobby's message and
    revision, not the ended game's."""
    tables = await make_tables(db_path, clock, seed=3)
    try:
        started = await farkle_game(tables, clock)
        table = message_at(clock.now) + 5
        await show(tables, started, table)
        session = await tables.sessions.get(CHANNEL)
        mover = PLAYERS[session.state.current_player.id]  # type: ignore[union-attr]
        rolled = await tables.click(mover, find(started, "roll"), table)
        await tables.shown(rolled.update, table)  # type: ignore[arg-type]
        ended = await tables.end(ALICE, CHANNEL, "farkle")
        clock.now += 0.001  # (the next moment: a game is told apart by when it was opened)
        lobby = await tables.open_lobby(BOB, GUILD, CHANNEL, "farkle", {})
        assert not tables.overtaken(ended.update)  # type: ignore[arg-type]
        assert tables.aimed(ended.update) is ended.update  # type: ignore[arg-type]
        lobby_id = message_at(clock.now) + 9
        await show(tables, lobby, lobby_id)
        assert tables.aimed(ended.update).message_id == table  # type: ignore[arg-type, union-attr]
        await tables.shown(ended.update, table)  # type: ignore[arg-type]
        await tables.store.behind_sessions()  # (SQLite writes a deferred mark there)
        row = await tables.store.load_session(CHANNEL)
        assert row is not None and (row.message_id, row.shown_revision) == (lobby_id, 1)
        cached = tables.sessions.cached(CHANNEL)
        assert cached is not None and (cached.message_id, cached.shown_revision) == (lobby_id, 1)
    finally:
        await tables.store.close()
