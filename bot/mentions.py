"""Clickable command mentions. Discord renders `</farkle start:123>` as a command a tap fills
in, but only with the id Discord gave the command when it was synced; until then (or with
--no-sync) a suggestion reads as plain `/farkle start`."""

from __future__ import annotations

from bot.i18n import _p

_command_ids: dict[str, int] = {}


def learn(command_ids: dict[str, int]) -> None:
    """Remember the synced top-level commands' ids (name -> id)."""
    _command_ids.clear()
    _command_ids.update(command_ids)


def mention(command: str) -> str:
    """`</farkle start:id>` when "farkle" was synced (each reader's Discord shows it in their
    language), else `spoken(command)`."""
    found = _command_ids.get(command.split()[0])
    return f"</{command}:{found}>" if found else spoken(command)


def spoken(command: str) -> str:
    """`/farkle start` as the current language names the command (the command tree's names
    are translated under these contexts, bot/translator.py): where a mention cannot be
    clicked, such as an embed's footer."""
    *groups, name = command.split()
    words = [_p("group_name", g) for g in groups] + [_p("command_name", name)]
    return "/" + " ".join(words)
