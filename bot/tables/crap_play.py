"""CRAP's rules half (`GameRules`): lobby options, moves from the table's buttons and the
"My hand" menus, timeouts, the bluff window's deadline, whom the game waits on, the record's
card checks and the outcome, asked of games/crap. The table it is shown on is
bot/tables/crap.py."""

from __future__ import annotations

import random
from typing import Any

from bot.settings import GuildSettings
from bot.tables.crap_waiting import awaited, waiting_on
from bot.tables.rules import GameRules, Move, Outcome, placed
from games.autoplay import Chooser
from games.bots import only_bots
from games.crap import engine, policy, record
from games.crap.cards import SUITS, is_joker, label, rank, rank_words
from games.crap.engine import Action, ActionKind, CPlayer, CrapRules, CrapState
from games.errors import IllegalMove
from games.numbers import is_number
from games.text import M, Mn, Msg, Part

#: The actions a "target" menu names with their player ("challenge-<id>"...).
_TARGETED: dict[str, ActionKind] = {
    "challenge": "challenge",
    "cooperate": "cooperate",
    "force": "force",
}


class CrapPlay(GameRules[CrapState]):
    kind = "crap"
    min_players = 3
    max_players = 6
    engine = engine
    policy = policy
    state_model = CrapState
    rules_model = CrapRules

    def drawn_text(self, what: str, item: Any) -> str:
        """The deck, a random discard and cards placed for a timed-out player are cards."""
        if what in ("deck", "discard", "cards") and isinstance(item, int):
            return label(item)
        return str(item)

    def record_problems(self, entries: list[Any]) -> list[Msg]:
        """A whole deck shuffled first; real cards, each once, in every pile drawn from."""
        return record.problems(entries)

    def stamp(self, state: CrapState | None, action: str, arg: str | None) -> int:
        # "My hand" shows your cards, and "Log" the game's log, whenever you ask; "Let
        # bluffs go" is your own setting, good at any time.
        if state is None or action in ("hand", "log", "letgo"):
            return 0
        return engine.decision(state)

    def rules_of(self, settings: GuildSettings) -> CrapRules:
        return CrapRules(
            threshold=settings.crap_threshold,
            jokers=settings.crap_jokers,
            force_recycle=settings.crap_force_recycle,
            bluff_window=settings.crap_bluff_window,
        )

    def apply(self, state: CrapState, move: Move, rng: random.Random) -> CrapState:
        action = self._action(state, move)
        return engine.apply(state, move.user_id, action, rng)[0]

    def _action(self, state: CrapState, move: Move) -> Action:
        value = move.values[0] if move.values else None
        now = move.now
        act = move.action
        if act == "score":
            r, _, size = (value or "").partition("-")
            if not is_number(r) or not (size == "" or is_number(size)):
                raise IllegalMove(M("Choose what to score."))
            return Action(
                kind="score",
                cards=_pick_set(state.player(move.user_id), int(r), int(size or 4)),
                now=now,
            )
        if act == "acquire":
            if not is_number(value):
                raise IllegalMove(M("Choose a value to acquire."))
            return Action(kind="acquire", rank=int(value or 0), now=now)
        if act == "protect":
            if not is_number(value):
                raise IllegalMove(M("Choose a card to protect."))
            return Action(kind="protect", cards=[int(value or 0)], now=now)
        if act == "target":
            named, _, target = (value or "").partition("-")
            kind = _TARGETED.get(named)
            if kind is None or not is_number(target):
                raise IllegalMove(M("Choose a player and what to do with them."))
            return Action(kind=kind, target=int(target), now=now)
        if act == "recycle":
            return Action(kind="recycle", now=now)
        if act == "bluff":
            return Action(kind="call_bluff", now=now)
        if act == "nocall":
            return Action(kind="no_call", now=now)
        if act == "commit":
            if not all(is_number(v) for v in move.values):
                raise IllegalMove(M("Choose your cards."))
            return Action(kind="commit", cards=[int(v) for v in move.values], now=now)
        if act == "guess":
            return _guess(move)
        if act == "vote":
            return Action(kind="vote", value=move.arg, now=now)
        if act == "letgo":
            if move.arg not in ("on", "off"):
                raise IllegalMove(M("Turn Let bluffs go on or off."))
            return Action(kind="let_go_all", value=move.arg, now=now)
        raise IllegalMove(M("That button does not belong to CRAP."))

    def timeout(
        self, state: CrapState, rng: random.Random, now: float, chooser: Chooser | None = None
    ) -> CrapState:
        return engine.timeout(state, rng, now, chooser)[0]

    def clock_holders(self, state: CrapState) -> list[int]:
        return engine.waiting_for(state)

    def extra_deadline(self, state: CrapState) -> float | None:
        return engine.next_deadline(state)

    def expire_extra(self, state: CrapState, now: float, rng: random.Random) -> CrapState:
        return engine.expire(state, now, rng)[0]

    def remove_player(self, state: CrapState, user_id: int) -> CrapState:
        return engine.remove_player(state, user_id)[0]

    def player_ids(self, state: CrapState) -> list[int]:
        return [p.id for p in state.players]

    def on_clock(self, state: CrapState) -> int | None:
        return engine.on_clock(state)

    def waiting_on(self, state: CrapState) -> dict[int, str]:
        return waiting_on(state)

    def steps_changed(self, before: CrapState, after: CrapState) -> list[int]:
        """In a challenge, whoever a move gave a new step (place cards, name a card) or
        took one from: their open My hand shows what to do now."""
        if "challenge" not in (before.phase, after.phase):
            return []
        return [
            p.id
            for p in after.players
            if engine.legal_actions(before, p.id) != engine.legal_actions(after, p.id)
        ]

    def thinking(self, state: CrapState) -> list[int]:
        """The bots the table waits on (⏳, whose turn it is, or who may still call an
        Acquire's bluff), when it waits on bots alone."""
        if state.finished:
            return []
        if state.phase == "acquire":  # the window is anyone's who may still call the bluff
            acting = [
                p.id for p in state.players if "call_bluff" in engine.legal_actions(state, p.id)
            ]
        else:
            acting = awaited(state) or [state.current_player.id]
        return acting if acting and only_bots(acting) else []

    def is_finished(self, state: CrapState) -> bool:
        return state.finished

    def outcome(self, state: CrapState) -> Outcome:
        # players who left come last, so they are invited to a rematch and keep their stats
        ranked = sorted(state.players, key=lambda p: -p.score) + state.departed
        names: list[Part] = [p.name for p in state.players if p.id in state.winners]
        return Outcome(
            players=[{"id": p.id, "name": p.name} for p in ranked],
            scores={str(p.id): p.score for p in ranked},
            winner_id=state.winners[0] if state.winners else None,
            rules=state.rules.model_dump(mode="json") | {"winners": state.winners},
            stats={
                str(p.id): {
                    "sets": p.sets_scored,
                    "best_round": p.best_round,
                    "bluffs": p.bluffs,
                    "calls": p.calls,
                }
                for p in ranked
            },
            winners=list(state.winners),
            places=placed(engine.finishing_order(state)),
            summary=(
                self.departure_summary(state.ended_by_departure)
                if state.ended_by_departure
                else Mn("{names} wins.", "{names} win.", len(names), names=names)
                if names
                else M("Nobody wins.")
            ),
        )



def _guess(move: Move) -> Action:
    """A card named in a challenge: one select where the player picks a value and a suit
    (two of its options), or (a reply drawn before) a suit picked for the value in `arg`."""
    values = list(move.values)
    if is_number(move.arg) and len(values) == 1:
        values.append(str(move.arg))
    ranks = [int(v) for v in values if is_number(v)]
    suits = [v for v in values if v in SUITS]
    if len(ranks) != 1 or len(suits) != 1 or len(values) != 2:
        raise IllegalMove(M("Name a value (2 to Ace) and a suit."))
    return Action(kind="guess", rank=ranks[0], suit=suits[0], now=move.now)


def _pick_set(player: CPlayer, r: int, size: int) -> list[int]:
    """The cards a "Score" choice uses: naturals first (hand, then protected), then jokers."""
    if size not in (4, 8):
        raise IllegalMove(M("A set is four cards, or eight for a double set."))
    naturals = [c for c in player.hand + player.protected if rank(c) == r]
    jokers = [c for c in player.hand + player.protected if is_joker(c)]
    if not naturals:
        raise IllegalMove(M("You hold no {ranks}.", ranks=rank_words(r)))
    picked = (naturals + jokers)[:size]
    if len(picked) < size:
        raise IllegalMove(
            M(
                "You need {size} {ranks} (jokers count) to score that.",
                size=size,
                ranks=rank_words(r),
            )
        )
    return picked
