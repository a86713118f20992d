"""Finishing places, which ratings read: numbered with ties (games/places.py), and each
engine's finishing order at the end of a game: Farkle's and CRAP's final scores (the
winner first, equal scores tied, those who left last), Kuriki's order of going out."""

from __future__ import annotations

import json

from games.crap.engine import finishing_order as crap_order
from games.farkle.engine import FarklePlayer, FarkleState
from games.farkle.engine import finishing_order as farkle_order
from games.farkle.rules import PRESETS
from games.kuriki.engine import KurikiState
from games.kuriki.engine import finishing_order as kuriki_order
from games.places import by_score, exits, places
from tests.games.crap_helpers import build
from tests.games.kuriki_helpers import ANN, BOB, CAT, DAN, Table


def test_places_share_a_place_when_tied_and_skip_the_next() -> None:
    assert places([[5], [3, 4], [1], [2]]) == {5: 1, 3: 2, 4: 2, 1: 4, 2: 5}
    assert places([[], [7, 8], [], [9]]) == {7: 1, 8: 1, 9: 3}  # empty groups are nothing
    assert places([[1], [1, 2]]) == {1: 1, 2: 2}  # named twice: the better place
    assert places([]) == {}


def test_by_score_groups_equal_scores_and_exits_reverse_the_order_of_going() -> None:
    assert by_score([(1, 300), (2, 500), (3, 300)]) == [[2], [1, 3]]
    assert exits([4, 6, 5]) == [[5], [6], [4]]


def kuriki_lies_until_over(t: Table) -> list[int]:
    """Each Roller lies and is pulled on until the game is over; who lost, in order."""
    losers = []
    while not t.state.finished:
        roller = t.who
        t.point(1, 3, 10)
        t.pull()
        losers.append(roller)
    return losers


def test_kuriki_keeps_the_order_of_going_out() -> None:
    t = Table(4, lives=1)
    losers = kuriki_lies_until_over(t)
    assert len(losers) == 3 and t.state.out_order == losers
    (winner,) = {ANN, BOB, CAT, DAN} - set(losers)
    assert t.state.winner == winner
    assert kuriki_order(t.state) == [[winner], [], [losers[2]], [losers[1]], [losers[0]], []]
    assert places(kuriki_order(t.state)) == {
        winner: 1, losers[2]: 2, losers[1]: 3, losers[0]: 4
    }  # fmt: skip


def test_a_kuriki_player_who_leaves_goes_out_then() -> None:
    t = Table(4, lives=2)
    t.remove(CAT)
    losers = []
    while not t.state.finished:
        roller = t.who
        t.point(1, 3, 10)
        t.pull()
        if t.state.player(roller).out:
            losers.append(roller)
    assert t.state.out_order == [CAT, *losers]
    ranked = places(kuriki_order(t.state))
    assert ranked[CAT] == 4 and ranked[t.state.winner] == 1  # type: ignore[index]
    assert sorted(ranked.values()) == [1, 2, 3, 4]


def test_an_older_kuriki_state_without_the_order_still_loads_and_ranks() -> None:
    """A game saved before the order of going out was kept: those already out come last,
    tied, below anyone who goes out after the upgrade."""
    t = Table(4, lives=1)
    t.point(1, 3, 10)
    t.pull()  # the first one out, before the "upgrade"
    (first_out,) = t.state.out_order
    old = json.loads(t.state.model_dump_json())
    del old["out_order"]
    t.state = KurikiState.model_validate(old)
    assert t.state.out_order == []
    later = kuriki_lies_until_over(t)
    assert t.state.out_order == later and len(later) == 2
    ranked = places(kuriki_order(t.state))
    assert ranked[first_out] == 4 and ranked[later[0]] == 3 and ranked[later[1]] == 2


def test_farkle_places_the_winner_first_then_scores_then_who_left() -> None:
    def farkler(pid: int, score: int) -> FarklePlayer:
        return FarklePlayer(id=pid, name=f"P{pid}", score=score)

    state = FarkleState(
        rules=PRESETS["classic"],
        players=[farkler(1, 10000), farkler(2, 10000), farkler(3, 7000), farkler(4, 7000)],
        departed=[farkler(5, 9000), farkler(6, 200)],
        finished=True,
        winner=2,  # reached the target first: the game's own tie-break gives the win
    )
    assert farkle_order(state) == [[2], [1], [3, 4], [6], [5]]
    assert places(farkle_order(state)) == {2: 1, 1: 2, 3: 3, 4: 3, 6: 5, 5: 6}


def test_crap_places_shared_winners_then_scores_then_who_left() -> None:
    state = build({}, players=5)
    scores = {1: 1200, 2: 900, 3: 1200, 4: 900, 5: 300}
    for p in state.players:
        p.score = scores[p.id]
    state.departed = [state.players.pop(4)]  # 5 left
    state.winners = [1, 3]
    state.phase = "over"
    assert crap_order(state) == [[1, 3], [2, 4], [5]]
    assert places(crap_order(state)) == {1: 1, 3: 1, 2: 3, 4: 3, 5: 5}
