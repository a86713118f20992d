#!/usr/bin/env python3
"""Check a finished tablebot game without the bot: every die, shuffle, reshuffle and pick.

    python3 tools/verify_game.py game-12-draws.json SEED [COMMITMENT]

FILE is the JSON that /verify attaches (game-<number>-draws.json), SEED the 32 hex digits
its final table revealed, COMMITMENT (optional) the hex you copied from a table while the
game ran ("🔒 ... sealed: 3f9a1c0e7b2d4a68"): at least 16 digits, all 64 if you have them.

It uses Python's standard library alone and none of the bot's code: it is the algorithm of
docs/verifying.md written out a second time. It prints one line per problem, naming the
draw, and a last line with the verdict. Exit status: 0 everything checks out; 1 something
is wrong; 2 the input cannot be read; 3 nothing is wrong but not everything could be checked
(a game recorded before format 2: its shuffles and picks started from an order only its
record gives)."""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

TWO_256 = 2**256
#: The widest range one draw serves; rejection then passes a draw over with a chance below
#: 2**-192.
MAX_BELOW = 2**64
#: CRAP: the names of the draws whose items are card ids, and the whole decks (ids
#: 0-103: two 52-card decks, id = 52 * deck + 4 * (rank - 2) + suit, suits S H D C;
#: 104-107: the jokers).
CARD_DRAWS = ("deck", "discard", "cards")
DECKS = (list(range(104)), list(range(108)))


#: What differs, by the field of an entry.
WRONG = {
    "faces": "the dice are not what the seed gives",
    "value": "the number is not what the seed gives",
    "pile": "its pile is not in canonical order",
    "candidates": "its candidates are not in canonical order",
    "result": "the order is not what the seed gives",
    "picked": "the pick is not what the seed gives",
}


class Unreadable(Exception):
    """The input is not a record this program can read."""


def draw(seed: bytes, i: int) -> int:
    """Draw number i: SHA-256(seed + ":" + i in decimal), a big-endian number."""
    return int.from_bytes(hashlib.sha256(seed + b":%d" % i).digest(), "big")


class Stream:
    """The draws of one entry, from its first: `below` takes numbers below n, passing over
    a draw at or above the largest multiple of n up to 2**256 (format 2; format 1 took the
    draw modulo n whatever it was)."""

    def __init__(self, seed: bytes, first: int, version: int) -> None:
        self.seed, self.at, self.version = seed, first, version
        self.passed_over: list[int] = []

    def below(self, n: int) -> int:
        if not 0 < n <= MAX_BELOW:
            raise ValueError(f"no number below {n}")
        limit = (TWO_256 // n) * n if self.version >= 2 else TWO_256
        while True:
            value = draw(self.seed, self.at)
            self.at += 1
            if value < limit:
                return value % n
            self.passed_over.append(self.at - 1)

    def one(self) -> int:
        """A whole draw (a number in [0, 1), random bits): never passed over."""
        self.at += 1
        return draw(self.seed, self.at - 1)


def key(value: Any) -> tuple[int, Any, str]:
    """The canonical order: numbers ascending, then text by code point, then anything else
    by its JSON text; equal numbers of another type by their JSON text."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, text)
    if isinstance(value, str):
        return (1, value, text)
    return (2, text, text)


def canonical(items: list[Any]) -> list[Any]:
    return sorted(items, key=key)


def redo(entry: dict[str, Any], s: Stream) -> dict[str, Any]:
    """What the seed gives for what `entry` asked, from the items in their canonical order
    (format 1: in the order given). Raises ValueError, KeyError or TypeError for an entry
    that is no draw."""
    kind = entry["kind"]
    if kind == "dice":
        return {"faces": [1 + s.below(6) for _ in entry["faces"]]}
    if kind == "range":
        start, stop, step = entry["start"], entry["stop"], entry["step"]
        if step == 0:
            raise ValueError("a step of 0")
        n = (stop - start + step - (1 if step > 0 else -1)) // step
        if n <= 0:
            raise ValueError("an empty range")
        return {"value": start + step * s.below(n)}
    if kind in ("choice", "sample", "shuffle"):
        field = "pile" if kind == "shuffle" else "candidates"
        items = entry[field]
        if not isinstance(items, list):
            raise TypeError(field)
        items = canonical(items) if s.version >= 2 else list(items)
        if kind == "choice":
            return {field: items, "picked": items[s.below(len(items))]}
        if kind == "shuffle":
            out = list(items)
            for i in reversed(range(1, len(out))):  # Fisher-Yates, from the last item down
                j = s.below(i + 1)
                out[i], out[j] = out[j], out[i]
            return {field: items, "result": out}
        k = len(entry["picked"])
        pool, n, picked = list(items), len(items), []
        for i in range(k):
            j = s.below(n - i)
            picked.append(pool[j])
            pool[j] = pool[n - i - 1]
        return {field: items, "picked": picked}
    if kind == "random":
        return {"value": (s.one() >> (256 - 53)) / 2**53}
    if kind == "bits":
        k = entry["k"]
        if not 0 < k <= 256:
            raise ValueError("bits")
        return {"value": s.one() >> (256 - k)}
    if kind == "below":
        return {"value": s.below(entry["n"])}
    raise ValueError(f"no draw of kind {kind!r}")


def place(first: int, end: int | None) -> str:
    if end is None or end - first <= 1:
        return f"draw {first}"
    return f"draws {first}-{end - 1}"


def span(first: int, last: int, what: str) -> str:
    if first == last:
        return f"draw {first} {what[0]}"
    return f"draws {first}-{last} {what[1]}"


def cards_ok(items: Any, deck: int) -> bool:
    return (
        isinstance(items, list)
        and all(type(c) is int and 0 <= c < deck for c in items)
        and len(set(items)) == len(items)
    )


def check(doc: Any, seed_hex: str, shown: str | None) -> tuple[list[str], list[str], list[str]]:
    """Every problem, every note (draws passed over) and every entry that cannot be
    checked, each as a line naming its place."""
    if not isinstance(doc, dict) or not isinstance(doc.get("entries"), list):
        raise Unreadable("not a record of draws: no entries")
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        raise Unreadable(f"the seed {seed_hex!r} is not hex digits") from None
    version, end, game = doc.get("version"), doc.get("draws"), doc.get("game")
    if version not in (1, 2) or type(end) is not int or end < 0:
        raise Unreadable("unknown format version or number of draws")
    problems: list[str] = []
    notes: list[str] = []
    unchecked: list[str] = []
    hashed = hashlib.sha256(seed).hexdigest()
    if len(seed) != 16:
        problems.append(f"the seed is {len(seed)} bytes, not 16")
    if hashed != doc.get("commitment"):
        problems.append(
            f"SHA-256 of the seed is {hashed}, not the commitment the file records "
            f"({doc.get('commitment')})"
        )
    if shown is not None:
        digits = shown.strip().lower()
        if len(digits) < 16 or not hashed.startswith(digits):
            problems.append(f"SHA-256 of the seed is {hashed}: it does not begin with {digits}")
    if doc.get("seed") not in (None, seed.hex()):
        problems.append(f"the file records another seed ({doc.get('seed')}) than {seed.hex()}")

    at: int | None = 0  # where the next entry should start (None: unknown)
    entries = doc["entries"]
    for entry in entries:
        first = entry.get("first") if isinstance(entry, dict) else None
        if type(first) is not int or first < 0:
            problems.append(f"an entry without a draw number: {entry}")
            at = None
            continue
        by = entry.get("by")
        who = "the game" if by is None else doc.get("players", {}).get(str(by), f"player {by}")
        about = f"({entry.get('what') or entry.get('kind')} · {who} · {entry.get('act') or '-'})"
        s = Stream(seed, first, version)
        try:
            expected = redo(entry, s)
        except (ValueError, KeyError, TypeError, IndexError):
            problems.append(f"{place(first, None)} {about}: not a draw the seed can give")
            at = None
            continue
        where = place(first, s.at)
        for i in s.passed_over:
            notes.append(f"draw {i} is passed over (rejection sampling) {about}")
        wrong = [WRONG[k] for k in expected if entry.get(k) != expected[k]]
        if wrong:
            problems.append(f"{where} {about}: {'; '.join(wrong)}")
        elif version < 2 and entry["kind"] in ("choice", "sample", "shuffle"):
            items = entry["pile" if entry["kind"] == "shuffle" else "candidates"]
            if items != canonical(items):
                unchecked.append(f"{where} {about}: started from an order only the record gives")
        if at is not None and first > at:
            problems.append(span(at, first - 1, ("is missing", "are missing")))
        elif at is not None and first < at:
            problems.append(span(first, min(at, s.at) - 1, ("is drawn twice", "are drawn twice")))
        at = s.at if at is None else max(at, s.at)
    if at is not None and at < end:
        problems.append(span(at, end - 1, ("is missing", "are missing")))
    elif at is not None and at > end:
        problems.append(f"the file says the game made {end} draws, but draws up to {at - 1} were used")

    if game == "crap":
        problems += crap_cards(entries)
    return problems, notes, unchecked


def crap_cards(entries: list[Any]) -> list[str]:
    """CRAP: the game begins by shuffling one whole deck at draw 0, and every other pile a
    card draw takes from holds cards of that deck, each once."""
    out = []
    head = entries[0] if entries else {}
    begins = (
        isinstance(head, dict) and head.get("kind") == "shuffle" and head.get("first") == 0
        and head.get("what") == "deck"
    )  # fmt: skip
    deck = 108
    if not begins:
        out.append("the game does not begin by shuffling its deck at draw 0")
    elif not isinstance(head.get("pile"), list) or sorted(
        c if type(c) is int else -1 for c in head["pile"]
    ) not in DECKS:
        out.append("the deck shuffled at draw 0 is not one whole deck of 104 or 108 cards")
    else:
        deck = len(head["pile"])
    for e in entries[1:] if begins else entries:
        if not isinstance(e, dict) or e.get("what") not in CARD_DRAWS:
            continue
        field = {"shuffle": "pile", "choice": "candidates", "sample": "candidates"}.get(
            str(e.get("kind"))
        )
        if field is not None and not cards_ok(e.get(field), deck):
            out.append(
                f"the cards drawn from at draw {e.get('first')} are not cards of this game, "
                "each once"
            )
    return out


def main(argv: list[str]) -> int:
    if len(argv) not in (3, 4):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    path, seed = argv[1], argv[2]
    shown = argv[3] if len(argv) == 4 else None
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        problems, notes, unchecked = check(doc, seed, shown)
    except (OSError, ValueError, Unreadable) as exc:
        print(f"cannot check: {exc}", file=sys.stderr)
        return 2
    for line in notes:
        print(f"note: {line}")
    for line in problems:
        print(f"✗ {line}")
    for line in unchecked:
        print(f"? {line}")
    name = f"game {doc.get('number')} ({doc.get('game')}), {doc['draws']} draws"
    if problems:
        print(f"FAILED: {name}: {len(problems)} problem(s).")
        return 1
    if unchecked:
        print(
            f"NOT ALL CHECKED: {name}: nothing is wrong, but {len(unchecked)} shuffle(s) or "
            "pick(s) started from an order only the record gives (a game recorded before "
            "format 2)."
        )
        return 3
    print(f"OK: {name}: every draw is what the seed gives, none missing or drawn twice.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
