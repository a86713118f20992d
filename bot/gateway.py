"""Which gateway events the bot reads in full.

The guild-messages intent is there so that chatter below a table is seen (MESSAGE_CREATE).
The same intent brings the MESSAGE_UPDATE of every edit, the bot's own table edits too: one
per move, which discord.py turns into a whole Message (the embed, every button) and a copy of
the cached one, for nobody: the bot listens to no edit. Dropping those events on arrival is
the largest single cut in a click's cost (docs/performance.md, "Per click"); their frames
are not even decoded, only their head read for the event's name and sequence
(`_read_frames_lightly`). A new message (MESSAGE_CREATE) is read for its channel and id
only (`hear_new_messages`).

A click's INTERACTION_CREATE carries the clicked message whole, its embed and every button,
its mentions and timestamps, and discord.py builds all of it into `interaction.message`. The
bot reads only that message's id, whether it is ephemeral and whose it then is: its clicks
go to `GameBot.on_interaction` by custom_id, and no discord.ui view is rebuilt from the
message. So while no discord.ui view or dynamic item is registered (nothing in discord.py
would read the message either), those three are taken from the payload as a `Clicked` and
the message is left out: discord.py builds none, `interaction.message` is None, and the bot
reads the clicked message through `clicked_message(interaction)`, never
`interaction.message` (a test holds every module to it).

discord.py has no public switch for either, so `skip_unread_events` wraps the events' parsers
in the client's table of parsers (reached through bot/discord_internals.py); the conditions are looked up at each event (a listener or a
view added later is never deaf or blind). If a discord.py upgrade moves that table or its
view store, or keeps a copy of an interaction's data (where the `Clicked` would be lost),
the bot logs a warning or simply parses everything as before (slower, never wrong)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import discord

from bot import discord_internals as internals

log = logging.getLogger(__name__)

#: Gateway events the bot does not parse, and the listeners that would need them parsed.
UNREAD_EVENTS = {"MESSAGE_UPDATE": ("message_edit", "raw_message_edit")}
#: The key of `interaction.data` the clicked message's `Clicked` is kept under.
CLICKED = "tablebot.clicked"
EPHEMERAL = 1 << 6  # the message flag
COMPONENT_INTERACTION = 3


class Clicked(NamedTuple):
    """The message a button or select was on, as far as the bot reads it."""

    id: int
    ephemeral: bool
    #: Whom an ephemeral message was sent to (the user of the interaction that made it); 0
    #: for a public message, or when Discord does not say (nobody's).
    owner: int = 0


def clicked_message(interaction: discord.Interaction) -> Clicked | None:
    """The message the interaction's component was on (None for a command or a modal): as
    the gateway kept it, or read from `interaction.message` when discord.py built one."""
    data: Any = interaction.data
    kept = data.get(CLICKED) if isinstance(data, dict) else None
    if isinstance(kept, Clicked):
        return kept
    message = interaction.message
    if message is None:
        return None
    ephemeral = message.flags.ephemeral
    meta = message.interaction_metadata
    return Clicked(message.id, ephemeral, meta.user.id if ephemeral and meta is not None else 0)


def _listened(client: discord.Client, events: tuple[str, ...], *, methods: bool = True) -> bool:
    """Whether anything would hear these events: a listener (commands.Bot's add_listener), an
    on_<event> method (unless `methods` is false: the client's own), or a wait_for."""
    extra = getattr(client, "extra_events", {})
    waiting = internals.waiting(client)
    return any(
        extra.get(f"on_{e}") or (methods and hasattr(client, f"on_{e}")) or waiting.get(e)
        for e in events
    )


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


def hear_new_messages(client: discord.Client, seen: Callable[[int, int], None]) -> bool:
    """Tell `seen(channel_id, message_id)` of every new message (MESSAGE_CREATE) straight
    from its payload, all the bot reads of one (chatter below a table, bot/table_updates.py),
    where discord.py would build a whole Message of it for the client's `on_message`: in a
    busy server every line of chat is such an event, and each table the bot posts too.
    While another listener wants messages (an `on_message` listener or a `wait_for`), the
    event is parsed as before, and the client's own `on_message` hears it. False when
    discord.py's parsers moved: every message then goes to `on_message`."""
    parsers = internals.parsers(client)
    if parsers is None or "MESSAGE_CREATE" not in parsers:
        log.warning("discord.py's gateway parsers moved: new messages are parsed in full")
        return False
    parse = parsers["MESSAGE_CREATE"]

    def parse_if_listened(data: Any) -> None:
        if _listened(client, ("message",), methods=False):
            parse(data)
            return
        try:
            channel_id, message_id = int(data["channel_id"]), int(data["id"])
        except (KeyError, TypeError, ValueError):
            log.info("A MESSAGE_CREATE without a channel or message id")
            return
        seen(channel_id, message_id)

    parse_if_listened.parses = parse  # type: ignore[attr-defined]  # the parser it wraps (bench/botproc.py unwraps it)
    parsers["MESSAGE_CREATE"] = parse_if_listened
    return True


def _when_listened(
    client: discord.Client, parse: Callable[[Any], None], listeners: tuple[str, ...]
) -> Callable[[Any], None]:
    def parse_if_listened(data: Any) -> None:
        if _listened(client, listeners):
            parse(data)

    parse_if_listened.parses = parse  # type: ignore[attr-defined]  # the parser it wraps (bench/botproc.py unwraps it)
    parse_if_listened.unread = lambda: not _listened(client, listeners)  # type: ignore[attr-defined]  # (`_read_frame` asks)
    _read_frames_lightly()
    return parse_if_listened


# ------------------------------------------------------------------- frames left unread

#: Where a dispatch frame's event data starts, looked for in its first characters: the
#: event's name, sequence and opcode come before it in Discord's frames (and the fake's).
_HEAD = 128
_EVENT = re.compile(r'"t":"([A-Z_]+)"')
_SEQUENCE = re.compile(r'"s":(\d+)')


def _unread_event(ws: Any, text: str) -> tuple[str, int] | None:
    """The event and sequence of a dispatch frame the client would not parse (a guarded
    event nothing listens to), read from the frame's head; None for any other frame, or one
    whose head does not say (its keys in another order): that one is read in full."""
    cut = text.find('"d":', 0, _HEAD)
    if cut < 0:
        return None
    head = text[:cut]
    event = _EVENT.search(head)
    if event is None or '"op":0' not in head:
        return None
    unread = getattr(internals.ws_parsers(ws).get(event[1]), "unread", None)
    if unread is None or not unread() or internals.ws_waits_for_events(ws):
        return None
    sequence = _SEQUENCE.search(head)
    return None if sequence is None else (event[1], int(sequence[1]))


def _read_frames_lightly() -> None:
    """Let the gateway read a frame of an event the bot leaves unparsed (the echo of every
    table edit) no further than its head: the event's name and sequence. discord.py decodes
    every frame's JSON before it looks up the event's parser; for an edit's echo, a whole
    message with its embed and buttons, that is some 2% of a click's CPU (docs/
    performance.md, "Per click"). Every other frame, and every frame of a client without the
    guards of `skip_unread_events`, goes through discord.py's own `received_message`. Done
    once."""
    socket = internals.WebSocket
    received = socket.received_message
    if getattr(received, "reads", None) is not None:
        return
    if not internals.frames_readable():
        log.warning("discord.py reads gateway frames otherwise: every frame is decoded")
        return

    async def received_message(ws: Any, frame: Any, /) -> None:
        text = internals.frame_text(ws, frame)
        if text is None:
            return  # (part of a compressed message)
        unread = _unread_event(ws, text) if type(text) is str else None
        if unread is None:
            await received(ws, text)
        else:
            internals.received_unparsed(ws, text, *unread)

    received_message.reads = received  # type: ignore[attr-defined]  # (discord.py's own)
    socket.received_message = received_message  # type: ignore[method-assign]  # (the class's, once)


def _views_registered(client: discord.Client) -> bool:
    """Whether discord.py holds a view or a dynamic item, which may read a clicked message's
    components (a store it no longer has counts as holding some)."""
    store = internals.view_store(client)
    return store is None or any(store)


def _clicked_message_trimmed(
    client: discord.Client, parse: Callable[[Any], None]
) -> Callable[[Any], None]:
    kept = internals.keeps_interaction_data(client)
    if not kept:
        log.warning("discord.py copies an interaction's data: clicked messages are parsed whole")

    def parse_trimmed(data: Any) -> None:
        message = data.get("message")
        inner = data.get("data")
        if (
            kept
            and data.get("type") == COMPONENT_INTERACTION
            and isinstance(message, dict)
            and isinstance(inner, dict)
            and not _views_registered(client)
        ):
            clicked = _clicked(message)
            if clicked is not None:
                del data["message"]
                inner[CLICKED] = clicked
        parse(data)

    parse_trimmed.parses = parse  # type: ignore[attr-defined]  # the parser it wraps (bench/botproc.py unwraps it)
    return parse_trimmed


def _clicked(message: dict[str, Any]) -> Clicked | None:
    """What the bot reads of a clicked message's payload; None for one it cannot read (left
    to discord.py, which then builds the Message or raises as it would have)."""
    try:
        ephemeral = bool(int(message.get("flags") or 0) & EPHEMERAL)
        meta = message.get("interaction_metadata") if ephemeral else None
        owner = int(meta["user"]["id"]) if isinstance(meta, dict) else 0
        return Clicked(int(message["id"]), ephemeral, owner)
    except (KeyError, TypeError, ValueError):
        return None
