"""CRAP on a Discord table. The public table shows counts, scored sets, scores and what was
shown to everyone (rendered from `public_view` only); each player's cards and their legal
actions live in the "My hand" ephemeral, built from `private_view` of whoever pressed it."""

from __future__ import annotations

import random
from typing import Any

import discord

from bot.components import TableItem
from bot.i18n import N_, _, _n, render
from bot.i18n import number as in_words
from bot.mentions import mention
from bot.players import who
from bot.sessions import Session
from bot.settings import GuildSettings
from bot.tables.base import EMBED_COLOUR, Move, Outcome, Rendered, TableAdapter, placed, vote_tally
from bot.tables.crap_hand import CrapHand
from bot.tables.crap_waiting import awaited, waiting_on
from bot.tables.fields import add_paged, without_game_over
from games.autoplay import Chooser
from games.bots import only_bots
from games.crap import engine, policy, record
from games.crap.cards import (
    SUITS,
    is_joker,
    label,
    rank,
    rank_name,
    rank_words,
    shown,
)
from games.crap.engine import Action, CrapRules, CrapState
from games.errors import IllegalMove
from games.lobby import Lobby
from games.numbers import is_number
from games.text import Line, M, Mn, Msg

# Translators: the rules of CRAP (/crap rules). Score, Recycle, Acquire, Challenge, Protect
# and Co-operate are its actions; keep them as the buttons and menus name them.
RULES_TEXT = [
    N_("On your turn do exactly one thing (press **My hand**):"),
    N_(
        "**Score** four cards of one value (hand or protected; jokers stand in, -1 point each), or "
        "a double set of eight. Aces take a card from the highest set on the table and are worth "
        "its value + 10 (10 if there is none)."
    ),
    N_(
        "**Recycle**: show and discard your hand, roll off a die with the next player (if they roll "
        "higher your protected cards go too), then roll two dice and draw that many."
    ),
    N_(
        "**Acquire** a value: everyone else hands over their unprotected cards of it. You may bluff; "
        "the first to press **Call bluff** in time calls it: a bluffer discards a random card, an "
        "honest caller shows the card and the bluff-caller discards one. Nobody has to press "
        "anything: the window closes by itself (**Let bluffs go** in My hand lets every Acquire go "
        "for you at once). If nobody has any, an honest caller discards one of that value."
    ),
    N_(
        "**Challenge** a player: you roll a die, both place that many cards face down, each names a "
        "value and a suit, and draws one card per match (value and suit both: two). Jokers match "
        "nothing."
    ),
    N_(
        "**Protect** a card (safe from acquire, challenge, co-operate, random discards, and from a "
        "recycle unless the roll-off is lost). **Co-operate**: you and another player see each "
        "other's hands once (then they are returned), and each draws one."
    ),
    N_(
        "When someone must draw from an empty deck, a scoring round: protected cards return to "
        "hands, sets are banked (face value x 10; J 110, Q 120, K 130; a double set two sets of "
        "(face + 1) x 10), everything but the hands is shuffled into a new deck, and the draw "
        "completes. Reach the threshold in a scoring round to win: the highest total wins, "
        "ties share."
    ),
]


class CrapTable(CrapHand, TableAdapter):
    """The public table; the private "My hand" is `CrapHand` (bot/tables/crap_hand.py)."""

    kind = "crap"
    # Translators: the game's name (Challenge, Recycle, Acquire, Protect); keep it unless
    # your players know the game by another name
    title = N_("CRAP")
    min_players = 3
    max_players = 6
    engine = engine
    policy = policy
    state_model = CrapState
    # ("pickrank": the value menu of a reply drawn before a card was named in one select;
    # pressed, it changes nothing and says so)
    read_only_actions = frozenset({"hand", "pickrank", "log"})
    public_actions = frozenset({"log"})  # the log is public: spectators may read it too
    sealed_what = N_("Cards and dice")

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
        rules = _describe(CrapRules.model_validate(lobby.options["rules"]))
        return rules + " · " + mention("crap rules")

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
            kind, _, target = (value or "").partition("-")
            if kind not in ("challenge", "cooperate", "force") or not is_number(target):
                raise IllegalMove(M("Choose a player and what to do with them."))
            return Action(kind=kind, target=int(target), now=now)  # type: ignore[arg-type]
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
        names = [p.name for p in state.players if p.id in state.winners]
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

    # ---------------------------------------------------------------- public table

    def render(self, session: Session) -> Rendered:
        """The table fits a phone: the situation in one line, one row per player, the cards
        shown before the last action, and every line of the last action; deck and discard in
        the footer. The rest of the log is behind the Log button."""
        state: CrapState = session.state
        view = engine.public_view(state)
        embed = discord.Embed(
            title=_("🃏 CRAP · to {threshold}", threshold=state.rules.threshold),
            colour=EMBED_COLOUR,
        )
        lines, content = self._situation(session, state)
        lines += self._players(state, view)
        lines += [
            # Translators: cards shown to everyone: "👁 Last turn (Ann's), Ann's recycled
            # hand: 3♣♥ K♦"
            _(
                "👁 {when}, {what}: {cards}",
                when=shown_when(state, r),
                what=r.what,
                cards=self._shown(r.cards),
            )
            for r in last_shown(state)
        ]
        done = last_action(state)
        lines += [f"› {render(line)}" for line in (without_game_over(done) if state.finished else done)]
        embed.description = "\n".join(lines)[:4000]
        deck = " · ".join(
            [
                _("Deck {cards}", cards=view["deck"]),
                _("discard {cards}", cards=view["discard"]),
                _n("{n} scoring round", "{n} scoring rounds", state.rounds),
            ]
        )
        embed.set_footer(
            text=f"{deck} · {self.finished_footer()}"
            if state.finished
            else f"{deck} · " + _("My hand: your cards · Log: the game so far")
        )
        items = [] if state.finished else self._buttons(session, state)
        return Rendered(embed=embed, items=items, content=content)

    def _shown(self, cards: list[int]) -> str:
        """Cards shown to everyone: pictures when the emojis are loaded, else grouped text."""
        return self.faces.cards(cards, 600) if self.faces.pictures else render(shown(cards))

    def _situation(self, session: Session, state: CrapState) -> tuple[list[str], str | None]:
        """One line: what the table waits for, and until when."""
        if state.finished and state.ended_by_departure:
            return [self.departure_line(state.ended_by_departure)], None
        if state.finished:
            if not state.winners:
                return [_("**Game over.**")], None
            # The winners are said once, above the table.
            won = [who(w) for w in state.winners]
            n = len(won)
            return [], _n("🏆 {names} wins the CRAP game!", "🏆 {names} win the CRAP game!", n, names=won)
        turn = state.current_player
        bots = self.thinking(state)
        line = ""
        if state.phase == "turn" and bots:
            line = _(
                "**{name}'s turn**: {thinking}",
                name=who(turn.id),
                thinking=self.thinking_line(bots),
            )
        elif state.phase == "turn":
            line = _("**{name}'s turn**: press **My hand** to act.", name=who(turn.id))
        elif state.phase == "acquire" and state.acquire is not None:
            a = state.acquire
            args = {
                "name": who(a.caller),
                "ranks": rank_words(a.rank),
                "when": f"<t:{int(a.deadline) + 1}:R>",
            }
            # Translators: {when} is a time Discord writes in the reader's language ("in
            # 20 seconds")
            line = (
                _(
                    "{name}: **Acquire {ranks}!** {thinking} It goes through {when}.",
                    thinking=self.thinking_line(bots),
                    **args,
                )
                if bots
                else _(
                    "{name}: **Acquire {ranks}!** Call bluff if you doubt it; it goes through "
                    "by itself {when}.",
                    **args,
                )
            )
        elif state.phase == "challenge" and state.challenge is not None:
            c = state.challenge
            args = {"name": who(c.challenger), "other": who(c.target), "die": str(c.die)}
            line = (
                _(
                    "⚔ {name} challenges {other} and rolled **{die}**: {thinking}",
                    thinking=self.thinking_line(bots),
                    **args,
                )
                if bots
                else _(
                    "⚔ {name} challenges {other} and rolled **{die}**: ⏳ press My hand.", **args
                )
            )
        elif state.phase == "force_vote" and state.force is not None:
            f = state.force
            args = {
                "name": who(f.caller),
                "other": who(f.target),
                "tally": vote_tally(f.yes, f.no),
                "when": f"<t:{int(f.deadline) + 1}:R>",
            }
            line = (
                _(
                    "{name} calls a **Force Recycle** on {other}: {thinking}, {tally} · closes "
                    "{when}",
                    thinking=self.thinking_line(bots),
                    **args,
                )
                if bots
                else _(
                    "{name} calls a **Force Recycle** on {other}: ⏳ vote, {tally} · closes {when}",
                    **args,
                )
            )
        if session.turn_deadline and engine.on_clock(state) is not None and not bots:
            line += f" ⏱ <t:{int(session.turn_deadline)}:R>"
        return [line], None

    @staticmethod
    def _players(state: CrapState, view: dict[str, Any]) -> list[str]:
        """One row per player: ▶ whose turn, ⏳ whom the table waits on, ✓ who lets the
        open Acquire go; banked points in
        bold and, apart, what their sets on the table add at the next scoring round."""
        waiting = set(awaited(state))
        passed = set(state.acquire.declined) if state.acquire is not None else set()
        rows = []
        for i, (p, pv) in enumerate(zip(state.players, view["players"], strict=True)):
            mark = (
                "⏳"
                if p.id in waiting
                else "✓"
                if p.id in passed
                else "▶"
                if i == state.current and not state.finished
                else "·"
            )
            sets = ", ".join(f"{'2×' if s.double else ''}{rank_name(s.rank)}" for s in p.sets)
            pending = sum(s.points() for s in p.sets)
            row = f"{mark} {who(p.id)} **{in_words(p.score)}** ✋{pv['hand']} 🛡{pv['protected']}"
            rows.append(
                # Translators: a player's row: their banked score, cards in hand (✋) and
                # protected (🛡), then their sets on the table and what they will bank
                _("{row} · sets {sets} (+{points} next round)", row=row, sets=sets, points=pending)
                if sets
                else row
            )
        return rows

    def _buttons(self, session: Session, state: CrapState) -> list[TableItem]:
        items = [self.button(session, "hand", _("My hand"), style=discord.ButtonStyle.primary)]
        # While only bots are to answer, a person has nothing but their hand and the log.
        bots = self.thinking(state)
        if state.phase == "acquire" and not bots:
            items += [
                self.button(session, "bluff", _("Call bluff"), style=discord.ButtonStyle.danger),
                self.button(session, "nocall", _("Let it go")),
            ]
        elif state.phase == "force_vote" and not bots:
            items += [
                self.button(
                    session,
                    "vote",
                    _("Vote: recycle"),
                    arg="yes",
                    style=discord.ButtonStyle.danger,
                ),
                self.button(session, "vote", _("Vote: no"), arg="no"),
            ]
        items.append(self.button(session, "log", _("Log")))
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
            title=_("🃏 CRAP: Challenge, Recycle, Acquire, Protect"),
            description=_describe(rules),
            colour=EMBED_COLOUR,
        )
        add_paged(embed, _("A turn"), [f"• {_(x)}" for x in RULES_TEXT[:4]])
        add_paged(embed, _("More actions, and scoring"), [f"• {_(x)}" for x in RULES_TEXT[4:]])
        return embed


def _describe(rules: CrapRules) -> str:
    bits = [
        _("3-6 players, two decks with jokers, to **{points}** points.", points=rules.threshold)
        if rules.jokers
        else _("3-6 players, two decks, to **{points}** points.", points=rules.threshold)
    ]
    if rules.force_recycle:
        bits.append(_("Force recycle is on."))
    bits.append(_("Bluffs can be called for {seconds} s.", seconds=rules.bluff_window))
    return " ".join(bits)


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


def _pick_set(player: Any, r: int, size: int) -> list[int]:
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


def last_action(state: CrapState) -> list[Line]:
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
    return [r for r in earlier if r.turn is not None and state.turns - r.turn < len(state.players)]


def shown_when(state: CrapState, reveal: Any) -> str:
    """When a reveal was made, as the 👁 line says it: "Last turn (Ann's)"."""
    ago = state.turns - (reveal.turn or 0)
    if ago <= 0:
        return _("This turn ({name}'s)", name=reveal.whose)
    if ago == 1:
        return _("Last turn ({name}'s)", name=reveal.whose)
    return _n(
        "{n} turn ago ({name}'s turn)", "{n} turns ago ({name}'s turn)", ago, name=reveal.whose
    )
