"""The rules half of a game's adapter: what the bot asks of a game's engine and policy (a new
game, a move, a timeout, whose turn it is, the outcome), with no Discord in it. The rendering
half, `TableAdapter` in bot/tables/base.py, builds on it."""

from __future__ import annotations

import logging
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel

from bot.i18n import _
from bot.settings import GuildSettings
from games.autoplay import Chooser
from games.bots import bot_seats, only_bots
from games.lobby import Lobby, Seat
from games.places import Order, places
from games.shared import rules_json, rules_model
from games.text import Line, M, Msg

log = logging.getLogger(__name__)

#: A game's state: the engine's pydantic model (FarkleState, KurikiState, CrapState).
StateT = TypeVar("StateT", bound=BaseModel)
_S = TypeVar("_S", bound=BaseModel)
_S_contra = TypeVar("_S_contra", bound=BaseModel, contravariant=True)
_A_contra = TypeVar("_A_contra", contravariant=True)


class Kinded(Protocol):
    """A move as the engines define it: its `kind` names the action ("roll", "bid", ...)."""

    @property
    def kind(self) -> str: ...


class Engine(Protocol[_S, _A_contra]):
    """What the adapters call of a game's engine module (games/<game>/engine.py)."""

    def legal_actions(self, state: _S, user_id: int, /) -> Collection[str]: ...

    def apply(
        self, state: _S, user_id: int, action: _A_contra, rng: random.Random, /
    ) -> tuple[_S, list[Any]]: ...

    def abandon(self, state: _S, why: Line, /) -> tuple[_S, list[Any]]: ...

    def new_game(
        self, seats: list[Seat], rules: Any, rng: random.Random, /
    ) -> tuple[_S, list[Any]]: ...


class Policy(Protocol[_S_contra]):
    """What the adapters call of a game's bot player (games/<game>/policy.py)."""

    def choose(
        self, state: _S_contra, seat: int, rng: random.Random, now: float = ..., /
    ) -> Kinded | None: ...


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
            self.bots = sorted(bot_seats(_player_id(p) for p in self.players))


def _player_id(player: dict[str, object]) -> int:
    """An `Outcome.players` entry's id (the adapters write it as an int)."""
    pid = player["id"]
    if not isinstance(pid, int | str):
        raise TypeError(f"a player's id is {pid!r}")
    return int(pid)


def placed(order: Order) -> dict[str, int]:
    """An engine's finishing order as `Outcome.places`."""
    return {str(pid): place for pid, place in places(order).items()}


STAMP_MODULUS = 10**10  # a custom_id's stamp has at most 10 digits


class GameRules(ABC, Generic[StateT]):
    """The engine side of one game: every question about the state is asked of the engine,
    and nothing here renders. `StateT` is the engine's state model."""

    kind: ClassVar[str]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 8
    state_model: type[StateT]
    #: The engine's rules model (FarkleRules, KurikiRules, CrapRules): a lobby keeps the
    #: rules its game will be played by as this model's JSON (`lobby_options`).
    rules_model: type[BaseModel]
    #: The pure engine and the bot player's policy (`choose(state, seat, rng, now)`). The
    #: engine's move type differs per game (each engine's `Action`): the policy's moves go
    #: to the engine as they come, so it is left open here.
    engine: Engine[StateT, Any]
    policy: Policy[StateT]
    #: A bot's moves that show nothing worth a pause (picking dice): it moves on at once.
    quick_bot_actions: ClassVar[frozenset[str]] = frozenset()

    def stamp(self, state: StateT | None, action: str, arg: str | None) -> int:
        """The stamp of the decision `action` answers in `state` (this throw, this roll under
        the cup, this turn); 0 for actions that stay good all game (show my hand, a vote that
        names itself in its arg). A click is refused as stale only when the stamp it carries
        differs from the current one, so other players' moves never invalidate it."""
        return 0

    def stamp_of(self, state: StateT | None, action: str, arg: str | None) -> int:
        """`stamp` as a custom_id carries it (10 digits): stamps are only compared, so a
        counter grown absurdly large still renders and still compares."""
        return self.stamp(state, action, arg) % STAMP_MODULUS

    def drawn_text(self, what: str, item: object) -> str:
        """An item of a shuffle or pick the game drew (`what`: the engine's name for it, see
        games/draws.py) as /verify writes it: as it is, unless the game knows better."""
        return str(item)

    def record_problems(self, entries: list[Any]) -> list[Msg]:
        """What is wrong with a finished game's record of draws (its entries, in order)
        besides what the seed gives, each naming its draw: the game's own rules of what a
        pile may hold (CRAP's cards). None here."""
        return []

    def bot_preparation(self, state: StateT) -> Callable[[], object] | None:
        """What readies the bot players' policy for this game (it may block for a moment:
        the service runs it in a thread when the game starts), or None: nothing to do, so
        most game starts cost no thread at all."""
        return None

    # ------------------------------------------------------------------ lobby

    @abstractmethod
    def rules_of(self, settings: GuildSettings) -> BaseModel:
        """The rules a lobby's game will be played by, from its settings (the server's, or
        the host's start options over the bot's defaults: bot/lobby_settings.py). Raises
        UserError when they do not make a game."""

    def lobby_options(self, settings: GuildSettings) -> dict[str, Any]:
        """The lobby's options from its settings: the rules of `rules_of`, as JSON."""
        return {"rules": rules_json(self.rules_of(settings))}

    def lobby_max_players(self, options: dict[str, Any]) -> int:
        """The most players a lobby with these (validated) options takes."""
        return self.max_players

    def new_game(self, lobby: Lobby, settings: GuildSettings, rng: random.Random) -> StateT:
        """The started game's state, by the rules the lobby kept (`lobby_options`)."""
        rules = rules_model(self.rules_model, lobby.options["rules"])
        return self.engine.new_game(lobby.players, rules, rng)[0]

    # ------------------------------------------------------------------ moves

    @abstractmethod
    def apply(self, state: StateT, move: Move, rng: random.Random) -> StateT:
        """The state after a player's move; raises GameError when it is refused."""

    @abstractmethod
    def timeout(
        self, state: StateT, rng: random.Random, now: float, chooser: Chooser | None = None
    ) -> StateT:
        """The state after the player on the clock ran out of time; `chooser` (see
        `chooser`) makes their move as a bot would, the engine's fixed rule otherwise."""

    def extra_deadline(self, state: StateT) -> float | None:
        """A deadline other than the turn timer's (e.g. a vote closing); None: none."""
        return None

    def expire_extra(self, state: StateT, now: float, rng: random.Random) -> StateT:
        """The state after the deadlines of `extra_deadline` that passed by `now`."""
        return state

    @abstractmethod
    def remove_player(self, state: StateT, user_id: int) -> StateT:
        """The state after a player left."""

    def abandon(self, state: StateT, why: Line) -> StateT:
        """The game ended with no winner because of a departure."""
        return self.engine.abandon(state, why)[0]

    # ------------------------------------------------------------------ who is asked

    @abstractmethod
    def player_ids(self, state: StateT) -> list[int]:
        """Players still seated."""

    def present_ids(self, state: StateT) -> list[int]:
        """Players who have not left (a player knocked out is still at the table)."""
        return self.player_ids(state)

    @abstractmethod
    def on_clock(self, state: StateT) -> int | None:
        """Whose move the game waits for (None: nobody, so no timer)."""

    def clock_holders(self, state: StateT) -> list[int]:
        """Everyone a timeout now plays for."""
        player = self.on_clock(state)
        return [] if player is None else [player]

    def waiting_on(self, state: StateT) -> dict[int, str]:
        """Who the game waits on, each with what for ("your turn"): a player who joins this
        set is mentioned in a freshly posted table, the only way Discord notifies anyone."""
        player = self.on_clock(state)
        return {} if player is None else {player: _("your move")}

    def waiting_ids(self, state: StateT) -> list[int]:
        """Who the game waits on (`waiting_on`'s players), without saying what for: every
        commit asks, and the saying is translated."""
        return list(self.waiting_on(state))

    def thinking(self, state: StateT) -> list[int]:
        """The bots the table waits on, when it waits on bots alone (empty: a person is
        asked). Meanwhile the table says so in words and shows only what a person can use
        (their own hand, a peek), never the buttons of the bot's move."""
        waiting = self.waiting_ids(state)
        return waiting if waiting and only_bots(waiting) else []

    def steps_changed(self, before: StateT, after: StateT) -> list[int]:
        """The players whose part in the game a move changed (a challenge's next step): the
        private reply they have open (`private` of "hand") is shown again. None by default."""
        return []

    def side_messages(self, state: StateT) -> dict[str, str]:
        """The public messages besides the table that show a decision still open (Kuriki's
        foul votes), by key, each with a fingerprint of what it shows: a commit that changes
        the fingerprint or closes the decision edits the message (`side_message`), whoever
        made it, a person, a bot or a timer. None by default."""
        return {}

    # ------------------------------------------------------------------ bots

    def chooser(self, rng: random.Random, now: float) -> Chooser:
        """The policy as the engines' timeouts ask it: a policy that fails is logged and
        answers None, so the engine plays its fixed rule and the game goes on."""

        def choose(state: StateT, seat: int) -> Kinded | None:
            try:
                return self.policy.choose(state, seat, rng, now)
            except Exception:
                log.exception("The %s policy failed for seat %s", self.kind, seat)
                return None

        return choose

    def can_act(self, state: StateT, seat: int) -> bool:
        """Whether `seat` may move now (a bot that can is given its move)."""
        return bool(self.engine.legal_actions(state, seat))

    def bot_move(
        self,
        state: StateT,
        seat: int,
        rng: random.Random,
        now: float,
        choices: random.Random | None = None,
    ) -> StateT:
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

    # ------------------------------------------------------------------ the end

    @abstractmethod
    def is_finished(self, state: StateT) -> bool: ...

    @abstractmethod
    def outcome(self, state: StateT) -> Outcome: ...

    @staticmethod
    def departure_summary(why: Line) -> Msg:
        """The finished-games outcome of a game that players left (stored as a message)."""
        return M("Nobody wins: {why}.", why=why)
