"""Whole Farkle games through the real client, one per rule set, played the way people play:
`/farkle start` with a low target, Join, Start, then dice and Roll/Bank buttons chosen by
reading the public table message only, to a winner recorded in the finished-games table."""

from __future__ import annotations

import re

import pytest

from bot.i18n import render
from games.text import line_from_text
from tests.e2e.fake_discord import embed_text
from tests.e2e.farkle_play import open_game, play_to_end, points, read_table
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    GUILD,
    MALLORY,
    TABLE,
    Driver,
    FakeUser,
    is_summary,
    mention,
)
from tests.e2e.hidden_info import assert_no_public_secrets, private_texts, watch_public_secrets

PLAYERS = [ALICE, BOB, CAROL, DAVE]
NAMES = {
    "crappy-malappy": "Crappy Malappy",
    "classic": "Classic Farkle",
    "on-the-table": "On the Table",
}

# Answers only the clicker may see; in a game with nothing hidden they stand in for the
# hidden values of the games to come.
EPHEMERAL_ONLY = [
    "You are not in this game",
    "It's not your turn",
    "That moment has passed",
    "That table is old",
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "players", "target"),
    [
        pytest.param(
            "crappy-malappy", 2, 1000, marks=pytest.mark.e2e(seed=3), id="crappy-malappy-2p"
        ),
        pytest.param("classic", 3, 1500, marks=pytest.mark.e2e(seed=4), id="classic-3p"),
        pytest.param("on-the-table", 4, 1000, marks=pytest.mark.e2e(seed=5), id="on-the-table-4p"),
    ],
)
async def test_a_whole_game(d: Driver, preset: str, players: int, target: int) -> None:
    table = PLAYERS[:players]
    watch = watch_public_secrets(d.fake, EPHEMERAL_ONLY)
    opened = await d.slash(table[0], TABLE, "farkle start", rules=preset, target=target)
    assert opened.callback_type == 4 and not opened.ephemeral
    assert NAMES[preset] in d.table(TABLE).text() and f"{target:,}" in d.table(TABLE).text()
    for p in table[1:]:
        joined = await d.click(p, TABLE, label="Join")
        assert joined.callback_type == 7 and joined.message is opened.message
        assert d.table(TABLE) is opened.message and mention(p) in opened.message.text()
    started = await d.click(table[0], TABLE, label="Start")
    # The lobby becomes a summary; the game's table is posted below, calling the first
    # player, unless that is the starter: nobody is notified of their own press, and the
    # lobby becomes the table in place.
    first = d.on_table(started, opened.message)

    # Before the first roll: a bystander, a player out of turn, and a look at the table.
    view = read_table(d.table(TABLE))
    assert view.roll is not None and view.current in {p.id for p in table}
    if view.current == table[0].id:
        assert first is opened.message and d.notified(first) == set()
    else:
        assert first is not opened.message and d.notified(view.message) == {view.current}
    waiting = next(p for p in table if p.id != view.current)
    for who, says in ((MALLORY, "not in this game"), (waiting, "not your turn")):
        refused = await d.click(who, TABLE, custom_id=view.roll["custom_id"])
        assert refused.callback_type == 4 and refused.ephemeral and says in refused.text
    assert d.table(TABLE) is view.message and view.message.text() == view.text
    shown = embed_text(view.message.embeds[0])
    buttons = [(b["label"], b["custom_id"]) for b in view.buttons()]
    # /farkle status posts the live table at the bottom of the channel, for everyone, with
    # its buttons (notifying nobody); the one above becomes a summary.
    status = await d.slash(waiting, TABLE, "farkle status")
    assert status.callback_type == 4 and not status.ephemeral and status.message is not None
    assert d.table(TABLE) is status.message and d.notified(status.message) == set()
    assert embed_text(status.message.embeds[0]) == shown
    assert [(b["label"], b["custom_id"]) for b in status.message.buttons()] == buttons
    assert is_summary(view.message) and view.message.buttons() == []

    presses = await play_to_end(d, TABLE, table)
    assert presses > 0
    # Each rule set speaks its own words: in Crappy Malappy a farkle is a crappy.
    said = "\n".join(m.text() for m in d.fake.public(TABLE))
    other = "Farkle" if preset == "crappy-malappy" else "Crappy"
    assert f": {other}" not in said and f"'s {other.lower()}" not in said

    final = read_table(d.table(TABLE))
    assert final.finished and [b["label"] for b in final.buttons()] == ["Rematch"]
    assert "Rematch below, or /farkle start" in final.text and "/farkle leave" not in final.text
    # Every table message above the last one is a summary: only the live table had buttons.
    assert d.tables(TABLE) == [final.message]
    assert opened.message in d.summaries(TABLE) or opened.message is final.message
    assert final.winner is not None and final.winner_score is not None
    assert f"{mention(player_by_id(final.winner))} wins the Farkle game!" in final.message.content

    assert d.bot is not None
    assert await d.bot.store.load_session(TABLE) is None
    [row] = await d.bot.store.finished_games(TABLE)
    assert row["kind"] == "farkle" and row["guild_id"] == GUILD and row["channel_id"] == TABLE
    assert row["winner_id"] == final.winner
    assert {p["id"] for p in row["players"]} == {p.id for p in table}  # type: ignore[index,union-attr]
    assert row["scores"] == {str(i): s for i, s in final.scores.items()}
    assert row["scores"][str(final.winner)] == final.winner_score  # type: ignore[index]
    winner_name = player_by_id(final.winner).name
    assert render(line_from_text(row["outcome"])) == f"{winner_name} wins with {final.winner_score:,}."
    assert row["rules"]["name"] == NAMES[preset] and row["rules"]["target"] == target  # type: ignore[index]

    # What only one player saw never reached the table, its edits or anyone else.
    shown_privately = private_texts(d.fake)
    assert any("It's not your turn" in t for t in shown_privately)
    assert watch.leaks == []
    assert_no_public_secrets(d.fake, shown_privately)
    assert_no_public_secrets(d.fake, EPHEMERAL_ONLY)


def player_by_id(user_id: int) -> FakeUser:
    return next(p for p in PLAYERS if p.id == user_id)


@pytest.mark.e2e(seed=7)
async def test_a_two_throw_turn_takes_three_taps(d: Driver) -> None:
    """Roll, "Keep N & roll", "Keep N & bank T": a typical turn of two throws in three taps,
    with the points kept on each label. Turns that farkle (or stay below the bank
    minimum) are played on with the Keep buttons until one scores on both throws."""
    players = [ALICE, BOB]
    table = await open_game(d, TABLE, players)

    def keep(label: str) -> dict | None:
        return next(
            (b for b in table.buttons() if b["label"].startswith("Keep") and label in b["label"]),
            None,
        )

    for _ in range(40):
        view = read_table(table)
        who = next(p for p in players if p.id == view.current)
        before = view.scores.get(who.id, 0)
        table = d.on_table(await d.click(who, TABLE, label="Roll 6 dice", message=table), table)
        roll = keep(" & roll ")
        if roll is None:  # a farkle: the next player's turn
            continue
        table = d.on_table(
            await d.click(who, TABLE, custom_id=roll["custom_id"], message=table), table
        )
        bank = keep(" & bank")
        if bank is not None:
            # "Keep 150 & bank 400": the 150 kept, and the turn total the press banks.
            total = re.search(r"turn total \*\*([\d,]+)\*\*", table.text())
            assert total is not None, table.text()
            worth = points(total[1]) + points(bank["label"].split()[1])
            assert bank["label"].endswith(f"& bank {worth:,}"), bank["label"]
            table = d.on_table(
                await d.click(who, TABLE, custom_id=bank["custom_id"], message=table), table
            )
            after = read_table(table)
            assert after.current != who.id and after.scores[who.id] == before + worth
            assert f"banks {worth:,}" in table.text(), table.text()
            break
        while read_table(table).current == who.id and (roll := keep(" & roll ")) is not None:
            table = d.on_table(
                await d.click(who, TABLE, custom_id=roll["custom_id"], message=table), table
            )
    else:
        raise AssertionError("no turn scored on two throws in 40 turns")
    assert not d.problems
