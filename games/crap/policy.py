"""A CRAP bot player: it scores sets, acquires the values the others are likely to hand
over (bluffing only where that pays, at random), protects the cards the table knows it
holds, calls bluffs by what it knows of the asker's cards and how often their Acquires
turned out bluffs, guesses in challenges by what is still unseen, and answers every window
the engine opens.

It decides only from what its seat may know: `observe` keeps the seat's own cards, what it
saw in a co-operate, its challenge cards, and the public table (card counts, scored sets,
the public ledger of card movements, read by games.crap.tracking afresh at every decision).
Every choice is made from that view; nothing is remembered between decisions.

Cards are weighed by what they bring to sets: a value's cards are worth more the closer
they are to four (a set scores ten times the face value), so a move is judged by how it
changes that worth, in expectation over where the unseen cards may be."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from games.crap.cards import JOKER, RANKS, SUITS, is_joker, rank, suit
from games.crap.engine import (
    Action,
    CPlayer,
    CrapState,
    ScoredSet,
    legal_actions,
    next_deadline,
    private_view,
    public_ledger,
)
from games.crap.ledger import Entry
from games.crap.moves import set_cards
from games.crap.tracking import Knowledge, read
from games.draws import pick

COPIES = 8  # two decks
PROGRESS = (0.0, 0.08, 0.25, 0.55, 1.0, 1.1, 1.25, 1.45, 2.4)  # share of a set's worth held
JOKER_WORTH = 12.0
BLUFF_MIX = 0.5  # how often a bluff judged worth more than the honest moves is made
CALLED_AT_MOST = 0.2  # no bluff at a table that calls more (a called bluff costs a card)
CALL_AT_LEAST = 0.5  # no call on a smaller chance of a bluff
GOOD_ACES = 60  # Aces worth at least this are scored; below, kept for a higher set
HORIZON = 3.0  # turns of exposure a protected card is spared
RECYCLE_MARGIN = 30.0  # a fresh hand must beat the one held by this much
ACQUIRE_RISK = 0.06  # chance per opponent and turn that a given value is asked for
KNOWN_RISK = 0.2  # the same for a value the table knows this seat holds


@dataclass
class Seen:
    """One player as the seat sees them."""

    id: int
    hand: int
    protected: int
    set_points: int
    score: int


@dataclass
class View:
    """What `me` may know: own cards, what it saw, and the public table."""

    me: int
    hand: list[int]
    protected: list[int]
    peeked: list[int]  # a co-operate partner's hand, while the look lasts
    partner: int | None  # whose hand that is
    committed: list[int]
    players: list[Seen]
    deck: int
    discard: int
    jokers: bool
    phase: str
    current: int
    top_set: int | None  # the highest set's value on the table
    known: dict[int, int] = field(default_factory=dict)  # rank -> copies out of play or mine
    known_suits: dict[str, int] = field(default_factory=dict)
    acquire: dict[str, Any] | None = None
    challenge: dict[str, Any] | None = None
    force: dict[str, Any] | None = None
    knowledge: Knowledge = field(default_factory=Knowledge)  # what the ledger told
    recent: list[Entry] = field(default_factory=list)  # the ledger's last records
    card_worth: float | None = None  # computed once: see _card_worth
    hidden: int | None = None  # computed once: see hidden_total
    free_total: int | None = None  # computed once: see chance

    def other(self, pid: int) -> Seen:
        return next(p for p in self.players if p.id == pid)

    @property
    def opponents(self) -> list[Seen]:
        return [p for p in self.players if p.id != self.me]

    def unseen(self, r: int) -> int:
        total = 4 if r == JOKER else COPIES
        if r == JOKER and not self.jokers:
            return 0
        return max(0, total - self.known.get(r, 0))

    def hidden_total(self) -> int:
        """How many cards this seat cannot place (computed once)."""
        if self.hidden is None:
            self.hidden = sum(self.unseen(r) for r in (*RANKS, JOKER))
        return self.hidden

    def in_hands(self) -> int:
        """Unprotected cards the opponents hold."""
        return sum(p.hand for p in self.opponents)

    def free(self, r: int) -> int:
        """Copies of value r this seat cannot place: not its own, not scored, not shown into
        the pile, not surely held by another."""
        held = sum(self.knowledge.held(p.id, r) for p in self.opponents)
        return max(0, self.unseen(r) - held)

    def chance(self, r: int) -> float:
        """The chance that one card this seat cannot place is of value r."""
        if self.free_total is None:
            self.free_total = sum(self.free(x) for x in RANKS)
        return self.free(r) / self.free_total if self.free_total else 0.0

    def loose(self, p: Seen) -> int:
        """A player's unprotected cards that are not surely of a known value."""
        return max(0, p.hand - min(self.knowledge.placed(p.id), p.hand))

    def haul(self, r: int) -> tuple[int, int]:
        """What the others would hand over for value r: cards they surely hold (a
        co-operate partner's as seen), and how many of their other unprotected cards may
        be of that value."""
        sure = maybe = 0
        for p in self.opponents:
            if p.id == self.partner:
                sure += sum(1 for c in self.peeked if rank(c) == r)
                continue
            sure += min(self.knowledge.held(p.id, r), p.hand)
            maybe += self.knowledge.maybe(p.id, r, self.loose(p))
        return sure, maybe


#: The ledger's last records a view keeps: two rounds of a six-player table's Acquires.
RECENT = 24


def observe(state: CrapState, seat: int) -> View:
    """The seat's view, built from its private view alone (the ledger's records taken as
    they are, not as JSON)."""
    # The view is plain JSON-like data (what a player is shown), read field by field here.
    data: dict[str, Any] = private_view(state, seat, ledger=False)
    mine = data["me"]
    players = []
    top: int | None = None
    known: dict[int, int] = {}
    known_suits: dict[str, int] = {}

    def count(cards: list[int]) -> None:
        for c in cards:
            known[rank(c)] = known.get(rank(c), 0) + 1
            s = suit(c)
            if s is not None:
                known_suits[s] = known_suits.get(s, 0) + 1

    for pv in data["players"]:
        sets = [ScoredSet.model_validate(sv) for sv in pv["sets"]]
        for st in sets:
            count(st.all_cards())
            top = st.value() if top is None else max(top, st.value())
        players.append(
            Seen(
                id=pv["id"],
                hand=pv["hand"],
                protected=pv["protected"],
                set_points=sum(st.points() for st in sets),
                score=pv["score"],
            )
        )
    count(mine["hand"] + mine["protected"])
    ledger = public_ledger(state)
    knowledge = read(ledger, [p.id for p in players])
    for r, n in knowledge.pile.items():  # shown into the pile since the last scoring round
        known[r] = known.get(r, 0) + n
    for rev in data["reveals"]:
        # Shown to everyone; these went to the discard pile (suits for the guesses).
        if _to_discard(rev):
            for c in rev["cards"]:
                s = suit(c)
                if s is not None:
                    known_suits[s] = known_suits.get(s, 0) + 1
    looks = mine["seen"]
    peeked = [c for cards in looks.values() for c in cards]
    return View(
        me=seat,
        hand=list(mine["hand"]),
        protected=list(mine["protected"]),
        peeked=peeked,
        partner=int(next(iter(looks))) if looks else None,
        committed=list(mine.get("committed", [])),
        players=players,
        deck=data["deck"],
        discard=data["discard"],
        jokers=data["rules"]["jokers"],
        phase=data["phase"],
        current=players[data["current"]].id,
        top_set=top,
        known=known,
        known_suits=known_suits,
        acquire=data["acquire"],
        challenge=data["challenge"],
        force=data["force"],
        knowledge=knowledge,
        recent=ledger[-RECENT:],
    )


def _to_discard(reveal: dict[str, Any]) -> bool:
    """Whether cards shown to everyone went to the discard pile (a recycled hand, protected
    cards lost in its roll-off, an honest Acquire's discard). A reveal saved before reveals
    had kinds says so in its English words."""
    if reveal.get("kind"):
        return reveal["kind"] in ("recycled", "protected", "discard")
    what = reveal["what"]
    text = what if isinstance(what, str) else str(what.get("k", ""))
    return text.endswith(("'s recycled hand", "'s protected cards", "'s discard"))


def choose(state: CrapState, seat: int, rng: random.Random, now: float = 0.0) -> Action | None:
    """The move `seat` makes now, or None when the table is not waiting on it."""
    acts = legal_actions(state, seat)
    deadline = next_deadline(state)
    if not acts or (deadline is not None and deadline <= now):
        return None  # nothing to do, or the window closes before this answer counts
    view = observe(state, seat)
    if "call_bluff" in acts:
        return Action(kind="call_bluff" if _call(view) else "no_call", now=now)
    if "commit" in acts and view.challenge is not None:
        need = min(view.challenge["die"], len(view.hand))
        return Action(kind="commit", cards=_commit(view, need), now=now)
    if "guess" in acts:
        r, s = _guess(view, rng)
        return Action(kind="guess", rank=r, suit=s, now=now)
    if "vote" in acts:
        vote = "yes" if _force_fair(view) else "no"
        return Action(kind="vote", value=vote, now=now)
    return _turn(view, acts, rng, now)


# ----------------------------------------------------------------------------- worth


def rank_worth(view: View, r: int) -> float:
    """What a set of this value would score: Aces the highest set plus ten (as things
    stand, and at least a middling set's worth, since more sets will come)."""
    if r == 14:
        return max(view.top_set or 0, 70) + 10
    return r * 10.0


def counts(cards: list[int]) -> dict[int, int]:
    """How many of each value (jokers under 0)."""
    out: dict[int, int] = {}
    for c in cards:
        out[rank(c)] = out.get(rank(c), 0) + 1
    return out


def holding(view: View, cards: list[int]) -> float:
    """The worth of these cards towards sets; a joker is worth a fixed amount."""
    total = 0.0
    for r, k in counts(cards).items():
        total += JOKER_WORTH * k if r == JOKER else rank_worth(view, r) * PROGRESS[min(k, 8)]
    return total


def change(view: View, r: int, before: int, after: int) -> float:
    """The worth gained when this seat's count of value r goes from `before` to `after`."""
    if r == JOKER:
        return JOKER_WORTH * (after - before)
    return rank_worth(view, r) * (PROGRESS[min(after, 8)] - PROGRESS[min(before, 8)])


def _mine(view: View) -> list[int]:
    return view.hand + view.protected


@lru_cache(maxsize=64)
def _binomial(n: int, p: float) -> tuple[float, ...]:
    p = min(max(p, 0.0), 1.0)
    return tuple(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1))


@lru_cache(maxsize=1)
def _fresh_hand_worth() -> float:
    """The expected worth of a fresh hand of 2d6 random cards (face values at ten each)."""
    total = 0.0
    for a in range(1, 7):
        for b in range(1, 7):
            n = a + b
            probs = _binomial(n, 1 / 13)
            per_rank = sum(pk * PROGRESS[min(k, 8)] for k, pk in enumerate(probs))
            total += per_rank * sum(r * 10 for r in RANKS[:-1]) + per_rank * 80
    return total / 36


def _card_worth(view: View) -> float:
    """What one more unseen card adds, on average (a random draw)."""
    if view.card_worth is None:
        held = counts(_mine(view))
        total = sum(
            view.unseen(r) * change(view, r, held.get(r, 0), held.get(r, 0) + 1) for r in RANKS
        )
        hidden = view.hidden_total()
        view.card_worth = total / hidden if hidden else 0.0
    return view.card_worth


# ----------------------------------------------------------------------------- the turn


def _turn(view: View, acts: set[str], rng: random.Random, now: float) -> Action:
    """Score a good set if there is one; otherwise the move worth most by the estimates."""
    if "score" in acts:
        cards = _best_set(view)
        if cards is not None:
            return Action(kind="score", cards=cards, now=now)
    options: list[tuple[float, Action]] = []
    options += _acquires(view, rng, now)
    if "protect" in acts:
        worth, card = _protect(view)
        if card is not None:
            options.append((worth, Action(kind="protect", cards=[card], now=now)))
    options.append((_recycle(view), Action(kind="recycle", now=now)))
    for p in view.opponents:
        if p.hand:  # against an empty hand nobody could draw: a table of those never ends
            options.append((_challenge(view, p), Action(kind="challenge", target=p.id, now=now)))
    weakest = min(view.opponents, key=lambda p: p.score + p.set_points)
    options.append((_cooperate(view), Action(kind="cooperate", target=weakest.id, now=now)))
    if "force" in acts:
        target = max(view.opponents, key=lambda p: p.hand)
        worth = 0.5 * max(0, target.hand - 8) * _card_worth(view)
        options.append((worth, Action(kind="force", target=target.id, now=now)))
    best_worth, best = max(options, key=lambda o: o[0])
    if best_worth <= 0 and "score" in acts:  # nothing better: even weak Aces count
        cards = _best_set(view, weak_aces=True)
        if cards is not None:
            return Action(kind="score", cards=cards, now=now)
    return best


def _best_set(view: View, weak_aces: bool = False) -> list[int] | None:
    """The set scoring most now (a double set when eight are held); Aces only when they are
    worth it, or when the deck is nearly out and they would not count otherwise."""
    me = _as_player(view)
    best: tuple[float, list[int]] | None = None
    for r in RANKS:
        for size in (8, 4):
            cards = set_cards(me, r, size)
            if cards is None:
                continue
            jokers = sum(1 for c in cards if is_joker(c))
            base = (view.top_set or 0) + 10 if r == 14 else r * 10
            if r == 14 and base < GOOD_ACES and not weak_aces and view.deck > 8:
                continue
            points = (2 * (base + 10) if size == 8 else base) - jokers
            if best is None or points > best[0]:
                best = (points, cards)
            break
    return best[1] if best else None


def _as_player(view: View) -> CPlayer:
    """This seat's cards as the engine's player, for `set_cards`."""
    return CPlayer(id=view.me, name="", hand=list(view.hand), protected=list(view.protected))


def _acquires(view: View, rng: random.Random, now: float) -> list[tuple[float, Action]]:
    """Every value worth asking for: the expected gain in worth (the cards the others surely
    hold, and those of their cards the ledger leaves possibly of that value), less the card
    thrown away when nobody has any. A bluff (a value not held) throws nothing away but
    risks a random card when called, as often as the others were seen to call: the best
    bluff is offered only when it is worth more than every honest Acquire, and then only
    half the time, so neither the bot's Acquires nor its bluffs follow a rule."""
    held = counts(_mine(view))
    called = 1.0
    for p in view.opponents:
        called *= 1 - view.knowledge.call_rate(p.id)
    # A caller calls the Acquires that look like bluffs: a bluff is called more often than
    # Acquires are on the whole (self-play: about three times as often).
    called = min(1.0, 3 * (1 - called))
    loss = _random_card_loss(view) if view.hand else 0.0
    card = _card_worth(view)  # a called bluff also wastes the turn: about a card's worth
    honest: list[tuple[float, Action]] = []
    bluffs: list[tuple[float, Action]] = []
    for r in RANKS:
        if _round_the_table(view, r):
            continue
        k0 = held.get(r, 0)
        sure, maybe = view.haul(r)
        probs = _binomial(maybe, view.chance(r))
        gain = 0.0
        for k, pk in enumerate(probs):
            got = k + sure
            if got == 0:
                gain += pk * change(view, r, k0, k0 - 1) if k0 else 0.0
                continue
            gain += pk * change(view, r, k0, k0 + got)
            gain += pk * got * rank_worth(view, r) * 0.05  # what the others lose
        action = Action(kind="acquire", rank=r, now=now)
        if k0:
            honest.append((gain, action))
        else:
            bluffs.append(((1 - called) * gain - called * (loss + card), action))
    out = honest
    if bluffs:
        best = max(bluffs, key=lambda o: o[0])
        top = max((o[0] for o in honest), default=0.0)
        if called < CALLED_AT_MOST and best[0] > max(top, 0.0) + card and rng.random() < BLUFF_MIX:
            out.append(best)
    return out


def _round_the_table(view: View, r: int) -> bool:
    """Whether value r is going round the table: each of the others just acquired it from the
    one before, or for two rounds every record was an Acquire that got cards and r was one
    of the values asked for. Asked for again, it (or it and another, in turn: a King and an
    Ace at seed 819 of the four-player arena) would go round for ever."""
    one = 2 * len(view.opponents)  # an Acquire and its handing over, by each other seat
    tail = view.recent[-one:]
    if len(tail) == one and all(e.r == r and e.k in ("acquire", "gave") for e in tail):
        return True
    tail = view.recent[-2 * one :]
    return (
        len(tail) == 2 * one
        and all(e.k in ("acquire", "gave") for e in tail)
        and any(e.r == r for e in tail)
    )


def _exposure(view: View, r: int) -> float:
    """The chance a value is asked for before this seat's next turn or two: higher when the
    ledger shows this seat holds it (a careful player asks for what they know is there)."""
    risk = KNOWN_RISK if view.knowledge.held(view.me, r) else ACQUIRE_RISK
    return min(1.0, HORIZON * risk * len(view.opponents))


def _protect(view: View) -> tuple[float, int | None]:
    """The card whose protection saves most: Acquire takes every unprotected card of the
    value asked for, so a card of the best near-set is the one to keep face down."""
    held = counts(_mine(view))
    loose = counts(view.hand)
    best: tuple[float, int | None] = (-1.0, None)
    for c in view.hand:
        if is_joker(c):
            continue  # never asked for; only a random discard takes it
        r = rank(c)
        k, exposed = held[r], loose[r]
        lost = -change(view, r, k, k - exposed)
        kept = -change(view, r, k, k - exposed + 1)
        worth = _exposure(view, r) * (lost - kept)
        if worth > best[0]:
            best = (worth, c)
    return best


def _recycle(view: View) -> float:
    """A fresh hand of 2d6 cards for the unprotected hand (shown to all); protected cards
    go too if the next player rolls higher (15 in 36)."""
    mine = _mine(view)
    now_worth = holding(view, mine)
    kept = holding(view, view.protected)
    fresh = _fresh_hand_worth()
    return kept * (21 / 36) + fresh - now_worth - RECYCLE_MARGIN


def _hits_per_card(view: View) -> float:
    """Matches a good guess expects per face-down card: the most common unseen value and
    the most common unseen suit."""
    hidden = view.hidden_total() or 1
    best_rank = max(view.unseen(r) for r in RANKS) / hidden
    suits = [26 - view.known_suits.get(s, 0) for s in SUITS]
    return best_rank + max(suits) / hidden


def _challenge(view: View, target: Seen) -> float:
    """Cards each side expects to draw: the target places min(die, their hand) cards,
    this seat min(die, its hand); each card drawn is worth about a random card."""
    per = _hits_per_card(view)
    mine = sum(min(d, target.hand) for d in range(1, 7)) / 6 * per
    theirs = sum(min(d, len(view.hand)) for d in range(1, 7)) / 6 * (1 / 13 + 1 / 4)
    return (mine - theirs) * _card_worth(view) + 0.2 * mine * _card_worth(view)


def _cooperate(view: View) -> float:
    """One card each, and the partner sees this seat's unprotected hand until their next
    move (this seat's own look ends with the next move at the table, so it is of no use):
    worth it with little to show, towards the player furthest behind."""
    card = _card_worth(view)
    shown = holding(view, view.hand)
    return card - 0.5 * card - 0.15 * shown


# ----------------------------------------------------------------------------- windows


def _call(view: View) -> bool:
    """Call an Acquire bluff when the chance it is one makes it pay: a right call saves this
    seat's cards of that value and costs the caller a random card; a wrong one costs this
    seat a card. Never on less than an even chance: an asker who tracks cards asks for a
    value because the others hold it, which the chance does not see (against such a player,
    calls made on smaller chances were right one time in three)."""
    bluff = bluff_chance(view)
    if bluff < CALL_AT_LEAST:
        return False
    assert view.acquire is not None  # asked only while an Acquire is open
    r = view.acquire["rank"]
    k = counts(_mine(view)).get(r, 0)
    saved = -change(view, r, k, k - counts(view.hand).get(r, 0))
    card = _card_worth(view)
    risk = _random_card_loss(view) if view.hand else 0.0
    return bluff * (saved + card) > (1 - bluff) * risk


def bluff_chance(view: View) -> float:
    """The chance the open Acquire is a bluff, as this seat can judge it: the asker's bluff
    rate (a Beta prior learned from every Acquire the table saw settled, theirs weighing
    most), moved by how likely the asker is to hold none of the value by what the ledger
    shows of their cards, against how often a player of that many cards holds none of a
    value. None when they surely hold one; certain when every copy is placed elsewhere."""
    a = view.acquire
    assert a is not None
    r, pid = a["rank"], a["caller"]
    asker = view.other(pid)
    if pid == view.partner:  # this seat has seen the asker's hand
        if any(rank(c) == r for c in view.peeked):
            return 0.0
        cards = asker.protected
    elif view.knowledge.held(pid, r):
        return 0.0
    else:
        cards = view.knowledge.maybe(pid, r, view.loose(asker), asker.protected)
    none = (1 - view.chance(r)) ** cards if cards else 1.0
    if none >= 1:
        return 1.0
    usual = (12 / 13) ** max(1, asker.hand + asker.protected)
    rate = view.knowledge.bluff_rate(pid)
    odds = none / (1 - none) * rate / (1 - rate) * (1 - usual) / usual
    return odds / (1 + odds)


def _random_card_loss(view: View) -> float:
    """What a random discard from the unprotected hand costs, on average."""
    held = counts(_mine(view))
    total = 0.0
    for c in view.hand:
        r = rank(c)
        total -= change(view, r, held[r], held[r] - 1)
    return total / len(view.hand)


def _commit(view: View, need: int) -> list[int]:
    """The cards to place face down: they come back, but everyone sees them, so the ones
    that give least away (the loose cards, not the near-sets), varied in suit and value so
    one guess matches few."""
    counts: dict[int, int] = {}
    for c in _mine(view):
        counts[rank(c)] = counts.get(rank(c), 0) + 1
    chosen: list[int] = []
    pool = sorted(
        view.hand, key=lambda c: (counts.get(rank(c), 0) if not is_joker(c) else 9, rank(c), c)
    )
    while len(chosen) < need:
        used_s = {suit(c) for c in chosen}
        used_r = {rank(c) for c in chosen}
        fresh = [
            c for c in pool if c not in chosen and suit(c) not in used_s and rank(c) not in used_r
        ]
        pick = fresh[0] if fresh else next(c for c in pool if c not in chosen)
        chosen.append(pick)
    return chosen


def _guess(view: View, rng: random.Random) -> tuple[int, str]:
    """The value and the suit most likely among the opponent's face-down cards: the values
    the ledger shows they hold (challenge cards they showed before come back to their hand),
    else the ones with the most copies this seat cannot place; the suit with most unseen."""
    c = view.challenge
    assert c is not None
    pid = c["target"] if c["challenger"] == view.me else c["challenger"]
    opponent = view.other(pid)
    loose = view.loose(opponent)
    likely = {
        r: view.knowledge.held(pid, r) + view.knowledge.maybe(pid, r, loose) * view.chance(r)
        for r in RANKS
    }
    best = max(likely.values())
    ranks = [r for r in RANKS if likely[r] >= best - 1e-9]
    suits_left = {s: 26 - view.known_suits.get(s, 0) for s in SUITS}
    top = max(suits_left.values())
    suits = [s for s in SUITS if suits_left[s] == top]
    return pick(rng, ranks, "rank"), pick(rng, suits, "suit")


def _force_fair(view: View) -> bool:
    """Agree to force a recycle on a player ahead of this seat (banked and on the table),
    or on one hoarding a big hand."""
    f = view.force
    assert f is not None
    target = view.other(f["target"])
    me = view.other(view.me)
    return target.score + target.set_points > me.score + me.set_points or target.hand >= 12
