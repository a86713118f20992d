"""How a player is written in a message: a person as a mention, a bot as its name (a bot
is never mentioned, so Discord never tries to notify an id that is nobody)."""

from __future__ import annotations

from collections.abc import Iterable

from games.bots import bot_name, is_bot


def who(user_id: int) -> str:
    """`<@id>` for a person, '🤖 Dicey' for a bot (plain text: it sits inside bold text as
    well as a mention does, where '**🤖 Dicey**' would break the bold around it)."""
    return bot_name(user_id) if is_bot(user_id) else f"<@{user_id}>"


def people(ids: Iterable[int]) -> list[int]:
    """The persons among `ids` (the ones a message may ping), in order."""
    return [i for i in ids if not is_bot(i)]
