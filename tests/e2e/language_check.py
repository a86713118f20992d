"""Does any English reach a German channel? Every text the bot sends to Discord is read where
the fake receives it (`FakeDiscord.body_hooks`), and searched for the English sentences of the
message catalogue.

    watch = LanguageWatch(d.fake)           # collects from now on
    ...play...
    assert watch.english() == []            # [(where, fragment, text), ...]

What counts as English comes from the catalogue template `bot/locales/tablebot.pot`, not from
a list kept by hand, so the check follows the code: each msgid is cut at its `{placeholders}`
(and at line breaks) into literal fragments; a fragment is kept when it holds at least two
words or 12 letters; a fragment that also stands in some German msgstr is dropped (a word
German shares with English, a proper noun such as Farkle, Kuriki, CRAP). `english_in(text)`
lists the kept fragments found in `text`, as whole words, outside the markup Discord renders
itself (mentions of users and commands, timestamps, emojis); command names are not looked
for (a command mention shows them in the reader's language).

The German catalogue is `bot/locales/de/LC_MESSAGES/tablebot.po`. To try the tests before it is
translated, `python -m tests.e2e.language_check stand-in DIR` writes a complete stand-in
catalogue to DIR (every msgid's words marked "Ü...", placeholders kept, plural forms filled;
`--extract` reads the template from the code instead of the .pot, for branches not yet
extracted), and `TABLEBOT_TEST_LOCALES=DIR` makes the tests of test_german_games.py read
DIR's catalogues instead of bot/locales (never commit such a catalogue)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import string
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, write_po

import bot.i18n as i18n

#: Where the tests read the catalogues from: bot/locales, or a stand-in (module docstring).
LOCALES_ENV = "TABLEBOT_TEST_LOCALES"
LANGUAGE = "de"

_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_COMMAND_CONTEXTS = {
    "command_name",
    "group_name",
    "parameter_name",
    "command_description",
    "group_description",
    "parameter_description",
    "choice_name",
}
#: Command names: Discord shows them (in a command mention too) in the reader's language.
_NAME_CONTEXTS = {"command_name", "group_name", "parameter_name"}
#: Discord's markup the client renders itself: mentions of users, channels, roles and
#: commands (in the reader's language), timestamps, custom emojis.
_MARKUP = re.compile(r"</[^<>]{1,100}:\d+>|<(?:@[!&]?|#)\d+>|<t:-?\d+(?::\w)?>|<a?:\w+:\d+>")
# The routes whose bodies are messages people read (see FakeDiscord.start).
_MESSAGE_ROUTES = re.compile(
    r"/api/v10/(?:"
    r"channels/\d+/messages(?:/\d+)?"
    r"|interactions/\d+/(?P<itoken>[^/]+)/callback"
    r"|webhooks/\d+/(?P<wtoken>[^/]+)(?:/messages/[^/]+)?"
    r")"
)


def locales_dir() -> Path:
    """The catalogues the tests use: $TABLEBOT_TEST_LOCALES, else bot/locales."""
    given = os.environ.get(LOCALES_ENV)
    return Path(given) if given else i18n.LOCALES_DIR


@contextlib.contextmanager
def catalogues(where: Path | None = None) -> Iterator[Path]:
    """The bot reads its catalogues from `where` (default `locales_dir()`) in this block."""
    where = where or locales_dir()
    saved = i18n.LOCALES_DIR
    i18n.LOCALES_DIR = where
    i18n.lang.cache_clear()
    _fragments.cache_clear()
    _index.cache_clear()
    try:
        yield where
    finally:
        i18n.LOCALES_DIR = saved
        i18n.lang.cache_clear()
        _fragments.cache_clear()
        _index.cache_clear()


# ---------------------------------------------------------------------- the fragments


def _ids(message: Message) -> list[str]:
    return list(message.id) if isinstance(message.id, tuple | list) else [message.id]


def _strings(message: Message) -> list[str]:
    s = message.string
    return [t for t in (s if isinstance(s, tuple | list) else (s,)) if t]


def literal_parts(text: str) -> list[str]:
    """The literal text of a format string, cut at each {placeholder} and line break."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:  # not a format string after all
        parsed = [(text, None, None, None)]
    parts = []
    for literal, _name, _spec, _conv in parsed:
        parts += [p.strip() for p in literal.split("\n")]
    return [p for p in parts if p]


def substantial(fragment: str) -> bool:
    """At least two words, or 12 letters: a fragment that says something in English."""
    words = _WORD.findall(fragment)
    return len(words) >= 2 or sum(len(w) for w in words) >= 12


def _pattern(fragment: str) -> re.Pattern[str]:
    """`fragment` as whole words, any run of spaces matching any other."""
    body = r"\s+".join(re.escape(w) for w in fragment.split())
    head = r"(?<!\w)" if fragment[0].isalnum() else ""
    tail = r"(?!\w)" if fragment[-1].isalnum() else ""
    return re.compile(head + body + tail)


def _read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as po:
        return read_po(po, locale=locale)


@cache
def _fragments(template: Path, translated: Path) -> tuple[tuple[str, re.Pattern[str]], ...]:
    german = "\n".join(t for m in _read(translated, LANGUAGE) if m.id for t in _strings(m))
    german_runs = set(_LETTERS.findall(german))
    found: dict[str, re.Pattern[str]] = {}
    for message in _read(template):
        if not message.id or message.context in _NAME_CONTEXTS:
            continue
        for text in _ids(message):
            for part in literal_parts(text):
                if part in found or not substantial(part):
                    continue
                pattern = _pattern(part)
                if not _may_hold(german_runs, part) or not pattern.search(german):
                    found[part] = pattern
    return tuple(sorted(found.items(), key=lambda kv: -len(kv[0])))


#: Runs of ASCII letters. A fragment found in a text (whole words, see `_pattern`) brings
#: each of its runs whole: inside the fragment a run ends where a non-letter stands, at its
#: ends `_pattern`'s lookarounds forbid a letter beside it. So a text whose runs lack one of
#: a fragment's cannot hold the fragment: a set lookup instead of a search.
_LETTERS = re.compile(r"[A-Za-z]+")


def _may_hold(runs: set[str], fragment: str) -> bool:
    return all(run in runs for run in _LETTERS.findall(fragment))


@cache
def _index(
    template: Path, translated: Path
) -> dict[str, tuple[tuple[int, str, re.Pattern[str], frozenset[str]], ...]]:
    """The fragments by the longest of their letter runs: (rank in `_fragments`, fragment,
    pattern, all its runs)."""
    by_run: dict[str, list[tuple[int, str, re.Pattern[str], frozenset[str]]]] = {}
    for rank, (fragment, pattern) in enumerate(_fragments(template, translated)):
        runs = _LETTERS.findall(fragment)
        key = max(runs, key=len)
        by_run.setdefault(key, []).append((rank, fragment, pattern, frozenset(runs)))
    return {run: tuple(entries) for run, entries in by_run.items()}


def template_path(where: Path | None = None) -> Path:
    return (where or locales_dir()) / f"{i18n.DOMAIN}.pot"


def german_path(where: Path | None = None) -> Path:
    return (where or locales_dir()) / LANGUAGE / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"


def fragments(where: Path | None = None) -> list[str]:
    """Every English fragment the check looks for."""
    return [f for f, _ in _fragments(template_path(where), german_path(where))]


def english_in(text: str, where: Path | None = None) -> list[str]:
    """The English fragments of the catalogue found in `text` (longest first, none inside
    another found one). Only the fragments whose letter runs all stand in the text are
    searched for (`_index`): a few, where there are thousands."""
    text = _MARKUP.sub(" ", text)
    runs = set(_LETTERS.findall(text))
    index = _index(template_path(where), german_path(where))
    candidates = sorted(
        entry
        for run in runs
        for entry in index.get(run, ())
        if entry[3] <= runs
    )
    found: list[str] = []
    spans: list[tuple[int, int]] = []
    for _rank, fragment, pattern, _runs in candidates:
        for m in pattern.finditer(text):
            if not any(a <= m.start() and m.end() <= b for a, b in spans):
                spans.append(m.span())
                if fragment not in found:
                    found.append(fragment)
    return found


# ---------------------------------------------------------------------- the texts


def texts_in(body: Any) -> list[str]:
    """Every text of a message body people read: content, embeds (title, description, fields,
    footer, author), components (labels, placeholders, options' labels and descriptions,
    text displays), a modal's title, autocomplete choices; an interaction callback's `data`
    too."""
    out: list[str] = []

    def add(value: Any) -> None:
        if isinstance(value, str) and value.strip():
            out.append(value)

    def component(c: Any) -> None:
        if not isinstance(c, dict):
            return
        for key in ("label", "placeholder", "content", "title", "description"):
            add(c.get(key))
        for option in c.get("options") or []:
            if isinstance(option, dict):
                add(option.get("label"))
                add(option.get("description"))
        for child in c.get("components") or []:
            component(child)
        if isinstance(c.get("accessory"), dict):
            component(c["accessory"])

    def message(m: Any) -> None:
        if not isinstance(m, dict):
            return
        add(m.get("content"))
        add(m.get("title"))  # a modal
        for embed in m.get("embeds") or []:
            if not isinstance(embed, dict):
                continue
            add(embed.get("title"))
            add(embed.get("description"))
            for f in embed.get("fields") or []:
                if isinstance(f, dict):
                    add(f.get("name"))
                    add(f.get("value"))
            for key in ("footer", "author"):
                part = embed.get(key)
                if isinstance(part, dict):
                    add(part.get("text"))
                    add(part.get("name"))
        for c in m.get("components") or []:
            component(c)
        for choice in m.get("choices") or []:
            if isinstance(choice, dict):
                add(choice.get("name"))

    if isinstance(body, dict) and "type" in body and "data" in body:  # a callback
        message(body.get("data"))
    else:
        message(body)
    return out


@dataclass
class Sent:
    """One body the bot sent: the request, the user whose interaction it answers (None for a
    channel message), and its texts."""

    method: str
    path: str
    user_id: int | None
    texts: list[str]

    def where(self) -> str:
        who = "" if self.user_id is None else f" (for user {self.user_id})"
        return f"{self.method} {self.path}{who}"


@dataclass
class LanguageWatch:
    """Collects every message body the bot sends through `fake` from its creation on."""

    fake: Any
    sent: list[Sent] = field(default_factory=list)
    on: bool = True

    def __post_init__(self) -> None:
        self.fake.body_hooks.append(self._hook)

    def _hook(self, method: str, path: str, body: Any) -> None:
        if not self.on or method not in ("POST", "PATCH"):
            return
        m = _MESSAGE_ROUTES.fullmatch(path)
        if m is None:
            return
        token = m["itoken"] or m["wtoken"]
        user_id = None
        if token is not None:
            record = getattr(self.fake, "_by_token", {}).get(token)
            user_id = None if record is None else record.user.id
        texts = texts_in(body)
        if texts:
            self.sent.append(Sent(method, path, user_id, texts))

    def stop(self) -> None:
        self.on = False
        with contextlib.suppress(ValueError):
            self.fake.body_hooks.remove(self._hook)

    def texts(self) -> list[str]:
        return [t for s in self.sent for t in s.texts]

    def english(self, since: int = 0) -> list[tuple[str, str, str]]:
        """(where, fragment, text) for each English fragment in the bodies from `since` on."""
        return [
            (s.where(), fragment, text)
            for s in self.sent[since:]
            for text in s.texts
            for fragment in english_in(text)
        ]

    def report(self, since: int = 0, limit: int = 40) -> str:
        found = self.english(since)
        lines = [f"{len(found)} English fragment(s) sent:"]
        for where, fragment, text in found[:limit]:
            lines.append(f"  {fragment!r} in {where}:\n      {text[:300]!r}")
        return "\n".join(lines)


# ---------------------------------------------------------------------- a stand-in catalogue


def pseudo(text: str) -> str:
    """`text` with every word marked ("Roll {n} dice" -> "ÜRoll {n} Üdice"): no English word
    left whole, the placeholders, markdown and emoji as they were."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return _mark(text)
    out = []
    for literal, name, spec, conv in parsed:
        out.append(_mark(literal).replace("{", "{{").replace("}", "}}"))
        if name is not None:
            out.append("{" + name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}")
    return "".join(out)


def _mark(literal: str) -> str:
    # Not inside a mention or a custom emoji (<@id>, </cmd:id>, <:name:id>).
    pieces = re.split(r"(<[^<>\s]*>)", literal)
    return "".join(p if p.startswith("<") else _WORD.sub(lambda m: "Ü" + m[0], p) for p in pieces)


def stand_in(template: Catalog) -> Catalog:
    """A complete German catalogue of `template` that keeps no English word whole."""
    from bot.command_strings import LIMITS, NAME_CONTEXTS

    catalog = Catalog(locale=LANGUAGE, project="tablebot", fuzzy=False)
    for message in template:
        if not message.id:
            continue
        context = message.context or ""
        if context in NAME_CONTEXTS:
            marked = [("ü" + t)[: LIMITS[context]] for t in _ids(message)]
        elif context in _COMMAND_CONTEXTS:
            marked = [pseudo(t)[: LIMITS[context]] for t in _ids(message)]
            marked = [m if i18n_placeholders(m) == i18n_placeholders(t) else t
                      for m, t in zip(marked, _ids(message), strict=True)]
        else:
            marked = [pseudo(t) for t in _ids(message)]
        string_: str | tuple[str, ...] = (
            (marked[0], marked[1]) if isinstance(message.id, tuple | list) else marked[0]
        )
        catalog.add(message.id, string_, context=message.context)
    return catalog


def i18n_placeholders(text: str) -> set[str]:
    from tools.catalogues import placeholders

    try:
        return placeholders(text)
    except ValueError:
        return set()


def write_stand_in(out: Path, extract: bool = False) -> Path:
    """DIR/tablebot.pot (the template), DIR/de/... (the stand-in) and the other languages'
    catalogues copied from bot/locales."""
    out.mkdir(parents=True, exist_ok=True)
    source = i18n.LOCALES_DIR
    if extract:
        from tools.catalogues import template

        pot = template()
    else:
        pot = _read(source / f"{i18n.DOMAIN}.pot")
    for code in i18n.LANGUAGES:
        if code not in (i18n.SOURCE, LANGUAGE):
            src = source / code / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"
            dst = out / code / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
    for path, catalog in ((template_path(out), pot), (german_path(out), stand_in(pot))):
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as po:
            write_po(po, catalog, width=100)
    return out


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "stand-in":
        out = write_stand_in(Path(argv[1]), extract="--extract" in argv[2:])
        print(f"{out}: stand-in catalogues; run the tests with {LOCALES_ENV}={out}")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
