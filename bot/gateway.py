"""Which gateway events the bot reads in full.

The guild-messages intent is there so that chatter below a table is seen (MESSAGE_CREATE).
The same intent brings the MESSAGE_UPDATE of every edit, the bot's own table edits too: one
per move, which discord.py turns into a whole Message (the embed, every button) and a copy of
the cached one, for nobody: the bot listens to no edit. Dropping those events on arrival is
the largest single cut in a click's cost (docs/performance.md, "Per click").

A click's INTERACTION_CREATE carries the clicked message whole, its embed and every button,
its mentions and timestamps, and discord.py builds all of it into `interaction.message`. The
bot reads only that message's id and flags, and whose it is when it is ephemeral
(`interactions.ephemeral_owner`): its clicks go to `GameBot.on_interaction` by custom_id, and
no discord.ui view is rebuilt from the message. So while no discord.ui view or dynamic item
is registered (nothing in discord.py would read the rest either), only `CLICKED_PARTS_READ`
of the message are parsed: its id, channel, guild, type, text, flags, author and webhook,
and the interaction that made it when it is ephemeral. `interaction.message.embeds`,
`.components`, `.mentions` and the like are then empty (`CLICKED_PARTS_EMPTIED`).

discord.py has no public switch for either, so `skip_unread_events` wraps the events' parsers
in the client's table of parsers (reached through bot/discord_internals.py); the conditions are looked up at each event (a listener or a
view added later is never deaf or blind). If a discord.py upgrade moves that table or its
view store, the bot logs a warning or simply parses everything as before (slower, never
wrong)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import discord

from bot import discord_internals as internals

log = logging.getLogger(__name__)

#: Gateway events the bot does not parse, and the listeners that would need them parsed.
UNREAD_EVENTS = {"MESSAGE_UPDATE": ("message_edit", "raw_message_edit")}
#: The parts of a clicked message (interaction type 3: a component) that are parsed: what the
#: bot reads, and what discord.py needs to build the Message or its author.
CLICKED_PARTS_READ = (
    "id", "channel_id", "guild_id", "type", "content", "flags", "author", "webhook_id",
    "application_id",
)  # fmt: skip
#: The parts of the rest that discord.py makes attributes of only when present: given empty,
#: so `interaction.message.components` and the like are there, and empty.
CLICKED_PARTS_EMPTIED = ("components", "mentions", "mention_roles")
#: Read only from an ephemeral message: the interaction that made it (whose it is).
EPHEMERAL_PARTS_READ = ("interaction_metadata",)
EPHEMERAL = 1 << 6  # the message flag
COMPONENT_INTERACTION = 3


def _listened(client: discord.Client, events: tuple[str, ...]) -> bool:
    """Whether anything would hear these events: a listener (commands.Bot's add_listener), an
    on_<event> method, or a wait_for."""
    extra = getattr(client, "extra_events", {})
    waiting = internals.waiting(client)
    return any(extra.get(f"on_{e}") or hasattr(client, f"on_{e}") or waiting.get(e) for e in events)


def skip_unread_events(client: discord.Client) -> list[str]:
    """Parse the events of `UNREAD_EVENTS` only while something listens to them (checked at
    each event: a listener added later hears them), and clicks without the clicked message's
    unread parts while no view could read them; returns the events so guarded."""
    parsers = internals.parsers(client)
    if (
        parsers is None
        or not {*UNREAD_EVENTS, "INTERACTION_CREATE"} <= parsers.keys()
    ):
        log.warning("discord.py's gateway parsers moved: every event is parsed in full")
        return []
    for event, listeners in UNREAD_EVENTS.items():
        parsers[event] = _when_listened(client, parsers[event], listeners)
    parsers["INTERACTION_CREATE"] = _clicked_message_trimmed(client, parsers["INTERACTION_CREATE"])
    return [*UNREAD_EVENTS, "INTERACTION_CREATE"]


def _when_listened(
    client: discord.Client, parse: Callable[[Any], None], listeners: tuple[str, ...]
) -> Callable[[Any], None]:
    def parse_if_listened(data: Any) -> None:
        if _listened(client, listeners):
            parse(data)

    parse_if_listened.parses = parse  # type: ignore[attr-defined]  # the parser it wraps (bench/botproc.py unwraps it)
    return parse_if_listened


def _views_registered(client: discord.Client) -> bool:
    """Whether discord.py holds a view or a dynamic item, which may read a clicked message's
    components (a store it no longer has counts as holding some)."""
    store = internals.view_store(client)
    return store is None or any(store)


def _clicked_message_trimmed(
    client: discord.Client, parse: Callable[[Any], None]
) -> Callable[[Any], None]:
    def parse_trimmed(data: Any) -> None:
        message = data.get("message")
        if (
            data.get("type") == COMPONENT_INTERACTION
            and isinstance(message, dict)
            and not _views_registered(client)
        ):
            data["message"] = _read_parts(message)
        parse(data)

    parse_trimmed.parses = parse  # type: ignore[attr-defined]  # the parser it wraps (bench/botproc.py unwraps it)
    return parse_trimmed


def _read_parts(message: dict[str, Any]) -> dict[str, Any]:
    """The parts of a clicked message the bot reads (`CLICKED_PARTS_READ`)."""
    parts = {k: message[k] for k in CLICKED_PARTS_READ if k in message}
    for k in CLICKED_PARTS_EMPTIED:
        parts[k] = []
    flags = message.get("flags")
    if type(flags) is int and flags & EPHEMERAL:
        parts.update((k, message[k]) for k in EPHEMERAL_PARTS_READ if k in message)
    return parts
