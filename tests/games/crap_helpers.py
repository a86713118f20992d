"""Helpers for driving the CRAP engine: scripted dice, cards by name and hand-built tables."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from bot.i18n import render
from games.crap.cards import JOKER_IDS, SUITS, full_deck
from games.crap.engine import (
    Action,
    CPlayer,
    CrapRules,
    CrapState,
    Event,
    ScoredSet,
    all_cards,
    apply,
    expire,
    legal_actions,
    on_clock,
    private_view,
    public_view,
    remove_player,
    timeout,
)
from games.errors import GameError
from games.lobby import Seat
from tests.games.scripted import ScriptedRandom as BaseScripted

ANN, BOB, CAT, DAN, EVE, FAY = 1, 2, 3, 4, 5, 6
NAMES = {ANN: "Ann", BOB: "Bob", CAT: "Cat", DAN: "Dan", EVE: "Eve", FAY: "Fay"}
STRANGER = 99
J, Q, K, A = 11, 12, 13, 14


def c(r: int, s: str, copy: int = 0) -> int:
    """The card id of rank r (2..14) and suit s ('S', 'H', 'D', 'C') from deck `copy` (0/1)."""
    assert 2 <= r <= 14 and s in SUITS and copy in (0, 1)
    return copy * 52 + (r - 2) * 4 + SUITS.index(s)


def joker(i: int = 0) -> int:
    return JOKER_IDS[i]


def four(r: int, copy: int = 0) -> list[int]:
    """The four suits of rank r from one deck."""
    return [c(r, s, copy) for s in SUITS]


def eight(r: int) -> list[int]:
    return four(r, 0) + four(r, 1)


def seats(n: int) -> list[Seat]:
    return [Seat(id=i, name=NAMES[i]) for i in range(1, n + 1)]


class ScriptedRandom(BaseScripted):
    """Scripted dice (see tests.games.scripted); choice returns the scripted picks while
    there are any; choice, sample and shuffle otherwise behave as usual (seeded), and choice
    and shuffle record what they were given."""

    def __init__(self, values: Iterable[int] = ()) -> None:
        super().__init__(values)
        self.choices: list[list[Any]] = []
        self.shuffled: list[list[Any]] = []
        self.picks: list[Any] = []

    def choice(self, seq: Sequence[Any]) -> Any:
        self.choices.append(list(seq))
        if self.picks:
            value = self.picks.pop(0)
            assert value in seq, f"scripted pick {value} is not among {list(seq)}"
            return value
        return super().choice(seq)

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        super().shuffle(x)
        self.shuffled.append(list(x))


def build(
    hands: dict[int, list[int]],
    *,
    protected: dict[int, list[int]] | None = None,
    sets: dict[int, list[ScoredSet]] | None = None,
    deck: list[int] | None = None,
    discard: list[int] | None = None,
    rest: str | int = "deck",
    players: int | None = None,
    current: int = ANN,
    **rules: object,
) -> CrapState:
    """A table with exactly these cards in these places. `deck` lists the cards to be drawn,
    first drawn first. Every card not placed goes to `rest`: "deck" (under the given deck),
    "discard", or a player's hand (a player id), so all cards are always somewhere."""
    rules_ = CrapRules(**rules)  # type: ignore[arg-type]
    n = players if players is not None else max([3, *hands])
    protected = protected or {}
    sets = sets or {}
    placed = [x for h in hands.values() for x in h]
    placed += [x for h in protected.values() for x in h]
    placed += [x for ss in sets.values() for st in ss for x in st.all_cards()]
    placed += list(deck or []) + list(discard or [])
    assert len(set(placed)) == len(placed), "a card is placed twice"
    leftovers = [x for x in full_deck(rules_.jokers) if x not in set(placed)]
    people = [
        CPlayer(
            id=i,
            name=NAMES[i],
            hand=list(hands.get(i, [])),
            protected=list(protected.get(i, [])),
            sets=[st.model_copy(deep=True) for st in sets.get(i, [])],
        )
        for i in range(1, n + 1)
    ]
    pile = list(reversed(deck or []))  # the engine draws with pop()
    dis = list(discard or [])
    if rest == "deck":
        pile = leftovers + pile
    elif rest == "discard":
        dis += leftovers
    else:
        assert isinstance(rest, int)
        people[rest - 1].hand += leftovers
    state = CrapState(rules=rules_, players=people, deck=pile, discard=dis, current=current - 1)
    check_cards(state)
    return state


def check_cards(state: CrapState) -> None:
    """No card created, none lost: every card of the game is in exactly one place."""
    assert sorted(all_cards(state)) == sorted(full_deck(state.rules.jokers))


class Table:
    """A game in progress: the state, the scripted dice and the last move's events. Every
    move checks that no card was created or lost."""

    def __init__(self, state: CrapState, *dice: int) -> None:
        self.state = state
        self.rng = ScriptedRandom(dice)
        self.events: list[Event] = []

    # ------------------------------------------------------------------ queries

    @property
    def who(self) -> int:
        uid = on_clock(self.state)
        assert uid is not None
        return uid

    def p(self, user_id: int) -> CPlayer:
        return self.state.player(user_id)

    def hand(self, user_id: int) -> list[int]:
        return self.state.player(user_id).hand

    def legal(self, user_id: int) -> set[str]:
        return legal_actions(self.state, user_id)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def texts(self) -> str:
        return "\n".join(render(e.text) for e in self.events)

    def public(self) -> dict[str, Any]:
        return public_view(self.state)

    def private(self, user_id: int) -> dict[str, Any]:
        return private_view(self.state, user_id)

    # ------------------------------------------------------------------ moves

    def do(self, user_id: int, kind: str, *dice: int, **fields: Any) -> None:
        """`user_id` makes the move; exactly the scripted `dice` must be thrown."""
        assert not self.rng.script
        self.rng.load(*dice)
        self.state, self.events = apply(self.state, user_id, Action(kind=kind, **fields), self.rng)
        assert not self.rng.script, f"the engine threw fewer dice than scripted: {self.rng.script}"
        check_cards(self.state)

    def timeout(self, *dice: int, now: float = 0.0) -> None:
        assert not self.rng.script
        self.rng.load(*dice)
        self.state, self.events = timeout(self.state, self.rng, now)
        assert not self.rng.script
        check_cards(self.state)

    def expire(self, now: float, *dice: int) -> None:
        assert not self.rng.script
        self.rng.load(*dice)
        self.state, self.events = expire(self.state, now, self.rng)
        assert not self.rng.script
        check_cards(self.state)

    def remove(self, user_id: int) -> None:
        self.state, self.events = remove_player(self.state, user_id)
        check_cards(self.state)

    def refused(
        self,
        user_id: int,
        kind: str,
        error: type[GameError] = GameError,
        match: str | None = None,
        **fields: Any,
    ) -> None:
        """The move is refused with `error`, the state is left exactly as it was and no die
        is thrown."""
        before = self.state.model_dump()
        copy = self.state.model_copy(deep=True)
        with pytest.raises(error, match=match):
            apply(self.state, user_id, Action(kind=kind, **fields), self.rng)
        assert self.state.model_dump() == before
        assert self.state == copy
        assert not self.rng.script
