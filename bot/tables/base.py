"""What every game adapter provides, and the lobby table all games share."""

from __future__ import annotations

import logging
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, ClassVar

import discord
from pydantic import BaseModel

from bot.components import TableItem, button, select, view_of
from bot.i18n import N_, _, _n, one_unit, render
from bot.mentions import spoken
from bot.pictures.emojis import Faces
from bot.players import who
from bot.sessions import Session
from bot.settings import GuildSettings
from games.autoplay import Chooser, is_idle
from games.bots import bot_seats, only_bots
from games.lobby import Lobby
from games.places import Order, places
from games.text import Line, M, Msg

log = logging.getLogger(__name__)

EMBED_COLOUR = discord.Colour.from_rgb(88, 101, 242)
STAMP_MODULUS = 10**10  # a custom_id's stamp has at most 10 digits


@dataclass(frozen=True)
class Move:
    """A player's move as the adapter receives it: the action and its argument from the
    custom_id, a select's values, the clock, and whether the player manages the server."""

    user_id: int
    action: str
    arg: str | None = None
    values: tuple[str, ...] = ()
    now: float = 0.0
    is_admin: bool = False


@dataclass
class Outcome:
    """How a finished game is recorded."""

    players: list[dict[str, object]]
    scores: dict[str, int]
    winner_id: int | None
    rules: dict[str, object]
    #: How the game ended, in the reader's language wherever it is read (a message).
    summary: Line
    #: Each player's counters for /stats, by player id (as text): {"farkles": 3, ...}.
    stats: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Everyone who won, when that can be more than `winner_id` (a tie in CRAP).
    winners: list[int] = field(default_factory=list)
    #: The seats that were bots, so results and stats keep them apart from people.
    bots: list[int] = field(default_factory=list)
    #: Each player's finishing place, by player id (as text): 1 first, tied players share
    #: a place (see `placed`). Ratings read it.
    places: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.bots:
            self.bots = sorted(bot_seats(int(p["id"]) for p in self.players))  # type: ignore[call-overload]


def placed(order: Order) -> dict[str, int]:
    """An engine's finishing order as `Outcome.places`."""
    return {str(pid): place for pid, place in places(order).items()}


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

    def view(self) -> discord.ui.View:
        return view_of(self.items)


def vote_tally(yes: Sequence[int], no: Sequence[int]) -> str:
    """A vote's count so far: '1 yes, 0 no', or 'no votes yet' (never '0 yes, 0 no')."""
    if not yes and not no:
        return _("no votes yet")
    return _("{yes} yes, {no} no", yes=len(yes), no=len(no))


class TableAdapter(ABC):
    """The Discord side of one game. No rules live here: legality is asked of the engine."""

    kind: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 8
    state_model: ClassVar[type[BaseModel]]
    #: Actions that only show something (no state change, answered privately).
    read_only_actions: ClassVar[frozenset[str]] = frozenset()
    #: Read-only actions that show only what is public (a log): anyone may press them.
    public_actions: ClassVar[frozenset[str]] = frozenset()
    #: Actions whose components live on a message other than the table (ephemerals, votes).
    off_table_actions: ClassVar[frozenset[str]] = frozenset()
    #: How dice and cards are written: the bot gives its adapters the Faces it loads the
    #: emojis into; this default writes text.
    faces: Faces = Faces()
    #: The pure engine and the bot player's policy (`choose(state, seat, rng, now)`).
    engine: ClassVar[ModuleType]
    policy: ClassVar[ModuleType]
    #: A bot's moves that show nothing worth a pause (picking dice): it moves on at once.
    quick_bot_actions: ClassVar[frozenset[str]] = frozenset()
    #: What the game draws from its sealed seed, as the table's footer says it (bot/sealed.py),
    #: translated where it is shown.
    sealed_what: ClassVar[str] = N_("Dice")

    def stamp(self, state: Any, action: str, arg: str | None) -> int:
        """The stamp of the decision `action` answers in `state` (this throw, this roll under
        the cup, this turn); 0 for actions that stay good all game (show my hand, a vote that
        names itself in its arg). A click is refused as stale only when the stamp it carries
        differs from the current one, so other players' moves never invalidate it."""
        return 0

    def drawn_text(self, what: str, item: Any) -> str:
        """An item of a shuffle or pick the game drew (`what`: the engine's name for it, see
        games/draws.py) as /verify writes it: as it is, unless the game knows better."""
        return str(item)

    def record_problems(self, entries: list[Any]) -> list[Msg]:
        """What is wrong with a finished game's record of draws (its entries, in order)
        besides what the seed gives, each naming its draw: the game's own rules of what a
        pile may hold (CRAP's cards). None here."""
        return []

    def bot_preparation(self, state: Any) -> Callable[[], object] | None:
        """What readies the bot players' policy for this game (it may block for a moment:
        the service runs it in a thread when the game starts), or None: nothing to do, so
        most game starts cost no thread at all."""
        return None

    def lobby_max_players(self, options: dict[str, Any]) -> int:
        """The most players a lobby with these (validated) options takes."""
        return self.max_players

    def players_text(self, settings: GuildSettings) -> str:
        """How many players this server's lobbies take, as /help says it ("2-12 players")."""
        most = self.lobby_max_players(self.lobby_options(settings))
        return _n("{low}-{n} player", "{low}-{n} players", most, low=self.min_players)

    def stamp_of(self, state: Any, action: str, arg: str | None) -> int:
        """`stamp` as a custom_id carries it (10 digits): stamps are only compared, so a
        counter grown absurdly large still renders and still compares."""
        return self.stamp(state, action, arg) % STAMP_MODULUS

    @abstractmethod
    def lobby_options(self, settings: GuildSettings) -> dict[str, Any]:
        """The lobby's options from its settings (the server's, or the host's start options
        over the bot's defaults: bot/lobby_settings.py): the rules its game will be played
        by. Raises UserError when they do not make a game."""

    @abstractmethod
    def lobby_description(self, lobby: Lobby, settings: GuildSettings) -> str:
        """What the lobby message says about the rules that will be played: one paragraph
        ending with the rules command, so the lobby fits a phone's screen."""

    @abstractmethod
    def new_game(self, lobby: Lobby, settings: GuildSettings, rng: random.Random) -> Any:
        """The started game's state."""

    @abstractmethod
    def apply(self, state: Any, move: Move, rng: random.Random) -> Any:
        """The state after a player's move; raises GameError when it is refused."""

    @abstractmethod
    def timeout(
        self, state: Any, rng: random.Random, now: float, chooser: Chooser | None = None
    ) -> Any:
        """The state after the player on the clock ran out of time; `chooser` (see
        `chooser`) makes their move as a bot would, the engine's fixed rule otherwise."""

    # ------------------------------------------------------------------ bots

    def chooser(self, rng: random.Random, now: float) -> Chooser:
        """The policy as the engines' timeouts ask it: a policy that fails is logged and
        answers None, so the engine plays its fixed rule and the game goes on."""

        def choose(state: Any, seat: int) -> Any:
            try:
                return self.policy.choose(state, seat, rng, now)
            except Exception:
                log.exception("The %s policy failed for seat %s", self.kind, seat)
                return None

        return choose

    def can_act(self, state: Any, seat: int) -> bool:
        """Whether `seat` may move now (a bot that can is given its move)."""
        return bool(self.engine.legal_actions(state, seat))

    def bot_move(
        self,
        state: Any,
        seat: int,
        rng: random.Random,
        now: float,
        choices: random.Random | None = None,
    ) -> Any:
        """The state after bot `seat` made its move (quick moves and the one after them);
        the state itself when the policy has nothing to do. Raises when the policy fails
        or its move is refused (the caller falls back). The engine draws from `rng` (the
        game's dice and cards), the policy decides with `choices` (default: `rng` too)."""
        thinking = rng if choices is None else choices
        for _step in range(50):
            action = self.policy.choose(state, seat, thinking, now)
            if action is None:
                return state
            state = self.engine.apply(state, seat, action, rng)[0]
            if action.kind not in self.quick_bot_actions:
                return state
        return state

    def clock_holders(self, state: Any) -> list[int]:
        """Everyone a timeout now plays for."""
        player = self.on_clock(state)
        return [] if player is None else [player]

    def present_ids(self, state: Any) -> list[int]:
        """Players who have not left (a player knocked out is still at the table)."""
        return self.player_ids(state)

    def abandon(self, state: Any, why: str) -> Any:
        """The game ended with no winner because of a departure."""
        return self.engine.abandon(state, why)[0]

    def extra_deadline(self, state: Any) -> float | None:
        """A deadline other than the turn timer's (e.g. a vote closing); None: none."""
        return None

    def expire_extra(self, state: Any, now: float, rng: random.Random) -> Any:
        """The state after the deadlines of `extra_deadline` that passed by `now`."""
        return state

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

    def steps_changed(self, before: Any, after: Any) -> list[int]:
        """The players whose part in the game a move changed (a challenge's next step): the
        private reply they have open (`private` of "hand") is shown again. None by default."""
        return []

    def side_messages(self, state: Any) -> dict[str, str]:
        """The public messages besides the table that show a decision still open (Kuriki's
        foul votes), by key, each with a fingerprint of what it shows: a commit that changes
        the fingerprint or closes the decision edits the message (`side_message`), whoever
        made it, a person, a bot or a timer. None by default."""
        return {}

    def side_message(self, session: Session, key: str) -> Rendered:
        """The message of `side_messages`'s `key` as it stands now (closed: its result)."""
        raise KeyError(key)

    @abstractmethod
    def remove_player(self, state: Any, user_id: int) -> Any:
        """The state after a player left."""

    @abstractmethod
    def player_ids(self, state: Any) -> list[int]:
        """Players still seated."""

    @abstractmethod
    def on_clock(self, state: Any) -> int | None:
        """Whose move the game waits for (None: nobody, so no timer)."""

    def waiting_on(self, state: Any) -> dict[int, str]:
        """Who the game waits on, each with what for ("your turn"): a player who joins this
        set is mentioned in a freshly posted table, the only way Discord notifies anyone."""
        player = self.on_clock(state)
        return {} if player is None else {player: _("your move")}

    def thinking(self, state: Any) -> list[int]:
        """The bots the table waits on, when it waits on bots alone (empty: a person is
        asked). Meanwhile the table says so in words and shows only what a person can use
        (their own hand, a peek), never the buttons of the bot's move."""
        waiting = list(self.waiting_on(state))
        return waiting if waiting and only_bots(waiting) else []

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
        if not session.started:
            return None
        log = [render(line) for line in list(getattr(session.state, "log", None) or [])[-2:]]
        embed = discord.Embed(
            title=table.embed.title,
            description="\n".join([*log, _("⬇ The live table is below.")]),
            colour=EMBED_COLOUR,
        )
        return Rendered(embed=embed)

    @abstractmethod
    def is_finished(self, state: Any) -> bool: ...

    @abstractmethod
    def outcome(self, state: Any) -> Outcome: ...

    @abstractmethod
    def render(self, session: Session) -> Rendered:
        """The public table for a started game, rendered only from the public view."""

    @abstractmethod
    def rules_embed(
        self, settings: GuildSettings, session: Session | None, preset: str | None
    ) -> discord.Embed:
        """The rules of the running game, or of a chosen preset, readable on a phone."""

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

    @staticmethod
    def departure_summary(why: Line) -> Msg:
        """The finished-games outcome of a game that players left (stored as a message)."""
        return M("Nobody wins: {why}.", why=why)

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
