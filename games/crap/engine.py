"""The CRAP engine: hands, protected cards, scored sets, the deck and the discard pile, and
the one action a turn allows. Pure: cards and dice come from the caller's RNG, time from the
caller's `now`.

Every card id is in exactly one place at any time (a hand, a protected row, a scored set, the
deck or the discard pile); `all_cards` lists them so tests can check conservation. Hands and
protected cards are hidden: `public_view` gives counts, `private_view` a player's own."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from games.autoplay import Chooser, Departures, play_part
from games.copies import working_copy
from games.crap.cards import (
    RANKS,
    SUIT_SYMBOLS,
    SUITS,
    cards_of,
    full_deck,
    grouped,
    is_joker,
    label,
    rank,
    rank_name,
    rank_words,
    shown,
    suit,
)
from games.crap.ledger import Entry, Kind, noted
from games.dice import roll, roll_off
from games.draws import pick, sample, shuffle
from games.errors import GameError, IllegalMove, InvalidSelection, NotInGame, NotYourTurn
from games.gamelog import write_log
from games.lobby import Seat, seated
from games.places import Order, by_score, exits
from games.text import Arg, Line, M, Mn, Part

LOG_LENGTH = 14

Phase = Literal["turn", "acquire", "challenge", "force_vote", "over"]
ActionKind = Literal[
    "score",
    "recycle",
    "acquire",
    "challenge",
    "protect",
    "cooperate",
    "force",
    "call_bluff",
    "no_call",
    "commit",
    "guess",
    "vote",
    "let_go_all",
]


class CrapRules(BaseModel):
    threshold: int = Field(1000, ge=100, le=100000)
    jokers: bool = False
    force_recycle: bool = False
    bluff_window: int = Field(
        10, ge=5, le=300, description="Seconds to call a bluff (docs/crap.md: why 10)."
    )
    vote_seconds: int = Field(60, ge=10, le=3600)


class ScoredSet(BaseModel):
    rank: int
    cards: list[int]
    double: bool = False
    ace_value: int | None = Field(None, description="Aces: fixed when scored.")
    marker: int | None = Field(None, description="Aces: the card taken from the highest set.")

    def base(self) -> int:
        """Face value x 10 (Aces: as fixed when scored), before jokers."""
        return self.ace_value if self.rank == 14 and self.ace_value is not None else self.rank * 10

    def points(self) -> int:
        jokers = sum(1 for c in self.cards if is_joker(c))
        if self.double:
            return 2 * (self.base() + 10) - jokers
        return self.base() - jokers

    def value(self) -> int:
        """What one set is worth, jokers counted (-1 each): a double set is two sets. This is
        the value that makes a set the highest on the table for Aces."""
        return self.points() // 2 if self.double else self.points()

    def all_cards(self) -> list[int]:
        return self.cards + ([self.marker] if self.marker is not None else [])


class CPlayer(BaseModel):
    id: int
    name: str
    hand: list[int] = Field(default_factory=list)
    protected: list[int] = Field(default_factory=list)
    sets: list[ScoredSet] = Field(default_factory=list)
    score: int = 0
    timeouts: int = 0
    # For the stats: sets scored (a double set counts two), the most banked in one scoring
    # round, Acquire bluffs nobody called, and bluffs this player called rightly.
    sets_scored: int = 0
    best_round: int = 0
    bluffs: int = 0
    calls: int = 0
    seen: dict[str, list[int]] = Field(
        default_factory=dict, description="Co-operate: the partner's hand as seen (id -> cards)."
    )
    let_go_all: bool = Field(
        False, description="Lets every Acquire go at once, so no window waits on them."
    )
    passes: int = Field(
        0, description="Acquires this player let go by hand: only the first is answered privately."
    )


class Acquire(BaseModel):
    caller: int
    rank: int
    bluff: bool
    deadline: float
    declined: list[int] = Field(default_factory=list)


class Challenge(BaseModel):
    challenger: int
    target: int
    die: int
    committed: dict[str, list[int]] = Field(default_factory=dict)
    guesses: dict[str, tuple[int, str]] = Field(default_factory=dict)


class ForceVote(BaseModel):
    caller: int
    target: int
    yes: list[int] = Field(default_factory=list)
    no: list[int] = Field(default_factory=list)
    deadline: float


RevealKind = Literal["", "recycled", "protected", "proof", "discard", "challenge"]


class Reveal(BaseModel):
    """Cards shown to everyone at one moment (a recycled hand, a proven Acquire, a challenge)."""

    what: Line
    kind: RevealKind = Field(
        "", description="What was shown, for code to read ('': saved before kinds were kept)."
    )
    cards: list[int]
    action: int = Field(0, description="The logged action that showed them (CrapState.actions).")
    turn: int | None = Field(None, description="The turn they were shown in (CrapState.turns).")
    whose: str = Field("", description="Whose turn that was.")


class Event(BaseModel):
    kind: str
    text: Line
    player: int | None = None


class Action(BaseModel):
    kind: ActionKind
    cards: list[int] = Field(default_factory=list)
    rank: int | None = None
    suit: str | None = None
    target: int | None = None
    value: str | None = None
    now: float = 0.0


class CrapState(BaseModel):
    rules: CrapRules
    players: list[CPlayer]
    departed: list[CPlayer] = Field(
        default_factory=list, description="Players who left: score and stats only, no cards."
    )
    cooperator: int | None = Field(
        None,
        description="Who just co-operated: their look at the partner's hand ends with the next move.",
    )
    deck: list[int]
    discard: list[int] = Field(default_factory=list)
    current: int = 0
    phase: Phase = "turn"
    acquire: Acquire | None = None
    challenge: Challenge | None = None
    force: ForceVote | None = None
    rounds: int = 0
    history: list[dict[str, int]] = Field(
        default_factory=list,
        description="Every player's score (by id) after each scoring round: the end chart.",
    )
    winners: list[int] = Field(default_factory=list)
    ended_by_departure: Line | None = Field(
        None, description="Why too few players were left (e.g. 'Ann left'): no winner."
    )
    reveals: list[Reveal] = Field(default_factory=list)
    log: list[Line] = Field(default_factory=list)
    new_log: list[Line] | None = Field(
        None,
        description="Lines written since the bot last stored them (games.gamelog); None: a "
        "game from before the whole log was kept.",
    )
    actions: int = Field(0, description="Counts the actions that wrote to the log.")
    last_lines: int = Field(
        0, description="How many of the log's last lines the last action wrote (all are shown)."
    )
    moment: int = Field(0, description="Counts turns and the decisions opened in them.")
    turns: int = Field(0, description="Counts the turns begun after the first (a reveal's age).")
    ledger: list[Entry] = Field(
        default_factory=list,
        description="Every public card movement, compact (games.crap.ledger): what a careful "
        "player tracks from the public lines.",
    )

    def player(self, user_id: int) -> CPlayer:
        return seated(self.players, user_id)

    @property
    def current_player(self) -> CPlayer:
        return self.players[self.current]

    @property
    def finished(self) -> bool:
        return self.phase == "over"

    def next_after(self, user_id: int) -> CPlayer:
        ids = [p.id for p in self.players]
        return self.players[(ids.index(user_id) + 1) % len(ids)]


def all_cards(state: CrapState) -> list[int]:
    """Every card of the game, wherever it is (for conservation checks)."""
    out = list(state.deck) + list(state.discard)
    for p in state.players:
        out += p.hand + p.protected
        for s in p.sets:
            out += s.all_cards()
    return out


# ----------------------------------------------------------------------------- set-up


def new_game(
    seats: list[Seat], rules: CrapRules, rng: random.Random
) -> tuple[CrapState, list[Event]]:
    """Shuffle, everyone rolls two dice and draws that many; the fewest cards starts, ties
    roll off one die each and the lowest starts."""
    if not 3 <= len(seats) <= 6:
        # Translators: CRAP is the game's name (Challenge, Recycle, Acquire, Protect)
        raise IllegalMove(M("CRAP is played by 3 to 6 players."))
    deck = full_deck(rules.jokers)
    shuffle(rng, deck, "deck")
    state = CrapState(
        rules=rules, players=[CPlayer(id=s.id, name=s.name) for s in seats], deck=deck, new_log=[]
    )
    events: list[Event] = []
    dealt: list[Part] = []
    for p in state.players:
        a, b = roll(rng, 2, p.id, "draw")
        p.hand = [state.deck.pop() for _ in range(a + b)]
        dealt.append(f"{p.name} {a}+{b}")
        _note(state, "draw", p.id, n=a + b)
    events.append(
        Event(kind="deal", text=M("Everyone rolls two dice and draws: {draws}.", draws=dealt))
    )
    fewest = min(len(p.hand) for p in state.players)
    tied = [p.id for p in state.players if len(p.hand) == fewest]
    starter, rounds = roll_off(tied, rng, lowest_wins=True)
    for rolls in rounds:
        rolled: list[Part] = [f"{state.player(i).name} {r}" for i, r in rolls.items()]
        events.append(Event(kind="rolloff", text=M("Roll-off: {rolls}", rolls=rolled)))
    state.current = [p.id for p in state.players].index(starter)
    events.append(
        Event(
            kind="turn",
            player=starter,
            text=M("{name} has the fewest cards and starts.", name=state.player(starter).name),
        )
    )
    _log(state, events)
    return state, events


# ----------------------------------------------------------------------------- queries


def waiting_for(state: CrapState) -> list[int]:
    """Players whose decision the game waits for now."""
    if state.phase == "turn":
        return [state.current_player.id]
    if state.phase == "challenge" and state.challenge is not None:
        c = state.challenge
        pending = [pid for pid in (c.challenger, c.target) if str(pid) not in c.committed]
        if pending:
            return pending
        for pid in (c.challenger, c.target):
            if str(pid) not in c.guesses:
                return [pid]
    return []


def on_clock(state: CrapState) -> int | None:
    waiting = waiting_for(state)
    return waiting[0] if waiting else None


def legal_actions(state: CrapState, user_id: int) -> set[str]:
    acts: set[str] = set()
    if state.finished:
        return acts
    try:
        me = state.player(user_id)
    except NotInGame:
        return acts
    if state.phase == "turn" and user_id == state.current_player.id:
        acts |= {"recycle", "acquire", "challenge", "cooperate"}
        if me.hand:
            acts.add("protect")
        if scorable_ranks(me):
            acts.add("score")
        if state.rules.force_recycle and len(state.players) >= 3:
            acts.add("force")
    elif state.phase == "acquire" and state.acquire is not None:
        a = state.acquire
        if user_id != a.caller and user_id not in a.declined:
            acts |= {"call_bluff", "no_call"}
    elif state.phase == "challenge" and user_id in waiting_for(state):
        c = state.challenge
        assert c is not None
        acts.add("commit" if str(user_id) not in c.committed else "guess")
    elif state.phase == "force_vote" and state.force is not None:
        f = state.force
        if user_id not in (f.caller, f.target) and user_id not in f.yes + f.no:
            acts.add("vote")
    return acts


def scorable_ranks(player: CPlayer) -> list[int]:
    """Ranks the player holds enough of (hand and protected, jokers standing in) to score."""
    cards = player.hand + player.protected
    jokers = sum(1 for c in cards if is_joker(c))
    out = []
    for r in RANKS:
        natural = sum(1 for c in cards if rank(c) == r)
        if natural and natural + jokers >= 4:
            out.append(r)
    return out


def challenge_size(state: CrapState, user_id: int) -> int:
    """How many cards `user_id` must place face down in the running challenge."""
    assert state.challenge is not None
    return min(state.challenge.die, len(state.player(user_id).hand))


def _card_to_take(scored: ScoredSet) -> int | None:
    """The card Aces take from the highest set: a natural one, while the set keeps another
    (a set is of one value, so it keeps at least one natural card); else a joker; else none."""
    naturals = [c for c in scored.cards if not is_joker(c)]
    if len(naturals) > 1:
        return naturals[0]
    return next((c for c in scored.cards if is_joker(c)), None)


def highest_set(
    state: CrapState, exclude: ScoredSet | None = None
) -> tuple[CPlayer, ScoredSet] | None:
    best: tuple[CPlayer, ScoredSet] | None = None
    for p in state.players:
        for s in p.sets:
            if s is exclude:
                continue
            if best is None or s.value() > best[1].value():
                best = (p, s)
    return best


#: What no table shows about a player while the game runs: their uncalled bluffs (the
#: end-of-game stats only), their own "Let bluffs go" setting and how often they let an
#: Acquire go by hand (each sees only their own, in My hand).
UNSHOWN = ("bluffs", "let_go_all", "passes")


def public_view(state: CrapState, ledger: bool = True) -> dict[str, object]:
    """Counts instead of cards; scored sets, reveals, the log and the ledger of card
    movements are public. Nothing a person at the table could not know: a bot decides from
    this and its own cards. `ledger=False` leaves the ledger out, for a reader that takes
    its records as they are (`public_ledger`) rather than as JSON."""
    data = state.model_dump(mode="json", exclude=None if ledger else {"ledger"})
    data["deck"] = len(state.deck)
    data["discard"] = len(state.discard)  # a leaver's unseen cards end up there too
    for p in data["players"]:
        p["hand"] = len(p["hand"])
        p["protected"] = len(p["protected"])
        p["seen"] = {}
    for p in [*data["players"], *data["departed"]]:
        for key in UNSHOWN:
            p.pop(key, None)
    if state.challenge is not None:
        data["challenge"]["committed"] = {k: len(v) for k, v in state.challenge.committed.items()}
        data["challenge"]["guesses"] = {k: None for k in state.challenge.guesses}
    if state.acquire is not None:
        data["acquire"]["bluff"] = None
    return data


def public_ledger(state: CrapState) -> list[Entry]:
    """The ledger of card movements as its frozen records: public, as `public_view` shows it
    in JSON, without the copy (a bot reads it at every decision)."""
    return list(state.ledger)


def private_view(state: CrapState, user_id: int, ledger: bool = True) -> dict[str, object]:
    """The public view plus the player's own hand, protected cards, what they saw in a
    co-operate and their own challenge cards."""
    data = public_view(state, ledger)
    me = state.player(user_id)
    mine: dict[str, object] = {
        "hand": list(me.hand),
        "protected": list(me.protected),
        "seen": dict(me.seen),
    }
    if state.challenge is not None and str(user_id) in state.challenge.committed:
        mine["committed"] = list(state.challenge.committed[str(user_id)])
    data["me"] = mine
    return data


# ----------------------------------------------------------------------------- moves


def apply(
    state: CrapState, user_id: int, action: Action, rng: random.Random
) -> tuple[CrapState, list[Event]]:
    """Apply one player's move; raises GameError (state untouched) when it is refused."""
    if state.finished:
        raise IllegalMove(M("This game is over."))
    state.player(user_id)
    s = working_copy(state)
    events: list[Event] = []
    _expire(s, action.now, rng, events)
    if s.finished:
        raise IllegalMove(M("This game is over."))
    if action.kind == "let_go_all":
        _let_go_all(s, s.player(user_id), action.value == "on", rng, events)
        _log(s, events)
        return s, events
    if action.kind not in legal_actions(s, user_id):
        raise _refusal(s, user_id, action.kind)
    me = s.player(user_id)
    me.timeouts = 0
    _return_hands(s, user_id)
    kind = action.kind
    if kind == "score":
        _score(s, me, action.cards, events)
        _end_turn(s, events)
    elif kind == "recycle":
        _recycle(s, me, rng, events)
        _end_turn(s, events)
    elif kind == "acquire":
        _acquire(s, me, action, rng, events)
    elif kind == "protect":
        _protect(s, me, action.cards, events)
        _end_turn(s, events)
    elif kind == "cooperate":
        _cooperate(s, me, action.target, rng, events)
        _end_turn(s, events)
    elif kind == "challenge":
        _challenge(s, me, action.target, rng, events)
    elif kind == "force":
        _force(s, me, action, events)
    elif kind in ("call_bluff", "no_call"):
        me.passes += kind == "no_call"
        _respond_acquire(s, me, kind == "call_bluff", rng, events)
    elif kind == "commit":
        _commit(s, me, action.cards, rng, events)
    elif kind == "guess":
        _guess(s, me, action.rank, action.suit, rng, events)
    elif kind == "vote":
        _vote(s, me, action.value, rng, events)
    _log(s, events)
    return s, events


def expire(state: CrapState, now: float, rng: random.Random) -> tuple[CrapState, list[Event]]:
    """Close whatever window ran out by `now` (the bluff window, a force-recycle vote)."""
    s = working_copy(state)
    events: list[Event] = []
    _expire(s, now, rng, events)
    _log(s, events)
    return s, events


def next_deadline(state: CrapState) -> float | None:
    if state.phase == "acquire" and state.acquire is not None:
        return state.acquire.deadline
    if state.phase == "force_vote" and state.force is not None:
        return state.force.deadline
    return None


def timeout(
    state: CrapState, rng: random.Random, now: float = 0.0, chooser: Chooser | None = None
) -> tuple[CrapState, list[Event]]:
    """The player(s) on the clock ran out of time. With a `chooser` (the bot player's
    policy) it plays an absent player's turn, cards and guesses from what that seat may know;
    without one, or when it has no answer, an absent player's turn is skipped and in a
    challenge their cards are chosen and guesses made at random. Three timeouts in a row take
    a player out of the game; once every person at the table let their last turns run out
    (`autoplay.idle_turns`), the game ends abandoned, with no winner."""
    DEPARTURES.refuse_if_over(state)
    s = working_copy(state)
    events: list[Event] = []
    # Who was on the clock before a window closes: a player whose turn only starts now
    # (an Acquire or a vote just expired) has not run out of time.
    absent = waiting_for(state)
    _return_hands(s, None)
    _expire(s, now, rng, events)
    missed: dict[int, int] = {}
    logged = 0  # how many of `events` are in the log already
    if s.phase == "turn" and absent:
        p = s.current_player
        missed = {p.id: p.timeouts + 1}
        s, logged = _absent_move(s, p.id, chooser, rng, events, logged, "turn", _skip)
    elif s.phase == "challenge":
        missed = {pid: s.player(pid).timeouts + 1 for pid in absent}
        # Only the absent: a present player waiting on them still makes their own choices.
        for pid in absent:
            if s.phase != "challenge":
                break
            s, logged = _absent_move(
                s, pid, chooser, rng, events, logged, "choice", _random_choice
            )
    for pid, count in missed.items():
        if pid in _ids(s):
            s.player(pid).timeouts = count
    events += DEPARTURES.after_timeout(s, s.players, list(s.players), lambda s: s.phase == "turn")
    _log(s, events[logged:])
    if events:
        # Every line this timeout wrote is the last action's ("Ann ran out of time: a bot
        # plays their turn." and the move made for them), so the table shows them all.
        s.last_lines = min(len(events), LOG_LENGTH)
    return s, events


def abandon(state: CrapState, why: Line) -> tuple[CrapState, list[Event]]:
    """End the game with no winner because of a departure (`why`: e.g. only bots are left)."""
    return DEPARTURES.abandon(state, why)


def _ids(s: CrapState) -> list[int]:
    return [p.id for p in s.players]


def _absent_move(
    s: CrapState,
    pid: int,
    chooser: Chooser | None,
    rng: random.Random,
    events: list[Event],
    logged: int,
    what: Literal["turn", "choice"],
    fixed: Callable[[CrapState, int, random.Random, list[Event]], None],
) -> tuple[CrapState, int]:
    """One absent player's part: the policy's move when it has one, else the fixed rule.
    Adds to `events`; returns the state and how many of `events` are now logged (the
    policy's moves are logged as they are made, after the events before them)."""
    if chooser is not None:
        start = s.model_copy(deep=True)
        name = s.player(pid).name
        ran_out = Event(
            kind="timeout",
            player=pid,
            text=M("{name} ran out of time: a bot plays their turn.", name=name)
            if what == "turn"
            else M("{name} ran out of time: a bot chooses for them.", name=name),
        )
        _log(start, [*events[logged:], ran_out])
        played = play_part(start, pid, chooser, apply, rng, lambda t: True)  # one move
        if played is not None:
            events += [ran_out, *played[1]]
            return played[0], len(events)
    fixed(s, pid, rng, events)
    return s, logged


def _skip(s: CrapState, pid: int, rng: random.Random, events: list[Event]) -> None:
    p = s.player(pid)
    events.append(Event(kind="skip", player=p.id, text=M("{name} ran out of time: turn skipped.", name=p.name)))
    _end_turn(s, events)


def _random_choice(s: CrapState, pid: int, rng: random.Random, events: list[Event]) -> None:
    p = s.player(pid)
    c = s.challenge
    assert c is not None
    if str(pid) not in c.committed:
        cards = sample(rng, p.hand, challenge_size(s, pid), "cards")
        events.append(
            Event(
                kind="timeout",
                player=pid,
                text=M("{name} ran out of time: cards chosen at random.", name=p.name),
            )
        )
        _commit(s, p, cards, rng, events)
    else:
        events.append(
            Event(
                kind="timeout",
                player=pid,
                text=M("{name} ran out of time: a random guess.", name=p.name),
            )
        )
        _guess(s, p, pick(rng, RANKS, "rank"), pick(rng, SUITS, "suit"), rng, events)


def remove_player(state: CrapState, user_id: int) -> tuple[CrapState, list[Event]]:
    """A player leaves between turns or during their own turn; their cards go to the discard."""
    return DEPARTURES.leave(state, user_id, _settled)


def _settled(state: CrapState, who: CPlayer) -> None:
    if state.phase != "turn":
        raise IllegalMove(M("Wait until the current action is settled before leaving."))


# ----------------------------------------------------------------------------- internals


def _refusal(s: CrapState, user_id: int, kind: str) -> GameError:
    if (
        s.phase == "turn"
        and user_id != s.current_player.id
        and kind in ("score", "recycle", "acquire", "challenge", "protect", "cooperate", "force")
    ):
        return NotYourTurn(M("It's not your turn: it's {name}'s.", name=s.current_player.name))
    if kind == "score":
        return IllegalMove(M("You have no four cards of one value to score."))
    if kind in ("call_bluff", "no_call"):
        return _acquire_refusal(s, user_id, kind)
    if kind == "force":
        # Translators: Force Recycle is an optional action of CRAP
        return IllegalMove(M("Force recycle is not played at this table."))
    return IllegalMove(M("That is not possible right now."))


def _acquire_refusal(s: CrapState, user_id: int, kind: str) -> IllegalMove:
    """Why Call bluff or Let it go is refused, as true for the presser as it can be."""
    a = s.acquire
    if s.phase != "acquire" or a is None:
        # Translators: Acquire is an action of CRAP (name a value, the others hand it over)
        return IllegalMove(M("There is no Acquire call for you to answer."))
    if a.caller == user_id:
        if kind == "call_bluff":
            return IllegalMove(M("You can't call the bluff on your own Acquire."))
        return IllegalMove(M("It's your own Acquire: the others decide whether to let it go."))
    return IllegalMove(M("You already let this Acquire go."))


def _draw(s: CrapState, p: CPlayer, n: int, rng: random.Random, events: list[Event]) -> None:
    """Draw n cards; an empty deck starts a scoring round, then the draw completes."""
    drawn = 0
    for _ in range(n):
        if not s.deck:
            if drawn:
                _note(s, "draw", p.id, n=drawn)
            drawn = 0
            _scoring_round(s, rng, events)
            if s.finished or not s.deck:
                return
        p.hand.append(s.deck.pop())
        drawn += 1
    if drawn:
        _note(s, "draw", p.id, n=drawn)


def _scoring_round(s: CrapState, rng: random.Random, events: list[Event]) -> None:
    s.rounds += 1
    _note(s, "round", 0)
    pile = list(s.discard)
    s.discard = []
    banked: list[Part] = []
    for p in s.players:
        p.hand += p.protected
        p.protected = []
        gained = sum(st.points() for st in p.sets)
        p.score += gained
        p.best_round = max(p.best_round, gained)
        for st in p.sets:
            pile += st.all_cards()
        if p.sets:
            banked.append(
                M("{name} banks {points} (total {total})", name=p.name, points=gained, total=p.score)
            )
        p.sets = []
    s.history.append({str(p.id): p.score for p in s.players})
    shuffle(rng, pile, "deck")
    s.deck = pile
    head = (
        M("Scoring round {round}: {banked}.", round=s.rounds, banked=banked)
        if banked
        else M("Scoring round {round}: nobody has a set to bank.", round=s.rounds)
    )
    best = max(p.score for p in s.players)
    # One line for the whole round, so a 6-player round fits the table's last-action lines.
    if best >= s.rules.threshold:
        s.winners = [p.id for p in s.players if p.score == best]
        s.phase = "over"
        s.acquire = s.challenge = s.force = None
        names: list[Part] = [s.player(i).name for i in s.winners]
        events.append(Event(kind="scoring", text=head))
        events.append(
            Event(
                kind="game_over",
                text=Mn(
                    "Game over: {names} wins with {points}!",
                    "Game over: {names} win with {points}!",
                    len(names),
                    names=names,
                    points=best,
                ),
            )
        )
    else:
        events.append(
            Event(
                kind="scoring",
                text=M(
                    "{scoring} Nobody has {threshold} yet: the rest is shuffled into a new deck "
                    "of {cards}.",
                    scoring=head,
                    threshold=s.rules.threshold,
                    cards=len(s.deck),
                ),
            )
        )


def _take(p: CPlayer, cards: list[int], *, protected_too: bool) -> None:
    """Remove exactly these cards from the player's hand (and protected row if allowed)."""
    hand, prot = list(p.hand), list(p.protected)
    for c in cards:
        if c in hand:
            hand.remove(c)
        elif protected_too and c in prot:
            prot.remove(c)
        else:
            raise InvalidSelection(M("{card} is not among your cards.", card=label(c)))
    p.hand, p.protected = hand, prot


def _score(s: CrapState, me: CPlayer, cards: list[int], events: list[Event]) -> None:
    if len(cards) not in (4, 8) or len(set(cards)) != len(cards):
        raise InvalidSelection(
            M("Score exactly four cards of one value (or eight for a double set).")
        )
    naturals = {rank(c) for c in cards if not is_joker(c)}
    if len(naturals) != 1:
        raise InvalidSelection(
            M(
                "A set is four cards of one value: jokers may stand in, at least one card must "
                "be natural."
            )
        )
    r = naturals.pop()
    _take(me, cards, protected_too=True)
    _note(s, "score", me.id, c=list(cards))
    st = ScoredSet(rank=r, cards=sorted(cards), double=len(cards) == 8)
    if r == 14:
        top = highest_set(s)
        if top is None:
            st.ace_value = 10
            how = M("Aces are worth {points} (no other set is on the table).", points=10)
        else:
            owner, other = top
            st.ace_value = other.value() + 10  # "the highest value set ... plus 10"
            how = M(
                "Aces are worth {points} ({name}'s {ranks} are the highest set).",
                points=st.ace_value,
                name=owner.name,
                ranks=rank_words(other.rank),
            )
            taken = _card_to_take(other)
            if taken is not None:
                other.cards.remove(taken)
                st.marker = taken
                how = M(
                    "Aces are worth {points} (taking {card} from {name}'s {ranks}).",
                    points=st.ace_value,
                    card=label(taken),
                    name=owner.name,
                    ranks=rank_words(other.rank),
                )
        events.append(Event(kind="aces", player=me.id, text=how))
    me.sets.append(st)
    me.sets_scored += 2 if st.double else 1
    args: dict[str, Arg] = {"name": me.name, "ranks": rank_words(r), "cards": grouped(cards)}
    events.append(
        Event(
            kind="score",
            player=me.id,
            text=Mn(
                "{name} scores a double set of {ranks}: {cards} ({n} point).",
                "{name} scores a double set of {ranks}: {cards} ({n} points).",
                st.points(),
                **args,
            )
            if st.double
            else Mn(
                "{name} scores {ranks}: {cards} ({n} point).",
                "{name} scores {ranks}: {cards} ({n} points).",
                st.points(),
                **args,
            ),
        )
    )


def _recycle(
    s: CrapState, me: CPlayer, rng: random.Random, events: list[Event], forced: bool = False
) -> None:
    showing = list(me.hand)
    _reveal(s, M("{name}'s recycled hand", name=me.name), showing, "recycled")
    s.reveals = s.reveals[-6:]
    s.discard += me.hand
    _note(s, "recycle", me.id, c=showing)
    me.hand = []
    other = s.next_after(me.id)
    (mine,) = roll(rng, 1, me.id, "roll-off")
    (theirs,) = roll(rng, 1, other.id, "roll-off")
    args = {
        "name": me.name,
        "cards": shown(showing),
        "mine": str(mine),
        "other": other.name,
        "theirs": str(theirs),
    }
    events.append(
        Event(
            kind="recycle",
            player=me.id,
            text=M(
                "{name} is forced to recycle, showing {cards}. Roll-off: {name} {mine}, "
                "{other} {theirs}.",
                **args,
            )
            if forced
            else M(
                "{name} recycles, showing {cards}. Roll-off: {name} {mine}, {other} {theirs}.",
                **args,
            ),
        )
    )
    if theirs > mine and me.protected:
        _reveal(s, M("{name}'s protected cards", name=me.name), list(me.protected), "protected")
        events.append(
            Event(
                kind="recycle",
                player=me.id,
                text=Mn(
                    "{other} rolled higher: {name}'s protected {cards} goes too.",
                    "{other} rolled higher: {name}'s protected {cards} go too.",
                    len(me.protected),
                    other=other.name,
                    name=me.name,
                    cards=grouped(me.protected),
                ),
            )
        )
        s.discard += me.protected
        _note(s, "lost", me.id, c=list(me.protected))
        me.protected = []
    a, b = roll(rng, 2, me.id, "draw")
    events.append(
        Event(
            kind="draw",
            player=me.id,
            text=M(
                "{name} rolls {dice} and draws {cards}.",
                name=me.name,
                dice=f"{a}+{b}",
                cards=a + b,
            ),
        )
    )
    _draw(s, me, a + b, rng, events)


def _protect(s: CrapState, me: CPlayer, cards: list[int], events: list[Event]) -> None:
    if len(cards) != 1:
        raise InvalidSelection(M("Protect exactly one card from your hand."))
    _take(me, cards, protected_too=False)
    me.protected.append(cards[0])
    _note(s, "protect", me.id)
    events.append(
        Event(
            kind="protect",
            player=me.id,
            text=M(
                "{name} protects a card ({count} protected).",
                name=me.name,
                count=len(me.protected),
            ),
        )
    )


def _target(s: CrapState, me: CPlayer, target: int | None) -> CPlayer:
    if target is None or target == me.id:
        raise IllegalMove(M("Choose another player."))
    return s.player(target)


def _return_hands(s: CrapState, user_id: int | None) -> None:
    """Co-operate hands are "returned once satisfied": the co-operating player's look at the
    partner's hand lasts until the next move at the table (it is shown in the reply to the
    co-operate), the partner's until the partner's own next move (they are pinged to look)."""
    if s.cooperator is not None:
        s.player(s.cooperator).seen = {}
        s.cooperator = None
    if user_id is not None:
        s.player(user_id).seen = {}


def _cooperate(
    s: CrapState, me: CPlayer, target: int | None, rng: random.Random, events: list[Event]
) -> None:
    other = _target(s, me, target)
    me.seen = {str(other.id): list(other.hand)}
    other.seen = {str(me.id): list(me.hand)}
    s.cooperator = me.id
    _note(s, "cooperate", me.id, o=other.id)
    events.append(
        Event(
            kind="cooperate",
            player=me.id,
            text=M(
                "{name} and {other} co-operate: each sees the other's hand, then each draws "
                "one.",
                name=me.name,
                other=other.name,
            ),
        )
    )
    _draw(s, me, 1, rng, events)
    if not s.finished:
        _draw(s, other, 1, rng, events)


def _let_go_all(
    s: CrapState, me: CPlayer, on: bool, rng: random.Random, events: list[Event]
) -> None:
    """A player's own setting, not a move (any time, never refused): let every Acquire go
    without a window waiting on them, the open one included."""
    me.let_go_all = on
    a = s.acquire
    if on and s.phase == "acquire" and a is not None and me.id not in (a.caller, *a.declined):
        _respond_acquire(s, me, False, rng, events)


def _acquire(
    s: CrapState, me: CPlayer, action: Action, rng: random.Random, events: list[Event]
) -> None:
    r = action.rank
    if r not in RANKS:
        raise IllegalMove(M("Name a card value to acquire (2 to Ace)."))
    holds = any(rank(c) == r for c in me.hand + me.protected)
    s.acquire = Acquire(
        caller=me.id, rank=r, bluff=not holds, deadline=action.now + s.rules.bluff_window
    )
    s.phase = "acquire"
    s.moment += 1
    _note(s, "acquire", me.id, r=r)
    a = s.acquire
    assert a is not None
    a.declined = [p.id for p in s.players if p.let_go_all and p.id != me.id]
    everyone = len(a.declined) == len(s.players) - 1
    events.append(
        Event(
            kind="acquire",
            player=me.id,
            text=M(
                '{name}: "Acquire {ranks}!" Everyone lets bluffs go.',
                name=me.name,
                ranks=rank_words(r),
            )
            if everyone
            else M(
                '{name}: "Acquire {ranks}!" Anyone may call the bluff within {seconds} s.',
                name=me.name,
                ranks=rank_words(r),
                seconds=s.rules.bluff_window,
            ),
        )
    )
    if everyone:
        _settle_acquire(s, None, rng, events)


def _respond_acquire(
    s: CrapState, me: CPlayer, call: bool, rng: random.Random, events: list[Event]
) -> None:
    a = s.acquire
    assert a is not None
    if not call:
        a.declined.append(me.id)
        others = [p.id for p in s.players if p.id != a.caller]
        if set(others) <= set(a.declined):
            _settle_acquire(s, None, rng, events)
        return
    _settle_acquire(s, me, rng, events)


def _settle_acquire(
    s: CrapState, caller_of_bluff: CPlayer | None, rng: random.Random, events: list[Event]
) -> None:
    a = s.acquire
    assert a is not None
    caller = s.player(a.caller)
    s.acquire = None
    s.phase = "turn"
    if caller_of_bluff is not None:
        if a.bluff:
            caller_of_bluff.calls += 1
            _note(s, "call", caller_of_bluff.id, o=caller.id, b=True)
            events.append(
                Event(
                    kind="bluff",
                    player=caller_of_bluff.id,
                    text=M(
                        "{name} calls the bluff, and {caller} was bluffing! Nothing moves.",
                        name=caller_of_bluff.name,
                        caller=caller.name,
                    ),
                )
            )
            _random_discard(s, caller, rng, events)
            _end_turn(s, events)
            return
        proof = next(c for c in caller.hand + caller.protected if rank(c) == a.rank)
        _reveal(s, M("{name}'s proof", name=caller.name), [proof], "proof")
        _note(s, "call", caller_of_bluff.id, o=caller.id, c=[proof])
        events.append(
            Event(
                kind="bluff",
                player=caller_of_bluff.id,
                text=M(
                    "{name} calls the bluff, but {caller} shows {card}.",
                    name=caller_of_bluff.name,
                    caller=caller.name,
                    card=label(proof),
                ),
            )
        )
        _random_discard(s, caller_of_bluff, rng, events)
    if a.bluff:  # nobody called it
        caller.bluffs += 1
    got: list[int] = []
    givers: list[Part] = []
    gave: list[tuple[int, int]] = []
    for p in s.players:
        if p.id == caller.id:
            continue
        give = [c for c in p.hand if rank(c) == a.rank]
        if give:
            p.hand = [c for c in p.hand if c not in give]
            got += give
            givers.append(f"{p.name} {len(give)}")
            gave.append((p.id, len(give)))
    if got:
        caller.hand += got
        _note(s, "gave", caller.id, r=a.rank, g=gave)
        events.append(
            Event(
                kind="acquired",
                player=caller.id,
                text=M(
                    "{name} acquires {cards} ({givers}).",
                    name=caller.name,
                    cards=cards_of(len(got), a.rank),
                    givers=givers,
                ),
            )
        )
    elif not a.bluff:
        in_hand = [c for c in caller.hand if rank(c) == a.rank]
        card = in_hand[0] if in_hand else next(c for c in caller.protected if rank(c) == a.rank)
        _take(caller, [card], protected_too=True)
        s.discard.append(card)
        _note(s, "none", caller.id, r=a.rank, c=[card])
        _reveal(s, M("{name}'s discard", name=caller.name), [card], "discard")
        events.append(
            Event(
                kind="acquired",
                player=caller.id,
                text=M(
                    "Nobody has any {ranks}: {name} discards {card}.",
                    ranks=rank_words(a.rank),
                    name=caller.name,
                    card=label(card),
                ),
            )
        )
    else:
        _note(s, "none", caller.id, r=a.rank, b=True)
        events.append(
            Event(
                kind="acquired",
                player=caller.id,
                text=M("Nobody has any {ranks}.", ranks=rank_words(a.rank)),
            )
        )
    _end_turn(s, events)


def _random_discard(s: CrapState, p: CPlayer, rng: random.Random, events: list[Event]) -> None:
    if not p.hand:
        events.append(
            Event(
                kind="discard",
                player=p.id,
                text=M("{name} has no unprotected card to discard.", name=p.name),
            )
        )
        return
    card = pick(rng, p.hand, "discard")
    p.hand.remove(card)
    s.discard.append(card)
    _note(s, "discard", p.id, c=[card])
    events.append(
        Event(
            kind="discard",
            player=p.id,
            text=M("{name} discards a random card: {card}.", name=p.name, card=label(card)),
        )
    )


def _challenge(
    s: CrapState, me: CPlayer, target: int | None, rng: random.Random, events: list[Event]
) -> None:
    other = _target(s, me, target)
    (die,) = roll(rng, 1, me.id, "challenge")
    s.challenge = Challenge(challenger=me.id, target=other.id, die=die)
    _note(s, "challenge", me.id, o=other.id, n=die)
    s.phase = "challenge"
    s.moment += 1
    events.append(
        Event(
            kind="challenge",
            player=me.id,
            text=Mn(
                "{name} challenges {other} and rolls {die}: each places {n} card face down.",
                "{name} challenges {other} and rolls {die}: each places {n} cards face down.",
                die,
                name=me.name,
                other=other.name,
                die=str(die),
            ),
        )
    )
    for p in (me, other):
        if challenge_size(s, p.id) == 0:
            _commit(s, p, [], rng, events)


def _commit(
    s: CrapState, me: CPlayer, cards: list[int], rng: random.Random, events: list[Event]
) -> None:
    c = s.challenge
    assert c is not None
    need = challenge_size(s, me.id)
    if len(cards) != need or len(set(cards)) != len(cards) or any(x not in me.hand for x in cards):
        raise InvalidSelection(
            Mn(
                "Place exactly {n} card from your unprotected hand.",
                "Place exactly {n} cards from your unprotected hand.",
                need,
            )
        )
    c.committed[str(me.id)] = list(cards)
    events.append(
        Event(
            kind="commit",
            player=me.id,
            text=Mn(
                "{name} places {n} card face down.",
                "{name} places {n} cards face down.",
                need,
                name=me.name,
            ),
        )
    )


def _guess(
    s: CrapState,
    me: CPlayer,
    r: int | None,
    su: str | None,
    rng: random.Random,
    events: list[Event],
) -> None:
    c = s.challenge
    assert c is not None
    if r not in RANKS or su not in SUITS:
        raise IllegalMove(M("Name a value (2 to Ace) and a suit."))
    c.guesses[str(me.id)] = (r, su)
    if len(c.guesses) < 2:
        events.append(
            Event(
                kind="guess",
                player=me.id,
                text=M(
                    "{name} names {card}.", name=me.name, card=f"{rank_name(r)}{SUIT_SYMBOLS[su]}"
                ),
            )
        )
        return
    _settle_challenge(s, rng, events)  # its lines say what each named


def _settle_challenge(s: CrapState, rng: random.Random, events: list[Event]) -> None:
    c = s.challenge
    assert c is not None
    challenger, target = s.player(c.challenger), s.player(c.target)
    turned = c.committed[str(challenger.id)] + c.committed[str(target.id)]
    _reveal(s, M("the challenge"), turned, "challenge")
    for p in (challenger, target):
        _note(s, "shown", p.id, c=list(c.committed[str(p.id)]))
    s.reveals = s.reveals[-6:]
    wins: dict[int, int] = {}
    for guesser, opponent in ((challenger, target), (target, challenger)):
        gr, gs = c.guesses[str(guesser.id)]
        hits = 0
        for card in c.committed[str(opponent.id)]:
            if is_joker(card):
                continue
            hits += (rank(card) == gr) + (suit(card) == gs)
        wins[guesser.id] = hits
        events.append(
            Event(
                kind="reveal",
                player=guesser.id,
                text=M(
                    "{other} showed {cards}: {name} named {card}, matches {hits} and draws "
                    "{hits}.",
                    other=opponent.name,
                    cards=shown(c.committed[str(opponent.id)]),
                    name=guesser.name,
                    card=f"{rank_name(gr)}{SUIT_SYMBOLS[gs]}",
                    hits=hits,
                ),
            )
        )
    s.challenge = None
    s.phase = "turn"
    for p in (challenger, target):
        _draw(s, p, wins[p.id], rng, events)
        if s.finished:
            return
    _end_turn(s, events)


def _force(s: CrapState, me: CPlayer, action: Action, events: list[Event]) -> None:
    other = _target(s, me, action.target)
    s.force = ForceVote(caller=me.id, target=other.id, deadline=action.now + s.rules.vote_seconds)
    s.phase = "force_vote"
    s.moment += 1
    events.append(
        Event(
            kind="force",
            player=me.id,
            text=M(
                "{name} calls a Force Recycle on {other}: the others vote.",
                name=me.name,
                other=other.name,
            ),
        )
    )


def _vote(
    s: CrapState, me: CPlayer, value: str | None, rng: random.Random, events: list[Event]
) -> None:
    f = s.force
    assert f is not None
    if value not in ("yes", "no"):
        raise IllegalMove(M("Vote yes or no."))
    (f.yes if value == "yes" else f.no).append(me.id)
    voters = [p.id for p in s.players if p.id not in (f.caller, f.target)]
    needed = len(voters) // 2 + 1
    if len(f.yes) >= needed:
        target = s.player(f.target)
        s.force = None
        s.phase = "turn"
        events.append(
            Event(
                kind="force",
                player=target.id,
                text=M("The table agrees: {name} must recycle.", name=target.name),
            )
        )
        _recycle(s, target, rng, events, forced=True)
        if not s.finished:
            _end_turn(s, events)
    elif len(f.no) > len(voters) - needed:
        _fail_force(s, events, timed_out=False)


def _fail_force(s: CrapState, events: list[Event], timed_out: bool) -> None:
    f = s.force
    assert f is not None
    s.force = None
    s.phase = "turn"
    events.append(
        Event(
            kind="force",
            player=f.target,
            text=M(
                "The Force Recycle on {name} is out of time without a majority.",
                name=s.player(f.target).name,
            )
            if timed_out
            else M("The Force Recycle on {name} is voted down.", name=s.player(f.target).name),
        )
    )
    _end_turn(s, events)


def _expire(s: CrapState, now: float, rng: random.Random, events: list[Event]) -> None:
    if s.phase == "acquire" and s.acquire is not None and s.acquire.deadline <= now:
        _settle_acquire(s, None, rng, events)
    elif s.phase == "force_vote" and s.force is not None and s.force.deadline <= now:
        _fail_force(s, events, timed_out=True)


def decision(state: CrapState) -> int:
    """The stamp of the decision the table waits for: this turn, or the bluff window, the
    challenge or the vote opened in it. Everyone's answers to one window, challenge or vote
    share the stamp, so they never make each other's menus stale."""
    return state.moment


def _reveal(s: CrapState, what: Line, cards: list[int], kind: RevealKind) -> None:
    """Cards shown to everyone by the action being made, in this turn."""
    s.reveals.append(
        Reveal(
            what=what,
            kind=kind,
            cards=cards,
            action=s.actions + 1,
            turn=s.turns,
            whose=s.current_player.name,
        )
    )


def _note(s: CrapState, kind: Kind, player: int, **fields: Any) -> None:
    """Add a public card movement to the ledger (see games.crap.ledger)."""
    s.ledger = noted(s.ledger, Entry(k=kind, p=player, **fields))


def _end_turn(s: CrapState, events: list[Event]) -> None:
    if s.finished:
        return
    s.current = (s.current + 1) % len(s.players)
    s.moment += 1
    s.turns += 1
    p = s.current_player
    events.append(Event(kind="turn", player=p.id, text=M("{name}'s turn.", name=p.name)))


def _remove(s: CrapState, user_id: int, events: list[Event], why: Line) -> None:
    """Take a player out, their cards to the discard. Fewer than two left ends the game with
    no winner (`why` says who left): the one left has not reached the threshold."""
    index = next(i for i, p in enumerate(s.players) if p.id == user_id)
    p = s.players[index]
    s.discard += p.hand + p.protected
    for st in p.sets:
        s.discard += st.all_cards()
    _note(s, "left", p.id)
    was_current = index == s.current
    s.players.pop(index)
    s.departed.append(p.model_copy(update={"hand": [], "protected": [], "sets": [], "seen": {}}))
    if s.cooperator == user_id:
        s.cooperator = None
    for other in s.players:
        other.seen.pop(str(user_id), None)
    if len(s.players) < 2:
        _end_by_departure(s, why, events)
        return
    if index < s.current:
        s.current -= 1
    elif was_current:
        s.current %= len(s.players)
        s.moment += 1
        s.turns += 1
        events.append(
            Event(
                kind="turn",
                player=s.current_player.id,
                text=M("{name}'s turn.", name=s.current_player.name),
            )
        )


def _end_by_departure(s: CrapState, why: Line, events: list[Event]) -> None:
    s.phase = "over"
    s.current = 0  # keep current_player valid for whoever is left
    s.winners = []
    s.acquire = s.challenge = s.force = None
    s.ended_by_departure = why
    events.append(Event(kind="game_over", text=M("Game over: {why}, so nobody wins.", why=why)))


def finishing_order(state: CrapState) -> Order:
    """Places at the end of a game (see `games.places`): the winners (equal top scores share
    the win), the others still at the table by score, equal scores tied, then those who
    left, the last to leave highest."""
    won = list(state.winners)
    rest = [(p.id, p.score) for p in state.players if p.id not in won]
    return [won, *by_score(rest), *exits([p.id for p in state.departed])]


def _log(s: CrapState, events: list[Event]) -> None:
    """Append the action's lines; the table shows all of the last action's lines (a recycle
    that starts a scoring round included), so remember how many there were."""
    if not events:
        return
    s.actions += 1
    write_log(s, (e.text for e in events), LOG_LENGTH)
    s.last_lines = min(len(events), LOG_LENGTH)
    s.reveals = s.reveals[-6:]


DEPARTURES: Departures[CrapState, Event] = Departures(
    event=Event, remove=_remove, end=_end_by_departure, log=_log, over=lambda s: s.finished
)


__all__ = [
    "Action",
    "CrapRules",
    "CrapState",
    "abandon",
    "all_cards",
    "apply",
    "expire",
    "finishing_order",
    "legal_actions",
    "new_game",
    "private_view",
    "public_ledger",
    "public_view",
    "timeout",
]
