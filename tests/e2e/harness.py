"""Drive the real bot like players do: start `GameBot` against `FakeDiscord`, type slash
commands, click buttons, and read what each user can see.

    async with running_bot(tmp_path / "e2e.sqlite3", seed=3) as d:
        await d.slash(ALICE, TABLE, "farkle start", rules="classic", target=5000)
        await d.click(BOB, TABLE, label="Join")
        d.table(TABLE).text()

Every dispatch waits until the bot answered (the interaction callback) and then until the
bot's handler finished (its follow-up edits included), and fails at once, with the details,
if the bot sent anything Discord would refuse.

Chatter and the channel as people see it: `await d.say(BOB, TABLE, "gg")` posts a user's
message (a MESSAGE_CREATE to a bot that asked for GUILD_MESSAGES); `d.channel_messages(TABLE)`,
`d.last_message(TABLE)`, `d.messages_with_buttons(TABLE)`; `d.notifications(BOB)` lists the
new messages that pinged Bob; `d.fake.advance_clock(3600)` ages every message an hour and
`d.fake.edits` records each edit (its age, and whether Discord refused it: 30046).

The table follows the conversation: a move may edit the table message in place or post the
table afresh below (mentioning whoever the game now waits on) and reduce the old message to
a summary without buttons. `d.table(TABLE)` is always the live one; `d.on_table(rec,
clicked)` checks how a press on the table was answered and returns the live table;
`d.notified(message)` is whom a new message notified.

Also: `d.prepare_click(...)` / `d.prepare_slash(...)` + `d.dispatch_all([...])` send
presses and commands at once (`d.fake.holds` can hold one of their requests back);
`d.crash()` kills the in-process bot without any shutdown; `bot_process(...)` runs the bot
in a child process (`d.kill()` is SIGKILL); `read_session` / `read_finished` read the database file; and
`late_answers(fake)` lists interactions not answered within Discord's 3 s."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import signal
import sqlite3
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

import bot as bot_package
from bot.app import GameBot
from bot.config import BotConfig
from bot.settings import GuildSettings
from bot.store.packed import unpack_text
from tests.e2e.fake_discord import (
    APPLICATION_COMMAND,
    MESSAGE_COMPONENT,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    InteractionRecord,
)

GUILD = 1_100_000_000_000_000_100
TABLE = 1_100_000_000_000_000_200  # the channel games are played in
LOUNGE = 1_100_000_000_000_000_201  # another channel of the same server

ALICE = FakeUser(1_100_000_000_000_001_001, "Alice")
BOB = FakeUser(1_100_000_000_000_001_002, "Bob")
CAROL = FakeUser(1_100_000_000_000_001_003, "Carol")
DAVE = FakeUser(1_100_000_000_000_001_004, "Dave")
MALLORY = FakeUser(1_100_000_000_000_001_066, "Mallory")
ADMIN = FakeUser(1_100_000_000_000_001_099, "Admin", manage_server=True)

ACK_LIMIT = 3.0  # Discord's contract, not a benchmark: a later answer is refused.
#: How long a wait for the bot lasts before it is called a hang: not a speed limit (a move
#: takes milliseconds), so that a machine busy with other work never fails a test; a wait
#: that never ends is reported with what it waited for.
HANG = 60.0
ROOT = Path(__file__).resolve().parents[2]

# Bots killed by `Driver.crash()`: left as a crash leaves them (no close()), buried at the
# end of the test (their SQLite thread would otherwise keep the interpreter from exiting).
CORPSES: list[GameBot] = []

# Tasks discord.py starts to run a command or a component click (discord.py 2.7).
_HANDLER_TASKS = ("CommandTree-invoker", "discord-ui-", "discord.py: on_interaction")
_NOT_HANDLERS = ("discord-ui-view-timeout-",)
# Tasks running the listeners of message events (on_message, on_raw_message_delete, ...).
_MESSAGE_EVENT_TASKS = ("discord.py: on_message", "discord.py: on_raw_message")


class ClientRefused(Exception):
    """What a real Discord client would not let the user do (unknown option, disabled button)."""


def _handler_tasks() -> list[asyncio.Task[Any]]:
    out = []
    for task in asyncio.all_tasks():
        name = task.get_name()
        handler = name.startswith(_HANDLER_TASKS) and not name.startswith(_NOT_HANDLERS)
        if handler and not task.done():
            out.append(task)
    return out


def _event_tasks() -> list[asyncio.Task[Any]]:
    return [
        t
        for t in asyncio.all_tasks()
        if t.get_name().startswith(_MESSAGE_EVENT_TASKS) and not t.done()
    ]


def _tasks_of(bot: GameBot) -> list[asyncio.Task[Any]]:
    """The bot's own background tasks (the store's deferred writes and group commits, its
    checkpoints, reposts, catch-up, emoji upload): a killed process runs none of them on.
    Found by where their coroutine is written (the bot's package, not a test's) and what it
    works on, so another bot of the same test is spared."""
    store = getattr(bot, "store", None)
    owners = [
        o for o in (bot, store, getattr(store, "db", None), bot.tables, bot.timers) if o is not None
    ]
    package = str(Path(bot_package.__file__).parent)
    out = []
    for task in asyncio.all_tasks():
        frame = getattr(task.get_coro(), "cr_frame", None)
        if task.done() or frame is None or not frame.f_code.co_filename.startswith(package):
            continue
        if any(value is owner for value in frame.f_locals.values() for owner in owners):
            out.append(task)
    return out


class _LogCapture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        # The bot's warnings and anyone's errors: each means something went wrong.
        if record.levelno >= logging.ERROR or record.name.startswith("bot"):
            self.records.append(record)


def _coerce(command: str, opt: dict[str, Any], value: Any) -> Any:
    """An option value as the Discord client sends it, refused where the client refuses."""
    kind, name = opt["type"], opt["name"]
    choices = opt.get("choices") or []
    if choices:
        for ch in choices:
            if value in (ch["value"], ch["name"]):
                return ch["value"]
        raise ClientRefused(
            f"/{command} {name}: {value!r} is not one of {[c['value'] for c in choices]}"
        )
    if kind == 3:
        if not isinstance(value, str):
            raise ClientRefused(f"/{command} {name} takes text")
        if not opt.get("min_length", 0) <= len(value) <= opt.get("max_length", 6000):
            raise ClientRefused(f"/{command} {name}: length out of range")
        return value
    if kind in (4, 10):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ClientRefused(f"/{command} {name} takes a number")
        if kind == 4 and not float(value).is_integer():
            raise ClientRefused(f"/{command} {name} takes a whole number")
        lo, hi = opt.get("min_value"), opt.get("max_value")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ClientRefused(f"/{command} {name}: {value} is outside {lo}..{hi}")
        return int(value) if kind == 4 else float(value)
    if kind == 5:
        if not isinstance(value, bool):
            raise ClientRefused(f"/{command} {name} takes true or false")
        return value
    if kind == 6:  # a user: the client sends the id, Discord adds the member under "resolved"
        if not isinstance(value, FakeUser):
            raise ClientRefused(f"/{command} {name} takes a user (a FakeUser)")
        return str(value.id)
    raise ClientRefused(f"/{command} {name}: option type {kind} is not supported by the harness")


@dataclass
class Driver:
    """The test's hands and eyes. All channel arguments are channel ids.

    `bot` is the in-process GameBot, or None when the bot runs in a child process
    (`bot_process`); then `process` is that child and `log_file` its log."""

    fake: FakeDiscord
    bot: GameBot | None
    guild_id: int = GUILD
    timeout: float = HANG
    logs: _LogCapture = field(default_factory=_LogCapture)
    connect_task: asyncio.Task[None] | None = None
    process: asyncio.subprocess.Process | None = None
    log_file: Path | None = None
    database: Path | None = None
    crashed: bool = False
    clock_file: Path | None = None  # a child process's clock: seconds ahead (skip_ahead)
    clock_ahead: float = 0.0

    # ------------------------------------------------------------------ typing

    async def slash(
        self, user: FakeUser, channel: int, command: str, **options: Any
    ) -> InteractionRecord:
        """Run "/group sub opt:value" as `user`: `await d.slash(ALICE, TABLE, "farkle start",
        rules="classic", target=5000)`. Options are checked like the Discord client does
        (known names, required ones, choices, ranges); a choice may be given by value or name,
        a user option as a FakeUser (sent with its member under "resolved", as Discord does).
        Any place works (a DM, a group DM, a server without the bot: `fake.add_dm` and co.);
        where the command's contexts / integration_types forbid it, the fake raises
        CannotInvoke, as the client offers no such command there."""
        return await self._run(self.prepare_slash(user, channel, command, **options))

    def prepare_slash(
        self, user: FakeUser, channel: int, command: str, **options: Any
    ) -> InteractionRecord:
        """The command `slash` would send, built but not sent (for `dispatch_all`)."""
        data = self._command_data(command, options, self.fake.channels[channel].guild_id)
        return self.fake.interaction_payload(APPLICATION_COMMAND, user, channel, data)

    def _command_data(
        self, command: str, options: dict[str, Any], guild_id: int | None = None
    ) -> dict[str, Any]:
        top_name, *path = command.split()
        for scope in (guild_id or self.guild_id, None):
            top = next(
                (
                    c
                    for c in self.fake.commands.get(scope, [])
                    if c["name"] == top_name and c["type"] == 1
                ),
                None,
            )
            if top is not None:
                break
        else:
            raise ClientRefused(f"/{top_name} is not a registered command")
        data: dict[str, Any] = {"id": top["id"], "name": top["name"], "type": 1}
        if "guild_id" in top:
            data["guild_id"] = top["guild_id"]
        node, spec = data, top.get("options") or []
        for part in path:
            sub = next((o for o in spec if o["name"] == part and o["type"] in (1, 2)), None)
            if sub is None:
                raise ClientRefused(f"/{command}: no subcommand {part!r}")
            child: dict[str, Any] = {"type": sub["type"], "name": part}
            node["options"] = [child]
            node, spec = child, sub.get("options") or []
        if any(o["type"] in (1, 2) for o in spec):
            names = [o["name"] for o in spec]
            raise ClientRefused(f"/{command} needs a subcommand: {names}")
        given = []
        for name, value in options.items():
            opt = next((o for o in spec if o["name"] == name), None)
            if opt is None:
                raise ClientRefused(f"/{command} has no option {name!r}")
            if value is None:
                continue
            given.append({"type": opt["type"], "name": name, "value": _coerce(command, opt, value)})
            if opt["type"] == 6:
                resolved = data.setdefault("resolved", {"users": {}, "members": {}})
                member = value.member_payload()
                for key in ("user", "deaf", "mute"):  # a resolved member is partial
                    member.pop(key)
                resolved["users"][str(value.id)] = value.payload()
                resolved["members"][str(value.id)] = member
        missing = [o["name"] for o in spec if o.get("required") and options.get(o["name"]) is None]
        if missing:
            raise ClientRefused(f"/{command} needs {missing}")
        node["options"] = given
        return data

    # ------------------------------------------------------------------ chatting

    async def say(self, user: FakeUser, channel: int, text: str) -> FakeMessage:
        """`user` posts `text` in the channel. A bot that asked for GUILD_MESSAGES gets it as a
        MESSAGE_CREATE (its content only with MESSAGE_CONTENT); this returns once the bot has
        read it and finished what it did about it, and fails on anything Discord would
        refuse."""
        before = len(self.fake.violations)
        msg = await self.fake.say(user, channel, text)
        await self.settle()
        new = self.fake.violations[before:]
        if new:
            lines = [f"{user.name} said {text!r}: the bot sent something it must not"]
            lines += [f"  violation: {v}" for v in new]
            raise AssertionError("\n".join(lines))
        return msg

    # ------------------------------------------------------------------ clicking

    async def click(
        self,
        user: FakeUser,
        channel: int,
        *,
        label: str | None = None,
        custom_id: str | None = None,
        message: FakeMessage | None = None,
        allow_disabled: bool = False,
    ) -> InteractionRecord:
        """Press a button `user` can see: by `label` (exact, else the first prefix match) or
        `custom_id`, on `message` or else on the latest visible message that has it.
        (Discord only sends clicks on buttons that exist; to click a button the bot no longer
        makes, plant the old message first with `d.fake.add_message(...)`.)"""
        record = self.prepare_click(
            user,
            channel,
            label=label,
            custom_id=custom_id,
            message=message,
            allow_disabled=allow_disabled,
        )
        return await self._run(record)

    def prepare_click(
        self,
        user: FakeUser,
        channel: int,
        *,
        label: str | None = None,
        custom_id: str | None = None,
        message: FakeMessage | None = None,
        allow_disabled: bool = False,
    ) -> InteractionRecord:
        """The click `click` would send, built but not sent (for `dispatch_all`)."""
        msg, comp = self._find(user, channel, label=label, custom_id=custom_id, message=message)
        if msg is None or comp is None:
            seen = [m.labels() for m in self.visible(user, channel) if m.buttons()]
            raise ClientRefused(
                f"{user.name} sees no button {label or custom_id!r} in the channel; "
                f"buttons they see: {seen}"
            )
        if comp.get("disabled") and not allow_disabled:
            raise ClientRefused(f"button {comp.get('label')!r} is disabled")
        if comp.get("type") != 2:
            raise ClientRefused(f"{comp.get('custom_id')!r} is not a button: use select()")
        data = {"custom_id": comp["custom_id"], "component_type": 2, "id": comp.get("id", 1)}
        return self.fake.interaction_payload(MESSAGE_COMPONENT, user, channel, data, msg)

    async def dispatch(self, record: InteractionRecord) -> InteractionRecord:
        """Send a prepared interaction and wait as `click` does."""
        return await self._run(record)

    async def dispatch_all(self, records: Iterable[InteractionRecord]) -> list[InteractionRecord]:
        """Send prepared interactions all at once (asyncio.gather of the dispatches), wait
        until every one is answered and the bot is idle; fails on anything Discord refuses."""
        records = list(records)
        before = len(self.fake.violations)
        await asyncio.gather(*(self.fake.inject(r) for r in records))
        acks = [asyncio.shield(r.acked) for r in records if r.acked is not None]
        try:
            await asyncio.wait_for(asyncio.gather(*acks), self.timeout)
        except TimeoutError:
            late = [r for r in records if r.acked_at is None]
            raise AssertionError(
                self._explain(late[0], before, f"left {len(late)} of {len(records)} unanswered")
            ) from None
        await self.settle()
        if self.fake.violations[before:]:
            raise AssertionError(self._explain(records[0], before, "sent something it must not"))
        return records

    async def select(
        self,
        user: FakeUser,
        channel: int,
        values: list[str],
        *,
        custom_id: str | None = None,
        message: FakeMessage | None = None,
    ) -> InteractionRecord:
        """Choose `values` in a string select (the first one found, or by `custom_id`)."""
        candidates = [message] if message else list(reversed(self.visible(user, channel)))
        for msg in candidates:
            for comp in msg.all_components():
                if comp.get("type") == 3 and custom_id in (None, comp.get("custom_id")):
                    allowed = {o["value"] for o in comp.get("options") or []}
                    if not set(values) <= allowed:
                        raise ClientRefused(
                            f"{values} are not all options of {comp['custom_id']!r}"
                        )
                    lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
                    if not lo <= len(values) <= hi:
                        raise ClientRefused(f"choose {lo}-{hi} values")
                    data = {
                        "custom_id": comp["custom_id"],
                        "component_type": 3,
                        "id": comp.get("id", 1),
                        "values": values,
                    }
                    rec = self.fake.interaction_payload(MESSAGE_COMPONENT, user, channel, data, msg)
                    return await self._run(rec)
        raise ClientRefused(f"{user.name} sees no select {custom_id or ''} in the channel")

    def _find(
        self,
        user: FakeUser,
        channel: int,
        *,
        label: str | None,
        custom_id: str | None,
        message: FakeMessage | None,
    ) -> tuple[FakeMessage | None, dict[str, Any] | None]:
        if (label is None) == (custom_id is None):
            raise TypeError("give exactly one of label= and custom_id=")
        if message is not None:
            if not message.visible_for(user.id):
                raise ClientRefused(f"{user.name} cannot see message {message.id}")
            return message, message.find_component(label=label, custom_id=custom_id)
        for msg in reversed(self.visible(user, channel)):
            comp = msg.find_component(label=label, custom_id=custom_id)
            if comp is not None:
                return msg, comp
        return None, None

    # ------------------------------------------------------------------ reading

    def visible(self, user: FakeUser, channel: int) -> list[FakeMessage]:
        """What `user` sees in the channel, oldest first: public messages and their ephemerals."""
        return self.fake.visible(user.id, channel)

    def ephemerals(self, user: FakeUser, channel: int) -> list[FakeMessage]:
        return [m for m in self.visible(user, channel) if m.ephemeral]

    def latest(self, user: FakeUser, channel: int) -> FakeMessage:
        msgs = self.visible(user, channel)
        if not msgs:
            raise AssertionError(f"{user.name} sees no message in channel {channel}")
        return msgs[-1]

    def channel_messages(self, channel: int) -> list[FakeMessage]:
        """The channel as everyone sees it, oldest first: no ephemerals, no deleted messages."""
        return self.fake.public(channel)

    def last_message(self, channel: int) -> FakeMessage:
        """The newest message everyone sees in the channel (the bottom of the channel)."""
        msgs = self.channel_messages(channel)
        if not msgs:
            raise AssertionError(f"no message in channel {channel}")
        return msgs[-1]

    def messages_with_buttons(self, channel: int) -> list[FakeMessage]:
        """The channel's public messages that still hold a usable button or select (enabled,
        with a custom_id), oldest first."""
        return [m for m in self.channel_messages(channel) if m.live_components()]

    def notifications(self, user: FakeUser) -> list[FakeMessage]:
        """The new messages that notified `user` (mentioned in the content, as the message's
        allowed_mentions let it), oldest first. Edits and ephemerals never notify."""
        return self.fake.notifications(user.id)
    def tables(self, channel: int) -> list[FakeMessage]:
        """The public messages of the channel that show a game's table or lobby, oldest
        first: messages the bot sent whose embed has a title, but not a summary left by a
        table posted afresh below it ("⬇ The live table is below.") and not a side message
        (a Kuriki foul vote, "⚖ ..."; CRAP's pings have no title). Planted messages
        (`fake.add_message`) are not the bot's: they are never the table."""
        sent = {s.message_id for s in self.fake.sent}
        return [m for m in self.fake.public(channel) if m.id in sent and shows_a_table(m)]

    def table(self, channel: int) -> FakeMessage:
        """The channel's live table: the latest message of `tables`. Only it may carry
        buttons: every older table message was reduced to a summary or is a game's end."""
        tables = self.tables(channel)
        if not tables:
            raise AssertionError(f"no table message in channel {channel}")
        live = tables[-1]
        pressable = [m for m in tables[:-1] if m.live_components()]
        assert not pressable, (
            f"tables with buttons above the live one ({live.id}) in channel {channel}: "
            + "; ".join(f"{m.id}: {m.labels()}" for m in pressable)
        )
        return live

    def summaries(self, channel: int) -> list[FakeMessage]:
        """Former tables the bot reduced to a summary (no buttons), oldest first."""
        return [m for m in self.fake.public(channel) if is_summary(m)]

    def on_table(self, rec: InteractionRecord, clicked: FakeMessage) -> FakeMessage:
        """Check how the bot answered a move pressed on the table `clicked` and return the
        live table. The answer is an update of the clicked message (callback type 7), which
        then either is still the live table (edited in place), or was reduced to a summary
        without buttons, the live table being posted afresh below it as the interaction's
        (only) public follow-up. (A click the bot refused is not a move: it fails here.)"""
        assert rec.callback_type == 7 and rec.message is clicked, (
            f"{rec.user.name}'s press was answered with type {rec.callback_type} "
            f"on {None if rec.message is None else rec.message.id}, not an update of the "
            f"table {clicked.id}: {rec.text}"
        )
        live = self.table(rec.channel_id)
        public = [m for m in rec.followups if not m.ephemeral]
        if live is clicked:
            assert public == [], [m.text() for m in public]
            return live
        assert is_summary(clicked) and clicked.buttons() == [], clicked.text()
        assert public == [live], (
            f"the table after the press ({live.id}) is not its only public follow-up: "
            f"{[m.id for m in public]}"
        )
        return live

    def notified(self, message: FakeMessage) -> set[int]:
        """Whom Discord notified of `message` when it was created (the users its content
        mentions that its allowed_mentions let through). Edits notify nobody."""
        return set(message.notified)

    def commands(self) -> list[dict[str, Any]]:
        """Commands registered for the test server (then global ones)."""
        return self.fake.commands.get(self.guild_id, []) + self.fake.commands.get(None, [])

    @property
    def problems(self) -> list[str]:
        """Violations of Discord's rules, and the bot's warnings and errors in the log."""
        logged = [f"log {r.name} {r.levelname}: {r.getMessage()}" for r in self.logs.records]
        if self.log_file is not None and self.log_file.exists():
            lines = self.log_file.read_text(encoding="utf-8", errors="replace").splitlines()
            logged += [
                "log (child) " + x[len("PROBLEM ") :] for x in lines if x.startswith("PROBLEM ")
            ]
        return self.fake.violations + logged

    def stored(self, channel: int) -> dict[str, Any] | None:
        """The channel's session row as committed (read from the database file)."""
        assert self.database is not None
        return read_session(self.database, channel)

    # ------------------------------------------------------------------ dying

    def skip_ahead(self, seconds: float) -> None:
        """Move the bot's clock (its table service's injected clock) on by `seconds` and
        wake its timers: a turn timer runs out without the test waiting for it in real
        time. A bot in a child process is told by a signal (`tests/e2e/bot_process.py`)."""
        bot = self.bot
        if bot is None:
            assert self.process is not None and self.clock_file is not None
            self.clock_ahead += seconds
            self.clock_file.write_text(repr(self.clock_ahead))
            self.process.send_signal(signal.SIGUSR1)
            return
        tables = bot.tables
        before = tables.clock
        tables.clock = lambda: before() + seconds  # type: ignore[method-assign]
        bot.timers.poke()

    async def crash(self) -> None:
        """Kill the in-process bot the way a crash kills a process: every task of it stops
        where it is (a handler still finishing its answer too), its gateway connection
        drops; no close(), nothing flushed or closed (the SQLite connection stays as it was
        until `bury_corpses`).

        Cancelling the task running `connect()` is not enough for an AutoShardedBot: each
        shard reads the gateway in its own task, which would go on answering clicks.
        Unlike a real crash, a transaction left open would keep its lock in this process:
        crash between moves (after an answer), not inside one."""
        bot = self.bot
        assert bot is not None, "a bot in a child process is killed with kill()"
        connections = self.fake.gateway_connections
        doomed: list[asyncio.Task[Any]] = []
        if self.connect_task is not None:
            doomed.append(self.connect_task)
        shards = [info._parent for info in bot.shards.values()]
        for shard in shards:
            ws = shard.ws
            if ws._keep_alive is not None:
                ws._keep_alive.stop()  # a daemon thread sending heartbeats
            if shard._task is not None:
                doomed.append(shard._task)
        timers = bot.timers._task
        if timers is not None:
            doomed.append(timers)
        doomed += _handler_tasks() + _event_tasks() + _tasks_of(bot)
        for task in doomed:
            task.cancel()
        for shard in shards:  # the kernel closes a dead process's sockets
            transport = shard.ws.socket._writer.transport
            if transport is not None:
                transport.abort()
        await asyncio.gather(*doomed, return_exceptions=True)
        self.crashed = True
        self.connect_task = None
        CORPSES.append(bot)
        await self.fake.wait_gateway_connections(connections - len(shards), self.timeout)

    async def kill(self) -> None:
        """SIGKILL the bot's child process and wait until Discord saw its connection drop."""
        proc = self.process
        assert proc is not None, "an in-process bot is killed with crash()"
        connections = self.fake.gateway_connections
        proc.kill()
        await proc.wait()
        self.crashed = True
        await self.fake.wait_gateway_connections(connections - 1, self.timeout)

    # ------------------------------------------------------------------ plumbing

    async def _run(self, record: InteractionRecord) -> InteractionRecord:
        before = len(self.fake.violations)
        await self.fake.inject(record)
        assert record.acked is not None
        if self.bot is None:
            return await self._run_remote(record, before)
        deadline = time.monotonic() + self.timeout
        seen_handler = False
        started = time.monotonic()
        while not record.acked.done():
            self._check_alive()
            handlers = _handler_tasks()
            seen_handler = seen_handler or bool(handlers)
            # Reading the event starts its handler at once (discord.py parses and dispatches
            # in one go): only once it is read does a second without one mean none came.
            read = not self._unread_events()
            if not handlers and (seen_handler or (read and time.monotonic() - started > 1.0)):
                await asyncio.sleep(0.02)  # a last chance for a request already on its way
                if not record.acked.done():
                    what = (
                        "finished handling it without answering"
                        if seen_handler
                        else "never handled it (discord.py found no command or item for it)"
                    )
                    raise AssertionError(self._explain(record, before, what))
            if time.monotonic() > deadline:
                raise AssertionError(
                    self._explain(record, before, f"did not answer in {self.timeout} s")
                )
            await asyncio.sleep(0.005)
        await self.settle()
        new = self.fake.violations[before:]
        if new:
            raise AssertionError(self._explain(record, before, "sent something it must not"))
        return record

    async def _run_remote(self, record: InteractionRecord, before: int) -> InteractionRecord:
        """The bot runs in another process: no handler tasks to watch, only its answers."""
        assert record.acked is not None
        deadline = time.monotonic() + self.timeout
        while not record.acked.done():
            self._check_alive()
            if time.monotonic() > deadline:
                raise AssertionError(
                    self._explain(record, before, f"did not answer in {self.timeout} s")
                )
            await asyncio.sleep(0.005)
        await self.settle()
        if self.fake.violations[before:]:
            raise AssertionError(self._explain(record, before, "sent something it must not"))
        return record

    async def settle(self) -> None:
        """Wait until the bot has read every gateway event, finished handling every interaction
        and message event, and every request returned."""
        if self.bot is None:
            return await self._settle_remote()
        deadline = time.monotonic() + self.timeout
        while _handler_tasks() or _event_tasks() or self.fake.in_flight or self._unread_events():
            self._check_alive()
            if time.monotonic() > deadline:
                busy = _handler_tasks() + _event_tasks()
                raise AssertionError(f"the bot is still busy after {self.timeout} s: {busy}")
            await asyncio.sleep(0.005)

    def _unread_events(self) -> bool:
        """Whether the in-process bot has yet to read a gateway event the fake sent it (its
        shard's last sequence number behind the fake's connection for that shard)."""
        if self.bot is None or self.crashed:
            return False
        sent: dict[int, list[int]] = {}
        for shard_id, seq in self.fake.gateway_sequences():
            sent.setdefault(shard_id, []).append(seq)
        for shard_id, info in self.bot.shards.items():
            ws = info._parent.ws
            seqs = sent.get(shard_id, [])
            if len(seqs) == 1 and ws is not None and (ws.sequence or 0) < seqs[0]:
                return True
        return False

    async def _settle_remote(self, quiet: float = 0.05) -> None:
        """No request in flight and none started for `quiet` seconds."""
        deadline = time.monotonic() + self.timeout
        seen, since = len(self.fake.requests), time.monotonic()
        while True:
            if self.fake.in_flight or len(self.fake.requests) != seen:
                seen, since = len(self.fake.requests), time.monotonic()
            elif time.monotonic() - since >= quiet:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the bot is still busy after {self.timeout} s")
            await asyncio.sleep(0.005)

    def _check_alive(self) -> None:
        proc = self.process
        if proc is not None and proc.returncode is not None:
            raise AssertionError(f"the bot process ended with status {proc.returncode}")
        task = self.connect_task
        if task is not None and task.done():
            exc = None if task.cancelled() else task.exception()
            raise AssertionError(f"the bot's connection ended: {exc!r}") from exc

    def _explain(self, record: InteractionRecord, before: int, what: str) -> str:
        lines = [f"interaction {record.type} by {record.user.name}: the bot {what}"]
        lines += [f"  violation: {v}" for v in self.fake.violations[before:]]
        lines += [f"  {line}" for line in self.problems if line.startswith("log ")]
        return "\n".join(lines)


async def eventually(what: str, ok: Callable[[], bool], timeout: float = HANG) -> None:
    """Poll until `ok()`, letting the bot run meanwhile; fails naming `what` after `timeout`
    seconds (a hang, not a speed limit)."""
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        await asyncio.sleep(0.005)


@contextlib.asynccontextmanager
async def running_bot(
    database: Path,
    *,
    seed: int = 1,
    fake: FakeDiscord | None = None,
    defaults: GuildSettings | None = None,
    timeout: float = HANG,
    shard_count: int | None = 1,
    intents: discord.Intents | None = None,
    pictures: bool = False,
    four_colour_cards: bool = False,
) -> AsyncIterator[Driver]:
    """The real GameBot (real cogs, SQLite at `database`) connected to a fake Discord.
    `pictures=True` lets it upload its dice and cards as emojis (then the tables' text holds
    emoji tags such as `<:tb_d3_1a2b3c:id>` where the other tests read `3️⃣` or `K♥`).

    Pass `fake=` to keep a fake (its messages and registered commands) across a restart;
    `shard_count=None` makes the bot ask GET /gateway/bot, as in production; `intents=`
    replaces the intents the bot identifies with (to try GUILD_MESSAGES before the bot asks)."""
    own_fake = fake is None
    if fake is None:
        fake = FakeDiscord()
        fake.add_guild(GUILD, "Game night", {TABLE: "games", LOUNGE: "lounge"}, owner_id=ADMIN.id)
        await fake.start()
    saved = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    Route.BASE = fake.api_url
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    logs = _LogCapture()
    watched = [logging.getLogger("bot"), logging.getLogger("discord"), logging.getLogger("games")]
    for lg in watched:
        lg.addHandler(logs)
    config = BotConfig(
        database=str(database),
        shard_count=shard_count,
        dev_guild_id=None,  # global commands: usable in DMs and servers without the bot too
        defaults=defaults or GuildSettings(),
        pictures=pictures,
        four_colour_cards=four_colour_cards,
        farkle_tables="",  # no minutes-long table builds during the tests
    )
    bot = GameBot(config, sync=True, rng=random.Random(seed))
    bot._connection.guild_ready_timeout = 0.05
    if intents is not None:
        bot._connection._intents = intents
    driver = Driver(fake=fake, bot=bot, timeout=timeout, logs=logs, database=database)
    try:
        await asyncio.wait_for(bot.login(fake.token), timeout)
        driver.connect_task = asyncio.create_task(bot.connect(reconnect=False), name="e2e-connect")
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait(
            {ready, driver.connect_task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            driver._check_alive()
            raise AssertionError(f"the bot was not ready after {timeout} s")
        yield driver
    finally:
        if not driver.crashed:
            with contextlib.suppress(Exception):
                await driver.settle()
            await bot.close()
            if driver.connect_task is not None:
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await asyncio.wait_for(driver.connect_task, timeout)
        Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = saved
        for lg in watched:
            lg.removeHandler(logs)
        if own_fake:
            await fake.stop()


@contextlib.asynccontextmanager
async def bot_process(
    database: Path | str,
    fake: FakeDiscord,
    *,
    seed: int = 1,
    timeout: float = HANG,
    start_timeout: float = HANG,
    shards: tuple[int, list[int]] | None = None,
    takeover_after: float | None = None,
    log_dir: Path | None = None,
    die_at: str | None = None,
) -> AsyncIterator[Driver]:
    """The real GameBot in a child process (`tests/e2e/bot_process.py`) on `database` (a
    SQLite file, or a PostgreSQL URL with `log_dir` for its log), connected to `fake` (which
    runs in this process). The Driver it yields has no `bot`; `await d.kill()` SIGKILLs the
    child. The child's warnings and errors are `d.problems`. `die_at` has the child kill
    itself at a game's end (see the --die-at of `tests/e2e/bot_process.py`).

    `shards=(count, ids)` runs only those shards; otherwise one shard. Commands are synced
    globally, as in production."""
    folder = log_dir or Path(database).parent
    stem = "bot" if log_dir else Path(database).stem
    log_file = folder / f"{stem}-bot-{len(fake.identifies)}.log"
    args = [
        sys.executable,
        "-m",
        "tests.e2e.bot_process",
        *("--api", fake.api_url, "--gateway", fake.gateway_url, "--token", fake.token),
        *("--database", str(database), "--seed", str(seed)),
    ]
    if shards is not None:
        args += ["--shard-count", str(shards[0]), "--shard-ids", ",".join(map(str, shards[1]))]
    if takeover_after is not None:
        args += ["--takeover-after", str(takeover_after)]
    if die_at is not None:
        args += ["--die-at", die_at]
    clock_file = log_file.with_suffix(".clock")
    args += ["--clock-file", str(clock_file)]
    with log_file.open("wb") as log:
        proc = await asyncio.create_subprocess_exec(
            *args,
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    driver = Driver(
        fake=fake,
        bot=None,
        timeout=timeout,
        process=proc,
        log_file=log_file,
        clock_file=clock_file,
        database=database if isinstance(database, Path) else None,  # `stored` reads SQLite
    )
    try:
        assert proc.stdout is not None
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), start_timeout)
        except TimeoutError:
            line = b"(nothing)"
        if line.strip() != b"READY":
            raise AssertionError(
                f"the bot process did not get ready: {line!r}\n"
                + log_file.read_text(encoding="utf-8", errors="replace")[-3000:]
            )
        yield driver
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def bury_corpses() -> None:
    """Free what crashed bots left behind (the OS does it for a dead process): stop their
    SQLite reader threads (not daemons: they would keep the interpreter alive) and HTTP sessions."""
    while CORPSES:
        bot = CORPSES.pop()
        store = getattr(bot, "store", None)
        if store is not None:
            thread = store.db.abandon()
            if thread is not None:
                await asyncio.to_thread(thread.join, 5.0)
        await bot.http.close()


def late_answers(fake: FakeDiscord, limit: float = ACK_LIMIT) -> list[str]:
    """Interactions not answered within `limit` seconds of their dispatch (or never)."""
    out = []
    for iid, latency in fake.ack_latencies().items():
        rec = fake.interactions[iid]
        what = f"interaction {iid} (type {rec.type}, by {rec.user.name})"
        if latency is None:
            out.append(f"{what} was never answered")
        elif latency >= limit:
            out.append(f"{what} was answered after {latency:.2f} s (max {limit})")
    return out


def read_session(database: Path, channel: int) -> dict[str, Any] | None:
    """A channel's session row as committed to the file (another connection's view)."""
    con = sqlite3.connect(database)
    try:
        con.row_factory = sqlite3.Row
        row = con.execute(
            "SELECT channel_id, guild_id, kind, data, revision, message_id, deadline, created_at"
            " FROM sessions WHERE channel_id = ?",
            (channel,),
        ).fetchone()
        return dict(row) if row else None
    finally:
        con.close()


def read_shown(database: Path, channel: int) -> tuple[int, int] | None:
    """(revision, shown_revision) of a channel's session row: the state committed, and the
    state the bot recorded its table message in the channel shows (behind after a crash
    between a commit and the table's update, until the bot catches up)."""
    con = sqlite3.connect(database)
    try:
        row = con.execute(
            "SELECT revision, shown_revision FROM sessions WHERE channel_id = ?", (channel,)
        ).fetchone()
        return None if row is None else (row[0], row[1])
    finally:
        con.close()


def read_finished(database: Path, channel: int) -> list[dict[str, Any]]:
    """The finished-games rows of a channel, as committed to the file, with `dice` and `log`
    as the JSON text recorded (unpacked from their packed columns: bot/store/packed.py)."""
    con = sqlite3.connect(database)
    try:
        con.row_factory = sqlite3.Row
        rows = [
            dict(r)
            for r in con.execute(
                "SELECT * FROM finished_games WHERE channel_id = ? ORDER BY id", (channel,)
            )
        ]
    finally:
        con.close()
    for row in rows:
        for key in ("dice", "log"):
            packed = row.pop(f"{key}_packed")
            if row[key] is None and packed is not None:
                row[key] = unpack_text(packed)
    return rows


def mention(user: FakeUser) -> str:
    return f"<@{user.id}>"


SUMMARY = "⬇ The live table is below."


def is_summary(message: FakeMessage) -> bool:
    """A former table message reduced to its last moves, pointing below to the live one."""
    return any(SUMMARY in (e.get("description") or "") for e in message.embeds)


def shows_a_table(message: FakeMessage) -> bool:
    """A public message showing a game's table or lobby (see `Driver.tables`)."""
    titles = [e.get("title") or "" for e in message.embeds]
    return (
        not message.ephemeral
        and bool(titles)
        and bool(titles[0])
        and not titles[0].startswith("⚖")
        and not is_summary(message)
    )


__all__ = [
    "ACK_LIMIT",
    "ADMIN",
    "ALICE",
    "BOB",
    "CAROL",
    "DAVE",
    "GUILD",
    "LOUNGE",
    "MALLORY",
    "TABLE",
    "ClientRefused",
    "Driver",
    "FakeDiscord",
    "FakeMessage",
    "FakeUser",
    "InteractionRecord",
    "bot_process",
    "bury_corpses",
    "is_summary",
    "late_answers",
    "mention",
    "read_finished",
    "read_session",
    "read_shown",
    "running_bot",
    "shows_a_table",
]
