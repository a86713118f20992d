"""/stats and /leaderboard through the real client: a private leaderboard paged with its
buttons, paged on after a restart, stale and forged page buttons refused privately, and a
player's stats shared with the channel; outside servers (a user install): /stats of the
games outside servers, a group chat's own leaderboard and its pages, none in the bot's DM."""

from __future__ import annotations

import time
from pathlib import Path

from bot.store import FinishedGame, Store
from tests.e2e.fake_discord import FakeDiscord, FakeUser, button_row
from tests.e2e.harness import ALICE, BOB, CAROL, GUILD, TABLE, Driver, running_bot

WINNERS = [1_200_000_000_000_000_000 + i for i in range(23)]


async def fill(path: Path) -> None:
    """23 players who each beat Bob once, and a game Alice won with her records."""
    store = await Store.open(path)
    try:
        for winner, loser in [*((w, BOB.id) for w in WINNERS), (ALICE.id, BOB.id)]:
            await store.finish_session(
                TABLE,
                FinishedGame(
                    guild_id=GUILD,
                    channel_id=TABLE,
                    kind="farkle",
                    players=[{"id": winner, "name": "W"}, {"id": loser, "name": "L"}],
                    scores={str(winner): 10_000, str(loser): 2_000},
                    winner_id=winner,
                    rules={},
                    outcome="test",
                    started_at=time.time() - 600,
                    stats={str(ALICE.id): {"farkles": 4, "hot_dice": 2, "best_turn": 1500}},
                ),
            )
    finally:
        await store.close()


async def test_leaderboard_pages_survive_a_restart(tmp_path: Path, fake: FakeDiscord) -> None:
    database = tmp_path / "e2e.sqlite3"
    await fill(database)
    async with running_bot(database, fake=fake) as d:
        shown = await d.slash(CAROL, TABLE, "leaderboard", game="farkle", period="week")
        assert shown.ephemeral and shown.callback_type == 4
        board = shown.message
        assert "Page 1/3" in board.text() and f"<@{BOB.id}>" not in board.text()
        assert board.labels() == ["◀ Previous", "Next ▶"]
        paged = await d.click(CAROL, TABLE, label="Next ▶", message=board)
        assert paged.callback_type == 7 and paged.message is board
        assert "Page 2/3" in board.text() and f"<@{WINNERS[10]}>" in board.text()
        assert d.problems == []
    async with running_bot(database, fake=fake) as d:  # a new process, the same message
        paged = await d.click(CAROL, TABLE, label="Next ▶", message=board)
        assert paged.callback_type == 7 and "Page 3/3" in board.text()
        assert f"<@{BOB.id}>" in board.text()  # 24 games, no win: last
        assert [b.get("disabled", False) for b in board.buttons()] == [False, True]

        # A page button of an earlier week, and a forged one: short private refusals.
        d.fake.add_message(
            TABLE,
            content="Old board",
            components=[
                button_row(
                    ("Next ▶", f"t:board:page:{TABLE}:1:20200106:farkle-week"),
                    ("Next ▶", f"t:board:page:{TABLE}:1:0:chess-all"),
                )
            ],
        )
        old = d.fake.messages[TABLE][-1]
        for custom_id, why in (
            (f"t:board:page:{TABLE}:1:20200106:farkle-week", "earlier week"),
            (f"t:board:page:{TABLE}:1:0:chess-all", "not one I recognise"),
        ):
            refused = await d.click(ALICE, TABLE, custom_id=custom_id, message=old)
            assert refused.callback_type == 4 and refused.ephemeral and why in refused.text
        assert "Page 3/3" in board.text()  # nothing else changed

        shared = await d.slash(BOB, TABLE, "stats", player=ALICE, game="farkle", share=True)
        assert shared.callback_type == 4 and not shared.ephemeral
        text = shared.message.text()
        assert "Alice's stats" in text and "**1** game · **1** win (100%)" in text
        assert "Best game score: 10,000" in text and "Best turn: 1,500" in text
        assert "Farkles: 4" in text and "Hot dice: 2" in text
        private = await d.slash(BOB, TABLE, "stats")
        assert private.ephemeral and "**24** games · **0** wins (0%)" in private.text
        assert d.problems == []


def won(winner: FakeUser | int, loser: FakeUser, channel: int, guild: int | None) -> FinishedGame:
    """A Farkle game `winner` won against `loser` in `channel` (no server: `guild` None)."""
    wid = winner if isinstance(winner, int) else winner.id
    return FinishedGame(
        guild_id=guild,
        channel_id=channel,
        kind="farkle",
        players=[{"id": wid, "name": "W"}, {"id": loser.id, "name": "L"}],
        scores={str(wid): 10_000, str(loser.id): 2_000},
        winner_id=wid,
        rules={},
        outcome="test",
        started_at=time.time() - 600,
    )


async def test_stats_and_leaderboards_outside_servers(d: Driver) -> None:
    """/stats outside servers counts the games outside servers and says so; a group chat's
    /leaderboard ranks the games played there; the bot's own DM has no leaderboard."""
    assert d.bot is not None
    for user in (ALICE, BOB):
        d.fake.install(user)
    group = d.fake.add_group_dm([ALICE, BOB, CAROL]).id
    other = d.fake.add_group_dm([ALICE, CAROL]).id
    pair = d.fake.add_dm(ALICE, BOB).id
    own = d.fake.add_dm(ALICE, d.fake.bot).id
    store = d.bot.store
    for game in (
        won(ALICE, BOB, group, None),
        won(ALICE, BOB, group, None),
        won(CAROL, ALICE, other, None),
        won(BOB, ALICE, TABLE, GUILD),
    ):
        await store.finish_session(game.channel_id, game)

    board = await d.slash(ALICE, group, "leaderboard")
    assert board.callback_type == 4 and board.ephemeral
    lines = board.message.text()
    assert f"🥇 <@{ALICE.id}> · **2** wins · 2 games" in lines
    assert f"🥈 <@{BOB.id}> · **0** wins · 2 games" in lines and f"<@{CAROL.id}>" not in lines
    shown = await d.slash(BOB, group, "leaderboard", share=True)
    assert not shown.ephemeral and f"<@{ALICE.id}>" in shown.message.text()
    mine = await d.slash(ALICE, other, "leaderboard")
    assert f"🥇 <@{CAROL.id}> · **1** win · 1 game" in mine.message.text()
    assert "No game between people has finished here" in (await d.slash(ALICE, pair, "leaderboard")).text
    refused = await d.slash(ALICE, own, "leaderboard")
    assert refused.ephemeral and "Leaderboards belong to servers and group chats" in refused.text

    for place in (own, group):
        stats = await d.slash(ALICE, place, "stats")
        text = stats.message.text()
        assert stats.ephemeral and "Games outside servers (DMs and group chats together)" in text
        assert "**3** games · **2** wins (67%)" in text
    here = (await d.slash(ALICE, TABLE, "stats")).message.text()
    assert "**1** game · **0** wins (0%)" in here and "outside servers" not in here
    bob = await d.slash(BOB, pair, "stats", player=ALICE, share=True)
    assert not bob.ephemeral and "Alice's stats" in bob.message.text()
    assert "**3** games · **2** wins" in bob.message.text()


async def test_a_group_chats_leaderboard_pages(d: Driver) -> None:
    """The page buttons of a leaderboard shown in a group DM page that group's board."""
    assert d.bot is not None
    d.fake.install(ALICE)
    group = d.fake.add_group_dm([ALICE, BOB]).id
    for winner in WINNERS[:12]:
        game = won(winner, BOB, group, None)
        await d.bot.store.finish_session(group, game)
    await d.bot.store.finish_session(TABLE, won(ALICE, BOB, TABLE, GUILD))
    board = (await d.slash(ALICE, group, "leaderboard")).message
    assert "Page 1/2" in board.text() and f"<@{ALICE.id}>" not in board.text()
    paged = await d.click(ALICE, group, label="Next ▶", message=board)
    assert paged.callback_type == 7 and "Page 2/2" in board.text()
    assert f"<@{BOB.id}> · **0** wins · 12 games" in board.text()
