"""/stats and /leaderboard: a player's figures and rating, and the top players of a server or
a group chat, by wins or by rating, from the finished games the store keeps. Both work
wherever the app reaches: /stats outside servers shows the player's games outside servers
(DMs and group DMs together) and their rating in this chat; a leaderboard is a server's,
or, outside servers, its channel's (`records.place_of`), never the bot's own DM's. The
leaderboard's Previous/Next buttons carry everything in their custom_id
(`t:board:page:<channel>:<page>:<period stamp>:<game>-<period>`; a rating board's:
`...:<page>:<season>:<game>-rating`), so they keep working after a restart; one for an
earlier week or month is refused (an earlier season's board stays readable)."""

from __future__ import annotations

import asyncio
import io
import time
from typing import TYPE_CHECKING, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import common
from bot.components import Click, TableItem, button, view_of
from bot.errors import UserError
from bot.i18n import N_, _, _n, number
from bot.luck import added, spreads
from bot.mentions import mention
from bot.pictures.luck import FILENAME as LUCK_FILE
from bot.pictures.luck import luck_picture
from bot.records import (
    ALL_GAMES,
    BEST_SCORE,
    GAME_TITLES,
    MIN_GAMES_FOR_RATE,
    PERIOD_NAMES,
    PROVISIONAL_GAMES,
    RECORDS,
    Period,
    game_name,
    game_title,
    percent,
    period_keys,
    place_of,
    rating_change,
    rating_number,
    win_rate,
)
from bot.replies import MessageArgs
from bot.respond import update_message
from bot.store import PlayerRating, PlayerRecord, Store
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
BY_CHOICES = [
    app_commands.Choice(name="Wins", value="wins"),
    app_commands.Choice(name="Rating", value="rating"),
]
COUNTING = N_(
    "Games with bots count here but are not ranked: leaderboards and ratings count games "
    "between people only. Abandoned games (ended early, or players left) are counted apart."
)
RATING_WORDS = N_(
    "Everyone's rating starts at {start} and rises as the bot gets surer of how well you play: "
    "finishing ahead of good players raises it most. It is provisional for the first few "
    "games, while it moves most. Games between people only."
)
#: The custom_id "period" of a rating board's page buttons (its stamp is the season).
RATING = "rating"


# --------------------------------------------------------------------------- /stats


def stats_embed(
    name: str,
    figures: list[PlayerRecord],
    ratings: list[PlayerRating] | None = None,
    season: int = 1,
    in_server: bool = True,
) -> discord.Embed:
    """A player's figures in each game they played here (`in_server`: this server; else
    outside servers), with that game's records and their rating in it this season (when
    they have one)."""
    embed = discord.Embed(title=_("📊 {name}'s stats", name=name), colour=EMBED_COLOUR)
    if not figures:
        embed.description = (
            _("{name} has no finished games in this server yet.", name=name)
            if in_server
            else _(
                "{name} has no finished games outside servers (DMs and group chats together) "
                "yet.",
                name=name,
            )
        )
        return embed
    rated = {r.kind: r for r in ratings or []}
    paragraphs = [] if in_server else [_("Games outside servers (DMs and group chats together).")]
    paragraphs.append(_(COUNTING))
    if rated:
        paragraphs.append(_(RATING_WORDS, start=rating_number(0.0)))
    embed.description = " ".join(paragraphs)
    for fig in figures:
        lines = _figure_lines(fig)
        if fig.kind in rated:
            lines = rating_line(rated[fig.kind], season) + "\n" + lines
        embed.add_field(name=game_title(fig.kind), value=lines[:1024])
    return embed


def rating_line(rating: PlayerRating, season: int) -> str:
    """'Rating **1069** (+69 in the last game) · 1 rated game, provisional', with the
    season once there are several."""
    value = rating_number(rating.rating)
    change = rating_change(rating.rating - rating.last_change, rating.rating)
    games = (
        _n("{n} rated game, provisional", "{n} rated games, provisional", rating.games)
        if rating.games < PROVISIONAL_GAMES
        else _n("{n} rated game", "{n} rated games", rating.games)
    )
    if season > 1:
        return _(
            "Rating **{rating}** ({change} in the last game) in season {season} · {games}",
            rating=value,
            change=change,
            season=season,
            games=games,
        )
    return _(
        "Rating **{rating}** ({change} in the last game) · {games}",
        rating=value,
        change=change,
        games=games,
    )


def _figure_lines(fig: PlayerRecord) -> str:
    """A game's figures: every finished game (against bots too) with how many of them are
    ranked (between people only), and the wins among them all; then the abandoned games
    and the records."""
    total, won = fig.games + fig.bot_games, fig.wins + fig.bot_wins
    games = (
        _n("**{n}** game ({ranked} ranked)", "**{n}** games ({ranked} ranked)", total,
           ranked=fig.games)
        if fig.bot_games
        else _n("**{n}** game", "**{n}** games", total)
    )  # fmt: skip
    wins = (
        _n("**{n}** win ({rate})", "**{n}** wins ({rate})", won, rate=percent(won, total))
        if total
        else _n("**{n}** win", "**{n}** wins", won)
    )
    lines = [f"{games} · {wins}"]
    if fig.abandoned:
        lines.append(_("Abandoned: {n}", n=fig.abandoned))
    if fig.best_score is not None and fig.kind in BEST_SCORE:
        lines.append(
            _("{record}: {value}", record=_(BEST_SCORE[fig.kind]), value=fig.best_score)
        )
    lines += [
        _("{record}: {value}", record=_(r.label), value=fig.records[r.key])
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
            name=_("🎲 Dice"),
            value=_("No dice counted yet: they are counted as games with sealed dice end."),
            inline=False,
        )
        return None
    embed.add_field(
        name=_("🎲 Dice against fair dice"),
        value="\n".join(
            _("**{title}: {total}.** {words}", title=_(s.title), total=s.total, words=s.words())
            for s in shown
        )[:1024],
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
    place: int,
    channel_id: int,
    kind: str,
    period: Period,
    page: int,
    now: float,
) -> tuple[discord.Embed, list[TableItem]]:
    """One page of the leaderboard of `place` (`records.place_of`: a server, or a group
    chat outside servers) and its Previous/Next buttons (none when it fits one page).
    Raises UserError for a page that is not there."""
    key = period_keys(now)[period]
    total, rows = await store.leaderboard(place, kind, key, page * PAGE_SIZE, PAGE_SIZE)
    pages = max(1, -(-total // PAGE_SIZE))
    if page >= pages:
        raise UserError(_("That page is not on this leaderboard: ask /leaderboard again."))
    game = _("all games") if kind == ALL_GAMES else game_title(kind)
    embed = discord.Embed(
        title=_(
            "🏆 Leaderboard · {game} · {period}", game=game, period=_(PERIOD_NAMES[period])
        ),
        colour=EMBED_COLOUR,
    )
    embed.description = (
        "\n".join(
            f"{_rank(s.rank)} <@{s.player_id}> · "
            + _n("**{n}** win", "**{n}** wins", s.wins)
            + " · "
            + _n("{n} game", "{n} games", s.games)
            + f" · {win_rate(s.games, s.wins)}"
            for s in rows
        )
        or _(
            "No game between people has finished here in this period yet (games with bots "
            "are not ranked)."
        )
    )
    embed.set_footer(
        text=_(
            "Page {page}/{pages} · ranked by wins, then fewer games · win rate from {n} games · "
            "bot games and abandoned games not counted",
            page=page + 1,
            pages=pages,
            n=MIN_GAMES_FOR_RATE,
        )
    )
    if pages == 1:
        return embed, []
    arg = f"{'all' if kind == ALL_GAMES else kind}-{period}"
    return embed, page_buttons(channel_id, page, pages, period_stamp(key), arg)


def _rank(rank: int) -> str:
    """A place on a board: a medal for the first three, else "**4.**"."""
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    return medals.get(rank) or f"**{number(rank)}.**"


def page_buttons(channel_id: int, page: int, pages: int, stamp: int, arg: str) -> list[TableItem]:
    """A board's Previous and Next buttons; `stamp` and `arg` say which board they page."""
    return [
        button(BOARD_KIND, "page", channel_id, max(page - 1, 0), stamp, _("◀ Previous"), arg=arg,
               disabled=page == 0),
        button(BOARD_KIND, "page", channel_id, page + 1, stamp, _("Next ▶"), arg=arg,
               disabled=page + 1 >= pages),
    ]  # fmt: skip


async def rating_page(
    store: Store, place: int, channel_id: int, kind: str, season: int, page: int
) -> tuple[discord.Embed, list[TableItem]]:
    """One page of the place's rating board of one game and season, and its Previous/Next
    buttons (none when it fits one page). Raises UserError for a page that is not there."""
    total, rows = await store.rating_board(place, kind, season, page * PAGE_SIZE, PAGE_SIZE)
    pages = max(1, -(-total // PAGE_SIZE))
    if page >= pages:
        raise UserError(_("That page is not on this leaderboard: ask /leaderboard again."))
    embed = discord.Embed(
        title=_(
            "🏆 Leaderboard · {game} · rating, season {season}",
            game=game_title(kind),
            season=season,
        ),
        colour=EMBED_COLOUR,
    )
    embed.description = (
        "\n".join(
            f"{_rank(s.rank)} <@{s.player_id}> · **{rating_number(s.rating)}** "
            f"({rating_change(s.rating - s.last_change, s.rating)}) · "
            + (
                _n("{n} game, provisional", "{n} games, provisional", s.games)
                if s.games < PROVISIONAL_GAMES
                else _n("{n} game", "{n} games", s.games)
            )
            for s in rows
        )
        or _(
            "Nobody has a rated game here in this season yet (games with bots are not rated)."
        )
    )
    embed.set_footer(
        text=_(
            "Page {page}/{pages} · ranked by rating (everyone starts at {start}), with its "
            "change in each player's last game · bot games and abandoned games not rated",
            start=rating_number(0.0),
            page=page + 1,
            pages=pages,
        )
    )
    if pages == 1:
        return embed, []
    return embed, page_buttons(channel_id, page, pages, season, f"{kind}-{RATING}")


def parse_rating_page(click: Click) -> tuple[str, int, int] | None:
    """The game, season and page a rating board's button asks for; None when the button is
    not one of a rating board; UserError for a forged one."""
    game, _sep, period = (click.arg or "").partition("-")
    if period != RATING:
        return None
    if click.action != "page" or game not in GAME_TITLES or click.stamp < 1:
        raise UserError(_("This button is not one I recognise any more."))
    return game, click.stamp, click.game


async def board_choice(
    store: Store,
    place: int,
    game: str | None,
    period: str | None,
    by: str | None,
    season: int | None,
) -> int | None:
    """The season a /leaderboard asks for when it ranks by rating (None: by wins); a short
    UserError when its options do not go together."""
    if (by or ("rating" if season is not None else "wins")) == "wins":
        if season is not None:
            raise UserError(_("Seasons are for ratings: add `by: Rating` to see one."))
        return None
    if game is None:
        raise UserError(_("Ratings are kept per game: choose one with `game`."))
    if period is not None:
        raise UserError(
            _(
                "A rating leaderboard covers a season, not a week or a month: leave out "
                "`period` (choose an earlier season with `season`)."
            )
        )
    current = await store.current_season(place)
    if season is not None and season > current:
        raise UserError(
            _(
                "This server is in season {current}: there is no season {season} yet.",
                current=current,
                season=season,
            )
        )
    return current if season is None else season


def parse_page(click: Click, now: float) -> tuple[str, Period, int]:
    """The game, period and page a leaderboard button asks for; UserError for a forged one
    or one from an earlier week or month (its period is over: its pages are not kept)."""
    game, _sep, period = (click.arg or "").partition("-")
    kind = ALL_GAMES if game == "all" else game
    if click.action != "page" or (kind != ALL_GAMES and kind not in GAME_TITLES):
        raise UserError(_("This button is not one I recognise any more."))
    if period not in PERIOD_NAMES:
        raise UserError(_("This button is not one I recognise any more."))
    period = cast(Period, period)
    if click.stamp != period_stamp(period_keys(now)[period]):
        raise UserError(
            _("That leaderboard was for an earlier week: ask /leaderboard for this one.")
            if period == "week"
            else _("That leaderboard was for an earlier month: ask /leaderboard for this one.")
        )
    return kind, period, click.game


def board_place(interaction: discord.Interaction) -> int:
    """Whose leaderboard a command or button here shows: the server's, or, outside servers,
    the channel's (a group DM, a DM between people); UserError in the bot's own DM, where
    nobody plays anybody."""
    assert interaction.channel_id is not None
    if interaction.guild_id is None and not interaction.context.private_channel:
        raise UserError(
            _(
                "Leaderboards belong to servers and group chats: ask there. Your own games "
                "outside servers are in {stats}.",
                stats=mention("stats"),
            )
        )
    return place_of(interaction.guild_id, interaction.channel_id)


class StatsCog(commands.Cog):
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        bot.component_handlers[BOARD_KIND] = self.on_page

    @app_commands.command(name="stats")
    @common.anywhere
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
        player: discord.User | None = None,
        game: app_commands.Choice[str] | None = None,
        share: bool = False,
        dice: bool = False,
    ) -> None:
        """A player's games, wins, records and rating in this server (outside servers:
        their games outside servers, and their rating in this chat)."""
        assert interaction.channel_id is not None
        who = player or interaction.user
        kinds = [game.value] if game else list(GAME_TITLES)
        store = self.bot.store
        figures = await store.player_records(interaction.guild_id, who.id, kinds)
        place = place_of(interaction.guild_id, interaction.channel_id)
        season = await store.current_season(place)
        rated = await store.player_ratings(place, who.id, kinds, season)
        embed = stats_embed(
            who.display_name, figures, rated, season, interaction.guild_id is not None
        )
        kwargs: MessageArgs = {"embed": embed, "ephemeral": not share}
        if dice:
            kind = game.value if game else None
            title = game_name(kind) if kind else _("all games")
            picture = await dice_field(embed, who.display_name, kind, title, figures)
            if picture is not None:
                kwargs["file"] = discord.File(io.BytesIO(picture), filename=LUCK_FILE)
        await interaction.response.send_message(**kwargs)

    @app_commands.command(name="leaderboard")
    @common.anywhere
    @app_commands.describe(
        game="Only this game (default: all games)",
        period="This week, this month or all time (default: all time)",
        by="Rank by wins or by rating (default: wins; rating needs a game)",
        season="A rating season of this server (default: the current one)",
        share="Show it to the channel (default: only to you)",
    )
    @app_commands.choices(game=GAME_CHOICES, period=PERIOD_CHOICES, by=BY_CHOICES)
    async def leaderboard(
        self,
        interaction: discord.Interaction[GameBot],
        game: app_commands.Choice[str] | None = None,
        period: app_commands.Choice[str] | None = None,
        by: app_commands.Choice[str] | None = None,
        season: app_commands.Range[int, 1, 100_000] | None = None,
        share: bool = False,
    ) -> None:
        """The top players of this server or group chat, by wins or in one game by rating."""
        assert interaction.channel_id is not None
        store = self.bot.store
        place = board_place(interaction)
        kind = game.value if game else None
        rated = await board_choice(
            store,
            place,
            kind,
            period.value if period else None,
            by.value if by else None,
            season,
        )
        if rated is not None and kind is not None:
            embed, items = await rating_page(
                store, place, interaction.channel_id, kind, rated, 0
            )
        else:
            embed, items = await leaderboard_page(
                store,
                place,
                interaction.channel_id,
                kind or ALL_GAMES,
                cast(Period, period.value if period else "all"),
                0,
                time.time(),
            )
        kwargs: MessageArgs = {"embed": embed, "ephemeral": not share}
        if items:
            kwargs["view"] = view_of(items)
        await interaction.response.send_message(**kwargs)

    async def on_page(self, interaction: discord.Interaction[GameBot], click: Click) -> None:
        """A Previous/Next press: the message shows the asked page of today's leaderboard
        of the place it is pressed in."""
        place = board_place(interaction)
        rated = parse_rating_page(click)
        if rated is not None:
            kind, season, page = rated
            embed, items = await rating_page(
                self.bot.store, place, click.channel_id, kind, season, page
            )
            await update_message(interaction, embed=embed, view=view_of(items))
            return
        now = time.time()
        kind, period, page = parse_page(click, now)
        embed, items = await leaderboard_page(
            self.bot.store, place, click.channel_id, kind, period, page, now
        )
        await update_message(interaction, embed=embed, view=view_of(items))
