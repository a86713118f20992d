"""What a CRAP game's record of draws must hold besides what the seed gives (games/draws.py
checks that): the game begins by shuffling one whole deck, two 52-card decks with or without
the four jokers, and every pile a shuffle or pick draws cards from holds cards of that deck,
each once. The seed decides every order and pick; only these checks say the cards were the
game's. Whether a pile was the one the table had (a discard's candidates the player's hand,
a reshuffle the discards and the banked sets) is for the game's log to say."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.crap.cards import full_deck
from games.text import M, Msg

#: The names CRAP gives the draws whose items are cards (games/crap/engine.py).
CARD_DRAWS = ("deck", "discard", "cards")
#: The draws that take items from a pile: the pile is their third field.
FROM_A_PILE = ("shuffle", "choice", "sample")
WHOLE_DECKS = (full_deck(False), full_deck(True))


def _cards(pile: Any, deck: int) -> bool:
    """Whether `pile` is a list of card ids of a `deck`-card game, each once."""
    return (
        isinstance(pile, list)
        and all(type(c) is int and 0 <= c < deck for c in pile)
        and len(set(pile)) == len(pile)
    )


def problems(entries: Sequence[Any]) -> list[Msg]:
    """What is wrong with the cards of a CRAP record's entries (in order), each naming its
    draw: none for a record the engine wrote."""
    out: list[Msg] = []
    first = entries[0] if entries else None
    begins = (
        isinstance(first, list) and len(first) == 5 and first[0] == "shuffle" and first[1] == 0
        and first[4] == "deck"
    )  # fmt: skip
    deck = len(WHOLE_DECKS[1])
    if not begins:
        out.append(M("the game does not begin by shuffling its deck at draw 0"))
    elif (
        not isinstance(first, list)  # (`begins` says it is)
        or not isinstance(first[2], list)
        or sorted(c if type(c) is int else -1 for c in first[2]) not in WHOLE_DECKS
    ):
        out.append(M("the deck shuffled at draw 0 is not one whole deck of 104 or 108 cards"))
    else:
        deck = len(first[2])
    for entry in entries[1:] if begins else entries:
        if (
            isinstance(entry, list) and len(entry) == 5 and entry[0] in FROM_A_PILE
            and entry[4] in CARD_DRAWS and not _cards(entry[2], deck)
        ):  # fmt: skip
            out.append(
                M(
                    "the cards drawn from at draw {draw} are not cards of this game, each once",
                    draw=str(entry[1]),
                )
            )
    return out
