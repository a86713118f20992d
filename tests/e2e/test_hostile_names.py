"""Display names are shown as plain text everywhere (issue 30): players named `**b**`,
`||x`, `<@&1>` and `Ann\u202eevil` (a right-to-left override) play whole games, then look at
/history, /stats and /verify; every body the bot sends shows their names as written
(`NameWatch`, tests/e2e/hostile_names.py): escaped where Discord reads markdown, without the
bidirectional control anywhere, and no message may ping a role or anyone its text seems to
mention."""

from __future__ import annotations

import pytest

from bot.players import as_text
from tests.e2e.harness import ALICE, TABLE, Driver, read_finished
from tests.e2e.history_view import share_whole_log
from tests.e2e.hostile_names import (
    BIDI,
    BOLD,
    FLIPPED,
    PLAYERS,
    ROLE,
    SPOILER,
    NameWatch,
    shown,
    written,
)
from tests.e2e.neutral_play import final_table, open_game, play_to_end


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["crap", "farkle", "kuriki"])
async def test_hostile_names_read_as_written_in_a_whole_game(d: Driver, kind: str) -> None:
    watch = NameWatch(d.fake, PLAYERS)
    options = {"crap": {"threshold": 100}, "farkle": {"target": 1000}, "kuriki": {"lives": 1}}
    await open_game(d, kind, PLAYERS, **options[kind])
    await play_to_end(d, kind, PLAYERS, seed=3)
    final = final_table(d, kind)
    assert d.database is not None and read_finished(d.database, TABLE)
    assert final.buttons()
    watch.check()
    seen = watch.seen()
    for p in PLAYERS:
        assert written(p) in seen, (p.name, seen[-3000:])


@pytest.mark.e2e(seed=4)
async def test_hostile_names_read_as_written_in_history_stats_verify_and_rematch(
    d: Driver,
) -> None:
    await open_game(d, "farkle", PLAYERS, target=1000)
    await play_to_end(d, "farkle", PLAYERS, seed=4)
    assert d.database is not None
    [row] = read_finished(d.database, TABLE)
    watch = NameWatch(d.fake, PLAYERS)

    # /history: the list says with whom, the opened game its players and log; shared.
    lines = await share_whole_log(d, ROLE, TABLE)
    assert any(as_text(BOLD.name) in line for line in lines), lines
    listed = await d.slash(FLIPPED, TABLE, "history")
    assert listed.message is not None
    with_whom = shown(listed.message.embeds[0]["description"])
    assert all(written(p) in with_whom for p in (BOLD, SPOILER, ROLE)), with_whom

    # /stats: the player's name in its title and text; the dice picture drawn.
    stats = await d.slash(ALICE, TABLE, "stats", player=FLIPPED, share=True, dice=True)
    assert stats.message is not None and not stats.ephemeral
    assert shown(stats.message.embeds[0]["title"]) == f"📊 {written(FLIPPED)}'s stats"
    assert [a["filename"] for a in stats.message.attachments] == ["dice.png"]
    stats = await d.slash(ALICE, TABLE, "stats", player=SPOILER, share=True)
    assert stats.message is not None
    assert shown(stats.message.embeds[0]["title"]) == "📊 ||x's stats"
    board = await d.slash(ROLE, TABLE, "leaderboard", share=True)
    assert board.message is not None and board.message.embeds[0]["description"]

    # /verify: the attached record names the players without their bidi control.
    answer = await d.slash(SPOILER, TABLE, "verify", game=row["id"], share=True)
    assert answer.message is not None
    files = {a["filename"]: answer.message.files[a["id"]].decode() for a in answer.message.attachments}
    [record] = [text for name, text in files.items() if name.endswith(".txt")]
    [data] = [text for name, text in files.items() if name.endswith(".json")]
    assert "Annevil's throw" in record and not BIDI.search(record)
    assert "Annevil" in data and not BIDI.search(data)

    # Rematch, pressed by <@&1>: the lobby pings exactly the other players.
    rematch = await d.click(ROLE, TABLE, label="Rematch", message=final_table(d, "farkle"))
    lobby = rematch.followups[0] if rematch.followups else rematch.message
    assert lobby is not None and not lobby.ephemeral
    assert f"{as_text(ROLE.name)} wants a rematch" in (lobby.content or "")
    assert d.notified(lobby) == {BOLD.id, SPOILER.id, FLIPPED.id}

    watch.check()
