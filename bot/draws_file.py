"""The record of draws that /verify attaches as JSON, for tools/verify_game.py or anyone's
own checker (docs/verifying.md describes every field). Each entry is given as the record
holds it: a shuffle's pile and a pick's candidates in the record's order, which for a game
the bot recorded is the canonical order. A checker puts them in canonical order itself and
fails a record whose order differs; it never starts from the order given here."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from bot.players import unbidi

if TYPE_CHECKING:
    from bot.verify import Verdict

#: The file's "format", so a checker knows what it reads.
FORMAT = "tablebot draws"


def _fields(entry: list[Any]) -> dict[str, Any]:
    """An entry's own fields by name (a record changed into something that is no draw:
    kind "unknown" and the entry as it is)."""
    kind = entry[0]
    if kind == "dice":
        _, _, roller, what, faces = entry
        return {"kind": kind, "what": what, "roller": roller, "faces": faces}
    if kind == "range":
        _, _, start, stop, step, value = entry
        return {"kind": kind, "start": start, "stop": stop, "step": step, "value": value}
    if kind in ("choice", "sample"):
        _, _, items, picked, what = entry
        return {"kind": kind, "what": what, "candidates": items, "picked": picked}
    if kind == "shuffle":
        _, _, pile, result, what = entry
        return {"kind": kind, "what": what, "pile": pile, "result": result}
    if kind == "random":
        _, _, value = entry
        return {"kind": kind, "value": value}
    if kind == "bits":
        _, _, k, value = entry
        return {"kind": kind, "k": k, "value": value}
    if kind == "below":
        _, _, n, value = entry
        return {"kind": kind, "n": n, "value": value}
    raise ValueError(kind)


def draws_file(game_id: int, record: dict[str, Any], found: Verdict) -> str:
    """The JSON text: the game, its commitment and seed, how many draws it made, its
    players' names, then one entry a line: its first draw as the record says, its last as
    the seed's redo of it ended (informative: a checker redoes it), the draws passed over,
    the move it belongs to, whose move (a player id, null for the game's own) and what was
    done, then what was drawn."""
    moves = record["dice"]["moves"]
    entries = []
    for c in found.checked:
        move = moves[c.move]
        line: dict[str, Any] = {
            "first": c.entry[1] if len(c.entry) > 1 else None,
            "last": None if c.end is None else c.end - 1,
            "move": c.move,
            "by": move.get("by"),
            "act": move.get("act", ""),
        }
        if c.rejected:
            line["passed_over"] = list(c.rejected)
        try:
            line.update(_fields(c.entry))
        except (ValueError, TypeError, IndexError):
            line.update(kind="unknown", entry=c.entry)
        entries.append(line)
    head = {
        "format": FORMAT,
        "version": found.version,
        "game": record["kind"],
        "number": game_id,
        "commitment": found.commitment,
        "seed": found.seed,
        "draws": found.end,
        "players": {str(p["id"]): unbidi(str(p["name"])) for p in record.get("players") or []},
    }
    text = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
    body = ",\n".join("  " + json.dumps(e, ensure_ascii=False) for e in entries)
    return f'{text},\n "entries": [\n{body}\n ]\n}}\n'
