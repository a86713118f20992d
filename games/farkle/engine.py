"""The Farkle turn engine: a JSON-round-tripping state, the moves a player can make, and the
events each move produces. Every function copies the state first, so a refused move leaves
the caller's state untouched."""

from __future__ import annotations

import random
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from games.autoplay import TIMEOUTS_BEFORE_REMOVAL, Chooser, Departures, play_part
from games.copies import replaced, working_copy
from games.dice import roll, roll_off
from games.errors import GameError, IllegalMove, InvalidSelection, NotYourTurn
from games.farkle.rules import FarkleRules
from games.farkle.scoring import best_pick, best_score, best_selection, score_selection, triples_in
from games.gamelog import write_log
from games.lobby import Seat, seated
from games.places import Order, by_score, exits
from games.text import Line, M, Mn, Msg

LOG_LENGTH = 12

ActionKind = Literal["toggle", "roll", "bank", "piggyback"]


class Action(BaseModel):
    """One move: toggle a die (by index into the throw), roll, bank, or piggyback.

    A toggle with `select` set asks for that state of the die rather than a flip, so tapping
    "select die 3" twice in a row (a double tap) leaves it selected."""

    kind: ActionKind
    index: int | None = None
    select: bool | None = None
    #: With roll or bank: first set aside the best-scoring selection of the throw (one tap
    #: instead of tapping each die).
    best: bool = False


class Event(BaseModel):
    """Something that happened, for the table's log and for callers that react to it."""

    kind: str
    text: Msg
    player: int | None = None


class FarklePlayer(BaseModel):
    id: int
    name: str
    score: int = 0
    on_table: bool = False
    farkles: int = 0
    malappys: int = 0
    hot_dice: int = Field(0, description="Times all six dice came back (for the stats).")
    best_turn: int = Field(0, description="The most banked in one turn (for the stats).")
    timeouts: int = 0
    reached_target: int | None = Field(None, description="Turn number when first at the target.")


class Turn(BaseModel):
    """The current player's turn so far."""

    total: int = 0
    since_hot: int = Field(0, description="Points since the six dice were last picked up.")
    dice: list[int] = Field(default_factory=list, description="The throw still on the table.")
    selected: list[int] = Field(default_factory=list, description="Indexes into dice.")
    set_aside: list[int] = Field(default_factory=list, description="Set aside since hot dice.")
    throws: int = 0
    extended: list[int] = Field(default_factory=list, description="Faces whose triple extends.")
    piggybacked: bool = False
    one_die_misses: int = 0


class PiggybackOffer(BaseModel):
    """What the last player banked with and left unrolled."""

    player: int
    dice: int
    points: int


class FarkleState(BaseModel):
    rules: FarkleRules
    players: list[FarklePlayer]
    departed: list[FarklePlayer] = Field(default_factory=list)
    current: int = 0
    turn: Turn = Field(default_factory=Turn)
    turn_number: int = 1
    piggyback: PiggybackOffer | None = None
    final_turns: list[int] | None = Field(None, description="Ids still to play before the end.")
    finished: bool = False
    winner: int | None = None
    ended_by_departure: Line | None = Field(
        None, description="Why too few players were left (e.g. 'Ann left'): no winner."
    )
    log: list[Line] = Field(default_factory=list)
    new_log: list[Line] | None = Field(
        None,
        description="Lines written since the bot last stored them (games.gamelog); None: a "
        "game from before the whole log was kept.",
    )
    history: list[tuple[int, int]] = Field(
        default_factory=list,
        description="(player id, score) after each turn, in order: the end-of-game chart.",
    )

    @field_validator("rules")
    @classmethod
    def _shared_rules(cls, rules: FarkleRules) -> FarkleRules:
        """Every game of one rule set holds the same rules object (see canonical)."""
        return rules.canonical()

    def player(self, user_id: int) -> FarklePlayer:
        return seated(self.players, user_id)

    @property
    def current_player(self) -> FarklePlayer:
        return self.players[self.current]


# --------------------------------------------------------------------------- set-up


def new_game(
    seats: list[Seat], rules: FarkleRules, rng: random.Random
) -> tuple[FarkleState, list[Event]]:
    """Seat the players: everyone rolls one die, ties for the highest re-roll; the seating rule
    says whether the highest roller plays first or last. Join order is the seating order."""
    if len(seats) < 2:
        raise IllegalMove(M("Farkle needs at least two players."))
    events: list[Event] = []
    ids = [s.id for s in seats]
    best, rounds = roll_off(ids, rng)
    highest = ids.index(best)
    tied: int | None = None  # the highest roll the round before, which these re-roll
    for rolls in rounds:
        shown: list[int | str | Msg] = [
            M("{name} {die}", name=seats[ids.index(i)].name, die=str(r)) for i, r in rolls.items()
        ]
        said = (
            M("Seating rolls: {rolls}", rolls=shown)
            if tied is None
            else M("Tied on {die}, rolled again: {rolls}", die=str(tied), rolls=shown)
        )
        events.append(Event(kind="seating", text=said))
        tied = max(rolls.values())
    first = highest if rules.seating == "highest_first" else (highest + 1) % len(seats)
    order = seats[first:] + seats[:first]
    said = (
        M("{name} rolled highest and goes first.", name=seats[highest].name)
        if rules.seating == "highest_first"
        else M("{name} rolled highest and goes last.", name=seats[highest].name)
    )
    events.append(Event(kind="seating", text=said))
    state = FarkleState(
        rules=rules, players=[FarklePlayer(id=s.id, name=s.name) for s in order], new_log=[]
    )
    events.append(_turn_start_event(state))
    _log(state, events)
    return state, events


# --------------------------------------------------------------------------- queries


def selection_dice(state: FarkleState) -> list[int]:
    return [state.turn.dice[i] for i in state.turn.selected]


def must_reroll_last_die(state: FarkleState) -> bool:
    """True when the last die missed but the rules give it more throws."""
    t = state.turn
    return (
        bool(t.dice) and t.one_die_misses > 0 and best_score(t.dice, state.rules, t.extended) == 0
    )


def selection_value(state: FarkleState) -> int:
    """Points of the current selection; raises InvalidSelection with the reason it is not valid."""
    return score_selection(selection_dice(state), state.rules, state.turn.extended)


def selection_is_hot(state: FarkleState) -> bool:
    """True when the selection sets aside every die on the table (hot dice)."""
    return bool(state.turn.dice) and len(state.turn.selected) == len(state.turn.dice)


def bank_shortfall(state: FarkleState, value: int, hot: bool = False) -> Msg | None:
    """Why banking with `value` more points is not allowed yet, or None when it is.

    With the bank minimum counted afresh after hot dice, a selection that makes hot dice
    cannot be banked at once: the player gets all six dice back and must roll the minimum
    again ("Now you must roll a minimum of 250 pts again, in order to keep your points")."""
    short = _shortfall(state, value, hot)
    if short is None:
        return None
    rules, turn = state.rules, state.turn
    total = turn.total + value
    if short == "need":
        need = rules.bank_minimum(state.current_player.on_table)
        if need > rules.min_bank:
            return M(
                "You need {need} this turn to get on the table (you have {total}).",
                need=need,
                total=total,
            )
        return M("You need {need} this turn to bank (you have {total}).", need=need, total=total)
    if short == "hot":
        return M(
            "Hot dice! Roll all six again: you need {need} afresh to bank.",
            need=rules.min_bank,
        )
    return M(
        "After hot dice you need {need} afresh to bank "
        "(you have {total} since picking the dice up).",
        need=rules.min_bank,
        total=turn.since_hot + value,
    )


def may_bank(state: FarkleState, value: int, hot: bool = False) -> bool:
    """Whether `bank_shortfall` allows banking, without making its message."""
    return _shortfall(state, value, hot) is None


def _shortfall(state: FarkleState, value: int, hot: bool) -> str | None:
    """Which rule `bank_shortfall` says banking breaks ("need", "hot", "after_hot"), or
    None: without its message, for the questions that only ask whether one may bank (the
    table asks them for every button it draws)."""
    rules, turn = state.rules, state.turn
    if turn.total + value < rules.bank_minimum(state.current_player.on_table):
        return "need"
    if rules.min_bank_after_hot_dice and rules.min_bank:
        if hot:
            return "hot"
        if turn.since_hot + value < rules.min_bank:
            return "after_hot"
    return None


def legal_actions(state: FarkleState, user_id: int) -> set[ActionKind]:
    """The moves `user_id` may make now (empty when it is not their turn)."""
    if state.finished or state.current_player.id != user_id:
        return set()
    turn = state.turn
    if not turn.dice:
        acts: set[ActionKind] = {"roll"}
        if can_piggyback(state):
            acts.add("piggyback")
        return acts
    if must_reroll_last_die(state):
        return {"roll"}
    acts = {"toggle"}
    if not turn.selected:  # nothing to set aside yet (and no exception to raise for it)
        return acts
    try:
        value = selection_value(state)
    except InvalidSelection:
        return acts
    acts.add("roll")
    if may_bank(state, value, selection_is_hot(state)):
        acts.add("bank")
    return acts


def best_keep(state: FarkleState) -> tuple[int, int, bool] | None:
    """What setting aside the best-scoring selection of the throw gives: (its points, dice
    left to roll (6 after hot dice), whether banking with it is allowed); None when there is
    no throw to keep from (before the first throw, a last die to throw again, a farkle)."""
    turn = state.turn
    if state.finished or not turn.dice or must_reroll_last_die(state):
        return None
    value, picked = best_pick(turn.dice, state.rules, turn.extended)
    if not picked:
        return None
    hot = len(picked) == len(turn.dice)
    left = 6 if hot else len(turn.dice) - len(picked)
    return value, left, may_bank(state, value, hot)


def can_piggyback(state: FarkleState) -> bool:
    offer = state.piggyback
    return (
        state.rules.piggyback
        and offer is not None
        and offer.player != state.current_player.id
        and state.current_player.on_table
        and not state.turn.dice
        and state.turn.throws == 0
    )


def public_view(state: FarkleState) -> dict[str, object]:
    """Farkle has no hidden information: everything on the table is public."""
    return state.model_dump(mode="json")


def standings(state: FarkleState) -> list[FarklePlayer]:
    """Players best first: highest score, then whoever reached the target first."""
    return _ranked(state.players + state.departed)


def finishing_order(state: FarkleState) -> Order:
    """Places at the end of a game (see `games.places`): the winner first (the game's own
    tie-break, whoever reached the target first, decides the win), the others still at the
    table by final score, equal scores tied, then those who left, the last to leave highest."""
    won = [] if state.winner is None else [state.winner]
    rest = [(p.id, p.score) for p in state.players if p.id not in won]
    return [won, *by_score(rest), *exits([p.id for p in state.departed])]


def _ranked(players: list[FarklePlayer]) -> list[FarklePlayer]:
    never = 10**9
    return sorted(
        players,
        key=lambda p: (-p.score, p.reached_target if p.reached_target is not None else never),
    )


# --------------------------------------------------------------------------- moves


def apply(
    state: FarkleState, user_id: int, action: Action, rng: random.Random
) -> tuple[FarkleState, list[Event]]:
    """Apply one player's move. Raises GameError (state untouched) when it is not allowed."""
    if state.finished:
        raise IllegalMove(M("This game is over."))
    state.player(user_id)
    if state.current_player.id != user_id:
        raise NotYourTurn(M("It's not your turn: it's {name}'s.", name=state.current_player.name))
    tap = action.kind == "toggle" and not state.current_player.timeouts
    s = _tap_copy(state) if tap else working_copy(state)
    if s.current_player.timeouts:
        s.current_player.timeouts = 0
    events: list[Event] = []
    if action.best and action.kind in ("roll", "bank"):
        if best_keep(s) is None:
            raise IllegalMove(M("There are no scoring dice to keep right now."))
        s.turn.selected = best_selection(s.turn.dice, s.rules, s.turn.extended)
    if action.kind == "toggle":
        _toggle(s, action.index, action.select)
    elif action.kind == "roll":
        _roll(s, events, rng)
    elif action.kind == "bank":
        _bank(s, events)
    elif action.kind == "piggyback":
        _piggyback(s, events, rng)
    else:  # pragma: no cover - Literal already guards this
        raise IllegalMove(M("Unknown move {kind}.", kind=repr(action.kind)))
    _log(s, events)
    return s, events


def _tap_copy(state: FarkleState) -> FarkleState:
    """The copy a tap on a die is made on: a tap changes only the throw's selection (the
    mover's timeouts are 0 already), so that is copied and the rest shared with `state`,
    which nothing changes in place (a move is made on a copy). Most moves are taps, and a
    whole copy is most of their time."""
    turn = replaced(state.turn, selected=list(state.turn.selected))
    return replaced(state, turn=turn)


def timeout(
    state: FarkleState, rng: random.Random, chooser: Chooser | None = None
) -> tuple[FarkleState, list[Event]]:
    """The current player ran out of time. With a `chooser` (the bot player's policy) it
    plays the rest of their turn; without one, or when it has no answer, the fixed rule:
    bank if the rules allow it, else end the turn. Three timeouts in a row remove the player;
    once every person at the table let their last turns run out (`autoplay.idle_turns`), the
    game ends abandoned, with no winner."""
    DEPARTURES.refuse_if_over(state)
    who = state.current_player
    missed = who.timeouts + 1
    played = None
    if chooser is not None:
        turn = state.turn_number
        played = play_part(
            state, who.id, chooser, apply, rng, lambda s: s.finished or s.turn_number != turn
        )
    if played is not None:
        # Said after the turn's moves, so the table's last lines always show it.
        ran_out = Event(
            kind="timeout",
            player=who.id,
            text=M("{name} ran out of time; a bot played that turn for them.", name=who.name),
        )
        s, events = played[0], [*played[1], ran_out]
        _log(s, [ran_out])
    else:
        s, events = _fixed_timeout(state)
    player = next(p for p in s.players + s.departed if p.id == who.id)
    player.timeouts = missed
    ended = DEPARTURES.after_timeout(s, s.players, [player])
    if ended:
        _log(s, ended)
        events += ended
    return s, events


def _fixed_timeout(state: FarkleState) -> tuple[FarkleState, list[Event]]:
    """The rule that plays a timeout without a policy: bank if allowed, else turn over."""
    s = working_copy(state)
    player = s.current_player
    events: list[Event] = []
    banked = False
    turn = s.turn
    if turn.dice and not must_reroll_last_die(s):
        turn.selected = best_selection(turn.dice, s.rules, turn.extended)
        if may_bank(s, selection_value(s), selection_is_hot(s)):
            events.append(
                Event(
                    kind="timeout",
                    player=player.id,
                    text=M("{name} ran out of time; the bot banks for them.", name=player.name),
                )
            )
            _bank(s, events)
            banked = True
    if not banked:
        events.append(
            Event(
                kind="timeout",
                player=player.id,
                text=M(
                    "{name} ran out of time; turn over, losing {points}.",
                    name=player.name,
                    points=turn.total,
                )
                if turn.total
                else M("{name} ran out of time; turn over.", name=player.name),
            )
        )
        s.piggyback = None
        _end_turn(s, events)
    _log(s, events)
    return s, events


def remove_player(state: FarkleState, user_id: int) -> tuple[FarkleState, list[Event]]:
    """Take a player out (they left); their turn, if it was theirs, passes on."""
    return DEPARTURES.leave(state, user_id)


def abandon(state: FarkleState, why: Line) -> tuple[FarkleState, list[Event]]:
    """End the game with no winner because of a departure (`why`: e.g. only bots are left)."""
    return DEPARTURES.abandon(state, why)


# --------------------------------------------------------------------------- internals


def _toggle(s: FarkleState, index: int | None, select: bool | None = None) -> None:
    turn = s.turn
    if not turn.dice or must_reroll_last_die(s):
        raise IllegalMove(M("There are no dice to set aside right now: roll first."))
    if index is None or not 0 <= index < len(turn.dice):
        raise IllegalMove(M("That die is not on the table."))
    if select is not None and (index in turn.selected) == select:
        return  # already as asked
    if index in turn.selected:
        turn.selected.remove(index)
    else:
        turn.selected.append(index)
        turn.selected.sort()


def _take_selection(s: FarkleState, events: list[Event]) -> int:
    """Set the selected dice aside, adding their points to the turn; returns dice left to roll."""
    turn = s.turn
    if not turn.selected:
        raise InvalidSelection(M("Set aside at least one scoring die first."))
    chosen = selection_dice(s)
    value = score_selection(chosen, s.rules, turn.extended)
    turn.total += value
    turn.since_hot += value
    turn.set_aside += sorted(chosen)
    if s.rules.extend_triple_across_throws:
        turn.extended = sorted(set(turn.extended) | triples_in(chosen, s.rules))
    left = len(turn.dice) - len(chosen)
    events.append(
        Event(
            kind="set_aside",
            player=s.current_player.id,
            text=M(
                "{name} set aside {dice} for {points} (turn {total}).",
                name=s.current_player.name,
                dice=" ".join(map(str, sorted(chosen))),
                points=value,
                total=turn.total,
            ),
        )
    )
    turn.dice, turn.selected = [], []
    return left


def _roll(s: FarkleState, events: list[Event], rng: random.Random) -> None:
    turn = s.turn
    if not turn.dice:
        count = 6
    elif must_reroll_last_die(s):
        count = 1
    else:
        count = _take_selection(s, events)
        if count == 0:
            count = 6
            turn.since_hot, turn.set_aside, turn.extended = 0, [], []
            s.current_player.hot_dice += 1
            events.append(
                Event(
                    kind="hot_dice",
                    player=s.current_player.id,
                    text=M("Hot dice! All six dice come back."),
                )
            )
    s.piggyback = None
    _throw(s, count, events, rng)


def _piggyback(s: FarkleState, events: list[Event], rng: random.Random) -> None:
    if not can_piggyback(s):
        raise IllegalMove(
            M("There is nothing to piggyback on right now (you must be on the table).")
        )
    offer = s.piggyback
    assert offer is not None
    s.turn.total = s.turn.since_hot = offer.points
    s.turn.piggybacked = True
    s.piggyback = None
    events.append(
        Event(
            kind="piggyback",
            player=s.current_player.id,
            text=Mn(
                "{name} piggybacks on {points} with {n} die.",
                "{name} piggybacks on {points} with {n} dice.",
                offer.dice,
                name=s.current_player.name,
                points=offer.points,
            ),
        )
    )
    _throw(s, offer.dice, events, rng)


def decision(state: FarkleState) -> int:
    """The stamp of the decision the table waits for: this throw of this turn. Every move of
    a throw (tapping dice, rolling on, banking) answers the same decision, so quick taps on
    two dice both count; a new throw or a new turn is a new decision."""
    return state.turn_number * 1000 + min(state.turn.throws, 999)


def _throw(s: FarkleState, count: int, events: list[Event], rng: random.Random) -> None:
    turn, player = s.turn, s.current_player
    turn.dice = roll(rng, count, player.id, "throw")
    turn.selected = []
    turn.throws += 1
    shown = " ".join(map(str, turn.dice))
    if best_score(turn.dice, s.rules, turn.extended) > 0:
        turn.one_die_misses = 0
        said = M("{name} rolled {dice}.", name=player.name, dice=shown)
        events.append(Event(kind="roll", player=player.id, text=said))
        return
    if count == 1 and turn.one_die_misses + 1 < s.rules.one_die_throws:
        turn.one_die_misses += 1
        left = s.rules.one_die_throws - turn.one_die_misses
        events.append(
            Event(
                kind="roll",
                player=player.id,
                text=Mn(
                    "{name} rolled {dice} with the last die: {n} more throw.",
                    "{name} rolled {dice} with the last die: {n} more throws.",
                    left,
                    name=player.name,
                    dice=shown,
                ),
            )
        )
        return
    _farkle(s, shown, events)


def nth(n: int) -> Msg:
    """`n` as an ordinal (1st, 2nd, 3rd, 4th) in the reader's language: English picks the
    suffix, each language translates the four forms its own way ("{n}." in German)."""
    tail = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    if tail == "st":
        # Translators: an ordinal number, as in "the 21st farkle" ("{n}." in German).
        return M("{n}st", n=n)
    if tail == "nd":
        # Translators: an ordinal number, as in "the 2nd farkle" ("{n}." in German).
        return M("{n}nd", n=n)
    if tail == "rd":
        # Translators: an ordinal number, as in "the 3rd farkle" ("{n}." in German).
        return M("{n}rd", n=n)
    # Translators: an ordinal number, as in "the 7th farkle" ("{n}." in German).
    return M("{n}th", n=n)


def _farkle_said(name: str, shown: str, lost: int, what: str) -> Msg:
    """"Ann rolled 2 3 4 6 6 2: Farkle, losing 350!", in the rule set's own word."""
    if what == "malappy":
        if lost:
            # Translators: "crappy malappy" is jargon of the Crappy Malappy rules (a farkle on
            # the first throw of six dice); keep it or use your players' word.
            return M("{name} rolled {dice}: Crappy malappy, losing {points}!", name=name, dice=shown, points=lost)
        return M("{name} rolled {dice}: Crappy malappy!", name=name, dice=shown)
    if what == "crappy":
        if lost:
            # Translators: "crappy" is what the Crappy Malappy rules call a farkle.
            return M("{name} rolled {dice}: Crappy, losing {points}!", name=name, dice=shown, points=lost)
        return M("{name} rolled {dice}: Crappy!", name=name, dice=shown)
    if lost:
        # Translators: "Farkle" is the game's name for a throw that scores nothing.
        return M("{name} rolled {dice}: Farkle, losing {points}!", name=name, dice=shown, points=lost)
    return M("{name} rolled {dice}: Farkle!", name=name, dice=shown)


def _farkle(s: FarkleState, shown: str, events: list[Event]) -> None:
    rules, turn, player = s.rules, s.turn, s.current_player
    malappy = turn.throws == 1 and len(turn.dice) == 6 and not turn.piggybacked
    player.farkles += 1
    word = rules.farkle_word
    what = "malappy" if malappy and rules.crappy_malappy_wins else word
    said = _farkle_said(player.name, shown, turn.total, what)
    events.append(Event(kind="farkle", player=player.id, text=said))
    if rules.farkle_penalty_every and player.farkles % rules.farkle_penalty_every == 0:
        player.score -= rules.farkle_penalty
        events.append(
            Event(
                kind="penalty",
                player=player.id,
                text=M(
                    "{name}'s {nth} crappy: -{points}.",
                    name=player.name,
                    nth=nth(player.farkles),
                    points=rules.farkle_penalty,
                )
                if word == "crappy"
                else M(
                    "{name}'s {nth} farkle: -{points}.",
                    name=player.name,
                    nth=nth(player.farkles),
                    points=rules.farkle_penalty,
                ),
            )
        )
    s.piggyback = None
    if malappy and rules.crappy_malappy_wins:
        player.malappys += 1
        if player.malappys >= rules.crappy_malappy_wins:
            events.append(
                Event(
                    kind="malappy_win",
                    player=player.id,
                    text=M(
                        "{name}'s crappy malappy number {n} wins the game outright!",
                        name=player.name,
                        n=player.malappys,
                    ),
                )
            )
            s.history.append((player.id, player.score))
            _finish(s, events, winner=player.id)
            return
    _end_turn(s, events)


def _bank(s: FarkleState, events: list[Event]) -> None:
    turn, player = s.turn, s.current_player
    if not turn.dice or must_reroll_last_die(s):
        raise IllegalMove(M("Roll first: there is nothing to bank yet."))
    if not turn.selected:
        raise InvalidSelection(M("Set aside at least one scoring die before banking."))
    value = selection_value(s)
    short = bank_shortfall(s, value, selection_is_hot(s))
    if short:
        raise IllegalMove(short)
    left = _take_selection(s, events) or 6
    player.score += turn.total
    player.best_turn = max(player.best_turn, turn.total)
    player.on_table = True
    events.append(
        Event(
            kind="bank",
            player=player.id,
            text=M(
                "{name} banks {points} (score {score}).",
                name=player.name,
                points=turn.total,
                score=player.score,
            ),
        )
    )
    s.piggyback = (
        PiggybackOffer(player=player.id, dice=left, points=turn.total)
        if s.rules.piggyback
        else None
    )
    reached = (
        player.score >= s.rules.target
        if s.rules.target_inclusive
        else player.score > s.rules.target
    )
    if reached and player.reached_target is None:
        player.reached_target = s.turn_number
    if reached and s.final_turns is None:
        seat = s.current
        if s.rules.end_rule == "finish_round":
            s.final_turns = [p.id for p in s.players[seat + 1 :]]
            said = (
                M("{name} reached the target; the rest of the round plays.", name=player.name)
                if s.final_turns
                else M("{name} reached the target; the round is over.", name=player.name)
            )
        else:
            s.final_turns = [p.id for p in s.players[seat + 1 :] + s.players[:seat]]
            said = M("{name} reached the target; everyone else gets one more turn.", name=player.name)
        events.append(Event(kind="final_round", player=player.id, text=said))
    _end_turn(s, events)


def _end_turn(s: FarkleState, events: list[Event]) -> None:
    ended = s.current_player.id
    s.history.append((ended, s.current_player.score))
    if s.final_turns is not None and ended in s.final_turns:
        s.final_turns.remove(ended)
    s.turn = Turn()
    s.turn_number += 1
    if s.final_turns == []:
        _finish(s, events)
        return
    s.current = (s.current + 1) % len(s.players)
    events.append(_turn_start_event(s))


def _remove(s: FarkleState, user_id: int, events: list[Event], why: Line) -> None:
    """Take a player out. A final round that is now complete ends the game as usual; too
    few players left (and no final round done) ends it with no winner, `why` saying so."""
    index = next(i for i, p in enumerate(s.players) if p.id == user_id)
    their_turn = index == s.current
    if their_turn:
        s.turn = Turn()
        s.piggyback = None  # the offer was theirs alone
    s.departed.append(s.players.pop(index))
    if s.final_turns is not None and user_id in s.final_turns:
        s.final_turns.remove(user_id)
    if s.piggyback is not None and s.piggyback.player == user_id:
        s.piggyback = None
    if index < s.current:
        s.current -= 1
    elif their_turn:
        s.current %= max(1, len(s.players))
    if s.final_turns == []:
        _finish(s, events)
        return
    if len(s.players) < 2:
        _finish(s, events, departure=why)
        return
    if their_turn:
        s.turn_number += 1
        events.append(_turn_start_event(s))


def _finish(
    s: FarkleState, events: list[Event], winner: int | None = None, departure: Line | None = None
) -> None:
    s.finished = True
    s.turn = Turn()
    s.piggyback = None
    if departure is not None:
        s.winner, s.ended_by_departure = None, departure
        events.append(
            Event(kind="game_over", text=M("Game over: {why}, so nobody wins.", why=departure))
        )
        return
    if winner is None and s.players:
        winner = _ranked(s.players)[0].id
    s.winner = winner
    if winner is not None:
        name = next(p.name for p in s.players + s.departed if p.id == winner)
        events.append(Event(kind="game_over", player=winner, text=M("Game over: {name} wins!", name=name)))
    else:
        events.append(Event(kind="game_over", text=M("Game over: nobody is left to win.")))


def _turn_start_event(s: FarkleState) -> Event:
    p = s.current_player
    said = M("{name}'s turn.", name=p.name)
    if can_piggyback(s):
        assert s.piggyback is not None
        said = Mn(
            "{name}'s turn (may piggyback on {points} with {n} die).",
            "{name}'s turn (may piggyback on {points} with {n} dice).",
            s.piggyback.dice,
            name=p.name,
            points=s.piggyback.points,
        )
    return Event(kind="turn", player=p.id, text=said)


def _log(s: FarkleState, events: list[Event]) -> None:
    write_log(s, (e.text for e in events), LOG_LENGTH)


DEPARTURES: Departures[FarkleState, Event] = Departures(
    event=Event,
    remove=_remove,
    end=lambda s, why, events: _finish(s, events, departure=why),
    log=_log,
    over=lambda s: s.finished,
    left=lambda name: M("{name} left the game.", name=name),
    removed=lambda name: Mn(
        "{name} timed out {n} time in a row and is out of the game.",
        "{name} timed out {n} times in a row and is out of the game.",
        TIMEOUTS_BEFORE_REMOVAL,
        name=name,
    ),
)


__all__ = [
    "Action",
    "Event",
    "FarklePlayer",
    "FarkleState",
    "GameError",
    "Turn",
    "abandon",
    "apply",
    "bank_shortfall",
    "finishing_order",
    "legal_actions",
    "may_bank",
    "must_reroll_last_die",
    "new_game",
    "public_view",
    "remove_player",
    "selection_value",
    "standings",
    "timeout",
]
