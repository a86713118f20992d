"""How a finished game keeps its two large values, its whole log and the record of its sealed
draws: packed (`pack`), in their own BLOB columns (`log_packed`, `dice_packed`; migration 11).

Both are JSON that repeats itself a great deal (the same few log keys and names, the same
roller ids, move after move): compressed, a two-player Classic Farkle game's 40 KB row
takes some 5 KB (docs/performance.md, "What a finished game stores"). Nothing is dropped or
recomputed: unpacked, each value is the JSON text the game was recorded with, so /history
and /verify read exactly what they read before.

A packed value starts with its format's byte: 1 is zlib-compressed UTF-8 JSON text. Rows
recorded before migration 11 keep their values as JSON text in `log` and `dice` (their
`_packed` columns NULL), and are read as they are (`stored_value`). A packed value that
cannot be read back (a byte changed on disk, a format this version does not know) is an
`Unreadable`: the readers say that part of the game is damaged, and nothing crashes."""

from __future__ import annotations

import json
import logging
import zlib
from typing import Any

log = logging.getLogger(__name__)

#: The format byte of zlib-compressed UTF-8 JSON text.
ZLIB_JSON = 1
#: zlib's level: its best (a game is recorded once; 40 KB take about 1 ms).
LEVEL = 9


class Unreadable:
    """A stored value that cannot be read back: the row is damaged there. Its readers show
    it as such (/verify: a damaged record of draws; /history: a log that cannot be read)."""

    def __init__(self, column: str) -> None:
        self.column = column

    def __repr__(self) -> str:
        return f"<Unreadable {self.column}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unreadable) and other.column == self.column

    __hash__ = None  # type: ignore[assignment]  # equal by column, so never a dict key


def pack(text: str | None) -> bytes | None:
    """JSON text as the packed column keeps it (None stays None: not kept)."""
    if text is None:
        return None
    return bytes((ZLIB_JSON,)) + zlib.compress(text.encode(), LEVEL)


def unpack_text(value: bytes | bytearray | memoryview) -> str:
    """The JSON text a packed column holds; ValueError when it cannot be read back."""
    data = bytes(value)
    if not data or data[0] != ZLIB_JSON:
        raise ValueError("unknown format")
    try:
        return zlib.decompress(data[1:]).decode()
    except (zlib.error, UnicodeDecodeError) as exc:
        raise ValueError(str(exc)) from None


def unpack(value: bytes | bytearray | memoryview) -> Any:
    """The JSON value a packed column holds; ValueError when it cannot be read back."""
    return json.loads(unpack_text(value))


def stored_value(game_id: object, column: str, text: str | None, packed: object) -> Any:
    """A finished game's `column` (log or dice) as it was recorded: from its packed column,
    or (a row recorded before they were packed, or rewritten by hand) its JSON text, which
    goes first when both are there. None: not kept; `Unreadable`: damaged (logged)."""
    try:
        if text is not None:
            return json.loads(text)
        if packed is None:
            return None
        if not isinstance(packed, bytes | bytearray | memoryview):
            raise ValueError("not a packed value")
        return unpack(packed)
    except ValueError as exc:  # json.JSONDecodeError is one
        # No value in the line: a record of draws names what the players drew.
        log.warning("The %s of finished game %s cannot be read: %s", column, game_id, exc)
        return Unreadable(column)
