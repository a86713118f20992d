"""Bot players through the real client: one person plays whole games against bots, a bot's
pending move survives a kill -9, and an absent person's move is made by the bot policy."""

from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from bot import display
from bot.settings import GuildSettings
from games.text import line_from_text
from tests.e2e.bot_play import (
    DICEY,
    ROLLY,
    asks,
    choose_first,
    game_over,
    live,
    named,
    no_bot_is_mentioned,
    own_ephemeral,
    play_farkle_against_dicey,
    run_out_turns,
    select_of,
    until,
)
from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.farkle_play import next_press, read_table
from tests.e2e.harness import (
    ADMIN,
    ALICE,
    BOB,
    CAROL,
    TABLE,
    Driver,
    FakeUser,
    bot_process,
    is_summary,
    mention,
    read_finished,
    read_session,
    running_bot,
)
from tests.e2e.hidden_info import strings_in

QUICK = GuildSettings(bot_delay=0.05)

#: A table that waits on a bot's move: its turn, a first Roller's direction, its cup, its
#: answer as the Next Guy.
BOT_TO_ACT = re.compile(
    r"\*\*🤖 [^*]+'s turn\*\*|🤖 [^\n*]+ rolled highest|🥤 🤖 [^\n*]+ holds the cup|"
    r"\*\*Next Guy: 🤖"
)


def live_buttons(value: object) -> list[str]:
    """The labels of the enabled buttons anywhere in a sent body."""
    if isinstance(value, list):
        return [label for v in value for label in live_buttons(v)]
    if not isinstance(value, dict):
        return []
    if value.get("type") == 2 and value.get("custom_id") and not value.get("disabled"):
        return [str(value.get("label"))]
    return [label for v in value.values() for label in live_buttons(v)]


def situation(value: object) -> str:
    """The descriptions in a sent body: what its table says it waits for (not its log)."""
    if isinstance(value, list):
        return "\n".join(situation(v) for v in value)
    if not isinstance(value, dict):
        return ""
    own = value.get("description")
    return "\n".join(
        [own if isinstance(own, str) else "", *(situation(v) for v in value.values())]
    ).strip()


def check_bot_tables(d: Driver, usable: set[str]) -> int:
    """Every public table the bot sent (posts and edits alike) while a bot was to act says
    the bot is thinking, and offers a person only `usable` buttons (never one of the bot's
    move: "It's not your turn" for anyone who pressed it); returns how many there were."""
    seen = 0
    for sent in d.fake.sent:
        text = situation(sent.body)
        if not sent.public or "The live table is below" in text or not BOT_TO_ACT.search(text):
            continue
        seen += 1
        # (A bot Roller is "peeking under the cup…", which says it already.)
        assert "is thinking…" in text or "is peeking under the cup…" in text, text
        assert "to act" not in text and "to keep the best" not in text, text
        assert set(live_buttons(sent.body)) <= usable, (live_buttons(sent.body), text)
    return seen


def check_the_end_pings(d: Driver, person: FakeUser) -> None:
    """The finished table is a message of its own (an edit notifies nobody) that mentions
    the one person of the game, when a bot's move ended it. When her own press ended it,
    nobody is told (nobody is notified of their own press): the table she pressed (or whose
    private menu she used) is edited in place, no message is posted after her press."""
    final = d.table(TABLE)
    ended = f"<@{person.id}>: the game is over."
    if (final.content or "").startswith(ended):
        assert d.notified(final) == {person.id}, final.content
        return
    [*_, last] = d.fake.interactions.values()
    assert last.user.id == person.id and final.id < last.id, final.content
    assert "the game is over" not in (final.content or ""), final.content
    assert [m for m in d.summaries(TABLE) if m.id == final.id] == []


@pytest.mark.slow
@pytest.mark.e2e(seed=11, defaults=QUICK)
async def test_one_person_plays_farkle_against_a_bot_to_the_end(d: Driver) -> None:
    opened = await d.slash(ALICE, TABLE, "farkle start", rules="classic", target=1000, bots=1)
    assert opened.message is not None and not opened.ephemeral
    lobby = opened.message.text()
    assert named(DICEY) in lobby and "Players (2/" in lobby
    started = await d.click(ALICE, TABLE, label="Start", message=opened.message)  # two taps
    assert started.callback_type == 7
    presses, bot_turns = await play_farkle_against_dicey(d)
    final = d.table(TABLE).text()
    assert bot_turns > 0 and presses > 0
    [row] = read_finished(d.database, TABLE)  # type: ignore[arg-type]
    assert json.loads(row["bots"]) == [DICEY]
    assert {p["id"] for p in json.loads(row["players"])} == {ALICE.id, DICEY}
    assert row["winner_id"] in (ALICE.id, DICEY)
    winner = named(DICEY) if row["winner_id"] == DICEY else f"<@{ALICE.id}>"
    assert f"{winner} wins" in final
    # The bot's moves read in the log as a person's do, under its name.
    everything = "\n".join(m.text() for m in d.fake.public(TABLE))
    assert f"{named(DICEY)} rolled" in everything
    assert check_bot_tables(d, usable=set()) >= bot_turns
    check_the_end_pings(d, ALICE)
    no_bot_is_mentioned(d)


@pytest.mark.e2e(seed=12, defaults=QUICK)
async def test_one_person_plays_kuriki_against_two_bots(d: Driver) -> None:
    opened = await d.slash(ALICE, TABLE, "kuriki start", lives=2, bots=2)
    assert opened.message is not None
    assert named(DICEY) in opened.message.text() and named(ROLLY) in opened.message.text()
    await d.click(ALICE, TABLE, label="Start", message=opened.message)
    me = mention(ALICE)

    def alice_moves(text: str) -> bool:
        return (
            f"{me} rolled highest: first Roller" in text
            or f"🥤 {me} holds the cup: **fresh roll**" in text
            or f"**Next Guy: {me}**" in text
        )

    moves = 0
    while True:
        await until(d, "Alice's move or the end", lambda: game_over(live(d)) or alice_moves(live(d)))
        table = d.table(TABLE)
        text = table.text()
        if game_over(text):
            break
        if f"{me} rolled highest" in text:
            ways = [label for label in table.labels() if label.endswith(" next")]
            await d.click(ALICE, TABLE, label=ways[0], message=table)
        elif f"**Next Guy: {me}**" in text:
            await d.click(ALICE, TABLE, label="Pull", message=table)
        else:
            rolled = await d.click(ALICE, TABLE, label="Roll", message=table)
            secret = own_ephemeral(rolled, ALICE)
            if secret is not None:  # a Kuriki is shown to everyone, nothing to declare
                declared = await choose_first(d, ALICE, secret, "declare")
                assert declared.callback_type == 7, declared.text
        moves += 1
        assert moves < 300
    final = d.table(TABLE).text()
    [row] = read_finished(d.database, TABLE)  # type: ignore[arg-type]
    assert json.loads(row["bots"]) == [DICEY, ROLLY]
    assert row["winner_id"] in (ALICE.id, DICEY, ROLLY)
    shared = json.loads(row["rules"]).get("winners")
    if shared:  # Alice's last life went while both bots stood: it ended right there
        assert f"🏆 {named(DICEY)} and {named(ROLLY)} win the Kuriki game!" in final
    else:
        winner = f"<@{ALICE.id}>" if row["winner_id"] == ALICE.id else named(row["winner_id"])
        assert f"🏆 {winner} wins the Kuriki game!" in final
    everything = "\n".join(m.text() for m in d.fake.public(TABLE))
    # The bots' moves read as a person's: they roll and declare, and pull or take the cup.
    assert f"{named(DICEY)} declares" in everything or f"{named(ROLLY)} declares" in everything
    # While a bot acts, a person has only Peek and Sneak a peek (under a bot's cup).
    assert check_bot_tables(d, usable={"Peek", "Sneak a peek (foul)"}) > 0
    check_the_end_pings(d, ALICE)
    no_bot_is_mentioned(d)
    assert [m for m in d.fake.visible(ALICE.id, TABLE) if m.ephemeral and m.visible_to != ALICE.id] == []


def crap_asks(text: str, me: str) -> bool:
    """The CRAP table waits for `me`: my turn, an Acquire to answer, a challenge to finish."""
    lines = text.splitlines()
    # ⏳ marks the rows of whom the table waits on (an Acquire to answer, a challenge).
    return f"**{me}'s turn**" in text or any(line.startswith(f"⏳ {me} ") for line in lines)


@pytest.mark.slow
@pytest.mark.e2e(seed=13, defaults=QUICK)
async def test_one_person_plays_crap_against_two_bots(d: Driver) -> None:
    opened = await d.slash(ALICE, TABLE, "crap start", threshold=100, bots=2)
    assert opened.message is not None and "Players (3/6)" in opened.message.text()
    await d.click(ALICE, TABLE, label="Start", message=opened.message)
    me = mention(ALICE)
    # Alice lets every bluff go once (My hand, Let bluffs go): the bots' Acquires then go
    # through as soon as the other bot has answered, and she never presses Let it go.
    first = await d.click(ALICE, TABLE, label="My hand", message=d.table(TABLE))
    setting = own_ephemeral(first, ALICE)
    assert setting is not None, first.text
    await d.click(ALICE, TABLE, label="Let bluffs go: off", message=setting)
    assert "(**Let bluffs go** is on)" in setting.text(), setting.text()
    moves = 0
    while True:
        await until(
            d, "Alice's move or the end", lambda: game_over(live(d)) or crap_asks(live(d), me)
        )
        table = d.table(TABLE)
        text = table.text()
        if game_over(text):
            break
        # her turn, or a challenge she is in
        opened_hand = await d.click(ALICE, TABLE, label="My hand", message=table)
        hand = own_ephemeral(opened_hand, ALICE)
        assert hand is not None, opened_hand.text
        if select_of(hand, "commit") is not None:
            await choose_first(d, ALICE, hand, "commit")
        elif (guess := select_of(hand, "guess")) is not None:  # the first value and suit
            values = [guess["options"][0]["value"], guess["options"][-1]["value"]]
            await d.select(ALICE, TABLE, values, custom_id=guess["custom_id"], message=hand)
        else:
            await d.click(ALICE, TABLE, label="Recycle my hand", message=hand)
        moves += 1
        assert moves < 400
    final = d.table(TABLE).text()
    [row] = read_finished(d.database, TABLE)  # type: ignore[arg-type]
    assert json.loads(row["bots"]) == [DICEY, ROLLY]
    assert "wins" in final or "win" in final
    # Every public table the bot sent (edits included): the bots' turns were shown.
    everything = "\n".join(
        text for sent in d.fake.sent if sent.public for text in strings_in(sent.body)
    )
    assert f"**{named(DICEY)}'s turn**" in everything
    assert "Acquire" in everything and "Everyone lets bluffs go." not in everything  # bots answer
    pressed = [
        i
        for i in d.fake.interactions.values()
        if i.user.id == ALICE.id and ":nocall:" in str((i.payload.get("data") or {}).get("custom_id"))
    ]
    assert pressed == [], "Alice pressed Let it go"
    assert f"**{named(DICEY)}'s turn**: {named(DICEY)} is thinking…" in everything
    # A bot's turn leaves a person their hand and the log, never "press My hand to act".
    assert check_bot_tables(d, usable={"My hand", "Log"}) > 0
    check_the_end_pings(d, ALICE)
    no_bot_is_mentioned(d)


@pytest.mark.slow
@pytest.mark.e2e(seed=11, defaults=GuildSettings(bot_delay=0.3))
async def test_a_bots_move_while_the_table_is_posted_afresh_edits_the_new_table(
    d: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/farkle status` posts the table afresh while 🤖 Dicey is thinking, and Discord is
    slow to reduce the old table to its summary: Dicey moves meanwhile. His move was decided
    with the old message as the table; it is shown on the new one, so only one table is ever
    live, and none is left behind showing a past state (the old one brought back above it)."""
    opened = await d.slash(ALICE, TABLE, "farkle start", rules="classic", target=1000, bots=1)
    await d.click(ALICE, TABLE, label="Start", message=opened.message)
    while f"{named(DICEY)} is thinking…" not in d.table(TABLE).text():
        table = d.table(TABLE)
        _, button = next_press(read_table(table), bank_at=50)
        await d.click(ALICE, TABLE, custom_id=button["custom_id"], message=table)
    old = d.table(TABLE)
    retire = display.retire

    async def slowly(bot: Any, update: Any, message_id: int) -> None:
        await until(
            d,
            "Dicey's move, while the old table waits to be retired",
            lambda: read_session(d.database, TABLE)["revision"] > update.revision,  # type: ignore[arg-type, index]
        )
        await retire(bot, update, message_id)

    monkeypatch.setattr(display, "retire", slowly)
    status = await d.slash(ALICE, TABLE, "farkle status")
    monkeypatch.setattr(display, "retire", retire)
    assert status.message is not None and is_summary(old), old.text()
    await until(d, "Alice's turn", lambda: asks(d, ALICE) or game_over(live(d)))
    await d.settle()
    assert f"{named(DICEY)} rolled" in d.table(TABLE).text()
    assert d.tables(TABLE) == [d.table(TABLE)], [m.text() for m in d.tables(TABLE)]
    assert is_summary(old) and is_summary(status.message), status.message.text()


@pytest.mark.slow
async def test_a_pending_bot_move_survives_a_kill_9(fake: FakeDiscord, tmp_path: Path) -> None:
    """The bot's move is due like a turn deadline: the process is SIGKILLed while it waits,
    and the next process makes that move at the stored time, then the game plays on."""
    db = tmp_path / "e2e.sqlite3"
    async with bot_process(db, fake, seed=41) as child:
        await child.slash(ADMIN, TABLE, "config bots", delay=4.0)  # room to kill it in time
        opened = await child.slash(
            ALICE, TABLE, "farkle start", rules="classic", target=1000, bots=1
        )
        await child.click(ALICE, TABLE, label="Start", message=opened.message)
        while (row := read_session(db, TABLE)) and not json.loads(row["data"])["bot_deadline"]:
            table = child.table(TABLE)  # Alice's turn: she plays until it passes to the bot
            _, button = next_press(read_table(table), bank_at=50)
            await child.click(ALICE, TABLE, custom_id=button["custom_id"], message=table)
        assert row is not None
        shown = child.table(TABLE).text()
        assert f"**{named(DICEY)}'s turn**" in shown, shown
        await child.kill()
        assert child.process is not None and child.process.returncode == -signal.SIGKILL
    due = json.loads(row["data"])["bot_deadline"]
    after_kill = read_session(db, TABLE)
    assert after_kill is not None and after_kill["revision"] == row["revision"]  # not moved

    async with running_bot(db, fake=fake, seed=42) as d:
        await d.slash(ADMIN, TABLE, "config bots", delay=0.05)
        await until(
            d,
            "the bot's pending move after the restart, on the table",
            # A throw ("rolled 2 3 5"), not the seating roll ("rolled highest")
            lambda: re.search(
                rf"{re.escape(named(DICEY))} rolled \d",
                "\n".join(m.text() for m in d.fake.public(TABLE)),
            )
            is not None,
        )
        assert time.time() >= due  # made when it was due, not before
        await play_farkle_against_dicey(d)
        [finished] = read_finished(db, TABLE)
        assert json.loads(finished["bots"]) == [DICEY]
        no_bot_is_mentioned(d)
        assert d.problems == []


@pytest.mark.e2e(seed=14, defaults=GuildSettings(bot_delay=0.05, turn_timer=15))
async def test_an_absent_roller_is_played_by_the_bot_policy(d: Driver) -> None:
    """Nobody presses: each absent player's move is the policy's, in the usual words, so an
    absent Roller's declaration says nothing about the dice ("whatever the dice" is gone)."""
    opened = await d.slash(ALICE, TABLE, "kuriki start", lives=3)
    # Three players: the first Roller's choice of who plays next is one more turn that runs
    # out, so that a player reaches three in a row before everyone let two go.
    for joining in (BOB, CAROL):
        await d.click(joining, TABLE, label="Join", message=opened.message)
    await d.click(ALICE, TABLE, label="Start", message=opened.message)

    def played_for() -> bool:
        log = "\n".join(m.text() for m in d.fake.public(TABLE))
        rolled = r"(?:rolls a fresh roll|takes the cup and rolls on .+?)"
        return bool(re.search(rf"(Alice|Bob|Carol) ran out of time\.\n\1 {rolled}\.\n\1 declares", log))

    await run_out_turns(d, "an absent Roller's roll and declaration", played_for)
    everything = "\n".join(m.text() for m in d.fake.public(TABLE))
    assert "whatever the dice" not in everything
    # The timeouts still count: three in a row and a player leaves the table.
    await run_out_turns(d, "the end by timeouts", lambda: game_over(live(d)))
    [row] = read_finished(d.database, TABLE)  # type: ignore[arg-type]
    assert row["winner_id"] is None and "timed out 3 times" in str(line_from_text(row["outcome"]))
