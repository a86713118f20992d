"""CRAP's "My hand" (part of `CrapTable`): the ephemeral each player opens from the table,
built from `private_view` of whoever pressed it: their cards, protected cards and what they
saw in a co-operation, with the menus of the actions they may take now (score, acquire,
protect, challenge or co-operate, commit, guess a card), the game's log, and the "Let
bluffs go" setting. Nothing here reaches a public message."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import discord

from bot.components import TableItem
from bot.i18n import N_, _, _n, plain_text, render
from bot.players import who
from bot.sessions import Session
from bot.tables.base import EMBED_COLOUR, Rendered, TableAdapter
from games.crap import engine
from games.crap.cards import (
    RANKS,
    SUIT_SYMBOLS,
    SUITS,
    is_joker,
    label,
    rank,
    rank_name,
    rank_words,
    sort_cards,
)
from games.crap.engine import CrapState

SELECT_LIMIT = 25

#: The suits as a player names one in a challenge ("K♥ (hearts)").
SUIT_WORDS = {"S": N_("spades"), "H": N_("hearts"), "D": N_("diamonds"), "C": N_("clubs")}


class CrapHand(TableAdapter[CrapState]):
    """The private side of `CrapTable` (bot/tables/crap.py): the part of its rendering that
    only the player who asks sees (it uses `button`, `select` and `faces` of `TableAdapter`)."""

    def private(
        self,
        session: Session,
        user_id: int,
        action: str,
        arg: str | None = None,
        values: tuple[str, ...] = (),
    ) -> Rendered | None:
        """The "My hand" ephemeral: the player's cards (from private_view) and, when it is
        their move, the actions they can take."""
        state: CrapState = session.state
        if state.finished:
            return None
        if action == "nocall":
            # One tap, answered on the table (its row shows ✓); only a player's first pass
            # of the game is answered privately, to tell them of Let bluffs go.
            me = state.player(user_id)
            return self._let_go(session, user_id) if me.passes == 1 and not me.let_go_all else None
        if action == "log":
            return self.public(session, action)
        if action != "hand":
            return None  # other actions refresh the hand through message_after
        return self._hand(session, user_id)

    def public(self, session: Session, action: str) -> Rendered | None:
        """The game's log, privately, for anyone who presses Log (a spectator too): the
        moves the table has no room for. The log holds only what everyone saw."""
        if action != "log" or session.state.finished:
            return None
        return self._log(session.state)

    @staticmethod
    def _log(state: CrapState) -> Rendered:
        lines: list[str] = []
        size = 0
        for line in reversed(state.log):
            said = render(line)
            size += len(said) + 1
            if size > 3900:
                break
            lines.append(said)
        text = "\n".join(reversed(lines)) or _("Nothing has happened yet.")
        return Rendered(
            embed=discord.Embed(
                title=_("📜 The game so far"), description=text, colour=EMBED_COLOUR
            )
        )

    def _let_go(self, session: Session, user_id: int) -> Rendered:
        """The private word for a player who let an Acquire go, with Let bluffs go (so the
        next windows need not wait on them). It says only what this press did: a press
        answered at the same moment (a call, the last Let it go) may close the window before
        this word is read, so when and whether it goes through is left to the table."""
        state: CrapState = session.state
        a = state.acquire
        if state.phase == "acquire" and a is not None:
            text = _(
                "You let {name}'s Acquire {ranks} go: the table shows how it ends.",
                name=who(a.caller),
                ranks=rank_words(a.rank),
            )
        else:
            text = _("You let it go, the last to answer: the Acquire goes through.")
        on = state.player(user_id).let_go_all
        if not on:
            text += "\n" + _(
                "No need to press: a window closes by itself. **Let bluffs go** (here or in "
                "**My hand**) lets every Acquire go for you at once."
            )
        return Rendered(
            embed=discord.Embed(description=text, colour=EMBED_COLOUR),
            items=[] if on else [self._let_go_button(session, on)],
        )

    def _let_go_button(self, session: Session, on: bool) -> TableItem:
        """The player's own setting, shown with its state: pressing it flips it."""
        return self.button(
            session,
            "letgo",
            _("Let bluffs go: on") if on else _("Let bluffs go: off"),
            arg="off" if on else "on",
            style=discord.ButtonStyle.success if on else discord.ButtonStyle.secondary,
        )

    def _hand(self, session: Session, user_id: int) -> Rendered:
        state: CrapState = session.state
        mine = engine.private_view(state, user_id)["me"]
        if not isinstance(mine, dict):
            raise TypeError(f"the private view's 'me' is {type(mine).__name__}")
        hand, protected = _cards(mine["hand"]), _cards(mine["protected"])
        lines = [
            _("**Your hand ({count}):** {cards}", count=len(hand), cards=self.faces.cards(hand)),
            _(
                "**Protected ({count}):** {cards}",
                count=len(protected),
                cards=self.faces.cards(protected, 500),
            ),
        ]
        seen = mine["seen"]
        for other_id, cards in seen.items() if isinstance(seen, dict) else ():
            lines.append(
                _(
                    "**Seen in co-operate, {name}'s hand:** {cards}",
                    name=who(int(other_id)),
                    cards=self.faces.cards(_cards(cards), 500),
                )
            )
        if "committed" in mine:
            lines.append(
                _(
                    "**Face down in the challenge:** {cards}",
                    cards=self.faces.cards(_cards(mine["committed"]), 500),
                )
            )
        legal = engine.legal_actions(state, user_id)
        items = self._hand_actions(session, state, user_id, legal)
        if not legal:
            lines.append(_("Nothing to do right now."))
        if state.player(user_id).let_go_all:
            lines.append(_("You let every Acquire go at once (**Let bluffs go** is on)."))
        embed = discord.Embed(description="\n".join(lines)[:4000], colour=EMBED_COLOUR)
        return Rendered(embed=embed, items=items)

    def _hand_actions(
        self, session: Session, state: CrapState, user_id: int, legal: set[str]
    ) -> list[TableItem]:
        me = state.player(user_id)
        items: list[TableItem] = []
        if "score" in legal:
            options = []
            for r in engine.scorable_ranks(me):
                options.append((_("Score {ranks}", ranks=rank_words(r)), f"{r}-4"))
                if _count_for(me, r) >= 8:
                    options.append(
                        (_("Score a double set of {ranks}", ranks=rank_words(r)), f"{r}-8")
                    )
            items.append(
                self.select(session, "score", options[:SELECT_LIMIT], placeholder=_("Score a set…"))
            )
        if "acquire" in legal:
            options = [(_("Acquire {ranks}", ranks=rank_words(r)), str(r)) for r in RANKS]
            items.append(
                self.select(
                    session,
                    "acquire",
                    options,
                    placeholder=_("Acquire a value… (bluffing allowed)"),
                )
            )
        if "protect" in legal:
            twice = Counter(label(c) for c in me.hand)
            pictured = [
                (
                    label(c) + (f" ×{twice[label(c)]}" if twice[label(c)] > 1 else ""),
                    str(c),
                    self.faces.card_emoji(c),
                )
                for c in _distinct(me.hand)
            ][:SELECT_LIMIT]
            items.append(
                self.select(session, "protect", pictured, placeholder=_("Protect a card…"))
            )
        if legal & {"challenge", "cooperate", "force"}:
            options = []
            with plain_text():  # a select's options read no markdown: names as written
                for p in state.players:
                    if p.id == user_id:
                        continue
                    options.append((_("Challenge {name}", name=p.name), f"challenge-{p.id}"))
                    options.append(
                        (_("Co-operate with {name}", name=p.name), f"cooperate-{p.id}")
                    )
                    if "force" in legal:
                        options.append(
                            (_("Force {name} to recycle (vote)", name=p.name), f"force-{p.id}")
                        )
            items.append(
                self.select(
                    session,
                    "target",
                    options[:SELECT_LIMIT],
                    placeholder=_("Challenge or co-operate…"),
                )
            )
        if "recycle" in legal:
            items.append(
                self.button(
                    session, "recycle", _("Recycle my hand"), style=discord.ButtonStyle.danger
                )
            )
        if "commit" in legal:
            need = engine.challenge_size(state, user_id)
            cards = sort_cards(me.hand)[:SELECT_LIMIT]
            item = self.select(
                session,
                "commit",
                [(label(c), str(c), self.faces.card_emoji(c)) for c in cards],
                placeholder=_n("Place {n} card face down…", "Place {n} cards face down…", need),
            )
            items.append(replace(item, min_values=need, max_values=need))
        if "guess" in legal:
            # One select, two choices: a value and a suit (13 + 4 options; the 52 cards
            # would not fit in one select's 25).
            options = [(rank_name(r), str(r)) for r in RANKS] + [
                (f"{SUIT_SYMBOLS[s]} {_(SUIT_WORDS[s])}", s) for s in SUITS
            ]
            item = self.select(
                session, "guess", options, placeholder=_("Name a value and a suit…")
            )
            items.append(replace(item, min_values=2, max_values=2))
        items.append(self._let_go_button(session, me.let_go_all))
        return items

    def message_after(
        self, session: Session, user_id: int, action: str, arg: str | None
    ) -> Rendered:
        """An ephemeral "My hand" after its action: refreshed with the new hand."""
        if session.state.finished:
            return Rendered(
                embed=discord.Embed(description=_("The game is over."), colour=EMBED_COLOUR)
            )
        return self._hand(session, user_id)


def _count_for(player: Any, r: int) -> int:
    cards = player.hand + player.protected
    return sum(1 for c in cards if rank(c) == r or is_joker(c))


def _distinct(cards: list[int]) -> list[int]:
    """One card per label (two decks hold two of each card)."""
    seen: set[str] = set()
    out = []
    for c in sort_cards(cards):
        if label(c) not in seen:
            seen.add(label(c))
            out.append(c)
    return out


def _cards(value: object) -> list[int]:
    """Cards as a view holds them (a list of card ids), checked: the views are plain dicts."""
    if not isinstance(value, list) or not all(isinstance(c, int) for c in value):
        raise TypeError(f"a view's cards are {value!r}")
    return list(value)
