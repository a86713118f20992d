"""Players whose display names are Discord markdown, a role mention or a right-to-left
override, and the check that every body the bot sends shows those names as written.

    watch = NameWatch(d.fake, PLAYERS)
    ...                                   # play, ask /history, /stats...
    watch.check()                         # fails naming the body and the text

A body's text is read as Discord reads it: markdown where Discord reads markdown (content,
an embed's title, description and fields), plain text elsewhere (footers, button labels,
select options). In markdown a name must be escaped: its raw `**b**` would be bold, `||x`
would hide what follows it up to the next `||`, `<@&1>` would be a role's mention. Nowhere
may a bidirectional control reach Discord. And the names must be there to be seen: `shown`
reads a body's markdown the way Discord shows it, and the test asserts each name in it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.fake_discord import FakeDiscord, FakeUser, SentBody

BOLD = FakeUser(1_100_000_000_000_003_001, "**b**")
SPOILER = FakeUser(1_100_000_000_000_003_002, "||x")
ROLE = FakeUser(1_100_000_000_000_003_003, "<@&1>")
FLIPPED = FakeUser(1_100_000_000_000_003_004, "Ann\u202eevil")
PLAYERS = [BOLD, SPOILER, ROLE, FLIPPED]

#: Unicode's bidirectional controls (Bidi_Control).
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: What each name would do unescaped in markdown (none of the bot's own words holds these).
RAW = ["**b**", "||x", "<@&1>"]
#: Text Discord reads as markdown, by the key that holds it.
MARKDOWN_KEYS = {"content", "title", "description", "value"}
#: Text it shows as it is.
PLAIN_KEYS = {"label", "placeholder", "text"}


def shown(markdown: str) -> str:
    """What Discord shows of `markdown`'s escapes: `\\*` is `*` (any ASCII punctuation)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def written(user: FakeUser) -> str:
    """A name as it is shown: as written, without bidirectional controls."""
    return BIDI.sub("", user.name)


@dataclass
class Text:
    sent: SentBody
    where: str
    text: str
    markdown: bool


def texts(sent: SentBody) -> Iterator[Text]:
    """Every text of a body, with whether Discord reads it as markdown."""

    def walk(value: Any, where: str, field_of: str | None) -> Iterator[Text]:
        if isinstance(value, dict):
            for key, inner in value.items():
                yield from walk(inner, f"{where}.{key}", key)
        elif isinstance(value, list):
            for i, inner in enumerate(value):
                yield from walk(inner, f"{where}[{i}]", field_of)
        elif isinstance(value, str) and field_of is not None:
            if field_of in MARKDOWN_KEYS or (field_of == "name" and ".fields[" in where):
                yield Text(sent, where, value, True)
            elif field_of in PLAIN_KEYS or field_of == "name":
                yield Text(sent, where, value, False)

    yield from walk(sent.body, "", None)


@dataclass
class NameWatch:
    """Reads every body the bot sends from now on."""

    fake: FakeDiscord
    players: list[FakeUser]
    start: int = field(init=False)

    def __post_init__(self) -> None:
        self.start = len(self.fake.sent)

    def bodies(self) -> list[SentBody]:
        return self.fake.sent[self.start :]

    def problems(self) -> list[str]:
        out = []
        for sent in self.bodies():
            at = f"{sent.method} {sent.path}"
            for t in texts(sent):
                if BIDI.search(t.text):
                    out.append(f"{at} {t.where}: a bidirectional control: {t.text!r}")
                if t.markdown:
                    out += [f"{at} {t.where}: {raw!r} unescaped: {t.text!r}" for raw in RAW
                            if raw in t.text]  # fmt: skip
                elif "\\" in t.text:
                    out.append(f"{at} {t.where}: an escape where no markdown is read: {t.text!r}")
            out += self._pings(sent, at)
        return out

    @staticmethod
    def _pings(sent: SentBody, at: str) -> list[str]:
        """A new message with text must say whom it may notify: never a role or @everyone,
        and users only by id (Discord's default, without allowed_mentions, pings all)."""
        body = sent.body if isinstance(sent.body, dict) else {}
        message = body.get("data") if "type" in body and "data" in body else body
        if not isinstance(message, dict) or not message.get("content") or sent.method != "POST":
            return []
        allowed = message.get("allowed_mentions")
        if allowed is None:
            return [f"{at}: no allowed_mentions: {message['content']!r}"]
        parse = allowed.get("parse") or []
        if parse or allowed.get("roles"):
            return [f"{at}: allowed_mentions {allowed} may ping more than named users"]
        return []

    def check(self) -> None:
        problems = self.problems()
        assert not problems, "names shown as markdown:\n" + "\n".join(problems[:20])

    def seen(self, *, public: bool = True) -> str:
        """Everything the bodies' markdown shows, as Discord shows it."""
        return "\n".join(
            shown(t.text)
            for sent in self.bodies()
            if sent.public or not public
            for t in texts(sent)
            if t.markdown
        )
