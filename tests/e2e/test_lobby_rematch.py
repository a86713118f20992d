"""Lobbies that never dead-end and the Rematch button, through the real client: the host's
Leave hands the lobby on, an unstarted lobby closes itself (the timer edits its message over
REST), a game the players left ends with no winner, and Rematch on a finished Farkle table
posts a new lobby that pings exactly the other player."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from games.text import line_from_text
from tests.e2e.farkle_play import open_game, play_to_end, read_table
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    TABLE,
    Driver,
    eventually,
    is_summary,
    mention,
    read_finished,
)


async def test_the_host_leaving_hands_the_lobby_to_the_next_player(d: Driver) -> None:
    opened = await d.slash(ALICE, TABLE, "farkle start")
    await d.click(BOB, TABLE, label="Join")
    await d.click(CAROL, TABLE, label="Join")
    assert f"{mention(ALICE)} (host)" in d.table(TABLE).text()
    left = await d.click(ALICE, TABLE, label="Leave")
    lobby = d.table(TABLE)
    assert left.callback_type == 7 and lobby.id == opened.message.id
    assert f"{mention(BOB)} (host)" in lobby.text() and mention(ALICE) not in lobby.text()
    assert "Join, then any player here presses Start." in lobby.text()

    # Alice left: she cannot start it any more; Carol is in it but is not the host.
    refused = await d.click(ALICE, TABLE, label="Start")
    assert refused.ephemeral and "Only a player in the lobby" in refused.text
    refused = await d.click(CAROL, TABLE, label="Cancel")
    assert refused.ephemeral and "Only the host" in refused.text
    assert d.table(TABLE).text() == lobby.text()

    started = await d.click(CAROL, TABLE, label="Start")
    assert started.callback_type == 7 and started.message.id == opened.message.id
    assert "'s turn" in d.table(TABLE).text()
    stored = d.stored(TABLE)
    assert stored is not None
    players = json.loads(stored["data"])["state"]["players"]
    assert {p["id"] for p in players} == {BOB.id, CAROL.id}


async def test_an_unstarted_lobby_closes_by_itself(d: Driver) -> None:
    opened = await d.slash(ALICE, TABLE, "kuriki start")
    await d.click(BOB, TABLE, label="Join")
    lobby = d.table(TABLE)
    assert "unless someone starts it" in lobby.text()
    edits = lobby.edits
    # Fifteen minutes pass with nobody pressing Start: the bot's clock jumps, and the timer
    # loop (woken as a move wakes it) closes the lobby on its own, editing its message.
    assert d.bot is not None
    d.bot.tables.clock = lambda: time.time() + 901
    d.bot.timers.poke()
    await eventually("the timer closing the lobby", lambda: lobby.edits > edits)
    await d.settle()
    assert lobby.id == opened.message.id and lobby.edits > edits
    assert "Kuriki: lobby closed" in lobby.text()
    assert "closed after 15 minutes with nobody starting it" in lobby.text()
    assert lobby.buttons() == []
    assert d.stored(TABLE) is None
    # The channel is free again.
    again = await d.slash(BOB, TABLE, "farkle start")
    assert again.callback_type == 4 and "join the table" in d.table(TABLE).text()


async def test_a_game_a_player_leaves_ends_with_no_winner(d: Driver) -> None:
    table = await open_game(d, TABLE, [ALICE, BOB])
    said = await d.slash(BOB, TABLE, "farkle leave")
    # Bob is told privately; the channel learns it once, from the table.
    assert said.ephemeral and said.message is not None
    assert said.message.text() == "You left the Farkle game."
    assert not any("Bob left the Farkle game" in m.text() for m in d.fake.public(TABLE))
    final = d.table(TABLE)
    # The end is a new message telling Alice, who is still at the table (not Bob, who left).
    assert final.id != table.id and d.notified(final) == {ALICE.id}
    assert "**Game over:** Bob left, so nobody wins." in final.text()
    assert "Alice wins" not in final.text() and "<@" + str(ALICE.id) + "> wins" not in final.text()
    assert final.content == f"{mention(ALICE)}: the game is over."
    assert "/farkle leave" not in final.text()
    assert [b["label"] for b in final.buttons()] == ["Rematch"]
    assert d.database is not None
    [row] = read_finished(d.database, TABLE)
    assert row["winner_id"] is None and str(line_from_text(row["outcome"])) == "Nobody wins: Bob left."


@pytest.mark.slow
@pytest.mark.e2e(seed=3)
async def test_rematch_on_a_finished_farkle_table_invites_the_other_player(d: Driver) -> None:
    await open_game(d, TABLE, [ALICE, BOB], rules="crappy-malappy", target=1000)
    await play_to_end(d, TABLE, [ALICE, BOB])
    finished = d.table(TABLE)  # the table moved down the channel as turns passed
    assert read_table(finished).finished and finished.find_component(label="Rematch")
    assert "Rematch below, or /farkle start for a new game" in finished.text()
    text_before = finished.text()

    pressed = await d.click(BOB, TABLE, label="Rematch", message=finished)
    # The finished table keeps its text; its Rematch button is spent.
    assert pressed.callback_type == 7 and pressed.message is finished
    assert finished.text() == text_before
    [spent] = finished.buttons()
    assert spent["disabled"] and spent["label"] == "Rematch opened below"

    # A new public message: the lobby, pinging Alice (and only her), with Bob in it.
    [lobby] = pressed.followups
    assert not lobby.ephemeral and lobby.id != finished.id and d.table(TABLE) is lobby
    assert lobby.content == f"{mention(ALICE)}: Bob wants a rematch of Farkle: join below."
    assert "Crappy Malappy" in lobby.text() and "1,000 to win" in lobby.text()
    assert f"{mention(BOB)} (host)" in lobby.text()
    assert lobby.labels() == ["Join", "Leave", "Start", "Cancel", "Add bot", "Remove bot"]
    [body] = [s.body for s in d.fake.sent if s.message_id == lobby.id]
    assert body["allowed_mentions"] == {"parse": [], "users": [str(ALICE.id)]}
    stored = d.stored(TABLE)
    assert stored is not None and stored["message_id"] == lobby.id

    # It is the channel's table now: Alice joins there and Bob starts the rematch.
    await d.click(ALICE, TABLE, label="Join", message=lobby)
    started = await d.click(BOB, TABLE, label="Start", message=lobby)
    assert started.message is lobby and "'s turn" in lobby.text()
    assert "Crappy Malappy" in lobby.text()


@pytest.mark.e2e(seed=21)
async def test_rematch_pressed_by_both_players_at_once_seats_both(d: Driver) -> None:
    await open_game(d, TABLE, [ALICE, BOB], rules="crappy-malappy", target=500)
    await play_to_end(d, TABLE, [ALICE, BOB])
    finished = d.table(TABLE)
    rematch = finished.find_component(label="Rematch")["custom_id"]
    pressed = await d.dispatch_all(
        [d.prepare_click(u, TABLE, custom_id=rematch, message=finished) for u in (BOB, ALICE)]
    )
    lobby = d.table(TABLE)
    assert lobby is not finished and "join the table" in lobby.text()
    assert [lobby] == [m for r in pressed for m in r.followups if not m.ephemeral]
    # Both are in the one lobby; whoever came second is told so, privately.
    assert mention(ALICE) in lobby.text() and mention(BOB) in lobby.text()
    answers = [r.text for r in pressed if r.ephemeral]
    assert len(answers) == 1 and "you joined it below" in answers[0], answers
    assert not any("already running" in (r.text or "") for r in pressed)
    assert d.messages_with_buttons(TABLE) == [lobby]
    started = await d.click(ALICE if f"{mention(ALICE)} (host)" in lobby.text() else BOB,
                            TABLE, label="Start", message=lobby)
    assert "'s turn" in d.on_table(started, lobby).text()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["button", "command"])
async def test_a_cancelled_rematch_lobby_leaves_no_pointer_to_a_live_table(
    d: Driver, how: str
) -> None:
    """A rematch lobby that chatter pushed up is posted again below; cancelled there (its
    Cancel, or /farkle end), it leaves no "⬇ The live table is below." above: the lobby
    message it replaced is gone rather than pointing at a table that never comes."""
    await open_game(d, TABLE, [ALICE, BOB], rules="crappy-malappy", target=1000)
    await play_to_end(d, TABLE, [ALICE, BOB])
    finished = d.table(TABLE)
    pressed = await d.click(BOB, TABLE, label="Rematch", message=finished)
    [first] = pressed.followups
    assert d.bot is not None
    d.bot.config.repost_delay = 0.05
    for said in ("gg", "again?", "me too"):
        await d.say(CAROL, TABLE, said)
    # The third message scheduled the repost (bot.on_message): wait for it to be done, not for
    # a look at the channel, which may fall between the old lobby's removal and the new one.
    await asyncio.gather(*d.bot._reposts)
    await d.settle()
    lobby = d.table(TABLE)
    assert lobby is not first and "join the table" in lobby.text()
    assert first.deleted  # a lobby has no moves to sum up
    if how == "button":
        await d.click(BOB, TABLE, label="Cancel", message=lobby)
    else:
        await d.slash(BOB, TABLE, "farkle end")
    assert d.stored(TABLE) is None
    assert "cancelled the Farkle lobby" in d.last_message(TABLE).text()
    pointers = [m for m in d.channel_messages(TABLE) if m.id > finished.id and is_summary(m)]
    assert pointers == [], [m.text() for m in pointers]
