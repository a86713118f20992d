"""The Kuriki engine: who holds the cup, what was declared, who is responsible, lives, fouls
and the pot. Pure: dice come from the caller's RNG and time from the caller's `now`.

The dice under the cup are hidden: `public_view` leaves them out, `private_view` shows them
only to a player who has seen them (the Roller, or someone who sneaked a peek)."""

from __future__ import annotations

import random
from typing import Literal

from pydantic import BaseModel, Field

from games.autoplay import Chooser, idle_reason, idle_turns, play_part
from games.bots import only_bots
from games.copies import working_copy
from games.dice import roll, roll_off
from games.errors import IllegalMove, NotInGame, NotYourTurn
from games.gamelog import write_log
from games.kuriki.values import (
    KURIKI,
    dice_text,
    is_kuriki,
    legal_declarations,
    name,
    roll_value,
)
from games.lobby import Seat, seated
from games.numbers import number
from games.places import Order, exits

LOG_LENGTH = 12
#: The name of a roll under the cup in a game's record of draws (games/draws.py).
CUP = "cup"
TIMEOUTS_BEFORE_REMOVAL = 3
FOULS_PER_LIFE = 3
RUSK_FOULS = 3

Phase = Literal["direction", "roll", "declare", "respond", "over"]


class KurikiRules(BaseModel):
    """The table's choices: lives, variants and optional stakes."""

    lives: int = Field(5, ge=1, le=9)
    two_digit: bool = False
    reverse_after_kuriki: bool = False
    stake: int = Field(0, ge=0, le=1_000_000, description="Buy-in per player; 0: no stakes.")
    foul_price: int = Field(25, ge=0, le=1_000_000, description="Paid into the pot per foul.")
    vote_seconds: int = Field(60, ge=10, le=3600, description="How long a foul vote stays open.")


class KPlayer(BaseModel):
    id: int
    name: str
    lives: int
    fouls: int = 0
    crowns: int = 0
    pull_lives: int = Field(0, description="Lives taken from liars by this player's pulls.")
    purse: int = Field(0, description="Net winnings when playing for stakes.")
    timeouts: int = 0
    left: bool = False

    @property
    def out(self) -> bool:
        return self.lives <= 0


class Vote(BaseModel):
    """A disrespect foul "charged by a player and agreed-to by acclamation from the other
    players": the voters are the players other than the accuser and the accused, and it
    counts when a majority of them agree. With no such player (two at the table) the accused
    accepts it or it is not charged. A Rusk is voted the same way and is a triple foul."""

    id: int
    accused: int
    proposer: int
    reason: str
    rusk: bool = False
    yes: list[int] = Field(default_factory=list)
    no: list[int] = Field(default_factory=list)
    deadline: float


class ClosedVote(BaseModel):
    """The last foul vote to close, for its message: the vote (with its count) and what
    followed (the foul charged and what it cost, or why it was not)."""

    vote: Vote
    carried: bool
    outcome: list[str]


class Reveal(BaseModel):
    """Dice that became public: a pull or a Kuriki."""

    dice: tuple[int, int]
    declared: int | None
    liar: bool
    loser: int | None


class Event(BaseModel):
    kind: str
    text: str
    player: int | None = None


class Action(BaseModel):
    """One move. `value` is a declaration, a direction ('cw'/'ccw'), a vote ('yes'/'no'; the
    accused of a vote with no voters: 'accept'/'decline'), a player id (fouls); `vote` names
    the vote; `rusk` makes a proposal a Rusk; `now` is the caller's clock."""

    kind: Literal[
        "direction", "roll", "declare", "pull", "pass", "sneak", "reverse", "propose", "vote"
    ]
    value: str | None = None
    vote: int | None = None
    reason: str = ""
    rusk: bool = False
    now: float = 0.0


class KurikiState(BaseModel):
    rules: KurikiRules
    players: list[KPlayer]
    direction: int = 1
    phase: Phase = "direction"
    roller: int
    dice: tuple[int, int] | None = Field(None, description="Hidden: under the cup.")
    declared: int | None = None
    minimum: int | None = Field(None, description="Declaration the Roller must match (a point).")
    responsible: int | None = None
    next_guy: int | None = None
    passed: list[int] = Field(default_factory=list)
    seen: list[int] = Field(
        default_factory=list, description="Who has seen the dice under the cup."
    )
    can_reverse: bool = False
    highest: int | None = Field(
        None, description="Who won the start rolls (the first Roller unless they left)."
    )
    pot: int = 0
    votes: list[Vote] = Field(default_factory=list)
    closed_vote: ClosedVote | None = None
    next_vote: int = 1
    tarted: int | None = None
    winner: int | None = None
    winners: list[int] = Field(
        default_factory=list,
        description="Everyone who won when that is several (the bots still standing when the "
        "last person is out); empty: `winner` alone.",
    )
    ended_by_departure: str | None = Field(
        None, description="Why too few players were left (e.g. 'Ann left'): no winner."
    )
    out_order: list[int] = Field(
        default_factory=list,
        description="Who went out (lost their last life, or left), in that order: the "
        "finishing order from the bottom up (see `finishing_order`). Games saved before it "
        "was kept may miss those out earlier.",
    )
    last_reveal: Reveal | None = None
    log: list[str] = Field(default_factory=list)
    new_log: list[str] | None = Field(
        None,
        description="Lines written since the bot last stored them (games.gamelog); None: a "
        "game from before the whole log was kept.",
    )
    moment: int = Field(
        0, description="Counts rolls under the cup and ended points: see `decision`."
    )

    def player(self, user_id: int) -> KPlayer:
        return seated(self.players, user_id)

    @property
    def finished(self) -> bool:
        return self.phase == "over"

    def alive(self) -> list[KPlayer]:
        return [p for p in self.players if not p.out]

    def after(self, user_id: int) -> int:
        """The next player still alive from `user_id` in the direction of play."""
        ids = [p.id for p in self.players]
        i = ids.index(user_id)
        for step in range(1, len(ids) + 1):
            p = self.players[(i + step * self.direction) % len(ids)]
            if not p.out:
                return p.id
        return user_id


# ----------------------------------------------------------------------------- set-up


def new_game(
    seats: list[Seat], rules: KurikiRules, rng: random.Random
) -> tuple[KurikiState, list[Event]]:
    """Everyone rolls one die, ties for the highest re-roll; the winner is the first Roller
    and chooses the direction of play."""
    if len(seats) < 2:
        raise IllegalMove("Kuriki needs at least two players.")
    events: list[Event] = []
    names = {s.id: s.name for s in seats}
    first, rounds = roll_off([s.id for s in seats], rng)
    for rolls in rounds:
        shown = ", ".join(f"{names[i]} {r}" for i, r in rolls.items())
        events.append(Event(kind="seating", text="Start rolls: " + shown))
    players = [KPlayer(id=s.id, name=s.name, lives=rules.lives, purse=-rules.stake) for s in seats]
    state = KurikiState(
        rules=rules, players=players, roller=first, highest=first, pot=0, new_log=[]
    )
    events.append(
        Event(
            kind="first",
            player=first,
            text=f"{names[first]} rolled highest: first Roller, and chooses the direction.",
        )
    )
    _log(state, events)
    return state, events


# ----------------------------------------------------------------------------- queries


def rolled_highest(state: KurikiState) -> bool:
    """Whether the first Roller won the start rolls (not when the choice passed on because
    the winner left)."""
    return state.highest in (None, state.roller)


def on_clock(state: KurikiState) -> int | None:
    """Whose move the table waits for."""
    if state.phase == "over":
        return None
    if state.phase == "respond":
        return state.next_guy
    return state.roller


def legal_actions(state: KurikiState, user_id: int) -> set[str]:
    """Moves `user_id` may make now (fouls and votes aside from 'sneak')."""
    acts: set[str] = set()
    if state.phase == "over":
        return acts
    try:
        me = state.player(user_id)
    except NotInGame:
        return acts
    if me.out:
        return acts
    if state.phase in ("declare", "respond") and user_id not in state.seen:
        acts.add("sneak")
    if state.phase == "direction" and user_id == state.roller:
        acts.add("direction")
    elif state.phase == "roll" and user_id == state.roller:
        acts.add("roll")
        if state.can_reverse:
            acts.add("reverse")
    elif state.phase == "declare" and user_id == state.roller:
        acts.add("declare")
    elif state.phase == "respond" and user_id == state.next_guy:
        acts |= {"roll", "pull"}
        if user_id not in state.passed:
            acts.add("pass")
    return acts


def declarations(state: KurikiState) -> list[int]:
    """What the Roller may declare now."""
    return legal_declarations(state.rules.two_digit, state.minimum)


def public_view(state: KurikiState) -> dict[str, object]:
    """Everything but the dice under the cup."""
    data = state.model_dump(mode="json")
    data["dice"] = None
    return data


def private_view(state: KurikiState, user_id: int) -> dict[str, object]:
    """The public view, plus the dice for a player who has seen them."""
    data = public_view(state)
    if state.dice is not None and user_id in state.seen:
        data["dice"] = list(state.dice)
    return data


# ----------------------------------------------------------------------------- moves


def apply(
    state: KurikiState, user_id: int, action: Action, rng: random.Random
) -> tuple[KurikiState, list[Event]]:
    """Apply one player's move; raises GameError (state untouched) when it is refused."""
    if state.phase == "over":
        raise IllegalMove("This game is over.")
    me = state.player(user_id)
    if me.out:
        raise IllegalMove("You are out of this game.")
    s = working_copy(state)
    events: list[Event] = []
    _close_expired_votes(s, action.now, events)
    kind = action.kind
    if kind in ("sneak", "propose", "vote"):
        {"sneak": _sneak, "propose": _propose, "vote": _vote}[kind](s, user_id, action, events)
    else:
        if kind == "declare" and s.phase == "respond" and s.roller == user_id:
            # A second declaration menu (from Peek again) used after the first.
            refusal = NotYourTurn if on_clock(s) != user_id else IllegalMove
            raise refusal(f"You have already declared {name(s.declared or 0)} on this roll.")
        if on_clock(s) != user_id:
            who = s.player(on_clock(s)).name  # type: ignore[arg-type]
            raise NotYourTurn(f"It's not your move: the table is waiting for {who}.")
        if kind not in legal_actions(s, user_id):
            raise IllegalMove(_why_not(s, kind))
        s.player(user_id).timeouts = 0
        if kind == "direction":
            _direction(s, action.value, events)
        elif kind == "reverse":
            s.direction = -s.direction
            s.can_reverse = False
            events.append(
                Event(
                    kind="reverse",
                    player=user_id,
                    text=f"{me.name} reverses the direction of play.",
                )
            )
        elif kind == "roll":
            _roll(s, user_id, rng, events)
        elif kind == "declare":
            _declare(s, action.value, events)
        elif kind == "pull":
            _pull(s, user_id, events)
        elif kind == "pass":
            _pass(s, user_id, events)
    _log(s, events)
    return s, events


def timeout(
    state: KurikiState, rng: random.Random, now: float = 0.0, chooser: Chooser | None = None
) -> tuple[KurikiState, list[Event]]:
    """The player on the clock ran out of time. With a `chooser` (the bot player's policy)
    it makes their moves (a Roller's roll and declaration, a Next Guy's answer), deciding
    from what that seat may know, so a timeout tells the table nothing. Without one, or when
    it has no answer, the fixed rule: a Next Guy pulls; a Roller (rolling first if he had
    not) declares the lowest legal declaration whatever the dice; the first Roller plays
    clockwise. Three timeouts in a row take a player out of the game; once every person
    still in it let their last turns run out (`autoplay.idle_turns`), the game ends
    abandoned, with no winner."""
    if state.phase == "over":
        raise IllegalMove("This game is over.")
    s = working_copy(state)
    events: list[Event] = []
    _close_expired_votes(s, now, events)
    who = on_clock(s)
    assert who is not None
    player = s.player(who)
    missed = player.timeouts + 1
    events.append(Event(kind="timeout", player=who, text=f"{player.name} ran out of time."))
    played = None
    logged = 0  # how many of `events` are in the log already
    if chooser is not None and s.phase != "over":
        start = s.model_copy(deep=True)
        _log(start, events)

        def done(t: KurikiState) -> bool:
            # Their part ends when someone else is on the clock or a new point begins.
            return t.phase in ("over", "direction", "roll") or on_clock(t) != who

        played = play_part(start, who, chooser, apply, rng, done)
    if played is not None:
        s = played[0]
        events += played[1]
        logged = len(events)
    elif s.phase != "over":
        _fixed_timeout(s, who, rng, events)
    player = s.player(who)
    player.timeouts = missed
    idle = None if s.phase == "over" else idle_turns((p.id, p.timeouts) for p in s.alive())
    if idle is not None:
        _end_by_departure(s, idle_reason(idle), events)
    elif player.timeouts >= TIMEOUTS_BEFORE_REMOVAL and s.phase != "over":
        events.append(
            Event(
                kind="removed",
                player=who,
                text=f"{player.name} timed out {TIMEOUTS_BEFORE_REMOVAL} times in a row and leaves the table.",
            )
        )
        _remove(s, who, events, f"{player.name} timed out {TIMEOUTS_BEFORE_REMOVAL} times")
    _log(s, events[logged:])
    return s, events


def _fixed_timeout(s: KurikiState, who: int, rng: random.Random, events: list[Event]) -> None:
    """The rule that plays a timeout without a policy (see `timeout`)."""
    player = s.player(who)
    if s.phase == "direction":
        _direction(s, "cw", events)
    elif s.phase == "respond":
        _pull(s, who, events)
    else:
        if s.phase == "roll":
            _roll(s, who, rng, events)
        if s.phase == "declare":
            # Whatever the dice: a declaration that depended on them (the truth when it is
            # high enough) would tell the table whether it is the truth.
            lowest = declarations(s)[0]
            _declare(s, str(lowest), events)
            events[-1].text = (
                f"{player.name} declares the lowest allowed, {name(lowest)}, whatever the dice."
            )


def expire_votes(state: KurikiState, now: float) -> tuple[KurikiState, list[Event]]:
    """Close the foul votes whose time is up (they fail without a majority)."""
    s = working_copy(state)
    events: list[Event] = []
    _close_expired_votes(s, now, events)
    _log(s, events)
    return s, events


def next_vote_deadline(state: KurikiState) -> float | None:
    return min((v.deadline for v in state.votes), default=None)


def remove_player(state: KurikiState, user_id: int) -> tuple[KurikiState, list[Event]]:
    """A player leaves: they are out, and a point they were part of starts afresh."""
    if state.phase == "over":
        raise IllegalMove("This game is over.")
    who = state.player(user_id)
    if who.out:
        raise IllegalMove("You are already out of this game.")
    s = working_copy(state)
    events = [Event(kind="removed", player=user_id, text=f"{who.name} left the table.")]
    _remove(s, user_id, events, f"{who.name} left")
    _log(s, events)
    return s, events


def abandon(state: KurikiState, why: str) -> tuple[KurikiState, list[Event]]:
    """End the game with no winner because of a departure (`why`: e.g. only bots are left)."""
    s = working_copy(state)
    events: list[Event] = []
    _end_by_departure(s, why, events)
    _log(s, events)
    return s, events


def voters(state: KurikiState, vote: Vote) -> list[int]:
    """Who votes on `vote`: the players still in, other than the accuser and the accused.
    None (two players): the accused accepts the foul or it is not charged."""
    return [p.id for p in state.alive() if p.id not in (vote.accused, vote.proposer)]


def charge_rusk(state: KurikiState, accused: int) -> tuple[KurikiState, list[Event]]:
    """A Rusk (manhandling the cup) is a triple foul. Players propose it like any disrespect
    foul (`propose` with `rusk`); a server manager may also charge it directly, here: the
    caller checks that."""
    if state.phase == "over":
        raise IllegalMove("This game is over.")
    s = working_copy(state)
    events: list[Event] = []
    _foul(s, accused, RUSK_FOULS, "a Rusk (manhandling the cup)", events)
    _log(s, events)
    return s, events


# ----------------------------------------------------------------------------- internals


def _why_not(s: KurikiState, kind: str) -> str:
    if kind == "pass" and s.phase == "respond":
        return "You have passed this roll once already: Roll or Pull."
    if kind == "reverse":
        return "You may reverse the direction only right after your Kuriki."
    if kind in ("roll", "pull") and s.phase == "declare":
        return "The Roller has not declared yet."
    return "That move is not possible right now."


def _direction(s: KurikiState, value: str | None, events: list[Event]) -> None:
    if value not in ("cw", "ccw"):
        raise IllegalMove("Choose clockwise or counter-clockwise.")
    s.direction = 1 if value == "cw" else -1
    s.phase = "roll"
    roller = s.player(s.roller)
    way = "clockwise" if value == "cw" else "counter-clockwise"
    events.append(
        Event(kind="direction", player=roller.id, text=f"{roller.name} chose {way}. Fresh roll.")
    )


def _roll(s: KurikiState, user_id: int, rng: random.Random, events: list[Event]) -> None:
    me = s.player(user_id)
    taking = s.phase == "respond"
    if taking:
        s.minimum = s.declared
        events.append(
            Event(
                kind="take",
                player=user_id,
                text=f"{me.name} takes the cup and rolls on {name(s.declared or 0)}.",
            )
        )
    else:
        s.minimum = None
        events.append(Event(kind="roll", player=user_id, text=f"{me.name} rolls a fresh roll."))
    s.roller = user_id
    s.can_reverse = False
    s.moment += 1
    a, b = roll(rng, 2, user_id, CUP)
    s.dice = (a, b)
    s.seen = [user_id]
    s.passed = []
    s.responsible = s.next_guy = None
    if is_kuriki(*s.dice):
        _kuriki(s, events)
    else:
        s.phase = "declare"


def _kuriki(s: KurikiState, events: list[Event]) -> None:
    roller = s.player(s.roller)
    assert s.dice is not None
    roller.crowns += 1
    victim = s.player(s.after(roller.id))
    s.last_reveal = Reveal(dice=s.dice, declared=None, liar=False, loser=victim.id)
    events.append(
        Event(
            kind="kuriki",
            player=roller.id,
            text=f"👑 {roller.name} rolled a KURIKI ({dice_text(s.dice)})! Crown number {roller.crowns}.",
        )
    )
    if s.rules.stake and s.pot:
        roller.purse += s.pot
        events.append(
            Event(
                kind="pot",
                player=roller.id,
                text=f"{roller.name} collects the foul pot of {s.pot}.",
            )
        )
        s.pot = 0
    third = roller.crowns % 3 == 0
    if third:  # announced before the lives it costs: the last of them may end the game
        events.append(
            Event(
                kind="kuriki3",
                player=roller.id,
                text="A third Kuriki: everybody else loses a life too.",
            )
        )
    _lose(s, victim.id, 2 if third else 1, "as the Next Guy", events)
    if third:
        for p in list(s.players):
            if p.id not in (roller.id, victim.id) and not p.out:
                _lose(s, p.id, 1, "to the third Kuriki", events)
    _clear_cup(s)
    if s.phase != "over":
        s.phase = "roll"
        s.can_reverse = s.rules.reverse_after_kuriki
        events.append(
            Event(
                kind="cup", player=roller.id, text=f"{roller.name} keeps the cup for a fresh roll."
            )
        )


def decision(state: KurikiState) -> int:
    """The stamp of the decision under the cup: this roll (declaring it, taking, pulling or
    passing it) until the next roll or the end of the point. Peeks, fouls and votes do not
    change it, so a Roller's declaration menu stays good through them."""
    return state.moment


def _clear_cup(s: KurikiState) -> None:
    """End the point: no dice under the cup, no declaration, nobody responsible."""
    s.moment += 1
    s.dice = None
    s.seen = []
    s.declared = s.minimum = s.responsible = s.next_guy = None
    s.passed = []


def _declare(s: KurikiState, value: str | None, events: list[Event]) -> None:
    declared = number(value)
    if declared is None:
        raise IllegalMove("Choose one of the declarations offered.")
    legal = declarations(s)
    if declared == KURIKI:
        raise IllegalMove("A Kuriki is shown, never declared.")
    if declared not in legal:
        low = f" at least {name(s.minimum)}" if s.minimum else ""
        raise IllegalMove(f"You must declare{low}: one of the values offered.")
    roller = s.player(s.roller)
    s.declared = declared
    s.responsible = roller.id
    s.next_guy = s.after(roller.id)
    s.phase = "respond"
    s.passed = []
    events.append(
        Event(kind="declare", player=roller.id, text=f"{roller.name} declares {name(declared)}.")
    )


def _pass(s: KurikiState, user_id: int, events: list[Event]) -> None:
    me = s.player(user_id)
    s.passed.append(user_id)
    s.responsible = user_id
    s.next_guy = s.after(user_id)
    events.append(
        Event(
            kind="pass",
            player=user_id,
            text=f"{me.name} passes, taking responsibility for {name(s.declared or 0)}.",
        )
    )


def _pull(s: KurikiState, user_id: int, events: list[Event]) -> None:
    assert s.dice is not None and s.declared is not None and s.responsible is not None
    puller = s.player(user_id)
    responsible = s.player(s.responsible)
    value = roll_value(*s.dice, s.rules.two_digit)
    liar = value < s.declared
    # A lie costs whoever is responsible for it (the Roller, or the last to pass it on) and
    # the puller starts; the truth costs the puller and "the Roller rolls again": the one
    # who rolled these dice, even when others passed them on.
    roller = s.player(s.roller)
    loser, starter = (responsible, puller) if liar else (puller, roller)
    s.last_reveal = Reveal(dice=s.dice, declared=s.declared, liar=liar, loser=loser.id)
    verdict = "a lie!" if liar else "not a lie."
    events.append(
        Event(
            kind="pull",
            player=user_id,
            text=f"{puller.name} pulls the cup: {dice_text(s.dice)} = {name(value)} against {name(s.declared)}, {verdict}",
        )
    )
    if liar:
        puller.pull_lives += 1
    _lose(s, loser.id, 1, "", events)
    _clear_cup(s)
    if s.phase == "over":
        return
    s.phase = "roll"
    s.roller = starter.id if not starter.out else s.after(starter.id)
    events.append(
        Event(
            kind="cup",
            player=s.roller,
            text=f"{s.player(s.roller).name} starts the next point with a fresh roll.",
        )
    )


def _lose(s: KurikiState, user_id: int, lives: int, why: str, events: list[Event]) -> None:
    p = s.player(user_id)
    if p.out:
        return
    p.lives = max(0, p.lives - lives)
    what = "a life" if lives == 1 else f"{lives} lives"
    events.append(
        Event(
            kind="life",
            player=p.id,
            text=f"{p.name} loses {what}{' ' + why if why else ''} ({p.lives} left).",
        )
    )
    if p.out:
        s.out_order.append(p.id)
        s.votes = [v for v in s.votes if v.accused != p.id]
        if s.tarted is None:
            s.tarted = p.id
            events.append(
                Event(
                    kind="tarted",
                    player=p.id,
                    text=f"{p.name} is out first and is Tarted: Pop-Tarts for the table, Brown Sugar and Cinnamon preferred.",
                )
            )
        else:
            events.append(Event(kind="out", player=p.id, text=f"{p.name} is out."))
    elif p.lives == 1 and s.tarted is None:  # once someone is Tarted, nobody is at risk of it
        events.append(Event(kind="tarts", player=p.id, text=f"{p.name} is in the Tarts."))
    alive = s.alive()
    if len(alive) <= 1:
        _finish(s, [p.id for p in alive], events)
    elif only_bots(p.id for p in alive) and not only_bots(p.id for p in s.players):
        # The last person is out: bots do not play on by themselves. The bots still standing
        # win together (most lives first), so the person's game reads as lost to bots,
        # whether one bot or several were left.
        standing = sorted(alive, key=lambda p: (-p.lives, -p.crowns))
        _finish(s, [p.id for p in standing], events)


def _finish(s: KurikiState, winners: list[int], events: list[Event]) -> None:
    """The game is over; `winners` share the win (usually the last one standing alone)."""
    s.phase = "over"
    s.winner = winners[0] if winners else None
    s.winners = winners if len(winners) > 1 else []
    s.dice = None
    s.votes = []
    if not winners:
        events.append(Event(kind="game_over", text="Game over: nobody is left."))
        return
    names = " and ".join(s.player(w).name for w in winners)
    if s.rules.stake:
        prize = s.rules.stake * len(s.players) + s.pot
        share, rest = divmod(prize, len(winners))
        for i, w in enumerate(winners):  # the first (most lives) takes what does not divide
            s.player(w).purse += share + (rest if i == 0 else 0)
        takes = "takes" if len(winners) == 1 else "share"
        events.append(
            Event(
                kind="prize", player=s.winner, text=f"{names} {takes} the stakes and the pot: {prize}."
            )
        )
        s.pot = 0
    text = (
        f"Game over: {names} is the last one standing and wins!"
        if len(winners) == 1
        else f"Game over: no person is left standing, so {names} win!"
    )
    events.append(Event(kind="game_over", player=s.winner, text=text))


def _foul(s: KurikiState, user_id: int, count: int, what: str, events: list[Event]) -> None:
    p = s.player(user_id)
    if p.out:
        raise IllegalMove(f"{p.name} is out of the game already.")
    before = p.fouls
    p.fouls += count
    events.append(
        Event(
            kind="foul",
            player=p.id,
            text=f"Foul on {p.name}: {what} ({p.fouls} foul{'s' if p.fouls != 1 else ''}).",
        )
    )
    if s.rules.stake and s.rules.foul_price:
        paid = s.rules.foul_price * count
        s.pot += paid
        p.purse -= paid
    lives = p.fouls // FOULS_PER_LIFE - before // FOULS_PER_LIFE
    if lives:
        involved = _involved(s, p.id)
        _lose(s, p.id, lives, f"for {FOULS_PER_LIFE * (p.fouls // FOULS_PER_LIFE)} fouls", events)
        if p.out and s.phase != "over":
            _fresh_point_without(s, p.id, involved, events)


def _sneak(s: KurikiState, user_id: int, action: Action, events: list[Event]) -> None:
    if s.phase not in ("declare", "respond") or s.dice is None:
        raise IllegalMove("There is nothing under the cup to peek at.")
    if user_id in s.seen:
        raise IllegalMove("You have already seen these dice.")
    s.seen.append(user_id)
    _foul(s, user_id, 1, "lifting both cheeks to peek under the cup", events)


def _propose(s: KurikiState, user_id: int, action: Action, events: list[Event]) -> None:
    accused = number(action.value or "0")
    if accused is None:
        raise IllegalMove("Name the player you accuse.")
    target = s.player(accused)
    if target.out:
        raise IllegalMove(f"{target.name} is out of the game already.")
    if accused == user_id:
        raise IllegalMove("You cannot propose a foul on yourself.")
    if any(v.accused == accused for v in s.votes):
        raise IllegalMove(f"There is already a foul vote open on {target.name}.")
    default = "a Rusk (manhandling the cup)" if action.rusk else "disrespecting the dice"
    reason = (action.reason or default).strip()[:100]
    vote = Vote(
        id=s.next_vote,
        accused=accused,
        proposer=user_id,
        reason=reason,
        rusk=action.rusk,
        deadline=action.now + s.rules.vote_seconds,
    )
    s.next_vote += 1
    s.votes.append(vote)
    me = s.player(user_id)
    what = "a Rusk (a triple foul)" if action.rusk else "a foul"
    who = (
        "The other players vote."
        if voters(s, vote)
        else f"Nobody else is at the table to vote: {target.name} accepts it or it is not charged."
    )
    events.append(
        Event(
            kind="vote",
            player=user_id,
            text=f"{me.name} calls {what} on {target.name}: {reason}. {who}",
        )
    )


def _vote(s: KurikiState, user_id: int, action: Action, events: list[Event]) -> None:
    vote = next((v for v in s.votes if v.id == action.vote), None)
    if vote is None:
        raise IllegalMove("That foul vote is closed.")
    electors = voters(s, vote)
    if user_id == vote.accused:
        if electors:
            raise IllegalMove("The accused does not vote.")
        if action.value not in ("accept", "decline"):
            raise IllegalMove("Accept the foul, or decline it.")
        s.votes.remove(vote)
        start = len(events)
        if action.value == "accept":
            _charge(s, vote, events)
        else:
            events.append(
                Event(
                    kind="vote_failed",
                    player=vote.accused,
                    text=f"{s.player(vote.accused).name} declines the {_called(vote)}: it is not charged.",
                )
            )
        _closed(s, vote, action.value == "accept", events[start:])
        return
    if user_id == vote.proposer:
        raise IllegalMove("You called this foul: the other players vote on it.")
    if user_id not in electors:
        raise IllegalMove("Only the accused may answer this foul: nobody else is left to vote.")
    if user_id in vote.yes or user_id in vote.no:
        raise IllegalMove("You have voted already.")
    if action.value not in ("yes", "no"):
        raise IllegalMove("Vote yes or no.")
    (vote.yes if action.value == "yes" else vote.no).append(user_id)
    _settle_vote(s, vote, events)


def _charge(s: KurikiState, vote: Vote, events: list[Event]) -> None:
    """The foul agreed on: a Rusk is a triple foul, and the log says it was a Rusk."""
    rusk = vote.rusk and "rusk" not in vote.reason.lower()
    what = f"a Rusk, {vote.reason}" if rusk else vote.reason
    _foul(s, vote.accused, RUSK_FOULS if vote.rusk else 1, what, events)


def _called(vote: Vote) -> str:
    return "Rusk" if vote.rusk else "foul"


def _closed(s: KurikiState, vote: Vote, carried: bool, outcome: list[Event]) -> None:
    """`vote` is over (already off the table): kept, with what followed, for its message."""
    s.closed_vote = ClosedVote(vote=vote, carried=carried, outcome=[e.text for e in outcome])


def _settle_vote(s: KurikiState, vote: Vote, events: list[Event]) -> None:
    electors = voters(s, vote)
    if not electors:
        return  # the accused answers (or the vote runs out)
    needed = len(electors) // 2 + 1
    yes = len([v for v in vote.yes if v in electors])
    no = len([v for v in vote.no if v in electors])
    start = len(events)
    if yes >= needed:
        s.votes.remove(vote)
        _charge(s, vote, events)
        _closed(s, vote, True, events[start:])
    elif no > len(electors) - needed:
        s.votes.remove(vote)
        events.append(
            Event(
                kind="vote_failed",
                player=vote.accused,
                text=f"The {_called(vote)} on {s.player(vote.accused).name} is voted down.",
            )
        )
        _closed(s, vote, False, events[start:])


def _close_expired_votes(s: KurikiState, now: float, events: list[Event]) -> None:
    for vote in [v for v in s.votes if v.deadline <= now]:
        s.votes.remove(vote)
        event = Event(
            kind="vote_failed",
            player=vote.accused,
            text=f"Time is up: no majority for the {_called(vote)} on {s.player(vote.accused).name}.",
        )
        events.append(event)
        _closed(s, vote, False, [event])


def _involved(s: KurikiState, user_id: int) -> bool:
    return user_id in (s.roller, s.responsible, s.next_guy) or user_id in s.passed


def _remove(s: KurikiState, user_id: int, events: list[Event], why: str) -> None:
    """Take a player out of the game. When that leaves fewer than two with lives, the game
    ends with no winner (`why` says who left): nobody earned the last-one-standing win."""
    p = s.player(user_id)
    involved = _involved(s, user_id)
    if not p.out:
        s.out_order.append(user_id)
    p.lives = 0
    p.left = True
    for vote in [v for v in s.votes if v.accused == user_id]:
        s.votes.remove(vote)
    if len(s.alive()) <= 1:
        _end_by_departure(s, why, events)
        return
    _fresh_point_without(s, user_id, involved, events)


def _end_by_departure(s: KurikiState, why: str, events: list[Event]) -> None:
    """Too few players are left: no winner, and any stakes go back to everyone (the pot,
    paid in fouls, is nobody's to take)."""
    s.phase = "over"
    s.winner = None
    s.ended_by_departure = why
    s.dice = None
    s.votes = []
    text = f"Game over: {why}, so nobody wins."
    if s.rules.stake:
        for p in s.players:
            p.purse += s.rules.stake
        text += " The stakes go back to everyone."
    events.append(Event(kind="game_over", text=text))


def _fresh_point_without(s: KurikiState, user_id: int, involved: bool, events: list[Event]) -> None:
    """`user_id` is out (left, or knocked out by a foul): a point they were part of starts
    afresh with the next player, and a first Roller's choice of direction passes on."""
    successor = s.after(user_id)
    if involved and s.phase != "direction":
        _clear_cup(s)
        s.phase = "roll"
        s.can_reverse = False
        s.roller = successor
        events.append(
            Event(
                kind="cup",
                player=successor,
                text=f"{s.player(successor).name} starts a fresh point.",
            )
        )
    elif s.phase == "direction" and user_id == s.roller:
        s.roller = successor
        events.append(
            Event(
                kind="first",
                player=successor,
                text=f"{s.player(successor).name} is the first Roller now, and chooses the direction.",
            )
        )


def finishing_order(state: KurikiState) -> Order:
    """Places at the end of a game (see `games.places`): the winners (together when several
    share the win), anyone else still standing, then those out, the last one out highest.
    Players out before the order was kept (a game saved by an older version) come last,
    together."""
    won = state.winners or ([state.winner] if state.winner is not None else [])
    standing = [p.id for p in state.players if not p.out and p.id not in won]
    unknown = [p.id for p in state.players if p.out and p.id not in state.out_order]
    return [won, standing, *exits(state.out_order), unknown]


def _log(s: KurikiState, events: list[Event]) -> None:
    write_log(s, (e.text for e in events), LOG_LENGTH)
