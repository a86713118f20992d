"""The one error hierarchy every engine raises; each message is fit to show a player."""

from __future__ import annotations

from games.text import Msg


class GameError(Exception):
    """A move or request the rules refuse. The state it was applied to is unchanged.

    Its message is a `Msg` (`M("It's not your turn.")`), shown to the player in their own
    language (`bot/errors.py`); `str()` gives the English, for logs and tests."""

    def __init__(self, message: Msg | str = "") -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return str(self.message)


class NotYourTurn(GameError):
    """Someone in the game acted out of turn."""


class NotInGame(GameError):
    """Someone who is not seated in the game tried to act in it."""


class IllegalMove(GameError):
    """A seated player asked for something the rules do not allow now."""


class InvalidSelection(IllegalMove, ValueError):
    """A selection of dice or cards that does not form what it claims to."""


class LobbyError(GameError):
    """Joining, leaving or starting a lobby was refused."""
