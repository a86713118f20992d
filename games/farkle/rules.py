"""Farkle rule sets. Every house rule is a field, so a server can start from a preset and change any."""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from functools import cached_property
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator


def N_(text: str) -> str:
    """Mark a name for the message catalogues (the games import nothing of the bot): the
    state keeps the English name, the bot shows it translated (`bot.i18n._`)."""
    return text


KindScoring = Literal["singles", "double", "add", "flat"]
Seating = Literal["highest_first", "highest_last"]
EndRule = Literal["finish_round", "one_more_turn"]


#: The most players one table takes: "no limit" (Crappy Malappy) is capped where one Discord
#: message still shows everyone (a select holds 25 options, an embed 25 fields).
MAX_PLAYERS_LIMIT = 25
#: Where a rule set keeps its hash and field values (see FarkleRules.__hash__): no field names.
_HASH = "__rules_hash"
_VALUES = "__rules_values"
#: Where `FarkleRules.scoring_key` keeps its number (the cached property's own name).
_KEY = "scoring_key"


class FarkleRules(BaseModel):
    """One complete, validated rule set. Frozen so it can key the scoring tables."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(N_("House rules"), max_length=40, description="Shown on the table.")
    target: int = Field(10000, ge=500, le=1_000_000, description="Score that ends the game.")
    target_inclusive: bool = Field(
        False, description="True: reaching the target exactly counts; false: it must be passed."
    )
    single_one: int = Field(100, ge=0, le=10000, description="A single 1.")
    single_five: int = Field(50, ge=0, le=10000, description="A single 5.")
    triple_ones: int = Field(1000, ge=0, le=10000, description="Three 1s (three of n = n x 100).")
    kind_scoring: KindScoring = Field(
        "double", description="How 4, 5 or 6 of a kind in one throw score."
    )
    flat_kind: tuple[int, int, int] = Field(
        (1000, 2000, 3000), description="4, 5, 6 of a kind when kind_scoring is flat."
    )
    three_pairs: int | None = Field(500, ge=0, le=10000, description="None: not a set.")
    four_and_pair_is_three_pairs: bool = Field(
        False, description="Four of a kind plus a pair also counts as three pairs."
    )
    straight: int | None = Field(1500, ge=0, le=10000, description="1-2-3-4-5-6; None: not a set.")
    two_triplets: int | None = Field(
        None, ge=0, le=10000, description="Two triples in one throw; None: score as two triples."
    )
    extend_triple_across_throws: bool = Field(
        False,
        description="After a triple, each later die of that face in the turn scores the triple "
        "again, until all six dice are picked up again.",
    )
    min_bank: int = Field(0, ge=0, le=100000, description="Turn score needed to bank.")
    min_bank_after_hot_dice: bool = Field(
        False, description="The bank minimum is counted afresh after hot dice."
    )
    opening: int = Field(
        0, ge=0, le=100000, description="Turn score needed to bank while not yet on the table."
    )
    one_die_throws: int = Field(1, ge=1, le=6, description="Throws allowed with one die left.")
    farkle_penalty_every: int = Field(
        0, ge=0, le=100, description="Every Nth farkle of a player costs farkle_penalty; 0: off."
    )
    farkle_penalty: int = Field(1000, ge=0, le=100000, description="Points lost on that farkle.")
    crappy_malappy_wins: int = Field(
        0,
        ge=0,
        le=10,
        description="A player's Nth farkle on the first six-dice throw of a turn wins; 0: off.",
    )
    piggyback: bool = Field(
        False, description="A player on the table may take over the last player's unrolled dice."
    )
    seating: Seating = Field("highest_first", description="Who the highest seating roll makes go.")
    end_rule: EndRule = Field(
        "one_more_turn", description="finish_round, or every other player gets one more turn."
    )
    max_players: int = Field(
        10,
        ge=2,
        le=MAX_PLAYERS_LIMIT,
        description="Players at one table (at most 25: what one Discord table shows).",
    )

    @model_validator(mode="after")
    def _check(self) -> FarkleRules:
        if any(v < 0 or v > 100000 for v in self.flat_kind):
            raise ValueError("flat_kind values must be between 0 and 100000")
        return self

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> FarkleRules:
        """Frozen, so a state's deep copy (before every move) can share it."""
        return self

    def __hash__(self) -> int:
        """Pydantic's hash of a frozen model, computed once: the scoring caches key on the
        rule set a dozen times per move, and each hash of its 24 fields costs a microsecond.
        Kept outside the fields, where pydantic's equality and dumps do not look; a changed
        copy (`model_copy(update=...)`) computes its own."""
        cached = self.__dict__.get(_HASH)
        return self._values()[1] if cached is None else cached

    def _values(self) -> tuple[tuple[object, ...], int]:
        """(the field values, their hash), computed once and kept."""
        values = self.__dict__.get(_VALUES)
        if values is None:
            values = self.__dict__[_VALUES] = tuple(self.__dict__[f] for f in _FIELDS)
            self.__dict__[_HASH] = hash(values)
        return values, self.__dict__[_HASH]

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy; one with changed fields forgets the kept values and hash of the original."""
        copy = super().model_copy(update=update, deep=deep)
        if update:
            copy.__dict__.pop(_HASH, None)
            copy.__dict__.pop(_VALUES, None)
            copy.__dict__.pop(_KEY, None)
        return copy

    @cached_property
    def scoring_key(self) -> int:
        """A number for these rules' values in this process (equal rule sets share it),
        computed once per object and then read as a plain attribute: the scoring caches
        (games/farkle/scoring.py) key on it. Keyed on the rule set itself, each cached
        lookup called `__hash__` here, a Python method: 246 of the 833 calls of one Roll."""
        return _KEYS.setdefault(self._values()[0], len(_KEYS))

    def canonical(self) -> FarkleRules:
        """The one object of the process holding these rules (this one, if it is the
        first). The scoring caches find a key by identity before they try equality, and
        pydantic's equality of two rule sets costs 5 us: a hundred games of one rule set,
        each loaded with its own copy, compared their rules a dozen times per move."""
        return _CANONICAL.setdefault(self._values()[0], self)

    def triple(self, face: int) -> int:
        """What three dice of one face score."""
        return self.triple_ones if face == 1 else face * 100

    @property
    def farkle_word(self) -> str:
        """What a scoreless throw is called under these rules: a *crappy* in Crappy Malappy
        (whose rules count crappys and crappy malappys), a farkle elsewhere."""
        return "crappy" if self.crappy_malappy_wins or self.name == "Crappy Malappy" else "farkle"

    def bank_minimum(self, on_table: bool) -> int:
        """The turn score a player needs before banking."""
        return self.min_bank if on_table else max(self.min_bank, self.opening)


_FIELDS = tuple(FarkleRules.model_fields)
#: The number of each rule set's values seen in this process (see scoring_key): one small
#: entry per distinct rule set, kept so that equal rules always get the same number.
_KEYS: dict[tuple[object, ...], int] = {}
#: Each rule set in use, by its field values, held while something uses it.
_CANONICAL: weakref.WeakValueDictionary[tuple[object, ...], FarkleRules] = (
    weakref.WeakValueDictionary()
)

PRESETS: dict[str, FarkleRules] = {
    "crappy-malappy": FarkleRules(
        # Translators: the name of a rule set (a family's Farkle); keep it or translate it.
        name=N_("Crappy Malappy"),
        target=8000,
        target_inclusive=True,
        triple_ones=1000,
        kind_scoring="add",
        three_pairs=750,
        straight=2500,
        two_triplets=None,
        extend_triple_across_throws=True,
        min_bank=250,
        min_bank_after_hot_dice=True,
        opening=0,
        one_die_throws=1,
        farkle_penalty_every=7,
        farkle_penalty=1000,
        crappy_malappy_wins=2,
        piggyback=False,
        seating="highest_last",
        end_rule="finish_round",
        max_players=MAX_PLAYERS_LIMIT,  # "There is no limit to the number of players"
    ),
    "classic": FarkleRules(
        name=N_("Classic Farkle"),
        target=10000,
        target_inclusive=False,
        triple_ones=1000,
        kind_scoring="double",
        three_pairs=500,
        straight=1500,
        two_triplets=None,
        min_bank=350,
        opening=1000,
        one_die_throws=3,
        seating="highest_first",
        end_rule="one_more_turn",
    ),
    "on-the-table": FarkleRules(
        name=N_("On the Table"),
        target=50000,
        target_inclusive=False,
        triple_ones=300,
        kind_scoring="flat",
        flat_kind=(1000, 2000, 3000),
        three_pairs=1500,
        four_and_pair_is_three_pairs=True,
        straight=1500,
        two_triplets=2500,
        min_bank=0,
        opening=500,
        one_die_throws=1,
        piggyback=True,
        seating="highest_first",
        end_rule="one_more_turn",
    ),
}
PRESETS = {name: rules.canonical() for name, rules in PRESETS.items()}

PRESET_BLURBS: dict[str, str] = {
    "crappy-malappy": N_(
        "The family rules: 8000 to win (5000 short, 10000 long), 250 to bank, "
        "triples extend across throws, every 7th crappy costs 1000, two crappy malappys win."
    ),
    "classic": N_(
        "Farkle variation 1: 10000 to win, 350 to bank, 1000 to open, "
        "three throws with the last die."
    ),
    "on-the-table": N_(
        "Farkle variation 2: 50000 to win, 500 to get on the table, "
        "flat four/five/six of a kind, piggyback on the last player's dice."
    ),
}


def rule_fields() -> list[str]:
    """Names of the rule fields a server may override (everything but the display name)."""
    return [name for name in FarkleRules.model_fields if name != "name"]
