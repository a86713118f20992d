"""Sending the service's replies through Discord: the only place that calls the response API."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.components import view_of
from bot.display import show_on_interaction, show_table
from bot.gateway import clicked_message
from bot.i18n import language_of
from bot.open_replies import OpenReply
from bot.players import mentioned
from bot.reach import window_of
from bot.replies import Actor, MessageArgs, Rematch, Reply, only_mentioning
from bot.respond import update_message, update_table

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)


def actor_of(interaction: discord.Interaction) -> Actor:
    user = interaction.user
    perms = interaction.permissions
    return Actor(
        id=user.id,
        name=user.display_name,
        is_admin=bool(perms and perms.manage_guild),
        locale=language_of(interaction.locale),
        guild_locale=language_of(interaction.guild_locale) if interaction.guild_id else None,
    )


def _message_kwargs(reply: Reply) -> MessageArgs:
    """The keyword arguments of a new message (response or follow-up) for `reply`. It
    notifies exactly the players the bot mentions in it (a vote's voters), never anyone a
    display name in it seems to mention."""
    kwargs: MessageArgs = {"ephemeral": reply.ephemeral}
    if reply.content is not None:
        kwargs["content"] = reply.content
        kwargs["allowed_mentions"] = only_mentioning(mentioned(reply.content))
    if reply.embed is not None:
        kwargs["embed"] = reply.embed
    view = reply.view()
    if view is not None and view.rows:
        kwargs["view"] = view
    return kwargs


async def send_reply(interaction: discord.Interaction[GameBot], reply: Reply) -> None:
    """Answer the interaction (the table itself when the click was on it; otherwise an update
    of the clicked message or a new message), then send the follow-ups (a private view, a
    public ping) and bring the table up to date."""
    update = reply.update
    window = window_of(interaction)
    if reply.on_table and update is not None:
        await show_on_interaction(interaction, update)
        update = None
    elif reply.edit:
        await update_table(
            interaction, content=reply.content, embed=reply.embed, items=reply.items or []
        )
        clicked = clicked_message(interaction)
        if clicked is not None:
            _private_shown(interaction, reply, clicked.id)
    else:
        sent = await interaction.response.send_message(**_message_kwargs(reply))
        if reply.side is not None and update is not None and sent.message_id:
            await _side_posted(interaction, update.game, reply.side, sent.message_id)
        if sent.message_id:
            _private_shown(interaction, reply, sent.message_id)
    for follow in reply.followups:
        if window is not None:
            window.posted(None)
        await interaction.followup.send(**_message_kwargs(follow))
    if update is not None:
        await show_table(interaction.client, update, interaction.followup, window)


def _private_shown(
    interaction: discord.Interaction[GameBot], reply: Reply, message_id: int
) -> None:
    """The answer is the clicker's private view of a game: remembered with its token, so a
    later step of theirs is shown in it (`OpenReplies`)."""
    if reply.private_of is None or interaction.channel_id is None:
        return
    interaction.client.tables.open_replies.note(
        interaction.channel_id,
        OpenReply(
            user_id=interaction.user.id,
            token=interaction.token,
            opened=interaction.created_at.timestamp(),
            message_id=message_id,
            locale=language_of(interaction.locale),
            game=reply.private_of,
        ),
    )


async def _side_posted(
    interaction: discord.Interaction[GameBot], game: float, key: str, message_id: int
) -> None:
    """The answer is a side message (a foul vote's): its id is kept with the game, so
    whatever closes the vote edits it; closed already (a bot was quicker), it is edited now."""
    window = window_of(interaction)
    if window is not None:
        window.made(message_id)  # where the bot is no member: the way to edit it
    assert interaction.channel_id is not None
    tables = interaction.client.tables
    closed = await tables.side_posted(interaction.channel_id, game, key, message_id)
    if closed is not None:
        await interaction.edit_original_response(
            content=closed.content, embed=closed.embed, view=closed.view()
        )


async def send_rematch(interaction: discord.Interaction[GameBot], rematch: Rematch) -> None:
    """Answer a Rematch press: the finished table keeps its text and loses the live button
    (the interaction's answer), then the new lobby is posted as a new message that pings
    exactly the invited players, and becomes the channel's table."""
    await update_message(interaction, view=view_of(rematch.finished_items))
    lobby = rematch.lobby
    window = window_of(interaction)
    message = await interaction.followup.send(
        content=lobby.content or "",
        embed=lobby.embed,
        view=lobby.view(),
        allowed_mentions=rematch.allowed_mentions(),
        wait=True,
    )
    if window is not None:
        window.posted(message.id)
    tables = interaction.client.tables
    behind = await tables.table_posted(rematch.channel_id, message.id, rematch.revision)
    if behind is not None:  # someone joined while it was being posted
        await show_table(interaction.client, behind, interaction.followup, window)
