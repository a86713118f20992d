"""The public ledger of a CRAP game: every card movement the whole table sees, as compact
records (ids and small ints, never texts), so a bot can track where cards went the way a
careful player does from the public lines, and a restart keeps what it knew (the ledger is
part of the saved state).

Only public facts: who drew how many cards, who asked whom for which value and how many
each handed over, the proof and the discards shown, recycled and lost hands, challenge cards
turned up, scored cards, who co-operated with whom (not what they saw), protects, scoring
rounds and leavers. A seat's own cards come from its private view, never from here.

A record's keys are one letter (the ledger is saved with every move): `k` what happened,
`p` who, `o` the other player, `r` a value, `n` a count, `c` cards shown, `g` who handed
over how many, `b` whether an Acquire was shown a bluff. Empty fields are not saved: a
typical record is 30-45 bytes of JSON (a Discord id is 18 digits). The ledger keeps its last
`KEEP` records; a reader treats what came before as unknown cards."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer

#: Records kept: a few hundred turns of a game, some 15 KB of JSON at most.
KEEP = 400

Kind = Literal[
    "draw",  # p drew n unseen cards (the deal, a recycle, a co-operate, challenge hits)
    "acquire",  # p asks for value r
    "call",  # p calls o's Acquire: b it was a bluff; else c is the proof o showed
    "gave",  # p acquires value r: g lists [giver, count] (the Acquire was not called)
    "none",  # nobody had value r for p: c is p's honest discard, or b (none: a bluff)
    "discard",  # p discards a random card, shown: c
    "recycle",  # p's unprotected hand goes to the discard, shown: c
    "lost",  # p's protected cards go to the discard with a recycle, shown: c
    "protect",  # p protects one card (unseen) from the hand
    "cooperate",  # p and o see each other's hand (only they see it)
    "challenge",  # p challenges o, die n
    "shown",  # p's challenge cards turned up, back to p's hand: c
    "score",  # p scores these cards from hand and protected row: c
    "round",  # scoring round: protected cards back to hands, the pile and sets to the deck
    "left",  # p left the table; their cards went to the discard unseen
]


class Entry(BaseModel):
    """One public card movement (see the module's docstring for the keys). Frozen: a
    working copy of the state shares the records (games.copies)."""

    model_config = ConfigDict(frozen=True)

    k: Kind
    p: int = Field(description="The player (id); 0 for a scoring round.")
    o: int | None = None
    r: int | None = None
    n: int | None = None
    c: list[int] = Field(default_factory=list)
    g: list[tuple[int, int]] = Field(default_factory=list)
    b: bool | None = None

    @model_serializer(mode="plain")
    def _compact(self) -> dict[str, Any]:
        """Leave out empty fields: they come back as defaults."""
        out: dict[str, Any] = {"k": self.k, "p": self.p}
        for key in ("o", "r", "n", "b"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.c:
            out["c"] = list(self.c)
        if self.g:
            out["g"] = [list(pair) for pair in self.g]
        return out


def noted(ledger: list[Entry], entry: Entry) -> list[Entry]:
    """The ledger with `entry` added, its oldest records dropped beyond `KEEP`."""
    ledger.append(entry)
    if len(ledger) > KEEP:
        del ledger[: len(ledger) - KEEP]
    return ledger
