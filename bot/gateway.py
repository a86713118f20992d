"""Which gateway events the bot reads in full.

The guild-messages intent is there so that chatter below a table is seen (MESSAGE_CREATE).
The same intent brings the MESSAGE_UPDATE of every edit, the bot's own table edits too: one
per move, which discord.py turns into a whole Message (the embed, every button) and a copy of
the cached one, for nobody: the bot listens to no edit. Dropping those events on arrival is
the largest single cut in a click's cost (README, Performance → "Per click").

discord.py has no public switch for this, so `skip_unread_events` wraps the event's parser
in the client's table of parsers: an edit is parsed only when something listens to edits
(looked up at each event, so a listener added later is never deaf). If a discord.py upgrade
moves that table, the bot logs a warning and parses everything as before (slower, never
wrong)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import discord

log = logging.getLogger(__name__)

#: Gateway events the bot does not parse, and the listeners that would need them parsed.
UNREAD_EVENTS = {"MESSAGE_UPDATE": ("message_edit", "raw_message_edit")}


def _listened(client: discord.Client, events: tuple[str, ...]) -> bool:
    """Whether anything would hear these events: a listener (commands.Bot's add_listener), an
    on_<event> method, or a wait_for."""
    extra = getattr(client, "extra_events", {})
    waiting = getattr(client, "_listeners", {})
    return any(extra.get(f"on_{e}") or hasattr(client, f"on_{e}") or waiting.get(e) for e in events)


def skip_unread_events(client: discord.Client) -> list[str]:
    """Parse the events of `UNREAD_EVENTS` only while something listens to them (checked at
    each event: a listener added later hears them); returns the events so guarded."""
    parsers = getattr(getattr(client, "_connection", None), "parsers", None)
    if not isinstance(parsers, dict) or not set(UNREAD_EVENTS) <= parsers.keys():
        log.warning("discord.py's gateway parsers moved: every message edit is parsed")
        return []
    for event, listeners in UNREAD_EVENTS.items():
        parsers[event] = _when_listened(client, parsers[event], listeners)
    return list(UNREAD_EVENTS)


def _when_listened(
    client: discord.Client, parse: Callable[[Any], None], listeners: tuple[str, ...]
) -> Callable[[Any], None]:
    def parse_if_listened(data: Any) -> None:
        if _listened(client, listeners):
            parse(data)

    parse_if_listened.parses = parse  # type: ignore[attr-defined]
    return parse_if_listened
