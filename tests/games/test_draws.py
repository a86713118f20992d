"""A game's sealed draws (games/draws.py): each draw is what the module docstring says it is,
every draw is recorded, a whole game of each engine replays from its seed alone, and a
record that was changed (a die, a deck's order, a draw left out or made twice) fails."""

from __future__ import annotations

import copy
import hashlib
import json
import random

import pytest

from games.crap import engine as crap
from games.crap.cards import full_deck
from games.dice import roll
from games.draws import (
    MAX_BELOW,
    SEED_BYTES,
    Draws,
    commitment,
    contiguous,
    draw,
    end_of,
    pick,
    replay,
    sample,
    shuffle,
)
from games.farkle import engine as farkle
from games.farkle import policy as farkle_policy
from games.farkle.rules import PRESETS
from games.kuriki import engine as kuriki
from games.lobby import Seat
from tests.games import test_crap_properties, test_kuriki_properties
from tests.games.scripted import ScriptedRandom

SEED = bytes(range(SEED_BYTES))
SEATS = [Seat(id=100 + i, name=f"P{i}") for i in range(4)]


def sha(data: bytes) -> int:
    return int.from_bytes(hashlib.sha256(data).digest(), "big")


def test_a_draw_is_the_sha256_of_the_seed_and_its_number() -> None:
    """What README.md says, computed here without the module."""
    assert draw(SEED, 0) == sha(SEED + b":0") and draw(SEED, 41) == sha(SEED + b":41")
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    d = Draws(SEED)
    faces = d.dice(5, 7, "throw")
    assert faces == [1 + sha(SEED + b":%d" % i) % 6 for i in range(5)]
    assert d.position == 5
    assert d.randint(1, 6) == 1 + sha(SEED + b":5") % 6
    items = list(range(10))
    d.shuffle(items)
    expected = list(range(10))
    for k, i in enumerate(reversed(range(1, 10))):  # draws 6..14
        j = sha(SEED + b":%d" % (6 + k)) % (i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected and d.position == 15
    assert d.random() == (sha(SEED + b":15") >> 203) / 2**53
    assert d.getrandbits(10) == sha(SEED + b":16") >> 246


def test_every_draw_is_recorded_by_move_and_replays_from_the_seed() -> None:
    d = Draws(SEED)
    d.move(7, "roll")
    d.dice(3, 7, "throw")
    d.randrange(10, 20, 3)
    d.move(None, "time")
    assert d.choice(["a", "b", "c"], what="suit") in "abc"
    deck = list(range(20))
    d.shuffle(deck, what="deck")
    d.sample(deck, 4, what="cards")
    d.random()
    d.getrandbits(200)
    d.choices([1, 2, 3], k=2)  # random.Random's own methods draw through the recorded ones
    d.move(8, "")
    d.uniform(0, 1)
    moves = json.loads(json.dumps(d.to_json()["moves"]))  # as stored
    assert [(m["by"], m["act"]) for m in moves] == [(7, "roll"), (None, "time"), (8, "")]
    kinds = [e[0] for m in moves for e in m["draws"]]
    assert kinds == ["dice", "range", "choice", "shuffle", "sample", "random", "bits",
                     "random", "random", "random"]  # fmt: skip
    checked = replay(SEED, moves)
    assert all(c.ok for c in checked) and contiguous(checked, d.position)
    assert d.position == 3 + 1 + 1 + 19 + 4 + 1 + 1 + 2 + 1


def test_the_stored_form_comes_back_at_the_same_place() -> None:
    d = Draws(SEED)
    d.move(1, "start").dice(4, 1, "roll-off")
    again = Draws.from_json(json.loads(json.dumps(d.to_json())))
    assert again.position == 4 and again.moves == d.moves and again.commitment == d.commitment
    assert again.dice(2, 1, "x") == Draws(SEED, 4).dice(2, 1, "x")
    for bad in (None, [], {"seed": "zz", "at": 0, "moves": []}, {"seed": SEED.hex(), "at": -1,
                "moves": []}, {"seed": SEED.hex(), "at": 0, "moves": [1]}, {"seed": "00", "at": 0,
                "moves": []}):  # fmt: skip
        with pytest.raises((ValueError, TypeError, KeyError)):
            Draws.from_json(bad)


def test_a_fork_draws_on_its_own() -> None:
    """The move path draws on a fork: the game it came from stays where it was until the
    move is kept."""
    d = Draws(SEED)
    d.move(1, "start").dice(2, 1, "roll-off")
    fork = d.fork().move(2, "roll")
    thrown = fork.dice(6, 2, "throw")
    assert d.position == 2 and len(d.moves) == 1 and len(d.moves[0]["draws"]) == 1
    assert fork.position == 8 and [m["act"] for m in fork.moves] == ["start", "roll"]
    assert d.fork().move(2, "roll").dice(6, 2, "throw") == thrown  # the same place, the same dice


def test_the_stream_keeps_its_seed_and_hides_it() -> None:
    d = Draws(SEED)
    with pytest.raises(TypeError):
        d.seed(3)
    with pytest.raises(NotImplementedError):
        d.getstate()
    assert SEED.hex() not in repr(d) and d.commitment[:16] in repr(d)
    with pytest.raises(ValueError):
        Draws(b"short")
    with pytest.raises(ValueError):
        d.randrange(MAX_BELOW + 1)
    fresh = [Draws.fresh(random.Random(5)).commitment for _ in range(2)]
    assert fresh[0] == fresh[1]  # from the source it is given: a seeded one in tests
    assert Draws.fresh(random.SystemRandom()).revealed_seed() != Draws.fresh(
        random.SystemRandom()
    ).revealed_seed()


def test_the_helpers_name_the_draw_and_leave_other_randoms_alone() -> None:
    scripted = ScriptedRandom([4, 2])
    assert roll(scripted, 2, 7, "throw") == [4, 2]  # engine tests script randint as before
    plain = random.Random(1)
    items = list(range(6))
    shuffle(plain, items, "deck")
    assert sorted(items) == list(range(6))
    assert pick(plain, items, "discard") in items and len(sample(plain, items, 2, "cards")) == 2
    d = Draws(SEED)
    shuffle(d, items, "deck")
    pick(d, items, "discard")
    sample(d, items, 2, "cards")
    assert [e[-1] for e in d.moves[0]["draws"]] == ["deck", "discard", "cards"]


def test_dice_from_a_seed_are_even() -> None:
    """60,000 dice of one seed: each face within a few standard deviations of 10,000 (a
    generator that favoured a face, or stuck, would fail)."""
    d = Draws(SEED, record=False)
    faces = d.dice(60_000, None, "throw")
    counts = [faces.count(f) for f in range(1, 7)]
    assert all(abs(c - 10_000) < 400 for c in counts), counts  # 4 standard deviations: 365


# --------------------------------------------------------------------------- whole games


def farkle_game(seed: bytes) -> tuple[farkle.FarkleState, Draws]:
    """Two policies play Farkle; their choices from a Random of their own."""
    dice, minds = Draws(seed), random.Random(1)
    state, _ = farkle.new_game(SEATS[:2], PRESETS["classic"], dice.move(None, "start"))
    for _ in range(5000):
        if state.finished:
            return state, dice
        who = state.current_player.id
        action = farkle_policy.choose(state, who, minds)
        state, _ = farkle.apply(state, who, action, dice.move(who, action.kind))
    raise AssertionError("no end")


def kuriki_game(seed: bytes) -> tuple[kuriki.KurikiState, Draws]:
    dice = Draws(seed)
    state, _ = kuriki.new_game(SEATS[:3], kuriki.KurikiRules(lives=2), dice)
    state, _ = test_kuriki_properties.play(state, dice, random.Random(2), 3000)
    return state, dice


def crap_game(seed: bytes) -> tuple[crap.CrapState, Draws]:
    dice = Draws(seed)
    state, _ = crap.new_game(SEATS[:3], crap.CrapRules(threshold=100), dice)
    state, _ = test_crap_properties.play(state, dice, random.Random(3), 3000)
    return state, dice


@pytest.mark.parametrize("game", [farkle_game, kuriki_game, crap_game])
def test_a_whole_game_replays_from_its_seed_alone(game) -> None:  # type: ignore[no-untyped-def]
    state, dice = game(SEED)
    assert state.finished
    moves = json.loads(json.dumps(dice.to_json()["moves"]))
    checked = replay(SEED, moves)
    assert len(checked) > 10 and all(c.ok for c in checked)
    assert contiguous(checked, dice.position)
    again, replayed = game(SEED)  # the same seed and the same players: the same game
    assert again == state and replayed.moves == dice.moves
    assert game(bytes(SEED_BYTES))[1].moves != dice.moves  # another seed: other draws


def test_crap_records_its_deck_and_every_reshuffle() -> None:
    state, dice = crap_game(SEED)
    entries = [e for m in dice.moves for e in m["draws"]]
    first = entries[0]
    assert first[0] == "shuffle" and first[-1] == "deck" and first[1] == 0
    assert first[2] == full_deck(False) and sorted(first[3]) == sorted(full_deck(False))
    deals = [e for e in entries[1:4] if e[0] == "dice"]
    assert [e[2] for e in deals] == [s.id for s in SEATS[:3]]  # each player rolls to draw
    assert [e[3] for e in deals] == ["draw"] * 3
    reshuffles = [e for e in entries[1:] if e[0] == "shuffle"]
    assert len(reshuffles) == state.rounds  # every scoring round shuffles the pile


def test_a_changed_record_fails_where_it_was_changed() -> None:
    _, dice = crap_game(SEED)
    moves = json.loads(json.dumps(dice.to_json()["moves"]))
    entries = [e for m in moves for e in m["draws"]]
    die = next(e for e in entries if e[0] == "dice")
    deck = entries[0]

    changed = copy.deepcopy(moves)
    target = next(e for m in changed for e in m["draws"] if e == die)
    target[4][0] = target[4][0] % 6 + 1  # one die shows another face
    checked = replay(SEED, changed)
    assert [c.entry for c in checked if not c.ok] == [target]
    bad = next(c for c in checked if not c.ok)
    assert bad.expected == die  # the seed's own die

    changed = copy.deepcopy(moves)
    order = changed[0]["draws"][0][3]
    order[0], order[1] = order[1], order[0]  # two cards of the deck swapped
    assert [c.entry[1] for c in replay(SEED, changed) if not c.ok] == [deck[1]]

    changed = copy.deepcopy(moves)
    dropped = next(m for m in changed if len(m["draws"]) > 1)
    del dropped["draws"][1]  # a draw left out of the record: a gap in the stream
    checked = replay(SEED, changed)
    assert all(c.ok for c in checked) and not contiguous(checked, dice.position)

    changed = copy.deepcopy(moves)
    changed[-1]["draws"].append(changed[-1]["draws"][-1])  # a draw made twice
    checked = replay(SEED, changed)
    assert all(c.ok for c in checked) and not contiguous(checked, end_of(checked[-1].entry))

    other = bytes([1]) + SEED[1:]
    assert not replay(other, moves)[0].ok  # another seed shuffles the deck otherwise

    changed = copy.deepcopy(moves)
    changed[0]["draws"][0] = ["not a draw", 0]
    checked = replay(SEED, changed)
    assert checked[0].expected is None and not checked[0].ok
