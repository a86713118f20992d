"""Forged clicks on another user's private reply. No real client can press a button of an
ephemeral it never received, but anyone can send the click: the bot must never answer it by
rewriting that message (callback type 7) with the clicker's hand or dice. Discord sends the
clicked message with its `interaction_metadata`, whose `user` is whom the ephemeral was for;
the clicker gets a fresh private reply instead, and the other user's reply stays as it was."""

from __future__ import annotations

import pytest

from tests.e2e.crap_play import CrapGame
from tests.e2e.fake_discord import FakeMessage, FakeUser, InteractionRecord
from tests.e2e.harness import ALICE, BOB, CAROL, TABLE, Driver
from tests.e2e.kuriki_play import UNDER_THE_CUP, KurikiGame


def custom_id_of(message: FakeMessage, action: str, kind: str) -> str:
    """The custom_id of the `action` component of `message` (t:<kind>:<action>:...)."""
    prefix = f"t:{kind}:{action}:"
    ids = [
        c["custom_id"]
        for c in message.all_components()
        if c.get("custom_id", "").startswith(prefix)
    ]
    assert ids, (action, message.labels())
    return ids[0]


async def forge(
    d: Driver, user: FakeUser, custom_id: str, message: FakeMessage
) -> InteractionRecord:
    """`user` sends a click of `custom_id` on `message`, which they cannot see."""
    assert not message.visible_for(user.id)
    return await d.dispatch(d.fake.forged_click(user, TABLE, custom_id, message))


def answered_privately(rec: InteractionRecord, user: FakeUser, victim: FakeMessage) -> str:
    """The forged click got a fresh ephemeral for its sender, not an edit of `victim`."""
    assert rec.callback_type == 4 and rec.message is not None, (rec.callback_type, rec.text)
    assert rec.message is not victim and rec.message.ephemeral
    assert rec.message.visible_to == user.id
    return rec.text


@pytest.mark.e2e(seed=327)
async def test_forged_peeks_never_write_the_dice_into_someone_elses_reply(d: Driver) -> None:
    game = await KurikiGame.open(d, [ALICE, BOB, CAROL], lives=3)
    await game.choose()
    roll = await game.roll()
    assert roll is not None, "a Kuriki: choose another seed"
    roller = roll.roller
    sneaker, third = (p for p in (ALICE, BOB, CAROL) if p is not roller)
    # The sneaker asks, privately, whether to peek anyway, and has not answered yet.
    sneak = custom_id_of(game.table, "sneak", "kuriki")
    asked = await d.click(sneaker, TABLE, custom_id=sneak, message=game.table)
    assert asked.callback_type == 4 and asked.message is not None
    question = asked.message
    before = (question.text(), question.labels(), question.edits)
    assert UNDER_THE_CUP.search(question.text()) is None

    # The Roller, who has seen the dice, forges Peek on the sneaker's question.
    peek = custom_id_of(game.table, "peek", "kuriki")
    rec = await forge(d, roller, peek, question)
    assert UNDER_THE_CUP.search(answered_privately(rec, roller, question))
    assert (question.text(), question.labels(), question.edits) == before

    # The third player forges the question's own "peek anyway": his foul, his dice.
    fouls = game.cup().fouls[third.id]
    rec = await forge(d, third, custom_id_of(question, "sneakok", "kuriki"), question)
    assert UNDER_THE_CUP.search(answered_privately(rec, third, question))
    assert (question.text(), question.labels(), question.edits) == before
    assert game.cup().fouls[third.id] == fouls + 1
    assert game.cup().fouls[sneaker.id] == 0


@pytest.mark.e2e(seed=2)
async def test_forged_hand_clicks_never_write_a_hand_into_someone_elses_reply(
    d: Driver,
) -> None:
    game = await CrapGame.open(d, [ALICE, BOB, CAROL], threshold=150)
    table = game.table()
    mover = game.user(table.current)
    other = game.after(mover.id)
    own = await game.my_hand(mover)
    victim = (await game.my_hand(other)).message
    before = (victim.text(), victim.labels(), victim.edits)

    # My hand (read only) and Recycle my hand (a move), both sent on the other's reply.
    rec = await forge(d, mover, custom_id_of(game.table_message, "hand", "crap"), victim)
    assert "Your hand" in answered_privately(rec, mover, victim)
    assert (victim.text(), victim.labels(), victim.edits) == before
    rec = await forge(d, mover, custom_id_of(own.message, "recycle", "crap"), victim)
    assert "Your hand" in answered_privately(rec, mover, victim)
    assert (victim.text(), victim.labels(), victim.edits) == before
    assert any(line.startswith(f"{mover.name} recycles") for line in game.table().log)
