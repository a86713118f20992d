"""Farkle through the table service on a real SQLite file: whole games, a restart in the
middle, refusals that change nothing, turn timers and the Discord limits of every render."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from dataclasses import replace

import pytest

from bot.components import Click
from bot.errors import CorruptSession, NoSession, StaleTable, UserError
from bot.i18n import plain_text, speaking
from bot.service import Actor, Reply, Tables
from bot.session_json import state_json
from bot.tables.farkle import FarkleTable
from games.errors import IllegalMove, LobbyError, NotInGame, NotYourTurn
from games.farkle import engine
from games.farkle.engine import FarkleState
from games.farkle.rules import PRESETS
from games.farkle.scoring import best_selection
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
    make_tables,
    open_game,
    outcome,
    run_sql,
)

PLAYERS = {a.id: a for a in (ALICE, BOB, CAROL)}


async def live(tables: Tables, action: str) -> Click:
    """A press of `action` on the table as it stands now."""
    session = await tables.sessions.get(CHANNEL)
    stamp = tables.adapters["farkle"].stamp(session.state, action, None)
    return Click("farkle", action, CHANNEL, session.game_id, stamp)


async def current(tables: Tables) -> FarkleState:
    session = await tables.sessions.get(CHANNEL)
    return session.state


async def play_move(tables: Tables, reply: Reply, bank_at: int = 300) -> Reply:
    """One sensible move by whoever's turn it is, using only the buttons on the table."""
    state = await current(tables)
    actor = PLAYERS[state.current_player.id]
    labels = {Click.parse(c).action: d for c, (_, d) in buttons(reply).items()}
    turn = state.turn
    if "toggle" in labels and not turn.selected:
        best = best_selection(turn.dice, state.rules, turn.extended)
        for i in best:
            reply = await tables.click(actor, find(reply, "toggle", f"{i}-on"), 555)
            check_limits(reply)
        labels = {Click.parse(c).action: d for c, (_, d) in buttons(reply).items()}
    if "bank" in labels and not labels["bank"] and turn.total >= bank_at:
        return await tables.click(actor, find(reply, "bank"), 555)
    if "piggy" in labels:
        return await tables.click(actor, find(reply, "piggy"), 555)
    return await tables.click(actor, find(reply, "roll"), 555)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["crappy-malappy", "classic", "on-the-table"])
async def test_full_game_to_a_winner(tables: Tables, preset: str) -> None:
    target = {"crappy-malappy": 3000, "classic": 3000, "on-the-table": 5000}[preset]
    reply = await open_game(tables, ALICE, BOB, CAROL, rules=preset, target=target)
    for _ in range(3000):
        check_limits(reply)
        if await tables.sessions.get(CHANNEL) is None:
            break
        reply = await play_move(tables, reply)
    assert await tables.store.load_session(CHANNEL) is None
    (record,) = await tables.store.finished_games(CHANNEL)
    assert record["kind"] == "farkle" and record["rules"]["name"]
    winner = record["winner_id"]
    assert winner in PLAYERS
    scores = record["scores"]
    assert scores[str(winner)] == max(scores.values())
    assert [label for label, _ in buttons(reply).values()] == ["Rematch"]
    assert find(reply, "rematch").arg == str(record["id"])
    assert f"<@{winner}>" in reply.content
    # What to do next, then the game's seed revealed (bot/sealed.py).
    what_next, seed = reply.embed.footer.text.rsplit("\n", 1)
    assert what_next.endswith("Rematch below, or /farkle start for a new game")
    assert seed.startswith("🔓 Seed ") and seed.endswith(f"/verify {record['id']}")


async def test_restart_mid_game_continues(db_path, clock: Clock) -> None:
    first = await make_tables(db_path, clock, seed=3)
    reply = await open_game(first, ALICE, BOB)
    for _ in range(7):
        reply = await play_move(first, reply)
    before = await first.sessions.get(CHANNEL)
    saved = before.state.model_dump()
    revision = before.revision
    await first.store.close()  # the old process is gone; only the file remains

    second = await make_tables(db_path, clock, seed=4)
    after = await second.sessions.get(CHANNEL)
    assert after.revision == revision and after.state.model_dump() == saved
    # The buttons of the message already in the channel still work.
    reply = await play_move(second, reply)
    moved = await second.sessions.get(CHANNEL)
    assert moved.revision > revision and moved.state.model_dump() != saved
    assert (await second.store.load_session(CHANNEL)).revision == moved.revision
    await second.store.close()


async def test_refusals_change_nothing(tables: Tables) -> None:
    reply = await open_game(tables, ALICE, BOB)
    state = await current(tables)
    mover = PLAYERS[state.current_player.id]
    other = BOB if mover is ALICE else ALICE
    roll = find(reply, "roll")
    snapshot = (
        (await tables.store.load_session(CHANNEL)).data,
        (await tables.sessions.get(CHANNEL)).revision,
    )

    async def unchanged() -> None:
        row = await tables.store.load_session(CHANNEL)
        assert (row.data, row.revision) == snapshot

    with pytest.raises(NotYourTurn, match="not your turn"):
        await tables.click(other, roll, 555)
    await unchanged()
    with pytest.raises(NotInGame, match="not in this game"):
        await tables.click(MALLORY, roll, 555)
    await unchanged()
    with pytest.raises(IllegalMove):
        await tables.click(mover, replace(roll, action="bank"), 555)
    await unchanged()
    with pytest.raises(IllegalMove):
        await tables.click(mover, replace(roll, action="nonsense"), 555)
    await unchanged()
    with pytest.raises(UserError, match="game that is over"):
        await tables.click(mover, replace(roll, game=roll.game + 1), 555)  # an earlier game's
    await unchanged()
    reply = await tables.click(mover, roll, 555)  # accepted
    # The throw it answered is over, but the other player could never have rolled: the
    # refusal says so rather than "that moment has passed".
    with pytest.raises(NotYourTurn, match=f"It's not your turn: it's {mover.name}'s."):
        await tables.click(other, roll, 555)
    # The mover's press of that throw's Bank on the table itself (edited in place since):
    # no newer message to point at.
    with pytest.raises(StaleTable, match="the table changed as you pressed") as stale:
        await tables.click(mover, replace(roll, action="bank"), 555)
    assert "latest table message" not in str(stale.value)
    with pytest.raises(StaleTable, match="That table is old: the live one is below"):
        await tables.click(mover, replace(roll, action="bank"), 554)  # an older message
    with pytest.raises(IllegalMove, match="not on the table"):
        await tables.click(mover, replace(find(reply, "roll"), action="toggle", arg="9-on"), 555)
    with pytest.raises(NoSession):
        await tables.click(mover, replace(roll, channel_id=CHANNEL + 5), 555)


async def test_corrupt_row_is_refused_and_admin_can_clear_it(tables: Tables) -> None:
    reply = await open_game(tables, ALICE, BOB)
    await run_sql(
        tables.store, "UPDATE sessions SET data = '{\"lobby\": 7' WHERE channel_id = ?", CHANNEL
    )
    tables.sessions._cache.clear()
    with pytest.raises(CorruptSession, match="damaged"):
        await tables.click(ALICE, find(reply, "roll"), 555)
    with pytest.raises(CorruptSession, match="unreadable data"):
        await tables.open_lobby(BOB, 1000, CHANNEL, "farkle", {})
    with pytest.raises(UserError, match="a server manager can use /farkle end"):
        await tables.end(ALICE, CHANNEL, "farkle")
    done = await tables.end(ADMIN, CHANNEL, "farkle")
    assert "cleared" in done.content
    assert await tables.store.load_session(CHANNEL) is None


async def test_end_and_leave(tables: Tables) -> None:
    await open_game(tables, ALICE, BOB, CAROL)
    with pytest.raises(UserError, match="Only the host of this game"):
        await tables.end(BOB, CHANNEL, "farkle")
    reply = await tables.leave(BOB, CHANNEL, "farkle")
    assert "left" in reply.content and reply.table is not None and reply.table_message_id == 555
    assert BOB.id not in [p.id for p in (await current(tables)).players]
    with pytest.raises(NotInGame):
        await tables.leave(BOB, CHANNEL, "farkle")
    reply = await tables.end(ALICE, CHANNEL, "farkle")
    assert "ended" in reply.content
    assert reply.table.embed.description == "**Game ended early by Alice.**"
    what_next, seed = reply.table.embed.footer.text.split("\n")
    assert what_next == "Rematch below, or /farkle start for a new game"
    assert seed.startswith("🔓 Seed ")
    (record,) = await tables.store.finished_games(CHANNEL)
    assert record["winner_id"] is None and outcome(record).startswith("Ended early")
    (rematch,) = reply.table.items  # the only button left
    assert Click.parse(rematch.custom_id).action == "rematch"
    assert Click.parse(rematch.custom_id).arg == str(record["id"])


async def test_a_game_players_left_ends_with_no_winner(tables: Tables) -> None:
    """The issue's example: Alice leaves on the first turn; Bob does not "win with 0"."""
    await open_game(tables, ALICE, BOB)
    reply = await tables.leave(ALICE, CHANNEL, "farkle")
    (record,) = await tables.store.finished_games(CHANNEL)
    assert record["winner_id"] is None
    assert outcome(record) == "Nobody wins: Alice left."
    table = reply.table
    assert table.embed.description == "**Game over:** Alice left, so nobody wins."
    # No trophy; the one left at the table is told the game is over (a fresh post pings).
    assert table.content == f"<@{BOB.id}>: the game is over."
    assert reply.update is not None and reply.update.fresh and reply.update.ping == (BOB.id,)
    assert "🏆" not in table.embed.description
    assert "/farkle leave" not in table.embed.footer.text
    assert [label for label, _ in buttons(Reply.of_table(table)).values()] == ["Rematch"]


async def test_turn_timer_plays_safe_move_and_removes_after_three(
    tables: Tables, clock: Clock
) -> None:
    await open_game(tables, ALICE, BOB, CAROL)
    session = await tables.sessions.get(CHANNEL)
    assert session.deadline == clock.now + 120
    assert await tables.expire(CHANNEL) is None  # not due yet
    sleeper = session.state.current_player.id
    for _ in range(3):
        # Everyone else plays; the sleeper lets the clock run out each time.
        while (await current(tables)).current_player.id != sleeper:
            clock.now += 1
            s = await current(tables)
            actor = PLAYERS[s.current_player.id]
            await tables.click(actor, await live(tables, "roll"), 555)
            s = await current(tables)
            if s.current_player.id == actor.id:  # did not farkle: end the turn by timing out
                clock.now += 121
                await tables.expire(CHANNEL)
        clock.now += 121
        reply = await tables.expire(CHANNEL)
        log = (await current(tables)).log
        assert reply is not None and any("ran out of time" in str(line) for line in log[-3:]), log
    state = await current(tables)
    assert sleeper not in [p.id for p in state.players]
    assert "out of the game" in " ".join(map(str, state.log))


async def test_timer_off_sets_no_deadline(db_path, clock: Clock) -> None:
    tables = await make_tables(db_path, clock, turn_timer=0)
    await open_game(tables, ALICE, BOB)
    assert (await tables.sessions.get(CHANNEL)).deadline is None
    await tables.store.close()


async def test_deadline_survives_restart(db_path, clock: Clock) -> None:
    first = await make_tables(db_path, clock)
    await open_game(first, ALICE, BOB)
    await first.store.close()
    second = await make_tables(db_path, clock)
    assert await second.store.next_deadline() == clock.now + 120
    clock.now += 200
    assert await second.store.due_sessions(clock.now) == [CHANNEL]
    assert await second.expire(CHANNEL) is not None
    await second.store.close()


async def test_concurrent_clicks_apply_once(tables: Tables) -> None:
    """Twenty presses of Roll at once by the player: one throw; the other nineteen (a player
    hammering the button) are answered with the table, not refused."""
    import asyncio

    reply = await open_game(tables, ALICE, BOB)
    mover = PLAYERS[(await current(tables)).current_player.id]
    before = (await tables.sessions.get(CHANNEL)).revision
    roll = find(reply, "roll")
    results = await asyncio.gather(
        *(tables.click(mover, roll, 555) for _ in range(20)), return_exceptions=True
    )
    assert all(isinstance(r, Reply) and r.update is not None for r in results), results
    assert (await current(tables)).turn.throws == 1
    assert (await tables.sessions.get(CHANNEL)).revision == before + 1


async def test_two_dice_tapped_at_once_both_count(tables: Tables) -> None:
    """Taps on two dice of one throw, and a double tap of one of them, all count: each die
    button asks for a state (selected), so repeating it changes nothing more."""
    import asyncio

    reply = await open_game(tables, ALICE, BOB)
    mover = PLAYERS[(await current(tables)).current_player.id]
    reply = await tables.click(mover, find(reply, "roll"), 555)
    taps = [
        find(reply, "toggle", "0-on"),
        find(reply, "toggle", "1-on"),
        find(reply, "toggle", "1-on"),
    ]
    results = await asyncio.gather(*(tables.click(mover, t, 555) for t in taps))
    assert all(isinstance(r, Reply) for r in results)
    assert (await current(tables)).turn.selected == [0, 1]
    off = find(results[-1], "toggle", "1-off")
    await tables.click(mover, off, 555)
    assert (await current(tables)).turn.selected == [0]


async def test_state_json_in_store_round_trips(tables: Tables) -> None:
    await open_game(tables, ALICE, BOB)
    row = await tables.store.load_session(CHANNEL)
    data = json.loads(row.data)
    assert FarkleState.model_validate(data["state"]) == await current(tables)


async def test_the_saved_state_is_the_states_own_json_with_its_log_lines_written_once(
    tables: Tables,
) -> None:
    """The row's state is pydantic's JSON of the state (its history aside): the log lines,
    written once each and reused while they stay in the window, included, whatever they
    hold (a name beyond ASCII, a line of plain text from a game saved before messages)."""
    await open_game(tables, Actor(id=ALICE.id, name="Zoë \"Ω\" <x>"), BOB)
    await tables.click(ALICE, await live(tables, "roll"), 555)
    session = tables.sessions.cached(CHANNEL)
    assert session is not None and session.state.log
    state = session.state.model_copy(update={"log": [*session.state.log, "plain \u00e9 line"]})
    expected = json.loads(state.model_dump_json(exclude={"history"}))
    for _ in range(2):  # written, then from the lines already written
        work = session.working(state=state)
        assert json.loads(state_json(work)) == expected
    assert FarkleState.model_validate({**expected, "history": []}).log == state.log
    # To the byte: the rules (written once per rule set) first, the log last.
    head = state.model_dump_json(exclude={"history", "log"})
    log = state.model_dump_json(include={"log"})
    assert state_json(session.working(state=state)) == f"{head[:-1]},{log[1:]}"
    assert state_json(work).startswith('{"rules":' + state.rules.model_dump_json() + ',"players"')


async def test_status_posts_the_table_and_rules_are_private(tables: Tables) -> None:
    await open_game(tables, ALICE, BOB, rules="classic")
    status = await tables.status(CHANNEL, "farkle")  # the live table, posted afresh
    assert not status.ephemeral and status.update is not None and status.update.fresh
    assert {Click.parse(c).action for c in buttons(status)} >= {"roll"}
    rules = await tables.rules(1000, CHANNEL, "farkle", None)
    assert rules.ephemeral and "Classic" in rules.embed.title
    text = " ".join(f.value for f in rules.embed.fields)
    assert "350" in text and "1,000" in text and "3 throws" in text  # numbers as English writes them


async def test_actor_name_is_what_the_table_shows(tables: Tables) -> None:
    reply = await tables.open_lobby(Actor(id=5, name="Zed"), 1000, CHANNEL, "farkle", {})
    assert "<@5>" in reply.embed.fields[0].value


async def test_crappy_malappy_seats_25_players_within_discords_limits(tables: Tables) -> None:
    """ "There is no limit to the number of players": a Crappy Malappy table takes 25 (what
    one Discord table shows); the lobby and the table with 25 long names and big scores stay
    within Discord's limits, with every player shown."""
    crowd = [Actor(id=10**18 + 7 * i, name=f"Player{i:02d}" + "x" * 24) for i in range(26)]
    reply = await tables.open_lobby(crowd[0], GUILD, CHANNEL, "farkle", {"rules": "crappy-malappy"})
    await tables.table_posted(CHANNEL, 555)
    for p in crowd[1:25]:
        reply = await tables.click(p, find(reply, "join"), 555)
        check_limits(reply)
    session = await tables.sessions.get(CHANNEL)
    assert len(session.lobby.players) == 25 and session.lobby.max_players == 25
    assert "25/25" in reply.embed.fields[0].name
    assert all(f"<@{p.id}>" in reply.embed.fields[0].value for p in crowd[:25])
    with pytest.raises(LobbyError, match="full"):
        await tables.click(crowd[25], find(reply, "join"), 555)
    reply = await tables.click(crowd[0], find(reply, "start"), 555)
    check_limits(reply)
    session = await tables.sessions.get(CHANNEL)
    state: FarkleState = session.state
    assert len(state.players) == 25
    # The biggest rows a Scores field can have: long scores, crappys, crappy malappys, final
    # turns for everyone, and players who left.
    for p in state.players:
        p.score, p.farkles, p.malappys = -123456, 6, 1
    state.final_turns = [p.id for p in state.players]
    rendered = tables.adapters["farkle"].render(session)
    check_limits(rendered)
    scores = "\n".join(f.value for f in rendered.embed.fields if f.name.startswith("Scores"))
    assert all(f"<@{p.id}>" in scores for p in state.players)
    state.departed, state.players = state.players[2:], state.players[:2]
    state.current = 0
    rendered = tables.adapters["farkle"].render(session)
    check_limits(rendered)
    scores = "\n".join(f.value for f in rendered.embed.fields if f.name.startswith("Scores"))
    assert all(f"<@{p.id}>" in scores for p in state.players + state.departed)


async def test_other_rule_sets_keep_ten_players(tables: Tables) -> None:
    crowd = [Actor(id=500 + i, name=f"P{i}") for i in range(11)]
    reply = await tables.open_lobby(crowd[0], GUILD, CHANNEL, "farkle", {"rules": "classic"})
    for p in crowd[1:10]:
        reply = await tables.click(p, find(reply, "join"), 555)
    assert "10/10" in reply.embed.fields[0].name
    with pytest.raises(LobbyError, match="full"):
        await tables.click(crowd[10], find(reply, "join"), 555)


async def test_no_two_buttons_do_the_same_thing_and_labels_fit_a_phone(tables: Tables) -> None:
    """Keep N & roll / Keep N & bank sit beside Set aside & roll / Bank only while the
    selection is not already the best keep; every label stays short enough for a phone."""
    reply = await open_game(tables, ALICE, BOB)
    for _ in range(20):  # a throw that scores (a farkle passes the turn: roll again)
        mover = PLAYERS[(await current(tables)).current_player.id]
        reply = await tables.click(mover, await live(tables, "roll"), 555)
        state = await current(tables)
        if state.turn.dice and state.current_player.id == mover.id:
            break
    else:
        raise AssertionError("no scoring throw in 20 turns")

    def labels(reply: Reply) -> dict[str, list[str]]:
        shown: dict[str, list[str]] = {}
        for item in reply.table.items:
            shown.setdefault(Click.parse(item.custom_id).action, []).append(item.label)
        assert all(len(label) <= 25 for names in shown.values() for label in names), shown
        return shown

    shown = labels(reply)
    assert shown["bestroll"][0].startswith("Keep ")
    # With nothing selected the table names the Keep buttons it has, and the greyed roll
    # button says why it cannot roll rather than offering "Set aside & roll 6".
    text = reply.table.embed.description
    assert f"press **{shown['bestroll'][0]}**" in text and "to keep the best" in text, text
    if "bestbank" in shown:
        assert f"or **{shown['bestbank'][0]}**" in text
    (roll,) = [i for i in reply.table.items if Click.parse(i.custom_id).action == "roll"]
    assert roll.label == "Tap dice to set aside" and roll.disabled
    best = best_selection(state.turn.dice, state.rules, state.turn.extended)
    for i in best:
        reply = await tables.click(mover, find(reply, "toggle", f"{i}-on"), 555)
    shown = labels(reply)
    assert "bestroll" not in shown and "bestbank" not in shown, shown
    assert shown["roll"][0].startswith("Set aside & roll") and shown["bank"][0].startswith("Bank")
    # Change the selection: the Keep buttons are back.
    reply = await tables.click(mover, find(reply, "toggle", f"{best[0]}-off"), 555)
    assert "bestroll" in labels(reply)


async def test_keep_and_bank_names_the_total_the_log_banks(tables: Tables) -> None:
    """"Keep 200 & bank 400": the second number is the turn total the press banks, the
    number the log then shows ("banks 400"), not only the dice kept now."""
    reply = await open_game(tables, ALICE, BOB)
    for _ in range(60):
        state = await current(tables)
        mover = PLAYERS[state.current_player.id]
        shown = {Click.parse(i.custom_id).action: i for i in reply.table.items}
        if "bestbank" in shown and state.turn.total > 0:
            label = shown["bestbank"].label
            kept = int(label.split()[1].replace(",", ""))
            banked = int(label.split()[-1].replace(",", ""))
            assert banked == state.turn.total + kept, label
            reply = await tables.click(mover, find(reply, "bestbank"), 555)
            log = next(f.value for f in reply.table.embed.fields if f.name == "Last moves")
            assert f"banks {banked:,}" in log, (label, log)
            return
        action = "bestroll" if "bestroll" in shown else "roll"
        reply = await tables.click(mover, find(reply, action), 555)
    raise AssertionError("no turn could keep and bank after a first keep in 60 presses")


def test_who_the_game_waits_on_is_the_same_with_or_without_what_for() -> None:
    """`waiting_ids` (asked by every commit) names whom `waiting_on` names, in its order:
    the roller while the game runs, nobody once it is over."""
    import random as _random

    from bot.tables.farkle_play import FarklePlay
    from games.farkle import engine
    from games.farkle.rules import PRESETS
    from games.lobby import Seat

    play = FarklePlay()
    rng = _random.Random(4)
    seats = [Seat(id=1, name="Ann"), Seat(id=2, name="Bob")]
    state, _ = engine.new_game(seats, PRESETS["classic"], rng)
    seen = set()
    while state.turn_number < 5:
        roller = state.current_player.id
        assert play.waiting_ids(state) == list(play.waiting_on(state)) == [roller]
        seen.add(roller)
        legal = engine.legal_actions(state, roller)
        kind = "bank" if "bank" in legal else "roll"
        best = bool(state.turn.dice) and engine.best_keep(state) is not None
        state, _ = engine.apply(state, roller, engine.Action(kind=kind, best=best), rng)
    assert seen == {1, 2}
    state = engine.remove_player(state, 2)[0]
    assert state.finished and play.waiting_ids(state) == list(play.waiting_on(state)) == []


def _changes(state: FarkleState) -> Iterator[None]:
    """Change what the scores show, one thing at a time."""
    for attribute, value in (("score", 1500), ("on_table", True), ("farkles", 2), ("malappys", 1)):
        setattr(state.players[len(state.players) - 1], attribute, value)
        yield
    state.current = (state.current + 1) % len(state.players)
    yield
    state.departed.append(state.players.pop())
    yield
    state.finished = True
    yield


def test_the_scores_written_once_are_what_they_show_now() -> None:
    """The scores' fields are kept by what they show (`FarkleTable._scores`): every change
    a row shows, whose turn it is, the language and markdown give the fields written afresh,
    never ones kept from before."""
    adapter = FarkleTable()
    seats = [Seat(id=11, name="Ann"), Seat(id=12, name="Ben"), Seat(id=13, name="Cy")]
    for preset in ("classic", "on-the-table", "crappy-malappy"):
        state = engine.new_game(seats, PRESETS[preset], random.Random(1))[0]
        shown: set[tuple[str, ...]] = set()
        for _ in itertools.chain([None], _changes(state)):
            for language in ("en", "de", "pl"):
                with speaking(language):
                    fields = adapter._scores(state)
                    assert fields == tuple(adapter._score_rows(state))
                    shown.add(fields)
                    with plain_text():
                        assert adapter._scores(state) == tuple(adapter._score_rows(state))
        assert len(shown) >= 3 * 5  # (a farkle or a malappy shows only where it counts)
