"""What every game adapter provides, and the lobby table all games share."""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

import discord
from pydantic import BaseModel

from bot.components import Components, TableItem, button, select, view_of
from bot.i18n import N_, _, _n, one_unit, render
from bot.mentions import spoken
from bot.pictures.emojis import Faces
from bot.players import who
from bot.sessions import Session
from bot.settings import GuildSettings
from bot.tables.rules import (
    STAMP_MODULUS,
    GameRules,
    Move,
    Outcome,
    StateT,
    placed,
)
from games.autoplay import is_idle
from games.lobby import Lobby
from games.text import Line

log = logging.getLogger(__name__)

#: A game's rules model (FarkleRules, KurikiRules, CrapRules).
R = TypeVar("R", bound=BaseModel)

EMBED_COLOUR = discord.Colour.from_rgb(88, 101, 242)
__all__ = [
    "EMBED_COLOUR",
    "STAMP_MODULUS",
    "Move",
    "Outcome",
    "Rendered",
    "TableAdapter",
    "placed",
    "timer_line",
    "vote_tally",
]


@dataclass
class Rendered:
    """A public table message: text above it, the embed and its buttons, and (on the table
    that shows a game ending, only there, so it is uploaded once) the story picture."""

    embed: discord.Embed
    items: list[TableItem] = field(default_factory=list)
    content: str | None = None
    picture: bytes | None = None
    #: A message besides the table that shows a decision of the game (a foul vote): the
    #: key its id is kept under once posted (`TableAdapter.side_messages`).
    side: str | None = None

    def view(self) -> Components:
        return view_of(self.items)


@dataclass(frozen=True, slots=True)
class StampedButtons:
    """Makes the buttons of one table that all answer the same decision (a Farkle throw):
    `TableAdapter.button` without asking the session and the game's stamp for each."""

    kind: str
    channel_id: int
    game: int
    stamp: int

    def __call__(
        self,
        action: str,
        label: str,
        *,
        arg: object = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        row: int | None = None,
        emoji: discord.PartialEmoji | None = None,
    ) -> TableItem:
        return button(
            self.kind,
            action,
            self.channel_id,
            self.game,
            self.stamp,
            label,
            arg=None if arg is None else str(arg),
            style=style,
            disabled=disabled,
            row=row,
            emoji=emoji,
        )


def vote_tally(yes: Sequence[int], no: Sequence[int]) -> str:
    """A vote's count so far: '1 yes, 0 no', or 'no votes yet' (never '0 yes, 0 no')."""
    if not yes and not no:
        return _("no votes yet")
    return _("{yes} yes, {no} no", yes=len(yes), no=len(no))


class TableAdapter(GameRules[StateT]):
    """The Discord side of one game: the table, the lobby, the private replies and the rules
    page, rendered from the state. The rules half (`GameRules`) answers every question about
    the state from the engine; nothing here decides what is legal."""

    title: ClassVar[str]
    #: Actions that only show something (no state change, answered privately).
    read_only_actions: ClassVar[frozenset[str]] = frozenset()
    #: Read-only actions that show only what is public (a log): anyone may press them.
    public_actions: ClassVar[frozenset[str]] = frozenset()
    #: Actions whose components live on a message other than the table (ephemerals, votes).
    off_table_actions: ClassVar[frozenset[str]] = frozenset()
    #: How dice and cards are written: the bot gives its adapters the Faces it loads the
    #: emojis into; this default writes text.
    faces: Faces = Faces()
    #: What the game draws from its sealed seed, as the table's footer says it (bot/sealed.py),
    #: translated where it is shown.
    sealed_what: ClassVar[str] = N_("Dice")

    def players_text(self, settings: GuildSettings) -> str:
        """How many players this server's lobbies take, as /help says it ("2-12 players")."""
        most = self.lobby_max_players(self.lobby_options(settings))
        return _n("{low}-{n} player", "{low}-{n} players", most, low=self.min_players)

    @abstractmethod
    def lobby_description(self, lobby: Lobby, settings: GuildSettings) -> str:
        """What the lobby message says about the rules that will be played: one paragraph
        ending with the rules command, so the lobby fits a phone's screen."""

    def private(
        self,
        session: Session,
        user_id: int,
        action: str,
        arg: str | None = None,
        values: tuple[str, ...] = (),
    ) -> Rendered | None:
        """An ephemeral for `user_id` after `action` (their secret view), or None."""
        return None

    def public(self, session: Session, action: str) -> Rendered | None:
        """What a `public_actions` button shows anyone who presses it, privately, or None."""
        return None

    def announce(
        self, session: Session, user_id: int, action: str, values: tuple[str, ...]
    ) -> Rendered | None:
        """A public message that pings someone the move involves (a challenge), or None.
        Editing the table does not notify anyone; a new message does."""
        return None

    def message_after(
        self, session: Session, user_id: int, action: str, arg: str | None
    ) -> Rendered:
        """What an off-table message (an ephemeral, a vote) shows after a click on it."""
        return Rendered(embed=discord.Embed(description=_("Done.")))

    def side_message(self, session: Session, key: str) -> Rendered:
        """The message of `side_messages`'s `key` as it stands now (closed: its result)."""
        raise KeyError(key)

    @staticmethod
    def thinking_line(bots: list[int]) -> str:
        """'🤖 Dicey is thinking…': what the table waits for while bots make their moves."""
        return _n(
            "{names} is thinking…",
            "{names} are thinking…",
            len(bots),
            names=[who(b) for b in bots],
        )

    def summary(self, session: Session, table: Rendered) -> Rendered | None:
        """What a table message says once a newer one is posted below it: its last moves,
        no buttons (so only the live table can be pressed). None for a lobby: it has no
        moves to keep, and a pointer to a lobby below would outlive that lobby once it is
        cancelled or closes (the old message is deleted instead)."""
        return self.summary_of(session.state, table.embed.title) if session.started else None

    def summary_of(self, state: StateT, title: str | None) -> Rendered:
        """`summary` of a started game in `state`, its table titled `title`."""
        log = [render(line) for line in list(getattr(state, "log", None) or [])[-2:]]
        embed = discord.Embed(
            title=title,
            description="\n".join([*log, _("⬇ The live table is below.")]),
            colour=EMBED_COLOUR,
        )
        return Rendered(embed=embed)

    @abstractmethod
    def render(self, session: Session) -> Rendered:
        """The public table for a started game, rendered only from the public view."""

    @abstractmethod
    def rules_embed(
        self, settings: GuildSettings, session: Session | None, preset: str | None
    ) -> discord.Embed:
        """The rules of the running game, or of a chosen preset, readable on a phone."""

    def rules_here(self, settings: GuildSettings, session: Session | None, model: type[R]) -> R:
        """The rules `rules_embed` shows: those of this game's table in the channel (as it
        is played, or as its lobby keeps them), else the settings' (`rules_of`). `model` is
        the game's rules model (`rules_model`), given so the rules come back as that type."""
        if session is not None and session.kind == self.kind:
            kept = session.state.rules if session.started else session.lobby.options["rules"]
            return model.model_validate(kept)
        return model.model_validate(self.rules_of(settings))

    # ------------------------------------------------------------------ components

    def button(
        self,
        session: Session,
        action: str,
        label: str,
        *,
        arg: object = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        row: int | None = None,
        emoji: discord.PartialEmoji | None = None,
    ) -> TableItem:
        """A button of this session's game, stamped with the decision it answers."""
        text = None if arg is None else str(arg)
        return button(
            self.kind,
            action,
            session.channel_id,
            session.game_id,
            self.stamp_of(session.state, action, text),
            label,
            arg=text,
            style=style,
            disabled=disabled,
            row=row,
            emoji=emoji,
        )

    def stamped(self, session: Session, stamp: int) -> StampedButtons:
        """The buttons of a table that all answer one decision, `stamp` (`stamp_of` of any
        of them): what they share is read once for all of them."""
        return StampedButtons(self.kind, session.channel_id, session.game_id, stamp)

    def select(
        self,
        session: Session,
        action: str,
        options: list[tuple[str, str]] | list[tuple[str, str, discord.PartialEmoji | None]],
        *,
        placeholder: str,
        arg: object = None,
    ) -> TableItem:
        """A single-choice select of this session's game, stamped like `button`."""
        return select(
            self.kind,
            action,
            session.channel_id,
            session.game_id,
            self.stamp_of(session.state, action, None if arg is None else str(arg)),
            options,
            placeholder=placeholder,
            arg=arg,
        )

    # ------------------------------------------------------------------ the end

    def finished_footer(self) -> str:
        """A finished table's footer: what one can do next (the service adds the button)."""
        return _("Rematch below, or {command} for a new game", command=spoken(f"{self.kind} start"))

    @staticmethod
    def departure_line(why: Line) -> str:
        """The finished table's headline when players left (or nobody played) and nobody won:
        `why` is the engine's reason (a message, or the English a game saved earlier kept)."""
        if is_idle(why):
            return _("**Abandoned:** {why}, so nobody wins.", why=why)
        return _("**Game over:** {why}, so nobody wins.", why=why)

    # ------------------------------------------------------------------ lobby

    def render_lobby(self, session: Session, settings: GuildSettings) -> Rendered:
        lobby = session.lobby
        # A phone shows the whole lobby above its buttons: the rules in one paragraph, the
        # timer and closing time in one line, the players on one line, how to start below.
        names = _(", ").join(
            _("{player} (host)", player=who(p.id)) if p.id == lobby.starter else who(p.id)
            for p in lobby.players
        ) or _("nobody yet")
        clock = timer_line(settings)
        if session.deadline is not None:
            clock = _(
                "{timer} · ⏱ Closes {when} unless someone starts it.",
                timer=clock,
                when=f"<t:{int(session.deadline)}:R>",
            )
        description = self.lobby_description(lobby, settings) + "\n" + clock
        embed = discord.Embed(
            title=_("{game}: join the table", game=_(self.title)),
            description=description[:4096],
            colour=EMBED_COLOUR,
        )
        embed.add_field(
            name=_("Players ({count}/{most})", count=len(lobby.players), most=lobby.max_players),
            value=names[:1024],
            inline=False,
        )
        embed.set_footer(
            text=_n(
                "{low}-{n} player, bots included. Join, then any player here presses Start.",
                "{low}-{n} players, bots included. Join, then any player here presses Start.",
                lobby.max_players,
                low=lobby.min_players,
            )
        )
        items = [
            self.button(session, "join", _("Join"), style=discord.ButtonStyle.success),
            self.button(session, "leave", _("Leave")),
            self.button(
                session,
                "start",
                _("Start"),
                style=discord.ButtonStyle.primary,
                disabled=len(lobby.players) < lobby.min_players,
            ),
            self.button(session, "cancel", _("Cancel"), style=discord.ButtonStyle.danger),
            self.button(
                session,
                "addbot",
                _("Add bot"),
                disabled=len(lobby.players) >= lobby.max_players,
            ),
            self.button(session, "dropbot", _("Remove bot"), disabled=not lobby.bots()),
        ]
        return Rendered(embed=embed, items=items)


def timer_line(settings: GuildSettings) -> str:
    """The lobby's words about the turn timer the game will have."""
    if not settings.turn_timer:
        return _("⏳ No turn timer")
    return _("⏳ **{time}** for each move", time=one_unit(settings.turn_timer))
