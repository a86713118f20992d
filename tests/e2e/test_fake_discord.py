"""The fake's own checks: they must catch what Discord refuses, or the e2e suite proves little."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest

from bot.service import Reply
from tests.e2e.fake_discord import (
    APPLICATION_COMMAND,
    CALLBACK,
    GUILD_COMMANDS,
    JSON,
    MAX_EDITS_MESSAGE,
    MESSAGE_COMPONENT,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    SpecValidator,
    button_row,
    command_limits,
    message_limits,
    snowflake_time,
)
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    GUILD,
    LOUNGE,
    TABLE,
    Driver,
    running_bot,
)


def row(n: int, prefix: str = "b") -> dict:
    return button_row(*((str(i), f"{prefix}{i}") for i in range(n)))


def test_message_limits() -> None:
    assert (
        message_limits({"content": "x" * 2000, "components": [row(5, f"r{i}") for i in range(5)]})
        == []
    )
    problems = message_limits(
        {
            "content": "x" * 2001,
            "embeds": [{"description": "y" * 4000}, {"description": "z" * 2001}],
            "components": [row(6), *(row(1, f"r{i}") for i in range(5))],
        }
    )
    assert len(problems) == 4, problems
    long_id = {"type": 1, "components": [{"type": 2, "style": 2, "custom_id": "c" * 101}]}
    select = {
        "type": 1,
        "components": [
            {
                "type": 3,
                "custom_id": "s",
                "options": [{"label": str(i), "value": str(i)} for i in range(26)],
            }
        ],
    }
    assert len(message_limits({"components": [long_id, select]})) == 2


def test_command_limits() -> None:
    good = {"name": "farkle-rule", "type": 1, "description": "d", "options": []}
    assert command_limits([good]) == []
    bad = [
        {"name": "Farkle", "type": 1, "description": "d"},
        {"name": "two words", "type": 1, "description": "d"},
        {"name": "x", "type": 1, "description": ""},
        {"name": "y", "type": 1, "description": "d" * 101},
        {
            "name": "z",
            "type": 1,
            "description": "d",
            "options": [{"type": 3, "name": "o", "description": ""}],
        },
    ]
    assert len(command_limits(bad)) == 5
    assert command_limits([{"name": "Show Scores", "type": 3, "description": ""}]) == []


def test_schema_catches_bad_bodies() -> None:
    spec = SpecValidator()
    assert spec.errors("post", CALLBACK, {"type": 4, "data": {"content": "hi", "flags": 64}}) == []
    assert spec.errors("post", CALLBACK, {"type": 7, "data": {"content": 5}})
    assert spec.errors("post", CALLBACK, {"type": 4, "data": {"embeds": [{"title": "t" * 257}]}})
    assert spec.errors("put", GUILD_COMMANDS, [{"description": "no name"}])


def test_the_fast_validator_agrees_with_jsonschema() -> None:
    """errors() trusts jsonschema-rs's yes: both must judge bodies the same, valid or not,
    snowflakes as numbers included (the description's SnowflakeType widened for both)."""
    spec = SpecValidator()
    button = {"type": 2, "style": 1, "label": "Roll", "custom_id": "farkle:roll"}
    row = {"type": 1, "components": [button]}
    bodies = [
        ("post", CALLBACK, {"type": 4, "data": {"content": "hi", "flags": 64}}, True),
        ("post", CALLBACK, {"type": 7, "data": {"components": [row]}}, True),
        ("post", CALLBACK, {"type": 4, "data": {"allowed_mentions": {"users": [123]}}}, True),
        ("post", CALLBACK, {"type": 7, "data": {"content": 5}}, False),
        ("post", CALLBACK, {"type": 4, "data": {"embeds": [{"title": "t" * 257}]}}, False),
        ("post", CALLBACK, {"type": 4, "data": {"allowed_mentions": {"users": [-1]}}}, False),
        ("post", CALLBACK, {"type": 99}, False),
        ("put", GUILD_COMMANDS, [{"name": "farkle", "description": "Play"}], True),
        ("put", GUILD_COMMANDS, [{"description": "no name"}], False),
    ]
    for method, path, body, valid in bodies:
        fast = spec.fast_validator(method, path).is_valid(body)
        slow = spec.validator(method, path).is_valid(body)
        assert fast == slow == valid, (path, body)


async def test_the_harness_fails_on_what_discord_refuses(tmp_path: Path) -> None:
    async with running_bot(tmp_path / "e2e.sqlite3") as d:

        async def too_long(channel_id: int, kind: str, asker: object = None) -> Reply:
            return Reply(content="x" * 2001, ephemeral=True)

        d.bot.tables.status = too_long  # type: ignore[method-assign]
        with pytest.raises(AssertionError, match="content is 2001 chars"):
            await d.slash(ALICE, TABLE, "farkle status")
        assert any("content is 2001 chars" in v for v in d.fake.violations)
        # Refused with 400, the bot apologised instead, and logged the error.
        assert "Sorry" in d.latest(ALICE, TABLE).text()
        assert any("Unexpected error" in p for p in d.problems)


# ---------------------------------------------------------------------- by hand, over HTTP


@dataclass
class Rest:
    """Discord's REST API called by hand, as the bot would (token in the header)."""

    fake: FakeDiscord
    http: aiohttp.ClientSession

    async def __call__(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        url = self.fake.api_url + path
        async with self.http.request(method, url, json=body) as r:
            return r.status, (await r.json() if r.content_type == "application/json" else None)

    async def post(self, channel: int, body: JSON) -> FakeMessage:
        status, data = await self("POST", f"/channels/{channel}/messages", body)
        assert status == 200, data
        msg = self.fake.message(int(data["id"]))
        assert msg is not None
        return msg

    async def edit(self, msg: FakeMessage, body: JSON) -> tuple[int, Any]:
        return await self("PATCH", f"/channels/{msg.channel_id}/messages/{msg.id}", body)

    def interaction(
        self, user: FakeUser, channel: int, on: FakeMessage | None = None
    ) -> tuple[str, str]:
        """A registered interaction (a slash command, or a click on `on`): its callback URL
        and its webhook's URL, both without the API prefix."""
        if on is None:
            rec = self.fake.interaction_payload(APPLICATION_COMMAND, user, channel, {"name": "x"})
        else:
            data = {"custom_id": "b", "component_type": 2, "id": 1}
            rec = self.fake.interaction_payload(MESSAGE_COMPONENT, user, channel, data, on)
        self.fake.register(rec)
        return (
            f"/interactions/{rec.id}/{rec.token}/callback",
            f"/webhooks/{self.fake.app_id}/{rec.token}",
        )


@contextlib.asynccontextmanager
async def rest(fake: FakeDiscord) -> AsyncIterator[Rest]:
    headers = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession(headers=headers) as http:
        yield Rest(fake, http)


def ping(*users: FakeUser) -> str:
    return " ".join(f"<@{u.id}>" for u in users)


TOO_MANY_EDITS = {"code": 30046, "message": MAX_EDITS_MESSAGE}


# ---------------------------------------------------------------------- the clock


async def test_the_clock_ages_messages_and_snowflakes_follow_it(fake: FakeDiscord) -> None:
    first = fake.add_message(TABLE, content="first")
    assert fake.age(first) < 1
    fake.advance_clock(7200)
    assert 7200 <= fake.age(first) < 7201
    second = fake.add_message(TABLE, content="second")
    assert first.id < second.id
    for msg in (first, second):
        assert abs(snowflake_time(msg.id) - msg.created_at) < 0.01
        stamp = datetime.fromisoformat(msg.payload()["timestamp"]).timestamp()
        assert abs(stamp - msg.created_at) < 0.001
    assert abs(snowflake_time(second.id) - time.time() - 7200) < 1
    with pytest.raises(ValueError):
        fake.advance_clock(-1)


# ---------------------------------------------------------------------- the edit limit


async def test_an_hour_old_message_takes_three_more_edits_over_rest(fake: FakeDiscord) -> None:
    async with rest(fake) as api:
        old = await api.post(TABLE, {"content": "table"})
        fresh_edits = [await api.edit(old, {"content": f"move {i}"}) for i in range(5)]
        assert all(status == 200 for status, _ in fresh_edits)  # young: no limit
        status, data = fresh_edits[-1]
        edited = datetime.fromisoformat(data["edited_timestamp"]).timestamp()
        assert abs(edited - fake.now()) < 1

        fake.advance_clock(3601)
        for i in range(3):
            status, data = await api.edit(old, {"content": f"late {i}"})
            assert status == 200, data
        status, data = await api.edit(old, {"content": "one too many"})
        assert (status, data) == (400, TOO_MANY_EDITS)
        assert old.content == "late 2" and old.late_edits == 3

        young = await api.post(TABLE, {"content": "new table"})
        assert all([(await api.edit(young, {"content": "ok"}))[0] == 200 for _ in range(4)])

    mine = [e for e in fake.edits if e.message_id == old.id]
    assert [(e.refused, e.via) for e in mine] == [(False, "rest")] * 8 + [(True, "rest")]
    assert all(e.age_seconds < 60 for e in mine[:5]) and all(e.age_seconds > 3600 for e in mine[5:])
    assert not any(e.refused for e in fake.edits if e.message_id == young.id)


async def test_the_edit_limit_applies_to_interaction_updates_and_webhooks() -> None:
    fake = FakeDiscord(old_message_edits=2)
    fake.add_guild(GUILD, "Game night", {TABLE: "games"}, owner_id=ALICE.id)
    await fake.start()
    try:
        async with rest(fake) as api:
            table = await api.post(
                TABLE, {"content": "table", "components": [button_row(("B", "b"))]}
            )
            callback, hook = api.interaction(ALICE, TABLE)
            assert (await api("POST", callback, {"type": 4, "data": {"content": "hi"}}))[0] == 204
            fake.advance_clock(3700)

            for i in range(2):
                click, _ = api.interaction(BOB, TABLE, on=table)
                body = {"type": 7, "data": {"content": f"update {i}"}}
                assert (await api("POST", click, body))[0] == 204
            click, _ = api.interaction(BOB, TABLE, on=table)
            status, data = await api("POST", click, {"type": 7, "data": {"content": "no"}})
            assert (status, data) == (400, TOO_MANY_EDITS)
            # Refused, the click is not acknowledged: the bot may still answer it otherwise.
            status, _ = await api(
                "POST", click, {"type": 4, "data": {"content": "sorry", "flags": 64}}
            )
            assert status == 204

            original = hook + "/messages/@original"
            for i in range(2):
                assert (await api("PATCH", original, {"content": f"edit {i}"}))[0] == 200
            assert await api("PATCH", original, {"content": "no"}) == (400, TOO_MANY_EDITS)

        vias = [(e.via, e.refused) for e in fake.edits]
        assert vias == [
            ("interaction", False),
            ("interaction", False),
            ("interaction", True),
            ("webhook", False),
            ("webhook", False),
            ("webhook", True),
        ]
        assert table.content == "update 1"
        assert fake.violations == []
    finally:
        await fake.stop()


async def test_the_edit_limit_as_a_rate_limit_reaches_discord_py_as_30046(
    tmp_path: Path,
) -> None:
    fake = FakeDiscord(old_message_edit_status=429)
    fake.add_guild(GUILD, "Game night", {TABLE: "games"}, owner_id=ALICE.id)
    await fake.start()
    try:
        async with running_bot(tmp_path / "e2e.sqlite3", fake=fake) as d:
            assert d.bot is not None
            channel = d.bot.get_channel(TABLE)
            assert isinstance(channel, discord.TextChannel)
            sent = await channel.send("table")
            fake.advance_clock(3601)
            for i in range(3):
                await sent.edit(content=f"late {i}")
            with pytest.raises(discord.HTTPException) as refused:
                await sent.edit(content="one too many")
            assert (refused.value.status, refused.value.code) == (429, 30046)
            # discord.py took it for a rate limit and tried five times.
            assert [e.refused for e in fake.edits] == [False] * 3 + [True] * 5
    finally:
        await fake.stop()


# ---------------------------------------------------------------------- notifications


async def test_only_new_messages_notify_and_allowed_mentions_decide_whom(
    fake: FakeDiscord,
) -> None:
    async with rest(fake) as api:
        both = await api.post(TABLE, {"content": f"{ping(BOB)} <@!{CAROL.id}> play"})
        only_carol = await api.post(
            TABLE,
            {
                "content": f"{ping(BOB, CAROL)} your turn",
                "allowed_mentions": {"parse": [], "users": [str(CAROL.id)]},
            },
        )
        nobody = await api.post(
            TABLE, {"content": f"{ping(BOB)} quiet", "allowed_mentions": {"parse": []}}
        )
        in_embed = await api.post(TABLE, {"embeds": [{"description": f"{ping(BOB)}'s turn"}]})
        parsed = await api.post(
            TABLE, {"content": f"{ping(BOB)} loud", "allowed_mentions": {"parse": ["users"]}}
        )
        # An edit never notifies, whatever it mentions.
        status, _ = await api.edit(nobody, {"content": f"{ping(BOB, CAROL)} edited"})
        assert status == 200
        # Nor does an ephemeral answer.
        callback, _ = api.interaction(ALICE, TABLE)
        body = {"type": 4, "data": {"content": f"{ping(ALICE, BOB)} psst", "flags": 64}}
        assert (await api("POST", callback, body))[0] == 204

        # Discord refuses "users" both parsed and listed; integer ids are fine.
        refused = {"content": ping(BOB), "allowed_mentions": {"parse": ["users"], "users": ["1"]}}
        status, data = await api("POST", f"/channels/{TABLE}/messages", refused)
        assert status == 400 and data["code"] == 50035
        assert any("mutually exclusive" in v for v in fake.violations)
        fake.violations.clear()
        status, _ = await api(
            "POST",
            f"/channels/{TABLE}/messages",
            {"content": ping(DAVE), "allowed_mentions": {"users": [DAVE.id]}},
        )
        assert status == 200

    assert fake.notifications(BOB.id) == [both, parsed]
    assert fake.notifications(CAROL.id) == [both, only_carol]
    assert fake.notifications(ALICE.id) == []
    assert [m.content for m in fake.notifications(DAVE.id)] == [ping(DAVE)]
    assert only_carol.allowed_mentions == {"parse": [], "users": [str(CAROL.id)]}
    assert in_embed.notified == [] and in_embed.allowed_mentions is None
    assert [u["id"] for u in only_carol.payload()["mentions"]] == [str(CAROL.id)]
    assert nobody.mentioned_ids == []  # the edit had no allowed_mentions: the creation's hold


async def test_a_message_does_not_notify_its_author(d: Driver) -> None:
    said = await d.say(BOB, TABLE, f"{ping(BOB, ALICE)} rematch?")
    assert d.notifications(ALICE) == [said] and d.notifications(BOB) == []
    assert said.author_id == BOB.id and said.mentioned_ids == [BOB.id, ALICE.id]


# ---------------------------------------------------------------------- chatter and events


async def test_without_guild_messages_the_bot_hears_no_chatter(tmp_path: Path) -> None:
    intents = discord.Intents.none()
    intents.guilds = True
    async with running_bot(tmp_path / "e2e.sqlite3", intents=intents) as d:
        before = d.fake.gateway_sequences()
        said = await d.say(BOB, TABLE, "anyone up for farkle?")
        await d.slash(ALICE, TABLE, "farkle start", rules="classic", target=5000)
        after = d.fake.gateway_sequences()
        assert [seq for _, seq in after] == [seq + 1 for _, seq in before]  # the command only
        assert d.last_message(TABLE) is not said
        assert d.channel_messages(TABLE)[0] is said


async def test_a_bot_with_guild_messages_hears_chatter_and_its_own_messages(
    tmp_path: Path,
) -> None:
    intents = discord.Intents.none()
    intents.guilds = intents.guild_messages = True
    async with running_bot(tmp_path / "e2e.sqlite3", intents=intents) as d:
        assert d.bot is not None
        heard: list[discord.Message] = []
        deleted: list[discord.RawMessageDeleteEvent] = []
        edited: list[discord.RawMessageUpdateEvent] = []

        async def on_message(message: discord.Message) -> None:
            heard.append(message)

        async def on_raw_message_delete(event: discord.RawMessageDeleteEvent) -> None:
            deleted.append(event)

        async def on_raw_message_edit(event: discord.RawMessageUpdateEvent) -> None:
            edited.append(event)

        for listener in (on_message, on_raw_message_delete, on_raw_message_edit):
            d.bot.add_listener(listener)

        said = await d.say(BOB, TABLE, "anyone up for farkle?")
        assert [(m.id, m.author.id, m.channel.id) for m in heard] == [(said.id, BOB.id, TABLE)]
        assert heard[0].content == ""  # no MESSAGE_CONTENT intent
        assert isinstance(heard[0].author, discord.Member) and heard[0].guild is not None

        opened = await d.slash(ALICE, TABLE, "farkle start", rules="classic", target=5000)
        assert opened.message is not None
        assert heard[-1].id == opened.message.id and heard[-1].author.id == d.fake.bot.id
        assert heard[-1].embeds  # its own message comes whole

        await d.click(BOB, TABLE, label="Join")
        assert edited and edited[-1].message_id == opened.message.id

        # A message mentioning the bot comes with its content. (Not at the start: GameBot's
        # prefix is a mention, and it has no text command "hello" to find.)
        to_bot = await d.say(CAROL, TABLE, f"hello <@{d.fake.bot.id}>")
        assert heard[-1].id == to_bot.id and heard[-1].content == f"hello <@{d.fake.bot.id}>"

        await d.bot.http.delete_message(TABLE, said.id)
        await d.settle()
        assert [e.message_id for e in deleted] == [said.id]
        assert said not in d.channel_messages(TABLE)
    assert d.problems == [], d.problems


async def test_message_content_intent_shows_what_users_say(tmp_path: Path) -> None:
    intents = discord.Intents.none()
    intents.guilds = intents.guild_messages = intents.message_content = True
    async with running_bot(tmp_path / "e2e.sqlite3", intents=intents) as d:
        assert d.bot is not None
        heard: list[str] = []

        async def on_message(message: discord.Message) -> None:
            heard.append(message.content)

        d.bot.add_listener(on_message)
        await d.say(BOB, TABLE, "gg")
        assert heard == ["gg"]
    assert d.problems == [], d.problems


# ---------------------------------------------------------------------- deleting


async def test_delete_a_message(fake: FakeDiscord) -> None:
    async with rest(fake) as api:
        mine = await api.post(TABLE, {"content": "old table"})
        theirs = await fake.say(BOB, TABLE, "chatter")
        path = f"/channels/{TABLE}/messages/"
        assert (await api("DELETE", path + str(mine.id)))[0] == 204
        assert mine.deleted and mine not in fake.public(TABLE)
        assert await api("DELETE", path + str(mine.id)) == (
            404,
            {"message": "Unknown Message", "code": 10008},
        )
        assert (await api("DELETE", path + "1234"))[1]["code"] == 10008
        assert (await api("DELETE", f"/channels/{LOUNGE}/messages/{theirs.id}"))[0] == 404
        # Anyone's message: the bot has Manage Messages. Edit it, though, it may not.
        assert (await api.edit(theirs, {"content": "x"}))[0] == 403
        assert (await api("DELETE", path + str(theirs.id)))[0] == 204
        assert fake.public(TABLE) == []


async def test_channel_history_newest_first_with_after_before_and_limit(fake: FakeDiscord) -> None:
    async with rest(fake) as api:
        posted = [await api.post(TABLE, {"content": f"m{i}"}) for i in range(5)]
        path = f"/channels/{TABLE}/messages"
        ids = [m.id for m in posted]

        async def read(query: str) -> list[int]:
            status, body = await api("GET", path + query)
            assert status == 200, body
            return [int(m["id"]) for m in body]

        assert await read("") == ids[::-1]  # newest first
        assert await read("?limit=2") == ids[:2:-1][:2] == [ids[4], ids[3]]
        assert await read(f"?after={ids[1]}&limit=2") == [ids[3], ids[2]]  # just after, newest first
        assert await read(f"?before={ids[3]}&limit=2") == [ids[2], ids[1]]
        assert (await api("GET", path + "?limit=101"))[0] == 400
        assert (await api("GET", path + "?after=x"))[0] == 400


# ---------------------------------------------------------------------- reading the channel


async def test_the_channel_as_everyone_sees_it(d: Driver) -> None:
    with pytest.raises(AssertionError):
        d.last_message(TABLE)
    old = d.fake.add_message(
        TABLE,
        content="finished game",
        components=[
            {
                **button_row(("Roll", "r")),
                "components": [
                    {"type": 2, "style": 2, "label": "Roll", "custom_id": "r", "disabled": True},
                    {"type": 2, "style": 5, "label": "Rules", "url": "https://example.com"},
                ],
            }
        ],
    )
    await d.slash(ALICE, TABLE, "farkle start", rules="classic", target=5000)
    await d.slash(BOB, TABLE, "farkle rules")  # an ephemeral answer only Bob sees
    lobby = d.table(TABLE)
    chat = await d.say(CAROL, TABLE, "I'll watch")
    assert d.channel_messages(TABLE) == [old, lobby, chat]
    assert d.last_message(TABLE) is chat
    assert d.messages_with_buttons(TABLE) == [lobby]
    assert old.live_components() == [] and lobby.live_components()


# ---------------------------------------------------------------------- DMs and nonces


async def test_a_dm_channel_opens_once_and_a_closed_dm_refuses_with_50007(
    fake: FakeDiscord,
) -> None:
    fake.add_user(ALICE)
    fake.add_user(BOB)
    fake.closed_dms.add(BOB.id)
    async with rest(fake) as api:
        status, first = await api("POST", "/users/@me/channels", {"recipient_id": str(ALICE.id)})
        assert status == 200 and first["type"] == 1
        status, again = await api("POST", "/users/@me/channels", {"recipient_id": str(ALICE.id)})
        assert again["id"] == first["id"]  # the same channel every time
        sent = await api.post(int(first["id"]), {"content": "your turn"})
        assert fake.direct_messages(ALICE.id) == [sent]
        status, bobs = await api("POST", "/users/@me/channels", {"recipient_id": str(BOB.id)})
        assert status == 200  # opening works; writing does not
        status, refused = await api("POST", f"/channels/{bobs['id']}/messages", {"content": "x"})
        assert (status, refused["code"]) == (403, 50007)
        assert fake.direct_messages(BOB.id) == []
        status, _ = await api("POST", "/users/@me/channels", {"recipient_id": "12345"})
        assert status == 400


async def test_an_enforced_nonce_creates_one_message_within_minutes(fake: FakeDiscord) -> None:
    async with rest(fake) as api:
        body = {"content": "<@1> reminder", "nonce": "r123", "enforce_nonce": True}
        first = await api.post(TABLE, body)
        again = await api.post(TABLE, body)
        assert again is first and len(fake.public(TABLE)) == 1
        loose = await api.post(TABLE, {"content": "x", "nonce": "r123"})  # not enforced
        assert loose is not first
        fake.advance_clock(301)  # Discord forgets nonces after a few minutes
        later = await api.post(TABLE, body)
        assert later is not first and len(fake.public(TABLE)) == 3
        status, _ = await api("POST", f"/channels/{TABLE}/messages", {**body, "nonce": "x" * 26})
        assert status == 400  # a nonce is at most 25 characters: a bug of the bot's
        assert len(fake.violations) == 1 and "at nonce" in fake.violations[0]
        fake.violations.clear()
