"""Whom a CRAP table calls, and for what: the player whose turn it is, each side of a
challenge at each of its steps, the voters on a Force Recycle, a co-operate's partner
(`CrapTable.waiting_on`, `awaited`)."""

from __future__ import annotations

from bot.i18n import _
from bot.players import who
from games.bots import is_bot
from games.crap import engine
from games.crap.engine import CrapState


def waiting_on(state: CrapState) -> dict[int, str]:
    """Whom a freshly posted table calls, and what for. An Acquire's window asks nobody
    (it closes by itself; calling the bluff is a choice, not a duty), so opening it edits
    the table and its close posts the next turn. A challenge asks only who must act at
    each step (`_challenge_steps`), so each is called when their step comes.
    The partner of a co-operate is told in the table that follows it."""
    if state.finished:
        return {}
    asks: dict[int, str] = {}
    if state.phase == "challenge" and state.challenge is not None:
        asks = _challenge_steps(state)
    elif state.phase == "force_vote" and state.force is not None:
        f = state.force
        asks = {
            p.id: _("vote on the forced recycle")
            for p in state.players
            if p.id not in (f.caller, f.target, *f.yes, *f.no)
        }
    elif state.phase == "turn":
        asks = {state.current_player.id: _("your turn")}
    partner = _partner(state)
    if partner is not None:
        seen = _(
            "{name} co-operated with you: **My hand** shows their hand",
            name=who(state.cooperator or 0),
        )
        # Translators: what a ping asks of a player, then (in brackets) that their
        # co-operate partner's hand is in My hand: "your turn (Ann co-operated with you...)"
        asks[partner] = (
            _("{ask} ({seen})", ask=asks[partner], seen=seen) if partner in asks else seen
        )
    return asks


def awaited(state: CrapState) -> list[int]:
    """Whom the table waits on besides the player whose turn it is: the players of a
    challenge, the voters on a Force Recycle. Nobody is waited on in an Acquire's window: it
    closes by itself, and calling the bluff is a choice."""
    if state.finished or state.phase in ("turn", "acquire"):
        return []
    if state.phase == "force_vote":
        return [p.id for p in state.players if "vote" in engine.legal_actions(state, p.id)]
    return engine.waiting_for(state)


def _challenge_steps(state: CrapState) -> dict[int, str]:
    """Who a challenge waits on now, and for what: both place their cards, then the
    challenger names a card, then the challenged player. Whoever has done their part is off
    the list until their next step, so a table posted when that step comes calls them again
    (bot/commit.py calls only who is newly asked). The player whose turn comes after the
    challenge is asked from its start, so its end edits the table rather than posting it
    again; not when that is the challenged player, who would then never be called to name
    a card (they end the challenge themselves, by naming the last card)."""
    c = state.challenge
    assert c is not None
    asks: dict[int, str] = {}
    for pid in engine.waiting_for(state):
        if str(pid) not in c.committed:
            asks[pid] = (
                _("you are challenged: place your cards")
                if pid == c.target
                else _("place your cards")
            )
        else:
            asks[pid] = _("name a card")
    after = state.next_after(c.challenger).id
    if after != c.target:
        asks.setdefault(after, _("your turn comes after this challenge"))
    return asks


def _partner(state: CrapState) -> int | None:
    """The partner of the co-operate just made (a person: a bot reads the hand it is shown
    without being told), who may look at the co-operator's hand in My hand."""
    if state.cooperator is None:
        return None
    key = str(state.cooperator)
    return next(
        (
            p.id
            for p in state.players
            if key in p.seen and p.id != state.cooperator and not is_bot(p.id)
        ),
        None,
    )
