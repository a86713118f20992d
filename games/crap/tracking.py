"""What a careful CRAP player knows of where cards are, read from the public ledger
(games.crap.ledger) afresh at each decision: no memory between decisions, so a restart or two
games in one process change nothing.

For each player it keeps the cards of a value they surely hold (they acquired them, showed
them as a proof or in a challenge), how many unseen cards they received in all, and for each
value how many of those they had received when they were last seen free of it (an Acquire of
that value took their every unprotected card of it, or they recycled). Cards they received
since then, and their protected cards, may be of that value; the others may not.

It also counts what the table has shown of each player's Acquires (a bluff called or
revealed by "Nobody has any", an honest one by a proof or a discard) and how often each
calls: the policy's priors learn from these."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from games.crap.cards import RANKS, rank
from games.crap.ledger import Entry

#: A player's Acquires before anything is shown: Beta(1, 9), a bluff in ten.
BLUFF_PRIOR = (1.0, 9.0)
#: A player's answers to another's Acquire before anything is shown: Beta(1, 4), a call in
#: five.
CALL_PRIOR = (1.0, 4.0)


@dataclass
class Seat:
    """One player as the ledger shows them."""

    received: int = 0  # unseen cards received, all told
    clear: dict[int, int] = field(default_factory=dict)  # value -> `received` when free of it
    held: dict[int, int] = field(default_factory=dict)  # value -> cards surely held
    protected: int = 0  # cards protected since their last loss or scoring round
    honest: int = 0  # Acquires shown honest
    bluffs: int = 0  # Acquires shown bluffs
    windows: int = 0  # others' Acquires they could call
    calls: int = 0

    def take(self, cards: Iterable[int]) -> None:
        """These cards (shown) left the player."""
        for c in cards:
            r = rank(c)
            if self.held.get(r):
                self.held[r] -= 1

    def free_of(self, r: int) -> None:
        """No unprotected card of value r is left (what is held must be protected)."""
        self.clear[r] = self.received
        if self.held.get(r):
            self.held[r] = min(self.held[r], self.protected)


@dataclass
class Knowledge:
    """The public knowledge of a table: see the module's docstring."""

    seats: dict[int, Seat] = field(default_factory=dict)
    pile: dict[int, int] = field(default_factory=dict)  # value -> cards shown into the discard
    pending: tuple[int, int] | None = None  # the open Acquire: who, value

    def seat(self, pid: int) -> Seat:
        s = self.seats.get(pid)
        if s is None:
            s = self.seats[pid] = Seat()
        return s

    # ------------------------------------------------------------------ asking

    def held(self, pid: int, r: int) -> int:
        """Cards of value r player `pid` surely holds."""
        s = self.seats.get(pid)
        return s.held.get(r, 0) if s else 0

    def placed(self, pid: int) -> int:
        s = self.seats.get(pid)
        return sum(s.held.values()) if s else 0

    def maybe(self, pid: int, r: int, loose: int, protected: int = 0) -> int:
        """How many of a player's unseen cards may be of value r: of their `loose` unknown
        unprotected cards, those received since they were last free of it; and their
        `protected` cards (give 0 for what an Acquire can take)."""
        s = self.seats.get(pid)
        if s is None or r not in s.clear:
            return loose + protected
        return min(loose, max(0, s.received - s.clear[r])) + protected

    def bluff_rate(self, pid: int) -> float:
        """The posterior mean of `pid`'s bluff rate: the table's shown Acquires give the
        prior (shrunk to `BLUFF_PRIOR`), the player's own ones move it."""
        a, b = BLUFF_PRIOR
        bluffs = sum(s.bluffs for s in self.seats.values())
        honest = sum(s.honest for s in self.seats.values())
        table = (a + bluffs) / (a + b + bluffs + honest)
        s = self.seat(pid)
        weight = 3.0  # the table's rate counts as this many of the player's own Acquires
        return (s.bluffs + weight * table) / (s.bluffs + s.honest + weight)

    def call_rate(self, pid: int) -> float:
        """The posterior mean of how often `pid` calls another's Acquire."""
        a, b = CALL_PRIOR
        s = self.seat(pid)
        return (a + s.calls) / (a + b + s.windows)


def read(ledger: Iterable[Entry | dict[str, Any]], players: Iterable[int]) -> Knowledge:
    """The knowledge the ledger (records, or their saved JSON) gives about `players`."""
    k = Knowledge()
    for pid in players:
        k.seat(pid)
    for e in ledger:
        _learn(k, e if isinstance(e, Entry) else Entry.model_validate(e))
    return k


def _learn(k: Knowledge, e: Entry) -> None:
    kind, pid, cards = e.k, e.p, e.c
    if kind == "round":
        k.pile = {}
        for s in k.seats.values():  # protected cards come back to the hand, unseen
            s.received += s.protected
            s.protected = 0
        return
    p = k.seat(pid) if pid else None
    if p is None:
        return
    if kind == "draw":
        p.received += e.n or 0
    elif kind == "acquire":
        k.pending = (pid, e.r or 0)
        for other, s in k.seats.items():
            if other != pid:
                s.windows += 1
    elif kind == "call":
        p.calls += 1
        caller = k.seat(e.o or 0)
        r = k.pending[1] if k.pending else None
        if e.b:
            caller.bluffs += 1
            if r is not None:
                caller.free_of(r)
                caller.clear[r] = caller.received
                caller.held[r] = 0
        else:
            caller.honest += 1
            for c in cards:
                caller.held[rank(c)] = max(caller.held.get(rank(c), 0), 1)
    elif kind == "gave":
        r = e.r or 0
        got = 0
        for giver, n in e.g:
            s = k.seat(giver)
            s.held[r] = max(0, s.held.get(r, 0) - n)
            got += n
        for other, s in k.seats.items():
            if other != pid:
                s.free_of(r)
        p.held[r] = p.held.get(r, 0) + got
        k.pending = None
    elif kind == "none":
        r = e.r or 0
        for other, s in k.seats.items():
            if other != pid:
                s.free_of(r)
        if e.b:
            p.bluffs += 1
            p.free_of(r)
            p.clear[r] = p.received
            p.held[r] = 0
        else:
            p.honest += 1
            p.take(cards)
            _to_pile(k, cards)
        k.pending = None
    elif kind == "discard":
        p.take(cards)
        _to_pile(k, cards)
    elif kind == "recycle":
        p.take(cards)
        _to_pile(k, cards)
        for r in RANKS:
            p.free_of(r)
    elif kind == "lost":
        p.take(cards)
        _to_pile(k, cards)
        p.protected = 0
        p.held = {}
    elif kind == "protect":
        p.protected += 1
    elif kind == "shown":
        counted: dict[int, int] = {}
        for c in cards:
            counted[rank(c)] = counted.get(rank(c), 0) + 1
        for r, n in counted.items():
            p.held[r] = max(p.held.get(r, 0), n)
    elif kind == "score":
        p.take(cards)  # from the hand or the protected row: `protected` stays an upper bound
    elif kind == "left":
        k.seats.pop(pid, None)


def _to_pile(k: Knowledge, cards: Iterable[int]) -> None:
    for c in cards:
        k.pile[rank(c)] = k.pile.get(rank(c), 0) + 1
