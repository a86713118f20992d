"""What the tables show of a game's sealed draws (games/draws.py), and what a finished game
keeps of them. Every table of a running game shows the commitment (the first 16 hex digits
of the seed's SHA-256; /verify gives all of it); the final table shows the seed beside those
digits and the game's number for /verify; the finished-games row keeps the seed and the
record of every draw (`dice_record`), from which /verify replays the game (bot/verify.py)
and /stats counts each player's dice (`luck_counts`). The seed itself never leaves the
session row before the end."""

from __future__ import annotations

from typing import Any

from bot.i18n import Lang, _, current
from bot.sessions import Session
from bot.tables.base import Rendered, TableAdapter
from games.kuriki.engine import CUP

#: How many hex digits of the commitment a table shows (64 bits: no other seed with the
#: same digits can be found in practice, let alone one that also deals better).
SHORT = 16


def _footer(rendered: Rendered, line: str) -> Rendered:
    text = rendered.embed.footer.text
    rendered.embed.set_footer(text=f"{text}\n{line}" if text else line)
    return rendered


def sealed(rendered: Rendered, session: Session, adapter: TableAdapter) -> Rendered:
    """A running game's table with its commitment in the footer (a finished one's shows the
    seed instead, see `revealed`; a game started before games were sealed shows nothing)."""
    if session.draws is None or adapter.is_finished(session.state):
        return rendered
    language, commitment = current(), session.draws.commitment
    key = (language.code, adapter.sealed_what, commitment)
    hit = _LINES.get(key)
    if hit is not None and hit[0] is language:
        line = hit[1]
    else:
        # Translators: {what} is what the game draws ("Dice", "Cards and dice"), {commitment}
        # the first hex digits of its seed's hash; /verify is a command, keep it.
        line = _(
            "🔒 {what} sealed: {commitment} · /verify",
            what=_(adapter.sealed_what),
            commitment=commitment[:SHORT],
        )
        if len(_LINES) >= _LINES_KEPT:
            _LINES.clear()
        _LINES[key] = (language, line)
    return _footer(rendered, line)


#: The sealed line of each running game's tables, by (language, what it draws, commitment):
#: the same line on every table of a game, made once (neither argument is a name, so the
#: line is the same whether markdown is read or not), kept with its language: a catalogue
#: loaded afresh (a new `Lang`) is no hit. About 0.3 MiB when full; all forgotten then.
_LINES: dict[tuple[str, str, str], tuple[Lang, str]] = {}
_LINES_KEPT = 1024


def revealed(rendered: Rendered, session: Session, game_id: int) -> Rendered:
    """The final table with the game's seed, beside it the commitment as the running tables
    showed it (so players compare the two on the same message: a record rewritten with
    another seed and that seed's hash would not match what they saw), and the game's number
    for /verify."""
    if session.draws is None:
        return rendered
    seed = session.draws.revealed_seed()
    # Translators: {commitment} is the hex the running tables showed after "sealed";
    # /verify is a command, keep it; {game} is the game's number.
    line = _(
        "🔓 Seed {seed}, sealed as {commitment} · check the draws: /verify {game}",
        seed=seed,
        commitment=session.draws.commitment[:SHORT],
        game=str(game_id),
    )
    return _footer(rendered, line)


def dice_record(session: Session) -> dict[str, Any] | None:
    """What the finished game keeps of its draws: the seed, its commitment, where the stream
    stopped and every draw, grouped by the move that made it (None: not a sealed game)."""
    draws = session.draws
    if draws is None:
        return None
    return {"commitment": draws.commitment, **draws.to_json()}


def luck_counts(record: dict[str, Any] | None) -> dict[str, dict[str, int]]:
    """Each player's dice in one game, by player id as text: every die they rolled by its
    face ("die_1".."die_6") and every roll under a Kuriki cup by its two dice, the lower
    first ("cup_12" is a Kuriki). Read from the record of draws, where the engine names the
    roller of each throw; bots are counted like anyone."""
    out: dict[str, dict[str, int]] = {}
    for move in (record or {}).get("moves", []):
        for entry in move["draws"]:
            if entry[0] != "dice" or entry[2] is None:
                continue
            _, _, roller, what, faces = entry
            counts = out.setdefault(str(roller), {})
            for face in faces:
                counts[f"die_{face}"] = counts.get(f"die_{face}", 0) + 1
            if what == CUP and len(faces) == 2:
                key = "cup_{}{}".format(*sorted(faces))
                counts[key] = counts.get(key, 0) + 1
    return out
