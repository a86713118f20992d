"""Interaction callbacks and follow-ups sent over the bot's own lean HTTP/1.1 connections.

Every click is answered by one POST /interactions/{id}/{token}/callback (bot/respond.py),
and a turn's end posts the next table as the interaction's follow-up, one POST
/webhooks/{application id}/{token}. discord.py sends them through aiohttp, whose request,
URL, header and timeout objects cost about a sixth of a click's CPU (docs/performance.md,
"Per click"). This module sends the same
request (method, path, headers, JSON body) over keep-alive connections to discord.py's API
base (`Route.BASE`: https, or http for a fake Discord), reads the answer with httptools (the
llhttp parser of Node.js and uvicorn), and answers as discord.py's webhook adapter does:
a 2xx returns its body; a 429 (through Discord's proxy, `Via`) waits `retry_after` and a 5xx
waits 1, 3, 5... seconds, five tries in all; 403, 404 and the rest raise discord.Forbidden,
NotFound and HTTPException with Discord's error code and text. Like the adapter, the
follow-ups of one interaction go one at a time, and one whose answer says the webhook's rate
limit bucket ran out returns only once it is full again. (A callback's bucket is its own
interaction's, which gets no second callback, so there is nothing to delay.)

Connections: a request takes the newest idle one, or opens a new one when none is idle,
up to `MAX_CONNECTIONS` open (256): beyond, it waits for the next one released, first come
first served (aiohttp's capped pool hands a released connection to a new request before a
waiting one, which can starve under load: docs/performance.md, "Bursts"). A burst of a
thousand answers opened a thousand connections, each a TLS handshake against Discord. A
connection goes back to the idle ones (or to the first waiter) after a whole answer the
server keeps alive; one idle longer than aiohttp's keep-alive (15 s) is closed. When the
server closes a reused connection before answering anything (it closed it while idle, as
servers do), the request is sent again on a new one. All are closed when the bot closes
(`close`)."""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
import weakref
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote, urlsplit

import discord
import httptools
import orjson
from aiohttp.http import SERVER_SOFTWARE
from multidict import CIMultiDict, CIMultiDictProxy

from bot import discord_internals as internals

log = logging.getLogger(__name__)

#: Seconds to open a connection and to get a whole answer: aiohttp's defaults, which
#: discord.py's webhook adapter runs with.
CONNECT_TIMEOUT = 30.0
ANSWER_TIMEOUT = 300.0
#: Seconds a connection may stay idle before it is closed rather than reused (aiohttp's).
KEEPALIVE = 15.0
#: Connections open at once (per client); a request that finds none idle and this many open
#: waits for the next one released, first come first served.
MAX_CONNECTIONS = 256
TRIES = 5
_pause = asyncio.sleep  # between tries (a test records the pauses instead)

#: The User-Agent aiohttp sends on discord.py's webhook requests, which set none of their own.
USER_AGENT = SERVER_SOFTWARE


class ServerDisconnected(ConnectionError):
    """The server closed the connection before its answer was whole."""


class Reply:
    """An answer: what discord.HTTPException reads from a response (status, reason), its
    headers and its body."""

    __slots__ = ("body", "raw_headers", "reason", "status")

    def __init__(self, status: int, reason: str, raw_headers: list[tuple[str, str]], body: bytes):
        self.status = status
        self.reason = reason
        self.raw_headers = raw_headers
        self.body = body

    @property
    def headers(self) -> CIMultiDictProxy[str]:
        """The headers, names in any case (as aiohttp's response has them)."""
        return CIMultiDictProxy(CIMultiDict(self.raw_headers))

    def data(self) -> Any:
        """The body as discord.py's `json_or_text` reads it: JSON when it says so, else text."""
        text = self.body.decode("utf-8")
        for name, value in self.raw_headers:
            if name.lower() == "content-type":
                return orjson.loads(text) if value == "application/json" else text
        return text


class _Connection(asyncio.Protocol):
    """One HTTP/1.1 connection: sends a request, parses its answer (httptools calls the
    on_* methods), then waits idle for the next."""

    def __init__(self, idle: deque[_Connection], lost: Callable[[_Connection], None]) -> None:
        self._idle = idle  # the idle connections of its origin, which it leaves when closed
        self._lost = lost  # tells its client it is gone
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.idle_since = 0.0
        #: The answer's parser; None once the connection is lost (the parser holds this
        #: connection's methods: kept, the pair would be garbage only a collection frees).
        self._parser: httptools.HttpResponseParser | None = httptools.HttpResponseParser(self)
        self._waiter: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._start()

    def _start(self) -> None:
        self.received = False  # any byte of the answer
        self.complete = False
        self._status = 0
        self._reason = b""
        self._headers: list[tuple[str, str]] = []
        self._body: list[bytes] = []
        self._until_close = False  # a body without length or chunks ends with the connection
        self._keep_alive = False

    # --- asyncio
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # a stream transport

    def data_received(self, data: bytes) -> None:
        if self._waiter is None:  # nothing asked: the server is off script
            self.close()
            return
        self.received = True
        assert self._parser is not None  # (no data comes once the connection is lost)
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(ServerDisconnected(f"unreadable answer: {exc}"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._lost(self)
        if self in self._idle:
            self._idle.remove(self)
        if self._waiter is not None and not self._waiter.done():
            if self._until_close and not self.complete:
                self.on_message_complete()
            elif not self.received:
                self._fail(_NothingRead())
            else:
                self._fail(ServerDisconnected("the server closed the connection mid-answer"))
        self._parser = None

    # --- httptools
    def on_status(self, reason: bytes) -> None:
        self._reason += reason

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name.decode("latin-1"), value.decode("latin-1")))

    def on_headers_complete(self) -> None:
        assert self._parser is not None  # (it is the parser calling)
        self._keep_alive = self._parser.should_keep_alive()  # (no longer known once complete)
        self._status = status = self._parser.get_status_code()
        if status >= 200 and status not in (204, 304):
            names = {name.lower() for name, _ in self._headers}
            self._until_close = not names & {"content-length", "transfer-encoding"}

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        if self._status < 200:  # an interim answer (100 Continue): wait on
            self._start()
            return
        self.complete = True
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    # --- the bot's side
    async def exchange(self, request: bytes) -> Reply:
        """Send a request and wait for its whole answer."""
        assert self.transport is not None
        loop = asyncio.get_running_loop()
        self._start()
        self._waiter = waiter = loop.create_future()
        self._timer = loop.call_later(ANSWER_TIMEOUT, self._time_out)
        try:
            self.transport.write(request)
            await waiter
        except BaseException:  # cancelled, timed out, cut: what comes next is no answer
            self.close()
            raise
        finally:
            self._timer.cancel()
            self._waiter = self._timer = None
        if self._until_close or not self._keep_alive:
            self.close()
        return Reply(
            self._status,
            self._reason.decode("latin-1"),
            self._headers,
            b"".join(self._body),
        )

    def _time_out(self) -> None:
        self._fail(TimeoutError(f"no whole answer within {ANSWER_TIMEOUT:g} s"))
        self.close()

    def _fail(self, exc: BaseException) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(exc)

    def closing(self) -> bool:
        """Closed, or on its way (the server hung up; connection_lost comes next)."""
        return self.closed or self.transport is None or self.transport.is_closing()

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


def _emptied(reply: Reply) -> float | None:
    """Seconds until the rate limit bucket is full again when the answer says none is left
    (from X-RateLimit-Reset-After, else X-RateLimit-Reset, as discord.py reads them)."""
    remaining = reset_after = reset = None
    for name, value in reply.raw_headers:
        lowered = name.lower()
        if lowered == "x-ratelimit-remaining":
            remaining = value
        elif lowered == "x-ratelimit-reset-after":
            reset_after = value
        elif lowered == "x-ratelimit-reset":
            reset = value
    if remaining != "0":
        return None
    if reset_after:
        return float(reset_after)
    if reset is not None:
        return float(reset) - time.time()
    return None  # (discord.py would fail on the missing header: nothing to wait for here)


class _NothingRead(ConnectionError):
    """The server closed the connection before any byte of its answer."""


def tls_context() -> ssl.SSLContext:
    """TLS as aiohttp does it by default: the system's trusted certificates, names checked."""
    return ssl.create_default_context()


class _Origin:
    """Where requests go: scheme, host and port of an API base, its path, and the idle
    connections to it."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base!r}")
        self.base = base
        self.host = parts.hostname
        self.tls = tls_context() if parts.scheme == "https" else None
        default = 443 if self.tls else 80
        self.port = parts.port or default
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.host_header = host if self.port == default else f"{host}:{self.port}"
        self.path = parts.path.rstrip("/")
        self.idle: deque[_Connection] = deque()


class CallbackHTTP:
    """The connections of one client (one per bot), by API base."""

    def __init__(self) -> None:
        self._origin: _Origin | None = None
        self._open: set[_Connection] = set()
        self._opening = 0  # connections being opened (or a slot promised to a waiter)
        #: The requests waiting for a connection, first come first served: each is handed a
        #: released connection, or None for a free slot (open one).
        self._waiting: deque[asyncio.Future[_Connection | None]] = deque()
        #: One lock per interaction webhook (application id, token), while it is in use.
        self._locks: weakref.WeakValueDictionary[object, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    def _origin_of(self, base: str) -> _Origin:
        if self._origin is None or self._origin.base != base:  # tests point it elsewhere
            if self._origin is not None:
                for connection in self._origin.idle:
                    connection.close()
            self._origin = _Origin(base)
        return self._origin

    def callback(
        self, interaction_id: int, token: str, payload: Any, *, with_response: bool = False
    ) -> Awaitable[Any]:
        """POST an interaction callback's payload, as discord.py's webhook adapter does (same
        tries, same errors); the answer's body (with `with_response`, the callback's
        resource: a new message's id). (The request's own coroutine: a click's answer goes
        through no further one.)"""
        path = f"/interactions/{interaction_id}/{quote(token, safe='')}/callback"
        if with_response:
            path += "?with_response=1"
        return self._post(path, payload, "Interaction %s's callback", interaction_id, None)

    async def follow_up(self, application_id: int, token: str, payload: Any) -> Any:
        """POST a follow-up message of an interaction (its webhook's execute, `wait` and
        `with_components` on) as discord.py's `Webhook.send(view=..., wait=True)` does; the
        answer's body (the message). Follow-ups of one interaction go one at a time, and one
        that empties the webhook's rate limit bucket (X-RateLimit-Remaining: 0) returns
        only once the bucket is full again, as discord.py's adapter does it."""
        path = f"/webhooks/{application_id}/{quote(token, safe='')}?wait=1&with_components=1"
        bucket = (application_id, token)
        try:
            lock = self._locks[bucket]
        except KeyError:
            self._locks[bucket] = lock = asyncio.Lock()
        async with lock:
            emptied: list[float] = []  # each answer's wait for its bucket, if any
            try:
                return await self._post(path, payload, "Webhook ID %s", application_id, emptied)
            finally:
                if emptied:
                    log.debug("Webhook ID %s emptied its rate limit bucket (retry: %s).",
                              application_id, emptied[-1])  # fmt: skip
                    if emptied[-1] > 0:
                        await _pause(emptied[-1])

    async def _post(
        self, path: str, payload: Any, what: str, whose: int, emptied: list[float] | None
    ) -> Any:
        """POST `payload` as JSON to `path` under the API base, tried and answered as
        discord.py's webhook adapter does (`what % whose` names it in the log); into
        `emptied` goes the wait of each answer saying its rate limit bucket is empty."""
        base = internals.api_base()
        if base is None:
            raise RuntimeError("discord.py's API base moved (bot/discord_internals.py)")
        origin = self._origin_of(base)
        body = orjson.dumps(payload)
        request = (
            f"POST {origin.path}{path} HTTP/1.1\r\nHost: {origin.host_header}\r\n"
            f"Content-Type: application/json\r\nAccept: */*\r\nUser-Agent: {USER_AGENT}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode("latin-1") + body
        reply: Reply | None = None
        data: Any = None
        for attempt in range(TRIES):
            try:
                reply = await self._send(origin, request)
            except OSError as exc:  # discord.py tries again after a reset (BSD, Windows errnos)
                if attempt < TRIES - 1 and exc.errno in (54, 10054):
                    await _pause(1 + attempt * 2)
                    continue
                raise
            data = reply.data()
            status = reply.status
            log.debug(what + " answered %s", whose, status)
            if emptied is not None and status != 429:
                wait = _emptied(reply)
                if wait is not None:
                    emptied.append(wait)
            if 200 <= status < 300:
                return data
            if status == 429:
                if not reply.headers.get("Via"):  # not Discord's: Cloudflare's ban
                    raise discord.HTTPException(reply, data)
                retry_after: float = data["retry_after"]
                log.warning(what + " is rate limited. Retrying in %.2f seconds.", whose,
                            retry_after)  # fmt: skip
                await _pause(retry_after)
                continue
            if status >= 500:
                await _pause(1 + attempt * 2)
                continue
            if status == 403:
                raise discord.Forbidden(reply, data)
            if status == 404:
                raise discord.NotFound(reply, data)
            raise discord.HTTPException(reply, data)
        assert reply is not None
        if reply.status >= 500:
            raise discord.DiscordServerError(reply, data)
        raise discord.HTTPException(reply, data)

    async def _send(self, origin: _Origin, request: bytes) -> Reply:
        """One request on an idle connection, or a new one, or (with `MAX_CONNECTIONS` open)
        the next one released; once more on a new connection if a reused one was closed
        before it answered anything."""
        connection, reused = await self._connection(origin)
        if reused:
            try:
                reply = await connection.exchange(request)
            except _NothingRead:
                pass  # (its slot frees once it is lost: the new one may go over by one)
            else:
                self._release(origin, connection)
                return reply
            connection = await self._connect(origin)
        try:
            reply = await connection.exchange(request)
        except _NothingRead:
            raise ServerDisconnected("the server closed a new connection unanswered") from None
        self._release(origin, connection)
        return reply

    async def _connection(self, origin: _Origin) -> tuple[_Connection, bool]:
        """A connection for a request, and whether it was used before: an idle one, a new
        one while fewer than `MAX_CONNECTIONS` are open, else the next one released. (Each
        new one a TLS handshake against Discord: a burst of a thousand answers would open a
        thousand.)"""
        connection = self._idle_connection(origin)
        if connection is not None:
            return connection, True
        if len(self._open) + self._opening < MAX_CONNECTIONS and not self._waiting:
            return await self._connect(origin), False
        waiter: asyncio.Future[_Connection | None] = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        try:
            handed = await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # handed over, then cancelled
                self._pass_on(origin, waiter.result())
            raise
        if handed is None:  # a free slot, kept for this request (`_lost`)
            return await self._connect(origin, promised=True), False
        return handed, True

    def _pass_on(self, origin: _Origin, connection: _Connection | None) -> None:
        """What a cancelled waiter was handed goes to the next: a connection, or a slot."""
        if connection is not None:
            self._release(origin, connection)
            return
        self._opening -= 1
        self._free_slot()

    def _next_waiter(self) -> asyncio.Future[_Connection | None] | None:
        """The first request still waiting for a connection (None: none is), taken off the
        queue; a cancelled one is passed over."""
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                return waiter
        return None

    def _free_slot(self) -> None:
        """A connection is gone: the first waiter may open one in its place."""
        waiter = self._next_waiter()
        if waiter is not None:
            self._opening += 1  # (the slot is the waiter's: `_connect(promised=True)`)
            waiter.set_result(None)

    def _lost(self, connection: _Connection) -> None:
        if connection in self._open:
            self._open.discard(connection)
            self._free_slot()

    def _idle_connection(self, origin: _Origin) -> _Connection | None:
        idle = origin.idle
        while idle:
            connection = idle.pop()  # the newest: the others may go stale and be closed
            if asyncio.get_running_loop().time() - connection.idle_since > KEEPALIVE:
                for stale in [connection, *idle]:  # all idle longer than the newest
                    stale.close()
                idle.clear()
                return None
            if not connection.closing():
                return connection
        return None

    def _release(self, origin: _Origin, connection: _Connection) -> None:
        """A connection whose answer was read: to the first waiter, else among the idle."""
        if connection.closing():
            return  # (its slot frees once it is lost)
        waiter = self._next_waiter()
        if waiter is not None:
            waiter.set_result(connection)
            return
        now = asyncio.get_running_loop().time()
        connection.idle_since = now
        idle = origin.idle
        while idle and now - idle[0].idle_since > KEEPALIVE:  # the oldest first
            idle.popleft().close()
        idle.append(connection)

    async def _connect(self, origin: _Origin, *, promised: bool = False) -> _Connection:
        """A new connection (`promised`: in the slot a waiter was given)."""
        loop = asyncio.get_running_loop()
        if not promised:
            self._opening += 1
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                _, connection = await loop.create_connection(
                    lambda: _Connection(origin.idle, self._lost),
                    origin.host,
                    origin.port,
                    ssl=origin.tls,
                    server_hostname=origin.host if origin.tls else None,
                )
        except BaseException:
            self._opening -= 1
            self._free_slot()  # (the next waiter tries its own)
            raise
        self._opening -= 1
        self._open.add(connection)
        return connection

    def close(self) -> None:
        """Close every connection (an answer still on its way fails)."""
        for connection in list(self._open):
            connection.close()
        self._open.clear()
        while (waiter := self._next_waiter()) is not None:
            waiter.set_exception(ServerDisconnected("the client closed its connections"))
        self._origin = None


#: Each client's connections; None once the client closed them.
_clients: weakref.WeakKeyDictionary[discord.Client, CallbackHTTP | None] = (
    weakref.WeakKeyDictionary()
)


def of(client: discord.Client) -> CallbackHTTP | None:
    """The client's connections (made on first use); None once `close` closed them."""
    try:
        return _clients[client]
    except KeyError:
        _clients[client] = made = CallbackHTTP()
        return made


async def close(client: discord.Client) -> None:
    """Close the client's connections, for good: later callbacks go through discord.py."""
    connections = _clients.get(client)
    _clients[client] = None
    if connections is not None:
        connections.close()
        await asyncio.sleep(0)  # let the transports finish closing (connection_lost)
