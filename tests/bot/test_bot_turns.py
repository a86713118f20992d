"""What a person sees around bot players, on the table service with a test clock: while only
bots are to act the table says so ("🤖 Dicey is thinking…") and offers only what a person can
use; the end of a game is a fresh post that mentions the people at the table; a Kuriki game
ends as soon as its last person is out; a game no person plays ends abandoned."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.components import Click
from bot.service import Reply, Tables
from bot.settings import GuildSettings
from games.bots import FIRST_BOT_ID
from tests.bot.conftest import (
    ADMIN,
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    find,
    make_tables,
    outcome,
)
from tests.bot.test_bots import alice_presses

DICEY, ROLLY = FIRST_BOT_ID, FIRST_BOT_ID + 1
TABLE = 555

#: The table's buttons a person may press while bots are to act: their own hand and the log
#: (CRAP), a peek under the cup (Kuriki). Farkle's are all the turn's own.
FOR_PEOPLE = {
    "farkle": set(),
    "kuriki": {"Sneak a peek (foul!)"},
    "crap": {"My hand", "Log"},
}

Move = Callable[[Tables, Any, Reply], Awaitable[Reply | None]]


def text_of(reply: Reply) -> str:
    table = reply.table
    assert table is not None
    return (table.content or "") + json.dumps(table.embed.to_dict(), ensure_ascii=False)


def shown(reply: Reply) -> Reply:
    """The channel's table as a reply, to find its buttons."""
    assert reply.table is not None
    return Reply.of_table(reply.table)


def check_bots_turn(kind: str, reply: Reply, state: Any) -> None:
    """The table the channel shows while only bots are to act."""
    text = text_of(reply)
    usable = {i.label for i in reply.table.items if not i.disabled}  # type: ignore[union-attr]
    assert usable <= FOR_PEOPLE[kind], (state.phase, usable)
    assert "to act" not in text and "to keep the best" not in text
    assert "Time for this move runs out" not in text  # the bot's pause is no one's clock
    if not (kind == "kuriki" and state.phase == "declare"):  # "…is peeking under the cup…"
        assert "is thinking…" in text or "are thinking…" in text, text


async def play_with_bots(
    tables: Tables, clock: Clock, kind: str, alice: Move, bots: int, **options: object
) -> tuple[Reply, set[str], bool]:
    """Alice plays `kind` against `bots` bots to the end; every table shown while only bots
    are to act is checked. Returns the last reply, the phases in which bots acted alone and
    whether Alice's own press ended the game."""
    adapter = tables.adapters[kind]
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, kind, {"bots": bots, **options})
    await tables.table_posted(CHANNEL, TABLE)
    reply = await tables.click(ALICE, find(reply, "start"), TABLE)
    phases: set[str] = set()
    hers = False
    for _ in range(3000):
        session = await tables.sessions.get(CHANNEL)
        if session is None:
            return reply, phases, hers
        hers = False
        if session.bot_deadline is not None:
            if adapter.thinking(session.state):
                phases.add(getattr(session.state, "phase", "turn"))
                check_bots_turn(kind, reply, session.state)
            clock.now = session.bot_deadline
            reply = await tables.expire(CHANNEL)
            assert reply is not None
        else:
            moved = await alice(tables, session.state, reply)
            if moved is None:  # nothing for her to do: the window closes by itself
                assert session.deadline is not None
                clock.now = session.deadline
                moved = await tables.expire(CHANNEL)
                assert moved is not None
            else:
                hers = True
            reply = moved
    raise AssertionError("the game did not end")


async def farkle_alice(tables: Tables, state: Any, reply: Reply) -> Reply:
    table = shown(reply)
    return await tables.click(ALICE, find(table, alice_presses(table)), TABLE)


async def kuriki_alice(tables: Tables, state: Any, reply: Reply) -> Reply:
    """Clockwise, roll and declare the first choice, pull."""
    table = shown(reply)
    if state.phase == "direction":
        return await tables.click(ALICE, find(table, "cw"), TABLE)
    if state.phase == "respond":
        return await tables.click(ALICE, find(table, "pull"), TABLE)
    assert state.phase == "roll", state.phase
    rolled = await tables.click(ALICE, find(table, "roll"), TABLE)
    if not rolled.followups:  # a Kuriki: shown to everyone, nothing to declare
        return rolled
    (secret,) = rolled.followups
    declare = secret.items[0]
    value = declare.options[0].value
    return await tables.click(
        ALICE, Click.parse(declare.custom_id, (value,)), 900, ephemeral=True
    )


async def crap_alice(tables: Tables, state: Any, reply: Reply) -> Reply | None:
    """Let every Acquire's window close by itself (nobody has to press), vote no, place the first cards, name the first value and suit,
    score when she can, else recycle."""
    table = shown(reply)
    if state.phase == "acquire":
        return None
    if state.phase == "force_vote":
        return await tables.click(ALICE, find(table, "vote", "no"), TABLE)
    hand = await tables.click(ALICE, find(table, "hand"), TABLE)
    items = {Click.parse(i.custom_id).action: i for i in hand.items or []}  # type: ignore[union-attr]
    if "score" in items or "commit" in items:
        item = items.get("score") or items["commit"]
        values = tuple(o.value for o in item.options[: max(1, item.min_values or 1)])
        return await tables.click(ALICE, Click.parse(item.custom_id, values), 900, ephemeral=True)
    if "guess" in items:  # the first value and the first suit, in one select
        item = items["guess"]
        values = (item.options[0].value, item.options[-1].value)
        return await tables.click(ALICE, Click.parse(item.custom_id, values), 900, ephemeral=True)
    return await tables.click(ALICE, find(hand, "recycle"), 900, ephemeral=True)


def check_the_end(reply: Reply, *people: int) -> None:
    """The finished table is posted afresh, mentioning exactly the people (never a bot).
    With nobody to mention (the one person's own press ended it), it mentions nobody."""
    update = reply.update
    assert update is not None and sorted(update.ping) == sorted(people)
    if people:
        assert update.fresh
        mentions = " ".join(f"<@{p}>" for p in update.ping)
        assert (update.table.content or "").startswith(f"{mentions}: the game is over.")
    else:
        assert "the game is over" not in (update.table.content or "")
    assert [Click.parse(i.custom_id).action for i in update.table.items] == ["rematch"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "alice", "bots", "options", "seed"),
    [
        ("farkle", farkle_alice, 1, {"rules": "classic", "target": 1500}, 3),
        ("kuriki", kuriki_alice, 2, {"lives": 3}, 6),
        ("crap", crap_alice, 2, {"threshold": 100}, 5),
    ],
)
async def test_a_bots_turn_offers_no_button_of_the_bots_move_and_the_end_pings_the_person(
    db_path: Any,
    clock: Clock,
    kind: str,
    alice: Move,
    bots: int,
    options: dict[str, object],
    seed: int,
) -> None:
    tables = await make_tables(db_path, clock, seed=seed)
    try:
        last, phases, hers = await play_with_bots(tables, clock, kind, alice, bots, **options)
        # (Kuriki's direction, roll and declare by a bot: see the first Roller's test.)
        expected = {"farkle": {"turn"}, "kuriki": {"respond"}, "crap": {"turn"}}[kind]
        assert expected <= phases, phases
        # Nobody is notified of their own press: Alice's move that ended it pings nobody.
        check_the_end(last, *([] if hers else [ALICE.id]))
        (record,) = await tables.store.finished_games(CHANNEL)
        assert record["bots"] == [DICEY, ROLLY][:bots]
    finally:
        await tables.store.close()


async def test_a_bot_first_roller_leaves_no_direction_or_cup_buttons(
    db_path: Any, clock: Clock
) -> None:
    """The roll-off seats a bot as Kuriki's first Roller: while it chooses the direction and
    rolls, the table says it is thinking and has no button; while it peeks under the cup, a
    person has Sneak a peek only (Peek again is the bot's)."""
    for seed in range(20):
        tables = await make_tables(db_path, clock, seed=seed)
        try:
            # Three players: two would have no direction to choose.
            reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "kuriki", {"bots": 2})
            await tables.table_posted(CHANNEL, TABLE)
            reply = await tables.click(ALICE, find(reply, "start"), TABLE)
            state = (await tables.sessions.get(CHANNEL)).state
            if state.roller != DICEY:
                await tables.sessions.delete(CHANNEL)  # the next seed's game starts afresh
                continue
            assert state.phase == "direction"
            assert reply.table.items == []  # type: ignore[union-attr]
            assert "🤖 Dicey rolled highest: first Roller" in text_of(reply)
            assert "🤖 Dicey is thinking…" in text_of(reply)
            for phase in ("roll", "declare"):
                clock.now = (await tables.sessions.get(CHANNEL)).bot_deadline
                reply = await tables.expire(CHANNEL)
                state = (await tables.sessions.get(CHANNEL)).state
                if state.phase == "roll" and phase == "declare":  # rolled a Kuriki: again
                    continue
                assert (state.phase, state.roller) == (phase, DICEY)
                check_bots_turn("kuriki", reply, state)
                labels = [i.label for i in reply.table.items]  # type: ignore[union-attr]
                assert labels == ([] if phase == "roll" else ["Sneak a peek (foul!)"])
            return
        finally:
            await tables.store.close()
    raise AssertionError("no seed made the bot the first Roller")


async def test_kuriki_ends_at_once_when_its_last_person_is_out(
    tables: Tables, clock: Clock
) -> None:
    """Alice's last life goes while two bots stand: the game ends in that very move, the bots
    win together, and her game counts as one lost against bots (not abandoned)."""
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "kuriki", {"bots": 2, "lives": 1})
    await tables.table_posted(CHANNEL, TABLE)
    await tables.click(ALICE, find(reply, "start"), TABLE)
    # A server manager's Rusk on Alice: three fouls, her one life.
    ended = await tables.command(ADMIN, CHANNEL, "kuriki", "rusk", f"{ALICE.id}:cup")
    assert await tables.sessions.get(CHANNEL) is None  # no bot plays on
    text = text_of(ended)
    # The winners are said once: above the table, not again in it or its log.
    assert text.count("🏆 🤖 Dicey and 🤖 Rolly win the Kuriki game!") == 1, text
    assert "Game over" not in text and "left standing" not in text, text
    check_the_end(ended, ALICE.id)
    (record,) = await tables.store.finished_games(CHANNEL)
    assert record["winner_id"] == DICEY and outcome(record).endswith("no person was left standing.")
    (fig,) = await tables.store.player_records(GUILD, ALICE.id, ["kuriki"])
    assert (fig.bot_games, fig.bot_wins, fig.abandoned) == (1, 0, 0)


async def test_a_kuriki_won_by_one_bot_says_it_wins(tables: Tables) -> None:
    """One bot left standing: its trophy line agrees in the singular ('wins', not 'win')."""
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "kuriki", {"bots": 1, "lives": 1})
    await tables.table_posted(CHANNEL, TABLE)
    await tables.click(ALICE, find(reply, "start"), TABLE)
    ended = await tables.command(ADMIN, CHANNEL, "kuriki", "rusk", f"{ALICE.id}:cup")
    text = text_of(ended)
    assert "🏆 🤖 Dicey wins the Kuriki game!" in text, text
    assert " win " not in text and "win!" not in text, text


@pytest.mark.parametrize(
    ("kind", "people", "options", "turns"),
    [
        ("farkle", 2, {"rules": "classic"}, 4),
        # Alone (with a bot): a Kuriki Roller's direction and roll are two turns in a row, so
        # with two people the first Roller would reach three (and be removed) first.
        ("kuriki", 1, {"bots": 1}, 2),
        ("crap", 3, {}, 6),
    ],
)
async def test_a_game_nobody_plays_ends_abandoned_and_wins_nobody_anything(
    db_path: Any, clock: Clock, kind: str, people: int, options: dict[str, object], turns: int
) -> None:
    """Every person lets every turn run out (the bot policy plays their turns for them): once
    each let two in a row go, the game ends with no winner, counted as abandoned."""
    tables = await make_tables(db_path, clock, seed=4)
    try:
        await tables.save_settings(GUILD, GuildSettings(turn_timer=30))
        reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, kind, dict(options))
        await tables.table_posted(CHANNEL, TABLE)
        seated = [ALICE, BOB, CAROL][:people]
        for p in seated[1:]:
            reply = await tables.click(p, find(reply, "join"), TABLE)
        await tables.click(ALICE, find(reply, "start"), TABLE)
        while (session := await tables.sessions.get(CHANNEL)) is not None:
            clock.now = session.deadline
            reply = await tables.expire(CHANNEL)
        (record,) = await tables.store.finished_games(CHANNEL)
        assert record["winner_id"] is None
        assert outcome(record) == f"Nobody wins: nobody played for {turns} turns."
        text = text_of(reply)
        assert f"**Abandoned:** nobody played for {turns} turns, so nobody wins." in text
        assert "🏆" not in text
        check_the_end(reply, *(p.id for p in seated))
        for p in seated:
            (fig,) = await tables.store.player_records(GUILD, p.id, [kind])
            assert (fig.games, fig.wins, fig.bot_games, fig.abandoned) == (0, 0, 0, 1)
    finally:
        await tables.store.close()


async def test_a_person_against_a_bot_who_never_plays_abandons_it(
    tables: Tables, clock: Clock
) -> None:
    """Alone against a bot: two turns of hers run out in a row and the game is abandoned,
    whatever the bot did meanwhile."""
    await tables.save_settings(GUILD, GuildSettings(turn_timer=30))
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {"bots": 1})
    await tables.table_posted(CHANNEL, TABLE)
    await tables.click(ALICE, find(reply, "start"), TABLE)
    timeouts = 0
    while (session := await tables.sessions.get(CHANNEL)) is not None:
        alices = session.state.current_player.id == ALICE.id
        clock.now = session.deadline
        reply = await tables.expire(CHANNEL)
        timeouts += alices
    assert timeouts == 2
    (record,) = await tables.store.finished_games(CHANNEL)
    assert record["winner_id"] is None and "nobody played for 2 turns" in outcome(record)
    (fig,) = await tables.store.player_records(GUILD, ALICE.id, ["farkle"])
    assert (fig.bot_games, fig.bot_wins, fig.abandoned) == (0, 0, 1)


@pytest.mark.parametrize("bots", [1, 2])
async def test_a_foul_vote_only_bots_answer_has_no_buttons(tables: Tables, bots: int) -> None:
    """Alice calls a foul on 🤖 Dicey: with 🤖 Rolly the only voter, or Dicey alone to accept
    it, the vote message says the bot is thinking and has nothing for her to press."""
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "kuriki", {"bots": bots})
    await tables.table_posted(CHANNEL, TABLE)
    await tables.click(ALICE, find(reply, "start"), TABLE)
    vote = await tables.command(ALICE, CHANNEL, "kuriki", "propose", f"{DICEY}:rolling off")
    assert vote.items == [] and vote.content is None
    deciding = "🤖 Rolly" if bots == 2 else "🤖 Dicey"
    assert vote.embed is not None and f"{deciding} is thinking…" in vote.embed.description
