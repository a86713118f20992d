"""Words the engines say, kept as message keys with arguments instead of text.

A game's state holds no text in any language: a log line or a refusal is a `Msg`, the
English source sentence (the key of the message catalogues, `bot/locales/`) and the values
that fill its `{placeholders}`. The bot renders it in the language of whoever reads it
(`bot/i18n.py`), so a server that changes its language re-renders a running game, and one
game's log reads in German at one table and in French in a player's /history.

`M` and `Mn` are what `python -m bot.i18n extract` looks for: their first argument (and
`Mn`'s second) must be a string literal."""

from __future__ import annotations

import json
from typing import Union

from pydantic import BaseModel, ConfigDict

from games.shared import fields_set

#: What fills a placeholder: a name or other verbatim text (str), a number the reader's
#: language formats (int), another message rendered in the same language (Msg), or several
#: of these joined as a list ("Ann, Bob and Cy").
Part = Union[int, str, "Msg"]
Arg = Part | list[Part]


class Msg(BaseModel):
    """One message: `k` the catalogue key (the English sentence), `a` its arguments; a count
    `n` chooses between the singular `k` and the plural `p` in the reader's language (and is
    itself the `{n}` placeholder). Short field names: a game's log holds many of these."""

    model_config = ConfigDict(frozen=True)

    k: str
    a: dict[str, Arg] = {}
    p: str | None = None
    n: int | None = None

    def __str__(self) -> str:
        """English, for logs and tests that read the source text; players get `render`."""
        from_english = self.p if self.n is not None and self.n != 1 and self.p else self.k
        args = {key: _english(value) for key, value in self.a.items()}
        if self.n is not None:
            args.setdefault("n", str(self.n))
        return from_english.format(**args) if args else from_english


def _english(value: Arg) -> str:
    if isinstance(value, list):
        return ", ".join(_english(v) for v in value)
    return str(value)


#: The fields set every message `M` and `Mn` make shares (games/shared.py).
_ALL = fields_set(Msg, Msg.model_fields)


def M(key: str, /, **args: Arg) -> Msg:
    """The message `key` with its placeholders' values. Built without pydantic's validation
    (the engines make one for every line they log; the types say what they hold), and
    validated when a saved game is read back."""
    return Msg.model_construct(_ALL, k=key, a=args, p=None, n=None)


def Mn(one: str, many: str, n: int, /, **args: Arg) -> Msg:
    """The message whose form agrees with the count `n` ({n} in its text): `one` or `many`
    in English, as many forms as the reader's language has."""
    return Msg.model_construct(_ALL, k=one, p=many, n=n, a=args)


#: A log line as a state holds it: a message, or the English text a game saved by an
#: earlier version wrote (still shown as it was written).
Line = Msg | str


def line_json(line: Line) -> dict[str, object] | str:
    """A line as the stored whole log keeps it (JSON): a message as its fields, text as
    text."""
    return line.model_dump(exclude_defaults=True) if isinstance(line, Msg) else line


def line_text(line: Line) -> str:
    """A line kept in a text column (a finished game's outcome): a message as JSON."""
    return json.dumps(line_json(line), separators=(",", ":")) if isinstance(line, Msg) else line


def line_from_text(text: str) -> Line:
    """`line_text` back; text written before messages had keys is that text."""
    if text.startswith('{"'):
        try:
            return line_from_json(json.loads(text))
        except ValueError:
            pass
    return text


def line_from_json(value: object) -> Line:
    """A stored log line back: a message, or the text a game logged before messages had
    keys (or anything unreadable, shown as the text it is)."""
    if isinstance(value, dict):
        try:
            return Msg.model_validate(value)
        except ValueError:
            return str(value)
    return value if isinstance(value, str) else str(value)

Msg.model_rebuild()
