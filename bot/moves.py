"""The move path (a part of `Tables`, bot/service.py): every change of a running game that
a person makes goes through the channel's lock, the engine and one commit before anything is
shown. `click` (a button or select), `command` (a move made with a slash command) and `leave`
load the session, check the press, apply the engine and commit (`Commit`, bot/commit.py);
the answer then brings the table up to date (`TableUpdates`, bot/table_updates.py).
Timeouts and bots commit the same way (bot/deadlines.py); lobby buttons go to
bot/lobbies.py."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import discord

from bot.commit import Commit
from bot.components import Click
from bot.endings import Endings
from bot.errors import GameOver, NoSession, StaleTable, UserError, said
from bot.i18n import N_, _
from bot.lobbies import LOBBY_ACTIONS, Lobbies
from bot.mentions import mention
from bot.replies import Actor, Reply
from bot.server_settings import ServerSettings
from bot.sessions import Session, Sessions, same_state, take_lines
from bot.settings import GuildSettings
from bot.table_updates import TableUpdates
from bot.tables.base import Move, Rendered, TableAdapter
from games.errors import GameError, NotInGame
from games.text import M

#: What a press on a button of a game that is over is told.
GAME_OVER = N_("That button belongs to a game that is over.")


@dataclass(frozen=True)
class Press:
    """One press of a button or select, as `Moves.click` takes it."""

    actor: Actor
    click: Click
    #: The message pressed (None: not known).
    message_id: int | None
    #: Pressed on an ephemeral reply.
    ephemeral: bool
    #: Whether the answer may update the pressed ephemeral in place: it is the presser's
    #: own (a forged one is answered with a fresh private reply).
    edit_private: bool

    def on_table(self, adapter: TableAdapter) -> bool:
        """Pressed on the table message itself, not on a private reply or a vote's message."""
        return not self.ephemeral and self.click.action not in adapter.off_table_actions

    def move(self, now: float) -> Move:
        click = self.click
        return Move(
            user_id=self.actor.id,
            action=click.action,
            arg=click.arg,
            values=click.values,
            now=now,
            is_admin=self.actor.is_admin,
        )


class Moves:
    """Clicks, command moves and leaving a game. It remembers, per channel, the press that
    last closed a decision (`_closed`), so the same player's second tap of it is no refusal."""

    def __init__(
        self,
        *,
        sessions: Sessions,
        adapters: dict[str, TableAdapter],
        settings: ServerSettings,
        display: TableUpdates,
        commit: Commit,
        lobbies: Lobbies,
        endings: Endings,
        rng: random.Random,
        clock: Callable[[], float],
    ) -> None:
        self.sessions = sessions
        self.adapters = adapters
        self.settings = settings
        self.display = display
        self.commit = commit
        self.lobbies = lobbies
        self.endings = endings
        self.rng = rng
        self.clock = clock
        # channel -> (stamp, user, action) of the click that last closed a decision there,
        # so the same player's second tap of that button (a double tap) is not refused.
        self._closed: dict[int, tuple[int, int, str]] = {}

    def forget(self, channel_id: int) -> None:
        """The channel's game left the memory cache."""
        self._closed.pop(channel_id, None)

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
        `owner` is whom a clicked ephemeral was sent to (None: the clicker). Its phases:
        find the game, check the press, apply it, commit it, and answer with the table and
        the follow-ups."""
        press = Press(actor, click, message_id, ephemeral, ephemeral and owner in (None, actor.id))
        async with self.sessions.lock(click.channel_id):
            found = await self._find(press)
            if isinstance(found, Reply):
                return found
            session, adapter = found, self.adapters[found.kind]
            settings = await self.settings.of(session)
            if click.action in LOBBY_ACTIONS:
                return await self._lobby_press(press, session, adapter, settings)
            seen = self._check_player(press, session, adapter)
            if seen is not None:
                return seen
            move = press.move(self.clock())
            again = self._check_stamp(press, session, adapter, move)
            if again is not None:
                return again
            if click.action in adapter.read_only_actions:
                return self._read_only(press, session, adapter)
            work, rendered = await self._commit_press(
                press, session, self._apply(press, session, adapter, move), adapter, settings
            )
            secret = self._private_view(press, work, adapter)
            reply = self._answer(press, work, adapter, rendered)
            self._follow_up(press, reply, work, adapter, secret)
            return reply

    async def _find(self, press: Press) -> Session | Reply:
        """The game the press belongs to. A press on a game that is over is refused, or,
        when nothing could show its end, answered with its final table (`_late_answer`)."""
        click = press.click
        session = await self.sessions.get(click.channel_id)
        if session is not None and session.kind == click.kind and session.game_id == click.game:
            return session
        late = await self.endings.late_ending(press.actor, click.channel_id, game=click.game)
        if late is not None:
            return self._late_answer(late, press)
        if session is None:
            raise NoSession.of(click.kind)
        raise GameOver(_(GAME_OVER))

    async def _lobby_press(
        self, press: Press, session: Session, adapter: TableAdapter, settings: GuildSettings
    ) -> Reply:
        """A lobby button (join, leave, bots, start, cancel): bot/lobbies.py, on a copy of
        the lobby, which keeps the cache clean if saving fails."""
        if session.started:
            if press.actor.id in adapter.player_ids(session.state):
                raise UserError(_("The game has already started: use the buttons on the table."))
            raise UserError(
                _(
                    "The game has already started without you. Wait for the next one, "
                    "or start one elsewhere."
                )
            )
        work = session.working(lobby=session.lobby.working_copy())
        with self.display.speaking_to(work):  # the lobby's message is public
            return await self.lobbies.click(
                press.actor, work, adapter, settings, press.click.action, press.message_id
            )

    def _check_player(self, press: Press, session: Session, adapter: TableAdapter) -> Reply | None:
        """A started game, pressed by one of its players; a bystander may only see what
        anyone may see (CRAP's Log): that view, or a refusal."""
        if not session.started:
            raise UserError(_("The game has not started yet."))
        if press.actor.id in adapter.player_ids(session.state):
            return None
        if press.click.action in adapter.public_actions:
            shown = adapter.public(session, press.click.action)
            if shown is None:
                raise UserError(_("There is nothing to show you right now."))
            return Reply.of_table(shown, ephemeral=True)
        raise NotInGame(
            M("You are not in this game. Wait for the next one, or start one elsewhere.")
        )

    def _check_stamp(
        self, press: Press, session: Session, adapter: TableAdapter, move: Move
    ) -> Reply | None:
        """None when the press answers the decision the game is at (its stamp). Otherwise
        the table again (a double tap of the button that just moved the game on, or a
        table that is behind where the bot is no member), or a refusal."""
        click = press.click
        if click.stamp == adapter.stamp_of(session.state, click.action, click.arg):
            return None
        on_table = press.on_table(adapter)
        live = on_table and press.message_id == session.message_id
        if live and self._closed.get(click.channel_id) == (
            click.stamp,
            press.actor.id,
            click.action,
        ):
            # The same player's second tap of the button that just moved the game on (a
            # double tap) on the table itself: show it again, not a refusal.
            table = self.display.table(session)
            return self.display.on_table(session, table, clicked=press.message_id)
        behind = session.shown_revision < session.revision
        without_channel = self.sessions.reach(click.channel_id) is not None
        if on_table and without_channel and (behind or not live):
            # Where the bot is no member, a table may show an older state (nothing could
            # show a timer's move) or stay pressable (nothing could retire it): a press on
            # it is the way to bring the live table back.
            try:
                _refuse_as_now(adapter, session.state, move, session.working())
                why = None
            except GameError as exc:
                why = said(exc)  # said along with the table ("It's not your turn…")
            return self._again(session, adapter, press.message_id, why)
        _refuse_as_now(adapter, session.state, move, session.working())
        # From an older table message (a double tap too): a private pointer to the live
        # table, never the same table posted again.
        where = "live" if live else "old" if on_table else "elsewhere"
        raise StaleTable(private=press.ephemeral, where=where)

    def _read_only(self, press: Press, session: Session, adapter: TableAdapter) -> Reply:
        """A press that only shows (Peek, My hand): the presser's private view, no commit.
        From the presser's ephemeral it updates it in place; else a new one."""
        click = press.click
        shown = adapter.private(session, press.actor.id, click.action, click.arg, click.values)
        if shown is None:
            raise UserError(_("There is nothing to show you right now."))
        # The player's own view (not the Log) is the reply a later step refreshes.
        mine = session.created_at if click.action == "hand" else None
        return Reply.of_table(shown, ephemeral=True, edit=press.edit_private, private_of=mine)

    def _apply(self, press: Press, session: Session, adapter: TableAdapter, move: Move) -> Session:
        """The move applied by the engine on a working copy; its log lines wait beside its
        state, to be saved with it."""
        work = session.working()
        work.state = adapter.apply(
            session.state, move, work.dice(self.rng, press.actor.id, press.click.action)
        )
        take_lines(work)
        return work

    async def _commit_press(
        self,
        press: Press,
        session: Session,
        work: Session,
        adapter: TableAdapter,
        settings: GuildSettings,
    ) -> tuple[Session, Rendered]:
        """The game as it now stands and its table: committed, unless the press asked for
        what already is (then nothing is). A press that closed its decision is remembered,
        for a double tap."""
        if same_state(work, session):
            return session, self.display.table(session)
        click = press.click
        rendered = await self.commit(work, adapter, settings, press.actor.id, session.state)
        if adapter.stamp_of(work.state, click.action, click.arg) != click.stamp:
            self._closed[click.channel_id] = (click.stamp, press.actor.id, click.action)
        return work, rendered

    def _private_view(self, press: Press, work: Session, adapter: TableAdapter) -> Rendered | None:
        """The presser's own view of the game after the move (None when it is over)."""
        if adapter.is_finished(work.state):
            return None
        click = press.click
        return adapter.private(work, press.actor.id, click.action, click.arg, click.values)

    def _answer(
        self, press: Press, work: Session, adapter: TableAdapter, rendered: Rendered
    ) -> Reply:
        """Pressed on the table: the table is the answer. Pressed on a side message (a
        vote's) or an ephemeral: that message answers, then the table follows."""
        if press.on_table(adapter):
            return self.display.on_table(work, rendered, clicked=press.message_id)
        # A press on a side message is answered by editing it: not twice.
        work.retouch = [r for r in work.retouch if r[0] != press.message_id]
        click = press.click
        after = adapter.message_after(work, press.actor.id, click.action, click.arg)
        answer = (
            Reply.of_table(after, ephemeral=True)  # never into someone else's reply
            if press.ephemeral and not press.edit_private
            else Reply.of_table(
                after, edit=True, private_of=work.created_at if press.ephemeral else None
            )
        )
        return self.display.with_table(answer, work, rendered)

    def _follow_up(
        self,
        press: Press,
        reply: Reply,
        work: Session,
        adapter: TableAdapter,
        secret: Rendered | None,
    ) -> None:
        """After the answer: the presser's private view, and the game's public
        announcement of the move, if it makes one."""
        if secret is not None:
            reply.followups.append(Reply.of_table(secret, ephemeral=True))
        click = press.click
        ping = adapter.announce(work, press.actor.id, click.action, click.values)
        if ping is None:
            return
        if reply.update is not None and ping.content:
            # Whoever the fresh table already calls is not called twice at once.
            ping = replace(ping, content=_unmention(ping.content, reply.update.ping))
        reply.followups.append(Reply.of_table(ping))

    def _late_answer(self, late: tuple[Session, Rendered], press: Press) -> Reply:
        """A press on a message of a game whose end nothing could show (`Endings.late_ending`):
        its final table. Pressed on the table, the answer is the final table (posted afresh
        when it calls the others, the pressed table retired); pressed elsewhere (a private
        reply, a vote), that message loses its buttons and the final table follows."""
        session, final = late
        adapter = self.adapters[session.kind]
        if press.on_table(adapter):
            return self.display.on_table(session, final, clicked=press.message_id)
        note = _(GAME_OVER)
        answer = (
            Reply(content=note, items=[], edit=True)
            if press.edit_private
            else Reply.private(note)
        )
        return self.display.with_table(answer, session, final)

    def _again(
        self, session: Session, adapter: TableAdapter, clicked: int | None, why: str | None
    ) -> Reply:
        """A press on a table that is behind (nothing could show a timer's move, or the
        last move's table is on its way) brings the live table back; a press on an old
        table nothing could retire retires it. `why` is the game's refusal of the press
        on the game as it stands, if it refuses it."""
        rendered = self.display.table(session)
        summary = adapter.summary(session, rendered)
        if session.shown_revision < session.revision or summary is None:
            reply = self.display.on_table(session, rendered, clicked=clicked)
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
            settings = await self.settings.of(session)
            work = session.working()  # the lobby is not changed here
            move = Move(
                user_id=actor.id, action=action, arg=arg, now=self.clock(), is_admin=actor.is_admin
            )
            work.state = adapter.apply(session.state, move, work.dice(self.rng, actor.id, action))
            rendered = await self.commit(work, adapter, settings, actor.id, session.state)
            after = adapter.message_after(work, actor.id, action, arg)
            return self.display.with_table(Reply.of_table(after), work, rendered)

    async def leave(self, actor: Actor, channel_id: int, kind: str) -> Reply:
        async with self.sessions.lock(channel_id):
            session = await self._session(channel_id, kind)
            adapter = self.adapters[session.kind]
            settings = await self.settings.of(session)
            work = replace(session, lobby=session.lobby.working_copy())
            with self.display.speaking_to(work):  # the lobby and the news are public
                if not session.started:
                    host = work.lobby.leave(actor.id)
                    if not work.lobby.players:
                        await self.sessions.delete(channel_id)
                        return self.display.with_table(
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
                    return self.display.with_table(
                        Reply(content=left),
                        work,
                        adapter.render_lobby(work, settings),
                    )
            if actor.id not in adapter.player_ids(session.state):
                raise NotInGame(M("You are not in this game."))
            work.state = adapter.remove_player(session.state, actor.id)
            rendered = await self.commit(work, adapter, settings, actor.id, session.state)
            # Only to the one who left: the table says it to everyone (its log and, when the
            # game ends, its headline), so a public line would be the third time.
            return self.display.with_table(
                Reply(
                    content=_("You left the {title} game.", title=_(adapter.title)),
                    ephemeral=True,
                ),
                work,
                rendered,
            )

    async def _session(self, channel_id: int, kind: str) -> Session:
        session = await self.sessions.get(channel_id)
        if session is None:
            raise NoSession.of(kind)
        return session


def _refuse_as_now(adapter: TableAdapter, state: Any, move: Move, trial: Session) -> None:
    """A press on a decision that is over, by someone the game is not waiting on: refused
    with the reason the game gives now ("It's not your turn: it's Bob's."), since they could
    not have made that move anyway; "that moment has passed" would mislead. The move is only
    tried (on `trial`, a working copy whose draws are never kept). Returns when it would be
    legal now."""
    if move.user_id in adapter.waiting_ids(state):
        return
    # A game without sealed draws tries it on dice of its own (a SystemRandom has no state
    # to copy).
    adapter.apply(state, move, trial.dice(random.Random(), move.user_id, move.action))


def _unmention(content: str, pinged: tuple[int, ...]) -> str | None:
    """`content` without the mentions of users in `pinged`; None when nothing is left."""
    for user in pinged:
        content = content.replace(f"<@{user}>", "")
    return content.strip() or None
