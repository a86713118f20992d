"""The table service: every slash command and click, for every game, goes through here.

It holds no Discord objects of the caller; it takes who acted and what they pressed, applies
the move under the channel's lock, commits it, and returns what to show. The cogs and the
component handler only translate Discord interactions to these calls and send the replies."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import discord
from pydantic import ValidationError

from bot.components import Click, TableItem, button, view_of
from bot.config import REPOST_AFTER
from bot.errors import CorruptSession, NoSession, StaleTable, UserError
from bot.mentions import mention
from bot.pictures.story import story_picture
from bot.players import people
from bot.sessions import Session, Sessions, state_json
from bot.settings import GuildSettings
from bot.store import FinishedGame, Store
from bot.tables.base import EMBED_COLOUR, Move, Rendered, TableAdapter
from games.bots import bot_seats
from games.errors import NotInGame
from games.lobby import Lobby, Seat
from games.numbers import number

log = logging.getLogger(__name__)

LOBBY_ACTIONS = frozenset({"join", "leave", "start", "cancel", "addbot", "dropbot"})
#: Why a game ends when the last person leaves it: bots never play on their own.
ONLY_BOTS = "no person is left at the table"
#: Discord allows only a few edits of a message older than an hour (error 30046): a table
#: message older than this is never edited again; the table is posted afresh instead.
EDIT_WINDOW = 50 * 60


@dataclass(frozen=True)
class Actor:
    """Who pressed or typed: their id, the name the table shows, and Manage Server."""

    id: int
    name: str
    is_admin: bool = False


def message_age(message_id: int, now: float) -> float:
    """Seconds since Discord created the message (its id holds the time)."""
    return now - discord.utils.snowflake_time(message_id).timestamp()


@dataclass
class TableUpdate:
    """How to bring one channel's table up to date: edit the message that shows it, or post
    it afresh (mentioning `ping`) and reduce the older message to `summary`. `seq` orders the
    updates of a channel: one that a newer update overtook is dropped (the newer one shows
    more), so quick moves never leave an older state on the table."""

    channel_id: int
    revision: int
    table: Rendered
    message_id: int | None
    fresh: bool
    summary: Rendered | None = None
    ping: tuple[int, ...] = ()
    seq: int = 0


@dataclass
class Reply:
    """What to answer an interaction with.

    `edit` answers a click by updating the clicked message; otherwise a new message is sent
    (ephemeral when `ephemeral`). `update` brings the channel's table up to date: through the
    answer itself when `on_table` (the click was on the table), otherwise afterwards."""

    content: str | None = None
    embed: discord.Embed | None = None
    items: list[TableItem] | None = None
    ephemeral: bool = False
    edit: bool = False
    update: TableUpdate | None = None
    on_table: bool = False
    followups: list[Reply] = field(default_factory=list)

    def view(self) -> discord.ui.View | None:
        return None if self.items is None else view_of(self.items)

    @property
    def table(self) -> Rendered | None:
        """The table this reply brings the channel to."""
        return None if self.update is None else self.update.table

    @property
    def table_message_id(self) -> int | None:
        return None if self.update is None else self.update.message_id

    @classmethod
    def private(cls, text: str) -> Reply:
        return cls(content=text, ephemeral=True)

    @classmethod
    def of_table(cls, rendered: Rendered, **kw: object) -> Reply:
        return cls(content=rendered.content, embed=rendered.embed, items=rendered.items, **kw)  # type: ignore[arg-type]


@dataclass
class Rematch:
    """What a Rematch press shows: the new lobby, posted as a new message whose content
    invites (mentions) the other players of the finished game, and what is left of the
    finished table's buttons."""

    lobby: Rendered
    invited: list[int]
    channel_id: int
    finished_items: list[TableItem]

    def allowed_mentions(self) -> discord.AllowedMentions:
        """Ping exactly the invited players: nobody else, no role, not @everyone."""
        return only_mentioning(self.invited)


class _MentionedUser:
    """A user for AllowedMentions whose id goes out as a string, as Discord's API description
    types snowflakes in request bodies (with discord.Object, discord.py sends the int)."""

    __slots__ = ("id",)

    def __init__(self, user_id: int) -> None:
        self.id = str(user_id)


def only_mentioning(users: Iterable[int]) -> discord.AllowedMentions:
    """Allowed mentions that notify exactly `users`: nobody else, no role, not @everyone
    (nobody at all when `users` is empty)."""
    ids = list(users)
    if not ids:
        return discord.AllowedMentions.none()
    return discord.AllowedMentions(
        users=[_MentionedUser(i) for i in ids],  # type: ignore[misc]
        everyone=False,
        roles=False,
        replied_user=False,
    )


def duration(seconds: int) -> str:
    """'15 minutes', '1 minute', '2 hours', '90 seconds'."""
    if seconds >= 7200 and seconds % 3600 == 0:
        return f"{seconds // 3600} hours"
    if seconds % 60 == 0:
        minutes = seconds // 60
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds} seconds"


@dataclass
class Tables:
    store: Store
    adapters: dict[str, TableAdapter]
    defaults: GuildSettings = field(default_factory=GuildSettings)
    rng: random.Random = field(default_factory=random.SystemRandom)
    clock: Callable[[], float] = time.time
    on_deadline: Callable[[], None] = lambda: None

    repost_after: int = REPOST_AFTER
    cached_games: int = 2000

    def __post_init__(self) -> None:
        self.sessions = Sessions(
            self.store, self.adapters, limit=self.cached_games, on_evict=self._evicted
        )
        self._settings: dict[int, GuildSettings] = {}
        self._display_locks: dict[int, asyncio.Lock] = {}
        self._seq = 0
        self._latest: dict[int, int] = {}  # channel -> seq of its newest TableUpdate
        self._chatter: dict[int, int] = {}  # channel -> messages seen below its table
        # channel -> (stamp, user, action) of the click that last closed a decision there,
        # so the same player's second tap of that button (a double tap) is not refused.
        self._closed: dict[int, tuple[int, int, str]] = {}
        self._background: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------ settings


    def _prepare_bots(self, adapter: TableAdapter, state: Any) -> None:
        """Run what readies the adapter's bots off the event loop, if anything (a failure is
        logged: the bots then play without what it prepares)."""
        work = adapter.bot_preparation(state)
        if work is None:
            return

        async def prepare() -> None:
            try:
                await asyncio.to_thread(work)
            except Exception:
                log.exception("Could not prepare the %s bot players", adapter.kind)

        task = asyncio.create_task(prepare(), name=f"prepare-bots-{adapter.kind}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _evicted(self, channel_id: int) -> None:
        """A game left the memory cache: forget the per-channel things that grow with the
        number of channels ever played (not `_latest`: an update of this channel may be on
        its way to the screen, and its sequence number is what keeps it in order)."""
        lock = self._display_locks.get(channel_id)
        if lock is not None and not lock.locked():
            del self._display_locks[channel_id]
        self._closed.pop(channel_id, None)

    async def settings(self, guild_id: int | None) -> GuildSettings:
        if guild_id is None:
            return self.defaults
        cached = self._settings.get(guild_id)
        if cached is not None:
            return cached
        raw = await self.store.load_settings(guild_id)
        settings = self.defaults
        if raw is not None:
            try:
                settings = GuildSettings.model_validate(
                    {**self.defaults.model_dump(), **json.loads(raw)}
                )
            except (ValueError, ValidationError):
                log.error("Settings row for guild %s is damaged; using the defaults", guild_id)
        if self.store.serves(guild_id):  # another process's guild: read afresh each time
            self._settings[guild_id] = settings
        return settings

    async def save_settings(self, guild_id: int, settings: GuildSettings) -> None:
        await self.store.save_settings(guild_id, settings.model_dump_json())
        if self.store.serves(guild_id):
            self._settings[guild_id] = settings

    # ------------------------------------------------------------ lobby

    async def open_lobby(
        self,
        actor: Actor,
        guild_id: int | None,
        channel_id: int,
        kind: str,
        options: dict[str, object],
    ) -> Reply:
        adapter = self.adapters[kind]
        settings = await self.settings(guild_id)
        options = {k: v for k, v in options.items() if v is not None}
        bots = options.pop("bots", 0)
        async with self.sessions.lock(channel_id):
            await self._refuse_busy(channel_id, actor)
            chosen = adapter.lobby_options(settings, options)
            most = adapter.lobby_max_players(chosen) - 1
            if not isinstance(bots, int) or not 0 <= bots <= most:
                raise UserError(f"A {adapter.title} table takes 0 to {most} bots besides you.")
            session = await self._save_lobby(
                actor, guild_id, channel_id, adapter, chosen, settings, bots=bots
            )
            return self._on_table(session, adapter.render_lobby(session, settings), fresh=True)

    async def rematch(self, actor: Actor, click: Click) -> Rematch:
        """The Rematch button of a finished table: a new lobby of the same game with the same
        options (the finished-games row keeps them) and the presser in it, which invites the
        other players of that game. Only they, or a server manager, may press it."""
        game_id = number(click.arg)
        record = None if game_id is None else await self.store.finished_game(game_id)
        if (
            record is None
            or record["channel_id"] != click.channel_id
            or record["kind"] != click.kind
            or click.kind not in self.adapters
        ):
            raise UserError(
                f"I have no record of that game: start a new one with "
                f"{mention(click.kind + ' start')}."
            )
        adapter = self.adapters[click.kind]
        previous = [int(p["id"]) for p in record["players"]]  # type: ignore[attr-defined]
        bots = len(record["bots"])  # type: ignore[arg-type]
        if actor.id not in previous and not actor.is_admin:
            raise UserError(
                "Only the players of that game (or a server manager) can ask for a rematch. "
                f"Start a game of your own with {mention(click.kind + ' start')}."
            )
        guild_id = record["guild_id"]
        assert guild_id is None or isinstance(guild_id, int)
        settings = await self.settings(guild_id)
        async with self.sessions.lock(click.channel_id):
            await self._refuse_busy(click.channel_id, actor)
            kept = record["lobby"]
            options = dict(kept) if isinstance(kept, dict) else adapter.lobby_options(settings, {})
            session = await self._save_lobby(
                actor, guild_id, click.channel_id, adapter, options, settings, bots=bots
            )
        invited = [i for i in dict.fromkeys(people(previous)) if i != actor.id]
        lobby = adapter.render_lobby(session, settings)
        ping = "".join(f"<@{i}> " for i in invited).rstrip()
        lobby.content = (
            f"{ping + ': ' if ping else ''}{actor.name} wants a rematch of {adapter.title}: "
            "join below."
        )
        spent = button(
            click.kind,
            "rematch",
            click.channel_id,
            click.game,
            click.stamp,
            "Rematch opened below",
            arg=click.arg,
            disabled=True,
        )
        return Rematch(
            lobby=lobby, invited=invited, channel_id=click.channel_id, finished_items=[spent]
        )

    async def _refuse_busy(self, channel_id: int, actor: Actor) -> None:
        """One game per channel: a private refusal naming the one already there. A stored
        game that cannot be loaded is refused with what is wrong, unless a server manager
        starts: then it is set aside (kept in `damaged_sessions`) and the channel is free."""
        try:
            running = await self.sessions.get(channel_id)
        except CorruptSession as damaged:
            if not actor.is_admin:
                raise
            await self._set_aside(channel_id, damaged, actor)
            return
        if running is not None:  # loaded, so its kind is one of ours
            raise UserError(
                f"A game of {self.adapters[running.kind].title} is already running in this "
                f"channel. Finish it, or end it with {mention(running.kind + ' end')}."
            )

    async def _save_lobby(
        self,
        actor: Actor,
        guild_id: int | None,
        channel_id: int,
        adapter: TableAdapter,
        options: dict[str, object],
        settings: GuildSettings,
        *,
        bots: int = 0,
    ) -> Session:
        """A new lobby with `actor` in it (the host) and `bots` bots; it closes by itself
        when nobody has started it `lobby_timeout` seconds after it opened (see `expire`)."""
        now = self.clock()
        lobby = Lobby(
            starter=actor.id,
            players=[Seat(id=actor.id, name=actor.name)],
            min_players=adapter.min_players,
            max_players=adapter.lobby_max_players(options),
            options=options,
        )
        for _ in range(bots):
            lobby.add_bot()
        session = Session(
            channel_id=channel_id,
            guild_id=guild_id,
            kind=adapter.kind,
            lobby=lobby,
            created_at=now,
            deadline=now + settings.lobby_timeout,
        )
        await self.sessions.save(session)
        self.on_deadline()
        return session

    async def table_posted(self, channel_id: int, message_id: int) -> None:
        """Remember which message is the channel's table (tests and tools that post it)."""
        async with self.sessions.lock(channel_id):
            session = await self.sessions.get(channel_id)
            if session is not None:
                await self.sessions.table_shown(channel_id, message_id, session.revision)

    # ------------------------------------------------------------ the table message

    def display_lock(self, channel_id: int) -> asyncio.Lock:
        """Held while a channel's table is being shown, so two updates never overlap."""
        lock = self._display_locks.get(channel_id)
        if lock is None:
            lock = self._display_locks[channel_id] = asyncio.Lock()
        return lock

    def overtaken(self, update: TableUpdate) -> bool:
        """A newer update of the same channel exists: showing this one would show the past."""
        return self._latest.get(update.channel_id, 0) > update.seq

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
            return self._update(session, await self._render(session), fresh=True)

    def editable(self, message_id: int | None) -> bool:
        return message_id is not None and message_age(message_id, self.clock()) < EDIT_WINDOW

    async def shown(self, update: TableUpdate, message_id: int) -> None:
        """The table of `update` is in the channel as `message_id` (committed, so a restart
        knows the table is current)."""
        if update.revision:
            await self.sessions.table_shown(update.channel_id, message_id, update.revision)
        if message_id != update.message_id:
            # After the write: the new table's own MESSAGE_CREATE may arrive meanwhile.
            self._chatter.pop(update.channel_id, None)

    def _update(
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
        adapter = self.adapters[session.kind]
        over = session.started and adapter.is_finished(session.state)  # its one and last table
        ping = tuple(session.ping) if over or session.shown_revision < session.revision else ()
        current = session.message_id
        fresh = (
            fresh
            or bool(ping)
            or current is None
            or (clicked is not None and clicked != current)
            or self._chatter.get(session.channel_id, 0) >= self.repost_after
            or not self.editable(current)
        )
        table = rendered
        if ping:
            waiting = adapter.waiting_on(session.state) if session.started else {}
            if over:
                waiting = dict.fromkeys(ping, "the game is over")
            table = replace(rendered, content=_ping_text(ping, waiting, rendered.content))
        self._seq += 1
        self._latest[session.channel_id] = self._seq
        return TableUpdate(
            channel_id=session.channel_id,
            revision=session.revision,
            table=table,
            message_id=current,
            fresh=fresh,
            summary=adapter.summary(session, rendered) if fresh else None,
            ping=ping,
            seq=self._seq,
        )

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
            return self._update(session, await self._render(session))

    # ------------------------------------------------------------ clicks

    async def click(
        self,
        actor: Actor,
        click: Click,
        message_id: int | None,
        *,
        ephemeral: bool = False,
        owner: int | None = None,
    ) -> Reply:
        """A button or select: on the table, on an ephemeral reply, or on a vote message.
        `owner` is whom a clicked ephemeral was sent to (None: the clicker). A click on
        somebody else's ephemeral (a forged one) is answered with a fresh private reply:
        the clicker's secrets never overwrite another user's message."""
        # Whether the answer may update the clicked ephemeral in place.
        edit_private = ephemeral and owner in (None, actor.id)
        async with self.sessions.lock(click.channel_id):
            session = await self._session(click.channel_id, click.kind)
            adapter = self.adapters[session.kind]
            if session.kind != click.kind or session.game_id != click.game:
                raise UserError("That button belongs to a game that is over.")
            on_table = not ephemeral and click.action not in adapter.off_table_actions
            # Only lobby clicks change the lobby; a copy keeps the cache clean if saving fails.
            lobby_click = click.action in LOBBY_ACTIONS
            work = replace(
                session,
                lobby=session.lobby.model_copy(deep=True) if lobby_click else session.lobby,
            )
            settings = await self.settings(session.guild_id)
            if lobby_click:
                if session.started:
                    if actor.id in adapter.player_ids(session.state):
                        raise UserError(
                            "The game has already started: use the buttons on the table."
                        )
                    raise UserError(
                        "The game has already started without you. Wait for the next one, "
                        "or start one elsewhere."
                    )
                return await self._lobby_click(
                    actor, work, adapter, settings, click.action, message_id
                )
            if not session.started:
                raise UserError("The game has not started yet.")
            if actor.id not in adapter.player_ids(session.state):
                raise NotInGame(
                    "You are not in this game. Wait for the next one, or start one elsewhere."
                )
            if click.stamp != adapter.stamp_of(session.state, click.action, click.arg):
                if on_table and self._closed.get(click.channel_id) == (
                    click.stamp,
                    actor.id,
                    click.action,
                ):
                    # The same player's second tap of the button that just moved the game
                    # on (a double tap): show the table again rather than refuse it.
                    return self._on_table(session, adapter.render(session), clicked=message_id)
                raise StaleTable(private=ephemeral)
            if click.action in adapter.read_only_actions:
                shown = adapter.private(session, actor.id, click.action, click.arg, click.values)
                if shown is None:
                    raise UserError("There is nothing to show you right now.")
                # From the clicker's ephemeral: update it in place; else a new one.
                return Reply.of_table(shown, ephemeral=True, edit=edit_private)
            move = Move(
                user_id=actor.id,
                action=click.action,
                arg=click.arg,
                values=click.values,
                now=self.clock(),
                is_admin=actor.is_admin,
            )
            work.state = adapter.apply(session.state, move, self.rng)
            # Asked for what already is: nothing to commit.
            if state_json(work) == state_json(session):
                work = session
                rendered = adapter.render(session)
            else:
                rendered = await self._commit(work, adapter, settings, actor.id, session.state)
                if adapter.stamp_of(work.state, click.action, click.arg) != click.stamp:
                    self._closed[click.channel_id] = (click.stamp, actor.id, click.action)
            secret = (
                None
                if adapter.is_finished(work.state)
                else adapter.private(work, actor.id, click.action, click.arg, click.values)
            )
            if on_table:
                reply = self._on_table(work, rendered, clicked=message_id)
            else:
                after = adapter.message_after(work, actor.id, click.action, click.arg)
                answer = (
                    Reply.of_table(after, ephemeral=True)  # never into someone else's reply
                    if ephemeral and not edit_private
                    else Reply.of_table(after, edit=True)
                )
                reply = self._with_table(answer, work, rendered)
            if secret is not None:
                reply.followups.append(Reply.of_table(secret, ephemeral=True))
            ping = adapter.announce(work, actor.id, click.action, click.values)
            if ping is not None:
                if reply.update is not None and ping.content:
                    # Whoever the fresh table already calls is not called twice at once.
                    ping = replace(ping, content=_unmention(ping.content, reply.update.ping))
                reply.followups.append(Reply.of_table(ping))
            return reply

    async def command(
        self, actor: Actor, channel_id: int, kind: str, action: str, arg: str | None = None
    ) -> Reply:
        """A move made with a slash command rather than a button (e.g. calling a foul). The
        answer is a public message (from `message_after`) and the table is brought up to date."""
        async with self.sessions.lock(channel_id):
            session = await self._session(channel_id, kind)
            adapter = self.adapters[session.kind]
            if session.kind != kind:
                raise UserError(
                    f"The game here is {adapter.title}: its table is at "
                    f"{mention(session.kind + ' status')}."
                )
            if not session.started:
                raise UserError("The game has not started yet.")
            if actor.id not in adapter.player_ids(session.state) and not actor.is_admin:
                raise NotInGame("You are not in this game.")
            settings = await self.settings(session.guild_id)
            work = replace(session)  # the lobby is not changed here
            move = Move(
                user_id=actor.id, action=action, arg=arg, now=self.clock(), is_admin=actor.is_admin
            )
            work.state = adapter.apply(session.state, move, self.rng)
            rendered = await self._commit(work, adapter, settings, actor.id, session.state)
            after = adapter.message_after(work, actor.id, action, arg)
            return self._with_table(Reply.of_table(after), work, rendered)

    async def _lobby_click(
        self,
        actor: Actor,
        work: Session,
        adapter: TableAdapter,
        settings: GuildSettings,
        action: str,
        message_id: int | None,
    ) -> Reply:
        lobby = work.lobby
        if action == "join":
            lobby.join(Seat(id=actor.id, name=actor.name))
        elif action in ("addbot", "dropbot"):
            lobby.check_bots(actor.id, actor.is_admin)
            if action == "addbot":
                lobby.add_bot()
            else:
                lobby.remove_bot()
        elif action == "leave":
            lobby.leave(actor.id)  # the host's leaving hands the lobby to the earliest player
            if not lobby.players:
                await self.sessions.delete(work.channel_id)
                return Reply(
                    content="Everyone left: the lobby is closed.", embed=None, items=[], edit=True
                )
        elif action == "cancel":
            lobby.check_cancel(actor.id, actor.is_admin)
            await self.sessions.delete(work.channel_id)
            return Reply(
                content=f"{actor.name} cancelled the {adapter.title} lobby.",
                embed=None,
                items=[],
                edit=True,
            )
        elif action == "start":
            lobby.check_start(actor.id, actor.is_admin)
            work.state = adapter.new_game(lobby, settings, self.rng)
            rendered = await self._commit(work, adapter, settings)
            self._prepare_bots(adapter, work.state)
            return self._on_table(work, rendered, clicked=message_id)
        await self.sessions.save(work)
        return self._on_table(work, adapter.render_lobby(work, settings), clicked=message_id)

    # ------------------------------------------------------------ commands

    async def leave(self, actor: Actor, channel_id: int, kind: str) -> Reply:
        async with self.sessions.lock(channel_id):
            session = await self._session(channel_id, kind)
            adapter = self.adapters[session.kind]
            settings = await self.settings(session.guild_id)
            work = replace(session, lobby=session.lobby.model_copy(deep=True))
            if not session.started:
                host = work.lobby.leave(actor.id)
                if not work.lobby.players:
                    await self.sessions.delete(channel_id)
                    return self._with_table(
                        Reply(content=f"{actor.name} left; the lobby is closed."),
                        session,
                        Rendered(embed=discord.Embed(title=f"{adapter.title}: lobby closed")),
                    )
                await self.sessions.save(work)
                handed = f" {host.name} is the host now." if host is not None else ""
                return self._with_table(
                    Reply(content=f"{actor.name} left the lobby.{handed}"),
                    work,
                    adapter.render_lobby(work, settings),
                )
            if actor.id not in adapter.player_ids(session.state):
                raise NotInGame("You are not in this game.")
            work.state = adapter.remove_player(session.state, actor.id)
            rendered = await self._commit(work, adapter, settings, actor.id, session.state)
            return self._with_table(
                Reply(content=f"{actor.name} left the {adapter.title} game."), work, rendered
            )

    async def end(self, actor: Actor, channel_id: int, kind: str) -> Reply:
        """End the channel's game early: its starter or a server manager. A stored game that
        cannot be loaded is cleared by any game's /end (by its host, when the row still says
        who that was, or a server manager) and kept aside in `damaged_sessions`."""
        async with self.sessions.lock(channel_id):
            try:
                session = await self.sessions.get(channel_id)
            except CorruptSession as damaged:
                if actor.id != damaged.starter and not actor.is_admin:
                    raise
                await self._set_aside(channel_id, damaged, actor)
                return Reply(
                    content=f"{actor.name} cleared the saved game in this channel, which could "
                    f"not be loaded; it is kept aside. Start a new one with {mention(kind + ' start')}."
                )
            if session is None:
                raise NoSession("There is no game running in this channel.")
            if session.kind != kind:
                raise UserError(
                    f"The game here is {self.adapters[session.kind].title}: use "
                    f"{mention(session.kind + ' end')}."
                )
            adapter = self.adapters[kind]
            if actor.id != session.lobby.starter and not actor.is_admin:
                raise UserError("Only the host of this game (or a server manager) can end it.")
            if not session.started:
                await self.sessions.delete(channel_id)
                return self._with_table(
                    Reply(content=f"{actor.name} cancelled the {adapter.title} lobby."),
                    session,
                    Rendered(embed=discord.Embed(title=f"{adapter.title}: lobby cancelled")),
                )
            # Everything that could fail is done before the commit: once the game is recorded
            # as ended, the answer says so.
            result = adapter.outcome(session.state)
            record = self._record(session, adapter, ended_by=actor.name)
            final = adapter.render(session)
            game_id = await self.sessions.finish(session, record)
            final.picture = await self._story(session)
            final.items, final.content = [], None
            session.ping = []  # nobody is waited on in an ended game
            final.embed.description = f"**Game ended early by {actor.name}.**"
            final.embed.set_footer(text=adapter.finished_footer())
            self._add_rematch(final, session, game_id)
            return self._with_table(
                Reply(
                    content=f"{actor.name} ended the {adapter.title} game. Standings: "
                    + ", ".join(
                        f"{p['name']} {result.scores[str(p['id'])]}" for p in result.players
                    )
                ),
                session,
                final,
            )

    async def status(self, channel_id: int, kind: str) -> Reply:
        """The live table, posted afresh at the bottom of the channel with its buttons."""
        async with self.sessions.lock(channel_id):
            session = await self._session(channel_id, kind)
            return self._on_table(session, await self._render(session), fresh=True)

    async def rules(
        self, guild_id: int | None, channel_id: int, kind: str, preset: str | None
    ) -> Reply:
        settings = await self.settings(guild_id)
        try:
            session = await self.sessions.get(channel_id)
        except CorruptSession:
            session = None
        return Reply(
            embed=self.adapters[kind].rules_embed(settings, session, preset), ephemeral=True
        )

    # ------------------------------------------------------------ timers

    async def expire(self, channel_id: int) -> Reply | None:
        """Play the safe move for whoever's turn deadline passed, and close whatever else of
        the game's ran out (votes); None when nothing was due. The stored game is read
        afresh: with a shared database, another process may have moved it meanwhile."""
        async with self.sessions.lock(channel_id):
            try:
                session = await self.sessions.get(channel_id, fresh=True)
            except CorruptSession:
                await self.store.clear_deadline(channel_id)
                return None
            now = self.clock()
            if session is None or session.deadline is None:
                return None
            if session.deadline > now:
                return None
            if not session.started:
                return await self._close_lobby(session)
            adapter = self.adapters[session.kind]
            settings = await self.settings(session.guild_id)
            work = replace(session)  # the lobby is not changed here
            state = adapter.expire_extra(session.state, now, self.rng)
            turn_over = session.turn_deadline is not None and session.turn_deadline <= now
            if turn_over and not adapter.is_finished(state):
                # The absent player's move is the bot player's (the policy may take a while).
                chooser = adapter.chooser(self.rng, now)
                state = await asyncio.to_thread(adapter.timeout, state, self.rng, now, chooser)
            bots_due = session.bot_deadline is not None and session.bot_deadline <= now
            moved: list[int] = []
            if bots_due and not adapter.is_finished(state):
                state, moved = await asyncio.to_thread(self._bots_move, adapter, state, now)
            work.state = state
            if not turn_over:
                work.turn_deadline = session.turn_deadline
            clock_holder = adapter.on_clock(session.state)
            rendered = await self._commit(
                work,
                adapter,
                settings,
                clock_holder if clock_holder in moved else None,
                before=session.state,
                restart_clock=turn_over,
                # Bots that were asked and had nothing to do are not asked again until
                # the game moves on.
                bots_idle=bots_due and not moved,
            )
            return self._with_table(Reply(), work, rendered)

    def _bots_move(self, adapter: TableAdapter, state: Any, now: float) -> tuple[Any, list[int]]:
        """Every bot that can move makes its move (several may, in a vote or a bluff
        window); returns the state and the bots that moved. A bot whose policy fails or
        makes a refused move is logged and, when the game waits on it alone, plays the
        engine's timeout move, so the game never waits on a bot for ever."""
        moved = []
        for seat in bot_seats(adapter.player_ids(state)):
            if adapter.is_finished(state) or not adapter.can_act(state, seat):
                continue
            try:
                after = adapter.bot_move(state, seat, self.rng, now)
            except Exception:
                log.exception("The %s bot in seat %s failed to move", adapter.kind, seat)
                if adapter.clock_holders(state) != [seat]:
                    continue
                after = adapter.timeout(state, self.rng, now)
            if after != state:
                moved.append(seat)
            state = after
        return state, moved

    # ------------------------------------------------------------ internals

    async def _set_aside(self, channel_id: int, damaged: CorruptSession, actor: Actor) -> None:
        await self.store.set_aside(channel_id, damaged.reason, actor.id)
        self.sessions._forget(channel_id)
        log.info("Stored game of channel %s set aside (%s)", channel_id, damaged.reason)

    async def _session(self, channel_id: int, kind: str) -> Session:
        session = await self.sessions.get(channel_id)
        if session is None:
            raise NoSession(
                "There is no game running in this channel. Start one with "
                f"{mention(kind + ' start')}."
            )
        return session

    async def _commit(
        self,
        work: Session,
        adapter: TableAdapter,
        settings: GuildSettings,
        actor_id: int | None = None,
        before: Any = None,
        *,
        restart_clock: bool = False,
        bots_idle: bool = False,
    ) -> Rendered:
        """Save a started game (or record it when finished), then render it.

        The turn clock restarts when the player it waits for changes, when that player
        moved, or after a timeout; a bystander's move (a peek, a vote) leaves it running.
        Bots that can move are due `bot_delay` seconds later (a deadline like the turn
        clock's, so a restart keeps it); a game with no person left ends with no winner."""
        if not adapter.is_finished(work.state) and not people(adapter.present_ids(work.state)):
            work.state = adapter.abandon(work.state, ONLY_BOTS)
        before_waiting = {} if before is None else adapter.waiting_on(before)
        work.ping = people(u for u in adapter.waiting_on(work.state) if u not in before_waiting)
        if adapter.is_finished(work.state):
            work.deadline = work.turn_deadline = work.bot_deadline = None
            # The end is news for every person still at the table: the final table is posted
            # afresh mentioning them (an edit notifies nobody); not bots, nor who left.
            work.ping = people(adapter.present_ids(work.state))
            game_id = await self.sessions.finish(work, self._record(work, adapter))
            final = adapter.render(work)
            final.picture = await self._story(work)
            return self._add_rematch(final, work, game_id)
        on_clock = adapter.on_clock(work.state)
        timer = settings.turn_timer
        if not timer or on_clock is None:
            work.turn_deadline = None
        else:
            waited_for = None if before is None else adapter.on_clock(before)
            if (
                restart_clock
                or before is None
                or work.turn_deadline is None
                or actor_id == waited_for
                or on_clock != waited_for
            ):
                work.turn_deadline = self.clock() + timer
        bots_ready = not bots_idle and any(
            adapter.can_act(work.state, seat)
            for seat in bot_seats(adapter.player_ids(work.state))
        )
        work.bot_deadline = self.clock() + settings.bot_delay if bots_ready else None
        deadlines = [
            d
            for d in (work.turn_deadline, adapter.extra_deadline(work.state), work.bot_deadline)
            if d is not None
        ]
        work.deadline = min(deadlines, default=None)
        await self.sessions.save(work)
        if work.deadline is not None:
            self.on_deadline()
        return adapter.render(work)

    async def _story(self, session: Session) -> bytes | None:
        """The finished game's picture, drawn in a thread (never on the event loop, which
        answers everyone's clicks meanwhile); None, and play goes on, if drawing fails."""
        try:
            return await asyncio.to_thread(story_picture, session.kind, session.state)
        except Exception:
            log.exception("Could not draw the story of the game in channel %s", session.channel_id)
            return None

    def _record(
        self, session: Session, adapter: TableAdapter, ended_by: str | None = None
    ) -> FinishedGame:
        """The finished-games row; a game ended early has no winner."""
        result = adapter.outcome(session.state)
        return FinishedGame(
            guild_id=session.guild_id,
            channel_id=session.channel_id,
            kind=session.kind,
            players=result.players,
            scores=result.scores,
            winner_id=None if ended_by else result.winner_id,
            rules=result.rules,
            outcome=f"Ended early by {ended_by}." if ended_by else result.summary,
            started_at=session.created_at,
            lobby=session.lobby.options,
            stats=result.stats,
            winners=[] if ended_by else result.winners,
            bots=result.bots,
        )

    @staticmethod
    def _add_rematch(rendered: Rendered, session: Session, game_id: int) -> Rendered:
        """A finished table's Rematch button; its argument is the finished game's id, so it
        works from the database alone, after a restart too (see `rematch`)."""
        rendered.items.append(
            button(
                session.kind,
                "rematch",
                session.channel_id,
                session.game_id,
                0,
                "Rematch",
                arg=game_id,
                style=discord.ButtonStyle.success,
            )
        )
        return rendered

    async def _close_lobby(self, session: Session) -> Reply:
        """An unstarted lobby ran out of time: delete it and say so on its message."""
        adapter = self.adapters[session.kind]
        await self.sessions.delete(session.channel_id)
        waited = duration(round((session.deadline or session.created_at) - session.created_at))
        embed = discord.Embed(
            title=f"{adapter.title}: lobby closed",
            description=f"This lobby closed after {waited} with nobody starting it. "
            f"Open a new one with {mention(session.kind + ' start')}.",
            colour=EMBED_COLOUR,
        )
        session.ping = []  # nobody is waited on in a closed lobby
        closed = Rendered(embed=embed)
        return self._with_table(Reply.of_table(closed), session, closed)

    async def _render(self, session: Session) -> Rendered:
        """The channel's table as it stands: the game, or the lobby before it starts."""
        adapter = self.adapters[session.kind]
        if session.started:
            return adapter.render(session)
        return adapter.render_lobby(session, await self.settings(session.guild_id))

    def _on_table(
        self,
        session: Session,
        rendered: Rendered,
        *,
        clicked: int | None = None,
        fresh: bool = False,
    ) -> Reply:
        """The answer is the table itself (a click on it, /start, /status)."""
        update = self._update(session, rendered, clicked=clicked, fresh=fresh)
        return Reply.of_table(rendered, edit=clicked is not None, update=update, on_table=True)

    def _with_table(self, reply: Reply, session: Session, rendered: Rendered) -> Reply:
        """`reply`, followed by the channel's table brought up to date."""
        reply.update = self._update(session, rendered)
        return reply


def _unmention(content: str, pinged: tuple[int, ...]) -> str | None:
    """`content` without the mentions of users in `pinged`; None when nothing is left."""
    for user in pinged:
        content = content.replace(f"<@{user}>", "")
    return content.strip() or None


def _ping_text(ping: tuple[int, ...], waiting: dict[int, str], content: str | None) -> str:
    """`<@a>, your turn.` per player (grouped by what they are asked), above any text the
    table already had."""
    asks: dict[str, list[int]] = {}
    for user in ping:
        asks.setdefault(waiting.get(user, "your move"), []).append(user)
    lines = [f"{' '.join(f'<@{u}>' for u in users)}: {what}." for what, users in asks.items()]
    return "\n".join([*lines, *([content] if content else [])])
