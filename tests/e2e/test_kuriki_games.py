"""Whole Kuriki games of 3, 4 and 5 players through the real client and the fake Discord,
played from what each player can see (the cup message, their own ephemerals, the foul-vote
messages), to a winner recorded in the finished-games table. All along, `CupSecrets` checks
that the dice under the cup reach no public payload before a pull shows them.

The dice are seeded (`@pytest.mark.e2e(seed=...)`): the scripted points need rolls that are
not a Kuriki (and, to lie above the truth, not Boxcars), which the tests assert; the seeds
were chosen by rolling on the engine directly (the bot's seeded RNG gives the game its
sealed seed, games/draws.py, from which come the start rolls, then two dice a roll)."""

from __future__ import annotations

import json

import pytest

from bot.i18n import render
from games.kuriki.values import name as name_of
from games.text import line_from_json
from tests.e2e.harness import (
    ADMIN,
    ALICE,
    BOB,
    CAROL,
    DAVE,
    MALLORY,
    TABLE,
    Driver,
    FakeUser,
    is_summary,
    mention,
)
from tests.e2e.history_view import share_whole_log
from tests.e2e.kuriki_play import (
    EVE,
    PEEK,
    SNEAK,
    Habits,
    KurikiGame,
    finish_secrets,
    finished_as,
    lie_above,
    no_one_else_sees,
    play_to_end,
)


def row_labels(row: dict[str, object]) -> list[str]:
    return [c.get("label") for c in row.get("components", [])]  # type: ignore[union-attr, attr-defined]

HABITS = Habits(pull_at=8)


# ----------------------------------------------------------------------------- 3 players


@pytest.mark.slow
@pytest.mark.e2e(seed=3)
async def test_three_players_lies_caught_and_missed_and_hate_mail_coming_home(
    d: Driver,
) -> None:
    game = await KurikiGame.open(d, [ALICE, BOB, CAROL], lives=3)
    cup = game.cup()
    first = game.user(cup.roller)
    assert f"{first.name} rolled highest" in cup.text
    before = game.after(first.id, clockwise=False)
    says = await game.refused(game.after(first.id), f"{before.name} next")
    assert f"the table is waiting for {first.name}" in says
    cup = await game.choose(f"{before.name} next")
    assert f"Order of play: {first.name} → {before.name} → " in cup.text
    assert cup.roller == first.id

    def after(p: FakeUser) -> FakeUser:
        return game.after(p.id, clockwise=False)

    # Point 1, a lie caught: the Roller declares one above the truth, the Next Guy pulls.
    roller = first
    roll = await game.roll()
    assert roll is not None, "a Kuriki: choose another seed"
    assert f"{name_of(roll.truth)} · the truth" in roll.labels
    assert "Fresh roll: declare anything" in roll.ephemeral.text()
    no_one_else_sees(game, roll)
    ng, third = after(roller), after(after(roller))
    # Peek again is the Roller's (he has seen the dice); the foul stands apart, in red.
    peek, sneak = game.cup().button(PEEK), game.cup().button(SNEAK)
    assert peek is not None and peek["style"] == 2 and sneak is not None and sneak["style"] == 4
    assert [PEEK, SNEAK] not in [row_labels(r) for r in game.table.components]
    says = await game.refused(ng, PEEK)
    assert "have not seen these dice" in says and SNEAK in says
    assert await game.peek(roller) == roll.dice  # the Roller may look again, privately
    cup = await game.declare(roll, lie_above(roll))
    assert cup.next_guy == ng.id and cup.passed == []
    # The Next Guy has not seen the dice: the table offers him no Peek to be refused.
    assert cup.button(PEEK) is None and cup.button(SNEAK) is not None
    assert "waiting for" in await game.refused(third, "Pull")
    reveal = await game.pull()
    assert reveal.lie and reveal.dice == roll.dice
    cup = game.cup()
    assert (cup.lives[roller.id], cup.lives[ng.id], cup.lives[third.id]) == (2, 3, 3)
    assert cup.phase == "roll" and cup.roller == ng.id  # the puller starts the next point
    # Said once: the log shows the pull; no "Last pull" line repeats it above.
    assert any(f"pulls the cup: {roll.dice}" in line for line in cup.log), cup.log
    assert "Last pull" not in cup.description, cup.text
    assert "`◆◇ ○`" in cup.text  # one mark on the liar's star

    # Point 2, the truth pulled; meanwhile the third player sneaks a peek (a foul).
    roller = ng
    roll = await game.roll()
    assert roll is not None, "a Kuriki: choose another seed"
    cup = await game.declare(roll, roll.truth)
    ng, third = after(roller), after(after(roller))
    assert await game.sneak(third) == roll.dice
    cup = game.cup()
    assert cup.fouls[third.id] == 1
    assert f"Foul on {third.name}: sneaking a peek under the cup" in cup.text
    assert "cheeks" not in cup.text and "responsible" not in cup.text  # plain words
    # Seen already; no Peek again to suggest while the cup waits on the Next Guy.
    says = await game.refused(third, SNEAK)
    assert "already seen these dice" in says and PEEK not in says
    assert game.cup().button(PEEK) is None
    # /kuriki status: the cup posted at the bottom of the channel, for everyone, with its
    # buttons (notifying nobody); the dice stay hidden (the check watches every body).
    shown = game.cup()
    labels = shown.labels
    status = await d.slash(ng, TABLE, "kuriki status")
    assert status.callback_type == 4 and not status.ephemeral and status.message is not None
    assert game.table is status.message and "Standing declaration" in status.text
    assert game.cup().description == shown.description and game.cup().labels == labels
    assert is_summary(shown.message) and d.notified(status.message) == set()
    reveal = await game.pull()
    assert not reveal.lie and reveal.dice == roll.dice
    cup = game.cup()
    assert cup.lives[ng.id] == 2 and cup.lives[roller.id] == 3
    assert cup.roller == roller.id  # the truth: the Roller rolls again

    # Point 3, hate mail comes home: a lie, passed twice, back to the Roller, who pulls on
    # the player who passed to him.
    roll = await game.roll()
    assert roll is not None, "a Kuriki: choose another seed"
    cup = await game.declare(roll, lie_above(roll))
    ng, third = after(roller), after(after(roller))
    cup = await game.pass_(ng)
    assert cup.next_guy == third.id and cup.responsible == ng.id
    assert "waiting for" in await game.refused(ng, "Pass")
    cup = await game.pass_(third)
    assert cup.next_guy == roller.id and cup.responsible == third.id
    assert cup.passed == [ng.id, third.id]
    # Back to the Roller, who has seen the dice: Peek again is his now.
    assert cup.button(PEEK) is not None
    assert await game.peek(roller) == roll.dice
    assert f"Passed: {mention(ng)}, {mention(third)}" in cup.description
    before = dict(cup.lives)
    reveal = await game.pull(roller)
    assert reveal.lie and reveal.dice == roll.dice
    cup = game.cup()
    assert cup.lives[third.id] == before[third.id] - 1  # he passed the lie on: his life
    assert cup.lives[roller.id] == before[roller.id] and cup.lives[ng.id] == before[ng.id]
    assert cup.roller == roller.id

    # Point 4, a lie missed: the Next Guy takes the cup on it and rolls; the lie is never
    # pulled and its dice stay under the (public) radar for the rest of the game.
    roll = await game.roll()
    assert roll is not None, "a Kuriki: choose another seed"
    lie = lie_above(roll)
    cup = await game.declare(roll, lie)
    missed = game.secrets.key(roll.dice)
    taker = after(roller)
    taken = await game.roll(take=True)
    cup = game.cup()
    if taken is not None:
        assert cup.phase == "declare" and f"rolled on **{name_of(lie)}**" in cup.description
        assert min(taken.options) == lie  # at least the standing declaration
        assert f"You must declare at least **{name_of(lie)}**" in taken.ephemeral.text()
        no_one_else_sees(game, taken)
        await game.declare(taken, HABITS.declaration(taken.truth, taken.options))
        assert game.cup().responsible == taker.id
    assert game.secrets.hidden.get(missed) is not None

    cup = await play_to_end(game, HABITS)
    row = finished_as(game, cup)
    assert "🥧 Tarted" in cup.text
    # The game's whole log, shared from the history page by page while the missed lie's
    # dice are still watched for: the history shows no more than the table showed.
    assert game.secrets.hidden.get(missed) is not None
    stored = [render(line_from_json(line)) for line in json.loads(row["log"])]
    assert await share_whole_log(d, roller, TABLE) == stored
    finish_secrets(game)


# ----------------------------------------------------------------------------- 4 players


# Seed 49039 (found by a search over seeds with the engine): the first Roller, Carol, rolls
# three Kurikis in a row at once, so the third Kuriki does not depend on how anyone plays,
# and it falls on a full table: the Next Guy loses two lives, both others one, Carol none.
@pytest.mark.e2e(seed=49039)
async def test_four_players_and_a_third_kuriki(d: Driver) -> None:
    players = [ALICE, BOB, CAROL, DAVE]
    game = await KurikiGame.open(d, players, lives=3)
    cup = await game.choose()
    roller = game.user(cup.roller)
    assert roller is CAROL, "seed 49039: Carol rolls highest"
    ng = game.after(roller.id)
    for n in (1, 2, 3):
        before = game.cup().lives
        assert await game.roll() is None, f"seed 49039: Kuriki number {n}"
        cup = game.cup()
        assert cup.crowns[roller.id] == n and f"` {mention(roller)} 3♥ {'👑' * n}" in cup.text
        assert cup.phase == "roll" and cup.roller == roller.id  # the Roller keeps the cup
        assert "Roll" in cup.labels and "Pull" not in cup.labels
        lost = {uid: before[uid] - cup.lives[uid] for uid in before}
        if n < 3:
            assert lost == {p.id: int(p is ng) for p in players}
            assert f"Crown number {n}." in cup.text
        else:
            assert lost == {ALICE.id: 1, BOB.id: 1, CAROL.id: 0, DAVE.id: before[DAVE.id]}
            assert ng is DAVE and before[DAVE.id] == 1  # two lives due, one left
            assert "A third Kuriki: everybody else loses a life too." in cup.text
            assert f"{ng.name} loses 2 lives as the Next Guy" in cup.text
            assert "🥧 Tarted" in cup.status[DAVE.id]
    # Dave is out: he is skipped, and his buttons are refused.
    assert "not in this game" in await game.refused(DAVE, "Roll")

    cup = await play_to_end(game, HABITS)
    finished_as(game, cup)
    assert cup.crowns[CAROL.id] >= 3
    finish_secrets(game)


# ----------------------------------------------------------------------------- 5 players


@pytest.mark.slow
@pytest.mark.e2e(seed=1)
async def test_five_players_foul_votes_and_a_rusk(d: Driver) -> None:
    players = [ALICE, BOB, CAROL, DAVE, EVE]
    game = await KurikiGame.open(d, players, lives=2)
    cup = await game.choose()
    roller = game.user(cup.roller)
    roll = await game.roll()
    assert roll is not None, "a Kuriki: choose another seed"
    await game.declare(roll, HABITS.declaration(roll.truth, roll.options))

    # Sneak a peek: a foul on the pad at once, the dice only to the sneaker.
    sneaker = EVE if roller is not EVE else DAVE
    assert await game.sneak(sneaker) == roll.dice
    assert game.cup().fouls[sneaker.id] == 1

    # A disrespect foul: /kuriki foul, and the others vote on the public message.
    proposer = ALICE
    called = await d.slash(
        proposer, TABLE, "kuriki foul", player=sneaker, reason="spoke Klingon at the table"
    )
    vote = called.message
    assert called.callback_type == 4 and vote is not None and not vote.ephemeral
    assert f"{mention(proposer)} calls a foul on {mention(sneaker)}" in vote.text()
    # The voters are the players other than the accuser and the accused: three, two needed.
    assert "(2 of 3) must agree" in vote.text() and "Votes: no votes yet." in vote.text()
    assert "0 yes, 0 no" not in vote.text() + game.cup().text
    assert vote.labels() == ["Agree: foul", "Disagree"]
    assert "Foul vote on" in game.cup().text
    assert "accused does not vote" in await game.refused(sneaker, "Agree: foul", message=vote)
    assert "not in this game" in await game.refused(MALLORY, "Agree: foul", message=vote)
    assert "You called this foul" in await game.refused(proposer, "Agree: foul", message=vote)
    voters = [p for p in players if p not in (sneaker, proposer)]
    no = await d.click(voters[0], TABLE, label="Disagree", message=vote)
    assert no.callback_type == 7 and no.message is vote and "0 yes, 1 no" in vote.text()
    assert "0 yes, 1 no" in game.cup().text  # the table follows the vote

    # The table moves on (a pull); the vote buttons still count.
    reveal = await game.pull()
    assert reveal.dice == roll.dice
    yes = await d.click(voters[1], TABLE, label="Agree: foul", message=vote)
    assert yes.callback_type == 7 and "1 yes, 1 no" in vote.text()
    assert game.cup().fouls[sneaker.id] == 1
    await d.click(voters[2], TABLE, label="Agree: foul", message=vote)
    assert "Foul vote closed: charged" in vote.text() and vote.buttons() == []
    assert "Votes: 2 yes, 1 no." in vote.text()
    assert f"Foul on {sneaker.name}: spoke Klingon at the table (2 fouls)." in vote.text()
    cup = game.cup()
    assert cup.fouls[sneaker.id] == 2 and "Foul vote on" not in cup.text

    # A foul voted down.
    accused, caller = voters[0], voters[1]
    called = await d.slash(caller, TABLE, "kuriki foul", player=accused, reason="trapped a die")
    vote = called.message
    assert vote is not None and "no votes yet" in vote.text()
    refusal = await d.slash(caller, TABLE, "kuriki foul", player=accused)
    assert refusal.ephemeral and "already a foul vote open" in refusal.text
    others = [p for p in players if p not in (accused, caller)]
    await d.click(others[0], TABLE, label="Disagree", message=vote)
    await d.click(others[1], TABLE, label="Disagree", message=vote)
    assert f"The foul on {accused.name} is voted down." in vote.text()
    assert "Foul vote closed: not charged" in vote.text()
    assert vote.buttons() == [] and game.cup().fouls.get(accused.id, 0) == 0

    # A Rusk: a player's is voted on like any foul (here voted down); a server manager
    # charges it at once. A triple foul, and every third foul is a life. A player may propose
    # once a roll: the one who has not proposed on this one calls it, and a second is refused.
    refusal = await d.slash(caller, TABLE, "kuriki foul", player=sneaker, rusk=True)
    assert refusal.ephemeral and "called a foul on this roll already" in refusal.text
    rusker = voters[2]
    called = await d.slash(rusker, TABLE, "kuriki foul", player=sneaker, rusk=True)
    vote = called.message
    assert vote is not None and not vote.ephemeral
    assert f"{mention(rusker)} calls a **Rusk** (a triple foul) on {mention(sneaker)}" in vote.text()
    others = [p for p in players if p not in (rusker, sneaker)]
    await d.click(others[0], TABLE, label="Disagree", message=vote)
    await d.click(others[1], TABLE, label="Disagree", message=vote)
    assert f"The Rusk on {sneaker.name} is voted down." in vote.text()
    assert "Rusk vote closed: not charged" in vote.text()
    before = game.cup().lives[sneaker.id]
    rusk = await d.slash(ADMIN, TABLE, "kuriki foul", player=sneaker, rusk=True)
    assert rusk.message is not None and not rusk.ephemeral
    assert f"A **Rusk** is charged on {mention(sneaker)}" in rusk.text
    cup = game.cup()
    assert cup.fouls[sneaker.id] == 5 and cup.lives[sneaker.id] == before - 1
    assert f"{sneaker.name} loses a life for 3 fouls" in cup.text
    # The Rusk vote and notice, posted below the table, make it due a repost: post it first.
    await d.slash(ALICE, TABLE, "kuriki status")

    cup = await play_to_end(game, HABITS)
    finished_as(game, cup)
    finish_secrets(game)
