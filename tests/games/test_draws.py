"""A game's sealed draws (games/draws.py): each draw is what the module docstring says it is,
every draw is recorded, a whole game of each engine replays from its seed alone, and a
record that was changed (a die, a deck's order, a draw left out or made twice) fails."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from typing import Any

import pytest

from games.crap import engine as crap
from games.crap.cards import full_deck, label, rank
from games.dice import roll
from games.draws import (
    LEGACY,
    MAX_BELOW,
    SEED_BYTES,
    Break,
    Draws,
    Sealed,
    breaks,
    canonical,
    commitment,
    contiguous,
    draw,
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
    state, _ = test_crap_properties.play(state, dice, random.Random(3), 3000, check=False)
    return state, dice


@pytest.mark.slow
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
    assert all(c.ok for c in checked) and not contiguous(checked, checked[-1].end)

    other = bytes([1]) + SEED[1:]
    assert not replay(other, moves)[0].ok  # another seed shuffles the deck otherwise

    changed = copy.deepcopy(moves)
    changed[0]["draws"][0] = ["not a draw", 0]
    checked = replay(SEED, changed)
    assert checked[0].expected is None and not checked[0].ok


# ------------------------------------------------------------- canonical orders (format 2)


def test_the_canonical_order_is_numbers_then_text_then_the_rest() -> None:
    assert canonical([3, "b", 1.5, "B", 1, [0], "a", None, 1.0]) == [
        1, 1.0, 1.5, 3, "B", "a", "b", [0], None
    ]  # fmt: skip
    # CRAP's card ids ascending: deck 1's 2♠ 2♥ 2♦ 2♣ 3♠ ... A♣, deck 2 alike, jokers last
    deck = full_deck(True)
    assert canonical(list(reversed(deck))) == deck
    assert [label(c) for c in deck[:5]] == ["2♠", "2♥", "2♦", "2♣", "3♠"]
    assert [label(c) for c in deck[50:54]] == ["A♦", "A♣", "2♠", "2♥"]
    assert [label(c) for c in deck[-5:]] == ["A♣", "🃏", "🃏", "🃏", "🃏"]


def test_a_shuffle_or_pick_depends_on_which_items_never_on_their_order() -> None:
    """The same cards in any order: the same shuffle, the same pick, the same sample, and
    the record holds them in canonical order."""
    cards = [17, 3, 99, 40, 8, 61, 0, 105]
    results = []
    for order in (cards, sorted(cards), list(reversed(cards))):
        d = Draws(SEED)
        pile = list(order)
        d.shuffle(pile, what="deck")
        picked = d.choice(list(order), what="discard")
        chosen = d.sample(list(order), 3, what="cards")
        results.append((pile, picked, chosen, d.moves))
    assert all(r == results[0] for r in results)
    shuffled, _, _, moves = results[0]
    entries = moves[0]["draws"]
    assert [e[2] for e in entries] == [sorted(cards)] * 3
    assert entries[0][3] == shuffled
    # ... and the result is random.shuffle's own way on the sorted pile.
    expected = sorted(cards)
    for k, i in enumerate(reversed(range(1, len(cards)))):
        j = sha(SEED + b":%d" % k) % (i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert shuffled == expected


def rig_first_deck(moves: list[dict[str, Any]]) -> list[int]:
    """The first deck stacked, Aces and Kings dealt first (from its end), with a starting
    order under which the old way of shuffling (from the order the record gives) yields it:
    what a forger of a format 1 record would store."""
    deck = moves[0]["draws"][0]
    pile = deck[2]
    stacked = sorted(pile, key=lambda c: (rank(c) in (13, 14), c))
    # The old shuffle moves position i to position sigma[i] whatever the items: find sigma by
    # shuffling the positions themselves, then start from the order that lands on `stacked`.
    positions = list(range(len(pile)))
    Draws(SEED, deck[1], record=False, version=LEGACY).shuffle(positions)
    start = [0] * len(pile)
    for where, came_from in enumerate(positions):
        start[came_from] = stacked[where]
    deck[2], deck[3] = start, stacked
    return stacked


def test_a_stacked_deck_with_its_matching_start_fails_at_its_draws() -> None:
    _, dice = crap_game(SEED)
    moves = json.loads(json.dumps(dice.to_json()["moves"]))
    stacked = rig_first_deck(moves)
    assert sorted(rank(c) for c in stacked[-16:]) == [13] * 8 + [14] * 8
    legacy = replay(SEED, moves, LEGACY)
    assert legacy[0].ok and not legacy[0].proven  # the old check took it: only the order is new
    checked = replay(SEED, moves)
    bad = [c for c in checked if not c.ok]
    assert [c.first for c in bad] == [0] and bad[0].end == len(stacked) - 1
    assert bad[0].expected is not None and bad[0].expected[2] == sorted(stacked)


def test_a_discard_with_reordered_candidates_and_another_card_fails() -> None:
    _, dice = crap_game(SEED)
    moves = json.loads(json.dumps(dice.to_json()["moves"]))
    discard = next(e for m in moves for e in m["draws"] if e[-1] == "discard")
    items, card = discard[2], discard[3]
    other = next(c for c in items if c != card)
    # The forger moves the card they want where the seed's number points.
    index = items.index(card)
    forged = [c for c in items if c != other]
    forged.insert(index, other)
    discard[2], discard[3] = forged, other
    assert all(c.ok for c in replay(SEED, moves, LEGACY))  # the old check passed it all
    bad = [c for c in replay(SEED, moves) if not c.ok]
    assert [c.entry for c in bad] == [discard] and bad[0].expected[3] == card  # type: ignore[index]


# ----------------------------------------------------------------------- rejection sampling


def test_below_passes_over_a_draw_in_the_top_sliver(monkeypatch: pytest.MonkeyPatch) -> None:
    """A draw at or above (2**256 // n) * n is passed over and the next one taken: forced
    here at draws 3 and 4 with n = 6, whose top sliver is the highest 4 numbers."""
    top = {3: 2**256 - 4, 4: 2**256 - 1}  # both in the sliver; 2**256 - 5 is not
    real = draw
    monkeypatch.setattr(
        "games.draws.draw", lambda seed, i: top[i] if i in top else real(seed, i)
    )
    d = Draws(SEED)
    d.move(7, "roll")
    faces = d.dice(4, 7, "throw")
    assert faces == [1 + sha(SEED + b":%d" % i) % 6 for i in (0, 1, 2, 5)]
    assert d.position == 6 and d.rejected == [3, 4]
    d.randrange(6)  # draw 6: no longer passed over
    moves = json.loads(json.dumps(d.moves))
    checked = replay(SEED, moves)
    assert all(c.ok for c in checked) and checked[0].end == 6 and checked[0].rejected == (3, 4)
    assert checked[1].first == 6 and contiguous(checked, 7)
    assert breaks(checked, 7) == []
    # The last number below 2**256 that a die may use is taken as it is.
    monkeypatch.setattr("games.draws.draw", lambda seed, i: 2**256 - 5)
    assert Draws(SEED).dice(1, None, "x") == [1 + (2**256 - 5) % 6]
    # Format 1 took every draw as it was, so its record reads as it always did.
    monkeypatch.setattr("games.draws.draw", lambda seed, i: top[i] if i in top else real(seed, i))
    old = Draws(SEED, version=LEGACY)
    assert old.dice(4, 7, "throw") == [1 + (top[i] if i in top else sha(SEED + b":%d" % i)) % 6
                                       for i in range(4)]  # fmt: skip
    assert old.position == 4 and old.rejected == []


def test_without_the_rejection_the_record_does_not_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """A record made with a draw passed over fails a check that does not pass it over: the
    verifier must follow the rejection, and it does (above)."""
    real = draw
    monkeypatch.setattr("games.draws.draw", lambda seed, i: 2**256 - 1 if i == 1 else real(seed, i))
    d = Draws(SEED)
    d.dice(3, 1, "throw")
    moves = json.loads(json.dumps(d.moves))
    monkeypatch.setattr("games.draws.draw", real)
    assert not replay(SEED, moves)[0].ok


# ------------------------------------------------------------------------- gaps and repeats


def test_breaks_name_each_place_where_the_stream_does_not_follow_on() -> None:
    d = Draws(SEED)
    for who in range(4):
        d.move(who, "roll").dice(2, who, "throw")  # draws 0-1, 2-3, 4-5, 6-7
    moves = json.loads(json.dumps(d.moves))
    assert breaks(replay(SEED, moves), 8) == []
    gap = copy.deepcopy(moves)
    del gap[1]  # draws 2-3 made and not recorded
    assert breaks(replay(SEED, gap), 8) == [Break("missing", 2, 3)]
    twice = copy.deepcopy(moves)
    twice.insert(2, copy.deepcopy(moves[1]))  # draws 2-3 recorded twice
    assert breaks(replay(SEED, twice), 8) == [Break("twice", 2, 3)]
    assert breaks(replay(SEED, moves), 10) == [Break("missing", 8, 9)]  # the end hid two
    assert breaks(replay(SEED, moves), 7) == [Break("beyond", 7, 7)]


# --------------------------------------------------------------------------- older records


def test_a_record_from_before_the_format_had_a_version() -> None:
    """A stream saved without "v" draws on as it began (its shuffles and picks from the
    order given), so its record reads one way; its dice replay fully, its shuffles and
    picks only where the record gives their items in canonical order."""
    d = Draws(SEED, version=LEGACY)
    pile = [5, 1, 4, 2, 3]
    d.shuffle(pile, what="deck")
    stored = d.to_json()
    del stored["v"]  # as the rows before versions were
    again = Draws.from_json(json.loads(json.dumps(stored)))
    assert again.version == LEGACY and again.to_json()["v"] == LEGACY
    again.dice(2, 1, "throw")
    again.choice([3, 1, 2], what="discard")
    again.choice([1, 2, 3], what="discard")
    checked = replay(SEED, json.loads(json.dumps(again.moves)), LEGACY)
    assert all(c.ok for c in checked)
    assert [c.proven for c in checked] == [False, True, False, True]
    assert d.moves[0]["draws"][0][2] == [5, 1, 4, 2, 3]  # as given: the old way
    with pytest.raises(ValueError):
        Draws(SEED, version=3)


def test_a_sealed_stream_goes_on_as_the_stream_it_was() -> None:
    """A cached game keeps its draws `Sealed` between moves (no Random state); the stream
    made from it again draws and records exactly as the original would have."""
    kept, plain = Draws(SEED), Draws(SEED)
    for d in (kept, plain):
        d.move(1, "roll").dice(6, 1, "throw")
        d.json_text()
        d.move(2, "roll").dice(3, 2, "throw")
    sealed = kept.sealed()
    assert type(sealed) is Sealed and not isinstance(sealed, random.Random)
    assert (sealed.json_text(), sealed.position, sealed.commitment) == (
        plain.json_text(), plain.position, plain.commitment,
    )  # fmt: skip
    again = sealed.stream()
    for d in (again, plain):
        d.dice(2, 2, "throw")  # still the move in progress
        d.move(1, "bank").shuffle(items := list(range(10)), what="deck")
        assert items != list(range(10))
    assert again.to_json() == plain.to_json() and again.json_text() == plain.json_text()
    fork = sealed.fork()  # what the move path draws from: a copy of the cached record
    assert fork.moves == sealed.moves
    recorded = [dict(m) for m in sealed.moves]
    fork.move(2, "roll").dice(6, 2, "throw")  # (the list is copied as it records a draw)
    assert sealed.moves == recorded and fork.moves == [*recorded, fork.moves[-1]]
    other = sealed.fork()  # a second try of the move: from the same record, the same throw
    other.move(2, "roll").dice(6, 2, "throw")
    assert other.moves == fork.moves and sealed.moves == recorded
    assert all(c.ok for c in replay(SEED, again.moves))
