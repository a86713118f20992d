"""Clickable command mentions. Discord renders `</farkle start:123>` as a command a tap fills
in, but only with the id Discord gave the command when it was synced; until then (or with
--no-sync) a suggestion reads as plain `/farkle start`."""

from __future__ import annotations

_command_ids: dict[str, int] = {}


def learn(command_ids: dict[str, int]) -> None:
    """Remember the synced top-level commands' ids (name -> id)."""
    _command_ids.clear()
    _command_ids.update(command_ids)


def mention(command: str) -> str:
    """`</farkle start:id>` when "farkle" was synced, else `/farkle start`."""
    found = _command_ids.get(command.split()[0])
    return f"</{command}:{found}>" if found else f"/{command}"
