"""CRAP with a bot seat where the bot is no channel member: a DM between Alice and Bob, both
with the app installed. CRAP needs three players, so two people there play with a bot
(`/crap start bots:1`). The bot's turns, its answers to the people's Acquires and its part
of a challenge happen by themselves and are shown through the people's last presses (the
bot may not post there); the people wait for the table to change, as a person would, and
answer what the bot asks of them (its Acquires, its challenges, its co-operation)."""

from __future__ import annotations

import json

import pytest

from bot.settings import GuildSettings
from tests.e2e.bot_play import DICEY, no_bot_is_mentioned
from tests.e2e.crap_play import BOT_AGENDA, CrapGame, play_to_end
from tests.e2e.harness import ALICE, BOB, Driver, read_finished
from tests.e2e.hidden_info import assert_no_public_secrets, strings_in
from tests.e2e.test_play_anywhere import no_channel_requests

QUICK = GuildSettings(bot_delay=0.05)
THRESHOLD = 100

#: Each seed deals a game in which the bot does, besides its turns, what it names (the
#: bot's choices are its own: the seed is what makes it choose so).
SEEDS = [
    pytest.param(
        37,
        ["a bot challenged", "call a bot's bluff"],
        marks=pytest.mark.e2e(seed=37, defaults=QUICK),
        id="the bot challenges and its bluff is called",
    ),
    pytest.param(
        53,
        ["a bot challenged", "let it go"],
        marks=pytest.mark.e2e(seed=53, defaults=QUICK),
        id="the bot challenges and an Acquire is let go",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "the_bot_did"), SEEDS)
async def test_two_people_and_a_bot_play_crap_in_their_dm_to_the_end(
    d: Driver, seed: int, the_bot_did: list[str]
) -> None:
    for user in (ALICE, BOB):
        d.fake.install(user)
    channel = d.fake.add_dm(ALICE, BOB).id
    game = await CrapGame.open(d, [ALICE, BOB], threshold=THRESHOLD, channel=channel, bots=1)
    assert game.bots == [DICEY] and len(game.seats) == 3
    # The people challenge the bot and co-operate with it; then they let bluffs go, so
    # only the bot answers their Acquires (it did, by itself, when they go through).
    game.agenda = list(BOT_AGENDA)
    final = await play_to_end(game)
    assert game.agenda == [], f"moves never made: {game.agenda}"
    did = game.did
    assert did["bot turn"] >= 3 and did["challenge with a bot"] >= 1, did
    assert did["cooperate"] >= 1 and did["acquire"] >= 1, did
    assert did["the bots let it go"] + did["a bot called the bluff"] >= 1, did
    assert game.letting_go == {ALICE.id, BOB.id}
    for what in the_bot_did:
        assert did[what] >= 1, (what, did)

    # The end, as the table shows it: a new message telling the people (not whoever's own
    # press ended it) and no bot.
    assert final.phase == "over" and final.labels == ["Rematch"], final.text
    assert final.winners and max(final.scores.values()) >= THRESHOLD, final.text
    told = d.notified(final.message)
    assert told and told <= {ALICE.id, BOB.id}, final.message.content
    assert (final.message.content or "").startswith(
        " ".join(f"<@{p}>" for p in final.scores if p in told) + ": the game is over."
    ), final.message.content
    # Each person was called to the table (a table posted through the interactions).
    assert all(d.notifications(p) for p in (ALICE, BOB))

    # The finished game, recorded outside any server (its place is the DM).
    [row] = read_finished(d.database, channel)  # type: ignore[arg-type]
    assert row["kind"] == "crap" and row["guild_id"] is None and row["channel_id"] == channel
    assert json.loads(row["bots"]) == [DICEY]
    assert {p["id"] for p in json.loads(row["players"])} == {ALICE.id, BOB.id, DICEY}
    assert row["winner_id"] == final.winners[0]
    assert {int(k): v for k, v in json.loads(row["scores"]).items()} == final.scores

    # Nothing went to the DM over REST; the bot is named, never mentioned.
    no_channel_requests(d, channel)
    no_bot_is_mentioned(d, channel)

    # Hidden information: every public body was checked as Discord accepted it (the card
    # check); the private card lines, the bot's hand seen in a co-operation included, were
    # private all along, and the check saw them.
    referee = game.referee
    referee.after()
    assert referee.watch.leaks == [] and referee.cards_checked > 0
    assert referee.bodies > game.presses // 2 and len(referee.hidden) > 10
    private = "\n".join(t for s in d.fake.sent if not s.public for t in strings_in(s.body))
    assert all(line in private for line in referee.hidden)
    assert_no_public_secrets(d.fake, sorted(referee.hidden))
    referee.stop()
