"""Kuriki through the table service: the cup on the public table, the dice only in
ephemeral replies, declarations from a select, pulls, fouls and votes."""

from __future__ import annotations

import json

import pytest

from bot.components import Click
from bot.errors import UserError
from bot.service import Actor, Reply, Tables
from games.errors import IllegalMove, NotYourTurn
from games.kuriki.engine import KurikiState
from tests.bot.conftest import (
    ADMIN,
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    MALLORY,
    check_limits,
    find,
    outcome,
)

PLAYERS = {a.id: a for a in (ALICE, BOB, CAROL)}


async def state_of(tables: Tables) -> KurikiState:
    return (await tables.sessions.get(CHANNEL)).state


def public_text(reply: Reply) -> str:
    parts = [reply.content or ""]
    for r in (reply, reply.table):
        if r is not None and r.embed is not None:
            parts.append(json.dumps(r.embed.to_dict()))
    return " ".join(parts)


async def start_kuriki(tables: Tables, *players: Actor, lives: int = 3) -> Reply:
    first, *rest = players
    reply = await tables.open_lobby(first, GUILD, CHANNEL, "kuriki", {"lives": lives})
    await tables.table_posted(CHANNEL, 777)
    for p in rest:
        reply = await tables.click(p, find(reply, "join"), 777)
    return await tables.click(first, find(reply, "start"), 777)


def assert_declaring(state: KurikiState) -> None:
    """The `tables` fixture's seed (7) makes the first roll of these games no Kuriki, so the
    tests that need a declaration reach one on every run; should a change of the draws make
    it a Kuriki, they fail here rather than pass without testing anything."""
    assert state.phase == "declare", (
        "the first roll of seed 7 is a Kuriki now: give these tests a seed whose first roll "
        "is not (make_tables in tests/bot/conftest.py)"
    )


async def test_a_point_from_roll_to_pull(tables: Tables) -> None:
    reply = await start_kuriki(tables, ALICE, BOB, CAROL)
    check_limits(reply)
    state = await state_of(tables)
    roller = PLAYERS[state.roller]
    reply = await tables.click(roller, find(reply, "cw"), 777)
    # Rolling: the table is updated publicly, the dice arrive in an ephemeral follow-up.
    rolled = await tables.click(roller, find(reply, "roll"), 777)
    state = await state_of(tables)
    assert_declaring(state)
    (secret,) = rolled.followups
    assert rolled.edit and secret.ephemeral
    dice = f"{state.dice[0]}-{state.dice[1]}"
    assert dice in json.dumps(secret.embed.to_dict())
    assert dice not in public_text(rolled)
    declare = next(i for i in secret.items if i.custom_id.startswith("t:kuriki:declare:"))
    options = [o.value for o in declare.options]
    assert len(options) <= 25
    # Someone else cannot use the Roller's select.
    with pytest.raises(NotYourTurn):
        await tables.click(
            BOB if roller is not BOB else CAROL,
            Click.parse(declare.custom_id, (options[0],)),
            900,
            ephemeral=True,
        )
    declared = await tables.click(
        roller, Click.parse(declare.custom_id, (options[0],)), 900, ephemeral=True
    )
    assert declared.edit and "You declared" in declared.embed.description
    assert declared.table is not None and declared.table_message_id == 777
    session = await tables.sessions.get(CHANNEL)
    assert session.message_id == 777  # the ephemeral is not the table
    state = session.state
    assert state.phase == "respond" and state.next_guy is not None
    table = declared.table
    nxt = PLAYERS[state.next_guy]
    labels = {i.label for i in table.items}
    assert {"Roll (take the cup)", "Pull", "Pass", "Sneak a peek (foul!)"} <= labels
    # The score pad's marks are explained under the table.
    assert "◆ a life lost · ◇ a life left" in table.embed.footer.text
    assert "👑 a Kuriki" in table.embed.footer.text
    # Peek again: offered only while the player the cup waits on has seen the dice (the
    # Roller declaring), and refused to anyone else with what they can do instead.
    assert "Peek again" not in labels
    assert "Peek again" in {i.label for i in rolled.items}
    with pytest.raises(UserError, match=r"not seen these dice.*Sneak a peek \(foul!\)"):
        await tables.click(nxt, find(rolled, "peek"), 777)
    peek = await tables.click(roller, find(rolled, "peek"), 777)
    assert peek.ephemeral and dice in json.dumps(peek.embed.to_dict())
    pulled = await tables.click(nxt, find(Reply(items=table.items), "pull"), 777)
    after = await state_of(tables)
    assert after.phase == "roll" and after.last_reveal is not None
    assert dice in public_text(pulled)  # revealed by the pull: public now
    assert sum(p.lives for p in after.players) == 3 * 3 - 1


async def test_sneak_a_peek_is_a_public_foul_with_a_private_view(tables: Tables) -> None:
    reply = await start_kuriki(tables, ALICE, BOB, CAROL)
    state = await state_of(tables)
    roller = PLAYERS[state.roller]
    reply = await tables.click(roller, find(reply, "cw"), 777)
    rolled = await tables.click(roller, find(reply, "roll"), 777)
    state = await state_of(tables)
    assert_declaring(state)
    sneaker = next(p for p in PLAYERS.values() if p is not roller)
    asked = await tables.click(sneaker, find(rolled, "sneak"), 777)
    dice = f"{state.dice[0]}-{state.dice[1]}"
    # First a private question: nothing is charged until the sneaker confirms.
    assert asked.ephemeral and "Peek anyway?" in json.dumps(asked.embed.to_dict())
    assert dice not in json.dumps(asked.embed.to_dict())
    assert (await state_of(tables)).player(sneaker.id).fouls == 0
    sneak = await tables.click(sneaker, find(asked, "sneakok"), 4242, ephemeral=True)
    # The question turns into the dice, privately; the table says "Foul on" for everyone.
    assert sneak.edit and dice in json.dumps(sneak.embed.to_dict())
    assert (await state_of(tables)).player(sneaker.id).fouls == 1
    with pytest.raises(UserError, match="already seen"):
        await tables.click(sneaker, find(rolled, "sneak"), 777)
    with pytest.raises(IllegalMove, match="already seen"):
        await tables.click(sneaker, find(asked, "sneakok"), 4242, ephemeral=True)
    with pytest.raises(Exception, match="not in this game"):
        await tables.click(MALLORY, find(rolled, "sneak"), 777)


async def test_foul_vote_and_rusk(tables: Tables) -> None:
    await start_kuriki(tables, ALICE, BOB, CAROL)
    proposed = await tables.command(
        ALICE, CHANNEL, "kuriki", "propose", f"{BOB.id}:calling a die a dice"
    )
    assert not proposed.ephemeral and "calls a foul" in proposed.embed.description
    # The new vote message calls the one player who has still to vote (not the accused,
    # not the accuser).
    assert proposed.content == f"<@{CAROL.id}>: vote on the foul."
    yes = next(i for i in proposed.items if i.custom_id.endswith("-yes"))
    with pytest.raises(IllegalMove, match="accused"):
        await tables.click(BOB, Click.parse(yes.custom_id), 901)
    voted = await tables.click(CAROL, Click.parse(yes.custom_id), 901)
    assert voted.edit and voted.items == [] and "closed" in voted.embed.title
    assert (await state_of(tables)).player(BOB.id).fouls == 1
    assert (await tables.sessions.get(CHANNEL)).message_id == 777
    # A player's Rusk is a proposal the others vote on; a server manager charges it at once.
    # (Carol proposes it: Alice has proposed once on this roll, the most a player may.)
    proposed = await tables.command(CAROL, CHANNEL, "kuriki", "rusk", f"{BOB.id}:")
    assert "calls a **Rusk** (a triple foul)" in proposed.embed.description
    assert proposed.content == f"<@{ALICE.id}>: vote on the foul."
    no = next(i for i in proposed.items if i.custom_id.endswith("-no"))
    voted = await tables.click(ALICE, Click.parse(no.custom_id), 902)
    assert "voted down" in voted.embed.description
    assert (await state_of(tables)).player(BOB.id).fouls == 1
    rusk = await tables.command(ADMIN, CHANNEL, "kuriki", "rusk", f"{BOB.id}:")
    assert "A **Rusk** is charged" in rusk.embed.description
    bob = (await state_of(tables)).player(BOB.id)
    assert bob.fouls == 4 and bob.lives == 2  # the third foul cost a life


async def test_two_players_the_accused_accepts_or_declines_a_foul(tables: Tables) -> None:
    await start_kuriki(tables, ALICE, BOB)
    proposed = await tables.command(ALICE, CHANNEL, "kuriki", "propose", f"{BOB.id}:rude")
    check_limits(proposed)
    assert "may accept the foul, or it is not charged" in proposed.embed.description
    assert proposed.content == f"<@{BOB.id}>: accept the foul or decline it."
    # The table tells the same: nobody votes, so no "0 yes, 0 no".
    table = proposed.table.embed.description
    assert f"⚖ Foul called on <@{BOB.id}> (rude): <@{BOB.id}> accepts or declines" in table
    assert "yes" not in table and "Foul vote" not in table
    labels = [i.label for i in proposed.items]
    assert labels == ["Accept the foul", "Decline"]
    accept = next(i for i in proposed.items if i.custom_id.endswith("-accept"))
    with pytest.raises(IllegalMove, match="You called this foul"):
        await tables.click(ALICE, Click.parse(accept.custom_id), 901)
    answered = await tables.click(BOB, Click.parse(accept.custom_id), 901)
    assert "closed" in answered.embed.title
    assert (await state_of(tables)).player(BOB.id).fouls == 1
    proposed = await tables.command(BOB, CHANNEL, "kuriki", "propose", f"{ALICE.id}:rude")
    decline = next(i for i in proposed.items if i.custom_id.endswith("-decline"))
    answered = await tables.click(ALICE, Click.parse(decline.custom_id), 903)
    assert "not charged" in answered.embed.description
    assert (await state_of(tables)).player(ALICE.id).fouls == 0


async def test_vote_deadline_and_turn_clock_are_separate(tables: Tables) -> None:
    clock = tables.clock
    reply = await start_kuriki(tables, ALICE, BOB, CAROL)
    state = await state_of(tables)
    roller = PLAYERS[state.roller]
    reply = await tables.click(roller, find(reply, "cw"), 777)
    session = await tables.sessions.get(CHANNEL)
    turn_deadline = session.turn_deadline
    assert session.deadline == turn_deadline == clock.now + 120
    # A foul vote opens its own, earlier deadline; the Roller's clock keeps running.
    clock.now += 30
    accused = next(p for p in PLAYERS.values() if p is not roller)
    proposer = next(p for p in PLAYERS.values() if p not in (roller, accused))
    await tables.command(proposer, CHANNEL, "kuriki", "propose", f"{accused.id}:a dice")
    session = await tables.sessions.get(CHANNEL)
    assert session.turn_deadline == turn_deadline  # a bystander's move leaves the clock alone
    assert session.deadline == clock.now + 60 < turn_deadline
    # The vote runs out first: it closes, and the Roller still has the cup and his time.
    clock.now += 61
    assert await tables.expire(CHANNEL) is not None
    state = await state_of(tables)
    assert state.votes == [] and state.phase == "roll" and state.roller == roller.id
    assert "no majority" in " ".join(map(str, state.log))
    session = await tables.sessions.get(CHANNEL)
    assert session.deadline == session.turn_deadline == turn_deadline
    # Then the Roller's time runs out: he rolls and declares the lowest allowed.
    clock.now = turn_deadline + 1
    assert await tables.expire(CHANNEL) is not None
    state = await state_of(tables)
    assert "ran out of time" in " ".join(map(str, state.log))
    assert state.phase in ("respond", "roll")  # declared, or rolled a Kuriki and keeps the cup


async def test_a_game_left_down_to_one_player_has_no_winner(tables: Tables) -> None:
    await start_kuriki(tables, ALICE, BOB)
    reply = await tables.leave(BOB, CHANNEL, "kuriki")
    table = reply.table
    assert "**Game over:** Bob left, so nobody wins." in table.embed.description
    assert "last one standing" not in table.embed.description
    assert table.content == f"<@{ALICE.id}>: the game is over."  # no trophy, a ping
    what_next, seed = table.embed.footer.text.rsplit("\n", 1)
    assert what_next.endswith("Rematch below, or /kuriki start for a new game")
    assert seed.startswith("🔓 Seed ")
    assert "Picture: a red spot per life lost" in table.embed.footer.text  # the story's marks
    assert [Click.parse(i.custom_id).action for i in table.items] == ["rematch"]
    (record,) = await tables.store.finished_games(CHANNEL)
    assert record["winner_id"] is None
    assert outcome(record) == "Nobody wins: Bob left."
    assert record["lobby"]["rules"]["lives"] == 3


def test_pass_is_greyed_once_the_next_guy_has_passed_this_roll() -> None:
    """A Next Guy who passed this roll already cannot pass again: the table's Pass is greyed
    out (for everyone, since the table is shared) and the table offers Roll or Pull."""
    from bot.sessions import Session
    from bot.tables.kuriki import KurikiTable
    from games.lobby import Lobby
    from tests.games.kuriki_helpers import Table

    t = Table()
    t.point(5, 5, 105)
    t.pass_()  # Bob
    adapter = KurikiTable()
    session = Session(
        channel_id=1, guild_id=None, kind="kuriki", lobby=Lobby(starter=1), state=t.state
    )
    passes = [i for i in adapter.render(session).items if ":pass:" in i.custom_id]
    assert len(passes) == 1 and not passes[0].disabled  # Cat has not passed
    t.pass_()  # Cat
    t.pass_()  # Ann, the Roller: the cup comes back to Bob, who passed already
    session.state = t.state
    rendered = adapter.render(session)
    (button,) = [i for i in rendered.items if ":pass:" in i.custom_id]
    assert button.disabled and "already passed" in button.label
    assert ": Roll or Pull." in rendered.embed.description


async def test_the_score_pad_shows_in_the_tarts_only_until_someone_is_tarted(
    tables: Tables,
) -> None:
    await start_kuriki(tables, ALICE, BOB, CAROL)
    session = await tables.sessions.get(CHANNEL)
    state: KurikiState = session.state
    state.player(BOB.id).lives = 1
    pad = tables.adapters["kuriki"].render(session).embed.fields[0].value
    assert f"<@{BOB.id}> 1♥ · in the Tarts" in pad
    state.player(ALICE.id).lives = 0
    state.tarted = ALICE.id
    pad = tables.adapters["kuriki"].render(session).embed.fields[0].value
    assert "Tarted" in pad and "in the Tarts" not in pad


def test_a_pulled_double_is_named_without_doubled_parentheses() -> None:
    """'2-2 = Double-Two (Nixons)', never '2-2 (Double-Two (Nixons))': on the table and in
    its log."""
    from bot.sessions import Session
    from bot.tables.kuriki import KurikiTable
    from games.lobby import Lobby
    from tests.games.kuriki_helpers import Table

    t = Table()
    t.point(2, 2, 106)  # Nixons, declared Boxcars
    t.pull()
    adapter = KurikiTable()
    session = Session(
        channel_id=1, guild_id=None, kind="kuriki", lobby=Lobby(starter=1), state=t.state
    )
    text = json.dumps(adapter.render(session).embed.to_dict(), ensure_ascii=False)
    assert "pulls the cup: 2-2 = Double-Two (Nixons) against Double-Six (Boxcars)" in text
    # Said once: while the log shows the pull, the table does not say "Last pull" above it.
    assert "Last pull" not in text, text
    assert "((" not in text and "))" not in text
    t.state.log += ["Ann rolls a fresh roll."] * 6  # the pull leaves the log's window
    text = json.dumps(adapter.render(session).embed.to_dict(), ensure_ascii=False)
    assert "Last pull: 2-2 = Double-Two (Nixons) against Double-Six (Boxcars): a lie" in text
    assert "((" not in text and "))" not in text


def test_the_rollers_menu_marks_the_truth_without_doubled_parentheses() -> None:
    from bot.sessions import Session
    from bot.tables.kuriki import KurikiTable
    from games.lobby import Lobby
    from tests.games.kuriki_helpers import Table

    t = Table()
    t.roll(2, 2)
    session = Session(
        channel_id=1, guild_id=None, kind="kuriki", lobby=Lobby(starter=1), state=t.state
    )
    menu = KurikiTable().private(session, t.state.roller, "peek")
    assert menu is not None
    labels = [o.label for item in menu.items for o in item.options]
    assert "Double-Two (Nixons) · the truth" in labels
    assert not any(") (" in label for label in labels)
