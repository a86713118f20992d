"""Whole games where the bot is no member of the channel: a group DM, a DM between two users
and a server that never added the bot, reached through the players' user installs. The bot
may only answer interactions there (no REST post, no history, no chatter events), so each
game is played, start to end, through interaction responses and follow-ups alone."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from bot.settings import GuildSettings
from games.bots import bot_name
from tests.e2e import crap_play, farkle_play, kuriki_play
from tests.e2e.bot_play import DICEY, asks, game_over, live, play_farkle_against_dicey, until
from tests.e2e.fake_discord import TOKEN_LIFETIME, CannotInvoke, FakeDiscord, InteractionRecord
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    TABLE,
    Driver,
    FakeUser,
    bot_process,
    is_summary,
    read_finished,
    read_session,
    read_shown,
    running_bot,
)

ELSEWHERE = 990_000_000_000_000_001
OUTSIDE = 990_000_000_000_000_002
PLACES = ["group DM", "DM", "server without the bot"]


def place_in(fake: FakeDiscord, where: str) -> tuple[int, list[FakeUser]]:
    """The channel of `where` and the people in it, all with the app installed."""
    for user in (ALICE, BOB, CAROL):
        fake.install(user)
    if where == "group DM":
        return fake.add_group_dm([ALICE, BOB, CAROL]).id, [ALICE, BOB, CAROL]
    if where == "DM":
        return fake.add_dm(ALICE, BOB).id, [ALICE, BOB]
    channel = fake.add_user_install_channel(OUTSIDE, "games", guild_id=ELSEWHERE, owner_id=CAROL.id)
    return channel.id, [ALICE, BOB, CAROL]


def private(records: list[InteractionRecord]) -> list[str]:
    """What these presses were told privately (in their answer or a follow-up)."""
    return [m.text() for r in records for m in r.messages() if m.ephemeral]


def no_channel_requests(d: Driver, channel: int) -> None:
    """Nothing went to the channel over REST (it would be refused: 403)."""
    used = [f"{r.method} {r.path}" for r in d.fake.requests if f"/channels/{channel}" in r.path]
    assert used == []
    assert d.problems == []


@pytest.mark.slow
@pytest.mark.parametrize("where", PLACES)
async def test_farkle_plays_to_the_end_through_a_crash(
    fake: FakeDiscord, tmp_path: Path, where: str
) -> None:
    db = tmp_path / "e2e.sqlite3"
    channel, people = place_in(fake, where)
    players = people[:2]
    async with running_bot(db, fake=fake, seed=3) as d:
        await farkle_play.open_game(d, channel, players, target=1000)
        for _ in range(6):
            await farkle_play.play_move(d, channel, players)
        await d.crash()
    async with running_bot(db, fake=fake, seed=4) as d:
        await d.settle()
        await farkle_play.play_to_end(d, channel, players)
        assert farkle_play.read_table(d.table(channel)).finished
        [row] = read_finished(db, channel)
        assert row["winner_id"] in {p.id for p in players}
        no_channel_requests(d, channel)


@pytest.mark.slow
@pytest.mark.parametrize("where", PLACES)
async def test_kuriki_plays_to_the_end_through_a_crash(
    fake: FakeDiscord, tmp_path: Path, where: str
) -> None:
    db = tmp_path / "e2e.sqlite3"
    channel, people = place_in(fake, where)
    habits = kuriki_play.Habits(pull_at=8)
    async with running_bot(db, fake=fake, seed=327) as d:
        game = await kuriki_play.KurikiGame.open(d, people, lives=2, channel=channel)
        for _ in range(5):
            await kuriki_play.play_move(game, habits)
        await d.crash()
    async with running_bot(db, fake=fake, seed=328) as d:
        game.d = d
        await d.settle()
        cup = await kuriki_play.play_to_end(game, habits)
        assert cup.phase == "over"
        kuriki_play.finish_secrets(game)
        assert len(read_finished(db, channel)) == 1
        no_channel_requests(d, channel)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["group DM", "server without the bot"])
async def test_crap_plays_to_the_end_through_a_crash(
    fake: FakeDiscord, tmp_path: Path, where: str
) -> None:
    db = tmp_path / "e2e.sqlite3"
    channel, people = place_in(fake, where)
    async with running_bot(db, fake=fake, seed=11) as d:
        game = await crap_play.CrapGame.open(d, people, threshold=100, channel=channel)
        for _ in range(3):
            await crap_play.play_move(game)
        await d.crash()
    async with running_bot(db, fake=fake, seed=12) as d:
        game.d = game.referee.d = d
        await d.settle()
        final = await crap_play.play_to_end(game)
        assert final.phase == "over"
        assert len(read_finished(db, channel)) == 1
        no_channel_requests(d, channel)


@pytest.mark.slow
async def test_a_bots_pending_move_survives_a_crash_and_shows_without_a_press(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Farkle against 🤖 Dicey in a group DM: the bot dies while Dicey's move is pending.
    The restarted bot makes the move when it is due and shows it through the last press's
    interaction, which the session row kept (the bot cannot post there by itself), so Alice
    is called back without pressing anything; then the game plays to its end."""
    db = tmp_path / "e2e.sqlite3"
    channel, _ = place_in(fake, "group DM")
    async with running_bot(db, fake=fake, seed=41, defaults=GuildSettings(bot_delay=3.0)) as d:
        opened = await d.slash(ALICE, channel, "farkle start", target=1000, bots=1)
        await d.click(ALICE, channel, label="Start", message=opened.message)
        while (row := read_session(db, channel)) and not json.loads(row["data"])["bot_deadline"]:
            table = d.table(channel)
            _, button = farkle_play.next_press(farkle_play.read_table(table), bank_at=50)
            await d.click(ALICE, channel, custom_id=button["custom_id"], message=table)
        assert row is not None and json.loads(row["data"])["via"]  # the press's token, kept
        assert f"{bot_name(DICEY)} is thinking…" in d.table(channel).text()
        await d.crash()
    assert (after := read_session(db, channel)) is not None
    assert after["revision"] == row["revision"]  # Dicey had not moved

    async with running_bot(db, fake=fake, seed=42, defaults=GuildSettings(bot_delay=0.05)) as d:
        d.skip_ahead(3)  # the pending move comes due on the bot's clock, not waited for
        await until(
            d,
            "the bot's pending move after the restart, on the table",
            lambda: asks(d, ALICE, channel) or game_over(live(d, channel)),
        )
        assert f"{bot_name(DICEY)} rolled" in "\n".join(m.text() for m in fake.public(channel))
        await play_farkle_against_dicey(d, channel)
        [finished] = read_finished(db, channel)
        assert json.loads(finished["bots"]) == [DICEY]
        no_channel_requests(d, channel)


@pytest.mark.slow
@pytest.mark.parametrize("where", PLACES)
async def test_a_timer_after_every_token_expired_waits_for_the_next_press(
    tmp_path: Path, where: str
) -> None:
    """Nobody presses for a quarter of an hour, so Discord refuses every token the bot
    holds, and then Alice's turn runs out. The bot plays it (the stored game moves on) but
    can show nothing: the table stays as it was, without an error. `/farkle status` brings
    the live table back; a press on the old table retires it and points below; the game
    then plays to its end."""
    fake = FakeDiscord(token_lifetime=TOKEN_LIFETIME)
    await fake.start()
    try:
        channel, _ = place_in(fake, where)
        settings = GuildSettings(turn_timer=15)
        async with running_bot(tmp_path / "e2e.sqlite3", fake=fake, seed=3, defaults=settings) as d:
            table = await farkle_play.open_game(d, channel, [ALICE, BOB], target=1000)
            first = farkle_play.read_table(table).current
            assert first is not None
            revision = read_session(d.database, channel)["revision"]  # type: ignore[arg-type, index]
            fake.advance_clock(TOKEN_LIFETIME + 60)  # every token the bot holds has expired
            d.skip_ahead(15)  # and Alice's turn runs out (the bot's clock, not waited for)
            await until(
                d,
                "the turn timer to play the absent turn",
                lambda: read_session(d.database, channel)["revision"] > revision,  # type: ignore[arg-type, index]
            )
            await d.settle()
            assert d.table(channel) is table and "ran out of time" not in table.text()
            shown, stored = read_shown(d.database, channel), read_session(d.database, channel)
            assert shown is not None and stored is not None and shown[1] < stored["revision"]
            # /farkle status: the live table, as the answer to the command. The old table
            # above it keeps its buttons: nothing can reach it to retire it.
            status = await d.slash(BOB, channel, "farkle status")
            assert status.message is d.tables(channel)[-1]
            assert "ran out of time" in status.message.text()
            assert table.buttons() != []
            # A press on the old table (nothing could retire it) retires it now.
            button = table.buttons()[0]
            rec = await d.click(ALICE, channel, custom_id=button["custom_id"], message=table)
            assert is_summary(table) and table.buttons() == []
            assert "That table is old: the live one is below." in rec.text
            assert d.table(channel) is status.message
            await farkle_play.play_to_end(d, channel, [ALICE, BOB])
            assert len(read_finished(d.database, channel)) == 1  # type: ignore[arg-type]
            no_channel_requests(d, channel)
    finally:
        await fake.stop()


async def test_where_use_external_apps_is_off_the_player_is_told_why(d: Driver) -> None:
    """A server that turned "Use External Apps" off shows a user install's messages only
    to whoever used it: no game is opened there, and the player is told why."""
    d.fake.install(ALICE)
    quiet = d.fake.add_user_install_channel(
        OUTSIDE, "quiet", guild_id=ELSEWHERE, owner_id=CAROL.id, use_external_apps=False
    ).id
    rec = await d.slash(ALICE, quiet, "farkle start")
    assert rec.ephemeral and "turned off **Use External Apps**" in rec.text
    assert read_session(d.database, quiet) is None  # type: ignore[arg-type]
    assert d.fake.public(quiet) == []


@pytest.mark.e2e(defaults=GuildSettings(turn_timer=1800))
async def test_a_timer_longer_than_a_token_lives_is_explained_on_the_table(d: Driver) -> None:
    """A turn timer of half an hour outlives every interaction's token: the table says that
    it moves on only with a press (a server that added the bot needs no such words)."""
    channel, people = place_in(d.fake, "group DM")
    table = await farkle_play.open_game(d, channel, people[:2], target=1000)
    assert "The bot can update this table only when someone presses a button here" in table.text()
    assert "/farkle status" in table.text() or "</farkle status:" in table.text()
    at_home = await farkle_play.open_game(d, TABLE, [ALICE, BOB], target=1000)
    assert "The bot can update this table" not in at_home.text()


@pytest.mark.e2e(seed=41)
async def test_three_phones_pressing_at_once_in_a_group_dm(d: Driver) -> None:
    """Alice, Bob and Carol press Roll at the same moment, the mover twice: one throw, the
    others told whose turn it is, the mover refused nothing; then everyone presses the
    mover's dice at once: only the mover's presses count."""
    channel, people = place_in(d.fake, "group DM")
    table = await farkle_play.open_game(d, channel, people, target=1000)
    view = farkle_play.read_table(table)
    mover = next(p for p in people if p.id == view.current)
    assert view.roll is not None
    roll = view.roll["custom_id"]
    presses = [
        d.prepare_click(u, channel, custom_id=roll, message=table) for u in [*people, mover]
    ]
    await d.dispatch_all(presses)
    assert private(presses) == [f"It's not your turn: it's {mover.name}'s."] * 2
    thrown = farkle_play.read_table(d.table(channel))
    assert len(thrown.dice) == 6 and thrown.current == mover.id
    die = thrown.dice[0].button["custom_id"]
    taps = [
        d.prepare_click(u, channel, custom_id=die, message=thrown.message) for u in people
    ]
    await d.dispatch_all(taps)
    assert private(taps) == [f"It's not your turn: it's {mover.name}'s."] * 2
    assert farkle_play.read_table(d.table(channel)).dice[0].selected
    no_channel_requests(d, channel)


@pytest.mark.slow
async def test_a_sigkill_in_a_group_dm_loses_nothing(fake: FakeDiscord, tmp_path: Path) -> None:
    """The bot runs in its own process and is SIGKILLed in the middle of a Farkle game in a
    group DM; a new process on the same database takes the next press, whose answer shows
    the game where it was, and the game plays to its end."""
    db = tmp_path / "e2e.sqlite3"
    channel, people = place_in(fake, "group DM")
    players = people[:2]
    async with bot_process(db, fake, seed=3) as child:
        await farkle_play.open_game(child, channel, players, target=1000)
        for _ in range(5):
            await farkle_play.play_move(child, channel, players)
        before = read_session(db, channel)
        await child.kill()
        assert child.process is not None and child.process.returncode == -signal.SIGKILL
    async with bot_process(db, fake, seed=4) as child:
        assert read_session(db, channel) == before
        await farkle_play.play_to_end(child, channel, players)
        assert len(read_finished(db, channel)) == 1
        no_channel_requests(child, channel)


async def test_a_lobby_that_closed_unseen_loses_its_buttons_at_the_next_press(
    tmp_path: Path,
) -> None:
    """A group-DM lobby nobody starts closes after 15 minutes, when every token has expired:
    nothing can show it closing, so its buttons stay. The next press on it finds no game,
    takes the buttons away (no dead button left behind) and says why, only to the presser."""
    fake = FakeDiscord(token_lifetime=TOKEN_LIFETIME)
    await fake.start()
    try:
        channel, _ = place_in(fake, "group DM")
        async with running_bot(tmp_path / "e2e.sqlite3", fake=fake) as d:
            opened = await d.slash(ALICE, channel, "kuriki start")
            lobby = opened.message
            assert lobby is not None and lobby.buttons()
            assert d.bot is not None
            fake.advance_clock(TOKEN_LIFETIME + 60)
            d.bot.tables.clock = lambda: time.time() + 901
            d.bot.timers.poke()
            await until(d, "the lobby to close", lambda: read_session(d.database, channel) is None)  # type: ignore[arg-type]
            await d.settle()
            assert lobby.buttons() and "closed" not in lobby.text()
            rec = await d.click(BOB, channel, label="Join", message=lobby)
            assert rec.callback_type == 7 and lobby.buttons() == []
            [told] = private([rec])
            assert told.startswith("There is no game running in this channel.")
            no_channel_requests(d, channel)
    finally:
        await fake.stop()


@pytest.mark.e2e(seed=5)
async def test_friends_without_the_app_play_by_its_buttons(d: Driver) -> None:
    """Only Alice added the app: Bob, in the same group DM, cannot type its commands, but
    he joins with the lobby's button and plays the whole game by pressing buttons."""
    d.fake.install(ALICE)
    channel = d.fake.add_group_dm([ALICE, BOB]).id
    with pytest.raises(CannotInvoke):
        await d.slash(BOB, channel, "farkle status")
    await farkle_play.open_game(d, channel, [ALICE, BOB], target=1000)
    await farkle_play.play_to_end(d, channel, [ALICE, BOB])
    assert len(read_finished(d.database, channel)) == 1  # type: ignore[arg-type]
    no_channel_requests(d, channel)


@pytest.mark.slow
@pytest.mark.e2e(seed=3)
async def test_after_a_group_dm_game_its_record_is_there(d: Driver) -> None:
    """A game in a group DM is recorded for that chat: /verify checks its dice there,
    /history lists it, /stats shows the rating it gave and /leaderboard ranks its winner;
    in the server, none of it shows."""
    channel, people = place_in(d.fake, "group DM")
    await farkle_play.open_game(d, channel, people[:2], target=1000)
    await farkle_play.play_to_end(d, channel, people[:2])
    [row] = read_finished(d.database, channel)  # type: ignore[arg-type]
    winner = next(p for p in people if p.id == row["winner_id"])
    checked = await d.slash(ALICE, channel, "verify", game=row["id"])
    assert checked.ephemeral and "the draws check out ✅" in checked.text
    listed = await d.slash(BOB, channel, "history")
    assert listed.ephemeral and "· with Alice" in listed.text
    stats = await d.slash(winner, channel, "stats", game="farkle")
    assert "Rating **" in stats.text and "**1** game" in stats.text
    board = await d.slash(CAROL, channel, "leaderboard")
    assert f"<@{winner.id}>" in board.text
    elsewhere = await d.slash(ALICE, TABLE, "verify", game=row["id"])
    assert "the draws check out" not in elsewhere.text
    home = await d.slash(winner, TABLE, "leaderboard")
    assert f"<@{winner.id}>" not in home.text
    no_channel_requests(d, channel)
