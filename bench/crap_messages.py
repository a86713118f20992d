"""How much a CRAP game posts in its channel, and how often it asks the players who are not
on turn to tap: seeded games played through the table service (`Tables`, a real SQLite
file, a test clock), no Discord.

    python -m bench.crap_messages --games 5

Two tables: three people, and one person with two bots, to 300 points. People are simulated
by a simple policy: on their turn (and in a challenge) they make the bot policy's move by
pressing what a person would (My hand, then its selects and buttons). On someone else's
Acquire a person presses **Call bluff** when the policy would call, and otherwise presses
**Let it go** only when the table asks them to decide (mentions them or marks their row ⏳);
a person nobody asks does nothing and the window closes by itself. Bots move when their
pause is due, as in the running bot.

Counted: public messages (a table posted afresh, a public follow-up such as a ping) from
the game's first table on; turns; per Acquire, how many non-acting people the table asked to
decide ("required taps") and how many Let it go presses were made."""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import discord

from bench.common import header
from bot.app import default_adapters
from bot.components import Click
from bot.service import Actor, Reply, Tables, TableUpdate
from bot.settings import GuildSettings
from bot.store import Store
from bot.tables.crap import awaited
from games.crap import policy
from games.crap.cards import is_joker, label, rank
from games.crap.engine import Action, CrapState, waiting_for

GUILD = 1000
CHANNEL = 2000
PEOPLE = [Actor(id=11, name="Ann"), Actor(id=12, name="Ben"), Actor(id=13, name="Cat")]
MAX_STEPS = 20_000


class Clock:
    """The service's clock, moved by the game: a person answers a second after they are
    asked; when nobody answers, time jumps to the next deadline (a bot's pause, a window)."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Tally:
    """What one or more games did in the channel."""

    games: int = 0
    turns: int = 0
    person_turns: int = 0
    public: int = 0
    acquires: int = 0
    asked: int = 0  # non-acting people the table asked to decide on an Acquire
    let_go: int = 0  # Let it go presses
    calls: int = 0  # Call bluff presses
    challenge_ends: int = 0  # games that ended in a challenge (it called its target)
    step_calls: int = 0  # tables posted within a challenge to call whoever's step came
    window_seconds: float = 0.0  # how long Acquire windows held the game (test clock)

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def per_turn(self) -> float:
        return self.public / max(self.turns, 1)

    def asked_per_acquire(self) -> float:
        return self.asked / max(self.acquires, 1)

    def wait_per_acquire(self) -> float:
        return self.window_seconds / max(self.acquires, 1)


class Channel:
    """One channel as Discord would hold it: which message is the table, how many public
    messages were posted; every update is recorded as shown, as the bot does."""

    def __init__(self, tables: Tables, clock: Clock, tally: Tally) -> None:
        self.tables = tables
        self.clock = clock
        self.tally = tally
        self.table: Reply | None = None  # the live table's buttons
        self.table_id = 0
        self.pinged: set[int] = set()  # who the latest table update mentioned
        self.phase = ""  # what the table shown last waits for

    def new_id(self) -> int:
        self.clock.now += 0.001  # ids must grow
        return discord.utils.time_snowflake(datetime.fromtimestamp(self.clock.now, tz=UTC))

    async def show(self, reply: Reply) -> None:
        self.tally.public += sum(1 for f in reply.followups if not f.ephemeral)
        update: TableUpdate | None = reply.update
        if update is None:
            return
        self.pinged = set(update.ping)
        session = await self.tables.sessions.get(CHANNEL)
        state = session.state if session is not None and session.started else None
        phase = getattr(state, "phase", "")  # (tools/seeded_tables.py shows other games too)
        if update.fresh:
            self.tally.public += 1
            self.tally.step_calls += phase == self.phase == "challenge" and bool(update.ping)
            self.table_id = self.new_id()
        self.phase = phase
        self.table = Reply(items=update.table.items, embed=update.table.embed)
        await self.tables.shown(update, self.table_id)

    def button(self, action: str) -> Click:
        assert self.table is not None
        for item in self.table.items or []:
            click = Click.parse(item.custom_id)
            if click is not None and click.action == action and not item.disabled:
                return click
        raise AssertionError(f"no {action} on the table")


def snapshot_turns(log: list[str]) -> int:
    return sum(1 for line in log if line.endswith("'s turn.") or "and starts." in line)


def appended(old: list[str], new: list[str]) -> list[str]:
    """The lines a step added to a log that keeps only its last few (the fewest that explain
    the change)."""
    n = next(
        n
        for n in range(len(new) + 1)
        if n == len(new) or new[: len(new) - n] == old[len(old) - (len(new) - n) :]
    )
    return new[len(new) - n :]


def click_for(hand: Reply, state: CrapState, seat: int, action: Action) -> tuple[Click, tuple[str, ...]]:
    """The select or button of a "My hand" reply that makes the policy's move."""
    items = {}
    for item in hand.items or []:
        click = Click.parse(item.custom_id)
        if click is not None:
            items[click.action] = (click, item)
    kind = action.kind
    if kind == "score":
        natural = next(rank(c) for c in action.cards if not is_joker(c))
        return items["score"][0], (f"{natural}-{len(action.cards)}",)
    if kind == "acquire":
        return items["acquire"][0], (str(action.rank),)
    if kind == "protect":
        click, item = items["protect"]
        values = [o.value for o in item.options]
        card = action.cards[0]
        same = [v for v in values if label(int(v)) == label(card)]
        return click, (str(card) if str(card) in values else same[0],)
    if kind in ("challenge", "cooperate", "force"):
        return items["target"][0], (f"{kind}-{action.target}",)
    if kind == "recycle":
        return items["recycle"][0], ()
    if kind == "commit":
        click, item = items["commit"]
        values = [o.value for o in item.options]
        chosen = [str(c) for c in action.cards if str(c) in values]
        chosen += [v for v in values if v not in chosen][: item.min_values - len(chosen)]
        return click, tuple(chosen[: item.min_values])
    raise AssertionError(f"no click for {kind}")


async def person_moves(ch: Channel, actor: Actor, minds: random.Random) -> None:
    """`actor` is on turn (or in a challenge): My hand, then the policy's move in it."""
    tables, now = ch.tables, ch.clock.now
    hand = await tables.click(actor, ch.button("hand"), ch.table_id)
    state: CrapState = (await tables.sessions.get(CHANNEL)).state  # type: ignore[union-attr]
    action = policy.choose(state, actor.id, minds, now)
    assert action is not None, "the policy has no move for a person on turn"
    if action.kind == "guess":
        guess = next(
            c for c in (Click.parse(i.custom_id) for i in hand.items or []) if c and c.action == "guess"
        )
        values = (str(action.rank), action.suit or "S")
        reply = await tables.click(actor, _with(guess, values), 1, ephemeral=True)
    else:
        click, values = click_for(hand, state, actor.id, action)
        reply = await tables.click(actor, _with(click, values), 1, ephemeral=True)
    await ch.show(reply)


def _with(click: Click, values: tuple[str, ...]) -> Click:
    return replace(click, values=values)


async def play_game(
    seed: int,
    bots: int = 0,
    threshold: int = 300,
    path: Path | str | None = None,
    *,
    let_bluffs_go: bool = False,
) -> Tally:
    """One seeded game: 3 - `bots` people and `bots` bots, to `threshold` points; with
    `let_bluffs_go` the people turn on Let bluffs go (My hand) when it starts."""
    tally = Tally(games=1)
    clock = Clock()
    with tempfile.TemporaryDirectory(prefix="tablebot-crapmsg-") as tmp:
        store = await Store.open(path or Path(tmp) / "crap.sqlite3")
        tables = Tables(
            store=store,
            adapters=default_adapters(),
            defaults=GuildSettings(),
            rng=random.Random(seed),
            clock=clock,
        )
        try:
            await _play(tables, clock, tally, seed, bots, threshold, let_bluffs_go)
        finally:
            await store.close()
    return tally


async def _play(
    tables: Tables,
    clock: Clock,
    tally: Tally,
    seed: int,
    bots: int,
    threshold: int,
    let_bluffs_go: bool,
) -> None:
    people = {a.id: a for a in PEOPLE[: 3 - bots]}
    minds = random.Random(seed * 7919 + 1)
    ch = Channel(tables, clock, tally)
    lobby = await tables.open_lobby(
        PEOPLE[0], GUILD, CHANNEL, "crap", {"threshold": threshold, "bots": bots}
    )
    lobby_id = ch.new_id()
    await tables.table_posted(CHANNEL, lobby_id)
    ch.table_id = lobby_id
    ch.table = lobby
    for actor in list(people.values())[1:]:
        ch.table = await tables.click(actor, ch.button("join"), lobby_id)
    await ch.show(await tables.click(PEOPLE[0], ch.button("start"), lobby_id))
    for actor in people.values() if let_bluffs_go else ():
        hand = await tables.click(actor, ch.button("hand"), ch.table_id)
        toggle = next(
            c for c in (Click.parse(i.custom_id) for i in hand.items or []) if c and c.action == "letgo"
        )
        await ch.show(await tables.click(actor, toggle, 1, ephemeral=True))
    log: list[str] = []
    last_phase = ""
    window: tuple[int, int] | None = None  # (caller, moment) of the Acquire being counted
    asked: set[int] = set()  # whom the table asked to decide on it
    opened_at: float | None = None  # when it opened
    for _ in range(MAX_STEPS):
        session = await tables.sessions.get(CHANNEL)
        state: CrapState | None = None if session is None else session.state
        if state is not None:
            lines = [str(line) for line in state.log]  # English, as the engine wrote it
            new = appended(log, lines)
            tally.turns += snapshot_turns(new)
            tally.person_turns += sum(
                1 for line in new for p in people.values() if line.startswith(f"{p.name}'s turn")
                or line.startswith(f"{p.name} has the fewest")
            )
            log = lines
        if state is None:
            # A challenge's post also calls the next player, so its end posts nothing; a
            # game that ends in it has no next turn to save that post on.
            tally.challenge_ends += last_phase == "challenge"
            return
        last_phase = state.phase
        key = (state.acquire.caller, state.moment) if state.acquire is not None else None
        if opened_at is not None and key != window:  # the window closed
            tally.window_seconds += clock.now - opened_at
            opened_at = None
        clock.now += 1.0  # a person answers a second after the table changed
        movers = [p for p in waiting_for(state) if p in people]
        if movers:
            await person_moves(ch, people[movers[0]], minds)
            continue
        pressed = False
        if state.phase == "acquire" and state.acquire is not None:
            a = state.acquire
            if window != (a.caller, state.moment):
                window = (a.caller, state.moment)
                opened_at = clock.now - 1.0
                tally.acquires += 1
                # the update that opened the window is the latest one
                asked = (set(awaited(state)) | ch.pinged) & (set(people) - {a.caller})
                tally.asked += len(asked)
            for pid in people:
                if pid == a.caller or pid in a.declined:
                    continue
                action = policy.choose(state, pid, minds, clock.now)
                if action is None:
                    continue
                is_asked = pid in awaited(state) or pid in asked
                if action.kind == "call_bluff":
                    tally.calls += 1
                elif is_asked:
                    tally.let_go += 1
                else:
                    continue
                name = "bluff" if action.kind == "call_bluff" else "nocall"
                await ch.show(await tables.click(people[pid], ch.button(name), ch.table_id))
                pressed = True
                break
        if pressed:
            continue
        assert session is not None and session.deadline is not None, "the game waits on nobody"
        clock.now = max(clock.now, session.deadline)
        reply = await tables.expire(CHANNEL)
        if reply is not None:
            await ch.show(reply)
    raise AssertionError(f"game {seed} did not end in {MAX_STEPS} steps")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.crap_messages", description=__doc__)
    p.add_argument("--games", type=int, default=5, help="seeded games per table (seeds 1..N)")
    p.add_argument("--threshold", type=int, default=300)
    return p.parse_args(argv)


TABLES = [
    ("3 people", 0, False),
    ("1 person + 2 bots", 2, False),
    ("1 person + 2 bots, she turned on Let bluffs go", 2, True),
]


async def run(args: argparse.Namespace) -> list[tuple[str, Tally]]:
    rows = []
    for label_, bots, let_go in TABLES:
        total = Tally()
        for seed in range(1, args.games + 1):
            total.add(await play_game(seed, bots, args.threshold, let_bluffs_go=let_go))
        rows.append((label_, total))
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rows = asyncio.run(run(args))
    header("bench.crap_messages", "the table service in this process, no Discord; SQLite file")
    for name, t in rows:
        print(
            f"{name}, to {args.threshold}, {t.games} games: {t.turns} turns "
            f"({t.person_turns} by people), {t.public} public messages = "
            f"{t.per_turn():.3f} per turn ({t.challenge_ends} games ended in a challenge, "
            f"{t.step_calls} called a challenge's next step); "
            f"{t.acquires} Acquires asked "
            f"{t.asked_per_acquire():.2f} non-acting people each to decide; "
            f"{t.let_go} Let it go and {t.calls} Call bluff presses; an Acquire held the "
            f"game {t.wait_per_acquire():.1f} s on average"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
