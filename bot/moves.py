"""The move path (part of `Tables`): every change of a running game, whoever makes it,
goes through the channel's lock, the engine and one commit before anything is shown.
`click` (a button or select), `command` (a move made with a slash command) and `leave`
load the session, check the click's stamp, apply the engine and `_commit`, which saves the
game (or records it when finished, bot/endings.py), sets its turn, bot and extra deadlines,
and renders the table; the answer then brings the table up to date (bot/table_updates.py).
Timeouts and bots commit through the same `_commit` (bot/deadlines.py)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import discord

from bot.components import Click
from bot.errors import GameOver, NoSession, StaleTable, UserError, said
from bot.i18n import N_, _
from bot.lobbies import LOBBY_ACTIONS
from bot.mentions import mention
from bot.players import people
from bot.replies import Actor, Reply
from bot.sessions import Session, Sessions, state_json, take_lines
from bot.settings import GuildSettings
from bot.tables.base import Move, Rendered, TableAdapter
from games.bots import bot_seats
from games.errors import GameError, NotInGame
from games.text import M

#: What a press on a button of a game that is over is told.
GAME_OVER = N_("That button belongs to a game that is over.")

#: Why a game ends when the last person leaves it: bots never play on their own. The
#: engines keep it in their state (`ended_by_departure`) as a message, so each reader sees
#: it in their language.
ONLY_BOTS = N_("no person is left at the table")


class Moves:
    """Part of `Tables` (bot/service.py): clicks, command moves and leaving, and the commit
    every move of a started game ends in."""

    adapters: dict[str, TableAdapter]
    sessions: Sessions
    rng: random.Random
    clock: Callable[[], float]
    on_deadline: Callable[[], None]
    _closed: dict[int, tuple[int, int, str]]
    _table: Callable[[Session], Rendered]

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
            session = await self.sessions.get(click.channel_id)
            if session is None or session.kind != click.kind or session.game_id != click.game:
                late = await self._late_ending(actor, click.channel_id, game=click.game)
                if late is not None:
                    return self._late_answer(late, click, message_id, ephemeral, edit_private)
                if session is None:
                    raise NoSession.of(click.kind)
                raise GameOver(_(GAME_OVER))
            adapter = self.adapters[session.kind]
            on_table = not ephemeral and click.action not in adapter.off_table_actions
            # Only lobby clicks change the lobby; a copy keeps the cache clean if saving fails.
            lobby_click = click.action in LOBBY_ACTIONS
            work = session.working(
                lobby=session.lobby.model_copy(deep=True) if lobby_click else session.lobby,
            )
            settings = await self.settings_of(session)
            if lobby_click:
                if session.started:
                    if actor.id in adapter.player_ids(session.state):
                        raise UserError(
                            _("The game has already started: use the buttons on the table.")
                        )
                    raise UserError(
                        _(
                            "The game has already started without you. Wait for the next one, "
                            "or start one elsewhere."
                        )
                    )
                with self.speaking_to(work):  # the lobby's message is public
                    return await self._lobby_click(
                        actor, work, adapter, settings, click.action, message_id
                    )
            if not session.started:
                raise UserError(_("The game has not started yet."))
            if actor.id not in adapter.player_ids(session.state):
                if click.action in adapter.public_actions:  # what anyone may see (CRAP's Log)
                    shown = adapter.public(session, click.action)
                    if shown is None:
                        raise UserError(_("There is nothing to show you right now."))
                    return Reply.of_table(shown, ephemeral=True)
                raise NotInGame(
                    M("You are not in this game. Wait for the next one, or start one elsewhere.")
                )
            move = Move(
                user_id=actor.id,
                action=click.action,
                arg=click.arg,
                values=click.values,
                now=self.clock(),
                is_admin=actor.is_admin,
            )
            if click.stamp != adapter.stamp_of(session.state, click.action, click.arg):
                live = on_table and message_id == session.message_id
                if live and self._closed.get(click.channel_id) == (
                    click.stamp,
                    actor.id,
                    click.action,
                ):
                    # The same player's second tap of the button that just moved the game
                    # on (a double tap) on the table itself: show it again, not a refusal.
                    return self._on_table(session, self._table(session), clicked=message_id)
                behind = session.shown_revision < session.revision
                without_channel = self.sessions.reach(click.channel_id) is not None
                if on_table and without_channel and (behind or not live):
                    # Where the bot is no member, a table may show an older state (nothing
                    # could show a timer's move) or stay pressable (nothing could retire it):
                    # a press on it is the way to bring the live table back.
                    try:
                        _refuse_as_now(adapter, session.state, move, session.working())
                        why = None
                    except GameError as exc:
                        why = said(exc)  # said along with the table ("It's not your turn…")
                    return self._again(session, adapter, message_id, why)
                _refuse_as_now(adapter, session.state, move, session.working())
                # From an older table message (a double tap too): a private pointer to the
                # live table, never the same table posted again.
                where = "live" if live else "old" if on_table else "elsewhere"
                raise StaleTable(private=ephemeral, where=where)
            if click.action in adapter.read_only_actions:
                shown = adapter.private(session, actor.id, click.action, click.arg, click.values)
                if shown is None:
                    raise UserError(_("There is nothing to show you right now."))
                # From the clicker's ephemeral: update it in place; else a new one.
                # The player's own view (not the Log) is the reply a later step refreshes.
                mine = session.created_at if click.action == "hand" else None
                return Reply.of_table(shown, ephemeral=True, edit=edit_private, private_of=mine)
            work.state = adapter.apply(
                session.state, move, work.dice(self.rng, actor.id, click.action)
            )
            take_lines(work)  # the move's log lines wait beside its state, to be saved
            # Asked for what already is: nothing to commit.
            if state_json(work) == state_json(session):
                work = session
                rendered = self._table(session)
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
                # A press on a side message (a vote's) is answered by editing it: not twice.
                work.retouch = [r for r in work.retouch if r[0] != message_id]
                after = adapter.message_after(work, actor.id, click.action, click.arg)
                answer = (
                    Reply.of_table(after, ephemeral=True)  # never into someone else's reply
                    if ephemeral and not edit_private
                    else Reply.of_table(
                        after, edit=True, private_of=work.created_at if ephemeral else None
                    )
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

    def _late_answer(
        self,
        late: tuple[Session, Rendered],
        click: Click,
        clicked: int | None,
        ephemeral: bool,
        edit_private: bool,
    ) -> Reply:
        """A press on a message of a game whose end nothing could show (`_late_ending`):
        its final table. Pressed on the table, the answer is the final table (posted afresh
        when it calls the others, the pressed table retired); pressed elsewhere (a private
        reply, a vote), that message loses its buttons and the final table follows."""
        session, final = late
        adapter = self.adapters[session.kind]
        if not ephemeral and click.action not in adapter.off_table_actions:
            return self._on_table(session, final, clicked=clicked)
        note = _(GAME_OVER)
        answer = Reply(content=note, items=[], edit=True) if edit_private else Reply.private(note)
        return self._with_table(answer, session, final)

    def _again(
        self, session: Session, adapter: TableAdapter, clicked: int | None, why: str | None
    ) -> Reply:
        """A press on a table that is behind (nothing could show a timer's move, or the
        last move's table is on its way) brings the live table back; a press on an old
        table nothing could retire retires it. `why` is the game's refusal of the press
        on the game as it stands, if it refuses it."""
        rendered = self._table(session)
        summary = adapter.summary(session, rendered)
        if session.shown_revision < session.revision or summary is None:
            reply = self._on_table(session, rendered, clicked=clicked)
            note = why or _("The game had moved on since that table was shown: here it is now.")
        else:
            reply = Reply.of_table(summary, edit=True)
            note = _("That table is old: the live one is below.")
        reply.followups.append(Reply.private(note))
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
                    _(
                        "The game here is {title}: its table is at {command}.",
                        title=_(adapter.title),
                        command=mention(session.kind + " status"),
                    )
                )
            if not session.started:
                raise UserError(_("The game has not started yet."))
            if actor.id not in adapter.player_ids(session.state) and not actor.is_admin:
                raise NotInGame(M("You are not in this game."))
            settings = await self.settings_of(session)
            work = session.working()  # the lobby is not changed here
            move = Move(
                user_id=actor.id, action=action, arg=arg, now=self.clock(), is_admin=actor.is_admin
            )
            work.state = adapter.apply(session.state, move, work.dice(self.rng, actor.id, action))
            rendered = await self._commit(work, adapter, settings, actor.id, session.state)
            after = adapter.message_after(work, actor.id, action, arg)
            return self._with_table(Reply.of_table(after), work, rendered)

    async def leave(self, actor: Actor, channel_id: int, kind: str) -> Reply:
        async with self.sessions.lock(channel_id):
            session = await self._session(channel_id, kind)
            adapter = self.adapters[session.kind]
            settings = await self.settings_of(session)
            work = replace(session, lobby=session.lobby.model_copy(deep=True))
            with self.speaking_to(work):  # the lobby and the news are public
                if not session.started:
                    host = work.lobby.leave(actor.id)
                    if not work.lobby.players:
                        await self.sessions.delete(channel_id)
                        return self._with_table(
                            Reply(content=_("{name} left; the lobby is closed.", name=actor.name)),
                            session,
                            Rendered(
                                embed=discord.Embed(
                                    title=_("{title}: lobby closed", title=_(adapter.title))
                                )
                            ),
                        )
                    await self.sessions.save(work)
                    left = (
                        _(
                            "{name} left the lobby. {host} is the host now.",
                            name=actor.name,
                            host=host.name,
                        )
                        if host is not None
                        else _("{name} left the lobby.", name=actor.name)
                    )
                    return self._with_table(
                        Reply(content=left),
                        work,
                        adapter.render_lobby(work, settings),
                    )
            if actor.id not in adapter.player_ids(session.state):
                raise NotInGame(M("You are not in this game."))
            work.state = adapter.remove_player(session.state, actor.id)
            rendered = await self._commit(work, adapter, settings, actor.id, session.state)
            # Only to the one who left: the table says it to everyone (its log and, when the
            # game ends, its headline), so a public line would be the third time.
            return self._with_table(
                Reply(
                    content=_("You left the {title} game.", title=_(adapter.title)),
                    ephemeral=True,
                ),
                work,
                rendered,
            )

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
            work.state = adapter.abandon(work.state, M(ONLY_BOTS))
        _retouch(work, adapter, before)
        if before is not None:  # whose step moved on without their press: their reply follows
            work.refresh = people(
                u for u in adapter.steps_changed(before, work.state) if u != actor_id
            )
        # Whom the table now calls: who newly must act, never the actor (nobody is notified
        # of their own click). Nobody to call: the table can be edited in place.
        before_waiting = {} if before is None else adapter.waiting_on(before)
        work.ping = people(
            u for u in adapter.waiting_on(work.state) if u not in before_waiting and u != actor_id
        )
        if adapter.is_finished(work.state):
            work.deadline = work.turn_deadline = work.bot_deadline = None
            # The end is news for every other person still at the table: the final table is
            # posted afresh mentioning them (an edit notifies nobody); not bots, nor who left,
            # nor whoever's move ended it.
            work.ping = people(u for u in adapter.present_ids(work.state) if u != actor_id)
            # Where the bot is no member, nothing may be open to show the end (a timer,
            # every token expired): the record keeps the game until its final table is
            # shown, at the next press or /<game> status (`Endings._late_ending`).
            unseen = self.sessions.reach(work.channel_id) is not None
            record = self._record(work, adapter)
            game_id = await self.sessions.finish(work, record, unseen=unseen)
            return await self._final_table(work, adapter, game_id)
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
        return self._table(work)


def _retouch(work: Session, adapter: TableAdapter, before: Any) -> None:
    """The side messages (a foul vote's) this move changed or closed, whoever made it, to
    be edited with the table (`Session.retouch`); the closed ones are no longer kept."""
    if not work.side:
        return
    now = adapter.side_messages(work.state)
    was = {} if before is None else adapter.side_messages(before)
    work.retouch = [(m, key) for key, m in work.side.items() if now.get(key) != was.get(key)]
    work.side = {key: m for key, m in work.side.items() if key in now}


def _refuse_as_now(adapter: TableAdapter, state: Any, move: Move, trial: Session) -> None:
    """A press on a decision that is over, by someone the game is not waiting on: refused
    with the reason the game gives now ("It's not your turn: it's Bob's."), since they could
    not have made that move anyway; "that moment has passed" would mislead. The move is only
    tried (on `trial`, a working copy whose draws are never kept). Returns when it would be
    legal now."""
    if move.user_id in adapter.waiting_on(state):
        return
    # A game without sealed draws tries it on dice of its own (a SystemRandom has no state
    # to copy).
    adapter.apply(state, move, trial.dice(random.Random(), move.user_id, move.action))


def _unmention(content: str, pinged: tuple[int, ...]) -> str | None:
    """`content` without the mentions of users in `pinged`; None when nothing is left."""
    for user in pinged:
        content = content.replace(f"<@{user}>", "")
    return content.strip() or None
