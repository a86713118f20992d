"""A game's end (a part of `Tables`, bot/service.py): the finished-games row it is recorded
as, the story picture drawn in a thread, the Rematch button of its last table, and /end,
which ends a game early (its host or a server manager) or clears a stored game that cannot
be loaded. Where the bot is no member of the channel, a game a timer ended with no
interaction open to show it keeps its final table for the next press or /<game> status
(`late_ending`), so /status is here too."""

from __future__ import annotations

import asyncio
import logging

import discord

from bot.components import button
from bot.errors import CorruptSession, NoSession, UserError
from bot.i18n import _
from bot.mentions import mention
from bot.pictures.story import story_of, story_picture
from bot.players import people
from bot.replies import Actor, Reply
from bot.sealed import dice_record, luck_counts, revealed
from bot.sessions import Session, Sessions
from bot.store import FinishedGame
from bot.table_updates import TableUpdates
from bot.tables.base import Rendered, TableAdapter
from games.text import M, line_text

log = logging.getLogger(__name__)


class Endings:
    """How a finished or ended game is kept and shown. It shows tables through `display`."""

    def __init__(
        self, sessions: Sessions, adapters: dict[str, TableAdapter], display: TableUpdates
    ) -> None:
        self.sessions = sessions
        self.adapters = adapters
        self.display = display

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
                await self.set_aside(channel_id, damaged, actor)
                return Reply(
                    content=_(
                        "{name} cleared the saved game in this channel, which could not be "
                        "loaded; it is kept aside. Start a new one with {command}.",
                        name=actor.name,
                        command=mention(kind + " start"),
                    )
                )
            if session is None:
                raise NoSession(_("There is no game running in this channel."))
            if session.kind != kind:
                raise UserError(
                    _(
                        "The game here is {title}: use {command}.",
                        title=_(self.adapters[session.kind].title),
                        command=mention(session.kind + " end"),
                    )
                )
            adapter = self.adapters[kind]
            if actor.id != session.lobby.starter and not actor.is_admin:
                raise UserError(_("Only the host of this game (or a server manager) can end it."))
            with self.display.speaking_to(session):  # the table and the news are public
                if not session.started:
                    await self.sessions.delete(channel_id)
                    return self.display.with_table(
                        Reply(
                            content=_(
                                "{name} cancelled the {title} lobby.",
                                name=actor.name,
                                title=_(adapter.title),
                            )
                        ),
                        session,
                        Rendered(
                            embed=discord.Embed(
                                title=_("{title}: lobby cancelled", title=_(adapter.title))
                            )
                        ),
                    )
                # Everything that could fail is done before the commit: once the game is recorded
                # as ended, the answer says so.
                result = adapter.outcome(session.state)
                record = self.record(session, adapter, ended_by=actor.name)
                final = adapter.render(session)
                game_id = await self.sessions.finish(session, record)
                # Its votes still open end with it (their messages say so).
                session.retouch = [(m, key) for key, m in session.side.items()]
                final.picture = await self._story(session)
                final.items, final.content = [], None
                # Nobody is waited on in an ended game, but the end is news for every other
                # person still at the table: the final table is posted afresh mentioning
                # them (an edit notifies nobody); not bots, nor who left, nor the ender.
                session.ping = people(
                    u for u in adapter.present_ids(session.state) if u != actor.id
                )
                final.embed.description = _("**Game ended early by {name}.**", name=actor.name)
                final.embed.set_footer(text=adapter.finished_footer())
                revealed(final, session, game_id)
                _add_rematch(final, session, game_id)
                return self.display.with_table(
                    Reply(
                        content=_(
                            "{name} ended the {title} game. Standings: {standings}",
                            name=actor.name,
                            title=_(adapter.title),
                            standings=[
                                # Translators: one player's standing when a game is ended early.
                                _(
                                    "{player} {score}",
                                    player=str(p["name"]),
                                    score=result.scores[str(p["id"])],
                                )
                                for p in result.players
                            ],
                        )
                    ),
                    session,
                    final,
                )

    async def status(self, channel_id: int, kind: str, asker: Actor | None = None) -> Reply:
        """The live table, posted afresh at the bottom of the channel with its buttons. With
        no game running where the bot is no member: the last game's final table, if nothing
        could show it when it ended (`late_ending`)."""
        async with self.sessions.lock(channel_id):
            session = await self.sessions.get(channel_id)
            if session is None and asker is not None:
                late = await self.late_ending(asker, channel_id)
                if late is not None:
                    return self.display.on_table(*late, fresh=True)
            if session is None:
                raise NoSession.of(kind)
            return self.display.on_table(session, await self.display.render(session), fresh=True)

    async def set_aside(self, channel_id: int, damaged: CorruptSession, actor: Actor) -> None:
        """A stored game that cannot be loaded is kept aside (`damaged_sessions`), at the
        word of its host or a server manager: the channel is free."""
        await self.sessions.set_aside(channel_id, damaged.reason, actor.id)
        log.info("Stored game of channel %s set aside (%s)", channel_id, damaged.reason)

    async def final_table(
        self, session: Session, adapter: TableAdapter, game_id: int
    ) -> Rendered:
        """The table of a game that ended (not ended early): its result, its seed and the
        Rematch button, with its story picture, in the channel's language."""
        with self.display.speaking_to(session):
            final = revealed(adapter.render(session), session, game_id)
            final.picture = await self._story(session)
            return _add_rematch(final, session, game_id)

    async def late_ending(
        self, actor: Actor, channel_id: int, *, game: int | None = None
    ) -> tuple[Session, Rendered] | None:
        """Where the bot is no member: the channel's last game, if a timer (or a bot) ended
        it when no interaction was open to show it and nobody has seen its end since (of
        game `game`, the button's, when a press asks). Its final table, to show now through
        the asker's interaction, calling every other person at it: the end is news to them
        too. None when there is no such game (the caller says there is no game here)."""
        if self.sessions.reach(channel_id) is None:
            return None  # the bot shows a game's end in its channel itself
        session = await self.sessions.unseen(channel_id)
        if session is None or session.ended is None:
            return None
        if game is not None and session.game_id != game:
            return None
        adapter = self.adapters.get(session.kind)
        if adapter is None or not adapter.is_finished(session.state):
            return None
        session.ping = [u for u in people(adapter.present_ids(session.state)) if u != actor.id]
        return session, await self.final_table(session, adapter, session.ended)

    async def _story(self, session: Session) -> bytes | None:
        """The finished game's picture, drawn in a thread (never on the event loop, which
        answers everyone's clicks meanwhile); None, and play goes on, if drawing fails."""
        try:
            return await asyncio.to_thread(story_picture, session.kind, session.state)
        except Exception:
            log.exception("Could not draw the story of the game in channel %s", session.channel_id)
            return None

    def record(
        self, session: Session, adapter: TableAdapter, ended_by: str | None = None
    ) -> FinishedGame:
        """The finished-games row (its log lines are added by `Sessions.finish`); a game
        ended early has no winner. Its sealed draws are kept (the seed revealed,
        bot/sealed.py), and each player's dice join their counters."""
        result = adapter.outcome(session.state)
        dice = dice_record(session)
        stats = {pid: dict(counters) for pid, counters in result.stats.items()}
        for pid, counts in luck_counts(dice).items():
            stats.setdefault(pid, {}).update(counts)
        return FinishedGame(
            guild_id=session.guild_id,
            channel_id=session.channel_id,
            kind=session.kind,
            players=result.players,
            scores=result.scores,
            winner_id=None if ended_by else result.winner_id,
            rules=result.rules,
            outcome=line_text(M("Ended early by {name}.", name=ended_by) if ended_by else result.summary),
            started_at=session.created_at,
            lobby=session.lobby.options,
            stats=stats,
            winners=[] if ended_by else result.winners,
            bots=result.bots,
            stand_ins=list(session.away.stood_in),
            places=result.places,
            dice=dice,
            story=story_of(session.kind, session.state),
        )


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
            _("Rematch"),
            arg=game_id,
            style=discord.ButtonStyle.success,
        )
    )
    return rendered
