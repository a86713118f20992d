"""Races at a game's edges, as phones make them: `/farkle start` typed the moment after
`/farkle end`, and Join pressed the moment a lobby appears, on a SQLite file and on
PostgreSQL. Discord's answers are held back where the race is lost (`FakeDiscord.holds`),
so each round plays out the order that went wrong, however fast the machine is: the old
game's answer slow to come back, its table's edit slow to arrive, the new lobby's answer
slow to reach the bot while a second player already presses Join on it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from aiohttp import web

from bot.sessions import Session
from tests.e2e.fake_discord import FakeDiscord, FakeMessage, InteractionRecord
from tests.e2e.farkle_play import read_table
from tests.e2e.harness import ADMIN, ALICE, BOB, CAROL, GUILD, HANG, Driver, FakeUser, running_bot

ROUNDS = 15
#: How each round orders the two commands' work (the third: as it comes).
ORDERS = ["the end's answer comes back late", "the old table's edit arrives late", "as it comes"]
WAIT = HANG  # how long a hold waits for what it waits for (a hang, not a speed limit)


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A SQLite file, or the URL of a PostgreSQL schema of the test's own."""
    if request.param == "sqlite":
        return tmp_path / "e2e.sqlite3"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
async def server() -> AsyncIterator[tuple[FakeDiscord, list[int]]]:
    """A fake Discord with one server of sixteen channels."""
    fake = FakeDiscord()
    channels = [GUILD + 1000 + i for i in range(16)]
    names = {c: f"games-{i}" for i, c in enumerate(channels)}
    fake.add_guild(GUILD, "Game night", names, owner_id=ADMIN.id)
    await fake.start()
    try:
        yield fake, channels
    finally:
        await fake.stop()
    assert fake.violations == [], "\n".join(fake.violations)


async def until(what: str, ok: Callable[[], bool]) -> None:
    """Poll until `ok()` (inside a hold: what the held request waits for)."""
    for _ in range(int(WAIT / 0.005)):
        if ok():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"waited {WAIT} s for {what}")


Hold = Callable[[str, web.Request], Awaitable[None]]


def hold(
    stage: str, matches: Callable[[web.Request], bool], what: str, ok: Callable[[], bool]
) -> Hold:
    """A hold (`FakeDiscord.holds`) of the first request that `matches`, at `stage`, until
    `ok()`: `what` it waits for."""
    held = False

    async def holding(at: str, request: web.Request) -> None:
        nonlocal held
        if at == stage and not held and matches(request):
            held = True
            await until(what, ok)

    return holding


def callback_of(record: InteractionRecord) -> Callable[[web.Request], bool]:
    return lambda r: r.path.endswith("/callback") and f"/interactions/{record.id}/" in r.path


def cached(d: Driver, channel: int) -> Session | None:
    """The channel's game as the bot holds it in memory."""
    assert d.bot is not None
    return d.bot.tables.sessions.cached(channel)


def a_lobby_in(d: Driver, channel: int, revision: int = 1) -> bool:
    """The bot holds an unstarted lobby in the channel, at `revision` or later (once it
    holds it there, the press that made that revision has decided what it shows)."""
    session = cached(d, channel)
    return session is not None and not session.started and session.revision >= revision


def lobby_of(d: Driver, record: InteractionRecord) -> FakeMessage:
    """The lobby a `/farkle start` posted (the command's answer, public, with Join)."""
    lobby = record.message
    assert record.callback_type == 4 and lobby is not None and not lobby.ephemeral, record.text
    assert "Join" in lobby.labels(), lobby.text()
    return lobby


async def finished(d: Driver, channel: int) -> list[dict[str, object]]:
    assert d.bot is not None
    return await d.bot.store.finished_games(channel)


async def stored_table(d: Driver, channel: int) -> tuple[int | None, int, int]:
    """(message id, shown revision, revision) of the channel's stored session, its marks
    written (SQLite may keep a mark back a moment: `behind_sessions` writes them)."""
    assert d.bot is not None
    await d.bot.store.behind_sessions()
    row = await d.bot.store.load_session(channel)
    assert row is not None
    return row.message_id, row.shown_revision, row.revision


async def start_game(d: Driver, channel: int, lobby: FakeMessage, host: FakeUser,
                     guest: FakeUser) -> FakeMessage:  # fmt: skip
    """`guest` joins the lobby (edited in place), `host` starts; the first player whose
    turn it is throws once (the table edited in place: a mark SQLite writes a moment
    later). Returns the table."""
    joined = await d.click(guest, channel, label="Join", message=lobby)
    assert joined.callback_type == 7 and joined.message is lobby, joined.text
    assert {f"<@{host.id}>", f"<@{guest.id}>"} <= set(lobby.text().replace("(host)", "").split())
    started = await d.click(host, channel, label="Start", message=lobby)
    assert started.callback_type == 7, started.text
    view = read_table(live_table(d, channel))
    mover = host if view.current == host.id else guest
    assert view.roll is not None
    rolled = await d.click(mover, channel, custom_id=view.roll["custom_id"], message=view.message)
    assert rolled.callback_type == 7 and rolled.message is view.message, rolled.text
    return live_table(d, channel)


def live_table(d: Driver, channel: int) -> FakeMessage:
    """The one message of the channel with buttons to play (the finished tables above it
    keep only Rematch)."""
    live = [m for m in d.fake.public(channel) if m.live_components()]
    [table] = [m for m in live if m.labels() != ["Rematch"]]
    return table


def holds_for(
    order: str, d: Driver, channel: int, table: FakeMessage, end: InteractionRecord,
    start: InteractionRecord,
) -> list[Hold]:  # fmt: skip
    """What the fake holds back so the round plays out in `order`."""
    if order == ORDERS[0]:  # the lobby is posted before the end's answer gets through
        posted = lambda: start.acked_at is not None  # noqa: E731
        return [hold("arrive", callback_of(end), "the new lobby", posted)]
    if order == ORDERS[1]:  # the lobby is saved before the old table's edit gets through

        def edits_the_old_table(r: web.Request) -> bool:
            return r.method == "PATCH" and r.path.endswith(f"/{table.id}")

        return [hold("arrive", edits_the_old_table, "the lobby", lambda: a_lobby_in(d, channel))]
    return []


@pytest.mark.slow
@pytest.mark.parametrize("place", ["server", "group DM"])
async def test_start_right_after_end_shows_the_end_and_a_clean_lobby(
    database: Path | str, place: str
) -> None:
    """Alice ends the game and Bob types `/farkle start` the same moment, fifteen times,
    each of the three orders in turn, in a server's channel and in a group DM (where the
    bot is no member: every table goes through the players' interactions). Every time: the
    ended game's final table (ended early, its seed, Rematch) is a new message that tells
    the other player, and the old table message keeps no button; the new lobby is Bob's, its stored row names the lobby's
    message and revision (never the old game's), and Alice's Join edits it in place. Then
    the two swap: the host ends, the other starts."""
    fake = FakeDiscord()
    fake.add_guild(GUILD, "Game night", {GUILD + 7: "games"}, owner_id=ADMIN.id)
    channel = GUILD + 7
    if place == "group DM":
        for user in (ALICE, BOB):
            fake.install(user)
        channel = fake.add_group_dm([ALICE, BOB]).id
    await fake.start()
    try:
        async with running_bot(database, fake=fake, seed=5) as d:  # type: ignore[arg-type]
            host, guest = ALICE, BOB
            lobby = lobby_of(d, await d.slash(host, channel, "farkle start"))
            for n in range(ROUNDS):
                order = ORDERS[n % len(ORDERS)]
                table = await start_game(d, channel, lobby, host, guest)
                ended_before = len(await finished(d, channel))
                end = d.prepare_slash(host, channel, "farkle end")
                start = d.prepare_slash(guest, channel, "farkle start")
                fake.holds[:] = holds_for(order, d, channel, table, end, start)
                await d.dispatch_all([end, start])
                fake.holds.clear()
                what = f"round {n + 1} ({order})"

                # The ended game: its final table, a new message telling the other player
                # (the old table keeps no button), only Rematch on it.
                assert len(await finished(d, channel)) == ended_before + 1
                finals = [m for m in fake.public(channel) if "Game ended early by" in m.text()]
                assert len(finals) == n + 1, (what, [m.text() for m in finals])
                final = finals[-1]
                assert final is not table and not table.live_components(), what
                assert d.notified(final) == {guest.id}, (what, final.content)
                assert "🔓 Seed" in final.text(), (what, final.text())
                assert final.labels() == ["Rematch"], (what, final.labels())
                assert end.text.startswith(f"{host.name} ended the Farkle game."), (what, end.text)
                # The new lobby: the answer to Bob's command, and the channel's table.
                lobby = lobby_of(d, start)
                assert f"<@{guest.id}> (host)" in lobby.text(), (what, lobby.text())
                message_id, shown, revision = await stored_table(d, channel)
                assert (message_id, shown, revision) == (lobby.id, 1, 1), what
                session = cached(d, channel)
                assert session is not None and session.message_id == lobby.id, what
                assert session.shown_revision == 1, what
                # No other message of the channel can be pressed but the lobby and Rematch.
                live = [m.labels() for m in fake.public(channel) if m.live_components()]
                assert live.count(["Rematch"]) == n + 1 and len(live) == n + 2, (what, live)
                host, guest = guest, host
            if place == "group DM":  # all through the interactions: never over REST
                assert [r.path for r in fake.requests if f"/channels/{channel}" in r.path] == []
            assert d.problems == [], "\n".join(d.problems)
    finally:
        await fake.stop()
    assert fake.violations == [], "\n".join(fake.violations)


@pytest.mark.slow
async def test_join_right_after_start_on_postgres_in_sixteen_channels(
    server: tuple[FakeDiscord, list[int]], pg_url: str
) -> None:
    """In sixteen channels at once Alice types `/farkle start`; the lobby is there for Bob
    and Carol before the bot has heard back from Discord (in half the channels the answer
    is held until both their Joins are decided), and both press Join at once. Every Join
    is answered like any Join: the lobby is edited in place with all three, never deleted
    or posted again; its stored row names it; and nothing is logged as an error."""
    fake, channels = server
    async with running_bot(pg_url, fake=fake, seed=9) as d:  # type: ignore[arg-type]
        joins: dict[int, list[InteractionRecord]] = {}
        pressed: list[asyncio.Task[list[InteractionRecord]]] = []

        def press_join(channel: int, start: InteractionRecord) -> Hold:
            """Bob and Carol press Join as soon as they see the lobby: while the answer
            that posted it is on its way back (held until both Joins are decided, in every
            other channel)."""

            async def at(stage: str, request: web.Request) -> None:
                if stage != "answer" or not callback_of(start)(request) or channel in joins:
                    return
                lobby = start.message
                assert lobby is not None  # on every phone now
                joins[channel] = [
                    d.prepare_click(p, channel, label="Join", message=lobby) for p in (BOB, CAROL)
                ]
                pressed.append(asyncio.create_task(d.dispatch_all(joins[channel])))
                if channels.index(channel) % 2 == 0:
                    await until("both Joins decided", lambda: a_lobby_in(d, channel, 3))

            return at

        starts = [d.prepare_slash(ALICE, c, "farkle start") for c in channels]
        for channel, start in zip(channels, starts, strict=True):
            fake.holds.append(press_join(channel, start))
        await d.dispatch_all(starts)
        await asyncio.gather(*pressed)
        await d.settle()
        fake.holds.clear()
        for channel, start in zip(channels, starts, strict=True):
            lobby = lobby_of(d, start)
            assert not lobby.deleted, channel
            for join in joins[channel]:
                assert join.callback_type in (6, 7) and join.message is lobby, join.text
                assert not join.followups, [m.text() for m in join.followups]
            assert all(f"<@{p.id}>" in lobby.text() for p in (ALICE, BOB, CAROL)), lobby.text()
            shown = [m for m in fake.public(channel) if m.embeds]
            assert shown == [lobby], [m.text() for m in shown]
            assert await stored_table(d, channel) == (lobby.id, 3, 3)
        assert d.problems == [], "\n".join(d.problems)
