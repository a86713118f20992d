"""A game's waiting room: who has joined and who may start it. Shared by every game."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

from pydantic import BaseModel, Field

from games.bots import bot_name, is_bot, next_bot_id
from games.copies import replaced
from games.errors import LobbyError, NotInGame
from games.text import M, Mn


class HasId(Protocol):
    id: int


P = TypeVar("P", bound=HasId)


def seated(players: Iterable[P], user_id: int) -> P:
    """The player with this id; NotInGame for anyone else. Every engine's `player()`."""
    for p in players:
        if p.id == user_id:
            return p
    raise NotInGame(M("You are not in this game."))


class Seat(BaseModel):
    """A player as the table knows them: a Discord user id (or a bot's, see games.bots) and
    the name shown."""

    id: int
    name: str


class Lobby(BaseModel):
    """Players gather here until one of them (or an admin) starts the game.

    `starter` is the host: the player who opened the lobby until they leave, then the
    earliest player still in it. The host (or an admin) may cancel the lobby."""

    starter: int
    players: list[Seat] = Field(default_factory=list)
    min_players: int = 2
    max_players: int = 8
    options: dict[str, object] = Field(default_factory=dict)

    def has(self, user_id: int) -> bool:
        return any(p.id == user_id for p in self.players)

    def working_copy(self) -> Lobby:
        """A copy a press changes, kept only if it is saved: its own list of players and
        its own options, the seats and the option values shared with this lobby (nothing
        changes them in place: a seat is replaced, an option set anew). A tenth of the cost
        of a deep copy, which every Join and Start made."""
        return replaced(self, players=list(self.players), options=dict(self.options))

    def join(self, seat: Seat) -> None:
        """Seat a person; on a full table a bot (the last one added) gives up its seat."""
        if self.has(seat.id):
            raise LobbyError(M("You have already joined this game."))
        if len(self.players) >= self.max_players:
            if not self.bots():
                raise self._full()
            self.remove_bot()
        self.players.append(seat)

    def leave(self, user_id: int) -> Seat | None:
        """Take the player out; when they were the host, the earliest person left becomes
        the host, and is returned (None: the host did not change, or nobody is left). A bot
        never hosts: when the last person leaves, the bots go too."""
        if not self.has(user_id):
            raise LobbyError(M("You are not in this lobby."))
        self.players = [p for p in self.players if p.id != user_id]
        if not self.humans():
            self.players = []
            return None
        if user_id == self.starter:
            self.starter = self.humans()[0].id
            return self.humans()[0]
        return None

    def humans(self) -> list[Seat]:
        return [p for p in self.players if not is_bot(p.id)]

    def bots(self) -> list[Seat]:
        return [p for p in self.players if is_bot(p.id)]

    def add_bot(self) -> Seat:
        """Seat the next bot; refused when the table is full (a person always has a seat)."""
        if len(self.players) >= self.max_players:
            raise self._full()
        bot_id = next_bot_id(p.id for p in self.players)
        if bot_id is None:  # pragma: no cover - more bots than any table seats
            raise LobbyError(M("No more bots can join."))
        seat = Seat(id=bot_id, name=bot_name(bot_id))
        self.players.append(seat)
        return seat

    def _full(self) -> LobbyError:
        return LobbyError(
            Mn(
                "The table is full ({n} player).",
                "The table is full ({n} players).",
                self.max_players,
            )
        )

    def remove_bot(self) -> Seat:
        """Take out the bot that joined last."""
        bots = self.bots()
        if not bots:
            raise LobbyError(M("There is no bot in this lobby."))
        self.players.remove(bots[-1])
        return bots[-1]

    def check_bots(self, user_id: int, is_admin: bool) -> None:
        if not self.has(user_id) and not is_admin:
            raise LobbyError(
                M("Only a player in the lobby (or a server manager) can add or remove bots.")
            )

    def check_start(self, user_id: int, is_admin: bool) -> None:
        if not self.has(user_id) and not is_admin:
            # "Join first" only while joining is possible (a full table seats a person in a
            # bot's place, but not in a person's).
            can_join = len(self.players) < self.max_players or bool(self.bots())
            raise LobbyError(
                M("Only a player in the lobby (or a server manager) can start it: join first.")
                if can_join
                else M("Only a player in the lobby (or a server manager) can start it.")
            )
        if len(self.players) < self.min_players:
            raise LobbyError(
                Mn(
                    "At least {n} player is needed to start.",
                    "At least {n} players are needed to start.",
                    self.min_players,
                )
            )

    def check_cancel(self, user_id: int, is_admin: bool) -> None:
        if user_id != self.starter and not is_admin:
            raise LobbyError(M("Only the host of the lobby (or a server manager) can cancel it."))
