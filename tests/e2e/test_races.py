"""Races and refusals: twenty presses of one button at once apply once; stale, foreign,
forged and bystanders' presses are refused privately and change nothing, and the bot goes
on answering."""

from __future__ import annotations

import copy
import json
import random
import string
from typing import Any

from bot.tables.farkle import FarkleTable
from games.draws import Draws
from games.farkle import engine
from games.farkle.engine import Action, FarkleState
from games.gamelog import take_log
from tests.e2e.fake_discord import MESSAGE_COMPONENT, FakeMessage, InteractionRecord, button_row
from tests.e2e.farkle_play import open_game, player, read_table, stamp_of
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    LOUNGE,
    MALLORY,
    TABLE,
    Driver,
    FakeUser,
)

PLAYERS = [ALICE, BOB]
EVERYONE = [ALICE, BOB, CAROL, MALLORY]


def farkle_state(row: dict[str, Any] | None) -> FarkleState:
    assert row is not None
    return FarkleState.model_validate(json.loads(row["data"])["state"])


def only_for(d: Driver, rec: InteractionRecord, clicker: FakeUser) -> None:
    """The answer is an ephemeral message that the clicker, and nobody else, sees."""
    assert rec.callback_type == 4 and rec.ephemeral, (rec.callback_type, rec.text)
    assert rec.message in d.visible(clicker, rec.channel_id)
    for other in EVERYONE:
        if other != clicker:
            assert rec.message not in d.visible(other, rec.channel_id)


async def test_twenty_presses_at_once_apply_once(d: Driver) -> None:
    """Twenty presses of Roll: one roll, the other nineteen are the same player's repeated
    taps of the button that just moved the game on, answered with the table, not refused.
    Twenty presses of "select die 0": die 0 is selected once (the tap asks for a state)."""
    assert d.bot is not None
    await open_game(d, TABLE, PLAYERS)

    for action in ("roll", "toggle"):
        view = read_table(d.table(TABLE))
        who = player(PLAYERS, view.current)
        button = view.roll if action == "roll" else view.dice[0].button
        assert button is not None
        if action == "toggle":
            assert not view.dice[0].selected and button["custom_id"].endswith(":0-on")
        before = d.stored(TABLE)
        assert before is not None
        # The dice the one roll will throw: the game's sealed draws, where the stored row says
        # its stream stands (the row keeps the seed and the position; the record is beside it).
        head = json.loads(before["data"])["draws"]
        dice = Draws(bytes.fromhex(head["seed"]), head["at"])

        presses = [
            d.prepare_click(who, TABLE, custom_id=button["custom_id"], message=view.message)
            for _ in range(20)
        ]
        await d.dispatch_all(presses)

        # Every press is answered on the table: an update showing it (type 7), or, when a
        # newer answer already shows more, an acknowledgement (type 6); none is refused.
        assert all(r.callback_type in (6, 7) and not r.followups for r in presses), [
            (r.callback_type, r.text) for r in presses
        ]
        assert all(r.message is view.message for r in presses)
        assert any(r.callback_type == 7 for r in presses)
        assert [m for m in d.visible(who, TABLE) if m.ephemeral] == []
        # The same player goes on: the table was edited in place, nothing posted below it.
        assert d.table(TABLE) is view.message
        after = d.stored(TABLE)
        assert after is not None and after["revision"] == before["revision"] + 1
        move = Action(kind="roll") if action == "roll" else Action(kind="toggle", index=0)
        # (The move's log lines are stored beside the state, not in it: games.gamelog.)
        expected = take_log(engine.apply(farkle_state(before), who.id, move, dice)[0])[0]
        assert farkle_state(after) == expected  # one move: a toggle twice would undo itself
        # The table shows the state committed: the decision it answers, and its dice.
        shown = read_table(view.message)
        assert stamp_of(view.message)[1] == FarkleTable().stamp(expected, "roll", None)
        assert [(d_.face, d_.selected) for d_ in shown.dice] == [
            (f, i in expected.turn.selected) for i, f in enumerate(expected.turn.dice)
        ]

    assert read_table(d.table(TABLE)).dice[0].selected


async def test_stale_foreign_and_forged_presses_change_nothing(d: Driver) -> None:
    lounge = await open_game(d, LOUNGE, PLAYERS)  # a live game next door, for forgeries
    table = await open_game(d, TABLE, PLAYERS)
    first = read_table(table)
    stale = copy.deepcopy(table.components)  # the table before the roll
    assert first.roll is not None
    old_roll = first.roll["custom_id"]
    game, old_stamp = stamp_of(table)
    rolled = await d.click(player(PLAYERS, first.current), TABLE, custom_id=old_roll)
    assert d.on_table(rolled, table) is table  # the same player goes on: edited in place

    view = read_table(table)
    who = player(PLAYERS, view.current)
    waiting = next(p for p in PLAYERS if p != who)
    rev = d.stored(TABLE)["revision"]  # type: ignore[index]
    same_game, stamp = stamp_of(table)
    assert same_game == game and stamp != old_stamp  # the roll opened a new decision
    die = view.dice[0].button["custom_id"]
    assert die == f"t:farkle:toggle:{TABLE}:{game}:{stamp}:0-on"
    next_door = read_table(lounge)
    assert next_door.roll is not None
    noise = "".join(random.Random(7).choices(string.printable + "éß漢🎲", k=100))

    def planted(custom_id: str) -> FakeMessage:
        return d.fake.add_message(
            TABLE, content="an old message", components=[button_row(("Roll", custom_id))]
        )

    def roll(game: int, stamp: int) -> str:
        return f"t:farkle:roll:{TABLE}:{game}:{stamp}"

    # (what, who presses, the message and the custom_id pressed, what they are told). Discord
    # sends clicks only on buttons a message has: old and forged ones are planted messages.
    # (The roller's own second press of the old Roll is a double tap, answered with the
    # table: see test_twenty_presses_at_once_apply_once. The other player's is stale.)
    before_roll = d.fake.add_message(TABLE, content="", embeds=table.embeds, components=stale)
    cases: list[tuple[str, FakeUser, FakeMessage, str, str]] = [
        # Someone who could not have rolled anyway is told why, not that the moment passed.
        ("stale: an old table message", waiting, before_roll, old_roll, f"It's not your turn: it's {who.name}'s."),
        ("stale: a decision before the last", who, planted(roll(game, old_stamp - 1)), roll(game, old_stamp - 1), "That table is old: the live one is below"),
        ("stale: a stamp from the future", who, planted(roll(game, stamp + 5)), roll(game, stamp + 5), "That table is old: the live one is below"),
        ("an earlier game in this channel", who, planted(roll(game - 1, stamp)), roll(game - 1, stamp), "belongs to a game that is over"),
        ("a table drawn by an older version", who, planted(f"t:farkle:roll:{TABLE}:{rev}"), f"t:farkle:roll:{TABLE}:{rev}", "drawn by an older version"),
        # An older version's die reads as a button of another game (game <rev>, stamp 0).
        ("an older version's die", who, planted(f"t:farkle:toggle:{TABLE}:{rev}:0"), f"t:farkle:toggle:{TABLE}:{rev}:0", "belongs to a game that is over"),
        ("a bystander", MALLORY, table, die, "You are not in this game"),
        ("a player out of turn", waiting, table, die, "It's not your turn"),
        ("next door's live button planted here", player(PLAYERS, next_door.current), planted(next_door.roll["custom_id"]), next_door.roll["custom_id"], "another channel"),
        ("garbage", who, planted("garbage"), "garbage", "not one I recognise"),
        ("100 chars of noise", who, planted(noise), noise, "not one I recognise"),
        ("a valid prefix, 100 chars", who, planted(f"{roll(game, stamp)}:".ljust(100, "x")), f"{roll(game, stamp)}:".ljust(100, "x"), "not one I recognise"),
        ("a game that does not exist", who, planted(f"t:nosuchgame:roll:{TABLE}:{game}:{stamp}"), f"t:nosuchgame:roll:{TABLE}:{game}:{stamp}", "not one I recognise"),
        ("an action Farkle does not have", who, planted(f"t:farkle:explode:{TABLE}:{game}:{stamp}"), f"t:farkle:explode:{TABLE}:{game}:{stamp}", "does not belong to Farkle"),
        ("a die that is not there", who, planted(f"t:farkle:toggle:{TABLE}:{game}:{stamp}:9-on"), f"t:farkle:toggle:{TABLE}:{game}:{stamp}:9-on", "not on the table"),
    ]  # fmt: skip
    assert len(noise) == 100

    for what, clicker, message, custom_id, says in cases:
        rows = d.stored(TABLE), d.stored(LOUNGE)
        shown = [(m.text(), copy.deepcopy(m.components), m.edits) for m in (table, lounge)]
        rec = await d.click(clicker, TABLE, custom_id=custom_id, message=message)
        only_for(d, rec, clicker)
        assert says in rec.text, (what, rec.text)
        assert (d.stored(TABLE), d.stored(LOUNGE)) == rows, what
        assert [(m.text(), m.components, m.edits) for m in (table, lounge)] == shown, what
        assert d.table(TABLE) is table and d.table(LOUNGE) is lounge, what

    # The live table itself, pressed from a client that still showed an earlier decision on
    # it (it was edited in place since): there is no newer message to point at.
    rows = d.stored(TABLE)
    data = {"custom_id": roll(game, old_stamp - 1), "component_type": 2, "id": 1}
    rec = await d.dispatch(d.fake.interaction_payload(MESSAGE_COMPONENT, who, TABLE, data, table))
    only_for(d, rec, who)
    assert "the table changed as you pressed" in rec.text and "latest" not in rec.text
    assert d.stored(TABLE) == rows and d.table(TABLE) is table

    # Still answering: the right press on the live table moves the game on.
    moved = await d.click(who, TABLE, custom_id=die, message=table)
    assert d.on_table(moved, table) is table
    buttons = [(b["label"], b["custom_id"]) for b in table.buttons()]
    after = d.stored(TABLE)
    assert after is not None and after["revision"] == rev + 1
    assert read_table(table).dice[0].selected

    # The roller's own second tap of the Roll that moved the game on, from a client still
    # showing an older table message: a private pointer to the live table, which is not
    # posted again (an identical table below the live one would only be noise).
    last = d.last_message(TABLE)
    again = await d.click(who, TABLE, custom_id=old_roll, message=before_roll)
    only_for(d, again, who)
    assert "That table is old: the live one is below" in again.text
    assert d.table(TABLE) is table and d.last_message(TABLE) is last  # nothing posted
    assert d.stored(TABLE) == after  # nothing changed
    assert [(b["label"], b["custom_id"]) for b in table.buttons()] == buttons
