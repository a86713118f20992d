"""Players acting at the same moment, through the real discord.py client: nobody is refused
for a valid tap. Two dice and a double tap in Farkle; a Roller declaring while another player
sneaks a peek in Kuriki; both players of a CRAP challenge placing their cards at once, and
everyone letting an Acquire go at once. And a bot killed between committing a move and
showing it: after the restart the table in the channel shows the stored game."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from games.farkle.scoring import best_selection
from tests.e2e.fake_discord import MESSAGE_COMPONENT, FakeDiscord, FakeMessage, InteractionRecord
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    TABLE,
    Driver,
    FakeUser,
    eventually,
    running_bot,
)
from tests.e2e.live_table import (
    ADAPTERS,
    button,
    find_live_table,
    live_table,
    select_payload,
    start,
    state_of,
)

PLAYERS = {u.id: u for u in (ALICE, BOB, CAROL)}


def refusals(records: list[InteractionRecord]) -> list[str]:
    """What any of these presses was told privately (an ephemeral answer is a refusal)."""
    return [r.text for r in records if r.ephemeral]


@pytest.mark.e2e(seed=3)
async def test_farkle_two_dice_and_a_double_tap_at_once(d: Driver) -> None:
    await start(d, "farkle", [ALICE, BOB], rules="classic")
    mover = PLAYERS[state_of(d, "farkle").current_player.id]
    await d.click(mover, TABLE, custom_id=button(live_table(d, "farkle"), "roll"))
    state = state_of(d, "farkle")
    assert state.current_player.id == mover.id and len(state.turn.dice) == 6, "seed: no farkle"
    best = sorted(best_selection(state.turn.dice, state.rules, state.turn.extended))
    table = live_table(d, "farkle")
    # Every scoring die at once, and the first of them twice (a double tap).
    args = [f"{i}-on" for i in [best[0], *best]]
    taps = [
        d.prepare_click(mover, TABLE, custom_id=button(table, "toggle", arg), message=table)
        for arg in args
    ]
    await d.dispatch_all(taps)
    assert refusals(taps) == []
    assert all(r.callback_type in (6, 7) for r in taps)
    assert state_of(d, "farkle").turn.selected == best
    shown = live_table(d, "farkle")
    ticked = [i for i, b in enumerate(shown.buttons()[:6]) if b["label"].endswith("✓")]
    assert ticked == best
    # Roll pressed twice at once by the player: one throw, no refusal.
    rolls = [
        d.prepare_click(mover, TABLE, custom_id=button(shown, "roll"), message=shown)
        for _ in range(2)
    ]
    before = state_of(d, "farkle").turn.throws
    await d.dispatch_all(rolls)
    assert refusals(rolls) == []
    after = state_of(d, "farkle")
    assert after.turn.throws == before + 1 or after.current_player.id != mover.id


@pytest.mark.e2e(seed=3)
async def test_kuriki_declaring_while_someone_sneaks_a_peek(d: Driver) -> None:
    await start(d, "kuriki", [ALICE, BOB, CAROL], lives=3)
    roller = PLAYERS[state_of(d, "kuriki").roller]
    await d.click(roller, TABLE, custom_id=button(live_table(d, "kuriki"), "cw"))
    await d.click(roller, TABLE, custom_id=button(live_table(d, "kuriki"), "roll"))
    state = state_of(d, "kuriki")
    assert state.phase == "declare", "seed: a plain roll, not a Kuriki"
    menu = next(
        m
        for m in reversed(d.ephemerals(roller, TABLE))
        if any(
            str(c.get("custom_id", "")).startswith("t:kuriki:declare:") for c in m.all_components()
        )
    )
    value = next(
        c
        for c in menu.all_components()
        if str(c.get("custom_id", "")).startswith("t:kuriki:declare:")
    )["options"][-1]["value"]
    sneaker = next(p for p in PLAYERS.values() if p is not roller)
    table = live_table(d, "kuriki")
    # The sneak asks first, privately; its "Peek anyway" races the declaration.
    asked = await d.click(sneaker, TABLE, custom_id=button(table, "sneak"), message=table)
    assert asked.ephemeral and asked.message is not None, asked.text
    both = [
        select_payload(d, roller, menu, "t:kuriki:declare:", [value]),
        d.prepare_click(sneaker, TABLE, label="Peek anyway (foul)", message=asked.message),
    ]
    await d.dispatch_all(both)
    declared, sneaked = both
    assert not any("moment has passed" in t for t in refusals(both)), refusals(both)
    assert "You declared" in declared.text
    after = state_of(d, "kuriki")
    assert after.phase == "respond" and after.declared == int(value)
    assert sneaker.id in after.seen and after.player(sneaker.id).fouls == 1
    peek = asked.message  # the question turned into the dice, for him only
    assert sneaked.message is peek and "Under the cup" in peek.text(), sneaked.text
    assert peek.visible_for(sneaker.id) and not peek.visible_for(roller.id)


@pytest.mark.e2e(seed=41)
async def test_everyone_pressing_roll_at_once_is_told_whose_turn_it_is(d: Driver) -> None:
    """Only the mover can roll: whoever else pressed, before or after the mover's press was
    handled, is told it is not their turn (not "that moment has passed", which would send
    them looking for a newer table that does not exist: the table is edited in place)."""
    await start(d, "farkle", [ALICE, BOB, CAROL], rules="classic")
    mover = PLAYERS[state_of(d, "farkle").current_player.id]
    table = live_table(d, "farkle")
    roll = button(table, "roll")
    others = [p for p in PLAYERS.values() if p is not mover]
    presses = [d.prepare_click(u, TABLE, custom_id=roll, message=table) for u in PLAYERS.values()]
    await d.dispatch_all(presses)
    late = [  # phones that still showed the table before the roll, pressing it afterwards
        await d.dispatch(
            d.fake.interaction_payload(
                MESSAGE_COMPONENT, u, TABLE, {"custom_id": roll, "component_type": 2, "id": 1}, table
            )
        )
        for u in others
    ]
    assert live_table(d, "farkle") is table and len(state_of(d, "farkle").turn.dice) == 6
    told = refusals(presses + late)
    assert told == [f"It's not your turn: it's {mover.name}'s."] * 4, told


async def crap_my_hand(d: Driver, user: FakeUser) -> FakeMessage:
    rec = await d.click(user, TABLE, custom_id=button(live_table(d, "crap"), "hand"))
    assert rec.ephemeral and rec.message is not None
    return rec.message


@pytest.mark.e2e(seed=11)
async def test_crap_both_players_of_a_challenge_place_their_cards_at_once(d: Driver) -> None:
    await start(d, "crap", [ALICE, BOB, CAROL])
    state = state_of(d, "crap")
    challenger = PLAYERS[state.current_player.id]
    target = next(PLAYERS[p.id] for p in state.players if p.id != challenger.id and p.hand)
    hand = await crap_my_hand(d, challenger)
    await d.select(
        challenger, TABLE, [f"challenge-{target.id}"], message=hand,
        custom_id=next(c["custom_id"] for c in hand.all_components() if ":target:" in c.get("custom_id", "")),
    )  # fmt: skip
    challenge = state_of(d, "crap").challenge
    assert challenge is not None
    menus = {u: await crap_my_hand(d, u) for u in (challenger, target)}
    places = []
    for user, menu in menus.items():
        comp = next(c for c in menu.all_components() if ":commit:" in str(c.get("custom_id", "")))
        cards = [o["value"] for o in comp["options"]][: comp["min_values"]]
        places.append(select_payload(d, user, menu, comp["custom_id"], cards))
    await d.dispatch_all(places)
    assert refusals([r for r in places if "moment has passed" in r.text]) == []
    committed = state_of(d, "crap").challenge
    assert committed is not None and set(committed.committed) == {
        str(challenger.id),
        str(target.id),
    }


@pytest.mark.e2e(seed=11)
async def test_crap_everyone_lets_an_acquire_go_at_once(d: Driver) -> None:
    await start(d, "crap", [ALICE, BOB, CAROL])
    caller = PLAYERS[state_of(d, "crap").current_player.id]
    hand = await crap_my_hand(d, caller)
    acquire = next(
        c["custom_id"] for c in hand.all_components() if ":acquire:" in c.get("custom_id", "")
    )
    await d.select(caller, TABLE, ["13"], message=hand, custom_id=acquire)
    table = live_table(d, "crap")
    others = [p for p in PLAYERS.values() if p is not caller]
    # The window asks nobody (it closes by itself), yet both may let it go at once.
    assert not any(f"<@{p.id}>" in (table.content or "") for p in others)
    presses = [
        d.prepare_click(p, TABLE, custom_id=button(table, "nocall"), message=table) for p in others
    ]
    await d.dispatch_all(presses)
    assert not any("moment has passed" in t for t in refusals(presses))
    after = state_of(d, "crap")
    assert after.acquire is None and after.current_player.id != caller.id


async def test_a_kill_between_the_commit_and_the_table_leaves_a_true_table(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The move is committed, then the bot dies before Discord hears of it: the table in the
    channel shows the state before the move. The next bot brings it up to date on its own,
    and its buttons play on."""
    db = tmp_path / "e2e.sqlite3"
    async with running_bot(db, fake=fake, seed=3) as d:
        await start(d, "farkle", [ALICE, BOB], rules="classic")
        mover = PLAYERS[state_of(d, "farkle").current_player.id]
        stale = live_table(d, "farkle")
        before = d.stored(TABLE)
        assert before is not None
        import bot.interactions as answering

        async def never(*_: object) -> None:  # the process dies before answering
            await asyncio.Event().wait()

        answering.show_on_interaction = never  # type: ignore[assignment]
        try:
            rec = d.prepare_click(mover, TABLE, custom_id=button(stale, "roll"), message=stale)
            await fake.inject(rec)
            await eventually(
                "the press committed",
                lambda: (row := d.stored(TABLE)) is not None
                and row["revision"] > before["revision"],
            )
            await d.crash()
        finally:
            from bot.display import show_on_interaction

            answering.show_on_interaction = show_on_interaction
        assert rec.acked_at is None  # nobody was told
        del fake.interactions[rec.id]  # a dead process answers nothing: not the bot's fault
    committed = d.stored(TABLE)
    assert committed is not None and committed["revision"] == before["revision"] + 1
    assert stale.buttons() and "Thrown" not in stale.text()  # the channel shows the past
    async with running_bot(db, fake=fake, seed=3) as d2:
        await eventually(
            "the restarted bot's catch-up showing the committed throw",
            lambda: "Thrown" in getattr(find_live_table(d2, "farkle"), "text", str)(),
        )
        table = live_table(d2, "farkle")
        state = state_of(d2, "farkle")
        assert "Thrown" in table.text()
        stamp = int(button(table, "roll").split(":")[5])
        assert stamp == ADAPTERS["farkle"].stamp(state, "roll", None)
        assert d2.stored(TABLE)["revision"] == committed["revision"]  # type: ignore[index]
        assert state.current_player.id == mover.id, "seed: the throw scores"
        # The caught-up table's buttons play on.
        die = best_selection(state.turn.dice, state.rules, state.turn.extended)[0]
        rec = await d2.click(
            mover, TABLE, custom_id=button(table, "toggle", f"{die}-on"), message=table
        )
        assert not rec.ephemeral and state_of(d2, "farkle").turn.selected == [die]
