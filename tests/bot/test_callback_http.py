"""The bot's own connections for interaction callbacks and follow-ups (bot/callback_http.py),
against a small scripted HTTP/1.1 server on 127.0.0.1: the request is the one discord.py's
webhook adapter sends, connections are kept alive and reused, and the answers (chunked, cut,
rate limited, failing) come out as discord.py's path gives them."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import aiohttp
import discord
import pytest
from discord.http import Route
from discord.webhook.async_ import async_context

from bot import callback_http, respond
from bot.callback_http import CallbackHTTP

CERTIFICATE = Path(__file__).with_name("tls_localhost.pem")  # for 127.0.0.1, self-signed
NO_CONTENT = b"HTTP/1.1 204 No Content\r\n\r\n"
CLOSE = None  # read the request, then close the connection without answering


def answer(status: str, body: bytes = b"", *headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status}", *headers]
    if not any(h.lower().startswith(("transfer-encoding", "content-length")) for h in headers):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def chunked(status: str, body: bytes, *headers: str) -> bytes:
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:7], body[7:]))
    return answer(status, chunks + b"0\r\n\r\n", "Transfer-Encoding: chunked", *headers)


@dataclass
class Request:
    connection: int  # the how-manieth connection it came on, from 1
    head: bytes
    body: bytes


@dataclass
class Server:
    """Answers each request with the next of `answers` (raw bytes; CLOSE: hangs up instead),
    and closes the connection after it when that answer is in `close_after`."""

    answers: list[bytes | None]
    close_after: set[int] = field(default_factory=set)
    requests: list[Request] = field(default_factory=list)
    connections: int = 0
    hung_up: asyncio.Event = field(default_factory=asyncio.Event)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    break
                found = re.search(rb"(?i)content-length: (\d+)", head)
                body = await reader.readexactly(int(found.group(1)) if found else 0)
                self.requests.append(Request(number, head, body))
                index = len(self.requests) - 1
                reply = self.answers[index]
                if reply is CLOSE:
                    break
                writer.write(reply)
                await writer.drain()
                if index in self.close_after:
                    break
        finally:
            writer.close()
            self.hung_up.set()


def parts(request: Request) -> tuple[str, dict[str, str], object]:
    """A request's line, headers and JSON body."""
    line, *lines = request.head.decode("latin-1").split("\r\n")
    headers = dict(h.split(": ", 1) for h in lines if h)
    return line, headers, json.loads(request.body)


@pytest.fixture
async def serve(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[object]:
    """serve(answers, close_after=...) starts a server and points discord.py's API at it."""
    servers: list[asyncio.Server] = []

    async def start(
        answers: list[bytes | None], close_after: set[int] | None = None, tls: bool = False
    ) -> Server:
        server = Server(answers, close_after or set())
        context = None
        if tls:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(CERTIFICATE)
        listening = await asyncio.start_server(server.handle, "127.0.0.1", 0, ssl=context)
        servers.append(listening)
        port = listening.sockets[0].getsockname()[1]
        scheme = "https" if tls else "http"
        monkeypatch.setattr(Route, "BASE", f"{scheme}://127.0.0.1:{port}/api/v10")
        return server

    yield start
    for listening in servers:
        listening.close()
        await listening.wait_closed()


@pytest.fixture
async def http(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[CallbackHTTP]:
    """The connections under test, with the pauses between tries recorded, not slept."""
    pauses: list[float] = []

    async def pause(seconds: float) -> None:
        pauses.append(seconds)

    monkeypatch.setattr(callback_http, "_pause", pause)
    connections = CallbackHTTP()
    connections.pauses = pauses  # type: ignore[attr-defined]  # for the test to read
    yield connections
    connections.close()
    await asyncio.sleep(0)


PAYLOAD = {"type": 7, "data": {"content": "Würfel ⚀", "components": []}}


async def test_several_callbacks_share_one_kept_alive_connection(serve, http) -> None:
    server = await serve([NO_CONTENT, NO_CONTENT, answer("200 OK", b"fine")])
    assert await http.callback(1, "a", PAYLOAD) == ""
    assert await http.callback(2, "b", PAYLOAD) == ""
    assert await http.callback(3, "c", PAYLOAD) == "fine"
    assert [r.connection for r in server.requests] == [1, 1, 1]
    assert server.connections == 1


async def test_https_checks_the_certificate_and_keeps_the_connection(
    serve, http, monkeypatch
) -> None:
    server = await serve([NO_CONTENT, NO_CONTENT], tls=True)
    with pytest.raises(ssl.SSLCertVerificationError):  # the system does not trust it
        await http.callback(1, "t", PAYLOAD)
    monkeypatch.setattr(
        callback_http, "tls_context", lambda: ssl.create_default_context(cafile=CERTIFICATE)
    )
    http.close()  # made afresh, with that context
    assert await http.callback(1, "t", PAYLOAD) == ""
    assert await http.callback(2, "t", PAYLOAD) == ""
    assert [r.connection for r in server.requests] == [1, 1]  # (the refused one got no further)


async def test_the_request_is_the_one_discord_py_sends(serve, http) -> None:
    """Same method, path (token quoted), headers and JSON body as discord.py's webhook
    adapter through aiohttp, but for Accept-Encoding: the answer comes uncompressed."""
    server = await serve([NO_CONTENT, NO_CONTENT])
    token = "aW50/ZXJ hY3Rpb24"
    await http.callback(123, token, PAYLOAD)
    session = aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar())
    try:
        route = Route("POST", "/interactions/{webhook_id}/{webhook_token}/callback",
                      webhook_id=123, webhook_token=token)
        await async_context.get().request(route, session, payload=PAYLOAD)
    finally:
        await session.close()

    ours, theirs = (parts(r) for r in server.requests)
    assert ours[0] == "POST /api/v10/interactions/123/aW50%2FZXJ%20hY3Rpb24/callback HTTP/1.1"
    del theirs[1]["Accept-Encoding"]
    assert ours == theirs
    assert ours[1]["Content-Type"] == "application/json"
    assert ours[1]["User-Agent"].startswith("Python/3.") and "aiohttp/" in ours[1]["User-Agent"]
    assert "Authorization" not in ours[1]
    assert ours[2] == PAYLOAD


async def test_a_command_answer_asks_for_its_message_as_discord_py_does(serve, http) -> None:
    """A new message answering a command (`with_response`) is the request discord.py's
    `send_message` sends (`create_interaction_response`: the callback with
    `?with_response=1`), and returns Discord's answer naming the message."""
    created = json.dumps({"interaction": {"id": "123", "type": 2, "response_message_id": "778"},
                          "resource": {"type": 4}}).encode()  # fmt: skip
    server = await serve([answer("200 OK", created, "Content-Type: application/json")] * 2)
    token = "aW50/ZXJ hY3Rpb24"
    back = await http.callback(123, token, PAYLOAD, with_response=True)
    assert back["interaction"]["response_message_id"] == "778"
    session = aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar())
    try:
        params = SimpleNamespace(files=None, payload=PAYLOAD)
        await async_context.get().create_interaction_response(
            123, token, session=session, params=params
        )
    finally:
        await session.close()
    ours, theirs = (parts(r) for r in server.requests)
    assert ours[0] == (
        "POST /api/v10/interactions/123/aW50%2FZXJ%20hY3Rpb24/callback?with_response=1 HTTP/1.1"
    )
    del theirs[1]["Accept-Encoding"]
    assert ours == theirs and list(ours[1]) == list(theirs[1])  # (headers in the same order)
    assert server.requests[0].body == server.requests[1].body


MESSAGE = json.dumps({"id": "777", "channel_id": "5", "type": 0, "content": "",
                      "author": {"id": "9", "username": "bot", "discriminator": "0",
                                 "avatar": None},
                      "attachments": [], "embeds": [], "mentions": [], "mention_roles": [],
                      "pinned": False, "mention_everyone": False, "tts": False, "flags": 0,
                      "timestamp": "2026-11-27T21:00:00+00:00", "edited_timestamp": None,
                      "components": []}).encode()
POSTED = answer("200 OK", MESSAGE, "Content-Type: application/json")
FOLLOW_UP = {"embeds": [{"title": "Farkle"}], "content": "<@2>: your turn to roll.",
             "components": [], "tts": False, "allowed_mentions": {"parse": [], "users": ["2"]}}


async def test_a_follow_up_is_the_request_discord_py_sends(serve, http) -> None:
    """POST /webhooks/{application}/{token}?wait=1&with_components=1, as Webhook.send with
    a view and wait=True sends it (through the adapter's execute_webhook): same headers
    (no Authorization: the token in the path is the authority), same body; the answer is
    the posted message."""
    server = await serve([POSTED, POSTED])
    token = "aW50/ZXJ hY3Rpb24"
    posted = await http.follow_up(9, token, FOLLOW_UP)
    assert posted["id"] == "777"
    session = aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar())
    try:
        await async_context.get().execute_webhook(
            9, token, session=session, payload=FOLLOW_UP, wait=True, with_components=True
        )
    finally:
        await session.close()

    ours, theirs = (parts(r) for r in server.requests)
    assert ours[0] == (
        "POST /api/v10/webhooks/9/aW50%2FZXJ%20hY3Rpb24?wait=1&with_components=1 HTTP/1.1"
    )
    del theirs[1]["Accept-Encoding"]
    assert ours == theirs
    assert "Authorization" not in ours[1] and ours[2] == FOLLOW_UP


async def test_post_table_returns_the_posted_message_id(serve, monkeypatch) -> None:
    """The bot's follow-up of a table goes over its own connections and reads the new
    message's id; a refused one raises what discord.py raises (Unknown Webhook: the
    interaction's token expired)."""
    unknown = json.dumps({"message": "Unknown Webhook", "code": 10015}).encode()
    server = await serve([POSTED, answer("404 Not Found", unknown, "Content-Type: application/json")])
    client = discord.Client(intents=discord.Intents.none())
    followup = discord.Webhook.from_state(
        data={"id": "9", "type": 3, "token": "tok"}, state=client._connection
    )
    table = {"content": "<@2>: your turn to roll.", "embed": discord.Embed(title="Farkle"),
             "items": [], "allowed_mentions": discord.AllowedMentions.none()}
    try:
        assert await respond.post_table(client, followup, **table) == 777
        [request] = server.requests
        assert request.head.startswith(b"POST /api/v10/webhooks/9/tok?wait=1&with_components=1 ")
        assert json.loads(request.body) == respond.follow_up_payload(
            table["content"], table["embed"], [], table["allowed_mentions"],
            client.allowed_mentions,
        )
        with pytest.raises(discord.NotFound) as caught:
            await respond.post_table(client, followup, **table)
        assert caught.value.code == 10015
        assert [r.connection for r in server.requests] == [1, 1]
    finally:
        await callback_http.close(client)


async def test_a_follow_up_emptying_its_bucket_waits_it_out_and_holds_the_next(
    serve, http, monkeypatch
) -> None:
    """An answer saying the webhook's rate limit bucket is empty: that follow-up returns
    only after the bucket's reset, and the interaction's next follow-up waits until then
    (discord.py's adapter does both); another interaction's does not."""
    server = await serve([
        answer("200 OK", MESSAGE, "Content-Type: application/json",
               "X-RateLimit-Remaining: 0", "X-RateLimit-Reset-After: 0.75"),
        POSTED,
        POSTED,
    ])  # fmt: skip
    released = asyncio.Event()
    paused: list[float] = []

    async def pause(seconds: float) -> None:
        paused.append(seconds)
        await released.wait()

    monkeypatch.setattr(callback_http, "_pause", pause)
    first = asyncio.create_task(http.follow_up(9, "a", FOLLOW_UP))
    while not paused:
        await asyncio.sleep(0)
    second = asyncio.create_task(http.follow_up(9, "a", FOLLOW_UP))
    assert (await http.follow_up(9, "b", FOLLOW_UP))["id"] == "777"  # not held
    assert paused == [0.75] and not first.done() and len(server.requests) == 2
    released.set()
    assert (await first)["id"] == (await second)["id"] == "777"
    assert len(server.requests) == 3


async def test_a_rate_limited_follow_up_waits_retry_after_and_is_sent_again(serve, http) -> None:
    limited = json.dumps({"message": "You are being rate limited.", "retry_after": 0.5,
                          "global": False}).encode()
    server = await serve([
        answer("429 Too Many Requests", limited, "Content-Type: application/json",
               "Via: 1.1 google", "X-RateLimit-Remaining: 0", "X-RateLimit-Reset-After: 0.5"),
        POSTED,
    ])  # fmt: skip
    assert (await http.follow_up(9, "t", FOLLOW_UP))["id"] == "777"
    assert http.pauses == [0.5]  # (the 429's own bucket headers add no second wait)
    assert len(server.requests) == 2


async def test_a_chunked_error_raises_not_found_with_discords_code(serve, http) -> None:
    body = json.dumps({"message": "Unknown interaction", "code": 10062}).encode()
    await serve([chunked("404 Not Found", body, "Content-Type: application/json")])
    with pytest.raises(discord.NotFound) as caught:
        await http.callback(1, "t", PAYLOAD)
    assert (caught.value.status, caught.value.code) == (404, 10062)
    assert caught.value.text == "Unknown interaction"
    assert str(caught.value) == "404 Not Found (error code: 10062): Unknown interaction"


async def test_forbidden_and_other_refusals_carry_status_code_and_text(serve, http) -> None:
    refusal = json.dumps({"message": "Missing Access", "code": 50001}).encode()
    invalid = json.dumps({"message": "Invalid Form Body", "code": 50035,
                          "errors": {"data": {"content": {"_errors": [
                              {"code": "BASE_TYPE_MAX_LENGTH", "message": "Too long"}]}}}})
    await serve([
        answer("403 Forbidden", refusal, "Content-Type: application/json"),
        answer("400 Bad Request", invalid.encode(), "Content-Type: application/json"),
        answer("400 Bad Request", b"not json", "Content-Type: text/plain"),
    ])
    with pytest.raises(discord.Forbidden) as forbidden:
        await http.callback(1, "t", PAYLOAD)
    assert (forbidden.value.status, forbidden.value.code) == (403, 50001)
    with pytest.raises(discord.HTTPException) as bad:
        await http.callback(2, "t", PAYLOAD)
    assert type(bad.value) is discord.HTTPException
    assert (bad.value.status, bad.value.code) == (400, 50035)
    assert bad.value.text == "Invalid Form Body\nIn data.content: Too long"
    with pytest.raises(discord.HTTPException) as plain:
        await http.callback(3, "t", PAYLOAD)
    assert (plain.value.status, plain.value.code, plain.value.text) == (400, 0, "not json")


async def test_rate_limited_waits_retry_after_then_answers(serve, http) -> None:
    limited = json.dumps({"message": "You are being rate limited.", "retry_after": 0.25,
                          "global": False}).encode()
    server = await serve([
        answer("429 Too Many Requests", limited, "Content-Type: application/json", "Via: 1.1 google"),
        NO_CONTENT,
    ])
    assert await http.callback(1, "t", PAYLOAD) == ""
    assert http.pauses == [0.25]
    assert len(server.requests) == 2 and server.connections == 1


async def test_a_429_not_from_discord_is_raised_at_once(serve, http) -> None:
    await serve([answer("429 Too Many Requests", b"banned", "Content-Type: text/plain")])
    with pytest.raises(discord.HTTPException) as caught:
        await http.callback(1, "t", PAYLOAD)
    assert caught.value.status == 429 and http.pauses == []


async def test_server_errors_are_tried_five_times_as_discord_py_does(serve, http) -> None:
    await serve([answer("502 Bad Gateway"), answer("500 Internal Server Error"), NO_CONTENT])
    assert await http.callback(1, "t", PAYLOAD) == ""
    assert http.pauses == [1, 3]

    await serve([answer("503 Service Unavailable", b"down")] * 5)
    with pytest.raises(discord.DiscordServerError) as caught:
        await http.callback(2, "t", PAYLOAD)
    assert caught.value.status == 503 and caught.value.text == "down"
    assert http.pauses == [1, 3, 1, 3, 5, 7, 9]


async def test_an_idle_connection_the_server_closed_is_not_reused(serve, http) -> None:
    server = await serve([NO_CONTENT, NO_CONTENT], close_after={0})
    await http.callback(1, "t", PAYLOAD)
    await server.hung_up.wait()
    assert await http.callback(2, "t", PAYLOAD) == ""
    assert [r.connection for r in server.requests] == [1, 2]


async def test_a_reused_connection_closed_unanswered_is_tried_again_on_a_new_one(serve, http) -> None:
    """The server hangs up on the second request (as when it closes an idle connection just
    as the request leaves): it goes again, once, on a new connection."""
    server = await serve([NO_CONTENT, CLOSE, NO_CONTENT])
    await http.callback(1, "t", PAYLOAD)
    assert await http.callback(2, "t", PAYLOAD) == ""
    assert [r.connection for r in server.requests] == [1, 1, 2]


async def test_a_new_connection_closed_unanswered_fails(serve, http) -> None:
    server = await serve([CLOSE, NO_CONTENT])
    with pytest.raises(callback_http.ServerDisconnected):
        await http.callback(1, "t", PAYLOAD)
    assert len(server.requests) == 1


async def test_an_answer_cut_midway_fails_without_trying_again(serve, http) -> None:
    cut = b'HTTP/1.1 404 Not Found\r\nContent-Length: 50\r\n\r\n{"mess'
    server = await serve([cut, NO_CONTENT], close_after={0})
    with pytest.raises(callback_http.ServerDisconnected):
        await http.callback(1, "t", PAYLOAD)
    assert len(server.requests) == 1


async def test_connection_close_and_a_body_to_the_end_of_the_connection(serve, http) -> None:
    server = await serve([
        answer("204 No Content", b"", "Connection: close"),
        b"HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n\r\n"
        b'{"message": "Missing Permissions", "code": 50013}',
    ], close_after={1})
    await http.callback(1, "t", PAYLOAD)
    with pytest.raises(discord.Forbidden) as caught:
        await http.callback(2, "t", PAYLOAD)
    assert caught.value.code == 50013
    assert [r.connection for r in server.requests] == [1, 2]


async def test_no_answer_in_time_fails_with_a_timeout(serve, http, monkeypatch) -> None:
    never = asyncio.Event()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await never.wait()
        writer.close()

    listening = await asyncio.start_server(silent, "127.0.0.1", 0)
    monkeypatch.setattr(Route, "BASE", f"http://127.0.0.1:{listening.sockets[0].getsockname()[1]}")
    monkeypatch.setattr(callback_http, "ANSWER_TIMEOUT", 0.05)
    try:
        with pytest.raises(TimeoutError):
            await http.callback(1, "t", PAYLOAD)
    finally:
        never.set()
        listening.close()
        await listening.wait_closed()


async def test_closing_the_client_closes_its_connections_for_good(serve) -> None:
    server = await serve([NO_CONTENT])
    client = discord.Client(intents=discord.Intents.none())
    connections = callback_http.of(client)
    assert connections is not None and callback_http.of(client) is connections
    await connections.callback(1, "t", PAYLOAD)
    await callback_http.close(client)
    await server.hung_up.wait()  # the server saw the connection end
    assert callback_http.of(client) is None


async def test_at_the_cap_requests_wait_for_the_next_connection_first_come_first_served(
    serve, http, monkeypatch
) -> None:
    """With MAX_CONNECTIONS open, a request waits for a connection to be released rather
    than opening another (each one a TLS handshake against Discord), and the waiting ones
    are served in the order they came: none waits behind a later one."""
    monkeypatch.setattr(callback_http, "MAX_CONNECTIONS", 2)
    server = await serve([NO_CONTENT] * 7)
    answered: list[int] = []

    async def one(n: int) -> None:
        await http.callback(n, "t", PAYLOAD)
        answered.append(n)

    await asyncio.gather(*(one(n) for n in range(7)))
    assert server.connections == 2 and len(server.requests) == 7
    order = [int(r.head.split(b"/")[4]) for r in server.requests]
    assert order == list(range(7)) and sorted(answered) == list(range(7))


async def test_a_waiter_gets_a_lost_connections_slot_and_a_cancelled_one_passes_it_on(
    serve, http, monkeypatch
) -> None:
    """A connection the server closed frees its slot for the first waiter, which opens a new
    one; a waiter cancelled after being handed a connection hands it to the next."""
    monkeypatch.setattr(callback_http, "MAX_CONNECTIONS", 1)
    server = await serve([NO_CONTENT] * 4, close_after={0})
    first = asyncio.create_task(http.callback(1, "t", PAYLOAD))  # its connection then closes
    second = asyncio.create_task(http.callback(2, "t", PAYLOAD))
    third = asyncio.create_task(http.callback(3, "t", PAYLOAD))
    await asyncio.sleep(0)
    assert len(http._waiting) == 2
    await first
    second.cancel()  # handed the slot the closed connection left, and cancelled
    await asyncio.wait_for(third, 5)
    assert second.cancelled() and [r.connection for r in server.requests] == [1, 2]
    await http.callback(4, "t", PAYLOAD)  # the second connection, kept alive
    assert [r.connection for r in server.requests] == [1, 2, 2]
    assert http._opening == 0 and len(http._open) == 1 and not http._waiting


async def test_a_closed_connection_is_freed_without_the_garbage_collector(serve, http) -> None:
    """A connection closed (by the bot, or idle too long) leaves no cycle behind: after a
    burst a thousand of them close at once, and each would leave its parser, transport and
    socket to a collection of the oldest generation."""
    import gc
    import weakref

    await serve([NO_CONTENT])
    await http.callback(1, "t", PAYLOAD)
    [connection] = http._origin.idle if http._origin else []
    gone = weakref.ref(connection)
    del connection
    gc.collect()
    gc.disable()  # (only reference counting from here)
    try:
        http.close()
        for _ in range(3):
            await asyncio.sleep(0)  # the transport's close, then connection_lost
        assert gone() is None
    finally:
        gc.enable()


def test_through_a_proxy_or_when_the_api_base_moved_callbacks_go_through_discord_py(caplog, monkeypatch) -> None:
    monkeypatch.setattr(respond, "_warned_lean", False)
    client = discord.Client(intents=discord.Intents.none())
    proxied = SimpleNamespace(http=SimpleNamespace(proxy="http://proxy:3128"))
    with caplog.at_level(logging.WARNING, logger="bot.respond"):
        assert respond._lean(client, proxied) is None
        assert respond._lean(client, proxied) is None
    (warned,) = [r for r in caplog.records if r.name == "bot.respond"]
    assert "proxy" in warned.getMessage()
    direct = SimpleNamespace(http=SimpleNamespace(proxy=None))
    assert isinstance(respond._lean(client, direct), CallbackHTTP)
    monkeypatch.setattr(Route, "BASE", None)  # moved: discord.py's path, which knows its way
    assert respond._lean(client, direct) is None
