"""The fake's user installs: apps a user added to their account, used in DMs, group DMs and
servers that never added the bot, as Discord documents them (Receiving and Responding,
Application Commands "Contexts", Permissions "Use External Apps")."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest

from tests.e2e.fake_discord import (
    APPLICATION_COMMAND,
    BOT_DM_PERMISSIONS,
    BOT_PERMISSIONS,
    EPHEMERAL,
    EXTERNAL_APP_PERMISSIONS,
    GUILD_MESSAGES,
    MESSAGE_COMPONENT,
    TOKEN_LIFETIME,
    USE_EXTERNAL_APPS,
    CannotInvoke,
    FakeDiscord,
    InteractionRecord,
    button_row,
)
from tests.e2e.harness import ALICE, BOB, CAROL, GUILD, TABLE, Driver
from tests.e2e.test_fake_discord import Rest, rest

ELSEWHERE, OUTSIDE = 3_000_000_000_000_000_001, 3_000_000_000_000_000_002
EVERYWHERE = {
    "name": "play",
    "description": "Play",
    "integration_types": [0, 1],
    "contexts": [0, 1, 2],
}
SERVER_ONLY = {"name": "farkle", "description": "Farkle"}  # no contexts: the defaults


@contextlib.asynccontextmanager
async def started(**kwargs: Any) -> AsyncIterator[tuple[FakeDiscord, Rest]]:
    """A fake with the test server, a server that never added the app (OUTSIDE in
    ELSEWHERE), the global commands above, and Alice's user install."""
    fake = FakeDiscord(**kwargs)
    fake.add_guild(GUILD, "Game night", {TABLE: "games"}, owner_id=ALICE.id)
    fake.add_user_install_channel(OUTSIDE, "general", guild_id=ELSEWHERE, owner_id=CAROL.id)
    fake.install(ALICE)
    await fake.start()
    try:
        async with rest(fake) as api:
            status, _ = await api(
                "PUT", f"/applications/{fake.app_id}/commands", [EVERYWHERE, SERVER_ONLY]
            )
            assert status == 200
            yield fake, api
    finally:
        await fake.stop()
    assert fake.violations == [], fake.violations


def command(fake: FakeDiscord, name: str) -> dict[str, Any]:
    cmd = next(c for c in fake.commands[None] if c["name"] == name)
    return {"id": cmd["id"], "name": name, "type": 1}


def slash(fake: FakeDiscord, user: Any, channel: int, name: str = "play") -> InteractionRecord:
    """The command as the client sends it: built, not registered (nobody need answer it)."""
    return fake.interaction_payload(APPLICATION_COMMAND, user, channel, command(fake, name))


def sent(fake: FakeDiscord, user: Any, channel: int, name: str = "play") -> InteractionRecord:
    """The command sent to the app, which must answer it."""
    return fake.register(slash(fake, user, channel, name))


def hook(fake: FakeDiscord, rec: InteractionRecord) -> str:
    return f"/webhooks/{fake.app_id}/{rec.token}"


def callback(rec: InteractionRecord) -> str:
    return f"/interactions/{rec.id}/{rec.token}/callback"


async def test_the_server_that_added_the_bot_is_as_before() -> None:
    async with started() as (fake, _):
        p = slash(fake, BOB, TABLE, "farkle").payload
        assert (p["context"], p["authorizing_integration_owners"]) == (0, {"0": str(GUILD)})
        assert p["guild_id"] == str(GUILD) and "member" in p and "user" not in p
        assert p["app_permissions"] == str(BOT_PERMISSIONS)
        assert int(p["member"]["permissions"]) & USE_EXTERNAL_APPS == 0
        # Alice installed the app too: a command allowing user installs names both owners.
        owners = slash(fake, ALICE, TABLE).payload["authorizing_integration_owners"]
        assert owners == {"0": str(GUILD), "1": str(ALICE.id)}


async def test_each_place_sends_its_context_owners_and_permissions() -> None:
    async with started() as (fake, _):
        group = fake.add_group_dm([ALICE, BOB, CAROL]).id
        pair = fake.add_dm(ALICE, BOB).id
        own = fake.add_dm(ALICE, fake.bot).id
        seen = {}
        for place in (group, pair, own, OUTSIDE):
            p = slash(fake, ALICE, place).payload
            seen[place] = (
                p["context"],
                p["channel"]["type"],
                p["authorizing_integration_owners"],
                int(p["app_permissions"]),
                p.get("guild_id"),
                "member" in p,
                p.get("user", {}).get("id"),
            )
        me = str(ALICE.id)
        assert seen[group] == (2, 3, {"1": me}, EXTERNAL_APP_PERMISSIONS, None, False, me)
        assert seen[pair] == (2, 1, {"1": me}, EXTERNAL_APP_PERMISSIONS, None, False, me)
        assert seen[own] == (1, 1, {"0": "0", "1": me}, BOT_DM_PERMISSIONS, None, False, me)
        assert seen[OUTSIDE] == (
            0,
            0,
            {"1": me},
            EXTERNAL_APP_PERMISSIONS,
            str(ELSEWHERE),
            True,
            None,
        )
        p = slash(fake, ALICE, group).payload
        assert [u["id"] for u in p["channel"]["recipients"]] == [me, str(BOB.id), str(CAROL.id)]


async def test_a_command_is_refused_where_its_contexts_or_installs_do_not_reach() -> None:
    async with started() as (fake, api):
        group = fake.add_group_dm([ALICE, BOB]).id
        own = fake.add_dm(BOB, fake.bot).id
        with pytest.raises(CannotInvoke):  # Bob did not install the app
            slash(fake, BOB, group)
        with pytest.raises(CannotInvoke):
            slash(fake, BOB, OUTSIDE)
        with pytest.raises(CannotInvoke):  # a server install never reaches a group DM
            slash(fake, ALICE, group, "farkle")
        with pytest.raises(CannotInvoke):
            slash(fake, ALICE, OUTSIDE, "farkle")
        assert slash(fake, BOB, own, "farkle").payload["authorizing_integration_owners"] == {
            "0": "0"
        }
        status, _ = await api(
            "PUT", f"/applications/{fake.app_id}/commands", [{**EVERYWHERE, "contexts": [0]}]
        )
        assert status == 200
        with pytest.raises(CannotInvoke):
            slash(fake, ALICE, own)
        # A server's own commands: only there.
        status, _ = await api(
            "PUT", f"/applications/{fake.app_id}/guilds/{GUILD}/commands", [SERVER_ONLY]
        )
        scoped = fake.commands[GUILD][0]
        data = {"id": scoped["id"], "name": "farkle", "type": 1, "guild_id": str(GUILD)}
        with pytest.raises(CannotInvoke):
            fake.interaction_payload(APPLICATION_COMMAND, ALICE, own, data)
        fake.interaction_payload(APPLICATION_COMMAND, ALICE, TABLE, data)


async def test_commands_keep_their_contexts_and_integration_types() -> None:
    async with started() as (fake, api):
        stored = next(c for c in fake.commands[None] if c["name"] == "play")
        assert (stored["contexts"], stored["integration_types"]) == ([0, 1, 2], [0, 1])
        bad = [{**EVERYWHERE, "contexts": [3]}]
        status, data = await api("PUT", f"/applications/{fake.app_id}/commands", bad)
        assert (status, data["code"]) == (400, 50035)
        fake.violations.clear()


async def test_a_click_is_authorised_by_the_install_that_sent_the_message() -> None:
    async with started() as (fake, api):
        group = fake.add_group_dm([ALICE, BOB]).id
        rec = sent(fake, ALICE, group)
        body = {"type": 4, "data": {"content": "table", "components": [button_row(("Roll", "r"))]}}
        assert (await api("POST", callback(rec), body))[0] == 204
        assert rec.message is not None and rec.message.guild_id is None
        data = {"custom_id": "r", "component_type": 2, "id": 1}
        click = fake.interaction_payload(MESSAGE_COMPONENT, BOB, group, data, rec.message)
        p = click.payload
        assert p["authorizing_integration_owners"] == {"1": str(ALICE.id)}
        assert p["user"]["id"] == str(BOB.id) and p["context"] == 2


async def test_the_bot_cannot_reach_places_it_is_not_in_over_rest() -> None:
    async with started() as (fake, api):
        group = fake.add_group_dm([ALICE, BOB]).id
        pair = fake.add_dm(ALICE, BOB).id
        own = fake.add_dm(ALICE, fake.bot).id
        missing = (403, {"message": "Missing Access", "code": 50001})
        for place in (OUTSIDE, group, pair):
            assert await api("POST", f"/channels/{place}/messages", {"content": "hi"}) == missing
            assert await api("GET", f"/channels/{place}/messages") == missing
        rec = sent(fake, ALICE, OUTSIDE)
        assert (await api("POST", callback(rec), {"type": 4, "data": {"content": "hi"}}))[0] == 204
        assert rec.message is not None
        edit = f"/channels/{OUTSIDE}/messages/{rec.message.id}"
        assert await api("PATCH", edit, {"content": "x"}) == missing
        # The interaction's own webhook still works there, and the bot's DM is its own.
        status, _ = await api("PATCH", hook(fake, rec) + "/messages/@original", {"content": "x"})
        assert status == 200
        assert (await api("POST", f"/channels/{own}/messages", {"content": "hi"}))[0] == 200


async def test_no_gateway_events_from_a_server_without_the_bot() -> None:
    async with (
        started() as (fake, _),
        aiohttp.ClientSession() as http,
        http.ws_connect(fake.gateway_url) as ws,
    ):
        await ws.receive_json()  # HELLO
        identify = {"token": fake.token, "intents": GUILD_MESSAGES, "properties": {}}
        await ws.send_json({"op": 2, "d": identify})
        ready = await ws.receive_json()
        assert [g["id"] for g in ready["d"]["guilds"]] == [str(GUILD)]
        created = await ws.receive_json()
        assert (created["t"], created["d"]["id"]) == ("GUILD_CREATE", str(GUILD))
        await fake.say(ALICE, OUTSIDE, "not for the bot")
        await fake.say(ALICE, TABLE, "for the bot")
        event = json.loads((await ws.receive()).data)
        assert (event["t"], event["d"]["channel_id"]) == ("MESSAGE_CREATE", str(TABLE))


async def test_five_followups_for_an_app_not_in_the_server() -> None:
    async with started() as (fake, api):
        outside, inside = sent(fake, ALICE, OUTSIDE), sent(fake, ALICE, TABLE)
        for rec in (outside, inside):
            assert (await api("POST", callback(rec), {"type": 5}))[0] == 204
            for i in range(6):  # the first fills in "thinking...", then five new messages
                assert (await api("POST", hook(fake, rec), {"content": f"m{i}"}))[0] == 204
        status, data = await api("POST", hook(fake, outside), {"content": "one too many"})
        assert (status, data["code"]) == (400, 50035) and "at most 5" in data["message"]
        assert len(outside.followups) == 5
        # Installed in the server as well: no such limit.
        assert (await api("POST", hook(fake, inside), {"content": "more"}))[0] == 204
        assert len(inside.followups) == 6


async def test_interaction_tokens_last_fifteen_minutes() -> None:
    async with started(token_lifetime=TOKEN_LIFETIME) as (fake, api):
        rec = sent(fake, ALICE, TABLE)
        assert (await api("POST", callback(rec), {"type": 4, "data": {"content": "hi"}}))[0] == 204
        fake.advance_clock(TOKEN_LIFETIME - 30)
        assert (await api("POST", hook(fake, rec), {"content": "still"}))[0] == 204
        fake.advance_clock(60)
        expired = (401, {"message": "Invalid Webhook Token", "code": 50027})
        assert await api("POST", hook(fake, rec), {"content": "late"}) == expired
        assert (
            await api("PATCH", hook(fake, rec) + "/messages/@original", {"content": "x"}) == expired
        )
        late = sent(fake, ALICE, TABLE)
        fake.advance_clock(TOKEN_LIFETIME + 1)
        assert (await api("POST", callback(late), {"type": 4, "data": {"content": "x"}}))[0] == 404
        del fake.interactions[late.id]  # never answered, on purpose
    async with started() as (fake, api):  # the default: tokens keep working
        rec = sent(fake, ALICE, TABLE)
        assert (await api("POST", callback(rec), {"type": 4, "data": {"content": "hi"}}))[0] == 204
        fake.advance_clock(3 * TOKEN_LIFETIME)
        assert (await api("POST", hook(fake, rec), {"content": "fine"}))[0] == 204


async def test_without_use_external_apps_answers_are_for_the_invoker_only() -> None:
    async with started() as (fake, api):
        closed = OUTSIDE + 1
        fake.add_user_install_channel(
            closed, "quiet", guild_id=ELSEWHERE + 1, owner_id=CAROL.id, use_external_apps=False
        )
        shut, open_ = sent(fake, ALICE, closed), sent(fake, ALICE, OUTSIDE)
        assert int(shut.payload["member"]["permissions"]) & USE_EXTERNAL_APPS == 0
        assert int(open_.payload["member"]["permissions"]) & USE_EXTERNAL_APPS
        for rec in (shut, open_):
            body = {"type": 4, "data": {"content": "a public table"}}
            assert (await api("POST", callback(rec), body))[0] == 204
            assert (await api("POST", hook(fake, rec), {"content": "and more"}))[0] == 204
        assert [m.flags & EPHEMERAL for m in shut.messages()] == [EPHEMERAL, EPHEMERAL]
        assert fake.public(closed) == [] and len(fake.visible(ALICE.id, closed)) == 2
        assert fake.visible(BOB.id, closed) == []
        assert [m.ephemeral for m in open_.messages()] == [False, False]
        assert not any(s.public for s in fake.sent if s.channel_id == closed)


async def test_the_driver_types_commands_in_the_new_places(d: Driver) -> None:
    """`d.slash` reaches every place the bot's global commands allow: the games and /help
    wherever the user installed the app, /config only in a server that added the bot; a user
    who did not install it is offered nothing outside such a server."""
    d.fake.install(ALICE)
    group = d.fake.add_group_dm([ALICE, BOB]).id
    own = d.fake.add_dm(ALICE, d.fake.bot).id
    for place in (group, own):
        rec = await d.slash(ALICE, place, "help")
        assert rec.payload["authorizing_integration_owners"]["1"] == str(ALICE.id)
        with pytest.raises(CannotInvoke):
            await d.slash(ALICE, place, "config show")
    with pytest.raises(CannotInvoke):
        await d.slash(BOB, group, "help")
    rec = await d.slash(ALICE, TABLE, "config show")
    assert rec.payload["authorizing_integration_owners"] == {"0": str(GUILD)}
    rec = await d.slash(BOB, TABLE, "help")
    assert rec.payload["authorizing_integration_owners"] == {"0": str(GUILD)}


async def test_discord_py_reads_the_new_places(d: Driver) -> None:
    """The real client parses each place's interaction: its context, channel, owners and the
    invoker's "Use External Apps"."""
    assert d.bot is not None
    d.fake.install(ALICE)
    d.fake.add_user_install_channel(
        OUTSIDE, "quiet", guild_id=ELSEWHERE, owner_id=CAROL.id, use_external_apps=False
    )
    places = {
        d.fake.add_group_dm([ALICE, BOB]).id: discord.GroupChannel,
        d.fake.add_dm(ALICE, BOB).id: discord.DMChannel,
        d.fake.add_dm(ALICE, d.fake.bot).id: discord.DMChannel,
    }
    async with rest(d.fake) as api:
        path = f"/applications/{d.fake.app_id}/commands"
        assert (await api("PUT", path, [EVERYWHERE]))[0] == 200
    for place, kind in places.items():
        rec = slash(d.fake, ALICE, place)
        it = discord.Interaction(data=rec.payload, state=d.bot._connection)
        assert it.guild_id is None and isinstance(it.channel, kind)
        assert it.is_user_integration() and it.user.id == ALICE.id
    it = discord.Interaction(data=slash(d.fake, ALICE, OUTSIDE).payload, state=d.bot._connection)
    assert it.context.guild and it.guild_id == ELSEWHERE and it.is_user_integration()
    assert not it.is_guild_integration() and not it.permissions.use_external_apps
