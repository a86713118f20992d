"""Races and refusals: twenty presses of one button at once apply once; stale, foreign,
forged and bystanders' presses are refused privately and change nothing, and the bot goes
on answering."""

from __future__ import annotations

import copy
import json
import random
import string
from typing import Any

from games.farkle import engine
from games.farkle.engine import Action, FarkleState
from tests.e2e.fake_discord import FakeMessage, InteractionRecord, button_row
from tests.e2e.farkle_play import open_game, player, read_table, revision_of
from tests.e2e.harness import ALICE, BOB, CAROL, LOUNGE, MALLORY, TABLE, Driver, FakeUser

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
    assert d.bot is not None
    await open_game(d, TABLE, PLAYERS)

    for action in ("roll", "toggle"):
        view = read_table(d.table(TABLE))
        who = player(PLAYERS, view.current)
        button = view.roll if action == "roll" else view.dice[0].button
        assert button is not None
        before = d.stored(TABLE)
        assert before is not None
        dice = random.Random()
        dice.setstate(d.bot.rng.getstate())  # the dice the one roll will throw

        presses = [
            d.prepare_click(who, TABLE, custom_id=button["custom_id"], message=view.message)
            for _ in range(20)
        ]
        await d.dispatch_all(presses)

        updates = [r for r in presses if r.callback_type == 7]
        refusals = [r for r in presses if r.callback_type != 7]
        assert len(updates) == 1 and len(refusals) == 19
        assert updates[0].message is view.message
        for r in refusals:
            only_for(d, r, who)
            assert "This table has moved on" in r.text
        after = d.stored(TABLE)
        assert after is not None and after["revision"] == before["revision"] + 1
        move = Action(kind="roll") if action == "roll" else Action(kind="toggle", index=0)
        expected, _ = engine.apply(farkle_state(before), who.id, move, dice)
        assert farkle_state(after) == expected  # one move: a toggle twice would undo itself
        assert revision_of(d.table(TABLE)) == after["revision"]

    assert read_table(d.table(TABLE)).dice[0].selected


async def test_stale_foreign_and_forged_presses_change_nothing(d: Driver) -> None:
    lounge = await open_game(d, LOUNGE, PLAYERS)  # a live game next door, for forgeries
    table = await open_game(d, TABLE, PLAYERS)
    first = read_table(table)
    stale = copy.deepcopy(table.components)  # the table before the roll
    assert first.roll is not None
    old_roll = first.roll["custom_id"]
    await d.click(player(PLAYERS, first.current), TABLE, custom_id=old_roll)

    view = read_table(table)
    who = player(PLAYERS, view.current)
    waiting = next(p for p in PLAYERS if p != who)
    rev = revision_of(table)
    die = view.dice[0].button["custom_id"]
    next_door = read_table(lounge)
    assert next_door.roll is not None
    noise = "".join(random.Random(7).choices(string.printable + "éß漢🎲", k=100))

    def planted(custom_id: str) -> FakeMessage:
        return d.fake.add_message(
            TABLE, content="an old message", components=[button_row(("Roll", custom_id))]
        )

    # (what, who presses, the message and the custom_id pressed, what they are told). Discord
    # sends clicks only on buttons a message has: old and forged ones are planted messages.
    cases: list[tuple[str, FakeUser, FakeMessage, str, str]] = [
        ("stale: an old table message", who, d.fake.add_message(TABLE, content="", embeds=table.embeds, components=stale), old_roll, "moved on"),
        ("stale: a revision from the future", who, planted(f"t:farkle:roll:{TABLE}:{rev + 5}"), f"t:farkle:roll:{TABLE}:{rev + 5}", "moved on"),
        ("a bystander", MALLORY, table, die, "You are not in this game"),
        ("a player out of turn", waiting, table, die, "It's not your turn"),
        ("next door's live button planted here", player(PLAYERS, next_door.current), planted(next_door.roll["custom_id"]), next_door.roll["custom_id"], "another channel"),
        ("garbage", who, planted("garbage"), "garbage", "not one I recognise"),
        ("100 chars of noise", who, planted(noise), noise, "not one I recognise"),
        ("a valid prefix, 100 chars", who, planted(f"t:farkle:roll:{TABLE}:{rev}:".ljust(100, "x")), f"t:farkle:roll:{TABLE}:{rev}:".ljust(100, "x"), "not one I recognise"),
        ("a game that does not exist", who, planted(f"t:nosuchgame:roll:{TABLE}:{rev}"), f"t:nosuchgame:roll:{TABLE}:{rev}", "not one I recognise"),
        ("an action Farkle does not have", who, planted(f"t:farkle:explode:{TABLE}:{rev}"), f"t:farkle:explode:{TABLE}:{rev}", "does not belong to Farkle"),
        ("a die that is not there", who, planted(f"t:farkle:toggle:{TABLE}:{rev}:9"), f"t:farkle:toggle:{TABLE}:{rev}:9", "not on the table"),
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

    # Still answering: the right press on the live table moves the game on.
    moved = await d.click(who, TABLE, custom_id=die, message=table)
    assert moved.callback_type == 7 and moved.message is table
    after = d.stored(TABLE)
    assert after is not None and after["revision"] == rev + 1
    assert read_table(table).dice[0].selected
