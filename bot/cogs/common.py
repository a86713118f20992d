"""The commands every game has (start, status, leave, end, rules), written once."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.interactions import actor_of, send_reply

if TYPE_CHECKING:
    from bot.app import GameBot


async def start(interaction: discord.Interaction[GameBot], kind: str, **options: object) -> None:
    assert interaction.channel_id is not None
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
