"""A whole 3-player CRAP game through the real client: `/crap start threshold:150 jokers:True`,
Join, Start, then every move chosen from what the mover can see (the public table and their
own "My hand" replies), to a winner recorded in the finished-games table; the
hidden-information check (`CardReferee`, see `tests/e2e/crap_play.py`) runs on every public
body the bot sends; why card labels need a ledger rather than plain secret strings is
explained there."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from bot.i18n import render
from bot.tables.crap import CrapTable
from bot.verify import verdict
from games.crap import engine
from games.crap.cards import label, labels
from games.text import line_from_json
from tests.e2e.crap_play import AGENDA, CrapGame, play_to_end
from tests.e2e.harness import ALICE, BOB, CAROL, GUILD, MALLORY, TABLE, Driver, read_finished
from tests.e2e.hidden_info import (
    assert_no_public_secrets,
    assert_sealed_until_revealed,
    strings_in,
)
from tests.e2e.history_view import share_whole_log
from tests.e2e.live_table import state_of

PLAYERS = [ALICE, BOB, CAROL]
THRESHOLD = 150


@pytest.mark.slow
@pytest.mark.e2e(seed=2)
async def test_a_whole_three_player_game(d: Driver) -> None:
    game = await CrapGame.open(d, PLAYERS, threshold=THRESHOLD)
    table = game.table()

    # Before the first move: a bystander has no hand; a player who waits sees their cards
    # and nothing to do.
    refused = await d.click(MALLORY, TABLE, label="My hand", message=game.table_message)
    assert refused.ephemeral and "not in this game" in refused.text
    waiting = next(p for p in PLAYERS if p.id != table.current)
    hand = await game.my_hand(waiting)
    assert "Nothing to do right now." in hand.message.text()
    assert list(hand.components) == ["letgo"]  # only their own setting, Let bluffs go

    # The test's agenda: the first movers protect, acquire (one lets it go, one calls the
    # bluff of an honest caller), challenge, co-operate, recycle and bluff an Acquire (called).
    game.agenda = list(AGENDA)
    final = await play_to_end(game)
    assert game.agenda == [], f"moves never made: {game.agenda}"

    did = game.did
    for move in ("score", "protect", "challenge", "cooperate", "recycle", "scoring round"):
        assert did[move] >= 1, (move, did)
    assert did["acquire"] >= 2 and did["let it go"] >= 1 and did["call bluff"] >= 2, did
    # Once everyone let bluffs go, Acquires went through without anyone pressing anything.
    assert did["let go by setting"] >= 1, did
    assert did["proof"] >= 1 and did["bluff caught"] >= 1, did
    assert did["commit"] >= 2 and did["guess"] >= 2, did
    # Each person's side of a challenge in three taps, called once for each step that came
    # by the other's move, the open reply showing that step (`settle_challenge`).
    assert did["challenge side in three taps"] >= 2, did
    assert did["protected returned"] >= 1, did  # a scoring round with protected cards out

    # The end, as the table shows it.
    assert final.phase == "over" and final.labels == ["Rematch"], final.text
    assert "Rematch below, or /crap start for a new game" in final.text
    assert [a["filename"] for a in final.message.attachments] == ["story.png"]  # the chart
    assert final.winners and max(final.scores.values()) >= THRESHOLD, final.text
    assert all(final.scores[w] == max(final.scores.values()) for w in final.winners)
    names = " and ".join(f"<@{w}>" for w in final.winners)
    verb = "win" if len(final.winners) > 1 else "wins"
    # A new message telling everyone but whoever's press ended it (nobody is notified of
    # their own press).
    head = (final.message.content or "").partition(": the game is over.")[0]
    told = [p for p in final.scores if f"<@{p}>" in head]
    assert len(told) == len(final.scores) - 1 and d.notified(final.message) == set(told)
    everyone = " ".join(f"<@{p}>" for p in told)
    assert final.message.content == f"{everyone}: the game is over.\n🏆 {names} {verb} the CRAP game!"
    # Only the live table remains one: every table message above it became a summary.
    assert d.tables(TABLE) == [final.message] and len(d.summaries(TABLE)) >= 2

    # The finished-games row, as committed to the database file.
    assert d.database is not None
    [row] = read_finished(d.database, TABLE)
    assert row["kind"] == "crap" and row["guild_id"] == GUILD and row["channel_id"] == TABLE
    assert row["winner_id"] == final.winners[0]
    scores = {int(k): v for k, v in json.loads(row["scores"]).items()}
    assert scores == final.scores and scores[row["winner_id"]] >= THRESHOLD
    rules = json.loads(row["rules"])
    assert rules["threshold"] == THRESHOLD and rules["jokers"] is True
    assert rules["winners"] == final.winners
    # Its deck and dice were sealed: the seed in no message before this last table, and the
    # deck, every reshuffle and every die are what the seed gives.
    dice = json.loads(row["dice"])
    assert_sealed_until_revealed(d.fake, dice["seed"], d.logs.records)
    assert verdict(dice).ok
    shuffles = [e for m in dice["moves"] for e in m["draws"] if e[0] == "shuffle"]
    assert shuffles[0][1] == 0 and len(shuffles[0][2]) == 108  # two decks and 4 jokers

    # Hidden information: every public body was checked after its press; the ephemeral card
    # lines were private all along (and the check saw them: they are not vacuous).
    referee = game.referee
    assert referee.watch.leaks == []
    assert referee.bodies > game.presses // 2 and referee.cards_checked > 0
    assert len(referee.hidden) > 10
    private = "\n".join(t for s in d.fake.sent if not s.public for t in strings_in(s.body))
    assert all(line in private for line in referee.hidden)
    assert_no_public_secrets(d.fake, sorted(referee.hidden))
    referee.check()  # nothing sent after the last press either
    referee.stop()

    # The whole log, shared from the history page by page: every line the game wrote, and
    # still none of the private lines of anyone's hand.
    stored = [render(line_from_json(x)) for x in json.loads(row["log"])]
    assert await share_whole_log(d, PLAYERS[0], TABLE) == stored
    assert len(json.loads(row["log"])) > game.presses // 2
    assert_no_public_secrets(d.fake, sorted(referee.hidden))


# The card check must be able to fail: two leaks planted where a real one could come from,
# the engine's log (a Protect naming its card) and the table's rendering (the face-down
# cards of a challenge before they are turned up), each caught on the press that shows it.


def _protect_names_its_card(monkeypatch: pytest.MonkeyPatch) -> None:
    protect = engine._protect

    def leaky(s: engine.CrapState, me: Any, cards: list[int], events: list[Any]) -> None:
        protect(s, me, cards, events)
        events[-1].text = f"{events[-1].text} It is the {label(cards[0])}."

    monkeypatch.setattr(engine, "_protect", leaky)


def _table_shows_face_down_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    situation = CrapTable._situation

    def leaky(self: CrapTable, session: Any, state: engine.CrapState) -> Any:
        lines, content = situation(self, session, state)
        if state.challenge is not None:
            lines += [labels(cards) for cards in state.challenge.committed.values()]
        return lines, content

    monkeypatch.setattr(CrapTable, "_situation", leaky)


@pytest.mark.parametrize("plant", [_protect_names_its_card, _table_shows_face_down_cards])
@pytest.mark.e2e(seed=2)
async def test_the_card_check_catches_a_leak(
    d: Driver, monkeypatch: pytest.MonkeyPatch, plant: Callable[[pytest.MonkeyPatch], None]
) -> None:
    plant(monkeypatch)
    game = await CrapGame.open(d, PLAYERS, threshold=THRESHOLD)
    game.agenda = list(AGENDA)
    with pytest.raises(AssertionError, match="a card nobody was shown") as caught:
        await play_to_end(game)
    assert "PATCH /api/v10/channels/" in str(caught.value)  # the table's edit
    assert game.presses < 30
    game.referee.stop()


@pytest.mark.e2e(seed=11)
async def test_the_log_button_shows_the_game_so_far_privately(d: Driver) -> None:
    players = [ALICE, BOB, CAROL]
    await d.slash(ALICE, TABLE, "crap start")
    for p in players[1:]:
        await d.click(p, TABLE, label="Join")
    await d.click(ALICE, TABLE, label="Start")
    table = d.table(TABLE)
    shown = await d.click(BOB, TABLE, label="Log", message=table)
    assert shown.ephemeral and shown.message is not None and shown.message.visible_to == BOB.id
    assert "The game so far" in shown.message.text() and "draws" in shown.message.text()
    assert d.table(TABLE) is table


@pytest.mark.e2e(seed=11)
async def test_a_spectator_may_read_the_log_privately_without_a_hidden_card(d: Driver) -> None:
    """The log is public (it is what the table showed), so Mallory, who is not in the game,
    reads it too: the same log a player gets, in a reply only she sees, with no card that
    was never shown to everyone. Every other button stays the players'."""
    await d.slash(ALICE, TABLE, "crap start")
    for p in PLAYERS[1:]:
        await d.click(p, TABLE, label="Join")
    await d.click(ALICE, TABLE, label="Start")
    table = d.table(TABLE)
    state = state_of(d, "crap")
    seen = await d.click(MALLORY, TABLE, label="Log", message=table)
    assert seen.ephemeral and seen.message is not None and seen.message.visible_to == MALLORY.id
    text = seen.message.text()
    assert "The game so far" in text and all(render(line) in text for line in state.log), text
    held = {label(c) for p in state.players for c in p.hand + p.protected}
    assert not any(card in text for card in held), text  # the deal shows no card
    mine = await d.click(BOB, TABLE, label="Log", message=table)
    assert mine.message is not None and mine.message.text() == text
    refused = await d.click(MALLORY, TABLE, label="My hand", message=table)
    assert refused.ephemeral and "not in this game" in refused.text, refused.text
    assert d.table(TABLE) is table
