"""Two 52-card decks (and their four jokers, optionally), each card a unique int id, so a
state is small JSON and conservation is easy to check: every id is in exactly one place."""

from __future__ import annotations

from games.text import Line, M, Mn, Msg

SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANKS = tuple(range(2, 15))  # 11 J, 12 Q, 13 K, 14 A
RANK_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}
#: The face cards' values as the log names their cards, several ("Kings") and counted
#: ("1 King", "3 Kings"). The corner letters (J, Q, K, A) and the suit symbols are written
#: as they are in every language, like the card pictures.
RANK_WORDS = {
    # Translators: the cards of a value in CRAP ("Acquire Jacks!", "Nobody has any Jacks.")
    11: M("Jacks"),
    # Translators: the cards of a value in CRAP ("Acquire Queens!")
    12: M("Queens"),
    # Translators: the cards of a value in CRAP ("Acquire Kings!")
    13: M("Kings"),
    # Translators: the cards of a value in CRAP ("Acquire Aces!")
    14: M("Aces"),
}
JOKER = 0
NATURAL_CARDS = 104
JOKER_IDS = tuple(range(NATURAL_CARDS, NATURAL_CARDS + 4))


def full_deck(jokers: bool) -> list[int]:
    return list(range(NATURAL_CARDS)) + (list(JOKER_IDS) if jokers else [])


def rank(card: int) -> int:
    """2..14, or 0 for a joker."""
    return JOKER if card >= NATURAL_CARDS else 2 + (card % 52) // 4


def suit(card: int) -> str | None:
    return None if card >= NATURAL_CARDS else SUITS[card % 4]


def natural_suit(card: int) -> str:
    """The suit of a card that is not a joker."""
    of = suit(card)
    if of is None:
        raise ValueError(f"card {card} is a joker: it has no suit")
    return of


def is_joker(card: int) -> bool:
    return card >= NATURAL_CARDS


def rank_name(r: int) -> str:
    return "Joker" if r == JOKER else RANK_NAMES.get(r, str(r))


def rank_words(r: int) -> Msg:
    """The cards of a value, to put in a message: 'Kings', '7s'."""
    if r in RANK_WORDS:
        return RANK_WORDS[r]
    # Translators: the cards of a number value in CRAP: "7s" ("Acquire 7s!")
    return M("{rank}s", rank=str(r))


def cards_of(n: int, r: int) -> Msg:
    """A count of one value's cards as the game writes ranks: '1 King', '2 Kings', '1 9',
    '3 9s'."""
    if r == 11:
        return Mn("{n} Jack", "{n} Jacks", n)
    if r == 12:
        return Mn("{n} Queen", "{n} Queens", n)
    if r == 13:
        return Mn("{n} King", "{n} Kings", n)
    if r == 14:
        return Mn("{n} Ace", "{n} Aces", n)
    # Translators: a count of one number value's cards in CRAP: "1 9", "3 9s"
    return Mn("{n} {rank}", "{n} {rank}s", n, rank=str(r))


def label(card: int) -> str:
    """'K♥', '10♠', '🃏'."""
    of = suit(card)
    if of is None:  # a joker
        return "🃏"
    return f"{rank_name(rank(card))}{SUIT_SYMBOLS[of]}"


def labels(cards: list[int]) -> str:
    return " ".join(label(c) for c in sort_cards(cards)) or "none"


def grouped(cards: list[int]) -> str:
    """A card list as everyone reads it on a phone: one value once, then its suits
    ('3♣♥♠ 7♥♥ K♦ 🃏×2'); a suit twice is the same card of both decks."""
    groups: dict[int, list[int]] = {}
    for c in sort_cards(cards):
        groups.setdefault(rank(c), []).append(c)
    parts = []
    for r, group in groups.items():
        if r == JOKER:
            parts.append("🃏" if len(group) == 1 else f"🃏×{len(group)}")
        else:
            parts.append(rank_name(r) + "".join(SUIT_SYMBOLS[natural_suit(c)] for c in group))
    return " ".join(parts) or "none"


#: What an empty list of cards shows ("showing none").
# Translators: no cards, where a list of cards would be ("Ann recycles, showing none.")
NO_CARDS = M("none")


def shown(cards: list[int]) -> Line:
    """`grouped`, to put in a message: 'none' in the reader's language when empty."""
    return grouped(cards) if cards else NO_CARDS


def sort_cards(cards: list[int]) -> list[int]:
    return sorted(cards, key=lambda c: (rank(c) or 99, suit(c) or "", c))
