"""games.autoplay.Departures: the timeout, leave and abandon code the three engines share,
checked on a small state of its own (what each engine gives it is the engines' tests'
business), then on each engine: a player leaving, a game abandoned, the same lines."""

from __future__ import annotations

import random

import pytest
from pydantic import BaseModel, Field

from games.autoplay import IDLE_TURNS, TIMEOUTS_BEFORE_REMOVAL, Departures, idle_message
from games.crap import engine as crap
from games.errors import IllegalMove
from games.farkle import engine as farkle
from games.farkle.rules import PRESETS
from games.kuriki import engine as kuriki
from games.lobby import Seat
from games.text import Line, M


class Person(BaseModel):
    id: int
    name: str
    timeouts: int = 0


class Happened(BaseModel):
    kind: str
    text: Line
    player: int | None = None


class Game(BaseModel):
    """The least a state needs: players, an end, a log."""

    players: list[Person]
    over: bool = False
    why: Line | None = None
    log: list[Line] = Field(default_factory=list)

    def player(self, user_id: int) -> Person:
        return next(p for p in self.players if p.id == user_id)


def _remove(s: Game, user_id: int, events: list[Happened], why: Line) -> None:
    s.players = [p for p in s.players if p.id != user_id]
    if len(s.players) < 2:
        _end(s, why, events)


def _end(s: Game, why: Line, events: list[Happened]) -> None:
    s.over, s.why = True, why
    events.append(Happened(kind="game_over", text=M("Game over: {why}, so nobody wins.", why=why)))


DEPARTURES: Departures[Game, Happened] = Departures(
    event=Happened,
    remove=_remove,
    end=_end,
    log=lambda s, events: s.log.extend(e.text for e in events),
    over=lambda s: s.over,
)


def table(*timeouts: int) -> Game:
    names = ["Ann", "Bo", "Cy"]
    return Game(
        players=[Person(id=i + 1, name=names[i], timeouts=t) for i, t in enumerate(timeouts)]
    )


def test_a_player_leaves_on_a_copy_with_the_line_and_the_reason_the_engine_is_given() -> None:
    game = table(0, 0, 0)
    s, events = DEPARTURES.leave(game, 2)
    assert [p.id for p in game.players] == [1, 2, 3], "the caller's state is untouched"
    assert [p.id for p in s.players] == [1, 3]
    assert [(e.kind, e.player, str(e.text)) for e in events] == [
        ("removed", 2, "Bo left the table.")
    ]
    assert [str(line) for line in s.log] == ["Bo left the table."]
    # The last but one leaving ends the game, `why` naming who left.
    s, events = DEPARTURES.leave(s, 3)
    assert s.over and str(s.why) == "Cy left"
    assert [e.kind for e in events] == ["removed", "game_over"]


def test_leaving_is_refused_when_the_game_is_over_or_by_the_engine() -> None:
    over = table(0, 0).model_copy(update={"over": True})
    with pytest.raises(IllegalMove, match="This game is over"):
        DEPARTURES.leave(over, 1)
    with pytest.raises(IllegalMove, match="This game is over"):
        DEPARTURES.refuse_if_over(over)

    def not_bo(state: Game, who: Person) -> None:
        if who.name == "Bo":
            raise IllegalMove(M("Not now."))

    with pytest.raises(IllegalMove, match="Not now"):
        DEPARTURES.leave(table(0, 0, 0), 2, not_bo)
    assert len(DEPARTURES.leave(table(0, 0, 0), 1, not_bo)[0].players) == 2


def test_abandon_ends_a_copy_with_no_winner() -> None:
    game = table(0, 0)
    s, events = DEPARTURES.abandon(game, M("only bots are left"))
    assert [e.kind for e in events] == ["game_over"]
    assert not game.over and s.over and str(s.why) == "only bots are left"
    assert [str(line) for line in s.log] == ["Game over: only bots are left, so nobody wins."]


def test_after_a_timeout_a_game_nobody_plays_ends_before_anyone_is_removed() -> None:
    s = table(TIMEOUTS_BEFORE_REMOVAL, IDLE_TURNS)
    events = DEPARTURES.after_timeout(s, s.players, [s.players[0]])
    assert s.over and s.why == idle_message(TIMEOUTS_BEFORE_REMOVAL + IDLE_TURNS)
    assert [e.kind for e in events] == ["game_over"] and s.log == [], "the engine logs them"


def test_after_a_timeout_the_third_in_a_row_takes_the_player_out() -> None:
    s = table(TIMEOUTS_BEFORE_REMOVAL - 1, 0, 0)
    assert DEPARTURES.after_timeout(s, s.players, [s.players[0]]) == []
    s.players[0].timeouts = TIMEOUTS_BEFORE_REMOVAL
    events = DEPARTURES.after_timeout(s, s.players, [s.players[0]])
    assert [p.id for p in s.players] == [2, 3] and not s.over
    assert [str(e.text) for e in events] == ["Ann timed out 3 times in a row and leaves the table."]


def test_after_a_timeout_nobody_is_removed_while_the_engine_says_not_now() -> None:
    s = table(TIMEOUTS_BEFORE_REMOVAL, TIMEOUTS_BEFORE_REMOVAL, 0)
    assert DEPARTURES.after_timeout(s, s.players, list(s.players), lambda s: False) == []
    assert len(s.players) == 3
    # Every one due goes while the game lasts: the second removal ends it, and Cy stays.
    events = DEPARTURES.after_timeout(s, s.players, list(s.players))
    assert [e.kind for e in events] == ["removed", "removed", "game_over"]
    assert [p.id for p in s.players] == [3] and str(s.why) == "Bo timed out 3 times"


# ----------------------------------------------------------------------------- the engines


ANN, BO, CY = Seat(id=1, name="Ann"), Seat(id=2, name="Bo"), Seat(id=3, name="Cy")


def _games() -> dict[str, object]:
    rng = random.Random(1)
    return {
        "farkle": farkle.new_game([ANN, BO, CY], PRESETS["classic"], rng)[0],
        "kuriki": kuriki.new_game([ANN, BO, CY], kuriki.KurikiRules(), rng)[0],
        "crap": crap.new_game([ANN, BO, CY], crap.CrapRules(), rng)[0],
    }


ENGINES = {"farkle": farkle, "kuriki": kuriki, "crap": crap}


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_engine_leaves_and_abandons_through_the_shared_code(game: str) -> None:
    engine = ENGINES[game]
    state = _games()[game]
    assert isinstance(engine.DEPARTURES, Departures)
    left, events = engine.remove_player(state, BO.id)
    word = "game" if game == "farkle" else "table"
    assert str(events[0].text) == f"Bo left the {word}." and events[0].kind == "removed"
    ended, _ = engine.abandon(left, M("only bots are left"))
    assert str(ended.ended_by_departure) == "only bots are left"
    with pytest.raises(IllegalMove, match="This game is over"):
        engine.remove_player(ended, ANN.id)
    with pytest.raises(IllegalMove, match="This game is over"):
        engine.timeout(ended, random.Random(1))
