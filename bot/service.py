"""The table service: every slash command and click, for every game, goes through here.

It holds no Discord objects of the caller; it takes who acted and what they pressed, applies
the move under the channel's lock, commits it, and returns what to show. The cogs and the
component handler only translate Discord interactions to these calls and send the replies."""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import discord
from pydantic import ValidationError

from bot.components import Click, TableItem, button, view_of
from bot.errors import CorruptSession, NoSession, StaleTable, UserError
from bot.sessions import Session, Sessions
from bot.settings import GuildSettings
from bot.store import FinishedGame, Store
from bot.tables.base import EMBED_COLOUR, Move, Rendered, TableAdapter
from games.errors import NotInGame
from games.lobby import Lobby, Seat

log = logging.getLogger(__name__)

LOBBY_ACTIONS = frozenset({"join", "leave", "start", "cancel"})


@dataclass(frozen=True)
class Actor:
    """Who pressed or typed: their id, the name the table shows, and Manage Server."""

    id: int
    name: str
    is_admin: bool = False


@dataclass
class Reply:
    """What to answer an interaction with.

    `edit` answers a click by updating the clicked message; otherwise a new message is sent
    (ephemeral when `ephemeral`). `table` is a public table message to edit afterwards (by
    id), for commands that change a game without being a click on its table."""

    content: str | None = None
    embed: discord.Embed | None = None
    items: list[TableItem] | None = None
    ephemeral: bool = False
    edit: bool = False
    table: Rendered | None = None
    table_message_id: int | None = None
    channel_id: int | None = None
    created_table: bool = False
    followups: list[Reply] = field(default_factory=list)

    def view(self) -> discord.ui.View | None:
        return None if self.items is None else view_of(self.items)

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
        return discord.AllowedMentions(
            users=[_MentionedUser(i) for i in self.invited],  # type: ignore[misc]
            everyone=False,
            roles=False,
            replied_user=False,
        )


class _MentionedUser:
    """A user for AllowedMentions whose id goes out as a string, as Discord's API description
    types snowflakes in request bodies (with discord.Object, discord.py sends the int)."""

    __slots__ = ("id",)

    def __init__(self, user_id: int) -> None:
        self.id = str(user_id)


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

    def __post_init__(self) -> None:
        self.sessions = Sessions(self.store, self.adapters)
        self._settings: dict[int, GuildSettings] = {}

    # ------------------------------------------------------------ settings

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
        self._settings[guild_id] = settings
        return settings

    async def save_settings(self, guild_id: int, settings: GuildSettings) -> None:
        await self.store.save_settings(guild_id, settings.model_dump_json())
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
        async with self.sessions.lock(channel_id):
            await self._refuse_busy(channel_id)
            chosen = adapter.lobby_options(
                settings, {k: v for k, v in options.items() if v is not None}
            )
            session = await self._save_lobby(actor, guild_id, channel_id, adapter, chosen, settings)
            return Reply.of_table(
                adapter.render_lobby(session, settings), channel_id=channel_id, created_table=True
            )

    async def rematch(self, actor: Actor, click: Click) -> Rematch:
        """The Rematch button of a finished table: a new lobby of the same game with the same
        options (the finished-games row keeps them) and the presser in it, which invites the
        other players of that game. Only they, or a server manager, may press it."""
        game_id = int(click.arg) if (click.arg or "").isdigit() else None
        record = None if game_id is None else await self.store.finished_game(game_id)
        if (
            record is None
            or record["channel_id"] != click.channel_id
            or record["kind"] != click.kind
            or click.kind not in self.adapters
        ):
            raise UserError(
                f"I have no record of that game: start a new one with /{click.kind} start."
            )
        adapter = self.adapters[click.kind]
        previous = [int(p["id"]) for p in record["players"]]  # type: ignore[attr-defined]
        if actor.id not in previous and not actor.is_admin:
            raise UserError(
                "Only the players of that game (or a server manager) can ask for a rematch. "
                f"Start a game of your own with /{click.kind} start."
            )
        guild_id = record["guild_id"]
        assert guild_id is None or isinstance(guild_id, int)
        settings = await self.settings(guild_id)
        async with self.sessions.lock(click.channel_id):
            await self._refuse_busy(click.channel_id)
            kept = record["lobby"]
            options = dict(kept) if isinstance(kept, dict) else adapter.lobby_options(settings, {})
            session = await self._save_lobby(
                actor, guild_id, click.channel_id, adapter, options, settings
            )
        invited = [i for i in dict.fromkeys(previous) if i != actor.id]
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
            click.revision,
            "Rematch opened below",
            arg=click.arg,
            disabled=True,
        )
        return Rematch(
            lobby=lobby, invited=invited, channel_id=click.channel_id, finished_items=[spent]
        )

    async def _refuse_busy(self, channel_id: int) -> None:
        """One game per channel: a private refusal naming the one already there."""
        running = await self.sessions.kind_of(channel_id)
        if running is not None:
            title = self.adapters[running].title if running in self.adapters else running
            raise UserError(
                f"A game of {title} is already running in this channel. "
                f"Finish it, or end it with /{running} end."
            )

    async def _save_lobby(
        self,
        actor: Actor,
        guild_id: int | None,
        channel_id: int,
        adapter: TableAdapter,
        options: dict[str, object],
        settings: GuildSettings,
    ) -> Session:
        """A new lobby with `actor` in it (the host); it closes by itself when nobody has
        started it `lobby_timeout` seconds after it opened (see `expire`)."""
        now = self.clock()
        lobby = Lobby(
            starter=actor.id,
            players=[Seat(id=actor.id, name=actor.name)],
            min_players=adapter.min_players,
            max_players=adapter.max_players,
            options=options,
        )
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
        """Remember which message is the channel's table (for timer edits)."""
        async with self.sessions.lock(channel_id):
            await self.sessions.set_message_id(channel_id, message_id)

    # ------------------------------------------------------------ clicks

    async def click(
        self, actor: Actor, click: Click, message_id: int | None, *, ephemeral: bool = False
    ) -> Reply:
        """A button or select: on the table, on an ephemeral reply, or on a vote message."""
        async with self.sessions.lock(click.channel_id):
            session = await self._session(click.channel_id, click.kind)
            adapter = self.adapters[session.kind]
            if session.kind != click.kind:
                raise UserError("That button belongs to a game that is over.")
            on_table = not ephemeral and click.action not in adapter.off_table_actions
            # Only lobby clicks change the lobby; a copy keeps the cache clean if saving fails.
            lobby_click = click.action in LOBBY_ACTIONS
            work = replace(
                session,
                lobby=session.lobby.model_copy(deep=True) if lobby_click else session.lobby,
                message_id=message_id if on_table and message_id else session.message_id,
            )
            settings = await self.settings(session.guild_id)
            if lobby_click:
                if session.started:
                    raise UserError("The game has already started: use the buttons on the table.")
                return await self._lobby_click(actor, work, adapter, settings, click.action)
            if not session.started:
                raise UserError("The game has not started yet.")
            if actor.id not in adapter.player_ids(session.state):
                raise NotInGame(
                    "You are not in this game. Wait for the next one, or start one elsewhere."
                )
            if (
                click.action not in adapter.revisionless_actions
                and click.revision != session.revision
            ):
                raise StaleTable(private=ephemeral)
            if click.action in adapter.read_only_actions:
                shown = adapter.private(session, actor.id, click.action, click.arg, click.values)
                if shown is None:
                    raise UserError("There is nothing to show you right now.")
                # From an ephemeral: update it in place; from a public message: a new one.
                return Reply.of_table(shown, ephemeral=True, edit=ephemeral)
            move = Move(
                user_id=actor.id,
                action=click.action,
                arg=click.arg,
                values=click.values,
                now=self.clock(),
                is_admin=actor.is_admin,
            )
            work.state = adapter.apply(session.state, move, self.rng)
            rendered = await self._commit(work, adapter, settings, actor.id, session.state)
            secret = (
                None
                if adapter.is_finished(work.state)
                else adapter.private(work, actor.id, click.action, click.arg, click.values)
            )
            if on_table:
                reply = Reply.of_table(rendered, edit=True)
            else:
                after = adapter.message_after(work, actor.id, click.action, click.arg)
                reply = self._with_table(Reply.of_table(after, edit=True), work, rendered)
            if secret is not None:
                reply.followups.append(Reply.of_table(secret, ephemeral=True))
            ping = adapter.announce(work, actor.id, click.action, click.values)
            if ping is not None:
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
                raise UserError(f"The game here is {session.kind}: use /{session.kind}.")
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
    ) -> Reply:
        lobby = work.lobby
        if action == "join":
            lobby.join(Seat(id=actor.id, name=actor.name))
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
            return Reply.of_table(await self._commit(work, adapter, settings), edit=True)
        await self.sessions.save(work)
        return Reply.of_table(adapter.render_lobby(work, settings), edit=True)

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
        """End the channel's game early: its starter or a server manager. Works on damaged rows."""
        async with self.sessions.lock(channel_id):
            running = await self.sessions.kind_of(channel_id)
            if running is None:
                raise NoSession("There is no game running in this channel.")
            if running != kind:
                raise UserError(f"The game here is {running}: use /{running} end.")
            try:
                session = await self.sessions.get(channel_id)
            except CorruptSession:
                if not actor.is_admin:
                    raise UserError(
                        "The saved game here is damaged; a server manager can end it."
                    ) from None
                await self.sessions.delete(channel_id)
                return Reply(content=f"{actor.name} cleared the damaged game in this channel.")
            assert session is not None
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
            result = adapter.outcome(session.state)
            game_id = await self.sessions.finish(
                session, self._record(session, adapter, ended_by=actor.name)
            )
            final = adapter.render(session)
            final.items, final.content = [], None
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
        async with self.sessions.lock(channel_id):
            session = await self._session(channel_id, kind)
            adapter = self.adapters[session.kind]
            settings = await self.settings(session.guild_id)
            rendered = (
                adapter.render(session)
                if session.started
                else adapter.render_lobby(session, settings)
            )
            return Reply(
                content="The live table is the latest table message in this channel.",
                embed=rendered.embed,
                ephemeral=True,
            )

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
        the game's ran out (votes); None when nothing was due."""
        async with self.sessions.lock(channel_id):
            try:
                session = await self.sessions.get(channel_id)
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
                state = adapter.timeout(state, self.rng, now)
            work.state = state
            if not turn_over:
                work.turn_deadline = session.turn_deadline
            rendered = await self._commit(
                work, adapter, settings, before=session.state, restart_clock=turn_over
            )
            return Reply.of_table(rendered, table_message_id=work.message_id, channel_id=channel_id)

    # ------------------------------------------------------------ internals

    async def _session(self, channel_id: int, kind: str) -> Session:
        session = await self.sessions.get(channel_id)
        if session is None:
            raise NoSession(
                f"There is no game running in this channel. Start one with /{kind} start."
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
    ) -> Rendered:
        """Save a started game (or record it when finished), then render it.

        The turn clock restarts when the player it waits for changes, when that player
        moved, or after a timeout; a bystander's move (a peek, a vote) leaves it running."""
        if adapter.is_finished(work.state):
            work.deadline = work.turn_deadline = None
            game_id = await self.sessions.finish(work, self._record(work, adapter))
            return self._add_rematch(adapter.render(work), work, game_id)
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
        deadlines = [
            d for d in (work.turn_deadline, adapter.extra_deadline(work.state)) if d is not None
        ]
        work.deadline = min(deadlines, default=None)
        await self.sessions.save(work)
        if work.deadline is not None:
            self.on_deadline()
        return adapter.render(work)

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
                session.revision,
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
            f"Open a new one with /{session.kind} start.",
            colour=EMBED_COLOUR,
        )
        return Reply.of_table(
            Rendered(embed=embed),
            table_message_id=session.message_id,
            channel_id=session.channel_id,
        )

    @staticmethod
    def _with_table(reply: Reply, session: Session, rendered: Rendered) -> Reply:
        reply.table = rendered
        reply.table_message_id = session.message_id
        reply.channel_id = session.channel_id
        return reply
