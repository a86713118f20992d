"""Showing a channel's table: edit the message that holds it, or post it afresh at the bottom
of the channel (the only way to notify whoever must act) and reduce the older message to a
summary without buttons.

Answers through the interaction are preferred (they do not count against Discord's global
rate limit); REST is used when there is no interaction (timers, catching up after a restart)
or the interaction answered something else (a private reply, a vote message). A message older
than `EDIT_WINDOW` is never edited (Discord allows only a few such edits, error 30046); a
refused edit falls back to posting the table afresh.

Where the bot is no member of the channel (`TableUpdate.via`, bot/reach.py) there is no REST:
the table is shown through the interaction being answered, or else through the newest
interaction whose token is still open (`Reach`); with none open it catches up at the next
press. A table message no open interaction may edit is left as it is (its buttons still
work: a press on it shows the live table)."""

from __future__ import annotations

import functools
import io
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.gateway import clicked_message
from bot.pictures.story import FILENAME as STORY_FILENAME
from bot.reach import Window, refused_token, webhook, window_of
from bot.replies import TableUpdate, only_mentioning
from bot.respond import post_answer, post_table, update_message, update_table
from bot.tables.base import Rendered

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)


def _picture(rendered: Rendered) -> discord.File:
    assert rendered.picture is not None
    return discord.File(io.BytesIO(rendered.picture), filename=STORY_FILENAME)


def table_kwargs(rendered: Rendered) -> dict[str, Any]:
    """An edit of the table message. The story picture goes along only on the table that
    shows the game ending; a later edit leaves the attachment where it is."""
    kwargs: dict[str, Any] = {
        "content": rendered.content,
        "embed": rendered.embed,
        "view": rendered.view(),
    }
    if rendered.picture is not None:
        kwargs["attachments"] = [_picture(rendered)]
    return kwargs


def post_kwargs(update: TableUpdate) -> dict[str, Any]:
    """A fresh table message: mentions notify exactly the players it pings."""
    kwargs = {**table_kwargs(update.table), "allowed_mentions": only_mentioning(update.ping)}
    if "attachments" in kwargs:
        kwargs["file"] = kwargs.pop("attachments")[0]
    return kwargs


async def _show(
    call: Callable[..., Awaitable[Any]],
    update: TableUpdate,
    kwargs: Callable[[TableUpdate], dict[str, Any]] = post_kwargs,
) -> Any:
    """Post or edit the table; when Discord refuses its story picture (no Attach Files in
    the channel), show the table without the picture rather than not at all."""
    try:
        return await call(**kwargs(update))
    except discord.Forbidden:
        if update.table.picture is None:
            raise
        log.info("Showing the table in %s without its picture (refused)", update.channel_id)
        update.table.picture = None
        return await call(**kwargs(update))


def _edit_kwargs(update: TableUpdate) -> dict[str, Any]:
    return table_kwargs(update.table)


class Unreachable(Exception):
    """The bot is no member of the channel and no open interaction can do this."""


def _editor(bot: GameBot, update: TableUpdate, message_id: int) -> Callable[..., Awaitable[Any]]:
    """How to edit a message of the channel: over REST, or through an open interaction
    that may edit it (raising Unreachable when none can)."""
    if update.via is None:
        return bot.get_partial_messageable(update.channel_id).get_partial_message(message_id).edit
    via = update.via

    async def edit(**kwargs: Any) -> Any:
        for window in via.editors(message_id, time.time()):
            try:
                edited = await webhook(bot, window).edit_message(message_id, **kwargs)
            except discord.HTTPException as exc:
                if refused_token(exc):
                    window.refused = True
                elif not isinstance(exc, discord.NotFound):
                    raise  # refused for what was sent, not for who sent it
                continue
            window.made(message_id)
            return edited
        raise Unreachable

    return edit


def _poster(
    bot: GameBot,
    update: TableUpdate,
    followup: discord.Webhook | None,
    window: Window | None,
) -> tuple[Callable[[TableUpdate], Awaitable[int]], Window | None]:
    """How to post the table in the channel, returning the new message's id (and the window
    it spends a follow-up of): the answered interaction's follow-up, the channel over REST,
    or the newest open window."""
    if update.via is None:
        if followup is not None:
            return functools.partial(_follow_up, bot, followup), None
        return functools.partial(_channel_post, bot), None
    now = time.time()
    if window is not None:
        window.answered = True  # the caller answered it
    if window is None or not window.can_post(now):
        window = update.via.poster(now)
    if window is None:
        raise Unreachable
    window.posted(None)  # counted before it is sent: a refused one is spent too
    return functools.partial(_follow_up, bot, webhook(bot, window)), window


async def retouch(bot: GameBot, update: TableUpdate) -> None:
    """Edit the side messages the update's move changed or closed (a foul vote's: its
    result, whoever decided it), over REST or through an open interaction that made them.
    One that cannot be edited any more (deleted, too old, no window open) stays as it is.
    Then the players' private replies whose step the move changed, through their tokens."""
    for reply, shown in update.privates:
        try:
            await webhook(bot, reply.window()).edit_message(
                reply.message_id, embed=shown.embed, view=shown.view()
            )
        except discord.HTTPException as exc:  # dismissed, or its token is spent: left alone
            bot.tables.open_replies.forget(update.channel_id, reply.user_id)
            log.info("Could not refresh a private reply in %s (%s)", update.channel_id, exc)
    for message_id, shown in update.sides:
        if not bot.tables.editable(message_id):
            continue
        try:
            await _editor(bot, update, message_id)(**table_kwargs(shown))
        except (discord.NotFound, Unreachable):
            continue
        except discord.HTTPException as exc:
            log.info("Could not edit a message in %s (%s)", update.channel_id, exc)


async def show_on_interaction(
    interaction: discord.Interaction[GameBot], update: TableUpdate
) -> None:
    """Answer a click on the table (or /start, /status) by showing the table: an update of
    the clicked message, or a fresh post with the old table retired; then the side messages
    the move changed."""
    try:
        await _show_on_interaction(interaction, update)
    finally:
        if update.sides or update.privates:
            async with interaction.client.tables.display_lock(update.channel_id):
                await retouch(interaction.client, update)


async def _show_on_interaction(
    interaction: discord.Interaction[GameBot], update: TableUpdate
) -> None:
    tables = interaction.client.tables
    window = window_of(interaction)
    async with tables.display_lock(update.channel_id):
        message = clicked_message(interaction)
        clicked = message.id if message is not None else None
        if tables.overtaken(update):
            if (
                update.ending is not None
                and clicked is not None
                and not tables.shows(update, clicked)
            ):
                # Another press shows (or showed) the game's end: the message pressed here
                # goes quiet, so only the final table is left to press.
                await _retire_clicked(interaction, update, clicked)
            else:
                await interaction.response.defer()  # a newer answer shows more
            return
        update = tables.aimed(update)
        if clicked is None:  # a slash command: the answer is the new table
            posted = await _answer(interaction, update)
            if window is not None and posted:
                window.made(posted)
            if update.message_id is not None:
                await retire(interaction.client, update, update.message_id)
            if posted:
                await tables.shown(update, posted)
            return
        if not update.fresh and clicked == update.message_id:
            try:
                await _update_clicked(interaction, update)
                if window is not None:
                    window.made(clicked)
                await tables.shown(update, clicked)
                return
            except discord.HTTPException as exc:
                log.info("Table edit refused in %s (%s): posting it afresh", update.channel_id, exc)
        await _retire_clicked(interaction, update, clicked)
        if update.message_id is not None and update.message_id != clicked:
            await retire(interaction.client, update, update.message_id)
        posted = await _follow_up(interaction.client, interaction.followup, update)
        if window is not None:
            window.posted(posted)
        await tables.shown(update, posted)


async def _answer(interaction: discord.Interaction, update: TableUpdate) -> int | None:
    """Answer a slash command with the table; the new message's id. Its body goes straight
    from the table's items (`post_answer`); with the story picture, through discord.py's
    `send_message` with the file."""
    table = update.table
    if table.picture is None:
        return await post_answer(
            interaction,
            content=table.content,
            embed=table.embed,
            items=table.items,
            allowed_mentions=only_mentioning(update.ping),
        )
    response = await _show(interaction.response.send_message, update)
    return response.message_id


async def _follow_up(bot: discord.Client, followup: discord.Webhook, update: TableUpdate) -> int:
    """Post the table as an interaction's follow-up; the new message's id. Its body goes
    straight from the table's items (`post_table`); with the story picture, as a discord.py
    follow-up with the file."""
    table = update.table
    if table.picture is None:
        return await post_table(
            bot,
            followup,
            content=table.content,
            embed=table.embed,
            items=table.items,
            allowed_mentions=only_mentioning(update.ping),
        )
    posted = await _show(functools.partial(followup.send, wait=True), update)
    return int(posted.id)


async def _channel_post(bot: GameBot, update: TableUpdate) -> int:
    """Post the table in the channel over REST; the new message's id."""
    posted = await _show(bot.get_partial_messageable(update.channel_id).send, update)
    return posted.id


async def _update_clicked(interaction: discord.Interaction[GameBot], update: TableUpdate) -> None:
    """Show the table in the clicked message: its body straight from the table's items
    (`update_table`), or, with the story picture, as a discord.py edit with the file."""
    table = update.table
    if table.picture is None:
        await update_table(interaction, content=table.content, embed=table.embed, items=table.items)
    else:
        await _show(functools.partial(update_message, interaction), update, _edit_kwargs)


async def _retire_clicked(
    interaction: discord.Interaction[GameBot], update: TableUpdate, clicked: int
) -> None:
    """Answer the click by reducing the clicked message to the summary, or (when it may no
    longer be edited) by acknowledging it and deleting it."""
    tables = interaction.client.tables
    if update.summary is not None and tables.editable(clicked):
        try:
            await update_table(interaction, content=None, embed=update.summary.embed, items=[])
            window = window_of(interaction)
            if window is not None:
                window.made(clicked)
            return
        except discord.HTTPException as exc:
            log.info("Could not retire the table in %s (%s)", update.channel_id, exc)
    await interaction.response.defer()
    if update.via is None:
        await _delete(interaction.client, update.channel_id, clicked)


async def show_table(
    bot: GameBot,
    update: TableUpdate,
    followup: discord.Webhook | None = None,
    window: Window | None = None,
) -> None:
    """Bring the table up to date outside the interaction's answer (timers, commands, moves
    in a private menu, catching up). A fresh table goes out as the interaction's public
    follow-up when there is one (not counted against the global rate limit); where the bot
    is no member, through `window` (the answered interaction's) or the newest open one.
    Then the side messages the move changed (also when a newer table overtook this one)."""
    tables = bot.tables
    async with tables.display_lock(update.channel_id):
        try:
            await _show_table(bot, update, followup, window)
        finally:
            await retouch(bot, update)


async def _show_table(
    bot: GameBot,
    update: TableUpdate,
    followup: discord.Webhook | None,
    window: Window | None,
) -> None:
    tables = bot.tables
    if tables.overtaken(update):
        return
    update = tables.aimed(update)
    if not update.fresh and update.message_id is not None:
        try:
            await _show(_editor(bot, update, update.message_id), update, _edit_kwargs)
            await tables.shown(update, update.message_id)
            return
        except (discord.NotFound, Unreachable):
            pass
        except discord.HTTPException as exc:
            log.info("Table edit refused in %s (%s): posting it afresh", update.channel_id, exc)
    posted = await _post(bot, update, followup, window)
    if posted is None:
        return
    await tables.shown(update, posted)


async def _post(
    bot: GameBot,
    update: TableUpdate,
    followup: discord.Webhook | None,
    window: Window | None,
) -> int | None:
    """Post the table afresh and retire the old message (see `_poster` for where): the new
    message's id, or None when it cannot be shown now. A window whose token Discord refuses
    is closed and the next open one tried."""
    retired = False
    while True:
        try:
            send, spent = _poster(bot, update, followup, window)
        except Unreachable:
            log.info("No open interaction in %s: its table catches up at the next press",
                     update.channel_id)  # fmt: skip
            return None
        if update.message_id is not None and not retired:
            await retire(bot, update, update.message_id)
            retired = True
        try:
            posted = await send(update)
        except discord.HTTPException as exc:
            if spent is not None and refused_token(exc, posting=True):
                log.info("An interaction's token was refused in %s (%s)", update.channel_id, exc)
                spent.refused, window = True, None
                continue
            log.warning("Could not post the table in channel %s", update.channel_id, exc_info=True)
            return None
        if spent is not None:
            spent.made(posted)
        return posted


async def retire_pressed(interaction: discord.Interaction[GameBot], text: str) -> None:
    """Where the bot is no member, a message of a game or lobby that is over may keep its
    buttons (nothing could reach it when it ended): the press that finds it takes them
    away, keeping its text, and says why, privately."""
    await update_message(interaction, view=None)
    window = window_of(interaction)
    if window is not None:
        window.posted(None)
    await interaction.followup.send(text, ephemeral=True)


async def retire_orphans(bot: GameBot, update: TableUpdate) -> int:
    """After a crash: a table the dead process posted below the recorded one but never
    recorded (it died between the post and the write) still has live buttons. Reduce every
    such message of the bot to the summary, so only one table can be pressed; returns how
    many. One history request, made only for tables a restart finds behind."""
    if update.message_id is None or bot.user is None or update.via is not None:
        return 0  # (no history where the bot is no member: a press on an orphan shows the table)
    ours = f":{update.channel_id}:"
    orphans = []
    try:
        channel = bot.get_partial_messageable(update.channel_id)
        async for message in channel.history(
            limit=20, after=discord.Object(id=update.message_id), oldest_first=True
        ):
            live = [
                c
                for row in message.components
                for c in getattr(row, "children", [row])
                if isinstance(getattr(c, "custom_id", None), str)
                and c.custom_id.startswith("t:")
                and ours in c.custom_id
                and not getattr(c, "disabled", False)
            ]
            if message.author.id == bot.user.id and live:
                orphans.append(message.id)
    except discord.HTTPException as exc:
        log.info("Could not read the channel %s below its table (%s)", update.channel_id, exc)
        return 0
    for message_id in orphans:
        await retire(bot, update, message_id)
    return len(orphans)


async def retire(bot: GameBot, update: TableUpdate, message_id: int) -> None:
    """A table message a newer one replaces: its summary without buttons, or deleted when it
    may no longer be edited, so only the live table can be pressed. Where the bot is no
    member, only an open interaction that made it can retire it; else it stays as it is."""
    if update.summary is not None and bot.tables.editable(message_id):
        try:
            edit = _editor(bot, update, message_id)
            await edit(content=None, embed=update.summary.embed, view=None)
            return
        except Unreachable:
            return
        except discord.NotFound:
            return
        except discord.HTTPException as exc:
            log.info("Could not retire the table in %s (%s)", update.channel_id, exc)
    if update.via is None:
        await _delete(bot, update.channel_id, message_id)


async def _delete(bot: GameBot, channel_id: int, message_id: int) -> None:
    try:
        await bot.get_partial_messageable(channel_id).get_partial_message(message_id).delete()
    except discord.NotFound:
        pass
    except discord.HTTPException as exc:
        log.info("Could not delete the old table in %s (%s)", channel_id, exc)
