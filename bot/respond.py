"""Answering a click by updating the clicked message, without reading the message back.

discord.py's `InteractionResponse.edit_message` asks Discord to return the updated message
(`with_response`) and builds a whole Message from it (embed, every button), which the bot
never reads: on every move that is one more JSON body to decode and a Message to build, a
tenth of a click's CPU (docs/performance.md, "Per click"). `update_message` sends the same
callback (type 7, UPDATE_MESSAGE) without asking for it back: Discord answers 204. It goes
over the bot's own keep-alive connections (bot/callback_http.py), cheaper than aiohttp's
request machinery; through discord.py's adapter when a proxy is set or a file is attached.

A table's edit after a click (`update_table`) also skips the discord.ui View: its body is
built straight from the table's `TableItem`s, the dicts discord.py would send for the same
message (a View costs more to build than everything else the edit sends; a test compares the
two bodies). So does a table posted as the interaction's follow-up at a turn's end
(`post_table`), which also goes over the bot's own connections and reads only the new
message's id from the answer, where discord.py builds a whole Message of it.

discord.py has no public switch for this, so the request is made the way discord.py makes it,
from parts it does not document (reached through bot/discord_internals.py). If an upgrade
moves them, the bot logs one warning and answers through `edit_message` as before (slower,
never wrong)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot import callback_http
from bot import discord_internals as internals
from bot.components import TableItem, action_rows, view_of

if TYPE_CHECKING:
    from discord.types.message import AllowedMentions as MentionsPayload

log = logging.getLogger(__name__)

_PARTS = internals.CALLBACK_PARTS
UPDATE_MESSAGE = discord.InteractionResponseType.message_update.value  # a click's answer
CHANNEL_MESSAGE = discord.InteractionResponseType.channel_message.value  # a command's

_warned = False
_warned_lean = False


async def update_message(
    interaction: discord.Interaction,
    *,
    content: str | None = discord.utils.MISSING,
    embed: discord.Embed | None = discord.utils.MISSING,
    view: discord.ui.View | None = discord.utils.MISSING,
    attachments: list[discord.File] = discord.utils.MISSING,
) -> None:
    """Update the message the click came from, as `interaction.response.edit_message` does
    (same arguments, same errors), without Discord sending the message back."""
    if not _callback_parts():
        await interaction.response.edit_message(
            content=content, embed=embed, view=view, attachments=attachments
        )
        return
    if interaction.response.is_done():
        raise discord.InteractionResponded(interaction)
    params = internals.interaction_message_response_params(
        type=UPDATE_MESSAGE,
        content=content,
        embed=embed,
        view=view,
        attachments=attachments,
        previous_allowed_mentions=internals.interaction_state(interaction).allowed_mentions,
    )
    if params.files:
        await _callback(interaction, files=params.files, multipart=params.multipart)
    else:
        await _callback(interaction, payload=params.payload)


async def update_table(
    interaction: discord.Interaction,
    *,
    content: str | None,
    embed: discord.Embed | None,
    items: list[TableItem],
) -> None:
    """`update_message(interaction, content=..., embed=..., view=view_of(items))`, the same
    request and errors, with the body built straight from `items` (no View): how a click's
    table goes out. Files go through `update_message`."""
    if not _callback_parts():
        await interaction.response.edit_message(content=content, embed=embed, view=view_of(items))
        return
    if interaction.response.is_done():
        raise discord.InteractionResponded(interaction)
    mentions = internals.interaction_state(interaction).allowed_mentions
    await _callback(interaction, payload=update_payload(content, embed, items, mentions))


def update_payload(
    content: str | None,
    embed: discord.Embed | None,
    items: list[TableItem],
    allowed_mentions: discord.AllowedMentions | None,
) -> dict[str, Any]:
    """The JSON body of an UPDATE_MESSAGE callback showing `content`, `embed` and `items`,
    key for key what discord.py's `interaction_message_response_params` builds from the same
    message with `view_of(items)` and the client's `allowed_mentions`."""
    data: dict[str, Any] = {
        "tts": False,
        "embeds": [] if embed is None else [embed.to_dict()],
        "content": None if content is None else str(content),
        "components": action_rows(items),
    }
    if allowed_mentions is not None:
        data["allowed_mentions"] = allowed_mentions.to_dict()
    return {"type": UPDATE_MESSAGE, "data": data}


async def post_table(
    client: discord.Client,
    followup: discord.Webhook,
    *,
    content: str | None,
    embed: discord.Embed | None,
    items: list[TableItem],
    allowed_mentions: discord.AllowedMentions,
) -> int:
    """Post a table as an interaction's follow-up (`followup`: its webhook): the request
    and errors of `followup.send(content=..., embed=..., view=view_of(items),
    allowed_mentions=..., wait=True)`, with the body built straight from `items` and sent
    over the bot's own connections. Returns the new message's id, all the bot reads of it
    (discord.py builds a whole message from the answer)."""
    state = internals.connection(client)
    connections = _lean(client, state) if _callback_parts() else None
    if connections is None or followup.token is None:
        send: Any = followup.send  # (its overloads want content and embed never None)
        posted = await send(
            content=content,
            embed=embed,
            view=view_of(items),
            allowed_mentions=allowed_mentions,
            wait=True,
        )
        return posted.id
    payload = follow_up_payload(content, embed, items, allowed_mentions, state.allowed_mentions)
    message = await connections.follow_up(followup.id, followup.token, payload)
    return int(message["id"])


async def post_answer(
    interaction: discord.Interaction,
    *,
    content: str | None,
    embed: discord.Embed | None,
    items: list[TableItem],
    allowed_mentions: discord.AllowedMentions,
) -> int | None:
    """Answer a slash command with a new message (`/farkle start`'s lobby): the request and
    errors of `interaction.response.send_message(content=..., embed=..., view=view_of(items),
    allowed_mentions=...)`, its body built straight from `items` and sent over the bot's own
    connections. Returns the new message's id (None if Discord gave none), all the bot reads
    of the answer (discord.py builds a whole message from it)."""
    state = internals.interaction_state(interaction)
    if not _callback_parts():
        send: Any = interaction.response.send_message  # (overloads want content never None)
        response = await send(
            content=content, embed=embed, view=view_of(items), allowed_mentions=allowed_mentions
        )
        return response.message_id
    if interaction.response.is_done():
        raise discord.InteractionResponded(interaction)
    data = answer_payload(content, embed, items, allowed_mentions, state.allowed_mentions)
    payload = {"type": CHANNEL_MESSAGE, "data": data}
    answer = await _callback(interaction, payload=payload, kind=CHANNEL_MESSAGE)
    message_id = answer.get("interaction", {}).get("response_message_id") if answer else None
    return None if message_id is None else int(message_id)


def answer_payload(
    content: str | None,
    embed: discord.Embed | None,
    items: list[TableItem],
    allowed_mentions: discord.AllowedMentions,
    previous: discord.AllowedMentions | None,
) -> dict[str, Any]:
    """The `data` of a CHANNEL_MESSAGE_WITH_SOURCE callback showing `content`, `embed` and
    `items`, key for key what discord.py's `interaction_message_response_params` builds for
    `send_message` from the same message, `allowed_mentions` and the client's (`previous`)."""
    data = update_payload(content, embed, items, None)["data"]
    data["allowed_mentions"] = _merged_mentions(allowed_mentions, previous)
    return data


def follow_up_payload(
    content: str | None,
    embed: discord.Embed | None,
    items: list[TableItem],
    allowed_mentions: discord.AllowedMentions,
    previous: discord.AllowedMentions | None,
) -> dict[str, Any]:
    """The JSON body of a follow-up showing `content`, `embed` and `items`, key for key what
    discord.py's `Webhook.send` builds (`handle_message_parameters`) from the same message
    with `view_of(items)`, `allowed_mentions` and the client's (`previous`)."""
    payload: dict[str, Any] = {"embeds": [] if embed is None else [embed.to_dict()]}
    if content is not None:  # (None is left out: Webhook.send takes it as not given)
        payload["content"] = str(content)
    payload["components"] = action_rows(items)
    payload["tts"] = False
    payload["allowed_mentions"] = _merged_mentions(allowed_mentions, previous)
    return payload


def _merged_mentions(
    allowed_mentions: discord.AllowedMentions, previous: discord.AllowedMentions | None
) -> MentionsPayload:
    """A message's allowed mentions over the client's (`previous`), as discord.py merges
    them for a first answer and for a follow-up alike."""
    mentions = allowed_mentions if previous is None else previous.merge(allowed_mentions)
    return mentions.to_dict()


def _callback_parts() -> bool:
    """Whether discord.py's parts for a callback are there; warns once when they are not."""
    global _warned
    if not _PARTS and not _warned:
        _warned = True
        log.warning("discord.py's interaction callback moved: edits read the message back")
    return _PARTS


async def _callback(
    interaction: discord.Interaction,
    *,
    payload: dict[str, Any] | None = None,
    files: Sequence[discord.File] | None = None,
    multipart: list[dict[str, Any]] | None = None,
    kind: int = UPDATE_MESSAGE,
) -> Any:
    """Send a callback (a JSON payload, or files and their multipart form) as discord.py
    sends one, and mark the interaction answered. An UPDATE_MESSAGE asks for nothing back; a
    new message (CHANNEL_MESSAGE) asks, as discord.py does, for the answer that names it,
    which is returned."""
    state = internals.interaction_state(interaction)
    connections = None if files is not None else _lean(interaction.client, state)
    back = kind != UPDATE_MESSAGE
    if connections is not None:
        answer = await connections.callback(
            interaction.id, interaction.token, payload, with_response=back
        )
    else:
        body: dict[str, Any] = (
            {"payload": payload} if files is None else {"files": files, "multipart": multipart}
        )
        if back:
            body["params"] = {"with_response": "1"}
        route = internals.Route(
            "POST",
            "/interactions/{webhook_id}/{webhook_token}/callback",
            webhook_id=interaction.id,
            webhook_token=interaction.token,
        )
        answer = await internals.async_context.get().request(
            route,
            session=internals.interaction_session(interaction),
            proxy=state.http.proxy,
            proxy_auth=state.http.proxy_auth,
            **body,
        )
    internals.mark_answered(interaction.response, discord.InteractionResponseType(kind))
    return answer


def _lean(client: discord.Client, state: Any) -> callback_http.CallbackHTTP | None:
    """The client's own connections for a callback (bot/callback_http.py), or None to send it
    through discord.py: through a proxy, which those connections do not speak (logged once),
    or where discord.py's API base moved (logged once), or after the client closed them."""
    global _warned_lean
    if state.http.proxy is not None or internals.api_base() is None:
        if not _warned_lean:
            _warned_lean = True
            log.warning("An HTTP proxy is set, or discord.py's API base moved: interaction "
                        "callbacks go through discord.py")
        return None
    return callback_http.of(client)


def release(interaction: discord.Interaction) -> None:
    """Let go of an answered interaction's response object. discord.py's InteractionResponse
    points back to its interaction, a cycle that leaves every click's objects (the
    interaction, its message, member and user: about twenty) to the garbage collector,
    whose pauses grow with them, instead of freeing them as soon as the click is answered.
    Call it only when nothing will use `interaction.response` again: asked afresh, it would
    not know the interaction was answered."""
    internals.forget_response(interaction)
