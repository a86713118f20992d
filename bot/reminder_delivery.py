"""Posting reminders (bot/reminders.py decides them): a new message in the table's channel
mentioning the players, with a jump link to the table (a new message notifies, an edit does
not), and a direct message to those who asked for one (/remind me on).

Each post carries a nonce that Discord enforces (`enforce_nonce`): posted again after a
crash, a reminder is not sent twice. Where the bot is no member of the channel it can post
there only through an interaction opened in the last quarter hour: it uses the newest such
window when there is one (a press of Remind opens one), and otherwise only the direct
messages reach the players."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import discord
from discord.http import handle_message_parameters

from bot.i18n import _, speaking
from bot.mentions import mention
from bot.reach import webhook
from bot.reminders import Delivery

if TYPE_CHECKING:
    from bot.app import GameBot
    from bot.service import Tables

log = logging.getLogger(__name__)

#: Discord's code for "Cannot send messages to this user" (their privacy settings, no
#: server in common, or they blocked the bot).
CANNOT_MESSAGE_USER = 50007


async def next_reminder(tables: Tables) -> float | None:
    """When the timer loop must wake for a reminder."""
    return await tables.store.next_reminder()


async def post_reminders(bot: GameBot, deliveries: list[Delivery]) -> None:
    """Post each; one that fails stays in the outbox and is tried again a minute later."""
    for delivery in deliveries:
        try:
            await deliver(bot, delivery)
        except Exception:
            log.exception("A reminder in channel %s could not be posted", delivery.channel_id)


async def deliver(bot: GameBot, delivery: Delivery) -> None:
    """Post the reminder in the channel and the direct messages, then take it out of the
    outbox. A refusal (no access, DMs closed) is logged and the rest still goes; any other
    failure of the channel's post raises, leaving it in the outbox."""
    title = bot.adapters[delivery.kind].title
    with speaking(delivery.language):
        await _post_in_channel(bot, delivery, _channel_text(delivery, _(title)))
    for user in delivery.dms:
        await _post_dm(bot, delivery, user, title)
    await bot.tables.reminders.posted(delivery)


def _when(delivery: Delivery) -> str:
    return f"<t:{int(delivery.deadline)}:R>"


def _channel_text(delivery: Delivery, game: str) -> str:
    who = " ".join(f"<@{u}>" for u in delivery.users)
    if delivery.by is not None:
        return _(
            "{players}: {by} reminds you that {game} is waiting for you; the turn timer "
            "runs out {when}. {link}",
            players=who,
            by=f"<@{delivery.by}>",
            game=game,
            when=_when(delivery),
            link=delivery.link(),
        )
    return _(
        "{players}: {game} is waiting for you; the turn timer runs out {when}. {link}",
        players=who,
        game=game,
        when=_when(delivery),
        link=delivery.link(),
    )


def _dm_text(delivery: Delivery, game: str) -> str:
    return _(
        "Your turn in {game} is waiting; the turn timer runs out {when}. {link}\n"
        "-# To stop these messages: {command}.",
        command=mention("remind me"),
        game=game,
        when=_when(delivery),
        link=delivery.link(),
    )


async def _post_in_channel(bot: GameBot, delivery: Delivery, text: str) -> None:
    mentions = discord.AllowedMentions(
        everyone=False, roles=False, users=[discord.Object(u) for u in delivery.users]
    )
    reach = bot.tables.sessions.reach(delivery.channel_id)
    if reach is not None:  # the bot is no member: only an open interaction may post here
        window = reach.poster(time.time())
        if window is None:
            return
        window.posted(None)
        try:
            await webhook(bot, window).send(text, allowed_mentions=mentions, wait=True)
        except discord.HTTPException as exc:
            log.info("A reminder could not be posted through an interaction (%s)", exc.status)
        return
    params = handle_message_parameters(
        content=text, nonce=delivery.target_nonce(delivery.channel_id), allowed_mentions=mentions
    )
    try:
        await bot.http.send_message(delivery.channel_id, params=params)
    except (discord.Forbidden, discord.NotFound) as exc:
        log.info(
            "A reminder could not be posted in channel %s (%s %s)",
            delivery.channel_id,
            exc.status,
            exc.code,
        )


async def _post_dm(bot: GameBot, delivery: Delivery, user: int, title: str) -> None:
    prefs = (await bot.store.remind_prefs([user])).get(user)
    if prefs is None or not prefs.dm or prefs.dm_refused:
        return  # they changed their mind since the reminder was taken
    try:
        channel = await bot.http.start_private_message(user)
        with speaking(delivery.language):  # the table's: no user's own is known here
            text = _dm_text(delivery, _(title))
        params = handle_message_parameters(
            content=text,
            nonce=delivery.target_nonce(user),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        await bot.http.send_message(int(channel["id"]), params=params)
    except discord.Forbidden as exc:
        if exc.code == CANNOT_MESSAGE_USER:
            await bot.tables.reminders.dm_refused(user)
        log.info("Discord refused a reminder's direct message (%s)", exc.code)
    except discord.HTTPException as exc:
        log.warning("A reminder's direct message failed (%s %s)", exc.status, exc.code)

