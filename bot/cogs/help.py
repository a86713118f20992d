"""/help: the games, how to start one, and the admin commands, on one short page."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import common
from bot.i18n import _
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
            _(
                "🎲 **Farkle** ({players}): {start} · {rules}",
                players=players["farkle"],
                start=m("farkle start"),
                rules=m("farkle rules"),
            ),
            _(
                "🥤 **Kuriki** ({players}), the bluffing dice cup: {start} · {rules}",
                players=players["kuriki"],
                start=m("kuriki start"),
                rules=m("kuriki rules"),
            ),
            _(
                "🃏 **CRAP** ({players}), the card game: {start} · {rules}",
                players=players["crap"],
                start=m("crap start"),
                rules=m("crap rules"),
            ),
        ]
    )
    play = _(
        "Start a game in any channel, everyone presses **Join**, then **Start**. Play with the "
        "buttons on the table; whoever must move is mentioned. Nobody to play with? Press "
        "**Add bot** in the lobby (or start with `bots:1`) to play against a bot. Lost the "
        "table? {status} (or the game's own status) posts it again. Leave with {leave}, stop "
        "with {end} (same for each game).",
        status=m("farkle status"),
        leave=m("farkle leave"),
        end=m("farkle end"),
    )
    admin = _(
        "{show} the settings · {farkle} rule set and target · {farkle_rule} one house rule · "
        "{timer} turn timer · {lobby} · {bots} bots' pause · {kuriki} · {crap} · {language} "
        "language · {season} a new rating season",
        show=m("config show"),
        farkle=m("config farkle"),
        farkle_rule=m("config farkle-rule"),
        timer=m("config timer"),
        lobby=m("config lobby"),
        bots=m("config bots"),
        kuriki=m("config kuriki"),
        crap=m("config crap"),
        language=m("config language"),
        season=m("config season"),
    )
    options = _(
        "No server settings here (a DM, a group chat, or a server that did not add the bot): "
        "the host of a game chooses with the start options. {farkle} `rules` `target` `timer` "
        "`house_rule` + `value` · {kuriki} `lives` `timer` `two_digit` `reverse_after_kuriki` "
        "`stake` `foul_price` · {crap} `threshold` `jokers` `timer` `force_recycle` "
        "`bluff_window`. A Rematch keeps them.",
        farkle=m("farkle start"),
        kuriki=m("kuriki start"),
        crap=m("crap start"),
    )
    embed = discord.Embed(title=_("Table games"), description=games, colour=EMBED_COLOUR)
    mine = _(
        "{games} your running games everywhere, only to you: whose turn, when it runs out, "
        "a link to each table.",
        games=m("games"),
    )
    embed.add_field(name=_("How to play"), value=f"{play}\n{mine}"[:1024], inline=False)
    days = _(
        "{remind} how a long turn reminds you: also by direct message, and quiet hours in your "
        "time zone · {away} away for a while: a bot plays your turns, or the game pauses if "
        "everyone agrees",
        remind=m("remind show"),
        away=m("away"),
    )
    embed.add_field(name=_("Playing over days"), value=days[:1024], inline=False)
    stats = _(
        "{stats} a player's games, wins, records and rating (only to you, unless you share) · "
        "{leaderboard} the top players of this server or group chat, this week, this month or "
        "all time, or in one game by rating · {history} a player's recent games: open one for "
        "its whole log · {verify} check a game's dice and cards against its seed, revealed at "
        "its end",
        stats=m("stats"),
        leaderboard=m("leaderboard"),
        history=m("history"),
        verify=m("verify"),
    )
    embed.add_field(name=_("Stats"), value=stats[:1024], inline=False)
    if in_server:
        embed.add_field(
            name=_("Server managers (Manage Server)"), value=admin[:1024], inline=False
        )
    else:
        embed.add_field(
            name=_("Settings here: the host's start options"), value=options[:1024], inline=False
        )
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
