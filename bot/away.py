"""Away players (a part of `Tables`, bot/service.py): `/away 2d` says a player is away for a
while; meanwhile a bot plays their turns (bot/deadlines.py asks `play_for`), each marked in
the log, and the game is unrated. If everyone still playing agrees, the game pauses instead.
Coming back is one press. The book of who is away lives with the game (`Session.away`,
games/away.py), so it survives a restart; the table shows it (`mark_table`)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import discord

from bot.away_table import AGREE, AWAY_KIND, BACK, PAUSE, RESUME, when
from bot.commit import Commit
from bot.components import Click, TableItem, button
from bot.errors import GameOver, NoSession, UserError
from bot.i18n import _, duration
from bot.players import people
from bot.replies import Actor, Reply
from bot.server_settings import ServerSettings
from bot.sessions import Session, Sessions
from bot.table_updates import TableUpdates
from bot.tables.base import TableAdapter
from games.away import MAX_AWAY, AwayBook, stand_in
from games.errors import NotInGame
from games.text import M

#: The shortest away time: less is a turn timer's business.
MIN_AWAY = 60
#: What `/away` takes for "I'm back".
OFF_WORDS = frozenset({"off", "back", "0"})
_UNITS = {"d": 86400, "h": 3600, "m": 60}
_DURATION = re.compile(r"(?:(\d{1,3})\s*([dhm])\s*)+")
_PART = re.compile(r"(\d{1,3})\s*([dhm])")
#: A log's window when an engine does not say (every engine names its `LOG_LENGTH`).
DEFAULT_LOG_LENGTH = 12


def parse_away(text: str) -> int | None:
    """Seconds away from "2d", "1d12h", "90m" or "3h 30m"; None for "off". Bad input or a
    length out of bounds is refused with a short explanation."""
    typed = text.strip().lower()
    if typed in OFF_WORDS:
        return None
    if not _DURATION.fullmatch(typed):
        raise UserError(
            _('Say how long you are away, like "2h", "2d" or "1d12h" (or "off" when back).')
        )
    seconds = sum(int(n) * _UNITS[unit] for n, unit in _PART.findall(typed))
    if not MIN_AWAY <= seconds <= MAX_AWAY:
        raise UserError(
            _(
                "You can be away between {least} and {most}.",
                least=duration(MIN_AWAY),
                most=duration(MAX_AWAY),
            )
        )
    return seconds


def persons(adapter: TableAdapter, state: Any) -> list[int]:
    """The persons still playing: who may be away, and who must agree to a pause."""
    return people(adapter.present_ids(state))


def play_for(
    adapter: TableAdapter, state: Any, seat: int, name: str, rng: random.Random, now: float
) -> Any:
    """The state after the bot policy played away `seat`'s part, with the log's line that
    says so; None when it could not. The policy decides with `rng`, the game's sealed draws,
    as it does when it plays a timeout for a person."""
    return stand_in(
        state,
        seat,
        name,
        adapter.chooser(rng, now),
        lambda s, who, action, dice: adapter.engine.apply(s, who, action, dice),
        rng,
        lambda s: adapter.is_finished(s) or not adapter.can_act(s, seat),
        getattr(adapter.engine, "LOG_LENGTH", DEFAULT_LOG_LENGTH),
    )


class Absences:
    """`/away`, `/away off` and the away buttons: each changes the game's away book under the
    channel's lock and commits it like a move (the deadlines follow from the book)."""

    def __init__(
        self,
        *,
        sessions: Sessions,
        adapters: dict[str, TableAdapter],
        settings: ServerSettings,
        display: TableUpdates,
        commit: Commit,
        clock: Callable[[], float],
    ) -> None:
        self.sessions = sessions
        self.adapters = adapters
        self.settings = settings
        self.display = display
        self.commit = commit
        self.clock = clock

    async def away(
        self, actor: Actor, channel_id: int, seconds: int | None, *, pause: bool = False
    ) -> Reply:
        """`/away`: the actor is away for `seconds` (None: back) in the game here; with
        `pause`, they ask the others to pause the game instead."""
        if seconds is None:
            return await self._change(actor, channel_id, None, BACK)
        return await self._change(actor, channel_id, None, PAUSE if pause else "", seconds)

    async def press(self, actor: Actor, click: Click) -> Reply:
        """An away button, on the table or on the away player's private reply."""
        return await self._change(actor, click.channel_id, click.game, click.action)

    async def _change(
        self, actor: Actor, channel_id: int, game: int | None, action: str, seconds: int = 0
    ) -> Reply:
        async with self.sessions.lock(channel_id):
            session = await self.sessions.get(channel_id)
            if session is None or not session.started or (
                game is not None and session.game_id != game
            ):
                if game is not None:
                    raise GameOver(_("That button belongs to a game that is over."))
                raise NoSession(_("No game is running in this channel."))
            adapter = self.adapters[session.kind]
            standing = persons(adapter, session.state)
            if actor.id not in standing:
                raise NotInGame(M("You are not in this game."))
            now = self.clock()
            book = session.away.lapsed(now)
            book, note, items = self._book(book, actor, session, standing, action, seconds, now)
            work = session.working(away=book)
            settings = await self.settings.of(session)
            rendered = await self.commit(work, adapter, settings, before=session.state)
            return self.display.with_table(
                Reply(content=note, items=items, ephemeral=True), work, rendered
            )

    def _book(
        self,
        book: AwayBook,
        actor: Actor,
        session: Session,
        standing: list[int],
        action: str,
        seconds: int,
        now: float,
    ) -> tuple[AwayBook, str, list[TableItem] | None]:
        """The book after `action`, what the actor is told, and the buttons of that note."""
        me = actor.id
        if seconds:
            until = now + seconds
            book = book.go(me, _seat_name(session, actor), until)
            items = [_button(session, BACK, _("I'm back"), discord.ButtonStyle.primary)]
            if action != PAUSE:
                items.append(_button(session, PAUSE, _("Ask for a pause instead")))
                return book, _(
                    "You are away until {when}. Meanwhile a bot plays your turns, and a game "
                    "it played in is not rated. Press “I'm back” when you are.",
                    when=when(until),
                ), items
            book, note, _none = self._book(book, actor, session, standing, PAUSE, 0, now)
            return book, note, items
        if action == BACK:
            if not book.is_away(me, now):
                raise UserError(_("You are not away in this game."))
            return book.back(me), _("Welcome back: your turns are yours again."), []
        if action == PAUSE:
            if not book.is_away(me, now):
                raise UserError(_("Only a player who is away can ask for a pause."))
            book = book.ask_pause(me, standing)
            if book.pause is not None and book.pause.on:
                return book, _("The game is paused until you are back."), None
            return book, _(
                "You asked the others to pause the game until {when}. Until all of them "
                "agree, a bot plays your turns.",
                when=when(book.away[me].until),
            ), None
        if action == AGREE:
            if book.pause is None or book.pause.on:
                raise UserError(_("Nobody is asking to pause this game."))
            book = book.agree(me, standing)
            return book, _("You agreed to pause the game."), None
        if action == RESUME:
            if book.pause is None or not book.pause.on:
                raise UserError(_("The game is not paused."))
            return book.resume(), _("The game goes on: the turn clock runs again."), None
        raise UserError(_("This button is not one I recognise any more."))


def _button(
    session: Session,
    action: str,
    label: str,
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
) -> TableItem:
    return button(AWAY_KIND, action, session.channel_id, session.game_id, 0, label, style=style)


def _seat_name(session: Session, actor: Actor) -> str:
    """The name the table knows the actor by (their lobby seat's), else their own."""
    return next((p.name for p in session.lobby.players if p.id == actor.id), actor.name)
