"""Bot players: seats with reserved ids that no Discord user can have (Discord's ids are
snowflakes, far above these), each with a name that says it is a bot."""

from __future__ import annotations

from collections.abc import Iterable

#: Ids FIRST_BOT_ID..LAST_BOT_ID are bots; every real Discord id is above 2**22.
FIRST_BOT_ID = 1001
LAST_BOT_ID = 1099
NAMES = ("Dicey", "Rolly", "Lucky", "Boxcar", "Snake Eyes", "Cubert", "Pips", "Deuce")


def is_bot(user_id: int) -> bool:
    return FIRST_BOT_ID <= user_id <= LAST_BOT_ID


def bot_name(bot_id: int) -> str:
    """'🤖 Dicey': the name follows from the id, so a bot reads the same everywhere."""
    n = bot_id - FIRST_BOT_ID
    base = NAMES[n] if n < len(NAMES) else f"Bot {n + 1}"
    return f"🤖 {base}"


def next_bot_id(taken: Iterable[int]) -> int | None:
    """The lowest bot id not in `taken`, or None when every bot id is in use."""
    used = set(taken)
    return next((i for i in range(FIRST_BOT_ID, LAST_BOT_ID + 1) if i not in used), None)


def bot_seats(ids: Iterable[int]) -> list[int]:
    """The bots among `ids`, in order."""
    return [i for i in ids if is_bot(i)]


def only_bots(ids: Iterable[int]) -> bool:
    """No person among `ids` (True for none at all): what is left of a game plays itself."""
    return all(is_bot(i) for i in ids)
