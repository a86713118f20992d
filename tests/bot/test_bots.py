"""Bot players on the table service: the lobby's Add bot / Remove bot, the start command's
bots option, the bot_delay setting, bots moving when due (and a failing policy falling back),
the last person leaving, and bots never mentioned or pinged."""

from __future__ import annotations

import json
import logging
import random
from types import SimpleNamespace
from typing import Any

import pytest

from bot.cogs.admin import pause_words, settings_embed
from bot.cogs.stats import leaderboard_page, stats_embed
from bot.errors import UserError
from bot.records import ALL_GAMES
from bot.service import Reply, Tables
from bot.settings import GuildSettings, SettingsError
from games.bots import FIRST_BOT_ID, bot_name, is_bot
from games.errors import LobbyError
from games.kuriki import engine as kuriki_engine
from games.kuriki import policy as kuriki_policy
from games.kuriki.engine import Action, KurikiRules
from games.lobby import Seat
from tests.bot.conftest import (
    ADMIN,
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    MALLORY,
    Clock,
    buttons,
    check_limits,
    find,
    outcome,
)

DICEY, ROLLY = FIRST_BOT_ID, FIRST_BOT_ID + 1


def labels(reply: Reply) -> dict[str, bool]:
    return {label: disabled for label, disabled in buttons(reply).values()}


def public_text(reply: Reply) -> str:
    parts = [reply.content or ""]
    for r in (reply, reply.table):
        if r is not None and getattr(r, "embed", None) is not None:
            parts.append(json.dumps(r.embed.to_dict(), ensure_ascii=False))
    return " ".join(parts)


def no_bot_mention(reply: Reply) -> None:
    text = public_text(reply)
    assert "<@10" not in text, text  # bot ids are 1001-1099: never written as a mention
    if reply.update is not None:
        assert not any(is_bot(u) for u in reply.update.ping)


async def open_with_bots(tables: Tables, kind: str = "farkle", **options: object) -> Reply:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, kind, dict(options))
    await tables.table_posted(CHANNEL, 555)
    return reply


# ----------------------------------------------------------------------------- the lobby


async def test_add_and_remove_bot_buttons(tables: Tables) -> None:
    reply = await open_with_bots(tables)
    check_limits(reply)
    assert labels(reply)["Add bot"] is False and labels(reply)["Remove bot"] is True
    reply = await tables.click(ALICE, find(reply, "addbot"), 555)
    check_limits(reply)
    players = reply.embed.fields[0].value
    assert bot_name(DICEY) in players and f"<@{DICEY}>" not in players
    assert labels(reply)["Start"] is False and labels(reply)["Remove bot"] is False
    no_bot_mention(reply)
    reply = await tables.click(ALICE, find(reply, "addbot"), 555)
    assert bot_name(ROLLY) in reply.embed.fields[0].value
    reply = await tables.click(ADMIN, find(reply, "dropbot"), 555)  # a manager may too
    session = await tables.sessions.get(CHANNEL)
    assert [p.id for p in session.lobby.players] == [ALICE.id, DICEY]
    # Someone not in the lobby may not; with no bot left, Remove bot is refused.
    with pytest.raises(LobbyError, match="Only a player in the lobby"):
        await tables.click(MALLORY, find(reply, "addbot"), 555)
    reply = await tables.click(ALICE, find(reply, "dropbot"), 555)
    with pytest.raises(LobbyError, match="no bot"):
        await tables.click(ALICE, find(reply, "dropbot"), 555)
    assert [p.id for p in (await tables.sessions.get(CHANNEL)).lobby.players] == [ALICE.id]


async def test_bots_fill_the_table_up_to_its_size(tables: Tables) -> None:
    reply = await open_with_bots(tables, "crap", bots=5)  # CRAP seats 3-6
    assert "Players (6/6)" in reply.embed.fields[0].name
    assert labels(reply)["Add bot"] is True  # greyed out on a full table
    with pytest.raises(LobbyError, match="full"):
        await tables.click(ALICE, find(reply, "addbot"), 555)
    # A person who joins a full table takes the seat of the last bot added.
    reply = await tables.click(BOB, find(reply, "join"), 555)
    lobby = (await tables.sessions.get(CHANNEL)).lobby
    assert [p.id for p in lobby.players] == [ALICE.id, *range(DICEY, DICEY + 4), BOB.id]
    # With a seat free, a person just sits down: no bot gives way.
    reply = await tables.click(ADMIN, find(reply, "dropbot"), 555)
    reply = await tables.click(CAROL, find(reply, "join"), 555)
    lobby = (await tables.sessions.get(CHANNEL)).lobby
    assert [p.id for p in lobby.players] == [ALICE.id, *range(DICEY, DICEY + 3), BOB.id, CAROL.id]


async def test_the_bots_option_is_checked_against_the_table(tables: Tables) -> None:
    with pytest.raises(UserError, match="0 to 5 bots"):
        await tables.open_lobby(ALICE, GUILD, CHANNEL, "crap", {"bots": 6})
    with pytest.raises(UserError, match="0 to 9 bots"):  # classic seats up to 10
        await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {"bots": 99, "rules": "classic"})
    assert await tables.sessions.get(CHANNEL) is None


async def test_the_host_never_hands_the_lobby_to_a_bot(tables: Tables) -> None:
    reply = await open_with_bots(tables, bots=2)
    reply = await tables.click(BOB, find(reply, "join"), 555)
    reply = await tables.click(ALICE, find(reply, "leave"), 555)
    assert (await tables.sessions.get(CHANNEL)).lobby.starter == BOB.id
    reply = await tables.click(BOB, find(reply, "leave"), 555)
    assert reply.content == "Everyone left: the lobby is closed."  # bots and all
    assert await tables.sessions.get(CHANNEL) is None


# ----------------------------------------------------------------------------- playing


async def test_two_taps_start_a_game_against_a_bot_that_moves_when_due(
    tables: Tables, clock: Clock
) -> None:
    reply = await open_with_bots(tables, bots=1)
    reply = await tables.click(ALICE, find(reply, "start"), 555)
    no_bot_mention(reply)
    moves = 0
    while True:
        session = await tables.sessions.get(CHANNEL)
        if session is None:
            break
        if session.state.current_player.id == ALICE.id:
            assert session.bot_deadline is None  # nothing for the bot to do
            reply = await tables.click(ALICE, find(reply, alice_presses(reply)), 555)
        else:
            # The bot's move is due bot_delay (1.5 s by default) later, not before.
            assert session.bot_deadline is not None and session.bot_deadline > clock.now
            assert await tables.expire(CHANNEL) is None
            clock.now = session.bot_deadline
            moved = await tables.expire(CHANNEL)
            assert moved is not None and moved.table is not None
            reply = Reply.of_table(moved.table, update=moved.update)
        no_bot_mention(reply)
        moves += 1
        assert moves < 500
    [record] = await tables.store.finished_games(CHANNEL)
    assert record["bots"] == [DICEY]
    assert record["winner_id"] in (ALICE.id, DICEY)
    # /stats shows the finished game (not ranked); the empty leaderboard says why
    (fig,) = await tables.store.player_records(GUILD, ALICE.id, ["farkle"])
    won = int(record["winner_id"] == ALICE.id)
    text = json.dumps(stats_embed("Alice", [fig]).to_dict(), ensure_ascii=False)
    assert f"**1** game (0 ranked) · **{won}** win" in text
    assert "**0** games" not in text
    embed, _items = await leaderboard_page(tables.store, GUILD, CHANNEL, ALL_GAMES, "all", 0, 0.0)
    assert "games with bots are not ranked" in str(embed.description)
    assert "Nobody has finished a game" not in str(embed.description)


def alice_presses(table: Reply) -> str:
    """Keep the best dice and bank when the table offers it, else keep and roll, else roll."""
    shown = [label for label, _ in buttons(table).values()]
    if any(label.startswith("Keep") and "bank" in label for label in shown):
        return "bestbank"
    return "bestroll" if any(label.startswith("Keep") for label in shown) else "roll"


async def test_a_failing_policy_falls_back_to_the_timeout_move(
    tables: Tables, clock: Clock, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = await open_with_bots(tables, bots=1)
    await tables.click(ALICE, find(reply, "start"), 555)
    session = await tables.sessions.get(CHANNEL)
    if session.state.current_player.id == ALICE.id:  # hand the turn to the bot
        session = await _alice_ends_her_turn(tables, clock)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("policy bug")

    adapter = tables.adapters["farkle"]
    monkeypatch.setattr(type(adapter), "policy", SimpleNamespace(choose=broken))
    clock.now = session.bot_deadline
    with caplog.at_level(logging.ERROR):
        reply = await tables.expire(CHANNEL)
    assert reply is not None
    assert any("bot in seat" in r.getMessage() and r.exc_info for r in caplog.records)
    after = await tables.sessions.get(CHANNEL)
    # The engine's timeout move: the bot's turn is over and Alice is called.
    assert after.state.current_player.id == ALICE.id
    assert any("ran out of time" in str(line) for line in after.state.log)
    assert reply.update is not None and reply.update.ping == (ALICE.id,)


async def _alice_ends_her_turn(tables: Tables, clock: Clock) -> Any:
    """Alice lets her turn time out (the policy plays it), so the bot is on."""
    session = await tables.sessions.get(CHANNEL)
    clock.now = session.turn_deadline
    await tables.expire(CHANNEL)
    session = await tables.sessions.get(CHANNEL)
    assert session.state.current_player.id == DICEY
    return session


async def test_the_last_person_leaving_ends_the_game_with_no_winner(tables: Tables) -> None:
    reply = await open_with_bots(tables, "kuriki", bots=2)
    await tables.click(ALICE, find(reply, "start"), 555)
    left = await tables.leave(ALICE, CHANNEL, "kuriki")
    assert left.table is not None
    assert "no person is left at the table" in public_text(left)
    assert await tables.sessions.get(CHANNEL) is None
    [record] = await tables.store.finished_games(CHANNEL)
    assert record["winner_id"] is None and record["bots"] == [DICEY, ROLLY]
    assert "no person is left" in outcome(record)


async def test_every_bot_that_can_act_moves(
    tables: Tables, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Kuriki foul vote with two bot voters: both vote in the one due move. (A stand-in
    policy that votes yes, so the test does not depend on what the real one would do.)"""
    asked: list[int] = []

    def votes_yes(state: Any, seat: int, rng: random.Random, now: float = 0.0) -> Any:
        asked.append(seat)
        for vote in state.votes:
            if seat in kuriki_engine.voters(state, vote) and seat not in vote.yes + vote.no:
                return Action(kind="vote", vote=vote.id, value="yes", now=now)
        return None

    reply = await open_with_bots(tables, "kuriki", bots=2)
    reply = await tables.click(BOB, find(reply, "join"), 555)
    await tables.click(ALICE, find(reply, "start"), 555)
    await tables.command(ALICE, CHANNEL, "kuriki", "propose", f"{BOB.id}:rolling off the table")
    session = await tables.sessions.get(CHANNEL)
    assert session.state.votes and session.bot_deadline is not None
    monkeypatch.setattr(type(tables.adapters["kuriki"]), "policy", SimpleNamespace(choose=votes_yes))
    clock.now = session.bot_deadline
    await tables.expire(CHANNEL)
    state = (await tables.sessions.get(CHANNEL)).state
    assert sorted(asked) == [DICEY, ROLLY]
    assert state.votes == [] and state.player(BOB.id).fouls == 1  # both yes: charged


# ----------------------------------------------------------------------------- the setting


def test_bot_delay_setting_is_validated_and_shown_in_words() -> None:
    assert GuildSettings().bot_delay == 1.5
    assert GuildSettings().updated(bot_delay=0.25).bot_delay == 0.25
    with pytest.raises(SettingsError, match="The bots' pause must be at most 10"):
        GuildSettings().updated(bot_delay=11)
    with pytest.raises(SettingsError, match="at least 0"):
        GuildSettings().updated(bot_delay=-1)
    with pytest.raises(SettingsError):
        GuildSettings().updated(bot_delay=float("nan"))
    assert pause_words(1.5) == "1.5 seconds" and pause_words(1) == "1 second"
    assert pause_words(0) == "no time"
    general = settings_embed(GuildSettings()).fields[0].value
    assert "Bots wait **1.5 seconds** before each move" in general


async def test_bot_delay_is_a_server_setting(tables: Tables, clock: Clock) -> None:
    await tables.save_settings(GUILD, (await tables.settings(GUILD)).updated(bot_delay=4.0))
    reply = await open_with_bots(tables, bots=1)
    await tables.click(ALICE, find(reply, "start"), 555)
    session = await tables.sessions.get(CHANNEL)
    if session.state.current_player.id == ALICE.id:
        session = await _alice_ends_her_turn(tables, clock)
    assert session.bot_deadline == pytest.approx(clock.now + 4.0)


# ----------------------------------------------------------------------------- timeouts


def test_an_absent_roller_is_played_by_the_policy_and_it_counts() -> None:
    """The engine asks the chooser for the Roller's roll and declaration; the timeout is
    still counted, and three in a row take the player out."""
    rng = random.Random(3)
    state, _ = kuriki_engine.new_game(
        [Seat(id=1, name="Ann"), Seat(id=2, name="Bo"), Seat(id=3, name="Cy")],
        KurikiRules(lives=5),
        rng,
    )
    asked: list[tuple[str, int]] = []

    decide = random.Random(4)  # the policy's own: the dice do not depend on its choices

    def chooser(s: Any, seat: int) -> Action | None:
        asked.append((s.phase, seat))
        return kuriki_policy.choose(s, seat, decide)

    roller = state.roller
    state, _ = kuriki_engine.timeout(state, rng, chooser=chooser)  # direction
    state, _ = kuriki_engine.timeout(state, rng, chooser=chooser)  # roll and declare
    assert asked == [("direction", roller), ("roll", roller), ("declare", roller)]
    assert state.phase == "respond" and state.player(roller).timeouts == 2
    assert not any("whatever the dice" in str(line) for line in state.log)
    assert [str(line) for line in state.log[-3:-1]] == [
        f"{state.player(roller).name} ran out of time.",
        f"{state.player(roller).name} rolls a fresh roll.",
    ]
    # A chooser with no answer: the fixed rule plays, and the count goes on.
    nobody = kuriki_engine.timeout(state, rng, chooser=lambda s, seat: None)[0]
    assert nobody.player(state.next_guy).timeouts == 1


async def test_a_rematch_seats_the_bots_again_and_invites_only_people(tables: Tables) -> None:
    reply = await open_with_bots(tables, bots=2)
    reply = await tables.click(BOB, find(reply, "join"), 555)
    await tables.click(ALICE, find(reply, "start"), 555)
    ended = await tables.end(ALICE, CHANNEL, "farkle")
    assert ended.table is not None
    [record] = await tables.store.finished_games(CHANNEL)
    assert record["bots"] == [DICEY, ROLLY]
    press = find(Reply.of_table(ended.table), "rematch")
    again = await tables.rematch(BOB, press)
    assert again.invited == [ALICE.id]  # the bots are seated, not invited
    lobby = (await tables.sessions.get(CHANNEL)).lobby
    assert [p.id for p in lobby.players] == [BOB.id, DICEY, ROLLY]
    assert "<@10" not in (again.lobby.content or "")


def test_a_farkle_game_with_a_bot_starts_building_its_rules_win_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a game with a bot seat, and only when the bot builds tables (`farkle_tables`)."""
    import random as _random

    from bot.tables.farkle import FarkleTable
    from games.bots import FIRST_BOT_ID
    from games.farkle import engine as farkle_engine
    from games.farkle import policy as farkle_policy
    from games.farkle.rules import PRESETS
    from games.lobby import Seat

    warmed: list[object] = []
    monkeypatch.setattr(farkle_policy, "warm", warmed.append)
    people = [Seat(id=11, name="Ann"), Seat(id=12, name="Ben")]
    with_bot = [Seat(id=11, name="Ann"), Seat(id=FIRST_BOT_ID, name="🤖 Dicey")]
    adapter = FarkleTable()
    def prepare(seats: list[Seat]) -> None:
        state, _ = farkle_engine.new_game(seats, PRESETS["classic"], _random.Random(1))
        work = adapter.bot_preparation(state)
        if work is not None:
            work()

    for seats in (people, with_bot):
        prepare(seats)
    assert warmed == []  # not asked to build
    adapter.build_tables = True
    assert adapter.bot_preparation(
        farkle_engine.new_game(people, PRESETS["classic"], _random.Random(1))[0]
    ) is None  # no bot seat: nothing to run, no thread
    for seats in (people, with_bot):
        prepare(seats)
    assert warmed == [PRESETS["classic"]]
