"""Playing a whole game without reading a word: for tables in any language.

The English players (farkle_play.py, kuriki_play.py, crap_play.py) read labels and sentences;
these read none. Each step asks the game's own bot policy what a player would do
(`policy.choose(state, seat, rng, now)`, the state read from the in-process bot), then finds
the button or select option that makes exactly that move: every enabled component of the
game (`t:<kind>:<action>:...`) the player sees, on the table and in their own ephemerals, is
tried on a copy of the state through the adapter (`adapter.apply`), and the one whose result
equals the policy's move is pressed. When none does, the player first opens what the table
offers privately (the adapter's read-only actions: a hand, the cup), the option naming the
policy's value first; when still none, any legal move found the same way is pressed. A press
the bot refuses (a stale button) is harmless: the next candidate is tried.

    await open_game(d, "farkle", PLAYERS, target=1000)
    final = await play_to_end(d, "farkle", PLAYERS)"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bot.components import Click
from bot.tables.base import Move, TableAdapter
from games.copies import working_copy
from tests.e2e.fake_discord import FakeMessage, InteractionRecord
from tests.e2e.harness import TABLE, ClientRefused, Driver, FakeUser

#: Read-only actions a careful player never presses to see their options (a foul).
NEVER_OPEN = {"kuriki": {"sneak", "sneakok"}, "crap": {"log"}}


def components(msg: FakeMessage) -> Iterator[dict[str, Any]]:
    yield from msg.all_components()


def action_of(custom_id: str) -> Click | None:
    return Click.parse(custom_id)


async def open_game(d: Driver, kind: str, players: list[FakeUser], **options: Any) -> None:
    """/<kind> start by the first player, Join by the others, Start by the first: found by
    the lobby buttons' custom_ids, never their labels."""
    await d.slash(players[0], TABLE, f"{kind} start", **options)
    for p in players[1:]:
        await d.click(p, TABLE, custom_id=lobby_button(d, p, kind, "join"))
    await d.click(players[0], TABLE, custom_id=lobby_button(d, players[0], kind, "start"))
    session = d.bot.tables.sessions.cached(TABLE) if d.bot else None
    assert session is not None and session.started, "the game did not start"


def lobby_button(d: Driver, user: FakeUser, kind: str, action: str) -> str:
    for msg in reversed(d.visible(user, TABLE)):
        for c in msg.buttons():
            click = action_of(str(c.get("custom_id", "")))
            if click and click.kind == kind and click.action == action and not c.get("disabled"):
                return str(c["custom_id"])
    raise AssertionError(f"{user.name} sees no {action} button of a {kind} lobby")


@dataclass
class Candidate:
    message: FakeMessage
    component: dict[str, Any]
    click: Click
    values: tuple[str, ...] = ()

    @property
    def is_select(self) -> bool:
        return self.component.get("type") == 3


@dataclass
class NeutralPlayer:
    """Drives one game of `kind` for `players` in the channel TABLE."""

    d: Driver
    kind: str
    players: list[FakeUser]
    seed: int = 7
    presses: int = 0
    refused: int = 0
    moves: int = 0
    did: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        assert self.d.bot is not None, "the neutral players read the in-process bot's state"
        self.rng = random.Random(self.seed)
        self.adapter: TableAdapter = self.d.bot.tables.adapters[self.kind]

    # ------------------------------------------------------------------ the game

    def session(self) -> Any:
        assert self.d.bot is not None
        return self.d.bot.tables.sessions.cached(TABLE)

    def state(self) -> Any:
        session = self.session()
        if session is None or session.kind != self.kind or not session.started:
            return None
        return session.state

    def finished(self) -> bool:
        state = self.state()
        return state is None or self.adapter.is_finished(state)

    def revision(self) -> int:
        session = self.session()
        return -1 if session is None else session.revision

    def now(self) -> float:
        assert self.d.bot is not None
        return self.d.bot.tables.clock()

    def choose(self, state: Any, user: FakeUser) -> Any:
        policy = self.adapter.policy
        chooser = getattr(policy, "fallback", None) if self.kind == "farkle" else None
        return (chooser or policy.choose)(state, user.id, self.rng, self.now())

    # ------------------------------------------------------------------ candidates

    def candidates(self, user: FakeUser, *, read_only: bool) -> list[Candidate]:
        """The enabled components of this game `user` sees, newest message first: moves, or
        (`read_only`) what opens a private view."""
        private = self.adapter.read_only_actions - NEVER_OPEN.get(self.kind, set())
        out: list[Candidate] = []
        for msg in reversed(self.d.visible(user, TABLE)):
            for comp in components(msg):
                click = action_of(str(comp.get("custom_id", "")))
                if click is None or click.kind != self.kind or comp.get("disabled"):
                    continue
                if click.action in NEVER_OPEN.get(self.kind, set()) or click.action == "rematch":
                    continue
                if (click.action in private) != read_only:
                    continue
                if comp.get("type") == 3:
                    for option in comp.get("options") or []:
                        out.append(Candidate(msg, comp, click, (str(option["value"]),)))
                    if comp.get("max_values", 1) > 1:
                        out.append(Candidate(msg, comp, click, ()))  # filled from the move
                elif comp.get("type") == 2:
                    out.append(Candidate(msg, comp, click))
        return out

    def result(
        self, state: Any, user: FakeUser, cand: Candidate, values: tuple[str, ...], now: float
    ) -> Any:
        move = Move(
            user_id=user.id,
            action=cand.click.action,
            arg=cand.click.arg,
            values=values,
            now=now,
        )
        try:
            return self.adapter.apply(working_copy(state), move, random.Random(0))
        except Exception:
            return None

    def values_for(self, cand: Candidate, action: Any) -> tuple[str, ...]:
        if cand.values:
            return cand.values
        cards = getattr(action, "cards", None) or []
        allowed = {str(o["value"]) for o in cand.component.get("options") or []}
        chosen = tuple(str(c) for c in cards)
        if not chosen and getattr(action, "kind", None) == "guess":  # CRAP: value and suit
            chosen = (str(action.rank), str(action.suit))
        lo, hi = cand.component.get("min_values", 1), cand.component.get("max_values", 1)
        return chosen if set(chosen) <= allowed and lo <= len(chosen) <= hi else ()

    def tries(
        self, state: Any, user: FakeUser, action: Any
    ) -> Iterator[tuple[Candidate, tuple[str, ...], bool]]:
        """Each candidate press that makes some legal move, and whether it makes exactly
        `action`, tried only as they are asked for: the first exact one is usually pressed
        and the rest never tried (each try is a move on a copy of the state)."""
        try:
            wanted = self.adapter.engine.apply(
                working_copy(state), user.id, action, random.Random(0)
            )[0]
        except Exception:
            wanted = None
        # The move's own time (a deadline it sets), so that the same press gives the same state.
        now = getattr(action, "now", None) or self.now()
        for cand in self.candidates(user, read_only=False):
            values = self.values_for(cand, action)
            if cand.is_select and not values:
                continue
            after = self.result(state, user, cand, values, now)
            if after is not None:
                yield cand, values, wanted is not None and after == wanted

    def matching(self, state: Any, user: FakeUser, action: Any) -> tuple[list, list]:
        """The candidates that make exactly `action`, and those that make some legal move."""
        exact, legal = [], []
        for cand, values, is_exact in self.tries(state, user, action):
            (exact if is_exact else legal).append((cand, values))
        return exact, legal

    # ------------------------------------------------------------------ pressing

    async def press(self, user: FakeUser, cand: Candidate, values: tuple[str, ...]) -> bool:
        """Press, and say whether the game moved (a refusal or a private view does not)."""
        before = self.revision()
        self.presses += 1
        rec: InteractionRecord
        try:
            if cand.is_select:
                rec = await self.d.select(
                    user, TABLE, list(values), custom_id=cand.component["custom_id"],
                    message=cand.message,
                )
            else:
                rec = await self.d.click(
                    user, TABLE, custom_id=cand.component["custom_id"], message=cand.message
                )
        except ClientRefused:
            return False
        moved = self.revision() != before or self.finished()
        if moved:
            self.moves += 1
            self.did[cand.click.action] = self.did.get(cand.click.action, 0) + 1
        elif rec.ephemeral and cand.click.action not in self.adapter.read_only_actions:
            self.refused += 1
        return moved

    async def open_views(self, user: FakeUser, action: Any) -> None:
        """Open `user`'s private views, the option naming the move's values first."""
        named = {str(v) for v in vars(action).values() if v is not None} if action else set()
        opened: set[tuple[str, tuple[str, ...]]] = set()
        cands = self.candidates(user, read_only=True)
        cands.sort(key=lambda c: not (set(c.values) & named or c.click.arg in named))
        for cand in cands[:3]:
            key = (cand.click.action, cand.values)
            if key in opened:
                continue
            opened.add(key)
            await self.press(user, cand, cand.values)

    async def step(self) -> bool:
        """One move by someone; False when nobody could move."""
        state = self.state()
        order = self.players[self.moves % len(self.players) :] + self.players[
            : self.moves % len(self.players)
        ]
        for user in order:
            action = self.choose(state, user)
            if action is None:
                continue
            for attempt in range(3):
                if attempt < 2:  # an exact press, else open the private views and look again
                    for cand, values, is_exact in self.tries(self.state(), user, action):
                        if is_exact and await self.press(user, cand, values):
                            return True
                    await self.open_views(user, action if attempt == 0 else None)
                    continue
                exact, legal = self.matching(self.state(), user, action)
                for cand, values in exact:
                    if await self.press(user, cand, values):
                        return True
                self.rng.shuffle(legal)
                for cand, values in legal:
                    if await self.press(user, cand, values):
                        return True
                if self.state() is not state:
                    return True
        return False

    async def play_to_end(self, max_moves: int = 1500) -> None:
        stuck = 0
        while not self.finished():
            assert self.moves < max_moves, f"no end after {self.moves} moves"
            if await self.step():
                stuck = 0
                continue
            stuck += 1
            assert stuck < 3, (
                f"nobody could move: {self.adapter.waiting_on(self.state())}; "
                f"presses {self.presses}, refused {self.refused}, moves {self.did}"
            )
            await self.d.settle()


async def play_to_end(d: Driver, kind: str, players: list[FakeUser], seed: int = 7) -> NeutralPlayer:
    player = NeutralPlayer(d, kind, players, seed)
    await player.play_to_end()
    return player


def final_table(d: Driver, kind: str) -> FakeMessage:
    """The game's final table: the latest public message with its Rematch button."""
    for msg in reversed(d.fake.public(TABLE)):
        for c in msg.buttons():
            click = action_of(str(c.get("custom_id", "")))
            if click and click.kind == kind and click.action == "rematch":
                return msg
    raise AssertionError("no final table with a rematch button")
