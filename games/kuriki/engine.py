"""The Kuriki engine: who holds the cup, what was declared, who is responsible, lives, fouls
and the pot. Pure: dice come from the caller's RNG and time from the caller's `now`.

The dice under the cup are hidden: `public_view` leaves them out, `private_view` shows them
only to a player who has seen them (the Roller, or someone who sneaked a peek)."""

from __future__ import annotations

import random
from typing import Literal

from pydantic import BaseModel, Field

from games.autoplay import Chooser, Departures, play_part
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
from games.text import Line, M, Mn, Msg

LOG_LENGTH = 12
#: The name of a roll under the cup in a game's record of draws (games/draws.py).
CUP = "cup"
FOULS_PER_LIFE = 3
RUSK_FOULS = 3
#: Closed votes kept for their messages: as many as can be open at once (one per accused).
CLOSED_KEPT = 12

#: What a foul is for (the log's "Foul on Ann: ..."): a Rusk a server manager charges (or
#: a Rusk proposed without a reason), a sneaked peek, a foul proposed without a reason.
# Translators: "Rusk" is the game's jargon for manhandling the cup (a triple foul): keep it
# or use a natural equivalent.
RUSK = M("a Rusk (manhandling the cup)")
# (The rule text calls it "lifting both cheeks": docs/glossary.md keeps the name; the table
# says it in plain words.)
SNEAKED = M("sneaking a peek under the cup")
DISRESPECT = M("disrespecting the dice")

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
    reason: Line = Field(
        description="What the accused did: the accuser's own words, or the default message."
    )
    rusk: bool = False
    yes: list[int] = Field(default_factory=list)
    no: list[int] = Field(default_factory=list)
    #: Voters who saw nothing to judge (a bot: what is said and done at a table never reaches
    #: it): they leave the vote, and the majority is of the others.
    abstain: list[int] = Field(default_factory=list)
    deadline: float


class ClosedVote(BaseModel):
    """A foul vote that closed, for its message: the vote (with its count) and what
    followed (the foul charged and what it cost, or why it was not)."""

    vote: Vote
    carried: bool
    outcome: list[Line]


class Reveal(BaseModel):
    """Dice that became public: a pull or a Kuriki."""

    dice: tuple[int, int]
    declared: int | None
    liar: bool
    loser: int | None


class Said(BaseModel):
    """A declaration as the whole table heard it: who declared what, over which standing
    declaration, and the truth when a pull showed the dice. Public (the log says all of
    it), kept for the game so a bot learns who bluffs from what a person at the table saw.
    Short field names: a long game holds many."""

    p: int = Field(description="Who declared (the Roller).")
    v: int = Field(description="The value declared.")
    m: int | None = Field(None, description="The standing declaration (a point), or None.")
    t: int | None = Field(None, description="The roll's value, when a pull showed it.")


class Event(BaseModel):
    kind: str
    text: Line
    player: int | None = None

#: What a move does (`Action.kind`).
ActionKind = Literal[
    "direction", "roll", "declare", "pull", "pass", "sneak", "reverse", "propose", "vote"
]


class Action(BaseModel):
    """One move. `value` is a declaration, a direction ('cw'/'ccw'), a vote ('yes'/'no'; the
    accused of a vote with no voters: 'accept'/'decline'), a player id (fouls); `vote` names
    the vote; `rusk` makes a proposal a Rusk; `now` is the caller's clock."""

    kind: ActionKind
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
    #: The latest votes to close (at most `CLOSED_KEPT`), for their messages: several may
    #: close in one move (the bots' votes, or the time of more than one running out).
    closed_votes: list[ClosedVote] = Field(default_factory=list)
    next_vote: int = 1
    tarted: int | None = None
    winner: int | None = None
    winners: list[int] = Field(
        default_factory=list,
        description="Everyone who won when that is several (the bots still standing when the "
        "last person is out); empty: `winner` alone.",
    )
    ended_by_departure: Line | None = Field(
        None, description="Why too few players were left (e.g. 'Ann left'): no winner."
    )
    out_order: list[int] = Field(
        default_factory=list,
        description="Who went out (lost their last life, or left), in that order: the "
        "finishing order from the bottom up (see `finishing_order`). Games saved before it "
        "was kept may miss those out earlier.",
    )
    last_reveal: Reveal | None = None
    said: list[Said] = Field(
        default_factory=list, description="Every declaration of the game, as the table heard it."
    )
    proposed: dict[int, int] = Field(
        default_factory=dict,
        description="Each player's last foul proposal: the `moment` (roll) it was made in; "
        "one proposal per player per roll.",
    )
    log: list[Line] = Field(default_factory=list)
    new_log: list[Line] | None = Field(
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
    and chooses who plays next (which sets the direction of play). With two players there is
    nobody else to choose: the first Roller holds the cup at once."""
    if len(seats) < 2:
        raise IllegalMove(M("Kuriki needs at least two players."))
    events: list[Event] = []
    names = {s.id: s.name for s in seats}
    first, rounds = roll_off([s.id for s in seats], rng)
    for rolls in rounds:
        # Translators: one player's start roll in "Start rolls: Ann 3, Bob 5".
        shown: list[str | int | Msg] = [
            M("{name} {roll}", name=names[i], roll=str(r)) for i, r in rolls.items()
        ]
        events.append(Event(kind="seating", text=M("Start rolls: {rolls}", rolls=shown)))
    players = [KPlayer(id=s.id, name=s.name, lives=rules.lives, purse=-rules.stake) for s in seats]
    state = KurikiState(
        rules=rules, players=players, roller=first, highest=first, pot=0, new_log=[]
    )
    two = len(seats) == 2
    if two:
        state.phase = "roll"
    events.append(
        Event(
            kind="first",
            player=first,
            text=M("{name} rolled highest: first Roller.", name=names[first])
            if two
            else M(
                "{name} rolled highest: first Roller, and chooses who plays next.",
                name=names[first],
            ),
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
        raise IllegalMove(M("This game is over."))
    me = state.player(user_id)
    if me.out:
        raise IllegalMove(M("You are out of this game."))
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
            raise refusal(
                M("You have already declared {value} on this roll.", value=name(s.declared or 0))
            )
        waited = on_clock(s)
        if waited is not None and waited != user_id:
            who = s.player(waited).name
            raise NotYourTurn(M("It's not your move: the table is waiting for {name}.", name=who))
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
                    text=M("{name} reverses the direction of play.", name=me.name),
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
    towards the next seat. Three timeouts in a row take a player out of the game; once every person
    still in it let their last turns run out (`autoplay.idle_turns`), the game ends
    abandoned, with no winner."""
    DEPARTURES.refuse_if_over(state)
    s = working_copy(state)
    events: list[Event] = []
    _close_expired_votes(s, now, events)
    who = on_clock(s)
    assert who is not None
    player = s.player(who)
    missed = player.timeouts + 1
    events.append(
        Event(kind="timeout", player=who, text=M("{name} ran out of time.", name=player.name))
    )
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
    events += DEPARTURES.after_timeout(s, s.alive(), [player])
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
            events[-1].text = M(
                "{name} declares the lowest allowed, {value}, whatever the dice.",
                name=player.name,
                value=name(lowest),
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
    return DEPARTURES.leave(state, user_id, _not_out)


def _not_out(state: KurikiState, who: KPlayer) -> None:
    if who.out:
        raise IllegalMove(M("You are already out of this game."))


def abandon(state: KurikiState, why: Line) -> tuple[KurikiState, list[Event]]:
    """End the game with no winner because of a departure (`why`: e.g. only bots are left)."""
    return DEPARTURES.abandon(state, why)


def voters(state: KurikiState, vote: Vote) -> list[int]:
    """Who votes on `vote`: the players still in, other than the accuser, the accused and
    whoever abstained. None (two players, or every other voter abstained): the accused
    accepts the foul or it is not charged."""
    return [
        p.id
        for p in state.alive()
        if p.id not in (vote.accused, vote.proposer) and p.id not in vote.abstain
    ]


def charge_rusk(state: KurikiState, accused: int) -> tuple[KurikiState, list[Event]]:
    """A Rusk (manhandling the cup) is a triple foul. Players propose it like any disrespect
    foul (`propose` with `rusk`); a server manager may also charge it directly, here: the
    caller checks that."""
    if state.phase == "over":
        raise IllegalMove(M("This game is over."))
    s = working_copy(state)
    events: list[Event] = []
    _foul(s, accused, RUSK_FOULS, RUSK, events)
    _log(s, events)
    return s, events


# ----------------------------------------------------------------------------- internals


def _why_not(s: KurikiState, kind: str) -> Msg:
    if kind == "pass" and s.phase == "respond":
        return M("You have passed this roll once already: Roll or Pull.")
    if kind == "reverse":
        return M("You may reverse the direction only right after your Kuriki.")
    if kind in ("roll", "pull") and s.phase == "declare":
        return M("The Roller has not declared yet.")
    return M("That move is not possible right now.")


def _direction(s: KurikiState, value: str | None, events: list[Event]) -> None:
    if value not in ("cw", "ccw"):
        raise IllegalMove(M("Choose who plays next."))
    s.direction = 1 if value == "cw" else -1
    s.phase = "roll"
    roller = s.player(s.roller)
    chose = M(
        "{name} chose {next} to play next. Fresh roll.",
        name=roller.name,
        next=s.player(s.after(roller.id)).name,
    )
    events.append(Event(kind="direction", player=roller.id, text=chose))


def next_ways(state: KurikiState) -> list[tuple[str, int]]:
    """The first Roller's choice as who plays next: ('cw', the next seat) and ('ccw', the
    seat before), the second only when it is someone else (with two players it is not)."""
    ways: list[tuple[str, int]] = []
    for value, step in (("cw", 1), ("ccw", -1)):
        who = state.model_copy(update={"direction": step}).after(state.roller)
        if who not in [w for _, w in ways]:
            ways.append((value, who))
    return ways


def _roll(s: KurikiState, user_id: int, rng: random.Random, events: list[Event]) -> None:
    me = s.player(user_id)
    taking = s.phase == "respond"
    if taking:
        s.minimum = s.declared
        events.append(
            Event(
                kind="take",
                player=user_id,
                text=M(
                    "{name} takes the cup and rolls on {value}.",
                    name=me.name,
                    value=name(s.declared or 0),
                ),
            )
        )
    else:
        s.minimum = None
        events.append(
            Event(kind="roll", player=user_id, text=M("{name} rolls a fresh roll.", name=me.name))
        )
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
            text=M(
                "👑 {name} rolled a KURIKI ({dice})! Crown number {crowns}.",
                name=roller.name,
                dice=dice_text(s.dice),
                crowns=roller.crowns,
            ),
        )
    )
    if s.rules.stake and s.pot:
        roller.purse += s.pot
        events.append(
            Event(
                kind="pot",
                player=roller.id,
                text=M("{name} collects the foul pot of {pot}.", name=roller.name, pot=s.pot),
            )
        )
        s.pot = 0
    third = roller.crowns % 3 == 0
    if third:  # announced before the lives it costs: the last of them may end the game
        events.append(
            Event(
                kind="kuriki3",
                player=roller.id,
                text=M("A third Kuriki: everybody else loses a life too."),
            )
        )
    _lose(s, victim.id, 2 if third else 1, "next_guy", events)
    if third:
        for p in list(s.players):
            if p.id not in (roller.id, victim.id) and not p.out:
                _lose(s, p.id, 1, "third_kuriki", events)
    _clear_cup(s)
    if s.phase != "over":
        s.phase = "roll"
        s.can_reverse = s.rules.reverse_after_kuriki
        events.append(
            Event(
                kind="cup",
                player=roller.id,
                text=M("{name} keeps the cup for a fresh roll.", name=roller.name),
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
        raise IllegalMove(M("Choose one of the declarations offered."))
    legal = declarations(s)
    if declared == KURIKI:
        raise IllegalMove(M("A Kuriki is shown, never declared."))
    if declared not in legal:
        raise IllegalMove(
            M(
                "You must declare at least {value}: one of the values offered.",
                value=name(s.minimum),
            )
            if s.minimum
            else M("You must declare: one of the values offered.")
        )
    roller = s.player(s.roller)
    s.declared = declared
    s.said.append(Said(p=roller.id, v=declared, m=s.minimum))
    s.responsible = roller.id
    s.next_guy = s.after(roller.id)
    s.phase = "respond"
    s.passed = []
    events.append(
        Event(
            kind="declare",
            player=roller.id,
            text=M("{name} declares {value}.", name=roller.name, value=name(declared)),
        )
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
            text=M(
                "{name} passes, taking responsibility for {value}.",
                name=me.name,
                value=name(s.declared or 0),
            ),
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
    if s.said:
        s.said[-1].t = value
    shown = {
        "name": puller.name,
        "dice": dice_text(s.dice),
        "value": name(value),
        "declared": name(s.declared),
    }
    pulled = (
        M("{name} pulls the cup: {dice} = {value} against {declared}, a lie!", **shown)
        if liar
        else M("{name} pulls the cup: {dice} = {value} against {declared}, not a lie.", **shown)
    )
    events.append(Event(kind="pull", player=user_id, text=pulled))
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
            text=M("{name} starts the next point with a fresh roll.", name=s.player(s.roller).name),
        )
    )


#: Why a life is lost, besides a pull: as the Next Guy of a Kuriki, to a third Kuriki, for
#: fouls (see `_lost`).
Why = Literal["", "next_guy", "third_kuriki", "fouls"]


def _lost(p: KPlayer, lives: int, why: Why) -> Msg:
    """The log line of `p` losing `lives` (`p.lives` already what is left)."""
    left = p.lives
    if why == "next_guy":
        return Mn(
            "{name} loses a life as the Next Guy ({left} left).",
            "{name} loses {n} lives as the Next Guy ({left} left).",
            lives,
            name=p.name,
            left=left,
        )
    if why == "third_kuriki":
        return Mn(
            "{name} loses a life to the third Kuriki ({left} left).",
            "{name} loses {n} lives to the third Kuriki ({left} left).",
            lives,
            name=p.name,
            left=left,
        )
    if why == "fouls" and lives == 1:  # every third foul: one life, at 3, 6, 9... fouls
        return Mn(
            "{name} loses a life for {n} foul ({left} left).",
            "{name} loses a life for {n} fouls ({left} left).",
            FOULS_PER_LIFE * (p.fouls // FOULS_PER_LIFE),
            name=p.name,
            left=left,
        )
    return Mn(
        "{name} loses a life ({left} left).",
        "{name} loses {n} lives ({left} left).",
        lives,
        name=p.name,
        left=left,
    )


def _lose(s: KurikiState, user_id: int, lives: int, why: Why, events: list[Event]) -> None:
    p = s.player(user_id)
    if p.out:
        return
    p.lives = max(0, p.lives - lives)
    events.append(Event(kind="life", player=p.id, text=_lost(p, lives, why)))
    if p.out:
        s.out_order.append(p.id)
        s.votes = [v for v in s.votes if v.accused != p.id]
        if s.tarted is None:
            s.tarted = p.id
            events.append(
                Event(
                    kind="tarted",
                    player=p.id,
                    # Translators: "Tarted" is the game's jargon for the first player out
                    # (who owes the table Pop-Tarts): keep it or use a natural equivalent.
                    text=M(
                        "{name} is out first and is Tarted: Pop-Tarts for the table, Brown "
                        "Sugar and Cinnamon preferred.",
                        name=p.name,
                    ),
                )
            )
        else:
            events.append(Event(kind="out", player=p.id, text=M("{name} is out.", name=p.name)))
    elif p.lives == 1 and s.tarted is None:  # once someone is Tarted, nobody is at risk of it
        # Translators: "in the Tarts": on one life, at risk of being Tarted (the first out).
        tarts = M("{name} is in the Tarts.", name=p.name)
        events.append(Event(kind="tarts", player=p.id, text=tarts))
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
        events.append(Event(kind="game_over", text=M("Game over: nobody is left.")))
        return
    names: list[str | int | Msg] = [s.player(w).name for w in winners]
    one = len(winners) == 1
    if s.rules.stake:
        prize = s.rules.stake * len(s.players) + s.pot
        share, rest = divmod(prize, len(winners))
        for i, w in enumerate(winners):  # the first (most lives) takes what does not divide
            s.player(w).purse += share + (rest if i == 0 else 0)
        takes = (
            M("{name} takes the stakes and the pot: {prize}.", name=names[0], prize=prize)
            if one
            else M("{names} share the stakes and the pot: {prize}.", names=names, prize=prize)
        )
        events.append(Event(kind="prize", player=s.winner, text=takes))
        s.pot = 0
    text = (
        M("Game over: {name} is the last one standing and wins!", name=names[0])
        if one
        else M("Game over: no person is left standing, so {names} win!", names=names)
    )
    events.append(Event(kind="game_over", player=s.winner, text=text))


def _foul(s: KurikiState, user_id: int, count: int, what: Line, events: list[Event]) -> None:
    p = s.player(user_id)
    if p.out:
        raise IllegalMove(M("{name} is out of the game already.", name=p.name))
    before = p.fouls
    p.fouls += count
    events.append(
        Event(
            kind="foul",
            player=p.id,
            text=Mn(
                "Foul on {name}: {what} ({n} foul).",
                "Foul on {name}: {what} ({n} fouls).",
                p.fouls,
                name=p.name,
                what=what,
            ),
        )
    )
    if s.rules.stake and s.rules.foul_price:
        paid = s.rules.foul_price * count
        s.pot += paid
        p.purse -= paid
    lives = p.fouls // FOULS_PER_LIFE - before // FOULS_PER_LIFE
    if lives:
        involved = _involved(s, p.id)
        _lose(s, p.id, lives, "fouls", events)
        if p.out and s.phase != "over":
            _fresh_point_without(s, p.id, involved, events)


def _sneak(s: KurikiState, user_id: int, action: Action, events: list[Event]) -> None:
    if s.phase not in ("declare", "respond") or s.dice is None:
        raise IllegalMove(M("There is nothing under the cup to peek at."))
    if user_id in s.seen:
        raise IllegalMove(M("You have already seen these dice."))
    s.seen.append(user_id)
    _foul(s, user_id, 1, SNEAKED, events)


def _propose(s: KurikiState, user_id: int, action: Action, events: list[Event]) -> None:
    accused = number(action.value or "0")
    if accused is None:
        raise IllegalMove(M("Name the player you accuse."))
    target = s.player(accused)
    if target.out:
        raise IllegalMove(M("{name} is out of the game already.", name=target.name))
    if accused == user_id:
        raise IllegalMove(M("You cannot propose a foul on yourself."))
    if any(v.accused == accused for v in s.votes):
        raise IllegalMove(M("There is already a foul vote open on {name}.", name=target.name))
    if s.proposed.get(user_id) == s.moment:
        raise IllegalMove(M("You have called a foul on this roll already: wait for the next one."))
    s.proposed[user_id] = s.moment
    # The accuser's own words as they wrote them; without any, the default in each reader's
    # language.
    reason: Line = action.reason.strip()[:100] or (RUSK if action.rusk else DISRESPECT)
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
    called = {"name": me.name, "accused": target.name, "reason": reason}
    if voters(s, vote):
        text = (
            M(
                "{name} calls a Rusk (a triple foul) on {accused}: {reason}. The other players "
                "vote.",
                **called,
            )
            if action.rusk
            else M("{name} calls a foul on {accused}: {reason}. The other players vote.", **called)
        )
    else:
        text = (
            M(
                "{name} calls a Rusk (a triple foul) on {accused}: {reason}. Nobody else is at "
                "the table to vote: {accused} accepts it or it is not charged.",
                **called,
            )
            if action.rusk
            else M(
                "{name} calls a foul on {accused}: {reason}. Nobody else is at the table to "
                "vote: {accused} accepts it or it is not charged.",
                **called,
            )
        )
    events.append(Event(kind="vote", player=user_id, text=text))


def _vote(s: KurikiState, user_id: int, action: Action, events: list[Event]) -> None:
    vote = next((v for v in s.votes if v.id == action.vote), None)
    if vote is None:
        raise IllegalMove(M("That foul vote is closed."))
    electors = voters(s, vote)
    if user_id == vote.accused:
        if electors:
            raise IllegalMove(M("The accused does not vote."))
        if action.value not in ("accept", "decline"):
            raise IllegalMove(M("Accept the foul, or decline it."))
        s.votes.remove(vote)
        start = len(events)
        if action.value == "accept":
            _charge(s, vote, events)
        else:
            accused = s.player(vote.accused).name
            declined = (
                M("{name} declines the Rusk: it is not charged.", name=accused)
                if vote.rusk
                else M("{name} declines the foul: it is not charged.", name=accused)
            )
            events.append(Event(kind="vote_failed", player=vote.accused, text=declined))
        _closed(s, vote, action.value == "accept", events[start:])
        return
    if user_id == vote.proposer:
        raise IllegalMove(M("You called this foul: the other players vote on it."))
    if user_id in vote.abstain:
        raise IllegalMove(M("You have voted already."))
    if user_id not in electors:
        raise IllegalMove(M("Only the accused may answer this foul: nobody else is left to vote."))
    if user_id in vote.yes or user_id in vote.no:
        raise IllegalMove(M("You have voted already."))
    if action.value not in ("yes", "no", "abstain"):
        raise IllegalMove(M("Vote yes or no."))
    {"yes": vote.yes, "no": vote.no, "abstain": vote.abstain}[action.value].append(user_id)
    _settle_vote(s, vote, events)


def _charge(s: KurikiState, vote: Vote, events: list[Event]) -> None:
    """The foul agreed on: a Rusk is a triple foul, and the log says it was a Rusk."""
    rusk = vote.rusk and not _says_rusk(vote.reason)
    what = M("a Rusk, {reason}", reason=vote.reason) if rusk else vote.reason
    _foul(s, vote.accused, RUSK_FOULS if vote.rusk else 1, what, events)


def _says_rusk(reason: Line) -> bool:
    """Whether a foul's reason already says it is a Rusk (the default, or the accuser's
    words)."""
    if isinstance(reason, Msg):
        return reason.k == RUSK.k
    return "rusk" in reason.lower()


def _closed(s: KurikiState, vote: Vote, carried: bool, outcome: list[Event]) -> None:
    """`vote` is over (already off the table): kept, with what followed, for its message."""
    closed = ClosedVote(vote=vote, carried=carried, outcome=[e.text for e in outcome])
    s.closed_votes = [*s.closed_votes, closed][-CLOSED_KEPT:]


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
        accused = s.player(vote.accused).name
        down = (
            M("The Rusk on {name} is voted down.", name=accused)
            if vote.rusk
            else M("The foul on {name} is voted down.", name=accused)
        )
        events.append(Event(kind="vote_failed", player=vote.accused, text=down))
        _closed(s, vote, False, events[start:])


def _close_expired_votes(s: KurikiState, now: float, events: list[Event]) -> None:
    for vote in [v for v in s.votes if v.deadline <= now]:
        s.votes.remove(vote)
        accused = s.player(vote.accused).name
        event = Event(
            kind="vote_failed",
            player=vote.accused,
            text=(
                M("Time is up: no majority for the Rusk on {name}.", name=accused)
                if vote.rusk
                else M("Time is up: no majority for the foul on {name}.", name=accused)
            ),
        )
        events.append(event)
        _closed(s, vote, False, [event])


def _involved(s: KurikiState, user_id: int) -> bool:
    return user_id in (s.roller, s.responsible, s.next_guy) or user_id in s.passed


def _remove(s: KurikiState, user_id: int, events: list[Event], why: Line) -> None:
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


def _end_by_departure(s: KurikiState, why: Line, events: list[Event]) -> None:
    """Too few players are left: no winner, and any stakes go back to everyone (the pot,
    paid in fouls, is nobody's to take)."""
    s.phase = "over"
    s.winner = None
    s.ended_by_departure = why
    s.dice = None
    s.votes = []
    text = M("Game over: {why}, so nobody wins.", why=why)
    if s.rules.stake:
        for p in s.players:
            p.purse += s.rules.stake
        text = M("Game over: {why}, so nobody wins. The stakes go back to everyone.", why=why)
    events.append(Event(kind="game_over", text=text))


def _fresh_point_without(s: KurikiState, user_id: int, involved: bool, events: list[Event]) -> None:
    """`user_id` is out (left, or knocked out by a foul): a point they were part of starts
    afresh with the next player, and a first Roller's choice of who plays next passes on (or
    goes, when two players are left)."""
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
                text=M("{name} starts a fresh point.", name=s.player(successor).name),
            )
        )
    elif s.phase == "direction" and user_id == s.roller:
        s.roller = successor
        two = len(s.alive()) == 2
        events.append(
            Event(
                kind="first",
                player=successor,
                text=M("{name} is the first Roller now.", name=s.player(successor).name)
                if two
                else M(
                    "{name} is the first Roller now, and chooses who plays next.",
                    name=s.player(successor).name,
                ),
            )
        )
    if s.phase == "direction" and len(s.alive()) == 2:
        s.phase = "roll"  # nobody else to choose: the first Roller holds the cup


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


DEPARTURES: Departures[KurikiState, Event] = Departures(
    event=Event, remove=_remove, end=_end_by_departure, log=_log, over=lambda s: s.finished
)
