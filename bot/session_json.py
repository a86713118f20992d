"""The stored form of a session (bot/sessions.py): its row's JSON, and what a move appends
beside the row (the records of its sealed draws, its score history), so that the row stays
the same size however long the game; and reading that part back."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic_core import to_json

from bot.json_text import compact
from bot.reach import Reach
from bot.store import SessionRow
from games.draws import Sealed

if TYPE_CHECKING:
    from bot.sessions import Session


#: The state field that moves only append to, a score after each turn (Farkle's chart):
#: stored beside the row with the moves that add to it, so the row does not grow with it.
HISTORY = "history"


def _history(state: Any) -> list[Any] | None:
    """The state's `HISTORY`, or None (a lobby, a game without one)."""
    return getattr(state, HISTORY, None) if state is not None else None


def beside_json(session: Session) -> tuple[list[Any], list[Any], str | None]:
    """What the session's next save appends beside its row: the records of the draws and
    the history entries made since the last save, and the JSON object that holds them
    ({"draws": [...], "history": [...]}, either left out when empty; None: nothing)."""
    moves = session.draws.moves[session.draws_kept :] if session.draws is not None else []
    history = _history(session.state)
    entries = history[session.history_kept :] if history is not None else []
    parts: dict[str, Any] = {}
    if moves:
        parts["draws"] = moves
    if entries:
        parts["history"] = entries
    text = compact(parts) if parts else None
    return moves, entries, text


def state_json(session: Session) -> str:
    """The state's JSON, written once per state: a move compares it with the state before
    (nothing to commit when they are the same) and then saves it. States are never changed in
    place (an engine moves on a copy), so the text of the same object stays true. Its
    `HISTORY` is not in it: the store keeps that beside the row (see `beside_json`)."""
    written = session.written
    if written is None or written[0] is not session.state:
        state = session.state
        text = "null" if state is None else _state_text(state)
        written = session.written = (session.state, text)
    return written[1]


class _ByObject:
    """Text written once per object and kept by its identity, the object with it (an id
    that another object reuses is no hit); at most `limit` texts (all forgotten when full)."""

    __slots__ = ("_limit", "_texts")

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._texts: dict[int, tuple[Any, str]] = {}

    def __call__(self, thing: Any, write: Callable[[Any], str]) -> str:
        hit = self._texts.get(id(thing))
        if hit is None or hit[0] is not thing:
            if len(self._texts) >= self._limit:
                self._texts.clear()
            hit = self._texts[id(thing)] = (thing, write(thing))
        return hit[1]


#: The field of a game's log window (games/gamelog.py): frozen lines (`games.text.Line`),
#: which a game's working copies share (games/copies.py).
LOG = "log"
#: The JSON of log lines already written, by id, each with its line (so an id reused is no
#: hit): a Farkle table's 12-line window is three quarters of its state's JSON, and each
#: line is written once instead of at every move it stays in the window.
_LINES = _ByObject(2048)  # (about 0.5 MB at most: the windows of some 170 busy tables)


def _state_text(state: Any) -> str:
    """`state.model_dump_json()` without its `HISTORY`, its `LOG` written from `_LINES`
    (last: the same JSON object, its keys in another order), and its frozen `RULES`, when
    they come first, from `_RULES` (the same text)."""
    exclude = {HISTORY} if _history(state) is not None else set()
    rules = _rules_json(state)
    if rules is not None:
        exclude.add(RULES)
    if LOG not in type(state).model_fields:
        text = state.model_dump_json(exclude=exclude or None)
    else:
        head = state.model_dump_json(exclude=exclude | {LOG})
        lines = getattr(state, LOG)
        log = "null" if lines is None else f"[{','.join(map(_line_json, lines))}]"
        text = f'{head[:-1]}{"," if len(head) > 2 else ""}"{LOG}":{log}}}'
    if rules is None:
        return text
    return f'{{"{RULES}":{rules}{"," if len(text) > 2 else ""}{text[1:]}'


#: The field of a game's rule set: when it is a frozen model (Farkle's, shared by every
#: game of that rule set) and the state's first field, its JSON is written once (`_RULES`),
#: not at every move: about a third of the time of writing a Farkle state's other fields.
RULES = "rules"
_RULES = _ByObject(256)
#: By state model: whether its `RULES` are a frozen model and its first field.
_RULES_FIRST: dict[type, bool] = {}


def _rules_json(state: Any) -> str | None:
    """The JSON of the state's rules, if `_state_text` writes them apart (see `RULES`)."""
    cls = type(state)
    first = _RULES_FIRST.get(cls)
    if first is None:
        fields = cls.model_fields
        kind = fields[RULES].annotation if RULES in fields else None
        first = _RULES_FIRST[cls] = (
            next(iter(fields)) == RULES
            and isinstance(kind, type)
            and issubclass(kind, BaseModel)
            and bool(kind.model_config.get("frozen"))
        )
    if not first:
        return None
    return _RULES(getattr(state, RULES), _model_json)


def _line_json(line: Any) -> str:
    return _LINES(line, _pydantic_json)


def _pydantic_json(thing: Any) -> str:
    return to_json(thing).decode()


def _model_json(model: Any) -> str:
    return str(model.model_dump_json())


def draws_json(draws: Sealed, *, whole: bool) -> str:
    """The stored form of a game's draws: `whole`, with the record of every draw inline
    (`Draws.json_text`); otherwise only what the row keeps, its seed, version and position,
    and how many moves' records the store keeps beside it ("kept": `Sessions.save`
    appends them with their moves, and loading reads them back)."""
    if whole:
        return draws.json_text()
    return draws.head_text(kept=len(draws.moves))


def session_json(session: Session, via: Reach | None = None, *, whole: bool = False) -> str:
    """The stored form of a session: {"lobby", "state", "turn_deadline", "bot_deadline",
    "ping"[, "via"][, "side"][, "away"][, "sealed"], "draws"} (via: the channel's windows
    where the bot is no member, see bot/reach.py; side: `Session.side`; away: `Session.away`,
    who is away and the pause, see games/away.py; draws: the game's secret seed,
    see games/draws.py, and its record when `whole`, see `draws_json`; sealed: whether a
    started game has draws, see `_draws`). The models
    write their own JSON (pydantic's serializer, in Rust): the hot path of every move,
    several times cheaper than model_dump() followed by json.dumps()."""
    fields: dict[str, Any] = {
        "turn_deadline": session.turn_deadline, "bot_deadline": session.bot_deadline,
        "ping": session.ping,
    }  # fmt: skip
    history = _history(session.state)
    if history is not None and not whole:
        fields["history_kept"] = len(history)
    if via is not None:
        fields["via"] = via.as_json()
    if session.side:
        fields["side"] = session.side
    if session.away:
        fields["away"] = session.away.model_dump(mode="json")
    if session.state is not None:
        fields["sealed"] = session.draws is not None
    tail = compact(fields)
    draws = "null" if session.draws is None else draws_json(session.draws, whole=whole)
    state = state_json(session)
    if whole and history is not None:
        state = session.state.model_dump_json()
    return f'{{"lobby":{_lobby_json(session)},"state":{state},{tail[1:-1]},"draws":{draws}}}'


#: The JSON of started games' lobbies, by id, each with its lobby (so an id reused is no
#: hit): a game's lobby no longer changes once it started (a lobby is only ever changed on
#: a copy, before the start), and it was written again at every move.
_LOBBIES = _ByObject(1024)  # (about 0.3 MB at most)


def _lobby_json(session: Session) -> str:
    lobby = session.lobby
    if session.state is None:
        return lobby.model_dump_json()  # (a lobby still changes: on copies, but each saved)
    return _LOBBIES(lobby, _model_json)


def ending_json(session: Session) -> str:
    """What a finished game keeps until its final table is shown where the bot is no member
    (`FinishedGame.unseen`): its stored form, with its table message and revision (read
    back by `Sessions.unseen`)."""
    data = json.loads(session_json(session, whole=True))
    data.update(message_id=session.message_id, revision=session.revision)
    return json.dumps(data, separators=(",", ":"))


def beside(row: SessionRow) -> tuple[list[Any], list[Any]]:
    """The records of draws and the history entries stored beside a row, oldest first."""
    moves: list[Any] = []
    history: list[Any] = []
    for text in row.beside:
        parts = json.loads(text)
        if not isinstance(parts, dict):
            raise TypeError("beside")
        moves += parts.get("draws", [])
        history += parts.get("history", [])
    return moves, history


def with_history(stored: Any, kept: Any, history: list[Any]) -> Any:
    """A stored state whose `HISTORY` the store keeps beside the row ("history_kept": how
    many entries, see `session_json`), with `history` (`beside`) put back; ValueError when
    they do not match."""
    if not isinstance(stored, dict) or len(history) != kept:
        raise ValueError("history")
    return {**stored, HISTORY: history}
