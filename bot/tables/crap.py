"""CRAP on a Discord table. The public table shows counts, scored sets, scores and what was
shown to everyone (rendered from `public_view` only); each player's cards and their legal
actions live in the "My hand" ephemeral, built from `private_view` of whoever pressed it."""

from __future__ import annotations

from typing import Any

import discord

from bot.components import TableItem
from bot.i18n import N_, _, _n, render
from bot.i18n import number as in_words
from bot.mentions import mention
from bot.players import who
from bot.sessions import Session
from bot.settings import GuildSettings
from bot.tables.base import EMBED_COLOUR, Rendered, vote_tally
from bot.tables.crap_hand import CrapHand
from bot.tables.crap_play import CrapPlay
from bot.tables.crap_waiting import awaited
from bot.tables.fields import add_paged, without_game_over
from games.crap import engine
from games.crap.cards import (
    rank_name,
    rank_words,
    shown,
)
from games.crap.engine import CrapRules, CrapState
from games.lobby import Lobby
from games.shared import rules_model
from games.text import Arg, Line, Part

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


class CrapTable(CrapPlay, CrapHand):
    """The public table; the private "My hand" is `CrapHand` (bot/tables/crap_hand.py), the
    rules half `CrapPlay` (bot/tables/crap_play.py)."""

    # Translators: the game's name (Challenge, Recycle, Acquire, Protect); keep it unless
    # your players know the game by another name
    title = N_("CRAP")
    # ("pickrank": the value menu of a reply drawn before a card was named in one select;
    # pressed, it changes nothing and says so)
    read_only_actions = frozenset({"hand", "pickrank", "log"})
    public_actions = frozenset({"log"})  # the log is public: spectators may read it too
    sealed_what = N_("Cards and dice")

    # ---------------------------------------------------------------- lobby

    def lobby_description(self, lobby: Lobby, settings: GuildSettings) -> str:
        rules = _describe(rules_model(CrapRules, lobby.options["rules"]))
        return rules + " · " + mention("crap rules")

    # ---------------------------------------------------------------- moves

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
        deck, discard = view["deck"], view["discard"]  # counts: the cards are hidden
        assert isinstance(deck, int) and isinstance(discard, int)
        footer = " · ".join(
            [
                _("Deck {cards}", cards=deck),
                _("discard {cards}", cards=discard),
                _n("{n} scoring round", "{n} scoring rounds", state.rounds),
            ]
        )
        embed.set_footer(
            text=f"{footer} · {self.finished_footer()}"
            if state.finished
            else f"{footer} · " + _("My hand: your cards · Log: the game so far")
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
            won: list[Part] = [who(w) for w in state.winners]
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
            args: dict[str, Arg] = {
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
        rules = self.rules_here(settings, session, CrapRules)
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
