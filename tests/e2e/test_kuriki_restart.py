"""A crash in the middle of a Kuriki point loses nothing: the bot dies (every task stopped,
no close()) after the Roller rolled, and again after he declared; each time a new bot
starts on the same database and the same Discord, and the messages already in the channel
carry the point on: the menu in the Roller's ephemeral declares, the old cup message's
Peek still shows him (only him) the dice under the cup, and the Next Guy pulls on it. The
game is then played to a recorded winner, the dice never public before the pull.

A crash right after an edit of the table may lose the mark that says which revision the
table shows (it is written with the others of the next 0.25 s): the restarted bot then
redraws that same message once, and mentions nobody a second time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.kuriki import engine
from games.kuriki.engine import KurikiState
from tests.e2e.fake_discord import FakeDiscord, FakeMessage, FakeUser, embed_text
from tests.e2e.harness import ALICE, BOB, CAROL, TABLE, is_summary, running_bot
from tests.e2e.kuriki_play import (
    SNEAK,
    Habits,
    KurikiGame,
    finish_secrets,
    finished_as,
    lie_above,
    play_to_end,
)

HABITS = Habits(pull_at=8)


def mentions(fake: FakeDiscord, players: list[FakeUser]) -> dict[int, int]:
    """How many messages have notified each player so far."""
    return {p.id: len(fake.notifications(p.id)) for p in players}


def buttons_answer(message: FakeMessage, row: dict[str, Any] | None) -> None:
    """The cup's buttons answer the decision of the committed game `row`: its game, and the
    stamp of the roll under the cup (Peek: 0, good all game)."""
    assert row is not None
    state = KurikiState.model_validate(json.loads(row["data"])["state"])
    game = int(row["created_at"] * 1000) % 1_000_000_000
    stamps = {
        b["custom_id"].split(":")[2]: tuple(int(x) for x in b["custom_id"].split(":")[4:6])
        for b in message.buttons()
    }
    assert stamps, message.text()
    for action, stamp in stamps.items():
        assert stamp == (game, 0 if action == "peek" else engine.decision(state)), stamps


@pytest.mark.slow
async def test_a_crash_between_declaration_and_pull(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "e2e.sqlite3"
    async with running_bot(db, fake=fake, seed=327) as d:
        game = await KurikiGame.open(d, [ALICE, BOB, CAROL], lives=3)
        await game.choose()
        roll = await game.roll()
        assert roll is not None, "seed 327: the first roll is no Kuriki"
        rolled = d.stored(TABLE)
        cup_of_the_roll = game.table
        buttons_answer(cup_of_the_roll, rolled)  # what the answer showed was committed
        assert d.problems == []
        notified = mentions(fake, [ALICE, BOB, CAROL])
        await d.crash()
    assert fake.gateway_connections == 0

    # A new bot: the Roller's menu, an ephemeral the old bot sent, still declares.
    async with running_bot(db, fake=fake, seed=1) as d:
        game.d = d
        await d.settle()
        assert d.stored(TABLE) == rolled
        assert game.table is cup_of_the_roll  # at most redrawn in place, never posted again
        assert mentions(fake, [ALICE, BOB, CAROL]) == notified
        lie = lie_above(roll)
        cup = await game.declare(roll, lie)  # the cup is posted afresh, calling the Next Guy
        roller, ng = roll.roller, game.user(cup.next_guy)
        declared = d.stored(TABLE)
        assert declared is not None and rolled is not None
        assert declared["revision"] == rolled["revision"] + 1
        assert declared["message_id"] == game.table.id  # the menu is not the table
        assert game.table is not cup_of_the_roll and is_summary(cup_of_the_roll)
        buttons_answer(game.table, declared)
        assert d.problems == []
        notified = mentions(fake, [ALICE, BOB, CAROL])
        await d.crash()

    # Another: the old cup message's buttons work, the hidden dice are still hidden.
    async with running_bot(db, fake=fake, seed=2) as d:
        game.d = d
        await d.settle()
        assert d.stored(TABLE) == declared
        assert mentions(fake, [ALICE, BOB, CAROL]) == notified
        old_cup = game.table
        assert old_cup.id == declared["message_id"]
        # Who has seen the dice survived the restart: the Roller has, the Next Guy has not
        # (Sneak a peek asks him first; nothing is charged).
        assert "already seen these dice" in await game.refused(roller, SNEAK)
        asked = await d.click(ng, TABLE, label=SNEAK, message=old_cup)
        assert asked.ephemeral and "Peek anyway?" in asked.text
        reveal = await game.pull(ng)
        assert reveal.dice == roll.dice and reveal.lie and reveal.declared == lie
        cup = game.cup()
        assert cup.lives[roller.id] == 2 and cup.roller == ng.id
        assert cup.message is old_cup  # the puller rolls next: the same cup, edited

        # /kuriki status posts the cup at the bottom of the channel, with its buttons.
        shown = embed_text(old_cup.embeds[0])
        status = await d.slash(ng, TABLE, "kuriki status")
        assert status.callback_type == 4 and not status.ephemeral and status.message is not None
        assert embed_text(status.message.embeds[0]) == shown
        assert game.table is status.message and is_summary(old_cup)

        cup = await play_to_end(game, HABITS)
        finished_as(game, cup)
        assert d.problems == []
    finish_secrets(game)
