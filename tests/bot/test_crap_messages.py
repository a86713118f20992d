"""CRAP does not flood its channel: a table is posted afresh only when someone new must act,
an Acquire's window asks nobody (it closes by itself, or at once for players who let every
bluff go), a co-operate's partner is told in the table that follows, a timed-out turn says
so on the table, and the 👁 line says when its cards were shown."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench.crap_messages import play_game
from bot.components import Click
from bot.service import Actor, Tables
from bot.sessions import Session
from bot.tables.crap import CrapTable
from games.crap import engine
from games.crap.engine import Action, CrapRules
from games.lobby import Lobby
from tests.bot.conftest import ALICE, BOB, CAROL, CHANNEL, Clock, find, make_tables
from tests.bot.test_crap_table import components, my_hand, start_crap, state_of
from tests.bot.test_table_flow import message_at
from tests.games.crap_helpers import seats

PLAYERS = {a.id: a for a in (ALICE, BOB, CAROL)}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("db_path", "seed", "bots"),
    [
        *(("sqlite", seed, bots) for seed, bots in [(1, 0), (9, 0), (11, 0), (1, 2), (3, 2)]),
        ("postgresql", 1, 0),
        ("postgresql", 3, 2),
    ],
    indirect=["db_path"],
)
async def test_a_game_to_300_posts_at_most_one_message_a_turn_and_needs_no_let_go(
    db_path: Path | str, seed: int, bots: int
) -> None:
    """Whole games through the service (see bench/crap_messages.py): people press only on
    their turn, in a challenge and to call a bluff they doubt; nobody ever presses Let it go,
    the windows close by themselves and the game reaches its winner. Every game on SQLite,
    one of people and one with bots on PostgreSQL too (the store is not what is counted)."""
    tally = await play_game(seed, bots, 300, path=db_path)
    assert tally.acquires > 20 and tally.turns > 100, tally
    assert tally.let_go == 0 and tally.asked == 0, tally  # nobody was asked to decide
    # One post a turn at most: a challenge's post also calls the next player, so the next
    # turn posts nothing, unless the game ends in the challenge (one more message then;
    # the games of three people here end otherwise). Besides, the end of the game is one new
    # message telling the people who played (an edit would notify nobody), and within a
    # challenge a post calls whoever's step another's move brought (at most two a challenge).
    calls = tally.step_calls
    assert tally.public - calls <= tally.turns + tally.challenge_ends + tally.games, tally
    assert (tally.public - calls - tally.games) / tally.turns <= 1.0, tally
    if not bots:
        # Nobody is notified of their own press: a bluff caller whose turn follows is not
        # called, the table is edited, so three people post fewer messages than turns
        # (besides the calls within challenges).
        assert tally.public - calls < tally.turns, tally


async def acquire(tables: Tables, table: object, rank: str = "13") -> tuple[Actor, object]:
    state = await state_of(tables)
    caller = PLAYERS[state.current_player.id]
    hand = await my_hand(tables, caller, table)  # type: ignore[arg-type]
    cid = next(c for c in components(hand) if c.startswith("t:crap:acquire:"))
    return caller, await tables.click(caller, Click.parse(cid, (rank,)), 999, ephemeral=True)


async def test_an_acquire_window_edits_the_table_and_its_close_calls_the_next_player(
    tables: Tables,
) -> None:
    clock = tables.clock
    table = await start_crap(tables, threshold=200)
    await tables.shown(table.update, message_at(clock.now))  # type: ignore[arg-type]
    caller, opened = await acquire(tables, table)
    update = opened.update  # type: ignore[attr-defined]
    assert not update.fresh and update.ping == ()
    text = update.table.embed.description
    assert "goes through by itself <t:" in text and ":R>" in text, text
    assert not any(line.startswith("⏳") for line in text.split("\n")), text
    session = await tables.sessions.get(CHANNEL)
    assert session.deadline == clock.now + 10  # committed, so a restart closes it too
    clock.now += 11  # type: ignore[operator]
    closed = await tables.expire(CHANNEL)
    after = await state_of(tables)
    assert after.phase == "turn" and after.current_player.id != caller.id
    assert closed.update.fresh and closed.update.ping == (after.current_player.id,)  # type: ignore[union-attr]


async def test_an_acquire_window_closes_by_itself_after_a_restart(
    db_path: Path | str, clock: Clock
) -> None:
    tables = await make_tables(db_path, clock)
    table = await start_crap(tables, threshold=200)
    caller, _ = await acquire(tables, table)
    await tables.store.close()
    again = await make_tables(db_path, clock)  # a new process on the same database
    try:
        assert await again.expire(CHANNEL) is None  # not due yet
        clock.now += 11
        closed = await again.expire(CHANNEL)
        after = await state_of(again)
        assert closed is not None and after.phase == "turn" and after.acquire is None
        assert after.current_player.id != caller.id
    finally:
        await again.store.close()


async def test_letting_an_acquire_go_offers_let_bluffs_go(tables: Tables) -> None:
    table = await start_crap(tables, threshold=200)
    caller, opened = await acquire(tables, table)
    other = next(p for p in PLAYERS.values() if p is not caller)
    let_go = await tables.click(other, find(opened.table, "nocall"), 888)  # type: ignore[attr-defined]
    [ack] = [f for f in let_go.followups if f.ephemeral]
    assert "No need to press" in ack.embed.description  # type: ignore[union-attr]
    turned = await tables.click(other, find(ack, "letgo", "on"), 999, ephemeral=True)
    assert "(**Let bluffs go** is on)" in turned.embed.description  # type: ignore[union-attr]
    assert (await state_of(tables)).player(other.id).let_go_all


async def test_let_it_go_is_one_tap_on_the_table_and_the_last_pass_closes_the_window(
    tables: Tables,
) -> None:
    """A family taps Let it go on every Acquire: each tap is answered on the table (the
    row of whoever passed shows ✓), the last pass closes the window at once, and only a
    player's first pass of the game adds a private reply (the one that tells of Let bluffs
    go); every later pass adds none."""
    table = await start_crap(tables, threshold=200)
    private, seen, windows = 0, set(), 0
    for _window in range(6):
        state = await state_of(tables)
        if state.finished:
            break
        caller, opened = await acquire(tables, table)
        first, second = [p for p in PLAYERS.values() if p is not caller]
        nocall = find(opened.table, "nocall")  # type: ignore[attr-defined]
        passed = await tables.click(first, nocall, 888)
        assert passed.on_table and passed.update is not None
        rows = passed.update.table.embed.description.split("\n")  # type: ignore[union-attr]
        assert any(r.startswith(f"✓ <@{first.id}>") for r in rows), rows
        closed = await tables.click(second, nocall, 888)
        assert (await state_of(tables)).acquire is None  # no waiting for the deadline
        replies = [f for f in (*passed.followups, *closed.followups) if f.ephemeral]
        newcomers = {first.id, second.id} - seen
        assert len(replies) == len(newcomers), [r.embed.description for r in replies]  # type: ignore[union-attr]
        seen |= newcomers
        private += len(replies)
        windows += 1
        table = closed
    assert windows == 6 and private == 3  # one private reply per player in six windows


async def test_players_who_let_bluffs_go_are_never_waited_for(tables: Tables) -> None:
    table = await start_crap(tables, threshold=200)
    state = await state_of(tables)
    caller = PLAYERS[state.current_player.id]
    others = [p for p in PLAYERS.values() if p is not caller]
    for p in others:
        hand = await my_hand(tables, p, table)
        toggle = find(hand, "letgo", "on")
        turned = await tables.click(p, toggle, 999, ephemeral=True)
        assert "(**Let bluffs go** is on)" in turned.embed.description  # type: ignore[union-attr]
        assert find(turned, "letgo", "off").stamp == 0  # good at any time
    toggled = await state_of(tables)
    assert all(toggled.player(p.id).let_go_all for p in others)
    _, opened = await acquire(tables, table)
    after = await state_of(tables)
    # Nobody to wait for: the Acquire goes through at once and the turn passes.
    assert after.phase == "turn" and after.current_player.id != caller.id
    assert any("Everyone lets bluffs go." in str(line) for line in after.log[-4:]), after.log
    assert opened.update.fresh  # type: ignore[attr-defined]
    # Turned off again, a window waits for that player once more.
    hand = await my_hand(tables, others[0], table)
    await tables.click(others[0], find(hand, "letgo", "off"), 999, ephemeral=True)
    assert not (await state_of(tables)).player(others[0].id).let_go_all


async def test_a_cooperate_partner_is_told_in_the_next_table_not_a_message_of_its_own(
    tables: Tables,
) -> None:
    table = await start_crap(tables, threshold=200)
    state = await state_of(tables)
    me = state.current_player
    partner = state.next_after(state.next_after(me.id).id)  # not the next player
    hand = await my_hand(tables, PLAYERS[me.id], table)
    cid = next(c for c in components(hand) if c.startswith("t:crap:target:"))
    reply = await tables.click(
        PLAYERS[me.id], Click.parse(cid, (f"cooperate-{partner.id}",)), 999, ephemeral=True
    )
    assert [f for f in reply.followups if not f.ephemeral] == []
    update = reply.update
    nxt = state.next_after(me.id).id
    assert update.fresh and set(update.ping) == {nxt, partner.id}
    assert f"<@{partner.id}>: <@{me.id}> co-operated with you" in update.table.content


async def test_a_challenge_post_also_calls_the_next_player_so_its_end_edits_the_table(
    tables: Tables,
) -> None:
    table = await start_crap(tables, threshold=200)
    state = await state_of(tables)
    me = state.current_player
    nxt = state.next_after(me.id)
    target = state.next_after(nxt.id)
    hand = await my_hand(tables, PLAYERS[me.id], table)
    cid = next(c for c in components(hand) if c.startswith("t:crap:target:"))
    reply = await tables.click(
        PLAYERS[me.id], Click.parse(cid, (f"challenge-{target.id}",)), 999, ephemeral=True
    )
    assert reply.update.fresh and set(reply.update.ping) == {target.id, nxt.id}
    assert f"<@{nxt.id}>: your turn comes after this challenge" in reply.update.table.content


async def test_a_timed_out_turn_says_so_on_the_table(db_path: Path | str, clock: Clock) -> None:
    tables = await make_tables(db_path, clock, turn_timer=60)
    try:
        await start_crap(tables, threshold=200)
        absent = (await state_of(tables)).current_player
        clock.now += 61
        reply = await tables.expire(CHANNEL)
        text = reply.update.table.embed.description  # type: ignore[union-attr]
        assert f"› {absent.name} ran out of time" in text, text
    finally:
        await tables.store.close()


def test_the_eye_line_says_whose_turn_it_was_and_drops_a_reveal_a_round_old() -> None:
    rng = random.Random(2)
    state, _ = engine.new_game(seats(3), CrapRules(), rng)
    first = state.current_player
    state, _ = engine.apply(state, first.id, Action(kind="recycle"), rng)
    adapter = CrapTable()

    def eye() -> list[str]:
        session = Session(
            channel_id=1, guild_id=None, kind="crap", lobby=Lobby(starter=1), state=state
        )
        return [
            line for line in adapter.render(session).embed.description.split("\n") if "👁" in line
        ]

    assert eye() == []  # the recycle's own lines show its cards
    mover = state.current_player
    state, _ = engine.apply(state, mover.id, Action(kind="protect", cards=mover.hand[:1]), rng)
    assert eye() and eye()[0].startswith(
        f"👁 2 turns ago ({first.name}'s turn), {first.name}'s recycled hand: "
    ), eye()
    mover = state.current_player
    state, _ = engine.apply(state, mover.id, Action(kind="protect", cards=mover.hand[:1]), rng)
    assert state.current_player.id == first.id and eye() == []  # a round later: no news


def test_the_final_table_shows_no_eye_line_of_a_turn_before_the_last() -> None:
    """Ann recycles; Bob's recycle then empties the deck and the scoring round ends the game.
    The final table's last lines are Bob's recycle (his cards in them): a 👁 line of Ann's
    hand, "Last turn (Ann's)", would name the wrong last turn, so there is none."""
    from games.crap.engine import ScoredSet
    from tests.games.crap_helpers import ANN, BOB, CAT, Table, build, c, four

    state = build(
        {ANN: [c(2, "S")], BOB: [c(3, "S")], CAT: [c(4, "S")]},
        sets={CAT: [ScoredSet(rank=13, cards=four(13))]},
        deck=[c(5, "S"), c(5, "H"), c(6, "S"), c(6, "H"), c(7, "S")],
        rest="discard",
        threshold=100,
    )
    t = Table(state)
    t.do(ANN, "recycle", 3, 3, 1, 1)
    t.do(BOB, "recycle", 3, 3, 2, 2)
    assert t.state.finished and t.state.winners == [CAT], t.state.log
    session = Session(channel_id=1, guild_id=None, kind="crap", lobby=Lobby(starter=1), state=t.state)
    text = CrapTable().render(session).embed.description
    assert "👁" not in text, text
    assert "› Bob recycles, showing 3♠." in text, text


def test_an_acquire_only_bots_may_call_reads_as_sentences() -> None:
    from games.crap.engine import CPlayer, CrapState

    state = CrapState(
        rules=CrapRules(),
        players=[
            CPlayer(id=1, name="Ann", hand=[2]),
            CPlayer(id=1001, name="🤖 Dicey", hand=[3]),
        ],
        deck=list(range(10, 40)),
    )
    state, _ = engine.apply(state, 1, Action(kind="acquire", rank=13, now=100.0), random.Random(1))
    session = Session(channel_id=1, guild_id=None, kind="crap", lobby=Lobby(starter=1), state=state)
    first = CrapTable().render(session).embed.description.split("\n")[0]
    assert "is thinking… It goes through <t:111:R>." in first, first
    assert "…;" not in first, first


async def test_a_let_it_go_reply_claims_nothing_a_press_at_the_same_moment_can_undo(
    tables: Tables,
) -> None:
    """Two players let an Acquire go at the same moment: the first is answered before the
    second closes the window, and the reply is read after. It says what the press did, not
    when the Acquire goes through or how many still have to answer (the table says that)."""
    table = await start_crap(tables, threshold=200)
    caller, opened = await acquire(tables, table)
    first, second = [p for p in PLAYERS.values() if p is not caller]
    nocall = find(opened.table, "nocall")  # type: ignore[attr-defined]
    let_go = await tables.click(first, nocall, 888)
    [ack] = [f for f in let_go.followups if f.ephemeral]
    closing = await tables.click(second, nocall, 888)
    assert (await state_of(tables)).acquire is None  # the second press closed the window
    said = ack.embed.description.split("\n")[0]  # type: ignore[union-attr]
    assert said.startswith(f"You let <@{caller.id}>'s Acquire Kings go"), said
    assert "<t:" not in said and "others" not in said and "unless" not in said, said
    [last] = [f for f in closing.followups if f.ephemeral]
    assert "the Acquire goes through" in last.embed.description, last.embed.description  # type: ignore[union-attr]
