"""Issue 31: one statement of each fact per message, read as players on phones see it
through the real client: the lobby fits above its buttons, the winner is said once, the
Kuriki Next Guy is named once (the ping calls him, the table says what he may do)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.farkle_play import open_game as open_farkle
from tests.e2e.farkle_play import play_to_end as play_farkle
from tests.e2e.farkle_play import read_table
from tests.e2e.harness import ALICE, BOB, CAROL, TABLE, Driver, mention
from tests.e2e.kuriki_play import KurikiGame

#: Lines of text a phone shows above the lobby's two rows of buttons without scrolling
#: (a wrapped paragraph counts as one: the test counts the lines the bot writes).
LOBBY_LINES = 6


@pytest.mark.parametrize("kind", ["farkle", "kuriki", "crap"])
async def test_the_lobby_fits_above_its_buttons(d: Driver, kind: str) -> None:
    """Title, the rules in one paragraph, the timer, who is in (one line, however many),
    how to start: not 8 lines over 6 buttons."""
    opened = await d.slash(ALICE, TABLE, f"{kind} start")
    for p in (BOB, CAROL):
        await d.click(p, TABLE, label="Join", message=opened.message)
    lobby = d.table(TABLE)
    lines = [line for line in lobby.text().splitlines() if line.strip()]
    assert len(lines) <= LOBBY_LINES, "\n".join(lines)
    who = next(line for line in lines if mention(BOB) in line)
    assert all(mention(p) in who for p in (ALICE, BOB, CAROL)), who
    assert sum(f"{kind} rules" in line for line in lines) == 1, lines


@pytest.mark.slow
@pytest.mark.e2e(seed=7)
async def test_the_farkle_winner_is_said_once(d: Driver) -> None:
    players = [ALICE, BOB]
    await open_farkle(d, TABLE, players, rules="classic", target=1000)
    await play_farkle(d, TABLE, players)
    final = read_table(d.table(TABLE))
    assert final.winner is not None
    winner = mention(next(p for p in players if p.id == final.winner))
    text = final.message.text()
    assert text.count(" wins") == 1 and "Game over" not in text, text
    assert f"🏆 {winner} wins the Farkle game!" in (final.message.content or "")


@pytest.mark.e2e(seed=3)
async def test_the_next_guy_is_named_once(d: Driver) -> None:
    game = await KurikiGame.open(d, [ALICE, BOB, CAROL])
    await game.choose()
    roll = await game.roll()
    assert roll is not None, "a Kuriki: choose another seed"
    cup = await game.declare(roll, roll.options[-1])
    ng = mention(game.user(cup.next_guy))
    text = cup.message.text()
    assert text.count("Next Guy") == 1, text
    assert len(re.findall("roll, pull or pass", text, re.IGNORECASE)) == 1, text
    assert cup.message.content == f"{ng}: your move.", cup.message.content
