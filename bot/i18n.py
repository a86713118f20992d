"""Every word a player or admin reads, in their language: gettext catalogues (Babel).

The catalogues are `bot/locales/<language>/LC_MESSAGES/tablebot.po`, with English source
sentences as keys; `python -m bot.i18n extract` writes the template and brings every
catalogue up to date (docs/translating.md).

Who reads which language is decided where a text is made, by `speaking`: the bot answers
each interaction in its user's locale (`bot/app.py` sets it for the whole interaction), and
renders a channel's public table, log and announcements in that channel's language
(`Tables.language`). Code that writes text calls

- `_("Roll")` or `_("{name} rolled {dice}.", name=..., dice=...)`: the sentence now;
- `_n("{n} life", "{n} lives", n)`: the form that agrees with `n`;
- `N_("Roll")` around a constant made at import time, translated later with `_(constant)`;
- `render(msg)` for a `games.text.Msg` an engine wrote (a log line, a refusal);
- `number`, `listed`, `duration` for numbers, lists and times as the language writes them.

Integer arguments are formatted as numbers of the language (1,500 / 1.500 / 1 500).

Players' names are shown as the plain text they are (`bot/players.py`): a placeholder in
`NAME_ARGS` is given a display name as it was written (or a `who` mention, shown as it is),
and every text argument of an engine's message is plain text; both are escaped here, the
one place that does it. Where Discord reads no markdown (labels, pictures), text is made
`plain_text()`: names then only lose their bidirectional controls."""

from __future__ import annotations

import contextlib
import functools
import io
import logging
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from gettext import GNUTranslations, NullTranslations
from pathlib import Path
from typing import Literal

from babel import Locale
from babel.dates import format_timedelta
from babel.lists import format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

from bot.players import Mention, as_text, unbidi
from games.text import Arg, Line, Msg

log = logging.getLogger(__name__)

LOCALES_DIR = Path(__file__).with_name("locales")
DOMAIN = "tablebot"

#: The languages the bot speaks: catalogue name -> the name it goes by in its own language.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "pt_BR": "Português do Brasil",
    "pl": "Polski",
}
SOURCE = "en"


@dataclass(frozen=True)
class Lang:
    """One language: its catalogue name, Babel's locale data and its translations."""

    code: str
    locale: Locale
    translations: NullTranslations
    #: What `gettext` gives for each text that has a translation (any other text is its
    #: own): `_` reads it in one dict lookup, without the two Python calls of `gettext`.
    singular: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: Sentences and messages already filled in this language (`_filled`), kept with the
    #: language so a catalogue loaded afresh starts with none.
    filled: dict[tuple[object, ...], str] = field(default_factory=dict, compare=False, repr=False)

    def gettext(self, text: str) -> str:
        return self.translations.gettext(text)

    def ngettext(self, one: str, many: str, n: int) -> str:
        return self.translations.ngettext(one, many, n)

    def pgettext(self, context: str, text: str) -> str:
        return self.translations.pgettext(context, text)


def catalogue_path(code: str) -> Path:
    return LOCALES_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def lang(code: str) -> Lang:
    """The language `code` (a catalogue name, see `LANGUAGES`), its catalogue compiled in
    memory once: the .po file is the one source, no compiled file to keep in step."""
    locale = Locale.parse(code)
    if code == SOURCE:
        return Lang(code, locale, NullTranslations())
    with catalogue_path(code).open("rb") as po:
        catalog = read_po(po, locale=code)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    translations = GNUTranslations(buffer)
    return Lang(code, locale, translations, _singular(translations))


def _singular(translations: GNUTranslations) -> dict[str, str]:
    """Every text's `gettext` in `translations`, where it is not the text itself: a text's
    own entry, else its plural entry for n = 1 (as GNUTranslations.gettext looks them up)."""
    catalog: dict[object, str] = translations._catalog  # type: ignore[attr-defined]  # (the stdlib's own table)
    one = translations.plural(1)  # type: ignore[attr-defined]  # (set from the catalogue's header)
    table = {
        key[0]: text
        for key, text in catalog.items()
        if isinstance(key, tuple) and key[1] == one and isinstance(key[0], str)
    }
    table.update((key, text) for key, text in catalog.items() if isinstance(key, str))
    return table


def language_of(discord_locale: object) -> str:
    """The catalogue for a Discord locale ("de", "pt-BR", "es-419", "en-GB", or a
    discord.Locale): the exact language, else the same language of another country, else
    English."""
    if type(discord_locale) is str and discord_locale in LANGUAGES:  # a channel's, mostly
        return discord_locale
    text = str(getattr(discord_locale, "value", discord_locale) or "").replace("-", "_")
    if text in LANGUAGES:
        return text
    base = text.split("_")[0]
    if base in LANGUAGES:
        return base
    for code in LANGUAGES:
        if code.split("_")[0] == base:
            return code
    return SOURCE


_current: ContextVar[Lang | None] = ContextVar("language", default=None)
#: Whether the text being made now is read as Discord markdown (see `plain_text`).
_markdown: ContextVar[bool] = ContextVar("markdown", default=True)

#: Placeholders that hold players' names as they wrote them, or `who` mentions: the names
#: are escaped (`players.as_text`), whoever fills the sentence.
NAME_ARGS = frozenset(
    {"name", "names", "player", "other", "host", "caller", "accused", "voters"}
)


def current() -> Lang:
    """The language the text being made now is in (English outside any `speaking`)."""
    return _current.get() or lang(SOURCE)


class speaking:  # (lower case: it is used as the function it was)
    """Make the text of this block in `language` (a catalogue name or a Discord locale). A
    class rather than a generator: a table is rendered, and its update made, in its
    channel's language on every move."""

    __slots__ = ("_language", "_token")

    def __init__(self, language: str | object | None) -> None:
        self._language = language

    def __enter__(self) -> Lang:
        language = lang(language_of(self._language))
        self._token = _current.set(language)
        return language

    def __exit__(self, *exc: object) -> None:
        _current.reset(self._token)


def speak(language: str | object | None) -> None:
    """From here to the end of the current task, text is in `language`: what an interaction
    handler says first, so every answer of the interaction is in its user's locale."""
    _current.set(lang(language_of(language)))


@contextlib.contextmanager
def plain_text() -> Iterator[None]:
    """Make the text of this block for a place that reads no markdown (a button's label, a
    select's options, a picture, a text file): names in it keep their markdown characters
    and lose only their bidirectional controls. Also a decorator."""
    token = _markdown.set(False)
    try:
        yield
    finally:
        _markdown.reset(token)


def reads_markdown() -> bool:
    """Whether the text being made now is read as markdown (outside `plain_text`)."""
    return _markdown.get()


def N_(text: str) -> str:
    """Mark a constant for the catalogues; translate it where it is shown, with `_(text)`."""
    return text


def _(text: str, /, **args: Arg) -> str:
    """`text` in the current language, its placeholders filled with `args`."""
    language = _current.get() or lang(SOURCE)  # (`current()`, inline: the hottest call)
    translated = language.singular.get(text, text)
    if not args:
        return translated
    key = (text, _markdown.get(), *args.items(), *map(type, args.values()))
    return _filled(key, translated, text, args, language)


def _n(one: str, many: str, n: int, /, **args: Arg) -> str:
    """The form of `one`/`many` that agrees with `n` in the current language; `{n}` is `n`
    written as a number of the language."""
    language = current()
    source = one if n == 1 else many
    args = {"n": n, **args}
    key = (one, many, _markdown.get(), *args.items(), *map(type, args.values()))
    return _filled(key, language.ngettext(one, many, n), source, args, language)


#: How many filled sentences a language keeps (`Lang.filled`): a table's dozen sentences
#: for each of the games played at once; all are forgotten when it is full. Only short ones
#: are kept (a table's lines, labels and names): about 0.4 MiB a language when full.
_FILLED_KEPT = 1024
_FILLED_LONGEST = 256


def _filled(
    key: tuple[object, ...],
    text: str,
    source: str,
    args: dict[str, Arg],
    language: Lang,
    *,
    texts: bool = False,
) -> str:
    """`_fill`, once for each sentence and arguments: a table says the same sentences with
    the same values move after move (the title, the scores, the buttons). `key` holds the
    message, whether markdown is read, and the arguments with their types (a mention and a
    display name of the same text are written differently, so are 1 and True); arguments
    that are lists or messages cannot be a key, and are filled every time."""
    filled = language.filled
    try:
        hit = filled.get(key)
    except TypeError:
        return _fill(text, source, args, language, texts=texts)
    if hit is None:
        hit = _fill(text, source, args, language, texts=texts)
        if len(hit) <= _FILLED_LONGEST:
            if len(filled) >= _FILLED_KEPT:
                filled.clear()
            filled[key] = hit
    return hit


def _p(context: str, text: str, /, **args: Arg) -> str:
    """`text` where the same English word needs another translation in `context` (a
    button's "Roll" and a log's "roll")."""
    language = current()
    translated = language.pgettext(context, text)
    return _fill(translated, text, args, language) if args else translated


#: What the keys of `_filled` start with for an engine's message (`render`), whose text
#: arguments are all escaped: never the same key as a sentence's of `_`.
_MESSAGE = object()

#: Lines already rendered, by (the message's id, language, markdown or plain text): a table
#: shows the same log lines move after move (a game's working copies share them,
#: games/copies.py), and each is rendered once. The message and the language are kept with
#: the text, so an id reused, or a catalogue loaded afresh (a new `Lang`), is no hit.
_rendered: dict[tuple[int, str, bool], tuple[Msg, Lang, str]] = {}
_RENDERED_KEPT = 4096


def render(line: Line | None) -> str:
    """A message an engine wrote, in the current language, its text arguments (names) shown
    as the plain text they are; text a game saved before messages had keys is shown as it
    was written."""
    if line is None:
        return ""
    if isinstance(line, str):
        return line
    language = current()
    key = (id(line), language.code, _markdown.get())
    hit = _rendered.get(key)
    if hit is not None and hit[0] is line and hit[1] is language:
        return hit[2]
    if line.n is not None and line.p is not None:
        source = line.k if line.n == 1 else line.p
        translated = language.ngettext(line.k, line.p, line.n)
        args = {"n": line.n, **line.a}
    else:
        source, translated, args = line.k, language.gettext(line.k), line.a
    if args:  # (a message made afresh, such as a refusal, is often one said before)
        said = (_MESSAGE, line.k, line.p, _markdown.get(), *args.items(), *map(type, args.values()))
        text = _filled(said, translated, source, args, language, texts=True)
    else:
        text = translated
    if len(_rendered) >= _RENDERED_KEPT:
        _rendered.clear()
    _rendered[key] = (line, language, text)
    return text


def _fill(
    text: str, source: str, args: dict[str, Arg], language: Lang, *, texts: bool = False
) -> str:
    """`text` with its placeholders filled: names escaped (`NAME_ARGS`, or every text
    argument when `texts`: an engine's message holds no markup)."""
    code = language.code
    values = {
        key: _whole(value, code)
        if type(value) is int
        else _text(value, language)
        if texts or key in NAME_ARGS
        else value
        if type(value) is str
        else _value(value, language)
        for key, value in args.items()
    }
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):
        pass
    try:
        english = source.format(**values)
    except (KeyError, IndexError, ValueError):
        # The call does not fit its own message: its text, placeholders and all, is better
        # than no answer.
        log.warning("Message %r was given other arguments than it names", source)
        return text
    # A translation whose placeholders do not match its source (the catalogue test refuses
    # such a catalogue): the English sentence is better than a broken one.
    log.warning("Translation of %r into %s does not fit its arguments", source, language.code)
    return english


def _value(value: Arg, language: Lang) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return _whole(value, language.code)
    if isinstance(value, Msg):
        return render(value)
    if isinstance(value, list):
        return listed(_value(v, language) for v in value)
    return value


def _text(value: Arg, language: Lang) -> str:
    """An argument that is a player's text (a name), shown as the text it is: escaped where
    markdown is read (`plain_text`); a `who` mention is the bot's own markup."""
    if isinstance(value, str):
        if isinstance(value, Mention):
            return value
        return as_text(value) if _markdown.get() else unbidi(value)
    if isinstance(value, list):
        return listed(_text(v, language) for v in value)
    return _value(value, language)


@functools.lru_cache(maxsize=8192)
def _whole(n: int, code: str) -> str:
    """A whole number as the language `code` writes it. Babel takes some 20 µs a number, and
    a table writes dozens of them, mostly the same scores again: each is formatted once."""
    return format_decimal(n, locale=lang(code).locale)


def number(n: int | float, digits: int | None = None) -> str:
    """`n` as the current language writes numbers; `digits` after the point when given."""
    if digits is None and isinstance(n, int) and not isinstance(n, bool):
        return _whole(n, current().code)
    if digits is not None:
        pattern = "#,##0." + "0" * digits if digits else "#,##0"
        return format_decimal(n, format=pattern, locale=current().locale)
    return format_decimal(n, locale=current().locale)


#: How a list is joined (Babel's styles): "and", "or", units.
ListStyle = Literal[
    "standard", "standard-short", "or", "or-short", "unit", "unit-short", "unit-narrow"
]
#: The units a duration is written in.
Unit = Literal["day", "hour", "minute", "second"]


def listed(items: Iterable[str], style: ListStyle = "standard") -> str:
    """"Ann, Bob and Cy" as the current language joins a list ("or" for alternatives)."""
    parts = list(items)
    if not parts:
        return ""
    return format_list(parts, style=style, locale=current().locale)


def one_unit(seconds: int) -> str:
    """A setting's length in the one unit it reads best in: '15 minutes', '1 minute',
    '1 hour', '36 hours', '3 days', '90 seconds' (`duration` breaks an elapsed time into
    units instead)."""
    if seconds >= 86400 and seconds % 86400 == 0:
        return _n("{n} day", "{n} days", seconds // 86400)
    if seconds >= 3600 and seconds % 3600 == 0:
        return _n("{n} hour", "{n} hours", seconds // 3600)
    if seconds % 60 == 0:
        return _n("{n} minute", "{n} minutes", seconds // 60)
    return _n("{n} second", "{n} seconds", seconds)


def duration(seconds: float, short: bool = False) -> str:
    """A length of time in whole units ("2 minutes", "1 hour and 30 minutes")."""
    total = round(seconds)
    if total <= 0:
        return format_timedelta(
            timedelta(seconds=0), format="short" if short else "long", locale=current().locale
        )
    parts = []
    units: tuple[tuple[Unit, int], ...] = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))
    for unit, size in units:
        count, total = divmod(total, size)
        if count:
            parts.append(
                format_timedelta(
                    timedelta(seconds=count * size),
                    granularity=unit,
                    threshold=10**9,
                    format="short" if short else "long",
                    locale=current().locale,
                )
            )
    return listed(parts)
