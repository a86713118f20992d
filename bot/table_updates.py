"""Where and how a channel's table is shown, as the service decides it (a part of `Tables`,
bot/service.py): an edit of the table message, or a fresh post at the bottom of the channel
(mentioning whoever the game now waits on) when the turn passed, chatter pushed the table up,
the message is too old to edit or the click came from another message. Each decision is a
`TableUpdate` with a sequence number, so an overtaken one is dropped; `bot/display.py`
carries it out in Discord and reports back with `shown`. After a restart, `catch_up`
brings up to date a table that shows an older revision than the stored one. This part owns
what is shown where (`_latest`, `_showing`, `_ended`, `_chatter`, the display locks, the
open private replies); the others ask it for a table and an update, never read those."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TypeVar

import discord

from bot.away_table import mark_table
from bot.errors import CorruptSession
from bot.i18n import SOURCE, _, speaking
from bot.lobby_settings import OWN_SETTINGS
from bot.mentions import mention
from bot.open_replies import OpenReplies, OpenReply
from bot.reach import Reach
from bot.reminders import with_remind_button
from bot.replies import Reply, TableUpdate
from bot.sealed import sealed
from bot.server_settings import ServerSettings
from bot.sessions import Session, Sessions
from bot.tables.base import Rendered, TableAdapter

#: Discord allows only a few edits of a message older than an hour (error 30046): a table
#: message older than this is never edited again; the table is posted afresh instead.
EDIT_WINDOW = 50 * 60
#: The lobby option that keeps the language a game's lobby was opened in (`language`).
LANGUAGE = "language"
#: Games of a channel the display keeps apart (`_latest`, `_showing`): the one played now,
#: the one just ended, and a few before (an update of each may still be on its way).
GAMES_KEPT = 4

V = TypeVar("V")


def remember(per_game: dict[int, dict[float, V]], channel_id: int, game: float, value: V) -> None:
    """Note `value` for one game of a channel, forgetting the channel's oldest games."""
    games = per_game.setdefault(channel_id, {})
    games.pop(game, None)
    games[game] = value
    while len(games) > GAMES_KEPT:
        del games[next(iter(games))]


def message_age(message_id: int, now: float) -> float:
    """Seconds since Discord created the message (its id holds the time, in milliseconds
    since Discord's epoch: `discord.utils.snowflake_time` without making a datetime)."""
    return now - ((message_id >> 22) + discord.utils.DISCORD_EPOCH) / 1000


class TableUpdates:
    """The table message of each channel. Every answer that changes the table goes through
    `on_table` (the answer is the table) or `with_table` (the answer, then the table)."""

    def __init__(
        self,
        sessions: Sessions,
        adapters: dict[str, TableAdapter],
        settings: ServerSettings,
        clock: Callable[[], float],
        repost_after: int,
    ) -> None:
        self.sessions = sessions
        self.adapters = adapters
        self.settings = settings
        self.clock = clock
        self.repost_after = repost_after
        self._display_locks: dict[int, asyncio.Lock] = {}
        self._seq = 0
        # channel -> game (its created_at) -> seq of its newest TableUpdate
        self._latest: dict[int, dict[float, int]] = {}
        # channel -> game -> (updates decided by then, message id) of its table when last shown
        self._showing: dict[int, dict[float, tuple[int, int]]] = {}
        self._ended: dict[int, int] = {}  # channel -> finished game whose final table it shows
        self._chatter: dict[int, int] = {}  # channel -> messages seen below its table
        self.open_replies = OpenReplies()

    def forget(self, channel_id: int) -> None:
        """A game left the memory cache: forget the per-channel things that grow with the
        number of channels ever played (not `_latest` and `_showing`: an update of this
        channel may be on its way to the screen, and they keep it in order and aimed)."""
        lock = self._display_locks.get(channel_id)
        if lock is not None and not lock.locked():
            del self._display_locks[channel_id]
        self.open_replies.forget(channel_id)

    async def table_posted(
        self, channel_id: int, message_id: int, revision: int | None = None
    ) -> TableUpdate | None:
        """Remember which message is the channel's table (a rematch lobby, tests and tools
        that post it). Posted showing an older `revision` (someone joined the rematch lobby
        while it was being posted): the update that brings that message up to date."""
        async with self.sessions.lock(channel_id):
            session = await self.sessions.get(channel_id)
            if session is None:
                return None
            shows = session.revision if revision is None else min(revision, session.revision)
            await self.sessions.table_shown(channel_id, message_id, shows, game=session.created_at)
            remember(self._showing, channel_id, session.created_at, (self._seq, message_id))
            if shows >= session.revision:
                return None
            return self.update(session, await self.render(session))

    def display_lock(self, channel_id: int) -> asyncio.Lock:
        """Held while a channel's table is being shown, so two updates never overlap."""
        lock = self._display_locks.get(channel_id)
        if lock is None:
            lock = self._display_locks[channel_id] = asyncio.Lock()
        return lock

    def overtaken(self, update: TableUpdate) -> bool:
        """A newer update of the same game exists: showing this one would show the past.
        (The next game of the channel overtakes nothing: an ended game's final table is
        shown also when `/start` opened a lobby the moment after.) A final table shown
        already (two presses brought it back at once) is not shown again."""
        newest = self._latest.get(update.channel_id, {}).get(update.game, 0)
        if newest > update.seq:
            return True
        return update.ending is not None and self._ended.get(update.channel_id) == update.ending

    def aimed(self, update: TableUpdate) -> TableUpdate:
        """`update` aimed at the message that shows its game's table now. An update is
        decided with the table message of its moment; when a table posted afresh was still
        on its way then (a bot moved, or someone pressed, as it was being posted), that new
        message is the table to edit or retire, and the one the update was decided with is
        a summary already: editing it would bring a second live table back above it."""
        shown = self._showing.get(update.channel_id, {}).get(update.game)
        if shown is None or shown[0] < update.seq or shown[1] == update.message_id:
            return update  # shown before the update was decided: it knew that message
        return replace(update, message_id=shown[1])

    def shows(self, update: TableUpdate, message_id: int) -> bool:
        """Whether `message_id` is the message that shows `update`'s game now."""
        shown = self._showing.get(update.channel_id, {}).get(update.game)
        return shown is not None and shown[1] == message_id

    def heard(self, channel_id: int, message_id: int) -> bool:
        """A message was posted in a channel: below its table, it pushes the table up.
        True when that makes the table count as out of sight (time to post it again)."""
        session = self.sessions.cached(channel_id)
        if session is None or not session.message_id or message_id <= session.message_id:
            return False
        count = self._chatter[channel_id] = self._chatter.get(channel_id, 0) + 1
        return count == self.repost_after

    async def repost(self, channel_id: int) -> TableUpdate | None:
        """The table posted afresh at the bottom of the channel, if chatter still buries it."""
        async with self.sessions.lock(channel_id):
            session = self.sessions.cached(channel_id)
            if session is None or self._chatter.get(channel_id, 0) < self.repost_after:
                return None
            return self.update(session, await self.render(session), fresh=True)

    def editable(self, message_id: int | None) -> bool:
        return message_id is not None and message_age(message_id, self.clock()) < EDIT_WINDOW

    async def shown(self, update: TableUpdate, message_id: int) -> None:
        """The table of `update` is in the channel as `message_id` (committed, so a restart
        knows the table is current). A final table marks its finished game seen, where the
        bot is no member (it was kept until then, see `Endings.late_ending`)."""
        if update.ending is not None:
            self._ended[update.channel_id] = update.ending
            if update.via is not None:
                await self.sessions.ending_shown(update.ending)
        elif update.revision:
            await self.sessions.table_shown(
                update.channel_id, message_id, update.revision, game=update.game
            )
        # (after the write: an update decided during it was decided with the old message)
        remember(self._showing, update.channel_id, update.game, (self._seq, message_id))
        if message_id != update.message_id:
            # After the write: the new table's own MESSAGE_CREATE may arrive meanwhile.
            self._chatter.pop(update.channel_id, None)

    def language(self, session: Session) -> str:
        """The language of a channel's public table, log and announcements: its server's
        choice (/config language), else what the lobby was opened in (the server's
        preferred locale; outside servers, the host's)."""
        if session.guild_id is not None and OWN_SETTINGS not in session.lobby.options:
            chosen = self.settings.language(session.guild_id)
            if chosen:
                return chosen
        return str(session.lobby.options.get(LANGUAGE) or SOURCE)

    def speaking_to(self, session: Session) -> AbstractContextManager[object]:
        """Make the text of this block in the channel's public language."""
        return speaking(self.language(session))

    def update(
        self,
        session: Session,
        rendered: Rendered,
        *,
        clicked: int | None = None,
        fresh: bool = False,
    ) -> TableUpdate:
        """How to show `rendered`: a fresh post when someone must be told it is their move,
        when chatter pushed the table up, when the table may no longer be edited, or when
        the click came from another message than the table."""
        with self.speaking_to(session):
            return self._public_update(session, rendered, clicked, fresh)

    def _public_update(
        self, session: Session, rendered: Rendered, clicked: int | None, fresh: bool
    ) -> TableUpdate:
        adapter = self.adapters[session.kind]
        # Its one and last table: a finished game's, or one ended early (`/<game> end`).
        over = session.started and (
            adapter.is_finished(session.state) or session.ended is not None
        )
        ping = tuple(session.ping) if over or session.shown_revision < session.revision else ()
        current = session.message_id
        if current is None and clicked is not None:
            # A press on the game's first table while the answer that posted it is still
            # on its way back (Discord shows it to everyone before the bot hears its id):
            # the pressed message is the table, to edit, not to post again.
            current = clicked
        fresh = (
            fresh
            or bool(ping)
            or current is None
            or (clicked is not None and clicked != current)
            or self._chatter.get(session.channel_id, 0) >= self.repost_after
            or not self.editable(current)
        )
        table = rendered
        via = self.sessions.reach(session.channel_id)
        if via is not None and session.started and not over:
            table = _with_limit(table, session, via, self.clock())
        if ping:
            waiting = adapter.waiting_on(session.state) if session.started else {}
            if over:
                waiting = dict.fromkeys(ping, _("the game is over"))
            table = replace(table, content=_ping_text(ping, waiting, table.content))
        # The side messages the commit changed or closed, each shown once.
        retouch, session.retouch = session.retouch, []
        sides = tuple((m, adapter.side_message(session, key)) for m, key in retouch)
        privates = self._privates(session, adapter)
        self._seq += 1
        remember(self._latest, session.channel_id, session.created_at, self._seq)
        return TableUpdate(
            channel_id=session.channel_id,
            revision=session.revision,
            table=table,
            message_id=current,
            fresh=fresh,
            # (an edit needs one too, should it find the table posted afresh meanwhile)
            summarize=_summary_later(adapter, session, rendered),
            ping=ping,
            seq=self._seq,
            via=via,
            game=session.created_at,
            ending=session.ended,
            sides=sides,
            privates=privates,
        )

    def _privates(
        self, session: Session, adapter: TableAdapter
    ) -> tuple[tuple[OpenReply, Rendered], ...]:
        """The open private replies of the players whose step the commit changed, each
        with what it shows now, in its reader's language (`Session.refresh`)."""
        refresh, session.refresh = session.refresh, []
        if not session.started or adapter.is_finished(session.state):
            return ()
        out = []
        now = time.time()  # (Discord's clock: a token's life is counted in it)
        for user_id in refresh:
            reply = self.open_replies.of(session.channel_id, user_id, session.created_at, now)
            if reply is None:
                continue
            with speaking(reply.locale):
                shown = adapter.private(session, user_id, "hand")
            if shown is not None:
                out.append((reply, shown))
        return tuple(out)

    async def side_posted(
        self, channel_id: int, game: float, key: str, message_id: int
    ) -> Rendered | None:
        """A side message (a foul vote's, `Rendered.side`) was posted as `message_id`: kept
        with the game (stored at once, so a restarted bot still edits it when the decision
        closes). When it closed while the message was on its way (a bot voted): what the
        message shows instead."""
        async with self.sessions.lock(channel_id):
            session = await self.sessions.get(channel_id)
            if session is None or session.created_at != game or not session.started:
                return None
            adapter = self.adapters[session.kind]
            if key not in adapter.side_messages(session.state):
                with self.speaking_to(session):
                    return adapter.side_message(session, key)
            session.side = {**session.side, key: message_id}
            await self.sessions.note(session)
            return None

    async def catch_up(self, channel_id: int) -> TableUpdate | None:
        """After a restart: the update that shows the stored state, when the table message
        in the channel shows an older one (the process died between a commit and the edit)."""
        async with self.sessions.lock(channel_id):
            try:
                session = await self.sessions.get(channel_id, fresh=True)
            except CorruptSession:
                return None
            if session is None or session.shown_revision >= session.revision:
                return None
            return self.update(session, await self.render(session))

    async def render(self, session: Session) -> Rendered:
        """The channel's table as it stands: the game, or the lobby before it starts."""
        if session.started:
            return self.table(session)
        adapter = self.adapters[session.kind]
        settings = await self.settings.of(session)
        with self.speaking_to(session):
            return adapter.render_lobby(session, settings)

    def table(self, session: Session) -> Rendered:
        """A started game's table: the adapter's, with the commitment of its sealed draws
        and who is away (bot/away_table.py), in the channel's language."""
        adapter = self.adapters[session.kind]
        with self.speaking_to(session):
            rendered = sealed(adapter.render(session), session, adapter)
            far = self.sessions.reach(session.channel_id) is not None
            marked = mark_table(rendered, session, self.clock())
            return with_remind_button(marked, session, self.clock(), far=far)

    def on_table(
        self,
        session: Session,
        rendered: Rendered,
        *,
        clicked: int | None = None,
        fresh: bool = False,
    ) -> Reply:
        """The answer is the table itself (a click on it, /start, /status)."""
        update = self.update(session, rendered, clicked=clicked, fresh=fresh)
        return Reply.of_table(rendered, edit=clicked is not None, update=update, on_table=True)

    def with_table(self, reply: Reply, session: Session, rendered: Rendered) -> Reply:
        """`reply`, followed by the channel's table brought up to date."""
        reply.update = self.update(session, rendered)
        return reply


def _summary_later(
    adapter: TableAdapter, session: Session, rendered: Rendered
) -> Callable[[], Rendered | None]:
    """`adapter.summary(session, rendered)` as it is now (the game's state, the table's
    title, the language and markdown of this moment: `contextvars`), made when first asked
    for, once: most moves edit the table in place and never retire a message."""
    if not session.started:
        return _no_summary
    return _Summary(contextvars.copy_context(), adapter, session.state, rendered.embed.title)


def _no_summary() -> None:
    return None


class _Summary:
    """`TableAdapter.summary_of` of a moment (`_summary_later`), made on the first call."""

    __slots__ = ("adapter", "context", "made", "state", "title")

    def __init__(
        self, context: contextvars.Context, adapter: TableAdapter, state: object, title: str | None
    ) -> None:
        self.context, self.adapter, self.state, self.title = context, adapter, state, title
        self.made: Rendered | None = None

    def __call__(self) -> Rendered:
        if self.made is None:
            self.made = self.context.run(self.adapter.summary_of, self.state, self.title)
        return self.made


def _with_limit(table: Rendered, session: Session, via: Reach, now: float) -> Rendered:
    """Where the bot is no member, it can show the table only through a press made in the
    last quarter hour: a deadline after that (a turn timer) plays on the stored game, but
    its table waits for the next press. Say so on the table, so nobody waits for nothing."""
    closes = via.closes(now)
    if session.deadline is None or (closes is not None and session.deadline <= closes):
        return table
    note = _(
        "-# The bot can update this table only when someone presses a button here: if the "
        "timer runs out first, press any button or use {command}.",
        command=mention(session.kind + " status"),
    )
    return replace(table, content="\n".join(filter(None, [table.content, note])))


def _ping_text(ping: tuple[int, ...], waiting: dict[int, str], content: str | None) -> str:
    """`<@a>, your turn.` per player (grouped by what they are asked), above any text the
    table already had."""
    asks: dict[str, list[int]] = {}
    for user in ping:
        asks.setdefault(waiting.get(user) or _("your move"), []).append(user)
    lines = [
        # Translators: whom the table calls, and what it asks of them ("<@1>: your move.").
        _("{players}: {asked}.", players=" ".join(f"<@{u}>" for u in users), asked=what)
        for what, users in asks.items()
    ]
    return "\n".join([*lines, *([content] if content else [])])
