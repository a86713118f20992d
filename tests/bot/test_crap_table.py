"""CRAP through the table service: the public table shows counts, each player's cards come
only through their "My hand" ephemeral, and a whole game reaches the threshold."""

from __future__ import annotations

import json
import random
import time

import pytest

from bot.components import Click
from bot.open_replies import OpenReply
from bot.service import Actor, Reply, Tables
from games.crap.cards import label
from games.crap.engine import CrapState, all_cards
from tests.bot.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    MALLORY,
    Clock,
    check_limits,
    find,
    make_tables,
    outcome,
)

PLAYERS = {a.id: a for a in (ALICE, BOB, CAROL)}


async def state_of(tables: Tables) -> CrapState:
    return (await tables.sessions.get(CHANNEL)).state


def public_json(reply: Reply) -> str:
    parts = [reply.content or ""]
    for r in (reply, reply.table):
        if r is not None and getattr(r, "embed", None) is not None:
            parts.append(json.dumps(r.embed.to_dict(), ensure_ascii=False))
    return " ".join(parts)


def components(reply: Reply) -> dict[str, object]:
    return {i.custom_id: i for i in reply.items or []}


async def start_crap(tables: Tables, **options: object) -> Reply:
    reply = await tables.open_lobby(ALICE, GUILD, CHANNEL, "crap", dict(options))
    await tables.table_posted(CHANNEL, 888)
    for p in (BOB, CAROL):
        reply = await tables.click(p, find(reply, "join"), 888)
    return await tables.click(ALICE, find(reply, "start"), 888)


async def my_hand(tables: Tables, actor: Actor, table: Reply) -> Reply:
    hand = await tables.click(actor, find(table, "hand"), 888)
    assert hand.ephemeral and not hand.edit
    return hand


async def test_hand_is_private_and_table_shows_counts(tables: Tables) -> None:
    table = await start_crap(tables, threshold=200)
    check_limits(table)
    state = await state_of(tables)
    for p in state.players:
        assert f"✋{len(p.hand)} 🛡0" in public_json(table)
    hand = await my_hand(tables, BOB, table)
    bob = state.player(BOB.id)
    text = json.dumps(hand.embed.to_dict(), ensure_ascii=False)
    assert all(label(c) in text for c in bob.hand)
    # Mallory is not in the game: no hand for her.
    try:
        await tables.click(MALLORY, find(table, "hand"), 888)
    except Exception as exc:
        assert "not in this game" in str(exc)
    else:
        raise AssertionError("a non-player got a hand")


async def play(tables: Tables, table: Reply, rng: random.Random, clock: Clock) -> Reply:
    """One decision by whoever the game waits for, made only from what they can see."""
    state = await state_of(tables)
    full = sorted(all_cards(state))
    if state.phase == "acquire":
        clock.now += 1
        answer = rng.choice(["bluff", "nocall", "nocall"])
        caller = state.acquire.caller
        actor = next(
            p for i, p in PLAYERS.items() if i != caller and i not in state.acquire.declined
        )
        return await tables.click(actor, find(table, answer), 888)
    waiting = state.current_player.id if state.phase == "turn" else None
    if state.phase == "challenge":
        from games.crap.engine import waiting_for

        waiting = waiting_for(state)[0]
    actor = PLAYERS[waiting]
    hand = await my_hand(tables, actor, table)
    comps = components(hand)
    by_action = {Click.parse(cid).action: (cid, item) for cid, item in comps.items()}
    if "score" in by_action:
        cid, item = by_action["score"]
        choice = (item.options[0].value,)
    elif "commit" in by_action:
        cid, item = by_action["commit"]
        choice = tuple(o.value for o in item.options[: item.min_values])
    elif "guess" in by_action:  # a value and a suit, in one select
        cid, item = by_action["guess"]
        assert item.min_values == item.max_values == 2
        choice = (
            rng.choice([o for o in item.options if o.value.isdigit()]).value,
            rng.choice([o for o in item.options if not o.value.isdigit()]).value,
        )
    else:
        kinds = [k for k in ("acquire", "protect", "target", "recycle") if k in by_action]
        pick = rng.choice(kinds)
        cid, item = by_action[pick]
        choice = () if pick == "recycle" else (rng.choice(item.options).value,)
    reply = await tables.click(actor, Click.parse(cid, choice), 999, ephemeral=True)
    after = await tables.sessions.get(CHANNEL)
    if after is not None:
        assert sorted(all_cards(after.state)) == full
        assert after.message_id == 888
    check_limits(reply)
    return (
        Reply(items=reply.table.items, embed=reply.table.embed, content=reply.table.content)
        if reply.table
        else reply
    )


async def test_whole_game_to_the_threshold(db_path, clock: Clock) -> None:
    tables = await make_tables(db_path, clock, seed=5)
    rng = random.Random(11)
    table = await start_crap(tables, threshold=150, jokers=True)
    for _ in range(3000):
        if await tables.sessions.get(CHANNEL) is None:
            break
        table = await play(tables, table, rng, clock)
    (record,) = await tables.store.finished_games(CHANNEL)
    assert record["kind"] == "crap" and record["winner_id"] in PLAYERS
    assert max(record["scores"].values()) >= 150
    assert record["scores"][str(record["winner_id"])] == max(record["scores"].values())
    assert "wins the CRAP game" in (table.content or "")
    await tables.store.close()


async def test_challenge_pings_the_target_publicly(tables: Tables) -> None:
    table = await start_crap(tables, threshold=200)
    state = await state_of(tables)
    actor = PLAYERS[state.current_player.id]
    target = next(p for p in PLAYERS.values() if p is not actor)
    hand = await my_hand(tables, actor, table)
    cid = next(c for c in components(hand) if c.startswith("t:crap:target:"))
    reply = await tables.click(
        actor, Click.parse(cid, (f"challenge-{target.id}",)), 999, ephemeral=True
    )
    assert reply.followups == []  # one ping: the table, posted afresh, mentions the target
    ping = reply.update
    assert ping is not None and ping.fresh and ping.ping == (target.id,)
    assert ping.table.content.startswith(f"<@{target.id}>: you are challenged")
    assert "hand" in [Click.parse(i.custom_id).action for i in ping.table.items]
    assert (await state_of(tables)).phase == "challenge"
    # The table's My hand works for the target and shows what to place.
    hand_button = next(i for i in ping.table.items if ":hand:" in i.custom_id)
    theirs = await tables.click(target, Click.parse(hand_button.custom_id), 1234)
    assert theirs.ephemeral
    challenge = (await state_of(tables)).challenge
    placed_already = (
        challenge.committed.get(str(target.id)) == []
    )  # an empty hand: nothing to place
    wants_cards = any(i.custom_id.startswith("t:crap:commit:") for i in theirs.items)
    assert wants_cards != placed_already
    assert (await tables.sessions.get(CHANNEL)).message_id == 888  # shown by the bot, later


async def test_bluff_window_closes_on_its_own_deadline(tables: Tables) -> None:
    clock = tables.clock
    table = await start_crap(tables, threshold=200)
    state = await state_of(tables)
    actor = PLAYERS[state.current_player.id]
    hand = await my_hand(tables, actor, table)
    cid = next(c for c in components(hand) if c.startswith("t:crap:acquire:"))
    reply = await tables.click(actor, Click.parse(cid, ("13",)), 999, ephemeral=True)
    assert "Acquire Kings" in public_json(reply)
    labels = {i.label for i in reply.table.items}
    assert {"Call bluff", "Let it go"} <= labels
    session = await tables.sessions.get(CHANNEL)
    assert session.deadline == clock.now + 10 and session.turn_deadline is None
    # The caller cannot call their own bluff, and is told so (not that there is no call).
    try:
        await tables.click(actor, find(reply.table, "bluff"), 888)
    except Exception as exc:
        assert str(exc) == "You can't call the bluff on your own Acquire.", exc
    else:
        raise AssertionError("the caller called their own bluff")
    assert await tables.expire(CHANNEL) is None  # not yet
    clock.now += 11
    assert await tables.expire(CHANNEL) is not None
    after = await state_of(tables)
    assert after.phase == "turn" and after.acquire is None
    assert after.current_player.id != actor.id


async def test_a_game_left_down_to_one_player_has_no_winner(tables: Tables) -> None:
    await start_crap(tables, threshold=500)
    await tables.leave(BOB, CHANNEL, "crap")
    assert not (await state_of(tables)).finished  # two players play on
    reply = await tables.leave(CAROL, CHANNEL, "crap")
    table = reply.table
    assert table.embed.description.startswith("**Game over:** Carol left, so nobody wins.\n")
    assert table.content == f"<@{ALICE.id}>: the game is over."  # no trophy, a ping
    what_next, seed = table.embed.footer.text.rsplit("\n", 1)
    assert what_next.endswith(" · Rematch below, or /crap start for a new game")
    assert seed.startswith("🔓 Seed ")
    assert [Click.parse(i.custom_id).action for i in table.items] == ["rematch"]
    (record,) = await tables.store.finished_games(CHANNEL)
    assert record["winner_id"] is None and record["rules"]["winners"] == []
    assert outcome(record) == "Nobody wins: Carol left."
    assert record["lobby"]["rules"]["threshold"] == 500


def test_scores_show_banked_points_and_apart_what_the_sets_will_bank() -> None:
    import random as _random

    from bot.sessions import Session
    from bot.tables.crap import CrapTable
    from games.crap import engine as crap_engine
    from games.crap.engine import CrapRules, ScoredSet
    from games.lobby import Lobby, Seat

    seats = [Seat(id=i, name=f"P{i}") for i in range(1, 4)]
    state, _ = crap_engine.new_game(seats, CrapRules(), _random.Random(1))
    state.players[0].score = 250
    state.players[0].sets = [ScoredSet(rank=13, cards=[44, 45, 46, 47])]
    session = Session(channel_id=1, guild_id=None, kind="crap", lobby=Lobby(starter=1), state=state)
    players = CrapTable().render(session).embed.description
    assert "<@1> **250** ✋" in players and "· sets K (+130 next round)" in players, players


def table_lines(embed: object) -> list[str]:
    """The lines a phone shows for a table embed: title, description, fields, footer."""
    d = embed.to_dict()  # type: ignore[attr-defined]
    lines = [d["title"], *(d.get("description") or "").split("\n")]
    for f in d.get("fields") or []:
        lines += [f["name"], *f["value"].split("\n")]
    return lines + ([d["footer"]["text"]] if "footer" in d else [])


@pytest.mark.slow
def test_a_six_player_table_fits_a_phone_and_shows_every_line_of_the_last_action() -> None:
    """Random 6-player games: the table is the situation, one row per player, at most one
    earlier reveal and every line of the last action (a recycle that starts a scoring round
    included), so it stays at 12 lines unless the last action itself wrote more than two."""
    import random as _random

    from bot.i18n import render
    from bot.sessions import Session
    from bot.tables.crap import CrapTable
    from games.crap.engine import CrapRules, new_game
    from games.lobby import Lobby
    from tests.games.crap_helpers import seats
    from tests.games.test_crap_properties import play

    adapter = CrapTable()
    sizes: list[int] = []
    long_actions = 0
    for seed in range(8):
        dice, ch = _random.Random(seed), _random.Random(seed + 100)
        state, _ = new_game(seats(6), CrapRules(), dice)
        for _ in range(250):
            if state.finished:
                break
            state, _ = play(state, dice, ch, 1, check=False)
            session = Session(
                channel_id=1, guild_id=None, kind="crap", lobby=Lobby(starter=1), state=state
            )
            embed = adapter.render(session).embed
            lines = table_lines(embed)
            last = [render(line) for line in state.log[-state.last_lines :]]
            assert all(f"› {line}" in lines for line in last), (last, lines)
            assert len(lines) <= 11 + max(state.last_lines, 1), "\n".join(lines)
            if state.last_lines <= 1:
                assert len(lines) <= 12, "\n".join(lines)
            if state.last_lines >= 3 and any("Scoring round" in line for line in last):
                long_actions += 1
            sizes.append(len(lines))
    sizes.sort()
    assert sizes[len(sizes) // 2] <= 11 and long_actions > 0, (sizes[len(sizes) // 2], long_actions)


def test_the_largest_table_fits_twelve_lines_with_compact_card_lists() -> None:
    """Six players with two sets each, an open Acquire, a recycled hand shown the turn
    before: at most twelve lines, cards grouped by value."""
    import random as _random

    from bot.sessions import Session
    from bot.tables.crap import CrapTable
    from games.crap import engine as crap_engine
    from games.crap.engine import Action, CrapRules, Reveal, ScoredSet
    from games.lobby import Lobby
    from tests.games.crap_helpers import c, four, seats

    state, _ = crap_engine.new_game(seats(6), CrapRules(), _random.Random(3))
    for i, p in enumerate(state.players):
        p.score = 1000 + 10 * i
        p.sets = [
            ScoredSet(rank=13, cards=four(13, i % 2)),
            ScoredSet(rank=7, cards=four(7, i % 2)),
        ]
    hand = [c(2, "S"), c(2, "S", 1), c(2, "H"), c(7, "C"), c(9, "D"), c(9, "S"), c(11, "H")]
    state.turns = 1  # the hand was shown on the turn before this one
    state.reveals = [
        Reveal(what="Ann's recycled hand", cards=hand, action=state.actions, turn=0, whose="Ann")
    ]
    me = state.current_player
    me.hand.append(c(12, "H"))
    state, _ = crap_engine.apply(state, me.id, Action(kind="acquire", rank=12), _random.Random(1))
    session = Session(channel_id=1, guild_id=None, kind="crap", lobby=Lobby(starter=1), state=state)
    lines = table_lines(CrapTable().render(session).embed)
    assert len(lines) <= 12, "\n".join(lines)
    assert "👁 Last turn (Ann's), Ann's recycled hand: 2♥♠♠ 7♣ 9♦♠ J♥" in lines, lines
    # Nobody is waited on in the window: it closes by itself.
    assert sum(line.startswith("⏳ ") for line in lines) == 0, lines
    assert sum(line.startswith("▶ ") for line in lines) == 1, lines


async def test_a_force_vote_nobody_answered_yet_says_no_votes_yet(tables: Tables) -> None:
    """The table counts a Force Recycle vote as Kuriki's votes do: 'no votes yet' until
    someone votes, never '0 yes, 0 no'."""
    from tests.games.test_crap_engine import ANN, BOB, CAT, force_table

    await start_crap(tables, threshold=200)
    session = await tables.sessions.get(CHANNEL)
    vote = force_table()
    vote.do(ANN, "force", target=BOB, now=tables.clock())
    session.state = vote.state
    text = (await tables.status(CHANNEL, "crap")).table.embed.description  # type: ignore[union-attr]
    assert "Force Recycle" in text and "no votes yet" in text and "0 yes" not in text
    vote.do(CAT, "vote", value="yes")
    session.state = vote.state
    text = (await tables.status(CHANNEL, "crap")).table.embed.description  # type: ignore[union-attr]
    assert "1 yes, 0 no" in text


async def test_each_step_of_a_challenge_calls_whoever_it_falls_to_and_shows_in_their_reply(
    tables: Tables,
) -> None:
    """Both place their cards, then the challenger names a card, then the other: each is
    called (mentioned by a table posted afresh) when their step comes by the other's move,
    never for their own, and the reply they have open is carried along, redrawn for that
    step. A card named with two values is refused and changes nothing."""
    table = await start_crap(tables, threshold=200)
    state = await state_of(tables)
    actor = PLAYERS[state.current_player.id]
    target = PLAYERS[state.next_after(actor.id).id]  # (the next player: no one else called)
    hand = await my_hand(tables, actor, table)
    cid = next(c for c in components(hand) if c.startswith("t:crap:target:"))
    mine = await tables.click(
        actor, Click.parse(cid, (f"challenge-{target.id}",)), 999, ephemeral=True
    )
    assert mine.update is not None and mine.update.ping == (target.id,)
    game = (await tables.sessions.get(CHANNEL)).created_at
    for who in (actor, target):  # both have My hand open (as `send_reply` notes it)
        tables.open_replies.note(
            CHANNEL, OpenReply(who.id, f"token-{who.id}", time.time(), who.id, "de", game)
        )

    def step(reply: Reply, action: str) -> str:
        return next(i.custom_id for i in reply.items or [] if f":{action}:" in i.custom_id)

    def pick(reply: Reply, action: str, n: int | None = None) -> Click:
        item = next(i for i in reply.items or [] if f":{action}:" in i.custom_id)
        values = tuple(o.value for o in item.options[: n or item.min_values])
        return Click.parse(item.custom_id, values)

    state = await state_of(tables)
    assert state.challenge.committed == {}  # both hold cards at the start: both place some
    placed = await tables.click(actor, pick(mine, "commit"), 999, ephemeral=True)
    assert (
        placed.update.ping == () and placed.update.privates == ()
    )  # the target's step is as it was
    assert "Nothing to do right now" in placed.embed.description
    theirs = await tables.click(target, find(mine.update.table, "hand"), 1234)
    placed = await tables.click(target, pick(theirs, "commit"), 1000, ephemeral=True)
    # The challenger is called to name a card, and their open reply shows the menu for it,
    # in their own language.
    assert placed.update.ping == (actor.id,)
    assert placed.update.table.content.startswith(f"<@{actor.id}>: name a card")
    [(reply, shown)] = placed.update.privates
    assert reply.user_id == actor.id and reply.token == f"token-{actor.id}"
    assert step(shown, "guess") and "Nothing to do" not in shown.embed.description
    assert "Pik" in json.dumps([o.label for i in shown.items for o in i.options or []])
    before = (await state_of(tables)).model_dump_json()
    two_values = Click.parse(step(shown, "guess"), ("2", "3"))
    try:
        await tables.click(actor, two_values, 999, ephemeral=True)
    except Exception as exc:
        assert "Name a value (2 to Ace) and a suit" in str(exc)
    else:
        raise AssertionError("two values named as one card")
    assert (await state_of(tables)).model_dump_json() == before
    named = await tables.click(
        actor, Click.parse(step(shown, "guess"), ("13", "H")), 999, ephemeral=True
    )
    assert named.update.ping == (target.id,)
    assert named.update.table.content.startswith(f"<@{target.id}>: name a card")
    [(reply, shown)] = named.update.privates
    assert reply.user_id == target.id and step(shown, "guess")
    done = await tables.click(
        target, Click.parse(step(shown, "guess"), ("H", "7")), 1000, ephemeral=True
    )
    assert (await state_of(tables)).phase == "turn"
    assert done.update.ping == ()  # the challenged player plays next: their own press
