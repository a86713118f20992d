"""/help: the games, how to start one, and the admin commands, on one short page."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import common
from bot.mentions import mention
from bot.tables.base import EMBED_COLOUR

if TYPE_CHECKING:
    from bot.app import GameBot


def help_embed(players: dict[str, str], in_server: bool = True) -> discord.Embed:
    """The help page, every command a clickable mention once the commands are synced;
    `players` is each game's player count as its lobbies here take them. `in_server`: a
    server that added the bot, where /config holds the settings; elsewhere the host's start
    options stand in for them."""
    m = mention
    games = "\n".join(
        [
            f"🎲 **Farkle** ({players['farkle']}): {m('farkle start')} · "
            f"{m('farkle rules')}",
            f"🥤 **Kuriki** ({players['kuriki']}), the bluffing dice cup: {m('kuriki start')} · "
            f"{m('kuriki rules')}",
            f"🃏 **CRAP** ({players['crap']}), the card game: {m('crap start')} · "
            f"{m('crap rules')}",
        ]
    )
    play = (
        "Start a game in any channel, everyone presses **Join**, then **Start**. Play with the "
        "buttons on the table; whoever must move is mentioned. Nobody to play with? Press "
        "**Add bot** in the lobby (or start with `bots:1`) to play against a bot. Lost the table? "
        f"{m('farkle status')} (or the game's own status) posts it again. "
        f"Leave with {m('farkle leave')}, stop with {m('farkle end')} (same for each game)."
    )
    admin = (
        f"{m('config show')} the settings · {m('config farkle')} rule set and target · "
        f"{m('config farkle-rule')} one house rule · {m('config timer')} turn timer · "
        f"{m('config lobby')} · {m('config bots')} bots' pause · {m('config kuriki')} · "
        f"{m('config crap')} · {m('config season')} a new rating season"
    )
    options = (
        "No server settings here (a DM, a group chat, or a server that did not add the bot): "
        "the host of a game chooses with the start options. "
        f"{m('farkle start')} `rules` `target` `timer` `house_rule` + `value` · "
        f"{m('kuriki start')} `lives` `timer` `two_digit` `reverse_after_kuriki` `stake` "
        f"`foul_price` · {m('crap start')} `threshold` `jokers` `timer` `force_recycle` "
        "`bluff_window`. A Rematch keeps them."
    )
    embed = discord.Embed(title="Table games", description=games, colour=EMBED_COLOUR)
    embed.add_field(name="How to play", value=play, inline=False)
    stats = (
        f"{m('stats')} a player's games, wins, records and rating (only to you, unless you "
        f"share) · {m('leaderboard')} the top players of this server or group chat, this "
        "week, this month or all time, or in one game by rating · "
        f"{m('history')} a player's recent games: open one for its whole log · "
        f"{m('verify')} check a game's dice and cards against its seed, revealed at its end"
    )
    embed.add_field(name="Stats", value=stats, inline=False)
    if in_server:
        embed.add_field(name="Server managers (Manage Server)", value=admin, inline=False)
    else:
        embed.add_field(name="Settings here: the host's start options", value=options, inline=False)
    return embed


class HelpCog(commands.Cog):
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    @app_commands.command(name="help")
    @common.anywhere
    async def help(self, interaction: discord.Interaction[GameBot]) -> None:
        """The games, how to start one, and the admin commands."""
        tables = self.bot.tables
        settings = await tables.settings(common.settings_server(interaction))
        players = {kind: a.players_text(settings) for kind, a in tables.adapters.items()}
        embed = help_embed(players, common.in_server(interaction))
        await interaction.response.send_message(embed=embed, ephemeral=True)
