"""Helpers for driving the Kuriki engine with scripted dice."""

from __future__ import annotations

import pytest

from games.errors import GameError
from games.kuriki.engine import (
    Action,
    Event,
    KPlayer,
    KurikiRules,
    KurikiState,
    apply,
    charge_rusk,
    expire_votes,
    legal_actions,
    new_game,
    on_clock,
    private_view,
    public_view,
    remove_player,
    timeout,
)
from games.lobby import Seat
from tests.games.scripted import ScriptedRandom

ANN, BOB, CAT, DAN, EVE, FAY = 1, 2, 3, 4, 5, 6
NAMES = {ANN: "Ann", BOB: "Bob", CAT: "Cat", DAN: "Dan", EVE: "Eve", FAY: "Fay"}
STRANGER = 99


def seats(n: int) -> list[Seat]:
    return [Seat(id=i, name=NAMES[i]) for i in range(1, n + 1)]


def money(state: KurikiState) -> int:
    """Every purse plus the pot plus the stakes the table still holds: always zero."""
    held = 0 if state.finished else state.rules.stake * len(state.players)
    return sum(p.purse for p in state.players) + state.pot + held


class Table:
    """A game in progress: the state, the scripted dice and the last move's events.

    The seating rolls are scripted so that `first` wins them, and `direction` (unless None)
    is chosen at once (with three players or more: two have no choice to make)."""

    def __init__(
        self,
        players: int = 3,
        first: int = ANN,
        direction: str | None = "cw",
        **rules: object,
    ) -> None:
        self.rng = ScriptedRandom()
        self.rng.load(*[6 if i == first else 1 for i in range(1, players + 1)])
        self.state, self.events = new_game(seats(players), KurikiRules(**rules), self.rng)
        assert not self.rng.script
        assert self.state.roller == first
        if players == 2:  # nobody else to choose: the first Roller holds the cup at once
            assert self.state.phase == "roll"
            return
        assert self.state.phase == "direction"
        if direction is not None:
            self.do("direction", direction)

    # ------------------------------------------------------------------ queries

    @property
    def who(self) -> int:
        uid = on_clock(self.state)
        assert uid is not None, "the game is over"
        return uid

    def p(self, user_id: int) -> KPlayer:
        return self.state.player(user_id)

    def lives(self) -> dict[int, int]:
        return {p.id: p.lives for p in self.state.players}

    def legal(self, user_id: int | None = None) -> set[str]:
        return legal_actions(self.state, self.who if user_id is None else user_id)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def texts(self) -> str:
        return "\n".join(str(e.text) for e in self.events)

    def events_of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def public(self) -> dict[str, object]:
        return public_view(self.state)

    def private(self, user_id: int) -> dict[str, object]:
        return private_view(self.state, user_id)

    # ------------------------------------------------------------------ moves

    def do(
        self,
        kind: str,
        value: str | int | None = None,
        user_id: int | None = None,
        **fields: object,
    ) -> None:
        uid = self.who if user_id is None else user_id
        action = Action(kind=kind, value=None if value is None else str(value), **fields)
        self.state, self.events = apply(self.state, uid, action, self.rng)

    def roll(self, a: int, b: int, user_id: int | None = None) -> None:
        """Roll (fresh, or taking the cup), scripting exactly the two dice thrown."""
        assert not self.rng.script
        self.rng.load(a, b)
        self.do("roll", user_id=user_id)
        assert not self.rng.script, "the engine threw fewer than two dice"

    def declare(self, value: int) -> None:
        self.do("declare", value)

    def point(self, a: int, b: int, declared: int) -> None:
        """The Roller on the clock rolls a-b and declares `declared`."""
        self.roll(a, b)
        self.declare(declared)

    def pull(self) -> None:
        self.do("pull")

    def pass_(self) -> None:
        self.do("pass")

    def sneak(self, user_id: int) -> None:
        self.do("sneak", user_id=user_id)

    def propose(self, proposer: int, accused: int, now: float = 0.0, reason: str = "") -> None:
        self.do("propose", accused, user_id=proposer, now=now, reason=reason)

    def vote(self, voter: int, vote_id: int, value: str, now: float = 0.0) -> None:
        self.do("vote", value, user_id=voter, vote=vote_id, now=now)

    def timeout(self, *dice: int, now: float = 0.0) -> None:
        assert not self.rng.script
        self.rng.load(*dice)
        self.state, self.events = timeout(self.state, self.rng, now)
        assert not self.rng.script, "the engine threw fewer dice than scripted"

    def remove(self, user_id: int) -> None:
        self.state, self.events = remove_player(self.state, user_id)

    def rusk(self, user_id: int) -> None:
        self.state, self.events = charge_rusk(self.state, user_id)

    def expire(self, now: float) -> None:
        self.state, self.events = expire_votes(self.state, now)

    def refused(
        self,
        kind: str,
        value: str | int | None = None,
        user_id: int | None = None,
        error: type[GameError] = GameError,
        match: str | None = None,
        **fields: object,
    ) -> None:
        """The move is refused with `error`, and the state is left exactly as it was."""
        before = self.state.model_dump()
        copy = self.state.model_copy(deep=True)
        script = list(self.rng.script)
        with pytest.raises(error, match=match):
            self.do(kind, value, user_id, **fields)
        assert self.state.model_dump() == before
        assert self.state == copy
        assert self.rng.script == script, "a refused move threw dice"
