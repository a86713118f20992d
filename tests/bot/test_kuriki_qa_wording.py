"""What the Kuriki table, its pings and its vote messages say (QA findings 4, 5, 8, 10, 12,
13): the ping asks for the same moves the table offers, a vote with no votes says so, the
first Roller is said to have rolled highest only when they did, one life is "1 life", a
closed Rusk vote gives its outcome, and a second declaration menu is refused for what it is."""

from __future__ import annotations

import pytest

from bot.components import Click
from bot.service import Reply, Tables
from bot.sessions import Session
from bot.settings import GuildSettings
from bot.tables.kuriki import KurikiTable
from games.errors import NotYourTurn
from games.kuriki.engine import KurikiRules
from games.lobby import Lobby
from tests.bot.conftest import ALICE, BOB, CAROL, CHANNEL, find
from tests.bot.test_kuriki_table import assert_declaring, start_kuriki, state_of
from tests.games.kuriki_helpers import ANN, CAT, Table
from tests.games.kuriki_helpers import BOB as B


def session_of(t: Table) -> Session:
    return Session(channel_id=1, guild_id=None, kind="kuriki", lobby=Lobby(starter=1), state=t.state)


def test_the_ping_offers_what_the_table_offers() -> None:
    """QA 4: the cup come back to a Next Guy who passed: the ping said 'roll, pull or
    pass' while Pass was greyed out and the table said 'Roll or Pull'. The ping now only
    calls him (issue 31: the table says once what he may do, not the ping again)."""
    adapter = KurikiTable()
    t = Table()
    t.point(5, 5, 105)
    assert adapter.waiting_on(t.state) == {B: "your move"}
    assert ": Roll, Pull or Pass." in adapter.render(session_of(t)).embed.description
    t.pass_()  # Bob
    t.pass_()  # Cat
    t.pass_()  # Ann, the Roller: back to Bob, who passed already
    assert adapter.waiting_on(t.state) == {B: "your move"}
    assert ": Roll or Pull." in adapter.render(session_of(t)).embed.description


def test_the_first_roller_rolled_highest_only_when_they_did() -> None:
    """QA 8: the winner of the start rolls leaves before choosing who plays next; the next
    player (who tied someone lower) is the first Roller now, not 'rolled highest'."""
    adapter = KurikiTable()
    t = Table(players=4, first=B, direction=None)
    assert "rolled highest" in adapter.waiting_on(t.state)[B]
    assert "<@2> rolled highest: first Roller" in adapter.render(session_of(t)).embed.description
    t.remove(B)
    new = t.state.roller
    assert new == CAT and t.state.phase == "direction"
    assert adapter.waiting_on(t.state) == {new: "you're the first Roller now: choose who plays next"}
    text = adapter.render(session_of(t)).embed.description
    assert "rolled highest" not in text
    assert f"<@{new}> is the first Roller now: choose who plays next." in text
    assert str(t.state.log[-1]) == "Cat is the first Roller now, and chooses who plays next."


def test_one_life_is_singular() -> None:
    """QA 10: '**1 lives** each' in the lobby, '· 1 lives ·' on the table."""
    adapter = KurikiTable()
    settings = GuildSettings(kuriki_lives=1)
    lobby = Lobby(starter=1, options={"rules": KurikiRules(lives=1).model_dump(mode="json")})
    assert "**1 life** each" in adapter.lobby_description(lobby, settings)
    t = Table(lives=1)
    footer = adapter.render(session_of(t)).embed.footer.text or ""
    assert "· 1 life" in footer and "lives" not in footer
    assert (adapter.rules_embed(settings, None, None).description or "").startswith("1 life. ")
    assert "**5 lives** each" in adapter.lobby_description(
        Lobby(starter=1, options={"rules": KurikiRules(lives=5).model_dump(mode="json")}),
        settings,
    )


def test_a_second_declaration_menu_is_refused_as_already_declared() -> None:
    """QA 13: Peek again brings a second Declare menu; used after the first, it said 'It's
    not your move: the table is waiting for Bob.'"""
    t = Table()
    t.point(3, 4, 7)
    t.refused("declare", 9, user_id=ANN, error=NotYourTurn, match="already declared 7")
    assert t.state.declared == 7


@pytest.mark.slow
async def test_a_vote_with_no_votes_says_so(tables: Tables) -> None:
    """QA 5: '0 yes, 0 no' on the table and the vote message."""
    await start_kuriki(tables, ALICE, BOB, CAROL)
    proposed = await tables.command(ALICE, CHANNEL, "kuriki", "propose", f"{BOB.id}:rude")
    assert "Votes: no votes yet." in proposed.embed.description
    table = proposed.table.embed.description
    assert "(rude): no votes yet, closes" in table
    assert "0 yes" not in proposed.embed.description + table


async def test_a_closed_rusk_vote_gives_its_outcome(tables: Tables) -> None:
    """QA 12: the closed message said only the last log line ('Alice is in the Tarts.'),
    the log did not say Rusk, and the vote button read 'Agree: foul'."""
    await start_kuriki(tables, ALICE, BOB, CAROL, lives=2)
    proposed = await tables.command(BOB, CHANNEL, "kuriki", "rusk", f"{ALICE.id}:manhandling")
    labels = [i.label for i in proposed.items]
    assert labels == ["Agree: Rusk", "Disagree"]
    yes = next(i for i in proposed.items if i.custom_id.endswith("-yes"))
    closed = await tables.click(CAROL, Click.parse(yes.custom_id), 901)
    assert closed.items == []
    assert closed.embed.title == "⚖ Rusk vote closed: charged"
    text = closed.embed.description
    assert f"<@{BOB.id}> called a Rusk on <@{ALICE.id}>: manhandling. Votes: 1 yes, 0 no." in text
    assert "Foul on Alice: a Rusk, manhandling (3 fouls)." in text
    assert "Alice loses a life for 3 fouls (1 left)." in text
    assert "Alice is in the Tarts." in text
    state = await state_of(tables)
    assert "Foul on Alice: a Rusk, manhandling (3 fouls)." in map(str, state.log)
    # Voted down: the closed message says so.
    proposed = await tables.command(ALICE, CHANNEL, "kuriki", "rusk", f"{CAROL.id}:slammed it")
    no = next(i for i in proposed.items if i.custom_id.endswith("-no"))
    closed = await tables.click(BOB, Click.parse(no.custom_id), 902)
    assert closed.embed.title == "⚖ Rusk vote closed: not charged"
    assert "The Rusk on Carol is voted down." in closed.embed.description


@pytest.mark.parametrize("answer", ["accept", "decline"])
async def test_two_players_a_closed_foul_says_what_the_accused_chose(
    tables: Tables, answer: str
) -> None:
    await start_kuriki(tables, ALICE, BOB)
    proposed = await tables.command(ALICE, CHANNEL, "kuriki", "propose", f"{BOB.id}:rude")
    button = next(i for i in proposed.items if i.custom_id.endswith(f"-{answer}"))
    closed = await tables.click(BOB, Click.parse(button.custom_id), 901)
    verdict = "charged" if answer == "accept" else "not charged"
    assert closed.embed.title == f"⚖ Foul vote closed: {verdict}"
    assert "Votes:" not in closed.embed.description
    line = "Foul on Bob: rude (1 foul)." if answer == "accept" else "Bob declines the foul"
    assert line in closed.embed.description


async def test_peek_again_then_the_first_menu_says_already_declared(tables: Tables) -> None:
    """QA 13 through the service: the menu of the roll and the one of Peek again; the Roller
    declares with the second, then picks in the first."""
    reply = await start_kuriki(tables, ALICE, BOB, CAROL)
    players = {p.id: p for p in (ALICE, BOB, CAROL)}
    roller = players[(await state_of(tables)).roller]
    reply = await tables.click(roller, find(reply, "cw"), 777)
    rolled = await tables.click(roller, find(reply, "roll"), 777)
    assert_declaring(await state_of(tables))
    (first,) = rolled.followups
    peek = await tables.click(roller, find(rolled, "peek"), 777)

    def menu(r: Reply) -> str:
        return next(i.custom_id for i in r.items if i.custom_id.startswith("t:kuriki:declare:"))

    await tables.click(roller, Click.parse(menu(peek), ("106",)), 900, ephemeral=True)
    with pytest.raises(NotYourTurn, match="You have already declared Double-Six"):
        await tables.click(roller, Click.parse(menu(first), ("4",)), 901, ephemeral=True)
    assert (await state_of(tables)).declared == 106


def test_the_table_says_whom_a_lie_costs_in_plain_words() -> None:
    """Issue 31: 'responsible:' and 'lifting both cheeks' are the rule text's jargon; the
    table says whom a lie costs a life, and a sneaked peek in plain words."""
    adapter = KurikiTable()
    t = Table()
    t.point(5, 5, 105)
    text = adapter.render(session_of(t)).embed.description
    assert "responsible" not in text and f"a lie costs <@{ANN}> a life" in text, text
    t.sneak(CAT)
    log = "\n".join(str(line) for line in t.state.log)
    assert "sneaking a peek under the cup" in log and "cheeks" not in log, log
