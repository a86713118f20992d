"""The CRAP arena (`python -m bench.arena --game crap`): one opponent against the bot players
(CRAP is played by 3 to 6), the opponent's seat rotated with the seed. The opponents a sharp
player would try:

- `card-tracker`: the issue's strong player. It tracks every public card movement (the
  ledger: who handed over how many of what, proofs, discards, recycled hands, challenge
  cards) as games.crap.tracking reads it, acquires only values it holds, picking the one
  whose expected haul is worth most by what the others surely or possibly hold, and does
  something else when nobody is likely to have any; never bluffs, never calls; scores every
  set it can. Its other moves (protect, recycle, challenge, co-operate) are the bot's.
- `truthful`: acquires the value it holds most of, never bluffs, never calls; tracks
  nothing.
- `always-call`: `truthful`, calling every Acquire.
- `never-call`: the bot's own turns, letting every Acquire go.
- `bluffer`: `truthful`, but every other turn (at random) acquires a value it does not
  hold, the one the others likeliest hold; never calls.
- `lie-rate-caller`: `truthful`, calling an Acquire when the asker's shown bluffs (every
  Acquire of theirs the table saw settled as a bluff or as honest; a Beta(1, 1) prior) put
  their bluff rate over 40%.

Every opponent plays the bot's challenge cards and guesses: the arena measures Acquires and
calls. The game clock moves 0.1 s a move; a bluff window nobody answers closes at its
deadline."""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.arena import Cell
from bench.bots_crap import Chooser, bot, play
from games.crap import policy
from games.crap.cards import RANKS, rank
from games.crap.engine import Action, CrapRules, CrapState, legal_actions
from games.crap.policy import View, change, counts, observe
from games.crap.tracking import Knowledge, read
from games.gamelog import take_log

COPIES = 8


def _windows(state: CrapState, seat: int, rng: random.Random, now: float, call: bool) -> Action:
    """An opponent's answer outside its turn: the bot's cards and guesses, its own call."""
    if "call_bluff" in legal_actions(state, seat):
        return Action(kind="call_bluff" if call else "no_call", now=now)
    move = policy.choose(state, seat, rng, now)
    assert move is not None
    return move


def _scored(view: View, now: float) -> Action | None:
    cards = policy._best_set(view, weak_aces=True)
    return Action(kind="score", cards=cards, now=now) if cards else None


def _truthful_turn(view: View, acts: set[str], now: float) -> Action:
    if "score" in acts and (move := _scored(view, now)):
        return move
    mine = counts(view.hand + view.protected)
    mine.pop(0, None)
    if mine:
        r = max(mine, key=lambda r: (mine[r], r))
        return Action(kind="acquire", rank=r, now=now)
    return Action(kind="recycle", now=now)


def fixed(call: Callable[[CrapState, int], bool], bluff: float = 0.0) -> Chooser:
    """An opponent from its calling rule and how often it bluffs."""

    def mind(state: CrapState, seat: int, rng: random.Random, now: float) -> Action | None:
        acts = legal_actions(state, seat)
        if not acts:
            return None
        if state.phase != "turn":
            return _windows(state, seat, rng, now, "call_bluff" in acts and call(state, seat))
        view = observe(state, seat)
        if bluff and rng.random() < bluff and not ("score" in acts and _scored(view, now)):
            mine = counts(view.hand + view.protected)
            free = [r for r in RANKS if r not in mine]
            if free:
                k = _knowledge(state, view)
                best = max(free, key=lambda r: (sum(_haul(view, k, r)), r))
                return Action(kind="acquire", rank=best, now=now)
        return _truthful_turn(view, acts, now)

    return mind


def _never(state: CrapState, seat: int) -> bool:
    return False


def _always(state: CrapState, seat: int) -> bool:
    return True


def _lie_rate(state: CrapState, seat: int) -> bool:
    """Call when the asker's shown bluff rate (Beta(1, 1)) is over 40%."""
    assert state.acquire is not None
    k = read(state.ledger, [p.id for p in state.players])
    s = k.seat(state.acquire.caller)
    return (s.bluffs + 1) / (s.bluffs + s.honest + 2) > 0.4


def never_call(state: CrapState, seat: int, rng: random.Random, now: float) -> Action | None:
    if "call_bluff" in legal_actions(state, seat):
        return Action(kind="no_call", now=now)
    return policy.choose(state, seat, rng, now)


# ----------------------------------------------------------------------------- the tracker


def _chance(view: View, k: Knowledge, r: int) -> float:
    """The chance one card this seat cannot place is of value r: the copies not in its own
    cards, the scored sets, the pile as shown since the last scoring round or surely held by
    another, over every card not placed so."""
    placed = k.placed_here
    total = sum(max(0, COPIES - placed.get(x, 0)) for x in RANKS)
    return max(0, COPIES - placed.get(r, 0)) / total if total else 0.0


def _knowledge(state: CrapState, view: View) -> Knowledge:
    """The ledger's knowledge, with every card this seat can place counted by value
    (`placed_here`): its own, the scored sets, the pile as shown, those surely held."""
    k = read(state.ledger, [p.id for p in state.players])
    placed = counts(view.hand + view.protected)
    for p in state.players:
        for st in p.sets:
            for c in st.all_cards():
                placed[rank(c)] = placed.get(rank(c), 0) + 1
    for r in RANKS:
        placed[r] = placed.get(r, 0) + k.pile.get(r, 0)
        placed[r] += sum(k.held(p.id, r) for p in view.opponents)
    k.placed_here = placed  # type: ignore[attr-defined]
    return k


def _haul(view: View, k: Knowledge, r: int) -> tuple[int, float]:
    """What the others would hand over for value r: the cards they surely hold (capped by
    their hands), and the expected number among the rest of their unprotected cards."""
    sure = sum(min(k.held(p.id, r), p.hand) for p in view.opponents)
    return sure, _maybe_cards(view, k, r) * _chance(view, k, r)


def card_tracker(state: CrapState, seat: int, rng: random.Random, now: float) -> Action | None:
    acts = legal_actions(state, seat)
    if not acts:
        return None
    if state.phase != "turn":
        return _windows(state, seat, rng, now, call=False)
    view = observe(state, seat)
    if "score" in acts and (move := _scored(view, now)):
        return move
    k = _knowledge(state, view)
    mine = counts(view.hand + view.protected)
    best: tuple[float, int] | None = None
    for r, n in mine.items():
        if not r:
            continue
        sure, expected = _haul(view, k, r)
        nobody = 0.0 if sure else (1 - _chance(view, k, r)) ** _maybe_cards(view, k, r)
        got = sure + expected
        worth = (1 - nobody) * change(view, r, n, n + max(1, round(got)))
        worth += nobody * change(view, r, n, n - 1)
        if best is None or worth > best[0]:
            best = (worth, r)
    if best is not None and best[0] > 0:
        return Action(kind="acquire", rank=best[1], now=now)
    move = policy.choose(state, seat, rng, now)
    if move is None or move.kind != "acquire":
        return move
    return Action(kind="recycle", now=now) if len(view.hand) < 4 else Action(
        kind="challenge", target=max(view.opponents, key=lambda p: p.hand).id, now=now
    )


def _maybe_cards(view: View, k: Knowledge, r: int) -> int:
    """How many of the others' unprotected cards this seat cannot place may be of value r
    (the ledger's `maybe`, summed over them)."""
    total = 0
    for p in view.opponents:
        loose = max(0, p.hand - min(k.placed(p.id), p.hand))
        total += k.maybe(p.id, r, loose)
    return total


def opponents() -> dict[str, Chooser]:
    return {
        "card-tracker": card_tracker,
        "truthful": fixed(_never),
        "always-call": fixed(_always),
        "never-call": never_call,
        "bluffer": fixed(_never, bluff=0.5),
        "lie-rate-caller": fixed(_lie_rate),
    }


# ----------------------------------------------------------------------------- games


def _log_taken(state: CrapState) -> CrapState:
    """The state as the Discord bot keeps it after a move: the log's new lines taken."""
    return take_log(state)[0]


def against_bots(
    seed: int, players: int, opponent: Chooser, rules: CrapRules | None = None
) -> tuple[float, list[float]]:
    """`opponent` in seat (seed mod players), bots in the others: its share of the win (a
    shared win counts as a share) and the bots' decision times."""
    theirs = seed % players
    minds = [opponent if i == theirs else bot for i in range(players)]
    state, times = play(seed, minds, rules, kept=_log_taken)
    won = 1 / len(state.winners) if theirs + 1 in state.winners else 0.0
    return won, [t for i, ts in enumerate(times) if i != theirs for t in ts]


def cells(players: int) -> list[Cell]:
    """Every opponent at this table size (3 to 6; none below 3): the issue's limit is the
    fair share plus 10 points."""
    if players < 3:
        return []
    fair = 1 / players
    out = []
    for name, mind in opponents().items():

        def play_one(seed: int, mind: Chooser = mind) -> tuple[float, list[float]]:
            return against_bots(seed, players, mind)

        out.append(Cell(name, players, play_one, fair, fair + 0.10))
    return out

