"""Players who said they are away for a while (`/away 2d`), as one game keeps them: until when
each is away, whom a bot played for (the game is then unrated, like a game with bot seats),
and a pause that everyone still playing agreed to. Pure and engine-neutral: the bot layer
(bot/away.py) stores the book with the game and asks it whose turns a bot plays now.

How away turns count towards the abandoned-game rule (`autoplay.idle_turns`): a turn played
for an away player is played through the engine's own `apply`, as if they had moved, so it
resets their count of turns let run out. A player who said they would be back never makes the
game look abandoned; once their away time is over, their turns run out as anyone's do, and a
game where everyone let them run out ends with no winner, as it always did."""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from typing import TypeVar

from pydantic import BaseModel, Field

from games.autoplay import MOVE_LIMIT, Apply, Chooser
from games.errors import GameError
from games.gamelog import Logged, write_log
from games.text import M

#: The longest a player may say they are away.
MAX_AWAY = 7 * 86400

S = TypeVar("S", bound=Logged)


class Away(BaseModel):
    """One away player: until when, and the name the table shows them by."""

    until: float
    name: str


class Pause(BaseModel):
    """A pause asked for by an away player: it holds once every person still playing
    agreed (`on`), until `until` (the asker's away time) or until someone resumes."""

    until: float
    asked_by: int
    agreed: list[int] = Field(default_factory=list)
    on: bool = False


class AwayBook(BaseModel):
    """A game's away players, the players a bot played for, and its pause."""

    away: dict[int, Away] = Field(default_factory=dict)
    #: Everyone a bot played a turn for while they were away: the game is unrated.
    stood_in: list[int] = Field(default_factory=list)
    pause: Pause | None = None

    def __bool__(self) -> bool:
        return bool(self.away or self.stood_in or self.pause)

    def is_away(self, seat: int, now: float) -> bool:
        entry = self.away.get(seat)
        return entry is not None and entry.until > now

    def paused(self, persons: Collection[int], now: float) -> bool:
        """Whether nothing runs on the clock: an agreed pause holds, or every person still
        playing is away (there is nobody for the bot to play against)."""
        if self.pause is not None and self.pause.on and self.pause.until > now:
            return True
        if not self.away:  # (every move asks: mostly nobody is away)
            return False
        return bool(persons) and all(self.is_away(p, now) for p in persons)

    def stand_ins(self, persons: Collection[int], now: float) -> list[int]:
        """The persons whose turns a bot plays now (none while the game is paused)."""
        if not self.away or self.paused(persons, now):
            return []
        return [p for p in persons if self.is_away(p, now)]

    def next_change(self) -> float | None:
        """When the book changes by itself: the earliest end of an away time or a pause."""
        ends = [a.until for a in self.away.values()]
        if self.pause is not None:
            ends.append(self.pause.until)
        return min(ends, default=None)

    def lapsed(self, now: float) -> AwayBook:
        """The book without the away times and the pause that ended by `now`."""
        pause = self.pause if self.pause is not None and self.pause.until > now else None
        away = {p: a for p, a in self.away.items() if a.until > now}
        return AwayBook(away=away, stood_in=self.stood_in, pause=pause)

    def go(self, seat: int, name: str, until: float) -> AwayBook:
        """`seat` is away until `until` (a pause they asked for ends then too)."""
        book = self.model_copy(deep=True)
        book.away[seat] = Away(until=until, name=name)
        if book.pause is not None and book.pause.asked_by == seat:
            book.pause.until = until
        return book

    def back(self, seat: int) -> AwayBook:
        """`seat` is back: no longer away, and the pause they asked for is over."""
        book = self.model_copy(deep=True)
        book.away.pop(seat, None)
        if book.pause is not None and book.pause.asked_by == seat:
            book.pause = None
        return book

    def ask_pause(self, seat: int, persons: Collection[int]) -> AwayBook:
        """Away `seat` asks the others to pause the game until they are back; it holds at
        once when nobody else is left to agree."""
        book = self.model_copy(deep=True)
        book.pause = Pause(until=self.away[seat].until, asked_by=seat, agreed=[seat])
        book.pause.on = set(persons) <= {seat}
        return book

    def agree(self, seat: int, persons: Collection[int]) -> AwayBook:
        """`seat` agrees to the pause asked for; it holds once every person agreed."""
        book = self.model_copy(deep=True)
        pause = book.pause
        if pause is None:
            return book
        if seat not in pause.agreed:
            pause.agreed.append(seat)
        pause.on = set(persons) <= set(pause.agreed)
        return book

    def resume(self) -> AwayBook:
        book = self.model_copy(deep=True)
        book.pause = None
        return book

    def played_for(self, seat: int) -> AwayBook:
        book = self.model_copy(deep=True)
        if seat not in book.stood_in:
            book.stood_in.append(seat)
        return book


def stand_in(
    state: S,
    seat: int,
    name: str,
    chooser: Chooser,
    apply: Apply[S],
    rng: random.Random,
    done: Callable[[S], bool],
    log_length: int,
) -> S | None:
    """The state after the bot policy (`chooser`) played away `seat`'s part through the
    engine's `apply` until `done` (or it has nothing more to say, or a move is refused, or
    after `MOVE_LIMIT` moves), with a line in the game's log that says a bot played for
    them; None when it made no move (the game then waits for the turn clock)."""
    s = state
    moved = False
    for _ in range(MOVE_LIMIT):
        if done(s):
            break
        action = chooser(s, seat)
        if action is None:
            break
        try:
            s = apply(s, seat, action, rng)[0]
        except GameError:
            break
        moved = True
    if not moved:
        return None
    marked: S = s.model_copy()
    write_log(marked, [M("A bot played for {name}, who is away.", name=name)], log_length)
    return marked
