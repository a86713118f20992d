"""CRAP on a Discord table. The public table shows counts, scored sets, scores and what was
shown to everyone (rendered from `public_view` only); each player's cards and their legal
actions live in the "My hand" ephemeral, built from `private_view` of whoever pressed it."""

from __future__ import annotations

import random
from typing import Any

import discord

from bot.components import TableItem
from bot.mentions import mention
from bot.players import together, who
from bot.sessions import Session
from bot.settings import GuildSettings
from bot.tables.base import EMBED_COLOUR, Move, Outcome, Rendered, TableAdapter, placed, vote_tally
from bot.tables.crap_hand import CrapHand
from bot.tables.fields import add_paged
from games.autoplay import Chooser
from games.bots import is_bot, only_bots
from games.crap import engine, policy
from games.crap.cards import (
    grouped,
    is_joker,
    label,
    rank,
    rank_name,
    rank_words,
)
from games.crap.engine import Action, CrapRules, CrapState
from games.errors import IllegalMove
from games.lobby import Lobby
from games.numbers import is_number, number
from games.words import counted

RULES_TEXT = [
    "On your turn do exactly one thing (press **My hand**):",
    "**Score** four cards of one value (hand or protected; jokers stand in, -1 point each), or "
    "a double set of eight. Aces take a card from the highest set on the table and are worth "
    "its value + 10 (10 if there is none).",
    "**Recycle**: show and discard your hand, roll off a die with the next player (if they roll "
    "higher your protected cards go too), then roll two dice and draw that many.",
    "**Acquire** a value: everyone else hands over their unprotected cards of it. You may bluff; "
    "the first to press **Call bluff** in time calls it: a bluffer discards a random card, an "
    "honest caller shows the card and the bluff-caller discards one. Nobody has to press "
    "anything: the window closes by itself (**Let bluffs go** in My hand lets every Acquire go "
    "for you at once). If nobody has any, an honest caller discards one of that value.",
    "**Challenge** a player: you roll a die, both place that many cards face down, each names a "
    "value and a suit, and draws one card per match (value and suit both: two). Jokers match "
    "nothing.",
    "**Protect** a card (safe from acquire, challenge, co-operate, random discards, and from a "
    "recycle unless the roll-off is lost). **Co-operate**: you and another player see each "
    "other's hands once (then they are returned), and each draws one.",
    "When someone must draw from an empty deck, a scoring round: protected cards return to "
    "hands, sets are banked (face value x 10; J 110, Q 120, K 130; a double set two sets of "
    "(face + 1) x 10), everything but the hands is shuffled into a new deck, and the draw "
    "completes. Reach the threshold in a scoring round to win: the highest total wins, ties share.",
]


class CrapTable(CrapHand, TableAdapter):
    """The public table; the private "My hand" is `CrapHand` (bot/tables/crap_hand.py)."""

    kind = "crap"
    title = "CRAP"
    min_players = 3
    max_players = 6
    engine = engine
    policy = policy
    state_model = CrapState
    read_only_actions = frozenset({"hand", "pickrank", "log"})
    public_actions = frozenset({"log"})  # the log is public: spectators may read it too
    sealed_what = "Cards and dice"

    def drawn_text(self, what: str, item: Any) -> str:
        """The deck, a random discard and cards placed for a timed-out player are cards."""
        if what in ("deck", "discard", "cards") and isinstance(item, int):
            return label(item)
        return str(item)

    def stamp(self, state: CrapState | None, action: str, arg: str | None) -> int:
        # "My hand" shows your cards, and "Log" the game's log, whenever you ask; "Let
        # bluffs go" is your own setting, good at any time.
        if state is None or action in ("hand", "log", "letgo"):
            return 0
        return engine.decision(state)

    # ---------------------------------------------------------------- lobby

    def rules_of(self, settings: GuildSettings) -> CrapRules:
        return CrapRules(
            threshold=settings.crap_threshold,
            jokers=settings.crap_jokers,
            force_recycle=settings.crap_force_recycle,
            bluff_window=settings.crap_bluff_window,
        )

    def lobby_options(self, settings: GuildSettings) -> dict[str, Any]:
        return {"rules": self.rules_of(settings).model_dump(mode="json")}

    def lobby_description(self, lobby: Lobby, settings: GuildSettings) -> str:
        return (
            _describe(CrapRules.model_validate(lobby.options["rules"]))
            + f"\nUse {mention('crap rules')} for the rules."
        )

    def new_game(self, lobby: Lobby, settings: GuildSettings, rng: random.Random) -> CrapState:
        return engine.new_game(
            lobby.players, CrapRules.model_validate(lobby.options["rules"]), rng
        )[0]

    # ---------------------------------------------------------------- moves

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
                raise IllegalMove("Choose what to score.")
            return Action(
                kind="score",
                cards=_pick_set(state.player(move.user_id), int(r), int(size or 4)),
                now=now,
            )
        if act == "acquire":
            if not is_number(value):
                raise IllegalMove("Choose a value to acquire.")
            return Action(kind="acquire", rank=int(value or 0), now=now)
        if act == "protect":
            if not is_number(value):
                raise IllegalMove("Choose a card to protect.")
            return Action(kind="protect", cards=[int(value or 0)], now=now)
        if act == "target":
            kind, _, target = (value or "").partition("-")
            if kind not in ("challenge", "cooperate", "force") or not is_number(target):
                raise IllegalMove("Choose a player and what to do with them.")
            return Action(kind=kind, target=int(target), now=now)  # type: ignore[arg-type]
        if act == "recycle":
            return Action(kind="recycle", now=now)
        if act == "bluff":
            return Action(kind="call_bluff", now=now)
        if act == "nocall":
            return Action(kind="no_call", now=now)
        if act == "commit":
            if not all(is_number(v) for v in move.values):
                raise IllegalMove("Choose your cards.")
            return Action(kind="commit", cards=[int(v) for v in move.values], now=now)
        if act == "guess":
            r = number(move.arg)
            return Action(kind="guess", rank=r, suit=value, now=now)
        if act == "vote":
            return Action(kind="vote", value=move.arg, now=now)
        if act == "letgo":
            if move.arg not in ("on", "off"):
                raise IllegalMove("Turn Let bluffs go on or off.")
            return Action(kind="let_go_all", value=move.arg, now=now)
        raise IllegalMove("That button does not belong to CRAP.")

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
        """Whom a freshly posted table calls, and what for. An Acquire's window asks nobody
        (it closes by itself; calling the bluff is a choice, not a duty), so opening it edits
        the table and its close posts the next turn. A challenge's post also calls the player
        whose turn comes after it, so its end edits the table rather than posting it again.
        The partner of a co-operate is told in the table that follows it."""
        if state.finished:
            return {}
        asks: dict[int, str] = {}
        if state.phase == "challenge" and state.challenge is not None:
            c = state.challenge
            after = state.next_after(c.challenger).id
            asks = {
                c.challenger: "place your cards",
                c.target: "you are challenged: place your cards",
            }
            asks.setdefault(after, "your turn comes after this challenge")
        elif state.phase == "force_vote" and state.force is not None:
            f = state.force
            asks = {
                p.id: "vote on the forced recycle"
                for p in state.players
                if p.id not in (f.caller, f.target, *f.yes, *f.no)
            }
        elif state.phase == "turn":
            asks = {state.current_player.id: "your turn"}
        partner = _partner(state)
        if partner is not None:
            seen = f"{who(state.cooperator or 0)} co-operated with you: **My hand** shows their hand"
            asks[partner] = f"{asks[partner]} ({seen})" if partner in asks else seen
        return asks

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
        names = " and ".join(p.name for p in state.players if p.id in state.winners)
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
                else f"{names} {'win' if len(state.winners) > 1 else 'wins'}."
                if names
                else "Nobody wins."
            ),
        )

    # ---------------------------------------------------------------- public table

    def render(self, session: Session) -> Rendered:
        """The table fits a phone: the situation in one line, one row per player, the cards
        shown before the last action, and every line of the last action; deck and discard in
        the footer. The rest of the log is behind the Log button."""
        state: CrapState = session.state
        view = engine.public_view(state)
        embed = discord.Embed(title=f"🃏 CRAP · to {state.rules.threshold}", colour=EMBED_COLOUR)
        lines, content = self._situation(session, state)
        lines += self._players(state, view)
        lines += [
            f"👁 {shown_when(state, r)}, {r.what}: {self._shown(r.cards)}" for r in last_shown(state)
        ]
        lines += [f"› {line}" for line in last_action(state)]
        embed.description = "\n".join(lines)[:4000]
        deck = (
            f"Deck {view['deck']} · discard {view['discard']} · "
            f"{counted(state.rounds, 'scoring round')}"
        )
        embed.set_footer(
            text=f"{deck} · {self.finished_footer()}"
            if state.finished
            else f"{deck} · My hand: your cards · Log: the game so far"
        )
        items = [] if state.finished else self._buttons(session, state)
        return Rendered(embed=embed, items=items, content=content)

    def _shown(self, cards: list[int]) -> str:
        """Cards shown to everyone: pictures when the emojis are loaded, else grouped text."""
        return self.faces.cards(cards, 600) if self.faces.pictures else grouped(cards)

    def _situation(self, session: Session, state: CrapState) -> tuple[list[str], str | None]:
        """One line: what the table waits for, and until when."""
        if state.finished and state.ended_by_departure:
            return [self.departure_line(state.ended_by_departure)], None
        if state.finished:
            if not state.winners:
                return ["**Game over.**"], None
            won = together([who(w) for w in state.winners], "wins", "win")
            return [f"🏆 **Game over.** {won}!"], f"🏆 {won} the CRAP game!"
        turn = state.current_player
        bots = self.thinking(state)
        line = ""
        if state.phase == "turn" and bots:
            line = f"**{who(turn.id)}'s turn**: {self.thinking_line(bots)}"
        elif state.phase == "turn":
            line = f"**{who(turn.id)}'s turn**: press **My hand** to act."
        elif state.phase == "acquire" and state.acquire is not None:
            a = state.acquire
            asked = (
                f"{self.thinking_line(bots)} It goes through"
                if bots
                else "Call bluff if you doubt it; it goes through by itself"
            )
            line = (
                f"{who(a.caller)}: **Acquire {rank_words(a.rank)}!** {asked} "
                f"<t:{int(a.deadline) + 1}:R>."
            )
        elif state.phase == "challenge" and state.challenge is not None:
            c = state.challenge
            line = (
                f"⚔ {who(c.challenger)} challenges {who(c.target)} and rolled **{c.die}**: "
                + (self.thinking_line(bots) if bots else "⏳ press My hand.")
            )
        elif state.phase == "force_vote" and state.force is not None:
            f = state.force
            line = (
                f"{who(f.caller)} calls a **Force Recycle** on {who(f.target)}: "
                + (self.thinking_line(bots) if bots else "⏳ vote")
                + f", {vote_tally(f.yes, f.no)} · closes <t:{int(f.deadline) + 1}:R>"
            )
        if session.turn_deadline and engine.on_clock(state) is not None and not bots:
            line += f" ⏱ <t:{int(session.turn_deadline)}:R>"
        return [line], None

    @staticmethod
    def _players(state: CrapState, view: dict[str, Any]) -> list[str]:
        """One row per player: ▶ whose turn, ⏳ whom the table waits on; banked points in
        bold and, apart, what their sets on the table add at the next scoring round."""
        waiting = set(awaited(state))
        rows = []
        for i, (p, pv) in enumerate(zip(state.players, view["players"], strict=True)):
            mark = (
                "⏳"
                if p.id in waiting
                else "▶"
                if i == state.current and not state.finished
                else "·"
            )
            sets = ", ".join(f"{'2×' if s.double else ''}{rank_name(s.rank)}" for s in p.sets)
            pending = sum(s.points() for s in p.sets)
            rows.append(
                f"{mark} {who(p.id)} **{p.score}** ✋{pv['hand']} 🛡{pv['protected']}"
                + (f" · sets {sets} (+{pending} next round)" if sets else "")
            )
        return rows

    def _buttons(self, session: Session, state: CrapState) -> list[TableItem]:
        items = [self.button(session, "hand", "My hand", style=discord.ButtonStyle.primary)]
        # While only bots are to answer, a person has nothing but their hand and the log.
        bots = self.thinking(state)
        if state.phase == "acquire" and not bots:
            items += [
                self.button(session, "bluff", "Call bluff", style=discord.ButtonStyle.danger),
                self.button(session, "nocall", "Let it go"),
            ]
        elif state.phase == "force_vote" and not bots:
            items += [
                self.button(
                    session,
                    "vote",
                    "Vote: recycle",
                    arg="yes",
                    style=discord.ButtonStyle.danger,
                ),
                self.button(session, "vote", "Vote: no", arg="no"),
            ]
        items.append(self.button(session, "log", "Log"))
        return items

    def rules_embed(
        self, settings: GuildSettings, session: Session | None, preset: str | None
    ) -> discord.Embed:
        rules = self.rules_of(settings)
        if session is not None and session.kind == self.kind:
            rules = (
                session.state.rules
                if session.started
                else CrapRules.model_validate(session.lobby.options["rules"])
            )
        embed = discord.Embed(
            title="🃏 CRAP: Challenge, Recycle, Acquire, Protect",
            description=_describe(rules),
            colour=EMBED_COLOUR,
        )
        add_paged(embed, "A turn", [f"• {x}" for x in RULES_TEXT[:4]])
        add_paged(embed, "More actions, and scoring", [f"• {x}" for x in RULES_TEXT[4:]])
        return embed


def _describe(rules: CrapRules) -> str:
    bits = [
        f"3-6 players, two decks{' with jokers' if rules.jokers else ''}, to **{rules.threshold}** points."
    ]
    if rules.force_recycle:
        bits.append("Force recycle is on.")
    bits.append(f"Bluffs can be called for {rules.bluff_window} s.")
    return " ".join(bits)


def _pick_set(player: Any, r: int, size: int) -> list[int]:
    """The cards a "Score" choice uses: naturals first (hand, then protected), then jokers."""
    if size not in (4, 8):
        raise IllegalMove("A set is four cards, or eight for a double set.")
    naturals = [c for c in player.hand + player.protected if rank(c) == r]
    jokers = [c for c in player.hand + player.protected if is_joker(c)]
    if not naturals:
        raise IllegalMove(f"You hold no {rank_words(r)}.")
    picked = (naturals + jokers)[:size]
    if len(picked) < size:
        raise IllegalMove(f"You need {size} {rank_words(r)} (jokers count) to score that.")
    return picked


def awaited(state: CrapState) -> list[int]:
    """Whom the table waits on besides the player whose turn it is: the players of a
    challenge, the voters on a Force Recycle. Nobody is waited on in an Acquire's window: it
    closes by itself, and calling the bluff is a choice."""
    if state.finished or state.phase in ("turn", "acquire"):
        return []
    if state.phase == "force_vote":
        return [p.id for p in state.players if "vote" in engine.legal_actions(state, p.id)]
    return engine.waiting_for(state)


def _partner(state: CrapState) -> int | None:
    """The partner of the co-operate just made (a person: a bot reads the hand it is shown
    without being told), who may look at the co-operator's hand in My hand."""
    if state.cooperator is None:
        return None
    key = str(state.cooperator)
    return next(
        (p.id for p in state.players if key in p.seen and p.id != state.cooperator and not is_bot(p.id)),
        None,
    )


def last_action(state: CrapState) -> list[str]:
    """Every line the last action wrote (a game saved before the count was kept: its last)."""
    return state.log[-(state.last_lines or 1) :] if state.log else []


def last_shown(state: CrapState) -> list[Any]:
    """The latest cards shown to everyone before the last action (the last action's own
    are in its lines), while they are less than a round old: an older reveal is dropped
    rather than shown as if it had just happened (so is one saved without its turn). None
    on the final table: its lines are the game's last move, and a reveal from before it
    would read as the last turn of the game (the Log keeps it)."""
    if state.finished:
        return []
    earlier = [r for r in state.reveals if r.action != state.actions][-1:]
    return [
        r for r in earlier if r.turn is not None and state.turns - r.turn < len(state.players)
    ]


def shown_when(state: CrapState, reveal: Any) -> str:
    """When a reveal was made, as the 👁 line says it: "Last turn (Ann's)"."""
    ago = state.turns - (reveal.turn or 0)
    if ago <= 0:
        return f"This turn ({reveal.whose}'s)"
    if ago == 1:
        return f"Last turn ({reveal.whose}'s)"
    return f"{ago} turns ago ({reveal.whose}'s turn)"

