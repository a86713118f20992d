"""The commands every game has (start, status, leave, end, rules), written once."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import discord
from discord import app_commands

from bot.errors import UserError
from bot.interactions import actor_of, send_reply
from bot.reach import seen_by_invoker_only

if TYPE_CHECKING:
    from bot.app import GameBot

T = TypeVar("T")


def anywhere(command: T) -> T:
    """Usable wherever a player can reach the app: a server that added the bot, and, through
    a user install, any other server, the bot's DM, group DMs and DMs between users."""
    command = app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)(command)
    return app_commands.allowed_installs(guilds=True, users=True)(command)


def server_only(command: T) -> T:
    """Usable only in a server that added the bot (its settings are the server's)."""
    command = app_commands.allowed_contexts(guilds=True, dms=False, private_channels=False)(command)
    return app_commands.allowed_installs(guilds=True, users=False)(command)


#: Why a game cannot be opened where Discord shows the app's messages only to the invoker.
INVOKER_ONLY = (
    "This server has turned off **Use External Apps** for its members, so Discord shows what "
    "this app posts here only to the person who used it: the others could neither see nor "
    "join a game. Ask a server admin to allow Use External Apps, or to add the bot to the "
    "server, or play in a group DM or DM."
)


async def start(interaction: discord.Interaction[GameBot], kind: str, **options: object) -> None:
    assert interaction.channel_id is not None
    if seen_by_invoker_only(interaction):
        raise UserError(INVOKER_ONLY)
    reply = await interaction.client.tables.open_lobby(
        actor_of(interaction), interaction.guild_id, interaction.channel_id, kind, options
    )
    await send_reply(interaction, reply)


async def status(interaction: discord.Interaction[GameBot], kind: str) -> None:
    assert interaction.channel_id is not None
    await send_reply(
        interaction, await interaction.client.tables.status(interaction.channel_id, kind)
    )


async def leave(interaction: discord.Interaction[GameBot], kind: str) -> None:
    assert interaction.channel_id is not None
    reply = await interaction.client.tables.leave(
        actor_of(interaction), interaction.channel_id, kind
    )
    await send_reply(interaction, reply)


async def end(interaction: discord.Interaction[GameBot], kind: str) -> None:
    assert interaction.channel_id is not None
    reply = await interaction.client.tables.end(actor_of(interaction), interaction.channel_id, kind)
    await send_reply(interaction, reply)


async def rules(interaction: discord.Interaction[GameBot], kind: str, preset: str | None) -> None:
    assert interaction.channel_id is not None
    reply = await interaction.client.tables.rules(
        interaction.guild_id, interaction.channel_id, kind, preset
    )
    await send_reply(interaction, reply)
