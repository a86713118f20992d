"""Sealed dice through the table service, on both stores: whole games of each game replay
from the seed their final table reveals, every table before shows the commitment and never
the seed, /verify says so (and catches a changed roll or deck), a restart goes on from the
stored draw, and each player's dice are counted for /stats."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.cogs.stats import dice_field
from bot.components import TableItem
from bot.errors import CorruptSession, UserError
from bot.records import CUPS, FACES
from bot.replies import Reply
from bot.sealed import SHORT, luck_counts
from bot.service import Tables
from bot.settings import GuildSettings
from bot.verify import ONE_LINER, one_liner, verdict, verify_answer
from games.draws import Sealed, contiguous, replay
from games.kuriki.engine import declarations
from tests.bot.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    fetch_sql,
    make_tables,
    open_game,
    run_sql,
)
from tests.bot.test_crap_table import play as crap_move
from tests.bot.test_crap_table import start_crap
from tests.bot.test_farkle_table import play_move as farkle_move
from tests.bot.test_kuriki_table import start_kuriki
from tests.bot.test_stats import press

PLAYERS = {a.id: a for a in (ALICE, BOB, CAROL)}
ROOT = Path(__file__).resolve().parents[2]


def texts(reply: Reply | None) -> list[str]:
    """Every string a reply would send: its own and its table's content, embeds and
    components, its follow-ups', and the summary an older table is reduced to."""
    if reply is None:
        return []
    out = [reply.content or "", json.dumps(reply.embed.to_dict() if reply.embed else {})]
    out += [json.dumps(asdict(i), default=str) for i in reply.items or []]
    if reply.update is not None:
        for shown in (reply.update.table, reply.update.summary):
            if shown is not None:
                out += [shown.content or "", json.dumps(shown.embed.to_dict())]
                out += [json.dumps(asdict(i), default=str) for i in shown.items]
    for f in reply.followups:
        out += texts(f)
    return out


def footer(reply: Reply) -> str:
    table = reply.update.table if reply.update is not None else None
    embed = table.embed if table is not None else reply.embed
    assert embed is not None
    return embed.footer.text or ""


async def whole_game(tables: Tables, kind: str, clock: Clock, **options: object) -> list[Reply]:
    """A game of `kind` played to its end by Alice, Bob and Carol; every answer, in order
    (`options`: CRAP's lobby options besides its threshold, 150)."""
    rng = random.Random(4)
    if kind == "farkle":
        reply = await open_game(tables, ALICE, BOB, CAROL, rules="classic", target=1500)
    elif kind == "kuriki":
        reply = await start_kuriki(tables, ALICE, BOB, CAROL, lives=2)
    else:
        reply = await start_crap(tables, **{"threshold": 150, **options})
    replies = [reply]
    for _ in range(3000):
        session = await tables.sessions.get(CHANNEL)
        if session is None:
            return replies
        if kind == "farkle":
            reply = await farkle_move(tables, reply)
        elif kind == "crap":
            reply = await crap_move(tables, reply, rng, clock)
        else:
            state = session.state
            if state.phase == "direction":
                reply = await press(tables, PLAYERS[state.roller], "cw")
            elif state.phase == "roll":
                reply = await press(tables, PLAYERS[state.roller], "roll")
            elif state.phase == "declare":
                declared = (str(rng.choice(declarations(state))),)
                reply = await press(tables, PLAYERS[state.roller], "declare", declared)
            else:
                reply = await press(tables, PLAYERS[state.next_guy], "pull")
        replies.append(reply)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("kind", ["farkle", "kuriki", "crap"])
async def test_a_whole_game_is_sealed_then_checks_out(
    tables: Tables, clock: Clock, kind: str
) -> None:
    replies = await whole_game(tables, kind, clock)
    (record,) = await tables.store.finished_games(CHANNEL)
    dice = record["dice"]
    assert isinstance(dice, dict)
    seed, sealed = dice["seed"], dice["commitment"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == sealed

    # Every table of the running game shows the commitment, and nothing before the end the
    # seed; the final table reveals it, with the game's number for /verify.
    *running, final = replies
    for reply in running:
        assert not [t for t in texts(reply) if seed in t]
    assert f"🔒 {tables.adapters[kind].sealed_what} sealed: {sealed[:SHORT]} · /verify" in (
        footer(replies[0])
    )
    assert footer(final).endswith(
        f"🔓 Seed {seed}, sealed as {sealed[:SHORT]} · check the draws: /verify {record['id']}"
    )

    found = verdict(dice)
    assert found.ok and found.sealed and found.whole and not found.wrong
    entries = [c.entry for c in found.checked]
    assert any(e[0] == "dice" for e in entries)
    if kind == "crap":
        assert entries[0][0] == "shuffle" and entries[0][-1] == "deck" and entries[0][1] == 0

    answer = await verify_answer(
        tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL + 5, record["id"]
    )
    embed, text = answer.embed, answer.files[f"game-{record['id']}-draws.txt"]
    assert "the draws check out ✅" in (embed.title or "") and seed in (embed.description or "")
    assert text.count("\n✓ ") == len(entries) and "\n✗" not in text
    assert one_liner(seed) in text and one_liner(seed) in (embed.description or "")


async def test_the_one_liner_gives_the_dice_of_the_record(tables: Tables, clock: Clock) -> None:
    """The documented check, run as anyone would: Python alone, the seed and where to start."""
    await whole_game(tables, "farkle", clock)
    (record,) = await tables.store.finished_games(CHANNEL)
    dice = record["dice"]
    assert isinstance(dice, dict)
    thrown = [e for m in dice["moves"] for e in m["draws"] if e[0] == "dice" and len(e[4]) == 6]
    start = thrown[0][1]  # the first throw of six dice, after the seating rolls
    command = one_liner(dice["seed"], start)
    assert command.startswith('python3 -c "') and command.endswith(f" {dice['seed']} {start}")
    out = subprocess.run(
        [sys.executable, "-c", command.split('"')[1], dice["seed"], str(start)],
        capture_output=True, text=True, check=True,
    ).stdout.split("\n")  # fmt: skip
    assert out[0] == dice["commitment"]
    assert [int(f) for f in out[1].split()][:6] == thrown[0][4]
    readme = (ROOT / "README.md").read_text()
    assert ONE_LINER in readme and ONE_LINER in (ROOT / "docs" / "players.md").read_text()


async def test_a_changed_record_does_not_check_out(tables: Tables, clock: Clock) -> None:
    await whole_game(tables, "crap", clock)
    (record,) = await tables.store.finished_games(CHANNEL)
    dice = record["dice"]
    assert isinstance(dice, dict)

    async def answer(changed: dict[str, Any]) -> tuple[str, str]:
        await run_sql(
            tables.store, "UPDATE finished_games SET dice = ? WHERE id = ?", json.dumps(changed),
            record["id"],
        )  # fmt: skip
        answer = await verify_answer(
            tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, record["id"]
        )
        embed, text = answer.embed, answer.files[f"game-{record['id']}-draws.txt"]
        return f"{embed.title}\n{embed.description}", text

    roll = json.loads(json.dumps(dice))
    die = next(e for m in roll["moves"] for e in m["draws"] if e[0] == "dice")
    die[4][0] = die[4][0] % 6 + 1  # a die that showed another face
    said, text = await answer(roll)
    assert "do NOT check out ❌" in said and "1 result is not what the seed gives" in said
    assert f"draw {die[1]})" in said or f"draws {die[1]}-" in said
    assert text.count("\n✗ ") == 1 and "✗ the seed gives:" in text

    deck = json.loads(json.dumps(dice))
    order = deck["moves"][0]["draws"][0][3]
    order[0], order[-1] = order[-1], order[0]  # the deck stacked
    said, _ = await answer(deck)
    assert "do NOT check out" in said and "(the first at draws 0-" in said

    other = dict(dice, seed="00" * 16)  # another seed than the one committed to
    said, _ = await answer(other)
    assert "✗ SHA-256 of the seed is NOT the commitment" in said

    await run_sql(
        tables.store, "UPDATE finished_games SET dice = ? WHERE id = ?",
        json.dumps(dict(dice, moves="garbage")), record["id"],
    )  # fmt: skip
    answer = await verify_answer(
        tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, record["id"]
    )
    assert "cannot be read" in (answer.embed.description or "") and not answer.files
    # A record that is no record at all is damaged too, not a game from before sealing.
    await run_sql(tables.store, "UPDATE finished_games SET dice = ? WHERE id = ?", "[1, 2]",
                  record["id"])  # fmt: skip
    answer = await verify_answer(
        tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, record["id"]
    )
    said = f"{answer.embed.title}\n{answer.embed.description}"
    assert "do NOT check out ❌" in said and "damaged" in said
    assert "before games were sealed" not in said


async def test_verify_of_a_running_game_gives_only_the_commitment(tables: Tables) -> None:
    await open_game(tables, ALICE, BOB)
    session = await tables.sessions.get(CHANNEL)
    assert session is not None and session.draws is not None
    seed = session.draws.revealed_seed()
    answer = await verify_answer(
        tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, None
    )
    embed = answer.embed
    assert not answer.files and session.draws.commitment in (embed.description or "")
    assert seed not in json.dumps(embed.to_dict())
    with pytest.raises(UserError, match="No game is running here"):
        await verify_answer(tables.store, tables.sessions, tables.adapters, GUILD, 1, None)
    with pytest.raises(UserError, match="no record of a game 99"):
        await verify_answer(tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, 99)
    await tables.end(ALICE, CHANNEL, "farkle")  # ended early: over, so revealed too
    (record,) = await tables.store.finished_games(CHANNEL)
    # nothing running here now: /verify suggests the channel's last finished game
    with pytest.raises(UserError, match=rf"game {record['id']}: try .*verify.* {record['id']}\."):
        await verify_answer(tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, None)
    with pytest.raises(UserError, match="give its number"):  # another channel: none there
        await verify_answer(tables.store, tables.sessions, tables.adapters, GUILD, 1, None)
    assert record["dice"]["seed"] == seed  # type: ignore[index]
    answer = await verify_answer(
        tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, record["id"]
    )
    assert "check out ✅" in (answer.embed.title or "")
    with pytest.raises(UserError, match="no record"):  # another server's game is not shown
        await verify_answer(
            tables.store, tables.sessions, tables.adapters, GUILD + 1, CHANNEL, record["id"]
        )


async def test_a_game_started_before_sealing_plays_on_unsealed(tables: Tables) -> None:
    """A session saved before games had draws (no "draws" in its row) plays on with the
    service's dice and is recorded without any to check."""
    await open_game(tables, ALICE, BOB)
    row = await tables.store.load_session(CHANNEL)
    assert row is not None
    data = json.loads(row.data)
    del data["draws"], data["sealed"]  # as the rows before sealing were
    await run_sql(tables.store, "UPDATE sessions SET data = ? WHERE channel_id = ?",
                  json.dumps(data), CHANNEL)  # fmt: skip
    tables.sessions._forget(CHANNEL)
    reply = await farkle_move(tables, await tables.status(CHANNEL, "farkle"))
    assert "sealed" not in footer(reply)
    assert (await tables.sessions.get(CHANNEL)).draws is None  # type: ignore[union-attr]
    await tables.end(ALICE, CHANNEL, "farkle")
    (record,) = await tables.store.finished_games(CHANNEL)
    assert record["dice"] is None
    answer = await verify_answer(
        tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, record["id"]
    )
    assert "before games were sealed" in (answer.embed.description or "") and not answer.files


@pytest.mark.slow
async def test_a_restart_goes_on_from_the_stored_draw(db_path: Any, clock: Clock, tmp_path: Path) -> None:
    """The same game, once with the bot restarted in the middle (another process, with
    another Random of its own) and once without: the same draws, one stream with no gap."""

    async def play(restart_after: int | None, path: Any) -> dict[str, Any]:
        tables = await make_tables(path, clock, seed=3)
        reply = await open_game(tables, ALICE, BOB)
        moves = 0
        while await tables.sessions.get(CHANNEL) is not None:
            if moves == restart_after:
                await tables.store.close()  # the old process is gone; only the file remains
                tables = await make_tables(path, clock, seed=99)
            reply = await farkle_move(tables, reply)
            moves += 1
        (record,) = await tables.store.finished_games(CHANNEL)
        await tables.store.close()
        assert isinstance(record["dice"], dict)
        return record["dice"]

    crashed = await play(9, db_path)
    calm = await play(None, tmp_path / "calm.sqlite3")
    assert crashed == calm
    assert verdict(crashed).ok


async def test_each_players_dice_are_counted(tables: Tables, clock: Clock) -> None:
    replies = await whole_game(tables, "kuriki", clock)
    assert replies
    (record,) = await tables.store.finished_games(CHANNEL)
    counts = luck_counts(record["dice"])  # type: ignore[arg-type]
    # Counted here from the record itself: every die by its roller, each cup roll apart.
    expected: dict[int, dict[str, int]] = {p: {} for p in PLAYERS}
    cups = 0
    for move in record["dice"]["moves"]:  # type: ignore[index]
        for kind, _, roller, what, faces in (e for e in move["draws"] if e[0] == "dice"):
            assert kind == "dice" and roller in PLAYERS
            for f in faces:
                expected[roller][f"die_{f}"] = expected[roller].get(f"die_{f}", 0) + 1
            if what == "cup":
                cups += 1
                low, high = sorted(faces)
                key = f"cup_{low}{high}"
                expected[roller][key] = expected[roller].get(key, 0) + 1
    assert cups >= 3 and {int(k): v for k, v in counts.items()} == expected
    stored = await fetch_sql(
        tables.store, "SELECT player_id, stats FROM player_stats WHERE kind = 'kuriki'"
    )
    for player, stats in stored:
        kept = json.loads(stats)  # type: ignore[arg-type]
        assert {k: v for k, v in kept.items() if k in FACES + CUPS} == expected[player]  # type: ignore[index]

    # A second game adds to the first; the records keep their own keys.
    first = {p: (await tables.store.player_records(GUILD, p, ["kuriki"]))[0].luck for p in PLAYERS}
    await whole_game(tables, "kuriki", clock)
    _, second = await tables.store.finished_games(CHANNEL)
    more = luck_counts(second["dice"])  # type: ignore[arg-type]
    for p in PLAYERS:
        (fig,) = await tables.store.player_records(GUILD, p, ["kuriki"])
        both = {k: first[p].get(k, 0) + more.get(str(p), {}).get(k, 0) for k in FACES + CUPS}
        assert fig.luck == {k: v for k, v in both.items() if v}
        assert not set(fig.records) & set(FACES + CUPS)
        embed = discord.Embed()
        picture = await dice_field(embed, PLAYERS[p].name, "kuriki", "Kuriki", [fig])
        assert picture is not None and picture.startswith(b"\x89PNG")
        words = embed.fields[0].value or ""
        assert f"Every die rolled, by face: {sum(v for k, v in fig.luck.items() if k in FACES)}." in words
        assert "Kuriki rolls under the cup" in words
    nothing = discord.Embed()
    assert await dice_field(nothing, "Nobody", None, "all games", []) is None
    assert "No dice counted yet" in (nothing.fields[0].value or "")


def test_table_items_are_what_texts_reads() -> None:
    """The seed check reads the components too (a custom_id is public)."""
    item = TableItem(custom_id="t:x:y:1:2:3:SECRET", label="L")
    assert any("SECRET" in t for t in texts(Reply(items=[item])))


async def test_verify_of_a_running_game_whose_draws_are_damaged_says_so(tables: Tables) -> None:
    """A sealed game's row that lost its record of draws is a damaged game, for /verify
    too: never "started before games were sealed"."""
    await open_game(tables, ALICE, BOB)
    row = await tables.store.load_session(CHANNEL)
    assert row is not None
    data = json.loads(row.data)
    del data["draws"]
    await run_sql(tables.store, "UPDATE sessions SET data = ? WHERE channel_id = ?",
                  json.dumps(data), CHANNEL)  # fmt: skip
    tables.sessions._forget(CHANNEL)
    answer = await verify_answer(
        tables.store, tables.sessions, tables.adapters, GUILD, CHANNEL, None
    )
    said = f"{answer.embed.title}\n{answer.embed.description}"
    assert "Farkle: a damaged game" in said and "damaged record of its sealed dice" in said
    assert "before games were sealed" not in said and not answer.files
    with pytest.raises(CorruptSession, match="damaged record of its sealed dice"):
        await tables.status(CHANNEL, "farkle")


async def test_a_person_timed_out_is_played_for_from_the_sealed_draws(
    db_path: Any, clock: Clock
) -> None:
    """The policy that plays a timed-out person's part decides with the game's sealed draws:
    what it leaves to chance (here a Kuriki Roller's bluff or not) is in the record, under
    that person's timed-out move, and replays from the seed."""
    tables = await make_tables(db_path, clock, turn_timer=60)
    try:
        await start_kuriki(tables, ALICE, BOB, CAROL, lives=2)
        roller = (await tables.sessions.get(CHANNEL)).state.roller  # type: ignore[union-attr]
        for _ in range(2):  # the direction, then the roll and the declaration
            clock.now += 61
            assert await tables.expire(CHANNEL) is not None
        session = await tables.sessions.get(CHANNEL)
        assert session is not None and session.draws is not None
        moves = session.draws.moves
        timed_out = [m for m in moves if m["by"] == roller and m["act"] == "timeout"]
        kinds = [e[0] for m in timed_out for e in m["draws"]]
        assert "dice" in kinds and "random" in kinds, moves  # the cup, then the bluff's chance
        seed = bytes.fromhex(session.draws.revealed_seed())
        checked = replay(seed, json.loads(json.dumps(moves)))
        assert all(c.ok for c in checked) and contiguous(checked, session.draws.position)
    finally:
        await tables.store.close()


async def test_a_cached_game_keeps_its_draws_sealed_and_its_record_whole(tables: Tables) -> None:
    """Between moves the cached game holds its draws without random.Random's state
    (`Sealed`); the moves go on drawing from where it stopped, and the record checks out."""
    reply = await open_game(tables, ALICE, BOB)
    for _ in range(3):
        session = tables.sessions.cached(CHANNEL)
        assert session is not None and type(session.draws) is Sealed
        reply = await farkle_move(tables, reply)
    session = tables.sessions.cached(CHANNEL)
    assert session is not None and type(session.draws) is Sealed
    at = session.draws.position
    await tables.end(ALICE, CHANNEL, "farkle")
    (record,) = await tables.store.finished_games(CHANNEL)
    dice: Any = record["dice"]
    checked = replay(bytes.fromhex(dice["seed"]), dice["moves"])
    assert len(dice["moves"]) >= 3 and all(c.ok for c in checked) and contiguous(checked, at)


async def test_the_sealed_line_is_in_each_tables_language(tables: Tables) -> None:
    """The line is made once per game and language: the same game's table shown in another
    language (the server chose one) says it in that language, and in English again after."""
    await open_game(tables, ALICE, BOB, CAROL, rules="classic", target=1500)
    session = await tables.sessions.get(CHANNEL)
    assert session is not None and session.draws is not None
    short = session.draws.commitment[:SHORT]
    shown = []
    for language in ["en", "de", None]:
        await tables.save_settings(GUILD, GuildSettings(language=language))
        shown.append(tables.display.table(session).embed.footer.text or "")
    assert shown[0].endswith(f"🔒 Dice sealed: {short} · /verify")
    assert shown[1].endswith(f"🔒 Würfel versiegelt: {short} · /prüfen")
    assert shown[2] == shown[0]
