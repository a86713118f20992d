"""How a player is written in a message: a person as a mention, a bot as its name (a bot
is never mentioned, so Discord never tries to notify an id that is nobody), and a display
name as the plain text it is.

A display name is text its owner chose, shown to everyone: `**b**`, `||x`, `<@&1>`, `# A`
or a right-to-left override (U+202E, which reverses the rest of the line) must read as
written, never format, hide, ping or reorder anything around it. `as_text` makes a name
safe where Discord reads markdown; `bot/i18n.py` applies it to every name a sentence is
filled with (its `NAME_ARGS` placeholders, and every text argument of an engine's message),
so code that writes a sentence passes the name as it is. Where Discord reads no markdown (a
button's label, a select's options, a picture, a text file), `unbidi` is enough."""

from __future__ import annotations

import re
from collections.abc import Iterable

from games.bots import bot_name, is_bot

#: Unicode's bidirectional formatting characters (Bidi_Control): embeddings, overrides,
#: isolates and marks. In a name they would reorder the sentence around it.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)

#: Characters that start or end Discord markdown anywhere in a line: emphasis (* _),
#: strike-through (~), spoilers (|), code (`), escapes (\), mentions, emojis and timestamps
#: (<), masked links ([ ]) and @everyone / @here (@).
_MARKDOWN = "\\*_~|`<[]@"
#: What starts a block only at the start of a line: a quote (>), a heading (#), a list or
#: small text (- and -#). A name often starts a log line ("Ann banks 300").
_LINE_START = ">#-+"
_NUMBERED = re.compile(r"([0-9]+)([.)])")  # "1. Ann" would be a numbered list at a line's start


def _plain_table() -> dict[int, str | None]:
    table: dict[int, str | None] = dict.fromkeys(map(ord, BIDI_CONTROLS))
    for code in range(0x20):  # control characters (a line break would start a new line)
        table[code] = " "
    table[0x7F] = " "
    table[0x2028] = table[0x2029] = " "  # line and paragraph separators
    return table


_PLAIN = _plain_table()
_ESCAPED = {**_PLAIN, **{ord(c): "\\" + c for c in _MARKDOWN}}


def unbidi(name: str) -> str:
    """`name` without bidirectional controls, its line breaks as spaces: what a place that
    reads no markdown (a label, a picture, a text file) shows of a name."""
    # Most labels and names: nothing to leave out. Every character `_PLAIN` changes is a
    # control, a format character or a separator, none of which is printable.
    if name.isprintable():
        return name
    return name.translate(_PLAIN)


def as_text(name: str) -> str:
    """`name` as Discord markdown that shows it exactly as written (bidirectional controls
    left out, line breaks as spaces): every character that could format, hide, link or
    mention is escaped with a backslash, which Discord shows as nothing."""
    text = name.translate(_ESCAPED)
    start = len(text) - len(text.lstrip(" "))
    if text[start : start + 1] and text[start] in _LINE_START:
        return f"{text[:start]}\\{text[start:]}"
    numbered = _NUMBERED.match(text, start)
    if numbered:
        return f"{text[: numbered.start(2)]}\\{text[numbered.start(2) :]}"
    return text


class Mention(str):
    """Markup the bot itself wrote to show players (`who`): a mention, or a bot's name. A
    sentence shows it as it is, where it would escape a display name."""

    __slots__ = ()


def who(user_id: int) -> Mention:
    """`<@id>` for a person, '🤖 Dicey' for a bot (plain text: it sits inside bold text as
    well as a mention does, where '**🤖 Dicey**' would break the bold around it)."""
    return Mention(bot_name(user_id) if is_bot(user_id) else f"<@{user_id}>")


def mentions(ids: Iterable[int], separator: str = ", ") -> Mention:
    """Several players written with `who`, in order ("<@1>, <@2>"): a sequence, not a
    sentence's list (`bot.i18n.listed` writes those)."""
    return Mention(separator.join(who(i) for i in ids))


def people(ids: Iterable[int]) -> list[int]:
    """The persons among `ids` (the ones a message may ping), in order."""
    return [i for i in ids if not is_bot(i)]


#: A user mention the bot wrote: not escaped (an even number of backslashes before it, none
#: at all in practice), so never one inside a display name.
_OWN_MENTION = re.compile(r"(?<!\\)(?:\\\\)*<@!?([0-9]{1,20})>")


def mentioned(text: str | None) -> list[int]:
    """The users `text` mentions the way the bot mentions them (`who`), in order, once each:
    the only ones a message may notify. A display name's `<@1>` is escaped (`as_text`), so
    it is not among them."""
    return list(dict.fromkeys(int(m) for m in _OWN_MENTION.findall(text or "")))

