"""Seeded games played through the table service (`bot.service.Tables`, a SQLite file in a
temporary folder, a test clock, no Discord) to a moment worth showing: one person, Ann,
plays against bots, pressing what a person would; the bots move when their pause is due, as
in the running bot. What comes out is the table as the bot would send it (`Rendered`), so
the pictures of the docs are the real thing and never go stale."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord

from bench.crap_messages import CHANNEL, GUILD, Channel, Clock, Tally, person_moves
from bot.app import default_adapters
from bot.components import Click, TableItem
from bot.pictures.emojis import Faces
from bot.pictures.faces import catalogue
from bot.service import Actor, Reply, Tables
from bot.settings import GuildSettings
from bot.store import Store
from bot.tables.base import Rendered
from games.crap.engine import CrapState, waiting_for
from games.farkle.engine import FarkleState
from games.kuriki.engine import KurikiState

ANN = Actor(id=11, name="Ann")
MAX_STEPS = 5000
START = 1_767_225_600.0  # the test clock starts on 2026-01-01 00:00 UTC
#: Fake ids of the application emojis: the key of each picture (`faces.catalogue`) by id.
EMOJI_BASE = 1_300_000_000_000_000_000


def picture_faces() -> tuple[Faces, dict[int, str]]:
    """A `Faces` writing dice and cards as emoji tags, as it does once the bot's emojis are
    uploaded, and the picture key of each emoji id (to draw them again)."""
    keys = sorted(catalogue())
    emojis = {
        key: discord.PartialEmoji(name=f"tb_{key}", id=EMOJI_BASE + n) for n, key in enumerate(keys)
    }
    faces = Faces()
    faces.use(emojis)
    return faces, {e.id: key for key, e in emojis.items() if e.id is not None}


class Shown(Channel):
    """The channel, remembering the last table shown in full (`Rendered`)."""

    rendered: Rendered | None = None
    story: bytes | None = None

    async def show(self, reply: Reply) -> None:
        if reply.update is not None:
            self.rendered = reply.update.table
            if reply.update.table.picture is not None:
                self.story = reply.update.table.picture
        await super().show(reply)

    def item(self, action: str, items: list[TableItem] | None = None) -> Click | None:
        for item in self.table.items if items is None else items:  # type: ignore[union-attr]
            click = Click.parse(item.custom_id)
            if click is not None and click.action == action and not item.disabled:
                return click
        return None


@dataclass
class Moment:
    """A seeded game's table at its moment, the names of its people by id (for mentions),
    and the story picture of the same game played to its end."""

    table: Rendered
    names: dict[int, str]
    now: float
    story: bytes


PersonMove = Callable[[Shown, Any], Awaitable[None]]
Stage = Callable[[Shown, Any], Awaitable[bool]]


async def farkle_move(ch: Shown, state: FarkleState) -> None:
    """Roll, then keep the best dice: bank once the turn holds 300 or more."""
    for action in ("roll", "bestbank", "bestroll", "bank"):
        click = ch.item(action)
        if click is None:
            continue
        if action == "bestbank" and state.turn.total < 300 and ch.item("bestroll"):
            continue
        await ch.show(await ch.tables.click(ANN, click, ch.table_id))
        return
    raise AssertionError("Ann has no move on the Farkle table")


async def kuriki_move(ch: Shown, state: KurikiState) -> None:
    """Choose a direction; as the Roller roll and declare the truth (or the least allowed);
    as the Next Guy pull."""
    for action in ("cw", "pull"):
        click = ch.item(action)
        if click is not None:
            await ch.show(await ch.tables.click(ANN, click, ch.table_id))
            return
    roll = ch.item("roll")
    assert roll is not None, "Ann has no move on the Kuriki table"
    answer = await ch.tables.click(ANN, roll, ch.table_id)
    menu = next(i for f in [answer, *answer.followups] for i in f.items or [] if i.placeholder)
    truth = [o for o in menu.options if o.label.endswith("the truth")]
    value = (truth or [menu.options[-1]])[0].value
    click = Click.parse(menu.custom_id)
    assert click is not None
    click = Click(click.kind, click.action, click.channel_id, click.game, click.stamp, click.arg, (value,))
    await ch.show(await ch.tables.click(ANN, click, 1, ephemeral=True))


async def crap_move(ch: Shown, state: CrapState) -> None:
    """My hand, then the bot policy's move in it, as `bench.crap_messages` plays a person."""
    await person_moves(ch, ANN, random.Random(5))


async def farkle_moment(ch: Shown, state: FarkleState) -> bool:
    """A few turns in, Ann has thrown five or six dice and taps her 1s: green, the table
    says what they are worth."""
    dice = state.turn.dice
    if state.turn_number < 7 or len(dice) < 5 or state.turn.selected or 1 not in dice:
        return False
    for i, face in enumerate(dice):
        if face == 1:
            tap = ch.item("toggle", [t for t in ch.rendered.items if t.custom_id.endswith(f":{i}-on")])  # type: ignore[union-attr]
            assert tap is not None
            await ch.show(await ch.tables.click(ANN, tap, ch.table_id))
    return True


async def kuriki_moment(ch: Shown, state: KurikiState) -> bool:
    """Ann is the Next Guy (roll, pull or pass) once a few lives are lost."""
    lost = sum(state.rules.lives - p.lives for p in state.players)
    return state.phase == "respond" and lost >= 3


async def crap_moment(ch: Shown, state: CrapState) -> bool:
    """Ann's turn after a scoring round, with sets scored and cards shown to everyone (👁)."""
    shown = ch.rendered.embed.description or "" if ch.rendered else ""
    return state.phase == "turn" and state.rounds >= 1 and "👁" in shown and "sets" in shown


async def play(
    kind: str,
    seed: int,
    options: dict[str, object],
    move: PersonMove,
    moment: Stage,
) -> Moment:
    """Ann opens a `kind` lobby with bots (`options`), starts it and plays; the table is
    kept when `moment(channel, state)` first says so on a table that waits on her (it
    may press something first, such as a die), and the game is played on to its end for
    the story picture."""
    faces, _ = picture_faces()
    adapters = default_adapters()
    for adapter in adapters.values():
        adapter.faces = faces
    clock = Clock()
    clock.now = START
    with tempfile.TemporaryDirectory(prefix="tablebot-pictures-") as tmp:
        store = await Store.open(Path(tmp) / "games.sqlite3")
        tables = Tables(
            store=store,
            adapters=adapters,
            defaults=GuildSettings(),
            rng=random.Random(seed),
            clock=clock,
        )
        try:
            return await _play(tables, clock, kind, options, move, moment)
        finally:
            await store.close()


async def _play(
    tables: Tables,
    clock: Clock,
    kind: str,
    options: dict[str, object],
    move: PersonMove,
    moment: Stage,
) -> Moment:
    ch = Shown(tables, clock, Tally())
    lobby = await tables.open_lobby(ANN, GUILD, CHANNEL, kind, options)
    ch.table_id = ch.new_id()
    await tables.table_posted(CHANNEL, ch.table_id)
    ch.table = lobby
    await ch.show(await tables.click(ANN, ch.button("start"), ch.table_id))
    adapter = tables.adapters[kind]
    kept: Moment | None = None
    for _ in range(MAX_STEPS):
        session = await tables.sessions.get(CHANNEL)
        if session is None or not session.started:
            break
        state = session.state
        clock.now += 1.0  # a person answers a second after the table changed
        # Who must act now. CRAP's waiting_on also names whoever plays after a challenge (to
        # call them in the same post): the engine's waiting_for is who must act.
        waiting = dict.fromkeys(waiting_for(state)) if kind == "crap" else adapter.waiting_on(state)
        if ANN.id in waiting:
            if kept is None and await moment(ch, state):
                assert ch.rendered is not None
                kept = Moment(ch.rendered, {ANN.id: ANN.name}, clock.now, b"")
            await move(ch, state)
            continue
        assert session.deadline is not None, "the game waits on nobody"
        clock.now = max(clock.now, session.deadline)
        reply = await tables.expire(CHANNEL)
        if reply is not None:
            await ch.show(reply)
    else:
        raise AssertionError(f"the {kind} game did not end in {MAX_STEPS} steps")
    if kept is None or ch.story is None:
        raise AssertionError(f"the {kind} game ended without its moment or its story")
    kept.story = ch.story
    return kept

