"""Farkle's rules half (`GameRules`): lobby options, moves from button presses, timeouts and
the outcome, asked of games/farkle. The table it is shown on is bot/tables/farkle.py."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from bot.errors import UserError
from bot.i18n import _
from bot.settings import GuildSettings, SettingsError
from bot.tables.rules import GameRules, Move, Outcome, placed
from games.autoplay import Chooser
from games.bots import bot_seats
from games.errors import IllegalMove
from games.farkle import engine, policy
from games.farkle.engine import Action, ActionKind, FarklePlayer, FarkleState
from games.farkle.rules import FarkleRules
from games.numbers import number
from games.shared import rules_model
from games.text import M

#: The buttons' actions, as the engine names them.
_ACTIONS: dict[str, ActionKind] = {
    "toggle": "toggle",
    "roll": "roll",
    "bank": "bank",
    "piggy": "piggyback",
    "bestroll": "roll",
    "bestbank": "bank",
}


class FarklePlay(GameRules[FarkleState]):
    kind = "farkle"
    min_players = 2
    max_players = 10
    engine = engine
    policy = policy
    #: Whether a game with a bot seat starts building its rules' win table (a child
    #: process of a few minutes per rule set; the bot sets it from `farkle_tables`).
    build_tables = False
    quick_bot_actions = frozenset({"toggle"})
    state_model = FarkleState
    rules_model = FarkleRules

    def rules_of(self, settings: GuildSettings) -> FarkleRules:
        """The server's preset with its house rules (UserError when they do not make a game)."""
        try:
            return settings.farkle_rules()
        except SettingsError as exc:
            raise UserError(str(exc)) from None

    def bot_preparation(self, state: FarkleState) -> Callable[[], object] | None:
        """A game with a bot seat: start building the rules' win table in the background
        (the bot plays the expected-score fallback until it is ready)."""
        if self.build_tables and bot_seats(p.id for p in state.players):
            return functools.partial(policy.warm, state.rules)
        return None

    def lobby_max_players(self, options: dict[str, Any]) -> int:
        """Per rule set: Crappy Malappy has no limit, so up to what a table shows (25)."""
        return int(rules_model(FarkleRules, options["rules"]).max_players)

    def stamp(self, state: FarkleState | None, action: str, arg: str | None) -> int:
        return 0 if state is None else engine.decision(state)

    def apply(self, state: FarkleState, move: Move, rng: random.Random) -> FarkleState:
        kind = _ACTIONS.get(move.action)
        if kind is None:
            raise IllegalMove(M("That button does not belong to Farkle."))
        index, select = None, None
        if kind == "toggle" and move.arg is not None:
            # "<die>-on" / "<die>-off": the state the tap asks for; a bare "<die>" flips it.
            die, _, want = move.arg.partition("-")
            index = number(die)
            select = {"on": True, "off": False}.get(want)
        action = Action(
            kind=kind,
            index=index,
            select=select,
            best=move.action in ("bestroll", "bestbank"),
        )
        return engine.apply(state, move.user_id, action, rng)[0]

    def timeout(
        self, state: FarkleState, rng: random.Random, now: float, chooser: Chooser | None = None
    ) -> FarkleState:
        return engine.timeout(state, rng, chooser)[0]

    def remove_player(self, state: FarkleState, user_id: int) -> FarkleState:
        return engine.remove_player(state, user_id)[0]

    def player_ids(self, state: FarkleState) -> list[int]:
        return [p.id for p in state.players]

    def on_clock(self, state: FarkleState) -> int | None:
        return None if state.finished else state.current_player.id

    def waiting_on(self, state: FarkleState) -> dict[int, str]:
        return {} if state.finished else {state.current_player.id: _("your turn to roll")}

    def waiting_ids(self, state: FarkleState) -> list[int]:
        return [] if state.finished else [state.current_player.id]

    def is_finished(self, state: FarkleState) -> bool:
        return state.finished

    def outcome(self, state: FarkleState) -> Outcome:
        ranked = engine.standings(state)
        winner = next((p for p in ranked if p.id == state.winner), None)
        return Outcome(
            players=[{"id": p.id, "name": p.name} for p in ranked],
            scores={str(p.id): p.score for p in ranked},
            winner_id=state.winner,
            rules=state.rules.model_dump(mode="json"),
            places=placed(engine.finishing_order(state)),
            stats={str(p.id): self._stats(state, p) for p in ranked},
            summary=(
                self.departure_summary(state.ended_by_departure)
                if state.ended_by_departure
                else M("{name} wins with {points}.", name=winner.name, points=winner.score)
                if winner
                else M("Nobody wins.")
            ),
        )

    @staticmethod
    def _stats(state: FarkleState, player: FarklePlayer) -> dict[str, int]:
        """A player's counters for /stats, in the rule set's own words: crappys (and crappy
        malappys, where they count) in Crappy Malappy, farkles elsewhere."""
        stats = {
            f"{state.rules.farkle_word}s": player.farkles,
            "hot_dice": player.hot_dice,
            "best_turn": player.best_turn,
        }
        if state.rules.crappy_malappy_wins:
            stats["malappys"] = player.malappys
        return stats

