"""A game's dice and shuffles, all drawn from one secret seed, so that anyone can check them
once the game is over: the seed's SHA-256 (the commitment) is shown when the game starts,
the seed itself only when it ends. docs/verifying.md is the same algorithm on one page, and
tools/verify_game.py a second implementation of it written from that page.

Draw number i of a game (i = 0, 1, 2, ...) is SHA-256(seed + b":" + str(i)), read as a
256-bit big-endian number. What an engine asks for is made of draws:

- a number below n (n at most 2**64): the next draw modulo n, unless the draw is one of the
  top 2**256 mod n numbers (at or above (2**256 // n) * n), which would make the lowest
  values a little likelier: then it is passed over and the draw after it is taken, and so
  on (rejection sampling; a draw is passed over with a chance below 2**-192, so no game
  has yet seen one, but both verifiers follow it). So what an entry of the record used is
  known only by redoing it: `Checked.end`, never counted from the entry;
- a die: 1 + a number below 6;
- a shuffle of n items: the items are first put in their canonical order (`canonical`),
  then for i = n-1 down to 1, item i swaps with item (a number below i+1);
- a choice among n items: the canonical order's item (a number below n);
- a sample of k of n items: in canonical order, k times, take the pool's item (a number
  below what is left) and move the pool's last item into its place;
- a number in [0, 1): the draw's top 53 bits / 2**53; k random bits (k <= 256): its top k
  (one draw each, nothing passed over).

The canonical order is what makes a shuffle or a pick depend only on WHICH items it was
given, never on the order they came in: a record cannot claim another starting order. It is
numbers ascending, then text in code-point order, then anything else by its JSON text (CRAP's
card ids ascending: deck 1's 2♠ 2♥ 2♦ 2♣ 3♠ ... A♣, deck 2 alike, the jokers last).

`Draws` is a `random.Random`, so an engine takes it like any other; between moves a cached
game keeps its `Sealed` form, the same record without the Random's unused state. It keeps a record of
every draw it makes (what was asked, where in the stream, what it gave), grouped by the move
that made them, and its position in the stream: both are saved with the game, so a restart
goes on from the same draw. `replay` checks such a record against the seed alone.

A record carries its format's version ("v": 2). A record without one (version 1) was drawn
before the canonical order and the rejection existed: its shuffles and picks started from
the order the record itself gives, which nothing can check (`Checked.proven`)."""

from __future__ import annotations

import hashlib
import json
import operator
import random
from collections.abc import Callable, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

#: The seed's length: 128 secret bits, written as 32 hex digits when revealed.
SEED_BYTES = 16
#: The widest range one draw serves (see the module docstring).
MAX_BELOW = 2**64
#: The record format this module writes: 2 (canonical orders, rejection sampling).
VERSION = 2
#: Records saved before the format had a version.
LEGACY = 1
#: The kinds of entry that draw from a list of items, whose order version 1 took as given.
ORDERED = ("shuffle", "choice", "sample")

#: One recorded draw, JSON-ready: [kind, position of its first draw, what was asked..., what
#: it gave, (its name)]. Kinds: ["dice", at, roller, what, faces], ["range", at, start,
#: stop, step, value], ["choice", at, items, item, what], ["shuffle", at, before, after,
#: what], ["sample", at, items, chosen, what], ["random", at, value], ["bits", at, k, value],
#: ["below", at, n, value]. `what` is the engine's name for it ("deck"), or "". Version 2
#: writes `items` and `before` in canonical order.
Entry = list[Any]
#: The draws one move made: {"by": the player whose move it was (None: the game's own, e.g.
#: a vote closing), "act": what they did, "draws": [Entry, ...]}.
Move = dict[str, Any]


def draw(seed: bytes, position: int) -> int:
    """Draw number `position` of the game with this seed."""
    return int.from_bytes(hashlib.sha256(seed + b":%d" % position).digest(), "big")


def commitment(seed: bytes) -> str:
    """What is shown when the game starts: the seed's SHA-256, in hex."""
    return hashlib.sha256(seed).hexdigest()


def canonical_key(value: Any) -> tuple[int, Any, str]:
    """Where `value` (as the record keeps it, see `_plain`) stands in the canonical order:
    numbers ascending, then text by code point, then anything else by its JSON text; equal
    numbers of another type (1 and 1.0) by their JSON text too, so the order is total."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, value, text)
    if isinstance(value, str):
        return (1, value, text)
    return (2, text, text)


def canonical(items: Sequence[Any]) -> list[Any]:
    """`items` in canonical order (see `canonical_key`)."""
    return sorted(items, key=lambda item: canonical_key(_plain(item)))


def _shuffle(items: MutableSequence[Any], below: Callable[[int], int]) -> None:
    for i in reversed(range(1, len(items))):
        j = below(i + 1)
        items[i], items[j] = items[j], items[i]


def _sample(items: Sequence[Any], k: int, below: Callable[[int], int]) -> list[Any]:
    pool, n, out = list(items), len(items), []
    for i in range(k):
        j = below(n - i)
        out.append(pool[j])
        pool[j] = pool[n - i - 1]
    return out


def _size(start: int, stop: int, step: int) -> int:
    """How many values range(start, stop, step) has (len() stops at 2**63)."""
    if step == 0:
        raise ValueError("zero step for randrange()")
    n = (stop - start + step - (1 if step > 0 else -1)) // step
    if n <= 0:
        raise ValueError(f"empty range for randrange({start}, {stop}, {step})")
    return n


def _plain(value: Any) -> Any:
    """`value` as the record keeps it: JSON's own types as they are, sequences as lists,
    anything else as its text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return str(value)


class Sealed:
    """A game's sealed draws as a cached game keeps them between moves: its seed, its
    position and the record of its draws, without the 2.5 KB of Mersenne Twister state that
    every `random.Random` carries and `Draws` never uses. `stream()` is the `Draws` that
    goes on from here (`fork()` a copy whose draws start a new move); `Draws` is a `Sealed`
    too, so everything that reads a game's record reads either."""

    def __init__(
        self,
        seed: bytes,
        position: int = 0,
        moves: Sequence[Move] = (),
        *,
        record: bool = True,
        version: int = VERSION,
    ) -> None:
        if len(seed) != SEED_BYTES:
            raise ValueError(f"a game's seed is {SEED_BYTES} bytes")
        if version not in (LEGACY, VERSION):
            raise ValueError(f"no record format {version}")
        self._secret = bytes(seed)
        self.position = position
        self.version = version
        self.moves: list[Move] = list(moves)
        #: Whether `moves` is still the list of the stream this one was forked from (or of
        #: a fork of it): the first draw recorded copies it (`_note`), so a fork costs the
        #: same at move 10,000 as at move 10 and neither stream sees the other's draws.
        self._moves_shared = False
        self._commitment: str | None = None
        self._record = record
        self._open: Move | None = None
        self._next_move: tuple[int | None, str] = (None, "")
        #: The draws passed over since this stream was made (see the module docstring).
        self.rejected: list[int] = []
        # The JSON of the first `_written` moves, which no longer change: a long game's
        # record is written with every move, and encoding only what is new keeps that cheap.
        self._written = 0
        self._text = ""

    def __repr__(self) -> str:  # never the seed: a repr may reach a log line
        return f"<{type(self).__name__} {self.commitment[:16]} at {self.position}>"

    @property
    def commitment(self) -> str:
        if self._commitment is None:  # (every table shows it)
            self._commitment = commitment(self._secret)
        return self._commitment

    def revealed_seed(self) -> str:
        """The seed in hex: only for a game that is over (its record, its final table)."""
        return self._secret.hex()

    def _same(self, copy: S) -> S:
        """`copy` (just made on the same seed and record) given this one's move in progress
        and written JSON: the same stream, whichever class holds it."""
        copy.moves = self.moves  # the same list: whoever holds it now is the one stream
        copy._moves_shared, copy._commitment = self._moves_shared, self._commitment
        copy._open, copy._next_move = self._open, self._next_move
        copy.rejected = self.rejected
        copy._written, copy._text = self._written, self._text
        return copy

    def sealed(self) -> Sealed:
        """This stream as a cached game keeps it between moves (no Random state); this
        object is not used after it."""
        return self._same(
            Sealed(self._secret, self.position, record=self._record, version=self.version)
        )

    def stream(self) -> Draws:
        """This stream, to draw from (itself when it is one); this object is not used after
        it."""
        if isinstance(self, Draws):
            return self
        return self._same(
            Draws(self._secret, self.position, record=self._record, version=self.version)
        )

    def fork(self) -> Draws:
        """A copy at the same position, with the same record; its draws start a new move."""
        copy = Draws(self._secret, self.position, record=self._record, version=self.version)
        copy.moves = self.moves  # shared until either records a draw (`_note`)
        copy._moves_shared = self._moves_shared = True
        copy._commitment = self._commitment
        copy._next_move = self._next_move
        copy._written, copy._text = self._written, self._text
        return copy

    # ------------------------------------------------------------------ stored form

    def to_json(self) -> dict[str, Any]:
        """What the session row keeps (the seed too: it stays in the database until the end)."""
        return {"v": self.version, "seed": self._secret.hex(), "at": self.position,
                "moves": self.moves}  # fmt: skip

    def head_text(self, **more: int) -> str:
        """`to_json()` without the moves, and with `more`, as JSON text (a session row that
        keeps the moves beside it, bot/session_json.py)."""
        extra = "".join(f',"{k}":{int(v)}' for k, v in more.items())
        return (
            f'{{"v":{self.version},"seed":"{self._secret.hex()}","at":{self.position}{extra}}}'
        )

    def json_text(self) -> str:
        """`to_json()` as JSON text, the moves already written not encoded again."""
        done = len(self.moves) - (self._open is not None)
        if done > self._written:
            fresh = ",".join(
                json.dumps(m, separators=(",", ":"), ensure_ascii=False)
                for m in self.moves[self._written : done]
            )
            self._text = f"{self._text},{fresh}" if self._text else fresh
            self._written = done
        rest = "".join(
            "," + json.dumps(m, separators=(",", ":"), ensure_ascii=False)
            for m in self.moves[done:]
        )
        moves = f"{self._text}{rest}" if self._text else rest[1:]
        return (
            f'{{"v":{self.version},"seed":"{self._secret.hex()}","at":{self.position},'
            f'"moves":[{moves}]}}'
        )


S = TypeVar("S", bound=Sealed)


class Draws(Sealed, random.Random):
    """A game's stream of draws from its secret seed (see the module docstring), recording
    each. `move(by, act)` says whose move the next draws belong to; `fork()` is a copy at the
    same position for a move that may not be kept (the move path saves it only once the move
    is committed, so the cached game never runs ahead of the stored one). `version` is the
    record format it draws by: a game begun before version 2 keeps drawing as it began, so
    its whole record reads one way."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Draws:
        return super().__new__(cls)  # random.Random's own seeding takes no part

    def __init__(
        self,
        seed: bytes,
        position: int = 0,
        moves: Sequence[Move] = (),
        *,
        record: bool = True,
        version: int = VERSION,
    ) -> None:
        Sealed.__init__(self, seed, position, moves, record=record, version=version)
        self.gauss_next = None  # random.Random.gauss keeps its spare value here

    @classmethod
    def fresh(cls, source: random.Random) -> Draws:
        """A new game's stream, its seed taken from `source` (the bot's SystemRandom: the
        operating system's entropy; a seeded Random in tests)."""
        return cls(source.randbytes(SEED_BYTES))

    def move(self, by: int | None, act: str) -> Draws:
        """The draws from here on belong to `by`'s move `act` (until the next call)."""
        self._open = None
        self._next_move = (by, act)
        return self

    @classmethod
    def from_json(cls, data: Any) -> Draws:
        """The stream saved by `to_json` (without "v": one saved before versions, drawing on
        as version 1); ValueError or TypeError when it is not one."""
        if not isinstance(data, dict):
            raise TypeError("draws")
        seed, at, moves = data["seed"], data["at"], data["moves"]
        version = data.get("v", LEGACY)
        if type(seed) is not str or type(at) is not int or at < 0 or not isinstance(moves, list):
            raise TypeError("draws")
        if type(version) is not int:
            raise TypeError("draws")
        if not all(isinstance(m, dict) and isinstance(m.get("draws"), list) for m in moves):
            raise TypeError("draws")
        return cls(bytes.fromhex(seed), at, moves, version=version)

    # ------------------------------------------------------------------ drawing

    def _below(self, n: int) -> int:
        """A number below `n`, evenly: see the module docstring (version 1 took the first
        draw modulo `n` whatever it was)."""
        if not 0 < n <= MAX_BELOW:
            raise ValueError(f"cannot draw below {n}")
        limit = (2**256 // n) * n if self.version >= VERSION else 2**256
        while True:
            value = draw(self._secret, self.position)
            self.position += 1
            if value < limit:
                return value % n
            self.rejected.append(self.position - 1)

    def _ordered(self, items: Sequence[Any]) -> list[Any]:
        """The items a shuffle or pick starts from: in canonical order (version 1: as given)."""
        return canonical(items) if self.version >= VERSION else list(items)

    def _note(self, entry: Entry) -> None:
        if not self._record:
            return
        if self._open is None:
            by, act = self._next_move
            self._open = {"by": by, "act": act, "draws": []}
            if self._moves_shared:
                self.moves, self._moves_shared = list(self.moves), False
            self.moves.append(self._open)
        self._open["draws"].append(entry)

    def dice(self, count: int, roller: int | None, what: str) -> list[int]:
        """`count` dice thrown by `roller`; `what` names the throw ("throw", "roll-off")."""
        at = self.position
        faces = [1 + self._below(6) for _ in range(count)]
        self._note(["dice", at, roller, what, faces])
        return faces

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        start, step = operator.index(start), operator.index(step)
        if stop is None:
            start, stop = 0, start
        stop = operator.index(stop)
        at = self.position
        value = start + step * self._below(_size(start, stop, step))
        self._note(["range", at, start, stop, step, value])
        return value

    def randint(self, a: int, b: int) -> int:
        return self.randrange(a, b + 1)

    def choice(self, seq: Sequence[Any], *, what: str = "") -> Any:  # type: ignore[override]  # a pick orders a Sequence canonically before it draws
        if not len(seq):
            raise IndexError("cannot choose from an empty sequence")
        at, items = self.position, self._ordered(seq)
        item = items[self._below(len(items))]
        self._note(["choice", at, _plain(items), _plain(item), what])
        return item

    def shuffle(self, x: MutableSequence[Any], *, what: str = "") -> None:
        at = self.position
        x[:] = self._ordered(x)
        before = _plain(list(x))
        _shuffle(x, self._below)
        self._note(["shuffle", at, before, _plain(list(x)), what])

    def sample(
        self, population: Sequence[Any], k: int, *, counts: Any = None, what: str = ""
    ) -> list[Any]:
        if counts is not None:
            raise TypeError("a game's draws take no counts: repeat the items instead")
        items = self._ordered(list(population))
        if not 0 <= k <= len(items):
            raise ValueError("sample larger than population or is negative")
        at = self.position
        chosen = _sample(items, k, self._below)
        self._note(["sample", at, _plain(items), _plain(chosen), what])
        return chosen

    def random(self) -> float:
        at = self.position
        value = (draw(self._secret, at) >> (256 - 53)) / 2**53
        self.position += 1
        self._note(["random", at, value])
        return value

    def getrandbits(self, k: int) -> int:
        if not 0 <= k <= 256:
            raise ValueError("one draw gives 0 to 256 bits")
        if k == 0:
            return 0
        at = self.position
        value = draw(self._secret, at) >> (256 - k)
        self.position += 1
        self._note(["bits", at, k, value])
        return value

    def _randbelow(self, n: int) -> int:
        """What random.Random's other methods build on, recorded like the rest."""
        at = self.position
        value = self._below(n)
        self._note(["below", at, n, value])
        return value

    def seed(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a game's draws keep the seed they were committed to")

    def getstate(self) -> Any:
        raise NotImplementedError("a game's draws are copied with fork()")

    def setstate(self, state: Any) -> None:
        raise NotImplementedError("a game's draws are copied with fork()")


# ---------------------------------------------------------------------- checking a record


@dataclass(frozen=True)
class Checked:
    """One recorded draw replayed from the seed: `expected` is what the seed gives for what
    was asked there (None: the record is not a draw this module makes); `end` is the
    position after the draws the seed needed for it (None with `expected`), `rejected` the
    draws it passed over. `proven` is False for a version 1 shuffle or pick whose items the
    record gives in an order other than the canonical one: the seed gives its result from
    that order, but only the record says the items were in it."""

    move: int
    entry: Entry
    expected: Entry | None
    end: int | None = None
    rejected: tuple[int, ...] = ()
    proven: bool = True

    @property
    def ok(self) -> bool:
        return self.entry == self.expected

    @property
    def first(self) -> int | None:
        """The number of its first draw, as the record says (None: not a number)."""
        at = self.entry[1] if len(self.entry) > 1 else None
        return at if type(at) is int else None


def _redo(entry: Entry, d: Draws) -> Entry | None:
    """`entry` as the seed makes it: what was asked, drawn afresh at `d`'s position (the
    items of a shuffle or pick put in the order `d`'s version starts from)."""
    kind, at, *asked = entry
    if kind == "dice":
        roller, what, faces = asked
        return ["dice", at, roller, what, [1 + d._below(6) for _ in faces]]
    if kind == "range":
        start, stop, step, _ = asked
        return ["range", at, start, stop, step, start + step * d._below(_size(start, stop, step))]
    if kind == "choice":
        items, _, what = asked
        items = d._ordered(items)
        return ["choice", at, items, items[d._below(len(items))], what]
    if kind == "shuffle":
        before, _, what = asked
        before = d._ordered(before)
        after = list(before)
        _shuffle(after, d._below)
        return ["shuffle", at, before, after, what]
    if kind == "sample":
        items, chosen, what = asked
        items = d._ordered(items)
        return ["sample", at, items, _sample(items, len(chosen), d._below), what]
    if kind == "random":
        d.position += 1
        return ["random", at, (draw(d._secret, at) >> (256 - 53)) / 2**53]
    if kind == "bits":
        k, _ = asked
        if not 0 < k <= 256:
            return None
        d.position += 1
        return ["bits", at, k, draw(d._secret, at) >> (256 - k)]
    if kind == "below":
        n, _ = asked
        return ["below", at, n, d._below(n)]
    return None


def _proven(entry: Entry, version: int) -> bool:
    """Whether nothing but the seed decides this entry (see `Checked.proven`)."""
    if version >= VERSION or entry[0] not in ORDERED:
        return True
    items = entry[2]
    return isinstance(items, list) and items == canonical(items)


def replay(seed: bytes, moves: Sequence[Move], version: int = VERSION) -> list[Checked]:
    """Every recorded draw against what the seed gives, in order, each from the place the
    record says it was made (`breaks` says whether those places follow each other). A
    record drawn by `version` 1 is redone as it was drawn: its items in the order it gives."""
    out = []
    for index, m in enumerate(moves):
        for entry in m["draws"]:
            expected: Entry | None = None
            rejected: tuple[int, ...]
            end, rejected, proven = None, (), True
            try:
                if type(entry[1]) is not int or entry[1] < 0:
                    raise TypeError("a draw's place is a number")
                d = Draws(seed, entry[1], record=False, version=version)
                expected = _redo(list(entry), d)
                if expected is not None:
                    end, rejected = d.position, tuple(d.rejected)
                    proven = _proven(list(entry), version)
            except (ValueError, TypeError, IndexError, KeyError, ZeroDivisionError):
                expected = None
            out.append(Checked(index, list(entry), expected, end, rejected, proven))
    return out


@dataclass(frozen=True)
class Break:
    """Where the stream of a record does not follow on: draws `first` to `last` are
    "missing" (drawn and not recorded, or never drawn) or "twice" (recorded as drawn by two
    entries); "beyond": the record's entries used draws up to `last` although it says the
    stream stopped before `first`."""

    kind: str
    first: int
    last: int


def breaks(checked: Sequence[Checked], end: int) -> list[Break]:
    """Every place where the recorded draws do not follow each other from draw 0 to `end`
    (the stream's position when the game ended), in order: none when every draw was
    recorded once. An entry that is no draw ends nothing: the next one is taken where it
    says it starts."""
    out: list[Break] = []
    at: int | None = 0  # where the next entry should start (None: unknown)
    for c in checked:
        first = c.first
        if first is not None and at is not None and first > at:
            out.append(Break("missing", at, first - 1))
        elif first is not None and at is not None and first < at:
            upto = at if c.end is None else min(at, c.end)
            out.append(Break("twice", first, upto - 1))
        if first is None or c.end is None:
            at = None  # unknown until an entry that is a draw says where it starts
            continue
        at = c.end if at is None else max(at, c.end)
    if at is not None and at < end:
        out.append(Break("missing", at, end - 1))
    elif at is not None and at > end:
        out.append(Break("beyond", end, at - 1))
    return out


def contiguous(checked: Sequence[Checked], end: int) -> bool:
    """Whether the draws follow each other from draw 0 to `end` with none left out or
    drawn twice (a stream that drew and hid a result would leave a gap)."""
    return all(c.end is not None for c in checked) and not breaks(checked, end)


def pick(rng: random.Random, items: Sequence[Any], what: str) -> Any:
    """One of `items` at random; `what` names the pick in a game's record ("discard")."""
    return rng.choice(items, what=what) if isinstance(rng, Draws) else rng.choice(items)


def shuffle(rng: random.Random, items: MutableSequence[Any], what: str) -> None:
    """Shuffle `items` in place; `what` names them in a game's record ("deck")."""
    if isinstance(rng, Draws):
        rng.shuffle(items, what=what)
    else:
        rng.shuffle(items)


def sample(rng: random.Random, items: Sequence[Any], k: int, what: str) -> list[Any]:
    """`k` of `items` at random; `what` names them in a game's record ("cards")."""
    return rng.sample(items, k, what=what) if isinstance(rng, Draws) else rng.sample(items, k)
