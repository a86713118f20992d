"""A forger who rewrites a finished CRAP game's record in the database file, as only the
bot's operator could, is caught by /verify through the real client, at the place of the
forgery: a first deck stacked so that Aces and Kings are dealt first (stored with the
starting order that made the old check pass), a reshuffle stacked the same way, and a random
discard whose candidates were reordered to give another card. The attached JSON fails
tools/verify_game.py at the same place. The final table shows the commitment the running
tables showed beside the revealed seed. And a running game whose stored record of draws is
lost is a damaged game, never one that plays on unsealed."""

from __future__ import annotations

import copy
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from games.draws import LEGACY, replay
from tests.bot.test_verify_game import rigged_discard, run_tool, stack
from tests.e2e.crap_play import AGENDA, CrapGame, play_to_end
from tests.e2e.fake_discord import FakeDiscord, InteractionRecord
from tests.e2e.farkle_play import next_press, open_game, play_move, player, read_table
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    MALLORY,
    TABLE,
    Driver,
    read_finished,
    read_session,
    running_bot,
)

PLAYERS = [ALICE, BOB, CAROL]
SEALED = re.compile(r"🔒 Cards and dice sealed: ([0-9a-f]{16}) · /verify")


def attached(answer: InteractionRecord) -> tuple[str, str]:
    """/verify's two files: the text to read and the JSON to check."""
    assert answer.message is not None
    text, machine = answer.message.attachments
    assert text["filename"].endswith("-draws.txt") and machine["filename"].endswith(".json")
    files = answer.message.files
    return files[text["id"]].decode(), files[machine["id"]].decode()


def rewrite(database: Path, game_id: int, dice: dict[str, Any]) -> None:
    """The finished game's record replaced in the file, behind the bot's back."""
    con = sqlite3.connect(database)
    try:
        with con:
            con.execute("UPDATE finished_games SET dice = ? WHERE id = ?", (json.dumps(dice), game_id))
    finally:
        con.close()


@pytest.mark.slow
@pytest.mark.e2e(seed=2)
async def test_a_rigged_deck_reshuffle_or_discard_fails_verify_at_its_place(
    d: Driver, tmp_path: Path
) -> None:
    game = await CrapGame.open(d, PLAYERS, threshold=150)
    shown = SEALED.search(game.table().text)
    assert shown is not None, game.table().text
    game.agenda = list(AGENDA)  # an Acquire's bluff called, hence a random discard
    final = await play_to_end(game)
    assert d.database is not None
    [row] = read_finished(d.database, TABLE)
    dice = json.loads(row["dice"])
    seed, number = dice["seed"], row["id"]
    assert dice["commitment"].startswith(shown[1])
    # The final table: the seed, and beside it the commitment every running table showed.
    assert (
        f"🔓 Seed {seed}, sealed as {shown[1]} · check the draws: /verify {number}"
        in final.message.text()
    ), final.message.text()

    honest = await d.slash(MALLORY, TABLE, "verify", game=number)
    assert "the draws check out ✅" in honest.text, honest.text
    text, machine = attached(honest)
    assert run_tool(tmp_path, machine, seed, shown[1])[0] == 0
    entries = json.loads(machine)["entries"]
    shuffles = [e for e in entries if e["kind"] == "shuffle"]
    discard = next(e for e in entries if e.get("what") == "discard")
    assert len(shuffles) >= 2 and len(shuffles[0]["pile"]) == 108, "no reshuffle"

    def deck(changed: dict[str, Any]) -> None:
        stack(changed, 0)

    def reshuffle(changed: dict[str, Any]) -> None:
        stack(changed, 1)

    for rig, entry in ((deck, shuffles[0]), (reshuffle, shuffles[1]), (rigged_discard, discard)):
        place = (
            f"draws {entry['first']}-{entry['last']}"
            if entry["last"] > entry["first"]
            else f"draw {entry['first']}"
        )
        changed = copy.deepcopy(dice)
        rig(changed)
        # The forgery the old check (from the order the record gives) took as sound.
        assert all(c.ok for c in replay(bytes.fromhex(seed), changed["moves"], LEGACY))
        rewrite(d.database, number, changed)
        answer = await d.slash(MALLORY, TABLE, "verify", game=number)
        assert "the draws do NOT check out ❌" in answer.text, (rig.__name__, answer.text)
        assert f"1 result is not what the seed gives (the first at {place})" in answer.text, (
            rig.__name__,
            answer.text,
        )
        text, machine = attached(answer)
        assert f"\n✗ {place} · " in text and "\n    ✗ the seed gives: " in text, rig.__name__
        status, out = run_tool(tmp_path, machine, seed, shown[1])
        assert status == 1 and f"✗ {place} (" in out, (rig.__name__, out)
    rewrite(d.database, number, dice)  # the record as the bot wrote it checks out again
    again = await d.slash(ALICE, TABLE, "verify", game=number)
    assert "the draws check out ✅" in again.text


async def test_a_running_game_whose_draws_were_lost_is_damaged_not_unsealed(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """A sealed game's stored row loses its record of draws while the bot is down: the next
    bot never plays it on unsealed. A press and /farkle status say the record is damaged and
    how to clear it, /verify says so too (not "started before games were sealed"), the host's
    /farkle end keeps the row aside, and nothing was logged as an error."""
    db = tmp_path / "e2e.sqlite3"
    async with running_bot(db, fake=fake, seed=5) as d:
        await open_game(d, TABLE, [ALICE, BOB], rules="classic", target=1500)
        await play_move(d, TABLE, [ALICE, BOB])
        table = d.table(TABLE)
    row = read_session(db, TABLE)
    assert row is not None
    data = json.loads(row["data"])
    assert data["sealed"] is True and data["draws"]["v"] == 2
    del data["draws"]
    con = sqlite3.connect(db)
    try:
        with con:
            con.execute("UPDATE sessions SET data = ? WHERE channel_id = ?",
                        (json.dumps(data), TABLE))  # fmt: skip
    finally:
        con.close()

    damaged = "has a damaged record of its sealed dice and cards"
    async with running_bot(db, fake=fake, seed=6) as d:
        view = read_table(table)
        _, button = next_press(view)
        pressed = await d.click(player([ALICE, BOB], view.current), TABLE,
                                custom_id=button["custom_id"], message=table)  # fmt: skip
        assert pressed.ephemeral and damaged in pressed.text, pressed.text
        status = await d.slash(BOB, TABLE, "farkle status")
        assert damaged in status.text and "/farkle end" in status.text, status.text
        verify = await d.slash(MALLORY, TABLE, "verify")
        assert "a damaged game" in verify.text and damaged in verify.text, verify.text
        assert "before games were sealed" not in verify.text and verify.message is not None
        assert verify.message.attachments == []
        ended = await d.slash(ALICE, TABLE, "farkle end")
        assert "cleared" in ended.text, ended.text
        assert read_session(db, TABLE) is None
        assert not [r for r in d.logs.records if r.levelname == "ERROR"]
