"""Running sessions in memory and on disk: one lock per channel, a cache in front of the store,
and the one write path every state change takes (save commits before anyone is told)."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from bot.errors import CorruptSession, MovedMeanwhile
from bot.reach import Reach, Window
from bot.seating import seats_of
from bot.session_json import (
    beside,
    beside_json,
    ending_json,
    session_json,
    state_json,
    with_history,
)
from bot.store import FinishedGame, RevisionConflict, Seat, SessionRow, Store
from games.away import AwayBook
from games.draws import Draws, Sealed
from games.gamelog import take_log
from games.lobby import Lobby
from games.shared import share_fields_sets, share_rules
from games.text import line_json

if TYPE_CHECKING:
    from bot.tables.base import TableAdapter

log = logging.getLogger(__name__)


@dataclass
class Session:
    """One channel's game: its lobby and, once started, the engine's state."""

    channel_id: int
    guild_id: int | None
    kind: str
    lobby: Lobby
    state: Any = None
    revision: int = 0
    message_id: int | None = None
    deadline: float | None = None  # the earliest of turn_deadline and the game's own deadlines
    turn_deadline: float | None = None
    bot_deadline: float | None = None  # when the bots that can move make their moves
    created_at: float = field(default_factory=time.time)
    shown_revision: int = 0  # the revision the table message in the channel shows
    ping: list[int] = field(default_factory=list)  # whom the table of this revision mentions
    #: The started game's sealed dice and shuffles (games/draws.py): its secret seed, the
    #: position in its stream and the record of its draws, saved with every move. None for a
    #: lobby, and for a game started before games had them.
    draws: Sealed | None = field(default=None, repr=False)
    #: How many of `draws.moves`, and of the state's `HISTORY` entries, the store holds
    #: beside the row (`Sessions.save` appends the rest with the move, see `beside_json`).
    draws_kept: int = field(default=0, repr=False, compare=False)
    history_kept: int = field(default=0, repr=False, compare=False)
    #: The state's JSON and the state object it was written from (see `state_json`).
    written: tuple[Any, str] | None = field(default=None, repr=False, compare=False)
    #: What a cached session keeps of that JSON instead (`Sessions._keep`): the state and
    #: the text's digest, all a move compares with (`same_state`).
    digest: tuple[Any, bytes] | None = field(default=None, repr=False, compare=False)
    #: Log lines taken from the state (`take_lines`), stored with the next save.
    new_lines: list[dict[str, object] | str] = field(default_factory=list, repr=False, compare=False)
    #: The finished game's id once it is recorded (`Sessions.finish`): its tables from then
    #: on are its final table.
    ended: int | None = None
    #: The public messages besides the table that show a decision still open (a foul vote),
    #: by the adapter's key (`TableAdapter.side_messages`): their ids, saved with the game.
    side: dict[str, int] = field(default_factory=dict)
    #: Who said they are away, whom a bot played for, and the game's pause (games/away.py),
    #: saved with the game.
    away: AwayBook = field(default_factory=AwayBook)
    #: Those the last commit changed or closed, (message id, key): edited with its table.
    retouch: list[tuple[int, str]] = field(default_factory=list, repr=False, compare=False)
    #: The players whose step the last commit changed without their press (not saved):
    #: their open private reply is edited with the table (`TableAdapter.steps_changed`).
    refresh: list[int] = field(default_factory=list, repr=False, compare=False)
    #: Who sits at it as the store's index of seats last had them from this process
    #: (bot/seating.py): a save writes them again only when they changed.
    seated: list[Seat] | None = field(default=None, repr=False, compare=False)

    @property
    def started(self) -> bool:
        return self.state is not None

    def dice(self, fallback: random.Random, by: int | None, act: str) -> random.Random:
        """What the engine draws `by`'s move `act` from: the game's sealed draws (a copy
        made for this move, see `working`), or `fallback` for a game without them."""
        if self.draws is None:
            return fallback
        self.draws = self.draws.stream()
        return self.draws.move(by, act)

    def working(self, **changes: Any) -> Session:
        """A copy for a move that may not be kept: its draws are a fork, so the cached
        game's stream moves on only when the move is committed (`changes` as `replace`).
        Made field for field as `replace` makes it, without its call of `__init__`."""
        work = object.__new__(Session)
        values = work.__dict__
        values.update(self.__dict__)
        values.update(draws=self.draws and self.draws.fork(), retouch=[], refresh=[])
        if changes:
            unknown = changes.keys() - _FIELDS
            if unknown:
                raise TypeError(f"Session has no fields {sorted(unknown)}")
            values.update(changes)
            if "created_at" in changes:
                values.pop("game_id", None)  # (cached from the old value)
        return work

    @functools.cached_property
    def game_id(self) -> int:
        """Which game of this channel a button belongs to: a button of an earlier game here
        never acts on this one, whatever its stamp. (Kept: every button of a table asks.)"""
        return int(self.created_at * 1000) % 1_000_000_000


#: The fields a `Session` is made with (`Session.working` takes changes of these).
_FIELDS = frozenset(f.name for f in fields(Session))


def _digest(text: str) -> bytes:
    """128 bits of the text's SHA-256: with SHA extensions (today's x86 and ARM servers),
    about half the time of BLAKE2b on a 2 KB state (1.7 us against 3.0)."""
    return hashlib.sha256(text.encode()).digest()[:16]


def same_state(work: Session, session: Session) -> bool:
    """Whether `work`'s state writes the same JSON as `session`'s (a press that asked for
    what already is). A cached session keeps only its text's 128-bit digest (`forget_text`)."""
    mine = state_json(work)
    written, digest = session.written, session.digest
    current = written is not None and written[0] is session.state
    if not current and digest is not None and digest[0] is session.state:
        work.digest = (work.state, _digest(mine))  # (what `forget_text` keeps, if saved)
        return work.digest[1] == digest[1]
    return mine == state_json(session)


def forget_text(session: Session) -> None:
    """Keep the digest of the state's JSON instead of the text (about 2 KB of a Farkle
    game): between moves a cached game only needs to tell whether a move changed it."""
    written, digest = session.written, session.digest
    kept = digest is not None and digest[0] is session.state  # (by `same_state`)
    if written is not None and written[0] is session.state and not kept:
        session.digest = (session.state, _digest(written[1]))
    session.written = None


def take_lines(session: Session) -> None:
    """Move the log lines the state holds (`games.gamelog`) to `session.new_lines`, which
    the next save stores beside the state: a state at rest holds none, so a move that
    changed nothing has the same JSON as the state before it. Nothing to take (a lobby, a
    move that logged nothing): nothing changes."""
    if session.state is not None:
        state, lines = take_log(session.state)
        if lines:
            session.state = state
            session.new_lines = [*session.new_lines, *map(line_json, lines)]


#: Bounds of a sane row: Discord ids (snowflakes) fit in 64 bits, a revision counts moves.
MAX_ID = 2**63
MAX_REVISION = 2**31


def _absurd(row: SessionRow) -> str | None:
    """What makes a row's columns impossible (a bound exceeded, NaN, a wrong type), or None."""
    for name in ("revision", "shown_revision"):
        value = getattr(row, name)
        if type(value) is not int or not 0 <= value <= MAX_REVISION:
            return name
    for name in ("guild_id", "message_id"):
        value = getattr(row, name)
        if value is not None and (type(value) is not int or not 0 < value < MAX_ID):
            return name
    for name in ("deadline", "created_at"):
        value = getattr(row, name)
        if value is None and name == "deadline":
            continue
        if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
            return name
    return None


def _draws(data: dict[str, Any], started: bool, kept: list[Any]) -> Draws | None:
    """A stored game's sealed draws, their record read from the row or, since the row
    keeps only its head, from `kept` (the moves stored beside it: as many as the head
    says, see `draws_json`); ValueError or TypeError when a started game's are missing or
    damaged. A sealed game never goes on unsealed: a started game's row says
    whether it is sealed ("sealed", written since this check exists), and a row without
    that mark is an unsealed game only when it has no "draws" at all, as the rows written
    before games were sealed had. A row of the versions in between with "draws": null
    cannot tell an unsealed game from a record that was lost, so it is taken as damaged."""
    stored = data.get("draws")
    if isinstance(stored, dict) and "kept" in stored:
        if type(stored["kept"]) is not int or len(kept) != stored["kept"]:
            raise ValueError("draws")
        stored = {**stored, "moves": kept}
    draws = None if stored is None else Draws.from_json(stored)
    if not started:
        return draws
    sealed = data.get("sealed", None if "draws" not in data else True)
    if sealed is not None and type(sealed) is not bool:
        raise TypeError("sealed")
    if bool(sealed) != (draws is not None):
        raise ValueError("draws")
    return draws


def _reach(channel_id: int, data: Any) -> Reach | None:
    """The stored windows of a channel the bot is no member of. Unreadable ones are dropped
    (the table then waits for the next press), never the game: they are only a way to show
    it."""
    if data is None:
        return None
    try:
        return Reach.from_json(data)
    except (TypeError, ValueError):
        log.warning("The stored interactions of channel %s are unreadable: dropped", channel_id)
        return Reach()


#: How long a cached game may go unused before it leaves memory (`Sessions.drop_idle`).
IDLE_AFTER = 3600.0

#: How many of the latest saved or loaded games wait before what they hold alike with other
#: games is shared (games/shared.py, about 20 us a Farkle game): a game that moves again
#: meanwhile replaces its state and is never walked, so a busy bot spends nothing on it, and
#: at most these many cached games keep their own copies (about 5 KB each).
SHARE_AFTER = 128


def _share(session: Session) -> None:
    """Let `session` share what it holds alike with other cached games (games/shared.py)."""
    share_fields_sets(session.state)
    share_fields_sets(session.lobby)
    share_rules(session.lobby.options)


class Sessions:
    """Loads, caches and saves sessions; `lock(channel)` serialises every change to one channel."""

    def __init__(
        self,
        store: Store,
        adapters: dict[str, TableAdapter],
        *,
        limit: int = 2000,
        on_evict: Callable[[int], None] = lambda channel_id: None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.clock = clock  # when a seat's waiting changed (bot/store/seats.py)
        self.adapters = adapters
        self.limit = limit  # sessions kept in memory; the least recently used idle go first
        self.on_evict = on_evict
        self._locks: dict[int, asyncio.Lock] = {}
        self._cache: dict[int, Session] = {}  # in order of use, the most recent last
        self._used: dict[int, float] = {}  # when each cached game was last used (`drop_idle`)
        #: The cached sessions whose fields sets are not shared yet, oldest first (`_keep`).
        self._unshared: dict[int, Session] = {}
        #: The windows of the channels the bot is no member of (bot/reach.py), also while
        #: no session is cached there (a press before the game is read, a finished game).
        self.reaches: dict[int, Reach] = {}

    def arrived(self, channel_id: int, window: Window) -> Reach:
        """An interaction came from a channel the bot is no member of: its token is one more
        way to show that channel's table (saved with the session's next write)."""
        reach = self.reaches.get(channel_id)
        if reach is None:
            reach = self.reaches[channel_id] = Reach()
            if len(self.reaches) > self.limit:  # bounded: forget idle channels' first
                for idle in [c for c in self.reaches if c not in self._cache][:-self.limit]:
                    del self.reaches[idle]
        reach.note(window)
        return reach

    def reach(self, channel_id: int) -> Reach | None:
        """How the bot reaches the channel: None where it uses the channel itself."""
        return self.reaches.get(channel_id)

    def lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    def cached(self, channel_id: int) -> Session | None:
        """The channel's session if it is in memory (no database read)."""
        return self._cache.get(channel_id)

    async def get(self, channel_id: int, *, fresh: bool = False) -> Session | None:
        """The channel's session, or None; raises CorruptSession when the row cannot be read.
        `fresh` reads the stored row even when the game is cached (a timer: another process
        sharing the database may have moved it); the cached session stays when it is current."""
        cached = self._cache.pop(channel_id, None)
        if cached is not None:
            self._cache[channel_id] = cached  # now the most recently used
            self._used[channel_id] = self.clock()
        if cached is not None and not fresh:
            return cached
        row = await self.store.load_session(channel_id)
        if row is None:
            self._forget(channel_id)
            return None
        if cached is not None and cached.revision == row.revision:
            return cached
        session = self._decode(row)
        self._keep(session)
        return session

    def _keep(self, session: Session) -> None:
        """Cache `session` as the most recently used, and drop the least recently used idle
        sessions beyond the limit (a dropped game is read again on its next click), so the
        memory of a process that sees many games over time stays bounded. What games hold
        alike is shared between them (games/shared.py), once `SHARE_AFTER` later games were
        kept."""
        if isinstance(session.draws, Draws):  # the cached game keeps no Random state
            session.draws = session.draws.sealed()
        forget_text(session)
        self._unshared.pop(session.channel_id, None)  # (its state before: replaced)
        self._unshared[session.channel_id] = session
        if len(self._unshared) > SHARE_AFTER:
            _share(self._unshared.pop(next(iter(self._unshared))))
        self._cache.pop(session.channel_id, None)
        self._cache[session.channel_id] = session
        self._used[session.channel_id] = self.clock()
        self.drop_idle()
        excess = len(self._cache) - self.limit
        if excess <= 0:
            return
        for channel_id in list(self._cache):
            if self._busy(channel_id):
                continue
            self._drop(channel_id)
            excess -= 1
            if excess == 0:
                return

    def drop_idle(self) -> int:
        """Drop the cached games nobody used for `IDLE_AFTER` seconds, and say how many: a
        game played over days holds no memory while it waits (its next move, or its timer,
        reads it again). Called with every game kept and by the timer loop as it wakes; it
        looks at the least recently used games only, up to the first one still in use."""
        edge = self.clock() - IDLE_AFTER
        idle = []
        for channel_id in self._cache:  # (not copied: called with every save)
            if self._used.get(channel_id, edge) > edge:
                break  # in order of use: the rest were used later
            idle.append(channel_id)
        dropped = 0
        for channel_id in idle:
            if not self._busy(channel_id):
                self._drop(channel_id)
                dropped += 1
        return dropped

    def _busy(self, channel_id: int) -> bool:
        """Whether a move is being made in the channel (its game stays cached)."""
        lock = self._locks.get(channel_id)
        return lock is not None and lock.locked()

    def _drop(self, channel_id: int) -> None:
        """The channel's game leaves memory, with what is kept of it per channel."""
        del self._cache[channel_id]
        self._used.pop(channel_id, None)
        self._unshared.pop(channel_id, None)
        self._locks.pop(channel_id, None)
        self.reaches.pop(channel_id, None)
        self.on_evict(channel_id)

    def _decode(self, row: SessionRow) -> Session:
        adapter = self.adapters.get(row.kind)
        starter = None
        reason = "unreadable"
        try:
            data = json.loads(row.data)
            reason = "incompatible"
            if isinstance(data, dict) and isinstance(data.get("lobby"), dict):
                host = data["lobby"].get("starter")
                starter = host if type(host) is int and 0 < host < MAX_ID else None
            if adapter is None:
                reason = "unknown"
                raise ValueError("unknown game kind")
            absurd = _absurd(row)
            if absurd:
                reason = "absurd"
                raise ValueError(absurd)
            lobby = Lobby.model_validate(data["lobby"])
            turn_deadline = data.get("turn_deadline")
            bot_deadline = data.get("bot_deadline")
            for when in (turn_deadline, bot_deadline):
                if when is not None and (type(when) not in (int, float) or not math.isfinite(when)):
                    reason = "absurd"
                    raise TypeError("deadline")
            ping = data.get("ping", [])
            if not isinstance(ping, list) or not all(type(i) is int for i in ping):
                raise TypeError("ping")
            side = data.get("side", {})
            if not isinstance(side, dict) or not all(
                type(m) is int and 0 < m < MAX_ID for m in side.values()
            ):
                raise TypeError("side")
            away = AwayBook.model_validate(data.get("away") or {})
            via = _reach(row.channel_id, data.get("via"))
            moves, history = beside(row)
            state = None
            if data.get("state") is not None:
                stored = data["state"]
                if "history_kept" in data:  # its history beside the row (`beside_json`)
                    reason = "unreadable"
                    stored = with_history(stored, data["history_kept"], history)
                    reason = "incompatible"
                state = adapter.state_model.model_validate(stored)
            reason = "draws"
            draws = _draws(data, state is not None, moves)
        except (ValueError, KeyError, TypeError, ValidationError) as exc:
            # No row contents in the log line: a damaged row may still hold hidden cards.
            log.warning(
                "Session row for channel %s cannot be loaded: %s (%s)",
                row.channel_id,
                reason,
                type(exc).__name__,
            )
            raise CorruptSession(reason, str(row.kind), starter) from None
        self._merge(row.channel_id, via)
        return Session(
            channel_id=row.channel_id,
            guild_id=row.guild_id,
            kind=row.kind,
            lobby=lobby,
            state=state,
            revision=row.revision,
            message_id=row.message_id,
            deadline=row.deadline,
            turn_deadline=turn_deadline,
            bot_deadline=bot_deadline,
            created_at=row.created_at,
            shown_revision=row.shown_revision,
            ping=ping,
            draws=draws,
            draws_kept=0 if draws is None or "kept" not in data["draws"] else len(draws.moves),
            history_kept=len(history) if "history_kept" in data else 0,
            side=side,
            away=away,
        )

    def _merge(self, channel_id: int, stored: Reach | None) -> None:
        """The stored windows of a channel, noted into its one Reach in memory."""
        if stored is None:
            return
        reach = self.reaches.setdefault(channel_id, stored)
        if reach is not stored:
            for window in stored.windows:
                reach.note(window)

    async def save(self, session: Session) -> None:
        """Bump the revision and commit, with the log lines the move wrote (the state keeps
        only the table's window of the log; the store keeps them all) and what it added
        beside the row (`beside_json`: the row stays the same size however long the game).
        The cache changes only once the write succeeded."""
        take_lines(session)
        moves, entries, beside = beside_json(session)
        adapter = self.adapters.get(session.kind)
        seats = None if adapter is None else seats_of(session, adapter)
        row = SessionRow(
            channel_id=session.channel_id,
            guild_id=session.guild_id,
            kind=session.kind,
            data=session_json(session, self.reaches.get(session.channel_id)),
            revision=session.revision + 1,
            message_id=session.message_id,
            deadline=session.deadline,
            created_at=session.created_at,
            log=session.new_lines,
            beside=[] if beside is None else [beside],
            seats=None if seats == session.seated else seats,
            seats_at=self.clock(),
        )
        if not await self.store.save_session(row):
            self._forget(session.channel_id)  # the next read takes the stored game
            raise MovedMeanwhile()
        session.new_lines = []
        session.seated = seats
        session.draws_kept += len(moves)
        session.history_kept += len(entries)
        session.revision = row.revision
        shown = self._cache.get(session.channel_id)
        if shown is not None and shown is not session and shown.created_at == session.created_at:
            # The table may have been posted afresh since `session` was copied from it.
            session.message_id = shown.message_id
            session.shown_revision = max(session.shown_revision, shown.shown_revision)
        self._keep(session)

    async def note(self, session: Session) -> None:
        """Store what the cached `session` keeps beside its game (its side messages, its
        windows) in its row as it is, without a new revision: no move was made. A row
        moved on meanwhile (another process) keeps its own."""
        data = session_json(session, self.reaches.get(session.channel_id))
        if not await self.store.note_session(session.channel_id, session.revision, data):
            log.info("Channel %s moved on before its notes were stored", session.channel_id)

    async def finish(
        self, session: Session, record: FinishedGame, *, unseen: bool = False
    ) -> int:
        """Record the finished game, with its whole log, and drop the session; returns the
        finished game's id (also kept as `session.ended`). `unseen`: keep the finished
        session with the record until its final table is shown (`unseen`, `ending_shown`)."""
        take_lines(session)
        record.log = session.new_lines
        if unseen:
            record.unseen = ending_json(session)
        try:
            game_id = await self.store.finish_session(
                session.channel_id, record, revision=session.revision
            )
        except RevisionConflict:
            self._forget(session.channel_id)
            raise MovedMeanwhile() from None
        self._forget(session.channel_id)
        session.ended = game_id
        return game_id

    async def unseen(self, channel_id: int) -> Session | None:
        """The channel's latest game, finished where the bot is no member and never shown
        finished (`ended` set), as it was at its end; None when there is none (or it cannot
        be read: logged, and nothing is shown). Never cached: the channel has no game."""
        found = await self.store.unseen_ending(channel_id)
        if found is None:
            return None
        try:
            data = json.loads(found.unseen)
            row = SessionRow(
                channel_id=found.channel_id,
                guild_id=found.guild_id,
                kind=found.kind,
                data=found.unseen,
                revision=data["revision"],
                message_id=data["message_id"],
                deadline=None,
                created_at=found.started_at,
                shown_revision=data["revision"],
            )
            session = self._decode(row)
        except (ValueError, KeyError, TypeError, CorruptSession):
            log.warning("The unseen end of game %s cannot be read: not shown", found.game_id)
            return None
        session.ended = found.game_id
        return session

    async def ending_shown(self, game_id: int) -> None:
        await self.store.ending_shown(game_id)

    async def delete(self, channel_id: int) -> None:
        await self.store.delete_session(channel_id)
        self._forget(channel_id)

    async def set_aside(self, channel_id: int, reason: str, cleared_by: int | None) -> None:
        """A stored game that cannot be loaded moves to `damaged_sessions`: the channel is
        free for a new one."""
        await self.store.set_aside(channel_id, reason, cleared_by)
        self._forget(channel_id)

    async def table_shown(
        self, channel_id: int, message_id: int, revision: int, *, game: float
    ) -> None:
        """Which message is the table and which revision it shows, in the game created at
        `game` (a mark of a game the channel has ended since changes nothing: not the next
        game's row, nor its cached session); not a move, so the revision stays."""
        cached = self._cache.get(channel_id)
        edited = cached is not None and cached.message_id == message_id
        await self.store.table_shown(
            channel_id, message_id, revision, created_at=game, defer=edited
        )
        # Read again: a move may have replaced the cached session during the write.
        cached = self._cache.get(channel_id)
        if cached is None or cached.created_at != game:
            return
        if revision >= cached.shown_revision:  # as the store does
            cached.message_id = message_id
            cached.shown_revision = revision

    def _forget(self, channel_id: int) -> None:
        self._cache.pop(channel_id, None)
        self._used.pop(channel_id, None)
        self._unshared.pop(channel_id, None)
