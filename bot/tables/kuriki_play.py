"""Kuriki's rules half (`GameRules`): lobby options, moves from buttons, menus and foul
calls, timeouts, vote deadlines and the outcome, asked of games/kuriki. The cup it is shown
on is bot/tables/kuriki.py."""

from __future__ import annotations

import random

from bot.i18n import _
from bot.settings import GuildSettings
from bot.tables.rules import GameRules, Move, Outcome, placed
from games.autoplay import Chooser
from games.errors import IllegalMove
from games.kuriki import engine, policy
from games.kuriki.engine import Action, ActionKind, KurikiRules, KurikiState
from games.numbers import is_number
from games.numbers import number as parsed
from games.text import M, Mn

#: The buttons' and menus' actions, as the engine names them.
_MOVES: dict[str, ActionKind] = {
    "cw": "direction",
    "ccw": "direction",
    "roll": "roll",
    "declare": "declare",
    "pull": "pull",
    "pass": "pass",
    "sneakok": "sneak",
    "reverse": "reverse",
    "vote": "vote",
}


class KurikiPlay(GameRules[KurikiState]):
    kind = "kuriki"
    min_players = 2
    max_players = 12
    engine = engine
    policy = policy
    state_model = KurikiState
    rules_model = KurikiRules
    #: Good all game: a vote names itself in its arg; a peek only shows what you saw.
    _unstamped = frozenset({"vote", "peek"})

    def stamp(self, state: KurikiState | None, action: str, arg: str | None) -> int:
        if state is None or action in self._unstamped:
            return 0
        return engine.decision(state)

    def rules_of(self, settings: GuildSettings) -> KurikiRules:
        return KurikiRules(
            lives=settings.kuriki_lives,
            two_digit=settings.kuriki_two_digit,
            reverse_after_kuriki=settings.kuriki_reverse_after_kuriki,
            stake=settings.kuriki_stake,
            foul_price=settings.kuriki_foul_price,
        )

    def apply(self, state: KurikiState, move: Move, rng: random.Random) -> KurikiState:
        if move.action in ("propose", "rusk"):
            accused, _, reason = (move.arg or "").partition(":")
            if not is_number(accused) or int(accused) not in [p.id for p in state.players]:
                raise IllegalMove(M("That player is not in this game."))
            if move.action == "rusk" and move.is_admin:  # a server manager charges it directly
                return engine.charge_rusk(state, int(accused))[0]
            if move.user_id not in self.player_ids(state):
                raise IllegalMove(M("Only players still in the game can call a foul."))
            action = Action(
                kind="propose",
                value=accused,
                reason=reason,
                rusk=move.action == "rusk",
                now=move.now,
            )
            return engine.apply(state, move.user_id, action, rng)[0]
        kind = _MOVES.get(move.action)
        if kind is None:
            raise IllegalMove(M("That button does not belong to Kuriki."))
        value: str | None = None
        vote: int | None = None
        if move.action in ("cw", "ccw"):
            value = move.action
        elif kind == "declare":
            if not move.values:
                raise IllegalMove(M("Choose a declaration."))
            value = move.values[0]
        elif kind == "vote":
            vote_id, _, choice = (move.arg or "").partition("-")
            vote, value = parsed(vote_id), choice
        action = Action(kind=kind, value=value, vote=vote, now=move.now)
        return engine.apply(state, move.user_id, action, rng)[0]

    def timeout(
        self,
        state: KurikiState,
        rng: random.Random,
        now: float = 0.0,
        chooser: Chooser | None = None,
    ) -> KurikiState:
        return engine.timeout(state, rng, now, chooser)[0]

    def can_act(self, state: KurikiState, seat: int) -> bool:
        """A move of the game, or a foul vote to answer."""
        if engine.legal_actions(state, seat):
            return True
        for vote in state.votes:
            electors = engine.voters(state, vote)
            if seat in electors and seat not in vote.yes + vote.no:
                return True
            if seat == vote.accused and not electors:
                return True
        return False

    def present_ids(self, state: KurikiState) -> list[int]:
        return [p.id for p in state.players if not p.left]

    def remove_player(self, state: KurikiState, user_id: int) -> KurikiState:
        return engine.remove_player(state, user_id)[0]

    def player_ids(self, state: KurikiState) -> list[int]:
        return [p.id for p in state.players if not p.out]

    def on_clock(self, state: KurikiState) -> int | None:
        return engine.on_clock(state)

    def waiting_on(self, state: KurikiState) -> dict[int, str]:
        who = engine.on_clock(state)
        if who is None:
            return {}
        if state.phase == "direction":
            what = (
                _("you rolled highest: choose who plays next")
                if engine.rolled_highest(state)
                else _("you're the first Roller now: choose who plays next")
            )
        elif state.phase == "roll":
            what = _("the cup is yours: roll")
        elif state.phase == "declare":
            what = _("declare your roll")
        else:  # the Next Guy: the table says once who he is and what he may do
            what = _("your move")
        return {who: what}

    def extra_deadline(self, state: KurikiState) -> float | None:
        return engine.next_vote_deadline(state)

    def expire_extra(self, state: KurikiState, now: float, rng: random.Random) -> KurikiState:
        return engine.expire_votes(state, now)[0]

    def is_finished(self, state: KurikiState) -> bool:
        return state.finished

    def outcome(self, state: KurikiState) -> Outcome:
        ranked = sorted(state.players, key=lambda p: (-p.lives, -p.crowns))
        winner = next((p for p in state.players if p.id == state.winner), None)
        return Outcome(
            players=[{"id": p.id, "name": p.name} for p in ranked],
            scores={str(p.id): p.lives for p in ranked},
            winner_id=state.winner,
            # (like CRAP's ties: the row says who shared the win)
            rules=state.rules.model_dump(mode="json")
            | ({"winners": state.winners} if state.winners else {}),
            stats={
                str(p.id): {
                    "kurikis": p.crowns,
                    "fouls": p.fouls,
                    "tarted": int(state.tarted == p.id),
                    "pull_lives": p.pull_lives,
                }
                for p in ranked
            },
            winners=list(state.winners),
            places=placed(engine.finishing_order(state)),
            summary=(
                self.departure_summary(state.ended_by_departure)
                if state.ended_by_departure
                else Mn(
                    "{names} wins: no person was left standing.",
                    "{names} win: no person was left standing.",
                    len(state.winners),
                    names=[state.player(w).name for w in state.winners],
                )
                if state.winners
                else M("{name} wins, the last one standing.", name=winner.name)
                if winner
                else M("Nobody wins.")
            ),
        )

