"""A small fake Discord on 127.0.0.1 for end-to-end tests: the gateway websocket (HELLO,
IDENTIFY -> READY + GUILD_CREATE, heartbeats, injected INTERACTION_CREATE, and MESSAGE_CREATE /
UPDATE / DELETE to a bot that asked for GUILD_MESSAGES) and the REST routes the bot uses, with a
store of the messages each user can see, whom each new message notified, and every edit.

It keeps its own clock (`FakeDiscord.now`, moved with `advance_clock`), so that a test can make
messages an hour old and meet Discord's limit on editing old messages (30046).

Every body the bot sends is checked against Discord's own OpenAPI description
(`tests/e2e/discord_api/openapi.json.gz`, Draft 2020-12) and against the limits Discord enforces
that the description misses. A body Discord would refuse is answered the way Discord answers
it (400, "Invalid Form Body") and recorded in `FakeDiscord.violations`.

Files come as multipart/form-data (payload_json and files[n]), checked against the
description's multipart schema, Discord's file limits and the body's `attachments`; a message
keeps its attachments until an edit's `attachments` leaves them out. The application's
emojis (list, create, delete) follow Discord's rules: names of 2-32 letters, digits and
underscores, unique; a PNG, JPEG or GIF of at most 256 KiB; 2000 at most.

User installs (Receiving and Responding; Application Commands, "Contexts"; Permissions): a
user may add the app to their account (`install`) and use it in the bot's DM, a DM or group
DM of users (`add_dm`, `add_group_dm`) and a server that never added the bot
(`add_user_install_channel`). Each interaction carries the place's `context`,
`authorizing_integration_owners` and `app_permissions` (`user` and no guild in a DM); a command
whose `contexts` / `integration_types` do not reach the place raises `CannotInvoke`. The bot
gets no events from places it is not in and is refused there over REST (403, 50001); an app
only the user installed may send 5 follow-ups an interaction, and its answers are ephemeral
in a server without "Use External Apps". With `token_lifetime=TOKEN_LIFETIME` interaction
tokens expire after Discord's 15 minutes (401, 50027); by default they keep working.

It knows nothing of the bot: it speaks Discord, as far as the bot needs it."""

from __future__ import annotations

import asyncio
import base64
import binascii
import copy
import functools
import gzip
import io
import json
import mimetypes
import os
import re
import time
import unicodedata
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote

import jsonschema_rs
import orjson
from aiohttp import WSMsgType, web
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from PIL import Image, UnidentifiedImageError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_PATH = Path(
    os.environ.get(
        "DISCORD_OPENAPI", Path(__file__).resolve().parent / "discord_api" / "openapi.json.gz"
    )
)
SPEC_URI = "urn:discord-openapi"

# Message flags.
EPHEMERAL = 1 << 6
LOADING = 1 << 7
COMPONENTS_V2 = 1 << 15

# Gateway intents.
GUILD_MESSAGES = 1 << 9
MESSAGE_CONTENT = 1 << 15

# Permissions.
MANAGE_GUILD = 1 << 5
MEMBER_PERMISSIONS = (
    (1 << 6)  # add reactions
    | (1 << 10)  # view channel
    | (1 << 11)  # send messages
    | (1 << 14)  # embed links
    | (1 << 15)  # attach files
    | (1 << 16)  # read message history
    | (1 << 31)  # use application commands
)
BOT_PERMISSIONS = MEMBER_PERMISSIONS | (1 << 13)  # + manage messages
# "Use External Apps" (Permissions page): without it a member's user-installed apps may still
# answer, but only ephemerally, in a server that did not add the app.
USE_EXTERNAL_APPS = 1 << 50
#: Connections the fake's HTTP server lets wait to be accepted (the kernel caps it at
#: net.core.somaxconn, 4,096 on current Linux).
LISTEN_BACKLOG = 4096
# What a user-installed app may do where its bot is not (Receiving and Responding,
# `app_permissions` footnote: ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE in (group) DMs with
# other users, USE_EXTERNAL_EMOJIS too in the bot's DM; the support article "Moderating Apps
# on Discord": an external app can only send messages, with attachments and embeds).
EXTERNAL_APP_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 17)
BOT_DM_PERMISSIONS = EXTERNAL_APP_PERMISSIONS | (1 << 18)

# Interaction context types and installation types (Receiving and Responding, "Interaction
# Context Types"; Application, "Application Integration Types"). Channel types: 1 DM, 3 group DM.
GUILD_CONTEXT, BOT_DM, PRIVATE_CHANNEL = 0, 1, 2
GUILD_INSTALL, USER_INSTALL = 0, 1
DM_CHANNEL, GROUP_DM_CHANNEL = 1, 3
TOKEN_LIFETIME = 15 * 60.0  # "Interaction tokens are valid for 15 minutes"
MAX_USER_APP_FOLLOWUPS = 5  # Create Followup Message: user-installed app not in the server

# Interaction and callback types.
APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 2, 3, 4, 5
CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 4, 5, 6, 7

DISCORD_EPOCH_MS = 1_420_070_400_000
ACK_DEADLINE = 3.0
OLD_MESSAGE_AGE = 3600.0  # past this age Discord allows a message only a few more edits
OLD_MESSAGE_EDITS = 3
MAX_EDITS_CODE = 30046
MAX_EDITS_MESSAGE = "Maximum number of edits to messages older than 1 hour reached."
JSON = dict[str, Any]

API_PREFIX = "/api/v10"
CALLBACK = "/interactions/{interaction_id}/{interaction_token}/callback"
WEBHOOK = "/webhooks/{webhook_id}/{webhook_token}"
WEBHOOK_ORIGINAL = "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
WEBHOOK_MESSAGE = "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"
GLOBAL_COMMANDS = "/applications/{application_id}/commands"
GUILD_COMMANDS = "/applications/{application_id}/guilds/{guild_id}/commands"
CHANNEL_MESSAGES = "/channels/{channel_id}/messages"
#: How long Discord remembers a message's nonce for `enforce_nonce` ("the past few
#: minutes"; the fake takes five).
NONCE_WINDOW = 300.0
CHANNEL_MESSAGE_PATH = "/channels/{channel_id}/messages/{message_id}"
APP_EMOJIS = "/applications/{application_id}/emojis"
MULTIPART = "multipart/form-data"
MAX_FILES = 10
MAX_UPLOAD = 10 * 1024 * 1024  # a bot's per-file limit in a server without boosts
MAX_EMOJI_BYTES = 256 * 1024
MAX_APP_EMOJIS = 2000
EMOJI_NAME = re.compile(r"[A-Za-z0-9_]{2,32}")
EMOJI_IMAGE = re.compile(r"data:image/(png|jpeg|gif|webp|avif);base64,(.*)", re.DOTALL)
FILE_FIELD = re.compile(r"files\[(\d+)\]")


def iso(ts: float | None = None) -> str:
    return datetime.fromtimestamp(time.time() if ts is None else ts, UTC).isoformat()


class FakeClock:
    """Discord's "now": the real time plus how far the test moved it forward. Moving it ages
    every message at once and keeps new snowflakes in step (the 3 s interaction deadline
    stays on the real clock)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("Discord's clock does not go back")
        self.offset += seconds


class Snowflakes:
    """Increasing, realistic snowflakes ((ms since the Discord epoch) << 22) on `clock`."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._last = 0
        self.clock = clock

    def __call__(self, at: float | None = None) -> int:
        ms = int((self.clock() if at is None else at) * 1000)
        self._last = max((ms - DISCORD_EPOCH_MS) << 22, self._last + 1)
        return self._last


def snowflake_time(snowflake: int) -> float:
    """When a snowflake was made (seconds since 1970)."""
    return ((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000


# ---------------------------------------------------------------------- people and places


@dataclass(frozen=True)
class FakeUser:
    """A Discord account. `manage_server` gives the Manage Server permission (0x20)."""

    id: int
    name: str
    manage_server: bool = False
    bot: bool = False
    #: The language the user's client is set to (the interaction's `locale`).
    locale: str = "en-US"

    @property
    def permissions(self) -> int:
        return MEMBER_PERMISSIONS | (MANAGE_GUILD if self.manage_server else 0)

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "username": self.name.lower().replace(" ", "_"),
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    def member_payload(self, permissions: int | None = None) -> JSON:
        return {
            "user": self.payload(),
            "roles": [],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "nick": None,
            "avatar": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "premium_since": None,
            "communication_disabled_until": None,
            "permissions": str(self.permissions if permissions is None else permissions),
        }

    def partial_member_payload(self) -> JSON:
        """The member as a gateway message event carries it (no user, no permissions)."""
        member = self.member_payload()
        del member["user"], member["permissions"]
        return member


class CannotInvoke(Exception):
    """What the Discord client shows instead of sending an interaction: the command is not
    available to this user in this place (its `contexts` / `integration_types`)."""


@dataclass
class FakeChannel:
    """A server text channel (type 0), or with `guild_id` None a DM (1) or group DM (3)
    between `recipients`."""

    id: int
    name: str
    guild_id: int | None
    position: int = 0
    type: int = 0
    recipients: list[FakeUser] = field(default_factory=list)

    def payload(self) -> JSON:
        if self.guild_id is None:
            private: JSON = {
                "id": str(self.id),
                "type": self.type,
                "last_message_id": None,
                "flags": 0,
                "recipients": [u.payload() for u in self.recipients],
            }
            if self.type == GROUP_DM_CHANNEL:
                owner = self.recipients[0].id
                private.update(name=self.name, icon=None, owner_id=str(owner))
            return private
        return {
            "id": str(self.id),
            "type": 0,
            "name": self.name,
            "guild_id": str(self.guild_id),
            "position": self.position,
            "permission_overwrites": [],
            "nsfw": False,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "parent_id": None,
            "flags": 0,
        }


@dataclass
class FakeGuild:
    id: int
    name: str
    owner_id: int
    channels: list[FakeChannel] = field(default_factory=list)
    member_count: int = 42
    #: False: a server that never added the app; its users may still use their own install.
    bot_member: bool = True
    #: The @everyone "Use External Apps" permission (on by default, as Discord sets it).
    use_external_apps: bool = True
    #: The server's preferred locale (Server Settings > Community), `guild_locale`.
    preferred_locale: str = "en-US"

    def payload(self, bot: FakeUser) -> JSON:
        everyone = {
            "id": str(self.id),
            "name": "@everyone",
            "permissions": str(MEMBER_PERMISSIONS),
            "position": 0,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "flags": 0,
            "icon": None,
            "unicode_emoji": None,
        }
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": self.preferred_locale,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "features": [],
            "roles": [everyone],
            "emojis": [],
            "stickers": [],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "large": False,
            "unavailable": False,
            "member_count": self.member_count,
            "voice_states": [],
            "members": [bot.member_payload(BOT_PERMISSIONS)],
            "channels": [c.payload() for c in self.channels],
            "threads": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "lazy": True,
            "application_id": None,
        }


# ---------------------------------------------------------------------- messages


def walk_components(components: list[JSON]) -> Iterator[JSON]:
    """Every component, depth first (rows, containers, sections' accessories, labels)."""
    for c in components:
        yield c
        yield from walk_components(c.get("components") or [])
        for key in ("accessory", "component"):
            if isinstance(c.get(key), dict):
                yield from walk_components([c[key]])


def embed_text_length(embed: JSON) -> int:
    """The characters Discord counts towards the 6000 limit of a message's embeds."""
    n = len(embed.get("title") or "") + len(embed.get("description") or "")
    n += len((embed.get("footer") or {}).get("text") or "")
    n += len((embed.get("author") or {}).get("name") or "")
    for f in embed.get("fields") or []:
        n += len(f.get("name") or "") + len(f.get("value") or "")
    return n


def embed_text(embed: JSON) -> str:
    parts = [embed.get("title") or "", embed.get("description") or ""]
    for f in embed.get("fields") or []:
        parts += [f.get("name") or "", f.get("value") or ""]
    parts.append((embed.get("footer") or {}).get("text") or "")
    return "\n".join(p for p in parts if p)


@dataclass
class FakeMessage:
    """A message as Discord stores it. An ephemeral message is seen by `visible_to` only."""

    id: int
    channel_id: int
    guild_id: int | None
    author: JSON
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    flags: int = 0
    visible_to: int | None = None
    type: int = 0
    interaction_metadata: JSON | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    created_at: float = field(default_factory=time.time)  # on the fake's clock
    edited_at: float | None = None
    edits: int = 0
    late_edits: int = 0  # accepted edits made when the message was over an hour old
    deleted: bool = False
    allowed_mentions: JSON | None = None  # as sent in the body that created the message
    mentions: list[JSON] = field(default_factory=list)  # users pinged by the content, as allowed
    notified: list[int] = field(default_factory=list)  # whom its creation notified
    attachments: list[JSON] = field(default_factory=list)  # as Discord lists them
    files: dict[str, bytes] = field(default_factory=dict)  # attachment id -> the bytes

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    def visible_for(self, user_id: int) -> bool:
        return not self.deleted and (not self.ephemeral or self.visible_to == user_id)

    def all_components(self) -> list[JSON]:
        return list(walk_components(self.components))

    def buttons(self) -> list[JSON]:
        return [c for c in self.all_components() if c.get("type") == 2]

    def labels(self) -> list[str]:
        return [b.get("label") or "" for b in self.buttons()]

    def live_components(self) -> list[JSON]:
        """The buttons and selects a user can still use (enabled, with a custom_id)."""
        return [
            c
            for c in self.all_components()
            if c.get("type") in INTERACTIVE and c.get("custom_id") and not c.get("disabled")
        ]

    @property
    def author_id(self) -> int:
        return int(self.author["id"])

    @property
    def mentioned_ids(self) -> list[int]:
        return [int(u["id"]) for u in self.mentions]

    def find_component(
        self, *, label: str | None = None, custom_id: str | None = None
    ) -> JSON | None:
        """A component by custom_id, or a button by label (exact, else the first prefix match)."""
        comps = [c for c in self.all_components() if c.get("type") != 1]
        if custom_id is not None:
            return next((c for c in comps if c.get("custom_id") == custom_id), None)
        if label is not None:
            buttons = [c for c in comps if c.get("type") == 2]
            exact = [b for b in buttons if b.get("label") == label]
            if exact:
                return exact[0]
            return next((b for b in buttons if (b.get("label") or "").startswith(label)), None)
        return None

    def text(self) -> str:
        """Content and embed text, for assertions."""
        return "\n".join([self.content, *(embed_text(e) for e in self.embeds)]).strip()

    def attach(self, body: JSON, uploads: list[Upload], snowflake: Callable[[], int]) -> None:
        """The message's attachments after a body: with `attachments` in it, only those it
        lists are kept (and the uploads it names by index are added); without, the old ones
        stay and any upload is added."""
        listed = body.get("attachments")
        if listed is None and not uploads:
            return
        kept = self.attachments
        if listed is not None:
            ids = {str(a.get("id")) for a in listed}
            kept = [a for a in self.attachments if a["id"] in ids]
        added = []
        for up in uploads:
            aid = str(snowflake())
            added.append(up.attachment(aid, self.channel_id))
            self.files[aid] = up.data
        self.attachments = kept + added
        self.files = {a["id"]: self.files[a["id"]] for a in self.attachments}

    def apply(self, body: JSON, now: float | None = None) -> None:
        """An edit: fields present in the body replace the stored ones; flags keep ephemeral."""
        if "content" in body:
            self.content = body["content"] or ""
        if "embeds" in body:
            self.embeds = copy.deepcopy(body["embeds"] or [])
        if "components" in body:
            self.components = number_components(copy.deepcopy(body["components"] or []))
        if body.get("flags") is not None:
            keep = self.flags & (EPHEMERAL | COMPONENTS_V2)
            self.flags = (int(body["flags"]) & ~(EPHEMERAL | LOADING)) | keep
        self.flags &= ~LOADING
        self.edits += 1
        self.edited_at = time.time() if now is None else now

    def payload(self) -> JSON:
        out: JSON = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "type": self.type,
            "author": self.author,
            "content": self.content,
            "timestamp": iso(self.created_at),
            "edited_timestamp": None if self.edited_at is None else iso(self.edited_at),
            "tts": False,
            "mention_everyone": False,
            "mentions": json_copy(self.mentions),
            "mention_roles": [],
            "mention_channels": [],
            "attachments": json_copy(self.attachments),
            "embeds": json_copy(self.embeds),
            "components": json_copy(self.components),
            "reactions": [],
            "pinned": False,
            "flags": self.flags,
        }
        if self.guild_id is not None and not self.ephemeral:
            out["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            out["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            out["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            out["interaction_metadata"] = json_copy(self.interaction_metadata)
        return out


INTERACTIVE = (2, 3, 5, 6, 7, 8)  # button, string / user / role / mentionable / channel select
MENTION = re.compile(r"<@!?(\d+)>")


def mentioned_ids(content: str) -> list[int]:
    """The users a message's text mentions (<@id> or <@!id>), in order, once each."""
    return list(dict.fromkeys(int(m) for m in MENTION.findall(content)))


def allowed_user_ids(ids: list[int], allowed_mentions: JSON | None) -> list[int]:
    """The mentioned users that `allowed_mentions` lets Discord ping: all of them when it parses
    "users" or is absent (the fake's stand-in for the sender's default), else only those it
    lists. Mentions in embeds are never parsed, so never reach here."""
    if allowed_mentions is None or "users" in (allowed_mentions.get("parse") or []):
        return ids
    listed = {int(u) for u in allowed_mentions.get("users") or []}
    return [i for i in ids if i in listed]


def button_row(*buttons: tuple[str, str], style: int = 2) -> JSON:
    """An action row of (label, custom_id) buttons, for planted messages."""
    return {
        "type": 1,
        "components": [
            {"type": 2, "style": style, "label": label, "custom_id": cid} for label, cid in buttons
        ],
    }


def number_components(components: list[JSON]) -> list[JSON]:
    """Discord gives every component without an `id` a number, counting from 1."""
    used = {c["id"] for c in walk_components(components) if isinstance(c.get("id"), int)}
    n = 0
    for c in walk_components(components):
        if not isinstance(c.get("id"), int):
            n += 1
            while n in used:
                n += 1
            c["id"] = n
    return components


# ---------------------------------------------------------------------- interactions


@dataclass
class InteractionRecord:
    """One interaction the harness injected, and how the bot answered it."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel_id: int
    guild_id: int | None
    payload: JSON
    message_id: int | None = None  # the message a component sits on
    dispatched_at: float = 0.0
    acked_at: float | None = None
    callback_type: int | None = None
    callback_body: JSON | None = None
    message: FakeMessage | None = None  # created (types 4, 5) or updated (6, 7) by the callback
    followups: list[FakeMessage] = field(default_factory=list)
    acked: asyncio.Future[InteractionRecord] | None = None

    @property
    def latency(self) -> float | None:
        """Seconds from the INTERACTION_CREATE dispatch to the callback."""
        return None if self.acked_at is None else self.acked_at - self.dispatched_at

    @property
    def ephemeral(self) -> bool:
        return self.message is not None and self.message.ephemeral

    @property
    def text(self) -> str:
        """What the answer says: the callback's message, then the followups."""
        msgs = ([self.message] if self.message else []) + self.followups
        return "\n".join(m.text() for m in msgs)

    def messages(self) -> list[FakeMessage]:
        return ([self.message] if self.message else []) + self.followups


@dataclass
class Upload:
    """A file part of a multipart body (`files[n]`)."""

    field: str
    filename: str
    content_type: str
    data: bytes

    @property
    def index(self) -> int:
        m = FILE_FIELD.fullmatch(self.field)
        return int(m[1]) if m else -1

    def attachment(self, attachment_id: str, channel_id: int) -> JSON:
        url = f"https://cdn.discordapp.com/attachments/{channel_id}/{attachment_id}/{self.filename}"
        out: JSON = {
            "id": attachment_id,
            "filename": self.filename,
            "size": len(self.data),
            "url": url,
            "proxy_url": url,
            # Discord names the type from the file name (discord.py sends octet-stream).
            "content_type": mimetypes.guess_type(self.filename)[0] or self.content_type,
        }
        try:
            with Image.open(io.BytesIO(self.data)) as image:
                out["width"], out["height"] = image.size
        except (UnidentifiedImageError, OSError):
            pass
        return out


def upload_limits(body: Any, uploads: list[Upload], parts: list[str]) -> list[str]:
    """What Discord refuses in a multipart body that the description does not say: parts
    other than payload_json and files[0-9], more than 10 files, an empty or too large file,
    and uploads the body's `attachments` does not name by their index."""
    problems = [
        f"unexpected part {p!r}"
        for p in parts
        if p != "payload_json" and not FILE_FIELD.fullmatch(p)
    ]
    if len(uploads) > MAX_FILES:
        problems.append(f"{len(uploads)} files (at most {MAX_FILES})")
    for up in uploads:
        if not up.data:
            problems.append(f"{up.field}: empty file")
        if len(up.data) > MAX_UPLOAD:
            problems.append(f"{up.field}: {len(up.data)} bytes (at most {MAX_UPLOAD})")
        if not 0 <= up.index < MAX_FILES:
            problems.append(f"{up.field}: no such file field")
    data = body.get("data") if isinstance(body, dict) and "type" in body else body
    listed = data.get("attachments") if isinstance(data, dict) else None
    if listed is not None and uploads:
        named = {str(a.get("id")) for a in listed}
        problems += [
            f"{up.field} is not in attachments (ids {sorted(named)})"
            for up in uploads
            if str(up.index) not in named
        ]
    return problems


def custom_emoji_ids(body: Any) -> list[int]:
    """The ids of the custom emojis a message body's buttons and select options show."""
    data = body.get("data") if isinstance(body, dict) and "type" in body else body
    components = data.get("components") if isinstance(data, dict) else None
    found = []
    for c in walk_components(components or []):
        for emoji in [c.get("emoji"), *(o.get("emoji") for o in c.get("options") or [])]:
            if isinstance(emoji, dict) and emoji.get("id") is not None:
                found.append(int(emoji["id"]))
    return found


def emoji_image_problem(image: Any) -> str | None:
    """Why Discord would refuse an emoji's image data URI, or None."""
    m = EMOJI_IMAGE.fullmatch(image) if isinstance(image, str) else None
    if m is None:
        return "image must be a data URI of a PNG, JPEG, GIF, WebP or AVIF"
    try:
        raw = base64.b64decode(m[2], validate=True)
    except (binascii.Error, ValueError):
        return "image is not valid base64"
    if len(raw) > MAX_EMOJI_BYTES:
        return f"File cannot be larger than 256.0 kb ({len(raw)} bytes)"
    try:
        with Image.open(io.BytesIO(raw)) as img:
            img.verify()
    except (UnidentifiedImageError, OSError, SyntaxError):
        return "image is not a valid image"
    return None


@dataclass(frozen=True)
class EditRecord:
    """One attempt to edit a message, accepted or refused (30046). `via` says how: "rest"
    (PATCH /channels/.../messages/{id}), "interaction" (callback type 7), "webhook" (PATCH
    .../messages/@original or /{id}) or "followup" (the first followup after a deferred
    "thinking..." fills that message in)."""

    message_id: int
    channel_id: int
    age_seconds: float
    refused: bool
    via: str
    at: float  # the fake's clock


# ---------------------------------------------------------------------- validation


@functools.lru_cache(maxsize=4)
def _description(path: str) -> dict[str, Any]:
    raw = Path(path).read_bytes()
    doc: dict[str, Any] = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    # Discord takes a snowflake as a JSON number too (discord.py sends allowed_mentions.users,
    # message_reference ids... as integers); the description only says string.
    schemas = doc["components"]["schemas"]
    schemas["SnowflakeType"] = {
        "anyOf": [schemas["SnowflakeType"], {"type": "integer", "minimum": 0}]
    }
    return doc


@functools.lru_cache(maxsize=4)
def _registry(path: str) -> Registry:
    return Registry().with_resource(
        SPEC_URI, Resource.from_contents(_description(path), default_specification=DRAFT202012)
    )


@functools.lru_cache(maxsize=4)
def _fast_registry(path: str) -> jsonschema_rs.Registry:
    return jsonschema_rs.Registry([(SPEC_URI, _description(path))])


@functools.lru_cache(maxsize=64)
def _fast_validator(spec: str, ref: str) -> jsonschema_rs.Draft202012Validator:
    """Compiled once per run for each request body's schema (every test has its own fake)."""
    return jsonschema_rs.Draft202012Validator({"$ref": ref}, registry=_fast_registry(spec))


def _pointer(*parts: str) -> str:
    esc = [p.replace("~", "~0").replace("/", "~1") for p in parts]
    return quote("/" + "/".join(esc), safe="/~")


#: Verdicts of SpecValidator.errors by (description, method, path, content, body as JSON):
#: the oldest forgotten past this many.
_VERDICTS: dict[tuple[str, str, str, str, str], list[str]] = {}
_VERDICTS_KEPT = 512


class SpecValidator:
    """Request bodies against the OpenAPI requestBody schemas (application/json)."""

    def __init__(self, path: Path = SPEC_PATH) -> None:
        if not path.exists():
            raise FileNotFoundError(f"Discord's OpenAPI description is missing: {path}")
        self.path = str(path)
        self.registry = _registry(str(path))
        self._validators: dict[tuple[str, str, str], Draft202012Validator] = {}

    @staticmethod
    def _ref(method: str, path: str, content: str) -> dict[str, str]:
        where = _pointer("paths", path, method, "requestBody", "content", content, "schema")
        return {"$ref": f"{SPEC_URI}#{where}"}

    def validator(
        self, method: str, path: str, content: str = "application/json"
    ) -> Draft202012Validator:
        key = (method, path, content)
        if key not in self._validators:
            ref = self._ref(method, path, content)
            self._validators[key] = Draft202012Validator(ref, registry=self.registry)
        return self._validators[key]

    def fast_validator(
        self, method: str, path: str, content: str = "application/json"
    ) -> jsonschema_rs.Draft202012Validator:
        """The same schema for jsonschema-rs (compiled Rust, some hundred times faster than
        jsonschema on the callbacks' schema), which only says whether a body is valid."""
        return _fast_validator(self.path, self._ref(method, path, content)["$ref"])

    def errors(
        self, method: str, path: str, body: Any, content: str = "application/json"
    ) -> list[str]:
        """What the schema says of `body`. A body seen before gets the same verdict without
        a second validation: every bot a test starts syncs the same commands, whose body
        (every command in every language) takes a quarter of a second to validate."""
        try:
            text = json.dumps(body, sort_keys=True)
        except (TypeError, ValueError):
            return self._errors(method, path, body, content)
        key = (self.path, method, path, content, text)
        if key not in _VERDICTS:
            if len(_VERDICTS) >= _VERDICTS_KEPT:
                _VERDICTS.pop(next(iter(_VERDICTS)))
            _VERDICTS[key] = self._errors(method, path, body, content)
        return list(_VERDICTS[key])

    def _errors(self, method: str, path: str, body: Any, content: str) -> list[str]:
        """A valid body passes jsonschema-rs alone; an invalid one is explained by jsonschema,
        whose errors say where it went wrong (and which must agree that it is invalid)."""
        if self.fast_validator(method, path, content).is_valid(body):
            return []
        errors = list(self.validator(method, path, content).iter_errors(body))
        if not errors:
            return ["schema: jsonschema-rs refuses this body and jsonschema accepts it"]
        best = _explain(best_match(errors))
        where = "/".join(map(str, best.absolute_path)) or "(body)"
        text = best.message
        if len(text) > 200:
            shown = json.dumps(best.instance)
            text = f"{best.validator} {best.validator_value!r} fails on {shown[:60]}... ({len(shown)} chars)"
        return [f"schema: at {where}: {text}"]


def _explain(error: ValidationError) -> ValidationError:
    """Descend through anyOf/oneOf into the one branch whose `type` fits the instance (the
    schemas are discriminated by a `type` field), so the message names the real problem."""
    while error.validator in ("anyOf", "oneOf") and error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for e in error.context:
            branches.setdefault(e.relative_schema_path[0], []).append(e)
        fitting = [
            errs
            for errs in branches.values()
            if not any(
                list(e.relative_path) == ["type"] or (not e.relative_path and e.validator == "type")
                for e in errs
            )
        ]
        if len(fitting) != 1:
            break
        error = best_match(fitting[0])
    return error


def _is_command_name(name: str) -> bool:
    """^[-_\\p{L}\\p{N}]{1,32}$ and lower case."""
    return (
        1 <= len(name) <= 32
        and all(ch in "-_" or unicodedata.category(ch)[0] in "LN" for ch in name)
        and name == name.lower()
    )


def message_limits(body: JSON, where: str = "") -> list[str]:
    """Limits Discord enforces on a message body that the OpenAPI description misses."""
    problems: list[str] = []
    content = body.get("content")
    if isinstance(content, str) and len(content) > 2000:
        problems.append(f"{where}content is {len(content)} chars (max 2000)")
    embeds = body.get("embeds") or []
    total = sum(embed_text_length(e) for e in embeds if isinstance(e, dict))
    if total > 6000:
        problems.append(f"{where}embeds hold {total} chars of text (max 6000)")
    components = body.get("components") or []
    v2 = bool((body.get("flags") or 0) & COMPONENTS_V2)
    if not v2 and len(components) > 5:
        problems.append(f"{where}{len(components)} action rows (max 5)")
    for c in walk_components(components):
        cid = c.get("custom_id")
        if isinstance(cid, str) and not 1 <= len(cid) <= 100:
            problems.append(f"{where}custom_id {cid!r} is {len(cid)} chars (1-100)")
        if c.get("type") == 1:
            children = c.get("components") or []
            buttons = [x for x in children if x.get("type") == 2]
            if len(buttons) > 5:
                problems.append(f"{where}an action row holds {len(buttons)} buttons (max 5)")
            if any(x.get("type") in (3, 5, 6, 7, 8) for x in children) and len(children) > 1:
                problems.append(f"{where}an action row holds a select and something else")
        if c.get("type") == 3 and len(c.get("options") or []) > 25:
            problems.append(f"{where}a select has {len(c['options'])} options (max 25)")
    custom_ids = [c["custom_id"] for c in walk_components(components) if c.get("custom_id")]
    if len(custom_ids) != len(set(custom_ids)):
        problems.append(f"{where}duplicate custom_id in one message")
    return problems + allowed_mentions_limits(body.get("allowed_mentions"), where)


def allowed_mentions_limits(allowed: Any, where: str = "") -> list[str]:
    """Discord refuses a kind both parsed and listed (MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE)."""
    if not isinstance(allowed, dict):
        return []
    parse = allowed.get("parse") or []
    return [
        f'{where}allowed_mentions: parse:["{kind}"] and {kind}: [ids] are mutually exclusive'
        for kind in ("users", "roles")
        if kind in parse and allowed.get(kind)
    ]


def new_message_limits(body: JSON) -> list[str]:
    """A message being created: the limits, and it must not be empty."""
    problems = message_limits(body)
    if not any(body.get(k) for k in ("content", "embeds", "components", "attachments", "poll")):
        problems.append("cannot send an empty message (50006)")
    return problems


def callback_limits(body: JSON) -> list[str]:
    data = body.get("data") or {}
    kind = body.get("type")
    if kind == CHANNEL_MESSAGE:
        return new_message_limits(data)
    if kind == UPDATE_MESSAGE:
        return message_limits(data)
    if kind == 8 and len(data.get("choices") or []) > 25:
        return ["autocomplete: more than 25 choices"]
    if kind == 9:
        return message_limits(data)
    return []


#: The locales Discord takes in `name_localizations` and `description_localizations`
#: (Reference, "Locales").
DISCORD_LOCALES = frozenset(
    ["id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th", "zh-CN", "ja", "zh-TW", "ko"]
)


def command_limits(commands: Any) -> list[str]:
    """Name and description rules of application commands (the description misses them),
    their localizations' too."""
    problems: list[str] = []
    if not isinstance(commands, list):
        return problems

    def check_localized(node: JSON, here: str, command_name: bool, name_limit: int) -> None:
        for key, limit in (("name_localizations", name_limit), ("description_localizations", 100)):
            for locale, text in (node.get(key) or {}).items():
                if locale not in DISCORD_LOCALES:
                    problems.append(f"{here}: {key} has an unknown locale {locale!r}")
                text = str(text)
                if not 1 <= len(text) <= limit:
                    problems.append(f"{here}: {key}[{locale}] is {len(text)} chars (1-{limit})")
                if key == "name_localizations" and command_name and not _is_command_name(text):
                    problems.append(f"{here}: {key}[{locale}] {text!r} is no command name")

    def check_unique(siblings: list[JSON], path: str) -> None:
        """Siblings' names stay distinct in every locale (a localized name, else the name)."""
        locales = {loc for o in siblings for loc in (o.get("name_localizations") or {})}
        for loc in sorted(locales):
            shown = [str((o.get("name_localizations") or {}).get(loc) or o.get("name")) for o in siblings]
            for name in {n for n in shown if shown.count(n) > 1}:
                problems.append(f"{path}: two options are called {name!r} in {loc}")

    def check_options(options: list[JSON], path: str, depth: int) -> None:
        check_unique(options, path)
        if len(options) > 25:
            problems.append(f"{path}: {len(options)} options (max 25)")
        seen_optional = False
        names: set[str] = set()
        for o in options:
            name = str(o.get("name", ""))
            here = f"{path} {name}"
            check_localized(o, here, True, 32)
            if not _is_command_name(name):
                problems.append(
                    f"{here}: option name must match ^[-_\\p{{L}}\\p{{N}}]{{1,32}}$ in lower case"
                )
            if name in names:
                problems.append(f"{here}: duplicate option name")
            names.add(name)
            desc = o.get("description") or ""
            if not 1 <= len(desc) <= 100:
                problems.append(f"{here}: description is {len(desc)} chars (1-100)")
            kind = o.get("type")
            if kind in (1, 2):
                if kind == 2 and depth > 0:
                    problems.append(f"{here}: subcommand group nested too deep")
                subs = o.get("options") or []
                if kind == 2 and any(s.get("type") != 1 for s in subs):
                    problems.append(f"{here}: a group may hold only subcommands")
                if kind == 1 and any(s.get("type") in (1, 2) for s in subs):
                    problems.append(f"{here}: a subcommand may not hold subcommands")
                check_options(subs, here, depth + 1)
                continue
            if o.get("required"):
                if seen_optional:
                    problems.append(f"{here}: required option after an optional one")
            else:
                seen_optional = True
            choices = o.get("choices") or []
            if len(choices) > 25:
                problems.append(f"{here}: {len(choices)} choices (max 25)")
            for ch in choices:
                check_localized(ch, f"{here} choice", False, 100)
                cname = str(ch.get("name", ""))
                if not 1 <= len(cname) <= 100:
                    problems.append(f"{here}: choice name {cname!r} is {len(cname)} chars (1-100)")
                if isinstance(ch.get("value"), str) and len(ch["value"]) > 100:
                    problems.append(f"{here}: choice value longer than 100 chars")

    names: set[tuple[int, str]] = set()
    for cmd in commands:
        name = str(cmd.get("name", ""))
        kind = cmd.get("type") or 1
        if (kind, name) in names:
            problems.append(f"/{name}: registered twice")
        names.add((kind, name))
        if kind != 1:
            continue
        check_localized(cmd, f"/{name}", True, 32)
        if not _is_command_name(name):
            problems.append(
                f"/{name}: name must match ^[-_\\p{{L}}\\p{{N}}]{{1,32}}$ in lower case"
            )
        desc = cmd.get("description") or ""
        if not 1 <= len(desc) <= 100:
            problems.append(f"/{name}: description is {len(desc)} chars (1-100)")
        check_options(cmd.get("options") or [], f"/{name}", 0)
        if _command_chars(cmd) > 8000:
            problems.append(f"/{name}: more than 8000 characters of names and descriptions")
    return problems


def _longest(node: JSON, key: str) -> int:
    """A field's length as the 8,000-character limit counts it: its longest localization,
    the default included."""
    texts = [str(node.get(key) or ""), *map(str, (node.get(f"{key}_localizations") or {}).values())]
    return max(map(len, texts))


def _command_chars(node: JSON) -> int:
    n = _longest(node, "name") + _longest(node, "description")
    for ch in node.get("choices") or []:
        n += _longest(ch, "name") + len(str(ch.get("value", "")))
    return n + sum(_command_chars(o) for o in node.get("options") or [])


# ---------------------------------------------------------------------- the server


class _Refused(Exception):
    """Answer the request with this response (Discord refusing it)."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        errors: JSON | None = None,
        *,
        extra: JSON | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        body: JSON = {"message": message, "code": code, **(extra or {})}
        if errors:
            body["errors"] = errors
        self.response = json_response(body, status=status, headers=headers)


def json_bytes(data: Any) -> bytes:
    """`data` as JSON: by orjson (json.dumps of a large interaction or message was the fake's
    biggest cost in the benchmarks' bursts, answers waiting behind it), or json.dumps for
    what orjson does not take (a forged number beyond 64 bits)."""
    try:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(data).encode()


def json_copy(value: Any) -> Any:
    """A deep copy of JSON data (a stored message's embeds, components...), by an orjson
    round trip: a few times faster than copy.deepcopy, which was a fifth of the fake's time
    in the benchmarks' bursts."""
    try:
        return orjson.loads(orjson.dumps(value))
    except TypeError:
        return copy.deepcopy(value)


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    # Exactly "application/json": discord.py compares the header to that string, and aiohttp
    # appends "; charset=utf-8" to json_response() and to any Response built from text=.
    return web.Response(
        body=json_bytes(data),
        status=status,
        content_type="application/json",
        headers=headers,
    )


@dataclass
class RequestLog:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    status: int = 0


_LOG = web.RequestKey("log", RequestLog)  # each request's own log entry
_FILES = web.RequestKey("files", list)  # the request's uploads (multipart files[n])


@dataclass
class SentBody:
    """A message body the bot sent and Discord accepted, and who can see the message it
    landed on: `public` unless that message is ephemeral (or the body is a modal or
    autocomplete choices, which only the user sees). Components count: any client can read
    a button's custom_id."""

    method: str
    path: str
    channel_id: int
    message_id: int | None
    public: bool
    body: Any


@dataclass
class _Gateway:
    ws: web.WebSocketResponse
    seq: int = 0
    shard: tuple[int, int] = (0, 1)
    identified: bool = False
    intents: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class FakeDiscord:
    """The fake. `start()` it, add guilds, point discord.py at `api_url` / `gateway_url`."""

    # Every fake made, so that test teardown can check the contracts of each (and forget it).
    created: ClassVar[list[FakeDiscord]] = []

    def __init__(
        self,
        *,
        app_id: int = 1_100_000_000_000_000_001,
        bot_name: str = "Tablebot",
        token: str = "fake-bot-token",
        ack_deadline: float = ACK_DEADLINE,
        heartbeat_interval: float = 41.25,
        spec_path: Path = SPEC_PATH,
        old_message_edits: int = OLD_MESSAGE_EDITS,
        old_message_edit_status: int = 400,
        token_lifetime: float | None = None,
    ) -> None:
        self.clock = FakeClock()
        self.snowflake = Snowflakes(self.clock)
        self.app_id = app_id
        self.bot = FakeUser(id=app_id, name=bot_name, bot=True)
        # Edits allowed to a message over an hour old, and the status refusing the next one
        # (400 here; 429 makes it a rate limit, which discord.py retries before raising).
        self.old_message_edits = old_message_edits
        self.old_message_edit_status = old_message_edit_status
        self.edits: list[EditRecord] = []
        #: Seconds an interaction token works on the fake's clock: Discord's TOKEN_LIFETIME
        #: (15 minutes) when given; None (the default) keeps tokens working, as tests that
        #: age messages by hours and still edit through a token were written for.
        self.token_lifetime = token_lifetime
        self.users: dict[int, FakeUser] = {self.bot.id: self.bot}
        self.token = token
        self.ack_deadline = ack_deadline
        self.heartbeat_interval = heartbeat_interval
        self.heartbeats = 0
        self.spec = SpecValidator(spec_path)
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, list[FakeMessage]] = {}
        self.commands: dict[int | None, list[JSON]] = {}
        #: Users who added the app to their account (a user install).
        self.installed: set[int] = set()
        self.interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}
        self.violations: list[str] = []
        self.requests: list[RequestLog] = []
        self.sent: list[SentBody] = []
        self.sent_hooks: list[Callable[[SentBody], None]] = []
        #: Called with (method, path, body) for every JSON or multipart body a request
        #: carries, as `_body` reads it, before Discord's checks accept or refuse it: the one
        #: place every message, interaction callback, follow-up and webhook edit passes
        #: (tests/e2e/language_check.py reads the texts there). A hook that raises is a
        #: violation, not a refusal.
        self.body_hooks: list[Callable[[str, str, Any], None]] = []
        #: Awaited with (stage, request) for every REST request: at "arrive", before the
        #: fake does anything with it, and at "answer", once done (what it made is there
        #: for everyone to see and press) but before its answer leaves. A test holds a
        #: request at one of them until something else happened, to play out a race the way
        #: the network can (a request slow to arrive, an answer slow to come back) without
        #: sleeping on luck.
        self.holds: list[Callable[[str, web.Request], Awaitable[None]]] = []
        self.uploads: list[Upload] = []  # every file the bot uploaded, accepted or not
        #: The application's emojis, by id; `emoji_refusal` = (status, code, message) makes
        #: every emoji creation fail that way (e.g. 403 Missing Permissions).
        self.emojis: dict[int, JSON] = {}
        self.emoji_refusal: tuple[int, int, str] | None = None
        self.max_emojis = MAX_APP_EMOJIS
        #: Refuse every body with a file, as a channel without Attach Files does.
        self.refuse_files = False
        self.identifies: list[JSON] = []
        #: Users who do not let the bot write to them (privacy settings, no server in
        #: common): the DM channel opens, a message in it is refused with 50007.
        self.closed_dms: set[int] = set()
        #: The messages posted with `enforce_nonce`, by (author, nonce), with when: the same
        #: nonce within `NONCE_WINDOW` seconds returns that message and creates none.
        self.nonces: dict[tuple[int, str], tuple[FakeMessage, float]] = {}
        self.in_flight = 0
        self._gateways: list[_Gateway] = []
        self._runner: web.AppRunner | None = None
        self.port = 0
        FakeDiscord.created.append(self)

    # ------------------------------------------------------------ setup

    def add_guild(
        self, guild_id: int, name: str, channels: dict[int, str], *, owner_id: int
    ) -> FakeGuild:
        guild = FakeGuild(id=guild_id, name=name, owner_id=owner_id)
        for pos, (cid, cname) in enumerate(channels.items()):
            ch = FakeChannel(id=cid, name=cname, guild_id=guild_id, position=pos)
            guild.channels.append(ch)
            self.channels[cid] = ch
            self.messages.setdefault(cid, [])
        self.guilds[guild_id] = guild
        return guild

    def add_user_install_channel(
        self,
        channel_id: int,
        name: str,
        *,
        guild_id: int,
        guild_name: str = "Elsewhere",
        owner_id: int,
        use_external_apps: bool = True,
    ) -> FakeChannel:
        """A channel of a server that never added the app (made on first use): the bot is no
        member, gets no event from it and may not use it over REST; only users who installed
        the app reach it there."""
        guild = self.guilds.get(guild_id)
        if guild is None:
            guild = FakeGuild(id=guild_id, name=guild_name, owner_id=owner_id, bot_member=False)
            self.guilds[guild_id] = guild
        if guild.bot_member:
            raise ValueError("the app is installed in that server")
        guild.use_external_apps = use_external_apps
        ch = FakeChannel(id=channel_id, name=name, guild_id=guild_id, position=len(guild.channels))
        guild.channels.append(ch)
        return self._add_channel(ch)

    def add_dm(self, a: FakeUser, b: FakeUser, channel_id: int | None = None) -> FakeChannel:
        """The DM between `a` and `b` (type 1); with the bot as either, the bot's DM."""
        cid = channel_id or self.snowflake()
        users = [self._remember(a), self._remember(b)]
        return self._add_channel(FakeChannel(cid, "", None, type=DM_CHANNEL, recipients=users))

    def add_group_dm(
        self, users: list[FakeUser], channel_id: int | None = None, name: str = "Group"
    ) -> FakeChannel:
        """A group DM (type 3) of `users` (the first owns it); never with the bot in it."""
        if not 2 <= len(users) <= 10 or any(u.bot for u in users):
            raise ValueError("a group DM holds 2 to 10 people, no bot")
        cid = channel_id or self.snowflake()
        members = [self._remember(u) for u in users]
        return self._add_channel(
            FakeChannel(cid, name, None, type=GROUP_DM_CHANNEL, recipients=members)
        )

    def _add_channel(self, ch: FakeChannel) -> FakeChannel:
        self.channels[ch.id] = ch
        self.messages.setdefault(ch.id, [])
        return ch

    def install(self, user: FakeUser, installed: bool = True) -> None:
        """`user` adds the app to their account (or, `installed=False`, removes it)."""
        self._remember(user)
        (self.installed.add if installed else self.installed.discard)(user.id)

    def context_of(self, channel_id: int) -> int:
        """The interaction context of a place: GUILD, BOT_DM or PRIVATE_CHANNEL."""
        ch = self.channels[channel_id]
        if ch.guild_id is not None:
            return GUILD_CONTEXT
        return BOT_DM if any(u.id == self.bot.id for u in ch.recipients) else PRIVATE_CHANNEL

    def bot_can_access(self, channel_id: int) -> bool:
        """Whether the bot's own REST calls reach the channel: a channel of a server that
        added it, or its own DM."""
        ch = self.channels[channel_id]
        if ch.guild_id is None:
            return self.context_of(channel_id) == BOT_DM
        return self.guilds[ch.guild_id].bot_member

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def start(self) -> None:
        app = web.Application(middlewares=[self._middleware])
        r = app.router
        r.add_get("/gateway", self._gateway)
        p = API_PREFIX
        r.add_get(p + "/gateway", self._get_gateway)
        r.add_get(p + "/gateway/bot", self._get_gateway_bot)
        r.add_get(p + "/users/@me", self._get_me)
        r.add_get(p + "/oauth2/applications/@me", self._get_application)
        r.add_get(p + "/applications/{application_id}/commands", self._get_commands)
        r.add_put(p + "/applications/{application_id}/commands", self._put_commands)
        r.add_get(
            p + "/applications/{application_id}/guilds/{guild_id}/commands", self._get_commands
        )
        r.add_put(
            p + "/applications/{application_id}/guilds/{guild_id}/commands", self._put_commands
        )
        r.add_post(p + "/interactions/{interaction_id}/{token}/callback", self._callback)
        r.add_post(p + "/webhooks/{application_id}/{token}", self._followup)
        for method in ("GET", "PATCH", "DELETE"):
            r.add_route(
                method,
                p + "/webhooks/{application_id}/{token}/messages/{message_id}",
                self._webhook_message,
            )
            r.add_route(
                method, p + "/channels/{channel_id}/messages/{message_id}", self._channel_message
            )
        r.add_get(p + "/applications/{application_id}/emojis", self._list_emojis)
        r.add_post(p + "/applications/{application_id}/emojis", self._create_emoji)
        r.add_route("GET", p + "/applications/{application_id}/emojis/{emoji_id}", self._one_emoji)
        r.add_route(
            "DELETE", p + "/applications/{application_id}/emojis/{emoji_id}", self._one_emoji
        )
        r.add_post(p + "/channels/{channel_id}/messages", self._create_channel_message)
        r.add_post(p + "/users/@me/channels", self._create_dm)
        r.add_get(p + "/channels/{channel_id}/messages", self._channel_history)
        r.add_route("*", "/{tail:.*}", self._unknown)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        # Discord takes any number of new connections at once; a listen queue of aiohttp's
        # default 128 would drop the rest of a burst's (a thousand answers opening a
        # connection each) and leave them to try again a second later.
        site = web.TCPSite(self._runner, "127.0.0.1", 0, backlog=LISTEN_BACKLOG)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        for gw in list(self._gateways):
            await gw.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------ the clock

    def now(self) -> float:
        """Discord's time (seconds since 1970): the real time plus every `advance_clock`."""
        return self.clock()

    def advance_clock(self, seconds: float) -> None:
        """Move Discord's clock forward: every message becomes `seconds` older, and messages
        made afterwards get later timestamps and snowflakes."""
        self.clock.advance(seconds)

    def age(self, message: FakeMessage) -> float:
        """How old the message is now, in seconds."""
        return self.now() - message.created_at

    # ------------------------------------------------------------ queries

    def message(self, message_id: int) -> FakeMessage | None:
        for msgs in self.messages.values():
            for m in msgs:
                if m.id == message_id:
                    return m
        return None

    def visible(self, user_id: int, channel_id: int) -> list[FakeMessage]:
        """Messages `user_id` sees in the channel, oldest first (public + their ephemerals)."""
        return [m for m in self.messages.get(channel_id, []) if m.visible_for(user_id)]

    def public(self, channel_id: int) -> list[FakeMessage]:
        """The messages everyone sees in the channel, oldest first."""
        return [m for m in self.messages.get(channel_id, []) if not m.deleted and not m.ephemeral]

    def notifications(self, user_id: int) -> list[FakeMessage]:
        """The messages whose creation notified `user_id`, oldest first (deleted ones too:
        the notification had gone out)."""
        mine = [m for msgs in self.messages.values() for m in msgs if user_id in m.notified]
        return sorted(mine, key=lambda m: m.id)

    def gateway_sequences(self) -> list[tuple[int, int]]:
        """(shard id, last sequence number sent) of each identified gateway connection."""
        return [(gw.shard[0], gw.seq) for gw in self._gateways if gw.identified]

    def ack_latencies(self) -> dict[int, float | None]:
        return {i: r.latency for i, r in self.interactions.items()}

    def public_bodies(self) -> list[SentBody]:
        """Every accepted body that landed on a message everyone in the channel sees."""
        return [s for s in self.sent if s.public]

    @property
    def gateway_connections(self) -> int:
        return len(self._gateways)

    async def wait_gateway_connections(self, n: int, timeout: float = 5.0) -> None:
        """Wait until exactly `n` gateway connections are open (a dead bot's one has gone)."""
        deadline = time.monotonic() + timeout
        while len(self._gateways) != n:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(self._gateways)} gateway connections, expected {n}")
            await asyncio.sleep(0.005)

    def violation(self, text: str) -> None:
        self.violations.append(text)

    def add_message(
        self,
        channel_id: int,
        *,
        content: str = "",
        embeds: list[JSON] | None = None,
        components: list[JSON] | None = None,
        author: FakeUser | None = None,
    ) -> FakeMessage:
        """Plant a public message (not validated, nobody notified, no gateway event): say one
        an older version of the bot left."""
        now = self.now()
        msg = FakeMessage(
            id=self.snowflake(now),
            channel_id=channel_id,
            guild_id=self.channels[channel_id].guild_id,
            author=self._remember(author or self.bot).payload(),
            content=content,
            embeds=copy.deepcopy(embeds or []),
            components=number_components(copy.deepcopy(components or [])),
            created_at=now,
        )
        self._set_mentions(msg, None)
        self.messages.setdefault(channel_id, []).append(msg)
        return msg

    async def say(self, user: FakeUser, channel_id: int, content: str) -> FakeMessage:
        """`user` posts `content` in the channel from a Discord client: stored, the users it
        mentions notified, and a MESSAGE_CREATE sent to a bot that asked for GUILD_MESSAGES
        (without the message's content unless it also asked for MESSAGE_CONTENT)."""
        if channel_id not in self.channels:
            raise KeyError(f"no channel {channel_id}")
        if not 1 <= len(content) <= 2000:
            raise ValueError("a message holds 1 to 2000 characters")
        msg = self._new_message(channel_id, {"content": content}, author=user)
        await self._message_event("MESSAGE_CREATE", msg)
        return msg

    def add_user(self, user: FakeUser) -> FakeUser:
        """Make a user known by name (mentions of users never seen show a made-up name)."""
        return self._remember(user)

    def _remember(self, user: FakeUser) -> FakeUser:
        self.users.setdefault(user.id, user)
        return user

    def _user(self, user_id: int) -> FakeUser:
        return self.users.get(user_id) or FakeUser(user_id, f"User {user_id}")

    # ------------------------------------------------------------ gateway

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        gw = _Gateway(ws)
        self._gateways.append(gw)
        try:
            await ws.send_str(
                json.dumps(
                    {
                        "op": 10,
                        "d": {"heartbeat_interval": int(self.heartbeat_interval * 1000)},
                        "s": None,
                        "t": None,
                    }
                )
            )
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    if msg.type == WSMsgType.BINARY:
                        self.violation("gateway: the bot sent a binary frame")
                    continue
                data = json.loads(msg.data)
                op = data.get("op")
                if op == 1:
                    self.heartbeats += 1
                    await ws.send_str(json.dumps({"op": 11, "d": None, "s": None, "t": None}))
                elif op == 2:
                    await self._identify(gw, data["d"])
                elif op == 6:
                    await self._send(gw, "RESUMED", {})
                elif op in (3, 4, 8, 31):
                    pass  # presence, voice state, member chunks, soundboard: nothing to do
                else:
                    self.violation(f"gateway: unexpected op {op}")
        finally:
            self._gateways.remove(gw)
        return ws

    async def _identify(self, gw: _Gateway, d: JSON) -> None:
        self.identifies.append(d)
        if d.get("token") != self.token:
            await gw.ws.close(code=4004, message=b"Authentication failed.")
            return
        shard = tuple(d.get("shard") or (0, 1))
        gw.shard = (int(shard[0]), int(shard[1]))
        gw.intents = int(d.get("intents") or 0)
        gw.identified = True
        mine = [g for g in self.guilds.values() if g.bot_member and self._serves(gw, g.id)]
        me = {**self.bot.payload(), "verified": True, "mfa_enabled": False, "flags": 0}
        await self._send(
            gw,
            "READY",
            {
                "v": 10,
                "user": me,
                "guilds": [{"id": str(g.id), "unavailable": True} for g in mine],
                "session_id": f"fake-session-{self.snowflake()}",
                "resume_gateway_url": self.gateway_url,
                "shard": list(gw.shard),
                "application": {"id": str(self.app_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "user_settings": {},
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": [],
                "session_type": "normal",
            },
        )
        for g in mine:
            await self._send(gw, "GUILD_CREATE", g.payload(self.bot))

    async def _send(self, gw: _Gateway, event: str, data: JSON) -> None:
        async with gw.lock:  # concurrent dispatches: frames whole and in sequence order
            gw.seq += 1
            frame = {"op": 0, "t": event, "s": gw.seq, "d": data}
            await gw.ws.send_str(json_bytes(frame).decode())

    @staticmethod
    def _serves(gw: _Gateway, guild_id: int) -> bool:
        """Whether the connection's shard is the guild's ((guild_id >> 22) % num_shards)."""
        return (guild_id >> 22) % gw.shard[1] == gw.shard[0]

    def _gateway_for(self, guild_id: int | None) -> _Gateway:
        for gw in self._gateways:
            if gw.identified and (guild_id is None or self._serves(gw, guild_id)):
                return gw
        raise RuntimeError("no identified gateway connection for that guild")

    async def dispatch(self, event: str, data: JSON, guild_id: int | None = None) -> None:
        await self._send(self._gateway_for(guild_id), event, data)

    # ------------------------------------------------------------ message events

    async def _message_event(self, event: str, msg: FakeMessage) -> bool:
        """MESSAGE_CREATE / UPDATE / DELETE of a guild message everyone sees, to each
        connection that asked for GUILD_MESSAGES, as Discord sends them (never for an
        ephemeral message). True when a connection was told; one that has gone away (a
        crashed bot) is skipped."""
        if msg.ephemeral or msg.guild_id is None or not self.guilds[msg.guild_id].bot_member:
            return False
        told = False
        for gw in list(self._gateways):
            if not (
                gw.identified and gw.intents & GUILD_MESSAGES and self._serves(gw, msg.guild_id)
            ):
                continue
            try:
                await self._send(gw, event, self._message_event_payload(event, msg, gw.intents))
            except (ConnectionError, RuntimeError):
                continue
            told = True
        return told

    def _message_event_payload(self, event: str, msg: FakeMessage, intents: int) -> JSON:
        """The event's `d`: the message with guild_id, its author's and mentioned users'
        partial members, and no content (text, embeds, components) without MESSAGE_CONTENT
        unless the message is the bot's own or mentions it."""
        assert msg.guild_id is not None
        ids = {"id": str(msg.id), "channel_id": str(msg.channel_id), "guild_id": str(msg.guild_id)}
        if event == "MESSAGE_DELETE":
            return ids
        data = {**msg.payload(), **ids}
        if msg.webhook_id is None:
            data["member"] = self._user(msg.author_id).partial_member_payload()
        for mentioned in data["mentions"]:
            mentioned["member"] = self._user(int(mentioned["id"])).partial_member_payload()
        if not self._content_visible(msg, intents):
            data.update(content="", embeds=[], attachments=[], components=[])
        return data

    def _content_visible(self, msg: FakeMessage, intents: int) -> bool:
        """Discord's rule for an app without the MESSAGE_CONTENT intent."""
        return bool(
            intents & MESSAGE_CONTENT
            or msg.author_id == self.bot.id
            or self.bot.id in msg.mentioned_ids
        )

    # ------------------------------------------------------------ interactions

    def interaction_payload(
        self,
        kind: int,
        user: FakeUser,
        channel_id: int,
        data: JSON,
        message: FakeMessage | None = None,
    ) -> InteractionRecord:
        """Build (not send) an INTERACTION_CREATE as Discord sends it from the channel: in a
        server `guild_id` and `member` (with permissions), in a (group) DM `user` and no guild;
        `context`, `authorizing_integration_owners` and `app_permissions` for the place
        (Receiving and Responding, "Interaction Object"). A command the user could not invoke
        there raises CannotInvoke; a component keeps the owners of the message's interaction."""
        self._remember(user)
        channel = self.channels[channel_id]
        context = self.context_of(channel_id)
        guild = self.guilds[channel.guild_id] if channel.guild_id is not None else None
        if kind == MESSAGE_COMPONENT and message is not None and message.interaction_metadata:
            owners = dict(message.interaction_metadata["authorizing_integration_owners"])
        else:
            owners = self.authorizing_owners(user, channel_id, self._command(data))
        iid = self.snowflake()
        token = f"aW50ZXJhY3Rpb24-{iid}-token"
        payload: JSON = {
            "id": str(iid),
            "application_id": str(self.app_id),
            "type": kind,
            "data": data,
            "channel_id": str(channel_id),
            "token": token,
            "version": 1,
            "app_permissions": str(self._app_permissions(channel_id)),
            "locale": user.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": owners,
            "context": context,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if guild is not None:
            perms = user.permissions
            if not guild.bot_member and guild.use_external_apps:
                perms |= USE_EXTERNAL_APPS  # how the app can tell its answers may be public
            payload.update(
                guild={"id": str(guild.id), "locale": guild.preferred_locale, "features": []},
                guild_id=str(guild.id),
                channel={**channel.payload(), "permissions": str(perms)},
                member=user.member_payload(perms),
                guild_locale=guild.preferred_locale,
            )
        else:
            payload.update(channel=channel.payload(), user=user.payload())
        if message is not None:
            payload["message"] = message.payload()
        return InteractionRecord(
            id=iid,
            token=token,
            type=kind,
            user=user,
            channel_id=channel_id,
            guild_id=guild.id if guild is not None else None,
            payload=payload,
            message_id=message.id if message else None,
        )

    def _command(self, data: JSON) -> JSON | None:
        """The registered command an APPLICATION_COMMAND's data names (by id)."""
        cid = data.get("id") if isinstance(data, dict) and "custom_id" not in data else None
        for cmds in self.commands.values():
            for cmd in cmds:
                if cid is not None and cmd["id"] == str(cid):
                    return cmd
        return None

    def authorizing_owners(self, user: FakeUser, channel_id: int, command: JSON | None) -> JSON:
        """The installations that let `user` use `command` (None: any) in the channel, as
        `authorizing_integration_owners` lists them ("0": the server's id, or "0" in the
        bot's DM; "1": the user's id), or CannotInvoke when there is none (Application
        Commands, "Contexts": a command's `contexts` default to all three, its
        `integration_types` to the app's default, here GUILD_INSTALL; a server's own commands
        only there)."""
        ch = self.channels[channel_id]
        context = self.context_of(channel_id)
        kinds = [GUILD_INSTALL] if command is None else command.get("integration_types")
        kinds = [GUILD_INSTALL] if kinds is None else kinds
        contexts = [GUILD_CONTEXT, BOT_DM, PRIVATE_CHANNEL] if command is None else None
        contexts = contexts or (command or {}).get("contexts") or [0, 1, 2]
        scoped = command is not None and "guild_id" in command
        if scoped:
            kinds, contexts = [GUILD_INSTALL], [GUILD_CONTEXT]
        owners: JSON = {}
        if context in contexts:
            if GUILD_INSTALL in kinds and context == GUILD_CONTEXT:
                assert ch.guild_id is not None
                here = not scoped or command["guild_id"] == str(ch.guild_id)
                if self.guilds[ch.guild_id].bot_member and here:
                    owners["0"] = str(ch.guild_id)
            elif GUILD_INSTALL in kinds and context == BOT_DM:
                owners["0"] = "0"
            if USER_INSTALL in kinds and user.id in self.installed:
                owners["1"] = str(user.id)
        if not owners:
            name = (command or {}).get("name", "this app")
            raise CannotInvoke(f"{user.name} cannot use /{name} in channel {channel_id}")
        return owners

    def _app_permissions(self, channel_id: int) -> int:
        ch = self.channels[channel_id]
        if ch.guild_id is not None and self.guilds[ch.guild_id].bot_member:
            return BOT_PERMISSIONS
        if self.context_of(channel_id) == BOT_DM:
            return BOT_DM_PERMISSIONS
        return EXTERNAL_APP_PERMISSIONS

    @staticmethod
    def user_app_only(rec: InteractionRecord) -> bool:
        """Whether only a user install authorised the interaction (the app is not in the
        server): the 5 follow-up limit and "Use External Apps" apply."""
        return set(rec.payload.get("authorizing_integration_owners") or {}) == {"1"}

    def forged_click(
        self, user: FakeUser, channel_id: int, custom_id: str, message: FakeMessage
    ) -> InteractionRecord:
        """A button click no real client sends: `custom_id` pressed on `message` whoever may
        see it (say another user's ephemeral). Discord still sends the message as it stores
        it, with its `interaction_metadata` (an ephemeral's: the user it was sent to)."""
        data = {"custom_id": custom_id, "component_type": 2, "id": 1}
        return self.interaction_payload(MESSAGE_COMPONENT, user, channel_id, data, message)

    async def inject(self, record: InteractionRecord) -> InteractionRecord:
        """Send the INTERACTION_CREATE; `record.acked` resolves when the bot answers."""
        self.register(record)
        await self.dispatch("INTERACTION_CREATE", record.payload, record.guild_id)
        return record

    def register(self, record: InteractionRecord) -> InteractionRecord:
        """Make the interaction known (its token usable) and start its 3 s clock, without
        sending it: `inject` does both."""
        record.acked = asyncio.get_running_loop().create_future()
        self.interactions[record.id] = record
        self._by_token[record.token] = record
        record.dispatched_at = time.perf_counter()
        return record

    def _sent(
        self,
        request: web.Request,
        channel_id: int,
        msg: FakeMessage | None,
        body: Any,
        *,
        public: bool | None = None,
    ) -> None:
        """Record an accepted body and who sees it, and tell the hooks."""
        if public is None:
            public = msg is not None and not msg.ephemeral
        sent = SentBody(
            request.method, request.path, channel_id, msg.id if msg else None, public, body
        )
        self.sent.append(sent)
        for hook in list(self.sent_hooks):
            try:
                hook(sent)
            except Exception as exc:
                self.violation(
                    f"a sent-body hook failed on {request.method} {request.path}: {exc!r}"
                )

    # ------------------------------------------------------------ plumbing

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.path == "/gateway":
            return await handler(request)
        self.in_flight += 1
        log = RequestLog(request.method, request.path, dict(request.query), None)
        self.requests.append(log)
        request[_LOG] = log
        try:
            # Interaction callbacks and webhooks are authorised by their token in the URL.
            token_auth = request.path.startswith(
                (API_PREFIX + "/interactions/", API_PREFIX + "/webhooks/")
            )
            if not token_auth and request.headers.get("Authorization") != f"Bot {self.token}":
                raise _Refused(401, 0, "401: Unauthorized")
            for hold in list(self.holds):
                await hold("arrive", request)
            response = await handler(request)
            for hold in list(self.holds):
                await hold("answer", request)
        except _Refused as refused:
            response = refused.response
        except web.HTTPException:
            raise
        except Exception as exc:  # a bug in the fake: never answer 5xx (discord.py retries)
            self.violation(f"fake Discord crashed on {request.method} {request.path}: {exc!r}")
            response = json_response({"message": f"fake crashed: {exc!r}", "code": 0}, 400)
        finally:
            self.in_flight -= 1
        log.status = response.status
        return response

    async def _body(
        self,
        request: web.Request,
        spec: tuple[str, str] | None,
        check: Callable[[Any], list[str]] | None = None,
    ) -> Any:
        """The JSON body, refused (400, recorded) if the schema or Discord's limits say no."""
        ctype = request.headers.get("Content-Type", "")
        uploads: list[Upload] = []
        problems: list[str] = []
        if ctype.startswith("multipart/"):
            body, uploads, parts = await self._multipart(request)
            problems += upload_limits(body, uploads, parts)
            if spec is not None:
                # The description lists the files as string fields beside the payload's.
                fields = {up.field: "(binary)" for up in uploads}
                instance = {**body, **fields} if isinstance(body, dict) else body
                problems += self.spec.errors(spec[0], spec[1], instance, MULTIPART)
        else:
            raw = await request.read()
            if raw:
                if not ctype.startswith("application/json"):
                    self.violation(f"{request.method} {request.path}: body sent as {ctype!r}")
                body = json.loads(raw)
            else:
                body = None
            if spec is not None:
                problems += self.spec.errors(spec[0], spec[1], body)
        request[_LOG].body = body
        request[_FILES] = uploads
        for hook in list(self.body_hooks):
            try:
                hook(request.method, request.path, body)
            except Exception as exc:
                self.violation(f"a body hook failed on {request.method} {request.path}: {exc!r}")
        self.uploads += uploads
        if uploads and self.refuse_files:
            raise _Refused(403, 50013, "Missing Permissions")
        # A component may show the application's own emojis only (the bot is in no server
        # with emojis of its own): another id is refused as Discord does.
        problems += [f"Invalid emoji: {i}" for i in custom_emoji_ids(body) if i not in self.emojis]
        if check is not None and isinstance(body, dict | list):
            problems += check(body)
        if problems:
            self._refuse_body(request, problems, body)
        return body

    @staticmethod
    async def _multipart(request: web.Request) -> tuple[Any, list[Upload], list[str]]:
        """payload_json (the JSON body), the files, and every part's name."""
        reader = await request.multipart()
        body: Any = {}
        uploads: list[Upload] = []
        parts: list[str] = []
        while (part := await reader.next()) is not None:
            name = getattr(part, "name", None) or ""
            parts.append(name)
            data = await part.read()  # type: ignore[union-attr]
            if name == "payload_json":
                body = json.loads(data)
            elif FILE_FIELD.fullmatch(name):
                ctype = part.headers.get("Content-Type", "application/octet-stream")
                filename = getattr(part, "filename", None) or "file"
                uploads.append(Upload(name, filename, ctype, bytes(data)))
        return body, uploads, parts

    def _refuse_body(self, request: web.Request, problems: list[str], body: Any) -> None:
        shown = json.dumps(body)[:600]
        for p in problems:
            self.violation(f"{request.method} {request.path}: {p}\n  body: {shown}")
        raise _Refused(
            400, 50035, "Invalid Form Body", {"_errors": [{"message": p} for p in problems]}
        )

    def _new_message(
        self,
        channel_id: int,
        body: JSON,
        *,
        visible_to: int | None = None,
        kind: int = 0,
        interaction: InteractionRecord | None = None,
        extra_flags: int = 0,
        author: FakeUser | None = None,
        uploads: list[Upload] | None = None,
    ) -> FakeMessage:
        """Store a new message (the bot's unless `author` says otherwise) and note whom its
        mentions notify: only a new message does, never an edit."""
        channel = self.channels[channel_id]
        flags = int(body.get("flags") or 0) | extra_flags
        now = self.now()
        msg = FakeMessage(
            id=self.snowflake(now),
            channel_id=channel_id,
            guild_id=channel.guild_id,
            author=self._remember(author or self.bot).payload(),
            content=body.get("content") or "",
            embeds=copy.deepcopy(body.get("embeds") or []),
            components=number_components(copy.deepcopy(body.get("components") or [])),
            flags=flags,
            visible_to=visible_to if flags & EPHEMERAL else None,
            type=kind,
            created_at=now,
            allowed_mentions=copy.deepcopy(body.get("allowed_mentions")),
        )
        msg.attach(body, uploads or [], lambda: self.snowflake(now))
        self._set_mentions(msg, msg.allowed_mentions)
        msg.notified = [u for u in msg.mentioned_ids if u != msg.author_id]
        if interaction is not None:
            msg.webhook_id = self.app_id
            msg.application_id = self.app_id
            # Whom the message answers: an ephemeral's owner is this `user`.
            msg.interaction_metadata = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": interaction.user.payload(),
                "authorizing_integration_owners": copy.deepcopy(
                    interaction.payload["authorizing_integration_owners"]
                ),
            }
            if interaction.type == MESSAGE_COMPONENT and interaction.message_id is not None:
                msg.interaction_metadata["interacted_message_id"] = str(interaction.message_id)
        self.messages.setdefault(channel_id, []).append(msg)
        return msg

    def _set_mentions(self, msg: FakeMessage, allowed_mentions: JSON | None) -> None:
        """The users the content pings, as `allowed_mentions` allows (none in an ephemeral)."""
        ids = (
            [] if msg.ephemeral else allowed_user_ids(mentioned_ids(msg.content), allowed_mentions)
        )
        msg.mentions = [self._user(i).payload() for i in ids]

    async def _edit(
        self, msg: FakeMessage, body: JSON, via: str, uploads: list[Upload] | None = None
    ) -> None:
        """Edit the message as Discord does, and record the attempt in `edits`: past an hour
        of age a message takes `old_message_edits` more edits, then each is refused (30046).
        An edit notifies nobody; a bot with GUILD_MESSAGES gets a MESSAGE_UPDATE."""
        now = self.now()
        age = now - msg.created_at
        old = age > OLD_MESSAGE_AGE
        refused = old and msg.late_edits >= self.old_message_edits
        self.edits.append(EditRecord(msg.id, msg.channel_id, age, refused, via, now))
        if refused:
            raise self._too_many_edits()
        msg.apply(body, now)
        msg.attach(body, uploads or [], lambda: self.snowflake(now))
        msg.late_edits += old
        self._set_mentions(msg, body.get("allowed_mentions", msg.allowed_mentions))
        await self._message_event("MESSAGE_UPDATE", msg)

    def _too_many_edits(self) -> _Refused:
        status = self.old_message_edit_status
        if status != 429:
            return _Refused(status, MAX_EDITS_CODE, MAX_EDITS_MESSAGE)
        # A rate limit as discord.py expects one (through Cloudflare: a Via header).
        extra = {"retry_after": 0.0, "global": False}
        return _Refused(
            429, MAX_EDITS_CODE, MAX_EDITS_MESSAGE, extra=extra, headers={"Via": "1.1 google"}
        )

    async def _delete(self, msg: FakeMessage) -> None:
        msg.deleted = True
        await self._message_event("MESSAGE_DELETE", msg)

    def _record(self, request: web.Request) -> InteractionRecord:
        rec = self._by_token.get(request.match_info["token"])
        app = request.match_info.get("application_id")
        if rec is None or (app is not None and app != str(self.app_id)):
            raise _Refused(404, 10015, "Unknown Webhook")
        if rec.callback_type is None:
            # Discord knows no webhook for an interaction that was never answered.
            self.violation(
                f"{request.method} {request.path}: webhook used before the interaction was acknowledged"
            )
            raise _Refused(404, 10015, "Unknown Webhook")
        if self.expired(rec):
            # Opcodes and Status Codes, JSON error 50027 "Invalid Webhook Token".
            raise _Refused(401, 50027, "Invalid Webhook Token")
        return rec

    def expired(self, rec: InteractionRecord) -> bool:
        """Whether the interaction's token is past `token_lifetime` (on the fake's clock)."""
        age = self.now() - snowflake_time(rec.id)
        return self.token_lifetime is not None and age > self.token_lifetime

    def _forced_ephemeral(self, rec: InteractionRecord) -> int:
        """EPHEMERAL when a user-installed app answers in a server that turned "Use External
        Apps" off (Permissions: its responses are then visible only to the invoker)."""
        guild = self.guilds.get(rec.guild_id) if rec.guild_id is not None else None
        off = guild is not None and not guild.use_external_apps and self.user_app_only(rec)
        return EPHEMERAL if off else 0

    # ------------------------------------------------------------ REST: login and commands

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        return json_response({"url": self.gateway_url, "shards": 1, "session_start_limit": limit})

    async def _get_me(self, request: web.Request) -> web.Response:
        return json_response(
            {**self.bot.payload(), "verified": True, "mfa_enabled": False, "flags": 0}
        )

    async def _get_application(self, request: web.Request) -> web.Response:
        owner = FakeUser(id=self.app_id + 1, name="Owner")
        return json_response(
            {
                "id": str(self.app_id),
                "name": self.bot.name,
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": owner.payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": 0,
                "summary": "",
                "tags": [],
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(self.guilds),
                "bot": self.bot.payload(),
            }
        )

    def _scope(self, request: web.Request) -> int | None:
        if request.match_info["application_id"] != str(self.app_id):
            raise _Refused(403, 50001, "Missing Access")
        guild = request.match_info.get("guild_id")
        if guild is None:
            return None
        if int(guild) not in self.guilds:
            raise _Refused(403, 50001, "Missing Access")
        return int(guild)

    async def _get_commands(self, request: web.Request) -> web.Response:
        return json_response(self.commands.get(self._scope(request), []))

    async def _put_commands(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        path = GLOBAL_COMMANDS if scope is None else GUILD_COMMANDS
        body = await self._body(request, ("put", path), command_limits)
        old = {(c.get("type", 1), c["name"]): c["id"] for c in self.commands.get(scope, [])}
        stored = []
        for cmd in body or []:
            kind = cmd.get("type") or 1
            out = {k: v for k, v in cmd.items() if v is not None}
            out.update(
                id=old.get((kind, cmd["name"])) or str(self.snowflake()),
                application_id=str(self.app_id),
                version=str(self.snowflake()),
                type=kind,
                description=cmd.get("description") or "",
            )
            if scope is not None:
                out["guild_id"] = str(scope)
            stored.append(out)
        self.commands[scope] = stored
        return json_response(stored)

    # ------------------------------------------------------------ REST: application emojis

    def emoji_names(self) -> list[str]:
        return [e["name"] for e in self.emojis.values()]

    async def _list_emojis(self, request: web.Request) -> web.Response:
        self._scope(request)
        return json_response({"items": list(self.emojis.values())})

    async def _create_emoji(self, request: web.Request) -> web.Response:
        self._scope(request)
        body = await self._body(request, ("post", APP_EMOJIS))
        if self.emoji_refusal is not None:
            status, code, message = self.emoji_refusal
            raise _Refused(status, code, message)
        problems = []
        name = body.get("name")
        if not isinstance(name, str) or not EMOJI_NAME.fullmatch(name):
            problems.append(f"name {name!r}: 2-32 letters, digits or underscores")
        image = emoji_image_problem(body.get("image"))
        if image is not None:
            problems.append(image)
        if problems:
            self._refuse_body(request, problems, {"name": name})
        if name in self.emoji_names():
            raise _Refused(
                400,
                50035,
                "Invalid Form Body",
                {
                    "name": {
                        "_errors": [
                            {
                                "code": "APPLICATION_EMOJI_NAME_ALREADY_TAKEN",
                                "message": "Application emoji names must be unique",
                            }
                        ]
                    }
                },
            )
        if len(self.emojis) >= self.max_emojis:
            raise _Refused(400, 30008, f"Maximum number of emojis reached ({self.max_emojis})")
        emoji_id = self.snowflake()
        emoji = {
            "id": str(emoji_id),
            "name": name,
            "roles": [],
            "user": self.bot.payload(),
            "require_colons": True,
            "managed": False,
            "animated": False,
            "available": True,
        }
        self.emojis[emoji_id] = emoji
        return json_response(emoji, status=201)

    async def _one_emoji(self, request: web.Request) -> web.StreamResponse:
        self._scope(request)
        raw = request.match_info["emoji_id"]
        emoji = self.emojis.get(int(raw)) if raw.isdigit() else None
        if emoji is None:
            raise _Refused(404, 10014, "Unknown Emoji")
        if request.method == "GET":
            return json_response(emoji)
        del self.emojis[int(raw)]
        return web.Response(status=204)

    # ------------------------------------------------------------ REST: interactions

    async def _callback(self, request: web.Request) -> web.Response:
        body = await self._body(request, ("post", CALLBACK), callback_limits)
        rec = self._by_token.get(request.match_info["token"])
        if rec is None or str(rec.id) != request.match_info["interaction_id"]:
            raise _Refused(404, 10062, "Unknown interaction")
        now = time.perf_counter()
        if rec.callback_type is not None:
            self.violation(f"interaction {rec.id}: answered twice")
            raise _Refused(400, 40060, "Interaction has already been acknowledged.")
        if now - rec.dispatched_at > self.ack_deadline:
            self.violation(
                f"interaction {rec.id}: answered after {now - rec.dispatched_at:.2f} s (max {self.ack_deadline})"
            )
            raise _Refused(404, 10062, "Unknown interaction")
        if self.expired(rec):
            raise _Refused(404, 10062, "Unknown interaction")
        kind = body["type"]
        data = body.get("data") or {}
        forced = self._forced_ephemeral(rec)
        if forced and kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE):
            data = {**data, "flags": int(data.get("flags") or 0) | forced}
        if (kind == 8) != (rec.type == AUTOCOMPLETE) or kind not in (4, 5, 6, 7, 8, 9):
            self.violation(
                f"interaction {rec.id}: callback type {kind} for interaction type {rec.type}"
            )
            raise _Refused(400, 50035, "Invalid Form Body")
        msg: FakeMessage | None = None
        if kind == CHANNEL_MESSAGE:
            msg = self._new_message(
                rec.channel_id,
                data,
                visible_to=rec.user.id,
                kind=20 if rec.type == APPLICATION_COMMAND else 0,
                interaction=rec,
                uploads=request[_FILES],
            )
        elif kind == DEFERRED_CHANNEL_MESSAGE:
            msg = self._new_message(
                rec.channel_id,
                {"flags": int(data.get("flags") or 0) & EPHEMERAL},
                visible_to=rec.user.id,
                kind=20 if rec.type == APPLICATION_COMMAND else 0,
                interaction=rec,
                extra_flags=LOADING,
            )
        elif kind in (DEFERRED_UPDATE, UPDATE_MESSAGE):
            if rec.type not in (MESSAGE_COMPONENT, MODAL_SUBMIT) or rec.message_id is None:
                self.violation(
                    f"interaction {rec.id}: callback type {kind} needs a component interaction"
                )
                raise _Refused(400, 50035, "Invalid Form Body")
            msg = self.message(rec.message_id)
            if msg is None or msg.deleted:
                raise _Refused(404, 10008, "Unknown Message")
            if kind == UPDATE_MESSAGE:
                await self._edit(msg, data, "interaction", request[_FILES])  # refused: not acked
        if kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE) and msg is not None:
            await self._message_event("MESSAGE_CREATE", msg)
        rec.acked_at = now
        rec.callback_type = kind
        rec.callback_body = body
        rec.message = msg
        if kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, UPDATE_MESSAGE):
            self._sent(request, rec.channel_id, msg, data)
        elif kind != DEFERRED_UPDATE:  # autocomplete choices, a modal: only the user sees them
            self._sent(request, rec.channel_id, None, data, public=False)
        if rec.acked is not None and not rec.acked.done():
            rec.acked.set_result(rec)
        if request.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        resource: JSON = {"type": kind}
        if msg is not None and kind != DEFERRED_UPDATE:
            resource["message"] = msg.payload()
        return json_response(
            {
                "interaction": {
                    "id": str(rec.id),
                    "type": rec.type,
                    "activity_instance_id": None,
                    "response_message_id": str(msg.id) if msg else None,
                    "response_message_loading": bool(msg and msg.loading),
                    "response_message_ephemeral": bool(msg and msg.ephemeral),
                },
                "resource": resource,
            }
        )

    async def _followup(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request, ("post", WEBHOOK), new_message_limits)
        rec = self._record(request)
        if self.user_app_only(rec) and len(rec.followups) >= MAX_USER_APP_FOLLOWUPS:
            # Create Followup Message documents the limit of 5 but not the answer: a 400
            # (Invalid Form Body, as other limits) saying which limit, is this fake's choice.
            raise _Refused(
                400,
                50035,
                "Invalid Form Body: a user-installed app not in the server may "
                f"send at most {MAX_USER_APP_FOLLOWUPS} follow-up messages per interaction",
            )
        if self._forced_ephemeral(rec):
            body = {**body, "flags": int(body.get("flags") or 0) | EPHEMERAL}
        original = rec.message
        if (
            rec.callback_type == DEFERRED_CHANNEL_MESSAGE
            and original is not None
            and original.loading
        ):
            # The first followup after "thinking..." fills in the loading message: an edit.
            await self._edit(
                original,
                {k: v for k, v in body.items() if k != "flags"},
                "followup",
                request[_FILES],
            )
            msg = original
        else:
            msg = self._new_message(
                rec.channel_id,
                body,
                visible_to=rec.user.id,
                interaction=rec,
                uploads=request[_FILES],
            )
            rec.followups.append(msg)
            await self._message_event("MESSAGE_CREATE", msg)
        self._sent(request, rec.channel_id, msg, body)
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(msg.payload())
        return web.Response(status=204)

    async def _webhook_message(self, request: web.Request) -> web.StreamResponse:
        rec = self._record(request)
        mid = request.match_info["message_id"]
        path = WEBHOOK_ORIGINAL if mid == "@original" else WEBHOOK_MESSAGE
        patch = request.method == "PATCH"
        body = await self._body(request, ("patch", path) if patch else None, message_limits)
        ours = {m.id: m for m in rec.messages()}
        msg = rec.message if mid == "@original" else ours.get(int(mid)) if mid.isdigit() else None
        if msg is None or msg.deleted:
            raise _Refused(404, 10008, "Unknown Message")
        if request.method == "GET":
            return json_response(msg.payload())
        if request.method == "DELETE":
            await self._delete(msg)
            return web.Response(status=204)
        await self._edit(msg, body or {}, "webhook", request[_FILES])
        self._sent(request, rec.channel_id, msg, body)
        return json_response(msg.payload())

    # ------------------------------------------------------------ REST: channel messages

    def _channel(self, request: web.Request) -> FakeChannel:
        ch = self.channels.get(int(request.match_info["channel_id"]))
        if ch is None:
            raise _Refused(404, 10003, "Unknown Channel")
        if not self.bot_can_access(ch.id):
            # A server that never added the app, or a (group) DM without the bot.
            raise _Refused(403, 50001, "Missing Access")
        return ch

    async def _create_dm(self, request: web.Request) -> web.Response:
        """POST /users/@me/channels: the bot's DM channel with a user (the same one every
        time). Opening it always works; whether a message may go there is another matter
        (`closed_dms`)."""
        body = await self._body(request, ("post", "/users/@me/channels"))
        user_id = int(body.get("recipient_id") or 0)
        if user_id not in self.users:
            raise _Refused(400, 50033, "Invalid Recipient(s)")
        ch = self.dm_of(user_id) or self.add_dm(self.bot, self.users[user_id])
        return json_response(ch.payload())

    def dm_of(self, user_id: int) -> FakeChannel | None:
        """The bot's DM channel with `user_id`, if one was opened."""
        for ch in self.channels.values():
            ids = {u.id for u in ch.recipients}
            if ch.type == DM_CHANNEL and ids == {self.bot.id, user_id}:
                return ch
        return None

    def direct_messages(self, user_id: int) -> list[FakeMessage]:
        """What the bot wrote to `user_id` in their DM, oldest first (a DM notifies its
        reader whatever it mentions)."""
        ch = self.dm_of(user_id)
        if ch is None:
            return []
        return [m for m in self.messages.get(ch.id, []) if m.author_id == self.bot.id]

    async def _create_channel_message(self, request: web.Request) -> web.Response:
        ch = self._channel(request)
        body = await self._body(request, ("post", CHANNEL_MESSAGES), new_message_limits)
        if (body.get("flags") or 0) & EPHEMERAL:
            self.violation(f"POST {request.path}: channel messages cannot be ephemeral")
        if ch.type == DM_CHANNEL and self.closed_dms & {u.id for u in ch.recipients}:
            raise _Refused(403, 50007, "Cannot send messages to this user")
        nonce = body.get("nonce")
        if body.get("enforce_nonce") and nonce is not None:
            # Discord: the same author's message with this nonce in the past few minutes
            # is returned, and no new message is created.
            seen = self.nonces.get((self.bot.id, str(nonce)))
            if seen is not None and self.now() - seen[1] < NONCE_WINDOW:
                return json_response(seen[0].payload())
        msg = self._new_message(
            ch.id,
            {**body, "flags": (body.get("flags") or 0) & ~EPHEMERAL},
            uploads=request[_FILES],
        )
        if body.get("enforce_nonce") and nonce is not None:
            self.nonces[(self.bot.id, str(nonce))] = (msg, self.now())
        await self._message_event("MESSAGE_CREATE", msg)
        self._sent(request, ch.id, msg, body)
        return json_response(msg.payload())

    async def _channel_history(self, request: web.Request) -> web.Response:
        """GET /channels/{id}/messages: at most `limit` (1-100, default 50) messages, newest
        first, as Discord answers; `after` gives the ones just after that id, `before` the
        ones just before it, neither the newest."""
        ch = self._channel(request)
        query = request.query
        try:
            limit = int(query.get("limit", "50"))
            after = int(query["after"]) if "after" in query else None
            before = int(query["before"]) if "before" in query else None
        except ValueError:
            raise _Refused(400, 50035, "Invalid Form Body") from None
        if not 1 <= limit <= 100:
            raise _Refused(400, 50035, "Invalid Form Body")
        msgs = self.public(ch.id)  # oldest first
        if after is not None:
            msgs = [m for m in msgs if m.id > after][:limit]
        else:
            if before is not None:
                msgs = [m for m in msgs if m.id < before]
            msgs = msgs[-limit:]
        return json_response([m.payload() for m in reversed(msgs)])

    async def _channel_message(self, request: web.Request) -> web.StreamResponse:
        ch = self._channel(request)
        patch = request.method == "PATCH"
        body = await self._body(
            request, ("patch", CHANNEL_MESSAGE_PATH) if patch else None, message_limits
        )
        mid = request.match_info["message_id"]
        msg = self.message(int(mid)) if mid.isdigit() else None
        if msg is None or msg.deleted or msg.channel_id != ch.id or msg.ephemeral:
            raise _Refused(404, 10008, "Unknown Message")
        if request.method == "GET":
            return json_response(msg.payload())
        if request.method == "DELETE":
            # Its own message, or anyone's: the bot has Manage Messages.
            await self._delete(msg)
            return web.Response(status=204)
        if msg.author_id != self.bot.id:
            raise _Refused(403, 50005, "Cannot edit a message authored by another user")
        await self._edit(msg, body or {}, "rest", request[_FILES])
        self._sent(request, ch.id, msg, body)
        return json_response(msg.payload())

    async def _unknown(self, request: web.Request) -> web.Response:
        self.violation(
            f"unexpected request {request.method} {request.path} (the fake has no such route)"
        )
        return json_response({"message": "404: Not Found", "code": 0}, 404)
