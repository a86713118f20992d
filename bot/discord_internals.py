"""Every undocumented part of discord.py the bot reaches, in one place.

The bot answers a click without reading the message back (bot/respond.py), skips gateway
events it never reads (bot/gateway.py) and writes to an interaction's webhook from a stored
token (bot/reach.py). discord.py has no public way to do any of that, so those modules reach
its internals, and only through this module: `INTERNALS` lists each one, with who uses it,
and `problems()` says which are missing or changed shape. discord.py is pinned to the minor
version these were read from (pyproject.toml); tests/bot/test_discord_internals.py fails,
naming the internal, when an upgrade moves one. The bot itself falls back to the public
(slower) way and logs a warning where it can (gateway.py, respond.py).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
from collections.abc import Callable
from typing import Any

import discord

#: The minor version of discord.py these internals were read from (pyproject.toml pins it).
DISCORD_PY_MINOR = "2.7"

#: Each internal: what it is, and which module uses it for what.
INTERNALS: dict[str, str] = {
    "Client._connection": "the client's ConnectionState (gateway.py: its parsers and view "
    "store; reach.py: a webhook built from a stored token)",
    "Client._listeners": "the futures of wait_for, by event (gateway.py: whether anything "
    "would hear an event it skips)",
    "ConnectionState.parsers": "event name -> parse function, one per gateway event "
    "(gateway.py wraps MESSAGE_UPDATE and INTERACTION_CREATE)",
    "ConnectionState._view_store._views / ._dynamic_items": "the registered views and "
    "dynamic items (gateway.py: a clicked message is trimmed only while there are none)",
    "ConnectionState.http.proxy / .proxy_auth, ConnectionState.allowed_mentions": "what "
    "discord.py passes with an interaction callback or follow-up (respond.py)",
    "discord.http.Route": "Route(method, path, **parameters), an HTTP route (respond.py)",
    "discord.http.Route.BASE": "the API's base URL, which a fake Discord points elsewhere "
    "(callback_http.py: where its own connections send callbacks and follow-ups)",
    "discord.webhook.async_.async_context": "the ContextVar holding the webhook adapter whose "
    "request(route, session, *, payload, multipart, files, proxy, proxy_auth) sends a "
    "callback (respond.py)",
    "discord.webhook.async_.interaction_message_response_params": "builds a callback's "
    "payload and files from content, embed, view, attachments (respond.py; its "
    "update_payload builds the same body for a table without a View, which "
    "tests/bot/test_respond.py compares with this one's)",
    "Interaction._state / ._session": "the interaction's ConnectionState and HTTP session "
    "(respond.py)",
    "InteractionResponse._response_type": "set when the interaction is answered, so "
    "is_done() is true afterwards (respond.py)",
    "Interaction._cs_response": "the slot caching interaction.response, deleted to break "
    "its reference cycle (respond.py)",
    "Interaction.data": "the INTERACTION_CREATE payload's own 'data' dict, kept as it came, "
    "not a copy (gateway.py keeps there what the bot reads of a clicked message, which it "
    "leaves out of the payload)",
    "Webhook.from_state": "Webhook.from_state(data, state): an interaction's webhook from "
    "its stored token, for follow-ups and edits after a restart (reach.py)",
    "DiscordWebSocket.received_message / ._decompressor / ._discord_parsers / "
    "._dispatch_listeners / ._dispatch / ._keep_alive / .sequence / .log_receive": "how a "
    "gateway frame is read: decompressed, logged, decoded, its sequence kept, the keep-alive "
    "ticked, then parsed (gateway.py reads a frame of an event it leaves unparsed no "
    "further than its event name and sequence)",
}

# ------------------------------------------------------------------- the client's state


def connection(client: discord.Client) -> Any:
    """The client's ConnectionState (None if it moved)."""
    return getattr(client, "_connection", None)


def parsers(client: discord.Client) -> dict[str, Callable[[Any], None]] | None:
    """The gateway event parsers by event name (None if they moved)."""
    found = getattr(connection(client), "parsers", None)
    return found if isinstance(found, dict) else None


def view_store(client: discord.Client) -> tuple[dict[Any, Any], dict[Any, Any]] | None:
    """The registered views and dynamic items (None if the store moved)."""
    store = getattr(connection(client), "_view_store", None)
    views = getattr(store, "_views", None)
    dynamic = getattr(store, "_dynamic_items", None)
    if not isinstance(views, dict) or not isinstance(dynamic, dict):
        return None
    return views, dynamic


def waiting(client: discord.Client) -> dict[str, Any]:
    """The futures of `wait_for` calls, by event name (empty if they moved)."""
    found = getattr(client, "_listeners", None)
    return found if isinstance(found, dict) else {}


def keeps_interaction_data(client: discord.Client) -> bool:
    """Whether discord.py keeps an interaction's 'data' dict as `interaction.data`, the same
    object: tried on a component interaction built on the client's state (no guild, no
    channel, no user: nothing is cached from it)."""
    payload: dict[str, Any] = {
        "id": "1", "type": 3, "token": "t", "version": 1, "application_id": "1",
        "attachment_size_limit": 1, "data": {"custom_id": "t", "component_type": 2},
    }  # fmt: skip
    state = connection(client)
    try:
        interaction = discord.Interaction(data=payload, state=state)  # type: ignore[arg-type]  # a component's payload
    except Exception:
        return False
    return interaction.data is payload["data"]


# ------------------------------------------------------------------- an interaction callback

try:
    from discord.http import Route as Route
    from discord.webhook.async_ import async_context as async_context
    from discord.webhook.async_ import (
        interaction_message_response_params as interaction_message_response_params,
    )

    CALLBACK_PARTS = all(
        name in getattr(cls, "__slots__", ())
        for cls, name in (
            (discord.InteractionResponse, "_response_type"),
            (discord.Interaction, "_session"),
            (discord.Interaction, "_state"),
        )
    )
except ImportError:  # pragma: no cover - only with a discord.py that moved them
    CALLBACK_PARTS = False


def api_base() -> str | None:
    """The http(s) URL discord.py sends API requests to (None if it moved)."""
    base = getattr(Route, "BASE", None) if CALLBACK_PARTS else None
    return base if isinstance(base, str) and base.startswith(("http://", "https://")) else None


def interaction_state(interaction: discord.Interaction) -> Any:
    return interaction._state


def interaction_session(interaction: discord.Interaction) -> Any:
    return interaction._session


def mark_answered(response: discord.InteractionResponse, kind: discord.InteractionResponseType) -> None:
    """What discord.py records when it answers: `response.is_done()` is true from now on."""
    response._response_type = kind


def forget_response(interaction: discord.Interaction) -> None:
    """Drop the cached `interaction.response` (nothing if none was made)."""
    with contextlib.suppress(AttributeError):
        del interaction._cs_response  # type: ignore[attr-defined]  # cached response, not in the stubs


# ------------------------------------------------------------------- the gateway's frames

WebSocket = discord.gateway.DiscordWebSocket


def frame_text(ws: Any, frame: Any) -> Any:
    """A frame as `received_message` decodes it: text, or None for part of a compressed
    message."""
    return ws._decompressor.decompress(frame) if type(frame) is bytes else frame


def ws_parsers(ws: Any) -> dict[str, Any]:
    return ws._discord_parsers


def ws_waits_for_events(ws: Any) -> bool:
    """Whether the connection itself waits for a dispatched event (a shard's READY)."""
    return bool(ws._dispatch_listeners)


@functools.cache
def frames_readable() -> bool:
    """Whether the gateway's frames are read as the functions above expect."""
    socket = WebSocket.__new__(WebSocket)  # (no connection: only its attributes' shape)
    names = ("_decompressor", "_dispatch_listeners", "_dispatch", "_keep_alive", "sequence")
    try:
        WebSocket.__init__(socket, None, loop=None)  # type: ignore[arg-type]  # (no socket: its shape only)
        made = inspect.getsource(WebSocket.from_client)
    except Exception:
        return False
    read = getattr(WebSocket, "received_message", None)
    return (
        read is not None
        and inspect.iscoroutinefunction(getattr(read, "reads", read))
        and all(n in vars(socket) for n in names)
        and callable(getattr(socket, "log_receive", None))
        and "_discord_parsers" in made
    )


def received_unparsed(ws: Any, text: str, event: str, sequence: int) -> None:
    """What `received_message` does with a dispatched event before its parser, which then
    does nothing: log the frame (a debug event, when enabled), tell `socket_event_type`
    listeners, keep the sequence (for a RESUME) and tick the keep-alive."""
    ws.log_receive(text)
    ws._dispatch("socket_event_type", event)
    ws.sequence = sequence
    if ws._keep_alive:
        ws._keep_alive.tick()


# ------------------------------------------------------------------- the check


def _params(func: Any) -> set[str]:
    return set(inspect.signature(func).parameters)


def problems() -> list[str]:
    """Each internal of `INTERNALS` that is missing or changed shape in the installed
    discord.py, named; empty when all are as the bot expects."""
    out: list[str] = []

    def need(ok: bool, name: str, how: str) -> None:
        if not ok:
            out.append(f"discord.py {discord.__version__}: {name} {how} ({INTERNALS[name]})")

    client = discord.Client(intents=discord.Intents.default())
    state = connection(client)
    need(state is not None, "Client._connection", "is gone")
    need(isinstance(getattr(client, "_listeners", None), dict), "Client._listeners",
         "is no dict")
    table = parsers(client)
    need(
        table is not None
        and {"MESSAGE_UPDATE", "INTERACTION_CREATE"} <= table.keys()
        and all(len(_params(table[e])) == 1 for e in ("MESSAGE_UPDATE", "INTERACTION_CREATE")),
        "ConnectionState.parsers",
        "is no dict of one-argument parsers with MESSAGE_UPDATE and INTERACTION_CREATE",
    )
    need(view_store(client) is not None, "ConnectionState._view_store._views / ._dynamic_items",
         "are no dicts")
    http = getattr(state, "http", None)
    need(
        all(hasattr(http, a) for a in ("proxy", "proxy_auth"))
        and hasattr(state, "allowed_mentions"),
        "ConnectionState.http.proxy / .proxy_auth, ConnectionState.allowed_mentions",
        "are missing",
    )
    try:
        from discord.http import Route as route_class
        from discord.webhook import async_ as webhooks
    except ImportError as exc:
        out.append(f"discord.py {discord.__version__}: cannot import {exc.name}")
        return out
    route = route_class("POST", "/interactions/{webhook_id}/{webhook_token}/callback",
                        webhook_id=1, webhook_token="t")
    need(route.method == "POST" and route.url.endswith("/interactions/1/t/callback"),
         "discord.http.Route", "no longer builds the callback's URL")
    base = getattr(route_class, "BASE", None)
    need(isinstance(base, str) and route.url == base + "/interactions/1/t/callback",
         "discord.http.Route.BASE", "is no longer where a route's URL starts")
    context = getattr(webhooks, "async_context", None)
    adapter = context.get() if isinstance(context, contextvars.ContextVar) else None
    need(
        adapter is not None
        and {"route", "session", "payload", "multipart", "files", "proxy", "proxy_auth"}
        <= _params(adapter.request),
        "discord.webhook.async_.async_context",
        "holds no adapter whose request() takes these arguments",
    )
    build = getattr(webhooks, "interaction_message_response_params", None)
    need(
        build is not None
        and {"type", "content", "embed", "view", "attachments", "previous_allowed_mentions"}
        <= _params(build),
        "discord.webhook.async_.interaction_message_response_params",
        "is gone or takes other arguments",
    )
    if build is not None:
        built = build(type=7, content="x")
        need(all(hasattr(built, a) for a in ("payload", "files", "multipart")),
             "discord.webhook.async_.interaction_message_response_params",
             "returns no payload, files and multipart")
    slots = set(getattr(discord.Interaction, "__slots__", ()))
    need({"_state", "_session"} <= slots, "Interaction._state / ._session", "are no slots")
    need("_response_type" in getattr(discord.InteractionResponse, "__slots__", ()),
         "InteractionResponse._response_type", "is no slot")
    cached = discord.Interaction.__dict__.get("response")
    need("_cs_response" in slots and getattr(cached, "name", None) == "_cs_response",
         "Interaction._cs_response", "no longer caches interaction.response")
    need(state is not None and keeps_interaction_data(client), "Interaction.data",
         "is no longer the payload's own dict")
    need(
        frames_readable(),
        "DiscordWebSocket.received_message / ._decompressor / ._discord_parsers / "
        "._dispatch_listeners / ._dispatch / ._keep_alive / .sequence / .log_receive",
        "changed",
    )
    from_state = getattr(discord.Webhook, "from_state", None)
    need(from_state is not None and {"data", "state"} <= _params(from_state),
         "Webhook.from_state", "is gone or takes other arguments")
    return out
