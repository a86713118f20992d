"""A Kuriki foul vote's public message ends with its result whoever decides it: a person's
press (tests/e2e/test_kuriki_games.py), a bot's vote, or the vote's time running out. The
vote message is the answer to `/kuriki foul`; the bot keeps its id with the session and
edits it when a commit closes the vote, by any path, also after a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.settings import GuildSettings
from tests.e2e.bot_play import DICEY, named, until
from tests.e2e.fake_discord import FakeDiscord, FakeMessage
from tests.e2e.harness import ALICE, BOB, CAROL, TABLE, Driver, FakeUser, running_bot

QUICK = GuildSettings(bot_delay=0.05)


async def start(d: Driver, people: list[FakeUser], bots: int = 0) -> None:
    opened = await d.slash(people[0], TABLE, "kuriki start", lives=2, bots=bots)
    assert opened.message is not None
    for person in people[1:]:
        await d.click(person, TABLE, label="Join", message=opened.message)
    await d.click(people[0], TABLE, label="Start", message=opened.message)


def closed(vote: FakeMessage) -> bool:
    return "Foul vote closed" in vote.text()


@pytest.mark.e2e(seed=5, defaults=QUICK)
async def test_a_bots_deciding_vote_closes_the_vote_message(d: Driver) -> None:
    await start(d, [ALICE, BOB, CAROL], bots=1)
    called = await d.slash(ALICE, TABLE, "kuriki foul", player=BOB, reason="dropped the cup")
    vote = called.message
    assert vote is not None and not vote.ephemeral
    # Two voters, Carol and the bot: Carol agrees; the bot, which sees nothing of what
    # was done at the table, abstains, which decides it (Carol is then the majority).
    agreed = await d.click(CAROL, TABLE, label="Agree: foul", message=vote)
    assert agreed.message is vote and "1 yes, 0 no" in vote.text()
    assert f"{named(DICEY)} is thinking" in vote.text()
    await until(d, "the bot's abstention to close the vote message", lambda: closed(vote))
    await d.settle()
    text = vote.text()
    assert "Foul vote closed: charged" in text and "Votes: 1 yes, 0 no." in text, text
    assert text.rstrip().endswith("(1 foul)."), text
    assert "thinking" not in text and vote.buttons() == []
    assert d.notified(vote) == {CAROL.id}  # the edit called nobody again
    assert "Foul vote on" not in d.table(TABLE).text()
    assert d.fake.violations == []


async def test_a_vote_whose_time_runs_out_says_so_also_after_a_restart(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "e2e.sqlite3"
    async with running_bot(db, fake=fake, seed=5) as d:
        await start(d, [ALICE, BOB, CAROL])
        called = await d.slash(ALICE, TABLE, "kuriki foul", player=BOB)
        vote = called.message
        assert vote is not None and "no votes yet" in vote.text()
        await d.settle()
        # The vote message's id is kept with the session, so a restarted bot reaches it.
        stored = d.stored(TABLE)
        assert stored is not None and vote.id in json.loads(stored["data"])["side"].values()
        await d.crash()
    async with running_bot(db, fake=fake, seed=6) as d:
        # Carol never votes: the vote's minute runs out on the new bot's clock.
        d.skip_ahead(61)
        await until(d, "the timer to close the vote message", lambda: closed(vote))
        await d.settle()
        text = vote.text()
        assert "Foul vote closed: not charged" in text, text
        assert text.rstrip().endswith(f"Time is up: no majority for the foul on {BOB.name}."), text
        assert vote.buttons() == []
        assert "foul" not in d.table(TABLE).text().split("Last moves")[0]
        stored = d.stored(TABLE)
        assert stored is not None and "side" not in json.loads(stored["data"])
        assert d.fake.violations == []


@pytest.mark.e2e(seed=5)
async def test_a_game_ended_with_a_vote_open_closes_the_vote_message(d: Driver) -> None:
    await start(d, [ALICE, BOB, CAROL])
    called = await d.slash(BOB, TABLE, "kuriki foul", player=CAROL)
    vote = called.message
    assert vote is not None and vote.buttons() != []
    await d.slash(ALICE, TABLE, "kuriki end")
    await d.settle()
    text = vote.text()
    assert "Foul vote closed" in text and vote.buttons() == [], text
    assert text.rstrip().endswith("The game ended before the vote closed: nothing was charged.")
    assert d.fake.violations == []
