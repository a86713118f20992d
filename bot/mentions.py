"""Clickable command mentions. Discord renders `</farkle start:123>` as a command a tap fills
in, but only with the id Discord gave the command when it was synced; until then (or with
--no-sync) a suggestion reads as plain `/farkle start`.

Discord writes a mention's name as the message gives it, in every reader's language: a
mention shows the command's English name (`/farkle start`, never `/farkle starten`), and
so does every other place a message names a command (`spoken`), so that one message never
names one command twice. Translations write the name as a name ("Mit /farkle start beginnt
ein neues Spiel"), see docs/translating.md. (The command picker and the commands' own
descriptions are in each client's language, with the translated names.)"""

from __future__ import annotations

_command_ids: dict[str, int] = {}


def learn(command_ids: dict[str, int]) -> None:
    """Remember the synced top-level commands' ids (name -> id)."""
    _command_ids.clear()
    _command_ids.update(command_ids)


def mention(command: str) -> str:
    """`</farkle start:id>` when "farkle" was synced (Discord shows it as `/farkle start`,
    whatever the reader's language), else `spoken(command)`."""
    found = _command_ids.get(command.split()[0])
    return f"</{command}:{found}>" if found else spoken(command)


def spoken(command: str) -> str:
    """`/farkle start` where a mention cannot be clicked, such as an embed's footer: the
    name a mention shows, so a footer and the message above it agree."""
    return "/" + command
