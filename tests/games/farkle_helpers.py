"""Helpers for driving the Farkle engine with scripted dice."""

from __future__ import annotations

from games.farkle.engine import (
    Action,
    Event,
    FarklePlayer,
    FarkleState,
    apply,
    legal_actions,
    remove_player,
    timeout,
)
from games.farkle.rules import FarkleRules
from tests.games.scripted import ScriptedRandom

NAMES = {1: "Ann", 2: "Bob", 3: "Cat", 4: "Dan"}


class Table:
    """A game in progress: the current state, the scripted dice and the last move's events."""

    def __init__(
        self, rules: FarkleRules, players: int = 3, **overrides: dict[str, object]
    ) -> None:
        self.rng = ScriptedRandom()
        self.state = FarkleState(
            rules=rules,
            players=[
                FarklePlayer(id=i, name=NAMES[i], **overrides.get(NAMES[i], {}))
                for i in range(1, players + 1)
            ],
        )
        self.events: list[Event] = []

    # ------------------------------------------------------------------ queries

    @property
    def who(self) -> int:
        return self.state.current_player.id

    def p(self, user_id: int) -> FarklePlayer:
        return next(p for p in self.state.players + self.state.departed if p.id == user_id)

    def legal(self, user_id: int | None = None) -> set[str]:
        return legal_actions(self.state, self.who if user_id is None else user_id)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def texts(self) -> str:
        return "\n".join(str(e.text) for e in self.events)

    # ------------------------------------------------------------------ moves

    def do(self, kind: str, index: int | None = None, user_id: int | None = None) -> None:
        uid = self.who if user_id is None else user_id
        self.state, self.events = apply(self.state, uid, Action(kind=kind, index=index), self.rng)

    def _throwing(self, kind: str, dice: tuple[int, ...]) -> None:
        assert not self.rng.script
        self.rng.load(*dice)
        self.do(kind)
        assert not self.rng.script, f"the engine threw fewer dice than {dice}"

    def roll(self, *dice: int) -> None:
        """Roll, scripting exactly the dice the engine must throw."""
        self._throwing("roll", dice)

    def piggyback(self, *dice: int) -> None:
        self._throwing("piggyback", dice)

    def take(self, *faces: int) -> None:
        """Select one unselected die of each given face."""
        for face in faces:
            turn = self.state.turn
            index = next(i for i, d in enumerate(turn.dice) if d == face and i not in turn.selected)
            self.do("toggle", index)

    def bank(self) -> None:
        self.do("bank")

    def timeout(self) -> None:
        self.state, self.events = timeout(self.state, self.rng)

    def remove(self, user_id: int) -> None:
        self.state, self.events = remove_player(self.state, user_id)
