"""/stats and /leaderboard: a player's figures and the server's top players, from the
finished games the store keeps. The leaderboard's Previous/Next buttons carry everything in
their custom_id (`t:board:page:<channel>:<page>:<period stamp>:<game>-<period>`), so they
keep working after a restart; one for an earlier week or month is refused."""

from __future__ import annotations

import asyncio
import io
import time
from typing import TYPE_CHECKING, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.components import Click, TableItem, button, view_of
from bot.errors import UserError
from bot.luck import added, spreads
from bot.pictures.luck import FILENAME as LUCK_FILE
from bot.pictures.luck import luck_picture
from bot.records import (
    ALL_GAMES,
    BEST_SCORE,
    GAME_TITLES,
    MIN_GAMES_FOR_RATE,
    PERIOD_NAMES,
    RECORDS,
    Period,
    period_keys,
    win_rate,
)
from bot.respond import update_message
from bot.store import PlayerRecord, Store
from bot.tables.base import EMBED_COLOUR

if TYPE_CHECKING:
    from bot.app import GameBot

BOARD_KIND = "board"  # the custom_id "game" of leaderboard buttons
PAGE_SIZE = 10
GAME_CHOICES = [app_commands.Choice(name=title, value=k) for k, title in GAME_TITLES.items()]
PERIOD_CHOICES = [
    app_commands.Choice(name="This week", value="week"),
    app_commands.Choice(name="This month", value="month"),
    app_commands.Choice(name="All time", value="all"),
]
COUNTING = (
    "Wins count finished games between people; games against bots and abandoned games "
    "(ended early, or players left) are counted apart."
)


# --------------------------------------------------------------------------- /stats


def stats_embed(name: str, figures: list[PlayerRecord]) -> discord.Embed:
    """A player's figures in each game they played here, with that game's records."""
    embed = discord.Embed(title=f"📊 {name}'s stats", colour=EMBED_COLOUR)
    if not figures:
        embed.description = f"{name} has no finished games in this server yet."
        return embed
    embed.description = COUNTING
    for fig in figures:
        embed.add_field(name=GAME_TITLES.get(fig.kind, fig.kind), value=_figure_lines(fig))
    return embed


def _figure_lines(fig: PlayerRecord) -> str:
    rate = f" ({100 * fig.wins / fig.games:.0f}%)" if fig.games else ""
    lines = [
        f"**{fig.games}** game{'s' if fig.games != 1 else ''} · **{fig.wins}** "
        f"win{'s' if fig.wins != 1 else ''}{rate}"
    ]
    if fig.bot_games:
        lines.append(
            f"Against bots: {fig.bot_games} games, {fig.bot_wins} win{'s' if fig.bot_wins != 1 else ''}"
        )
    if fig.abandoned:
        lines.append(f"Abandoned: {fig.abandoned}")
    if fig.best_score is not None and fig.kind in BEST_SCORE:
        lines.append(f"{BEST_SCORE[fig.kind]}: {fig.best_score}")
    lines += [
        f"{r.label}: {fig.records[r.key]}"
        for r in RECORDS.get(fig.kind, ())
        if r.key in fig.records
    ]
    return "\n".join(lines)


async def dice_field(
    embed: discord.Embed,
    name: str,
    kind: str | None,
    title: str,
    figures: list[PlayerRecord],
) -> bytes | None:
    """/stats dice: the player's dice (in `kind`, or every game) against fair dice, in
    words on `embed` and as a picture shown in it (returned, drawn in a thread); None when
    no die of theirs was counted yet."""
    shown = spreads(kind, added(fig.luck for fig in figures))
    if not shown[0].total:
        embed.add_field(
            name="🎲 Dice",
            value="No dice counted yet: they are counted as games with sealed dice end.",
            inline=False,
        )
        return None
    embed.add_field(
        name="🎲 Dice against fair dice",
        value="\n".join(f"**{s.title}: {s.total}.** {s.words()}" for s in shown),
        inline=False,
    )
    embed.set_image(url=f"attachment://{LUCK_FILE}")
    return await asyncio.to_thread(luck_picture, name, title, shown)


# --------------------------------------------------------------------------- /leaderboard


def period_stamp(key: str) -> int:
    """The custom_id stamp of a period key: 20261116 for the week of Monday 16 Nov 2026,
    202611 for its month, 0 for all time."""
    digits = "".join(c for c in key if c.isdigit())
    return int(digits) if digits else 0


async def leaderboard_page(
    store: Store,
    guild_id: int,
    channel_id: int,
    kind: str,
    period: Period,
    page: int,
    now: float,
) -> tuple[discord.Embed, list[TableItem]]:
    """One page of the server's leaderboard and its Previous/Next buttons (none when it
    fits one page). Raises UserError for a page that is not there."""
    key = period_keys(now)[period]
    total, rows = await store.leaderboard(guild_id, kind, key, page * PAGE_SIZE, PAGE_SIZE)
    pages = max(1, -(-total // PAGE_SIZE))
    if page >= pages:
        raise UserError("That page is not on this leaderboard: ask /leaderboard again.")
    game = "all games" if kind == ALL_GAMES else GAME_TITLES[kind]
    embed = discord.Embed(
        title=f"🏆 Leaderboard · {game} · {PERIOD_NAMES[period]}", colour=EMBED_COLOUR
    )
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    embed.description = (
        "\n".join(
            f"{medals.get(s.rank, f'**{s.rank}.**')} <@{s.player_id}> · **{s.wins}** "
            f"win{'s' if s.wins != 1 else ''} · {s.games} game{'s' if s.games != 1 else ''}"
            f" · {win_rate(s.games, s.wins)}"
            for s in rows
        )
        or "Nobody has finished a game here in this period yet."
    )
    embed.set_footer(
        text=f"Page {page + 1}/{pages} · ranked by wins, then fewer games · win rate from "
        f"{MIN_GAMES_FOR_RATE} games · bot games and abandoned games not counted"
    )
    if pages == 1:
        return embed, []
    arg = f"{'all' if kind == ALL_GAMES else kind}-{period}"
    stamp = period_stamp(key)
    items = [
        button(BOARD_KIND, "page", channel_id, max(page - 1, 0), stamp, "◀ Previous", arg=arg,
               disabled=page == 0),
        button(BOARD_KIND, "page", channel_id, page + 1, stamp, "Next ▶", arg=arg,
               disabled=page + 1 >= pages),
    ]  # fmt: skip
    return embed, items


def parse_page(click: Click, now: float) -> tuple[str, Period, int]:
    """The game, period and page a leaderboard button asks for; UserError for a forged one
    or one from an earlier week or month (its period is over: its pages are not kept)."""
    game, _, period = (click.arg or "").partition("-")
    kind = ALL_GAMES if game == "all" else game
    if click.action != "page" or (kind != ALL_GAMES and kind not in GAME_TITLES):
        raise UserError("This button is not one I recognise any more.")
    if period not in PERIOD_NAMES:
        raise UserError("This button is not one I recognise any more.")
    period = cast(Period, period)
    if click.stamp != period_stamp(period_keys(now)[period]):
        raise UserError(
            f"That leaderboard was for an earlier {period}: ask /leaderboard for this one."
        )
    return kind, period, click.game


class StatsCog(commands.Cog):
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        bot.component_handlers[BOARD_KIND] = self.on_page

    @app_commands.command(name="stats")
    @app_commands.guild_only()
    @app_commands.describe(
        player="Whose stats (default: yours)",
        game="Only this game (default: every game played)",
        share="Show them to the channel (default: only to you)",
        dice="Also a picture of every die they rolled against fair dice (default: no)",
    )
    @app_commands.choices(game=GAME_CHOICES)
    async def stats(
        self,
        interaction: discord.Interaction[GameBot],
        player: discord.Member | None = None,
        game: app_commands.Choice[str] | None = None,
        share: bool = False,
        dice: bool = False,
    ) -> None:
        """A player's games, wins and records in this server."""
        who = player or interaction.user
        kinds = [game.value] if game else list(GAME_TITLES)
        figures = await self.bot.store.player_records(interaction.guild_id, who.id, kinds)
        embed = stats_embed(who.display_name, figures)
        kwargs: dict[str, object] = {"embed": embed, "ephemeral": not share}
        if dice:
            kind = game.value if game else None
            title = self.bot.adapters[kind].title if kind else "all games"
            picture = await dice_field(embed, who.display_name, kind, title, figures)
            if picture is not None:
                kwargs["file"] = discord.File(io.BytesIO(picture), filename=LUCK_FILE)
        await interaction.response.send_message(**kwargs)  # type: ignore[arg-type]

    @app_commands.command(name="leaderboard")
    @app_commands.guild_only()
    @app_commands.describe(
        game="Only this game (default: all games)",
        period="This week, this month or all time (default: all time)",
        share="Show it to the channel (default: only to you)",
    )
    @app_commands.choices(game=GAME_CHOICES, period=PERIOD_CHOICES)
    async def leaderboard(
        self,
        interaction: discord.Interaction[GameBot],
        game: app_commands.Choice[str] | None = None,
        period: app_commands.Choice[str] | None = None,
        share: bool = False,
    ) -> None:
        """The server's top players by wins."""
        assert interaction.guild_id is not None and interaction.channel_id is not None
        embed, items = await leaderboard_page(
            self.bot.store,
            interaction.guild_id,
            interaction.channel_id,
            game.value if game else ALL_GAMES,
            cast(Period, period.value if period else "all"),
            0,
            time.time(),
        )
        kwargs: dict[str, object] = {"embed": embed, "ephemeral": not share}
        if items:
            kwargs["view"] = view_of(items)
        await interaction.response.send_message(**kwargs)  # type: ignore[arg-type]

    async def on_page(self, interaction: discord.Interaction[GameBot], click: Click) -> None:
        """A Previous/Next press: the message shows the asked page of today's leaderboard."""
        if interaction.guild_id is None:
            raise UserError("This button is not one I recognise any more.")
        now = time.time()
        kind, period, page = parse_page(click, now)
        embed, items = await leaderboard_page(
            self.bot.store, interaction.guild_id, click.channel_id, kind, period, page, now
        )
        await update_message(interaction, embed=embed, view=view_of(items))
