"""No hidden value in a public payload: the check every game with hidden information uses.

The fake records every message body the bot sends and Discord accepts (`FakeDiscord.sent`),
with who can see the message it lands on: channel messages and their edits, interaction
answers (type 4 new message, type 7 update of the clicked message) and webhook followups
and edits are public unless that message is ephemeral. Every string in a public body is
scanned (content, embeds, and the components' custom_ids too: any client can read those).

    assert_no_public_secrets(d.fake, ["🂡 ace of spades", re.compile(r"hand: \\w+")])

after a game, or live, so that the click that leaks fails at once with the details:

    watch = watch_public_secrets(d.fake)
    watch.hide(f"your dice: {dice}")        # whenever a hidden value becomes known

and a game's sealed seed in no body at all, public or private, before its final table:

    assert_sealed_until_revealed(d.fake, seed, logged)

Choose secrets that cannot appear by accident (a die "5" alone would match any score).
This module is imported as `tests.e2e.hidden_info`.

A game's history (/history) shows its stored log: `watch_stored_log` checks, after every body,
that the lines stored so far of a channel's running game show none of the secrets hidden at
that moment."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from bot.i18n import render
from games.text import line_from_json
from tests.e2e.fake_discord import FakeDiscord, SentBody

Secret = str | re.Pattern[str]


def strings_in(value: Any) -> Iterator[str]:
    """Every string in a JSON value, dictionary keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from strings_in(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings_in(v)


def _checked(secrets: Iterable[Secret]) -> list[Secret]:
    out = list(secrets)
    for s in out:
        if isinstance(s, str) and not s:
            raise ValueError("an empty string is in every payload: not a secret")
        if not isinstance(s, str | re.Pattern):
            raise TypeError(f"a secret is a str or a compiled pattern, not {type(s).__name__}")
    return out


def _match(secret: Secret, text: str) -> tuple[int, int] | None:
    if isinstance(secret, str):
        i = text.find(secret)
        return None if i < 0 else (i, i + len(secret))
    m = secret.search(text)
    return None if m is None else m.span()


def leaks_in(sent: SentBody, secrets: Iterable[Secret]) -> list[str]:
    """How `sent` shows any of `secrets` in public (empty when it is private or clean)."""
    if not sent.public:
        return []
    found = []
    for secret in _checked(secrets):
        for text in strings_in(sent.body):
            span = _match(secret, text)
            if span is not None:
                a, b = span
                shown = text[max(0, a - 40) : b + 40].replace("\n", " | ")
                found.append(
                    f"{sent.method} {sent.path} (message {sent.message_id}, public) "
                    f"shows the secret {getattr(secret, 'pattern', secret)!r}: ...{shown}..."
                )
                break
    return found


def public_leaks(fake: FakeDiscord, secrets: Iterable[Secret]) -> list[str]:
    """Every public body the bot sent so far that shows one of `secrets`."""
    checked = _checked(secrets)
    return [line for sent in fake.sent for line in leaks_in(sent, checked)]


def assert_no_public_secrets(fake: FakeDiscord, secrets: Iterable[Secret]) -> None:
    """Fail, naming the request and the text around it, if any public body the bot sent
    contains one of `secrets`."""
    leaks = public_leaks(fake, secrets)
    assert not leaks, "hidden values in public payloads:\n" + "\n".join(leaks)


def private_texts(fake: FakeDiscord) -> list[str]:
    """The content of every body only one user saw (ephemeral answers, modals): handy
    secrets for a game with nothing hidden, to prove the check sees the difference."""
    out = []
    for sent in fake.sent:
        if not sent.public and isinstance(sent.body, dict) and sent.body.get("content"):
            out.append(sent.body["content"])
    return out


def assert_sealed_until_revealed(
    fake: FakeDiscord, seed: str, logs: Iterable[logging.LogRecord] = ()
) -> None:
    """A game's secret seed (its hex, as the finished game keeps it) is in no body the bot
    sent, public or ephemeral, before its final table reveals it ("🔓 Seed ...", on the
    table with the Rematch button: the game is over), and in no line of `logs`."""
    for sent in fake.sent:
        texts = list(strings_in(sent.body))
        if not any(seed in t for t in texts):
            continue
        revealed = any(f"🔓 Seed {seed}" in t for t in texts)
        over = any(":rematch:" in t for t in texts)
        assert sent.public and revealed and over, (
            f"{sent.method} {sent.path} (message {sent.message_id}) shows the seed before "
            "the game's end"
        )
        break
    else:
        raise AssertionError("no final table revealed the seed")
    shown = [r.getMessage() for r in logs if seed in r.getMessage()]
    assert not shown, f"the seed in the log: {shown}"


class SecretWatch:
    """A live check: each public body is scanned as the fake accepts it, against the
    secrets hidden so far; a leak becomes a fake violation, so the dispatch that caused it
    fails (and the `d` fixture's teardown too, if nothing did)."""

    def __init__(self, fake: FakeDiscord, secrets: Iterable[Secret] = ()) -> None:
        self.fake = fake
        self.secrets: list[Secret] = _checked(secrets)
        self.leaks: list[str] = []
        fake.sent_hooks.append(self._check)

    def hide(self, *secrets: Secret) -> None:
        self.secrets += _checked(secrets)

    def stop(self) -> None:
        if self._check in self.fake.sent_hooks:
            self.fake.sent_hooks.remove(self._check)

    def _check(self, sent: SentBody) -> None:
        for line in leaks_in(sent, self.secrets):
            self.leaks.append(line)
            self.fake.violation("secret leaked: " + line)


def watch_public_secrets(fake: FakeDiscord, secrets: Iterable[Secret] = ()) -> SecretWatch:
    return SecretWatch(fake, secrets)


def stored_log(database: Path, channel: int) -> list[str]:
    """The log lines stored so far of the channel's running game, oldest first (read from
    the file, as another process would): what its history will show."""
    con = sqlite3.connect(database)
    try:
        rows = con.execute(
            "SELECT lines FROM game_log WHERE channel_id = ? ORDER BY revision", (channel,)
        ).fetchall()
    finally:
        con.close()
    # A line is stored as a message (its key and arguments): read it as /history shows it.
    return [render(line_from_json(line)) for (lines,) in rows for line in json.loads(lines)]


def stored_beside(database: Path, channel: int) -> tuple[list[Any], list[Any]]:
    """What the channel's running game keeps beside its session row (read from the file):
    the records of its draws and its score history, oldest first (bot/sessions.py
    `beside_json`)."""
    con = sqlite3.connect(database)
    try:
        rows = con.execute(
            "SELECT beside FROM game_log WHERE channel_id = ? AND beside IS NOT NULL"
            " ORDER BY revision",
            (channel,),
        ).fetchall()
    finally:
        con.close()
    parts = [json.loads(text) for (text,) in rows]
    return (
        [m for p in parts for m in p.get("draws", [])],
        [h for p in parts for h in p.get("history", [])],
    )


class StoredLogWatch:
    """A live check of a running game's stored log: after each body the fake accepts, no
    line stored so far may show a secret hidden at that moment (`secrets()`, asked each
    time: a value a pull revealed may be in the log from then on). A leak becomes a fake
    violation, as with `SecretWatch`."""

    def __init__(
        self,
        fake: FakeDiscord,
        database: Path,
        channel: int,
        secrets: Callable[[], Iterable[Secret]],
    ) -> None:
        self.fake, self.database, self.channel, self.secrets = fake, database, channel, secrets
        self.leaks: list[str] = []
        self.checked = 0  # lines seen by the last check
        fake.sent_hooks.append(self._check)

    def stop(self) -> None:
        if self._check in self.fake.sent_hooks:
            self.fake.sent_hooks.remove(self._check)

    def _check(self, sent: SentBody) -> None:
        lines = stored_log(self.database, self.channel)
        self.checked = max(self.checked, len(lines))
        for secret in _checked(self.secrets()):
            for line in lines:
                if _match(secret, line) is not None:
                    leak = (
                        f"the stored log of channel {self.channel} shows the secret "
                        f"{getattr(secret, 'pattern', secret)!r}: {line}"
                    )
                    if leak not in self.leaks:
                        self.leaks.append(leak)
                        self.fake.violation("secret in the history: " + leak)


def watch_stored_log(
    fake: FakeDiscord, database: Path, channel: int, secrets: Callable[[], Iterable[Secret]]
) -> StoredLogWatch:
    return StoredLogWatch(fake, database, channel, secrets)


__all__ = [
    "Secret",
    "SecretWatch",
    "StoredLogWatch",
    "assert_no_public_secrets",
    "assert_sealed_until_revealed",
    "leaks_in",
    "private_texts",
    "public_leaks",
    "stored_log",
    "strings_in",
    "watch_public_secrets",
    "watch_stored_log",
]
