"""Lobbies and rematches (a part of `Tables`, bot/service.py): opening a lobby (one game per
channel), its buttons (join, leave, bots, start, cancel), its closing when nobody starts it
in time, and a finished table's Rematch, which opens a lobby of the same game from the
finished-games row (so it works after a restart too). Starting the game is its first commit
(`Commit`, bot/commit.py)."""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import discord

from bot.background import Background
from bot.commit import Commit
from bot.components import Click, button
from bot.errors import CorruptSession, UserError
from bot.i18n import _, _n, one_unit
from bot.lobby_settings import OWN_SETTINGS, kept_settings, lobby_settings
from bot.mentions import mention
from bot.players import people
from bot.replies import Actor, Rematch, Reply
from bot.server_settings import ServerSettings
from bot.sessions import Session, Sessions
from bot.settings import GuildSettings
from bot.store import Store
from bot.table_updates import LANGUAGE, TableUpdates
from bot.tables.base import EMBED_COLOUR, Rendered, TableAdapter
from games.draws import Draws
from games.lobby import Lobby, Seat
from games.numbers import number

LOBBY_ACTIONS = frozenset({"join", "leave", "start", "cancel", "addbot", "dropbot"})

log = logging.getLogger(__name__)

#: Keeps a stored game that cannot be loaded aside (`Endings.set_aside`).
SetAside = Callable[[int, CorruptSession, Actor], Awaitable[None]]


class Lobbies:
    """A lobby's life before its game starts, and the start."""

    def __init__(
        self,
        *,
        store: Store,
        sessions: Sessions,
        adapters: dict[str, TableAdapter],
        settings: ServerSettings,
        display: TableUpdates,
        commit: Commit,
        background: Background,
        set_aside: SetAside,
        rng: random.Random,
        clock: Callable[[], float],
        on_deadline: Callable[[float], None],
    ) -> None:
        self.store = store
        self.sessions = sessions
        self.adapters = adapters
        self.settings = settings
        self.display = display
        self.commit = commit
        self.background = background
        self.set_aside = set_aside
        self.rng = rng
        self.clock = clock
        self.on_deadline = on_deadline

    async def open_lobby(
        self,
        actor: Actor,
        guild_id: int | None,
        channel_id: int,
        kind: str,
        options: dict[str, object],
        *,
        server: bool = True,
    ) -> Reply:
        """A lobby of `kind` with `actor` as its host. `server`: a server that added the bot
        authorised the command (its settings apply there); elsewhere, or without a server,
        the host's start options over the bot's defaults are the lobby's settings, kept
        with it (bot/lobby_settings.py)."""
        adapter = self.adapters[kind]
        in_server = server and guild_id is not None
        base = await self.settings.get(guild_id if in_server else None)
        options = dict(options)
        bots = options.pop("bots", None) or 0
        async with self.sessions.lock(channel_id):
            await self._refuse_busy(channel_id, actor)
            settings, changed = lobby_settings(base, options, in_server=in_server)
            chosen = adapter.lobby_options(settings)
            if not in_server:
                chosen[OWN_SETTINGS] = changed
            most = adapter.lobby_max_players(chosen) - 1
            if not isinstance(bots, int) or not 0 <= bots <= most:
                raise UserError(
                    _n(
                        "A {game} table takes 0 to {n} bot besides you.",
                        "A {game} table takes 0 to {n} bots besides you.",
                        most,
                        game=_(adapter.title),
                    )
                )
            session = await self._save_lobby(
                actor, guild_id, channel_id, adapter, chosen, settings, bots=bots
            )
            with self.display.speaking_to(session):
                lobby = adapter.render_lobby(session, settings)
            return self.display.on_table(session, lobby, fresh=True)

    async def rematch(self, actor: Actor, click: Click) -> Rematch | Reply:
        """The Rematch button of a finished table: a new lobby of the same game with the same
        options (the finished-games row keeps them) and the presser in it, which invites the
        other players of that game. Only they, or a server manager, may press it. Pressed
        when that lobby is already open (two players pressed at once), it seats the presser
        there: a private answer, and the lobby brought up to date."""
        game_id = number(click.arg)
        record = None if game_id is None else await self.store.finished_game(game_id)
        if (
            record is None
            or record["channel_id"] != click.channel_id
            or record["kind"] != click.kind
            or click.kind not in self.adapters
        ):
            raise UserError(
                _(
                    "I have no record of that game: start a new one with {command}.",
                    command=mention(click.kind + " start"),
                )
            )
        adapter = self.adapters[click.kind]
        players, seats = record["players"], record["bots"]
        assert isinstance(players, list) and isinstance(seats, list)  # (the row's JSON lists)
        previous = [int(p["id"]) for p in players]
        bots = len(seats)
        if actor.id not in previous and not actor.is_admin:
            raise UserError(
                _(
                    "Only the players of that game (or a server manager) can ask for a "
                    "rematch. Start a game of your own with {command}.",
                    command=mention(click.kind + " start"),
                )
            )
        guild_id = record["guild_id"]
        assert guild_id is None or isinstance(guild_id, int)
        kept = record["lobby"]
        settings = (
            kept_settings(self.settings.defaults, kept[OWN_SETTINGS])
            if isinstance(kept, dict) and OWN_SETTINGS in kept
            else await self.settings.get(guild_id)
        )
        async with self.sessions.lock(click.channel_id):
            joined = await self._join_rematch(actor, click.channel_id, adapter, settings)
            if joined is not None:
                return joined
            await self._refuse_busy(click.channel_id, actor)
            options = dict(kept) if isinstance(kept, dict) else adapter.lobby_options(settings)
            session = await self._save_lobby(
                actor, guild_id, click.channel_id, adapter, options, settings, bots=bots
            )
        invited = [i for i in dict.fromkeys(people(previous)) if i != actor.id]
        with self.display.speaking_to(session):
            return self._rematch_lobby(session, adapter, settings, actor, invited, click)

    def _rematch_lobby(
        self,
        session: Session,
        adapter: TableAdapter,
        settings: GuildSettings,
        actor: Actor,
        invited: list[int],
        click: Click,
    ) -> Rematch:
        """The rematch's lobby, inviting the previous game's players (in the channel's
        language)."""
        lobby = adapter.render_lobby(session, settings)
        ping = "".join(f"<@{i}> " for i in invited).rstrip()
        lobby.content = (
            _(
                "{mentions}: {name} wants a rematch of {game}: join below.",
                mentions=ping,
                name=actor.name,
                game=_(adapter.title),
            )
            if ping
            else _(
                "{name} wants a rematch of {game}: join below.",
                name=actor.name,
                game=_(adapter.title),
            )
        )
        spent = button(
            click.kind,
            "rematch",
            click.channel_id,
            click.game,
            click.stamp,
            _("Rematch opened below"),
            arg=click.arg,
            disabled=True,
        )
        return Rematch(
            lobby=lobby,
            invited=invited,
            channel_id=click.channel_id,
            finished_items=[spent],
            revision=session.revision,
        )

    async def _join_rematch(
        self, actor: Actor, channel_id: int, adapter: TableAdapter, settings: GuildSettings
    ) -> Reply | None:
        """A Rematch press when a lobby of that game is already open in the channel (the
        rematch someone else opened a moment before): the presser joins it. None when no
        such lobby is open. A full lobby refuses as its Join button would."""
        try:
            running = await self.sessions.get(channel_id)
        except CorruptSession:
            return None  # `_refuse_busy` says what is wrong
        if running is None or running.started or running.kind != adapter.kind:
            return None
        work = replace(running, lobby=running.lobby.working_copy())
        if any(seat.id == actor.id for seat in work.lobby.players):
            return Reply.private(_("You are in the rematch lobby below: it starts from there."))
        work.lobby.join(Seat(id=actor.id, name=actor.name))
        await self.sessions.save(work)
        joined = Reply.private(_("The rematch lobby was already open: you joined it below."))
        if work.message_id is None:
            return joined  # being posted right now: its poster brings it up to date
        with self.display.speaking_to(work):
            lobby = adapter.render_lobby(work, settings)
        return self.display.with_table(joined, work, lobby)

    async def _refuse_busy(self, channel_id: int, actor: Actor) -> None:
        """One game per channel: a private refusal naming the one already there. A stored
        game that cannot be loaded is refused with what is wrong, unless a server manager
        starts: then it is set aside (kept in `damaged_sessions`) and the channel is free."""
        try:
            running = await self.sessions.get(channel_id)
        except CorruptSession as damaged:
            if not actor.is_admin:
                raise
            await self.set_aside(channel_id, damaged, actor)
            return
        if running is not None:  # loaded, so its kind is one of ours
            raise UserError(
                _(
                    "A game of {game} is already running in this channel. Finish it, or end "
                    "it with {command}.",
                    game=_(self.adapters[running.kind].title),
                    command=mention(running.kind + " end"),
                )
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
        if LANGUAGE not in options:  # (a rematch keeps its game's)
            options = {**options, LANGUAGE: actor.guild_locale or actor.locale}
        lobby = Lobby(
            starter=actor.id,
            players=[Seat(id=actor.id, name=actor.name)],
            min_players=adapter.min_players,
            max_players=adapter.lobby_max_players(options),
            options=options,
        )
        for _seat in range(bots):
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
        self.on_deadline(now + settings.lobby_timeout)
        return session

    async def click(
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
                    content=_("Everyone left: the lobby is closed."),
                    embed=None,
                    items=[],
                    edit=True,
                )
        elif action == "cancel":
            lobby.check_cancel(actor.id, actor.is_admin)
            await self.sessions.delete(work.channel_id)
            return Reply(
                content=_(
                    "{name} cancelled the {game} lobby.", name=actor.name, game=_(adapter.title)
                ),
                embed=None,
                items=[],
                edit=True,
            )
        elif action == "start":
            lobby.check_start(actor.id, actor.is_admin)
            # The game's dice and cards are drawn from a seed of its own, sealed now: the
            # table shows its commitment, the final table the seed (bot/sealed.py).
            work.draws = Draws.fresh(self.rng)
            work.state = adapter.new_game(lobby, settings, work.dice(self.rng, actor.id, "start"))
            rendered = await self.commit(work, adapter, settings, actor.id)
            self._prepare_bots(adapter, work.state)
            return self.display.on_table(work, rendered, clicked=message_id)
        await self.sessions.save(work)
        return self.display.on_table(work, adapter.render_lobby(work, settings), clicked=message_id)

    async def close(self, session: Session) -> Reply:
        """An unstarted lobby ran out of time: delete it and say so on its message."""
        adapter = self.adapters[session.kind]
        await self.sessions.delete(session.channel_id)
        waited = one_unit(round((session.deadline or session.created_at) - session.created_at))
        embed = discord.Embed(
            title=_("{game}: lobby closed", game=_(adapter.title)),
            description=_(
                "This lobby closed after {time} with nobody starting it. Open a new one with "
                "{command}.",
                time=waited,
                command=mention(session.kind + " start"),
            ),
            colour=EMBED_COLOUR,
        )
        session.ping = []  # nobody is waited on in a closed lobby
        closed = Rendered(embed=embed)
        return self.display.with_table(Reply.of_table(closed), session, closed)

    def _prepare_bots(self, adapter: TableAdapter, state: Any) -> None:
        """Run what readies the adapter's bots off the event loop, if anything (a failure is
        logged: the bots then play without what it prepares)."""
        work = adapter.bot_preparation(state)
        if work is None:
            return

        def failed() -> None:
            log.exception("Could not prepare the %s bot players", adapter.kind)

        self.background.in_thread(work, name=f"prepare-bots-{adapter.kind}", failed=failed)
