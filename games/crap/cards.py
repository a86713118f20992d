"""Two 52-card decks (and their four jokers, optionally), each card a unique int id, so a
state is small JSON and conservation is easy to check: every id is in exactly one place."""

from __future__ import annotations

from games.words import counted

SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANKS = tuple(range(2, 15))  # 11 J, 12 Q, 13 K, 14 A
RANK_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}
RANK_WORD = {11: "Jack", 12: "Queen", 13: "King", 14: "Ace"}
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


def is_joker(card: int) -> bool:
    return card >= NATURAL_CARDS


def rank_name(r: int) -> str:
    return "Joker" if r == JOKER else RANK_NAMES.get(r, str(r))


def rank_words(r: int) -> str:
    """'Kings', '7s'."""
    return f"{rank_word(r)}s"


def rank_word(r: int) -> str:
    """One card of a value: 'King', '7'."""
    return RANK_WORD.get(r, str(r))


def cards_of(n: int, r: int) -> str:
    """A count of one value's cards as the game writes ranks: '1 King', '2 Kings', '1 9',
    '3 9s'."""
    return counted(n, rank_word(r), rank_words(r))


def label(card: int) -> str:
    """'K♥', '10♠', '🃏'."""
    if is_joker(card):
        return "🃏"
    return f"{rank_name(rank(card))}{SUIT_SYMBOLS[suit(card)]}"  # type: ignore[index]


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
            parts.append(rank_name(r) + "".join(SUIT_SYMBOLS[suit(c)] for c in group))  # type: ignore[index]
    return " ".join(parts) or "none"


def sort_cards(cards: list[int]) -> list[int]:
    return sorted(cards, key=lambda c: (rank(c) or 99, suit(c) or "", c))
