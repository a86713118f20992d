"""What /history shows: a player's finished games in a place, a page at a time, and one game
opened: its players, result, scores, whole log (a page at a time) and story picture.

Every button and select carries all it needs in its custom_id, so they keep working after a
restart (the cog registers them in `GameBot.component_handlers`):

    t:hist:list:<channel>:<page>:0:<player>-<game or all>     a page of the list
    t:hist:open:<channel>:<page>:0:<player>-<game or all>     the select; its value: a game id
    t:hist:game:<channel>:<log page>:0:<game id>              a page of an opened game's log
    t:hist:share:<channel>:<log page>:0:<game id>             post the opened game publicly

A game is shown only in its own place (`records.place_of`): a button naming a game of another
server is refused like a forged one."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import discord
from babel.dates import format_date

from bot.components import Click, TableItem, button, select
from bot.errors import UserError
from bot.i18n import N_, _, _n, _p, current, duration, listed, number, render
from bot.players import as_text, who
from bot.records import GAME_TITLES, game_name, game_title, place_of, rating_change, rating_number
from bot.store import PlayedGame, Store
from bot.store.packed import Unreadable
from bot.tables.base import EMBED_COLOUR
from games.numbers import number as parsed
from games.text import line_from_json, line_from_text

HISTORY_KIND = "hist"  # the custom_id "game" of the history's buttons
PAGE_SIZE = 10  # games per page of the list (a select shows them all)
#: Characters of log per page: an embed's description takes 4,096 and the whole embed 6,000,
#: with the players and the result beside it.
LOG_PAGE_CHARS = 3000
#: Catalogue keys, translated where they are said (`_(NOT_RECOGNISED)`).
NOT_RECOGNISED = N_("This button is not one I recognise any more.")
NOT_HERE = N_("That game is not in the history of this place.")
NO_LOG = N_("The log of this game was not kept: it finished before the bot kept whole logs.")
EMPTY_LOG = N_("Nothing was written in this game's log.")
DAMAGED_LOG = N_("The log of this game cannot be read: its stored copy is damaged.")


def _score(kind: str, score: int) -> str:
    """A final score as the game counts it: "350", "2 lives left" (Kuriki counts lives)."""
    if kind == "kuriki":
        return _n("{n} life left", "{n} lives left", score)
    return number(score)


def _name(player: dict[str, Any]) -> str:
    """A player's name as the table knew it, shown as written (`players.as_text`): these
    lines are put together here, outside a sentence that would escape it."""
    return as_text(str(player["name"]))


def _result(game: PlayedGame) -> str:
    if game.abandoned:
        return _p("a finished game", "no winner")
    return _p("a finished game", "won") if game.won else _p("a finished game", "lost")


def _others(game: PlayedGame, player_id: int) -> str:
    """Whom the player played with, by the names they had at the table."""
    names = [_name(p) for p in game.players if p["id"] != player_id]
    if len(names) > 3:
        names = [*names[:3], _n("{n} more", "{n} more", len(names) - 3)]
    return listed(names)


# --------------------------------------------------------------------------- the list


@dataclass(frozen=True)
class Listing:
    """Which list a button shows: whose games, of which game (None: all), in which channel."""

    channel_id: int
    player_id: int
    kind: str | None

    @property
    def arg(self) -> str:
        return f"{self.player_id}-{self.kind or 'all'}"

    @classmethod
    def of(cls, click: Click) -> Listing:
        """The list a list button or the select names; UserError for a forged one."""
        player, _sep, game = (click.arg or "").partition("-")
        player_id = parsed(player)
        if player_id is None or (game != "all" and game not in GAME_TITLES):
            raise UserError(_(NOT_RECOGNISED))
        return cls(click.channel_id, player_id, None if game == "all" else game)


async def list_page(
    store: Store, place: int, listing: Listing, page: int
) -> tuple[discord.Embed, list[TableItem]]:
    """One page of a player's games in a place, the most recent first, with a select that
    opens one and Previous/Next buttons when there are more. The player is mentioned (an
    embed's mention notifies nobody), so every page names them as Discord does now. Raises
    UserError for a page that is not there."""
    total, games = await store.player_games(
        place, listing.player_id, listing.kind, page * PAGE_SIZE, PAGE_SIZE
    )
    pages = max(1, -(-total // PAGE_SIZE))
    if page >= pages:
        raise UserError(_("That page is not in this history: ask /history again."))
    title = (
        _("📜 Game history")
        if listing.kind is None
        else _("📜 Game history · {game}", game=game_title(listing.kind))
    )
    embed = discord.Embed(title=title, colour=EMBED_COLOUR)
    player = who(listing.player_id)
    if not games:
        embed.description = _("{player} has no finished games here yet.", player=player)
        return embed, []
    start = page * PAGE_SIZE
    rows = [_("{player}'s games here, the most recent first:", player=player)]
    for n, g in enumerate(games, start=1):
        parts = [f"**{number(start + n)}.** <t:{int(g.finished_at)}:d>", game_title(g.kind),
                 f"**{_result(g)}**"]  # fmt: skip
        if g.score is not None:
            parts.append(_score(g.kind, g.score))
        if others := _others(g, listing.player_id):
            parts.append(_("with {players}", players=others))
        rows.append(" · ".join(parts))
    embed.description = "\n".join(rows)[:4096]
    embed.set_footer(
        text=_("Page {page}/{pages}", page=page + 1, pages=pages)
        + " · "
        + _n("{n} game", "{n} games", total)
    )
    options = [
        (
            f"{number(start + n)}. {game_name(g.kind)} · {_result(g)} · {_date(g.finished_at)}",
            str(g.game_id),
        )
        for n, g in enumerate(games, start=1)
    ]
    items = [
        select(HISTORY_KIND, "open", listing.channel_id, page, 0, options,
               placeholder=_("Open a game"), arg=listing.arg),
    ]  # fmt: skip
    if pages > 1:
        items += [
            button(HISTORY_KIND, "list", listing.channel_id, max(page - 1, 0), 0,
                   _("◀ Previous"), arg=listing.arg, disabled=page == 0),
            button(HISTORY_KIND, "list", listing.channel_id, page + 1, 0, _("Next ▶"),
                   arg=listing.arg, disabled=page + 1 >= pages),
        ]  # fmt: skip
    return embed, items


def _date(when: float) -> str:
    """The day a game finished (UTC), as the current language writes a date in short."""
    day = dt.datetime.fromtimestamp(when, dt.UTC).date()
    return format_date(day, format="medium", locale=current().locale)


# --------------------------------------------------------------------------- one game


def log_pages(lines: list[str]) -> list[str]:
    """The log cut into pages of whole lines, each at most LOG_PAGE_CHARS long (a line
    longer than a page, which no game writes, is cut)."""
    pages: list[str] = []
    current: list[str] = []
    size = 0
    for line in lines:
        line = line[:LOG_PAGE_CHARS]
        if current and size + 1 + len(line) > LOG_PAGE_CHARS:
            pages.append("\n".join(current))
            current, size = [], 0
        size += len(line) + (1 if current else 0)
        current.append(line)
    if current or not pages:
        pages.append("\n".join(current))
    return pages


async def finished_here(store: Store, game_id: int | None, place: int) -> dict[str, Any]:
    """The finished game `game_id` if it was played in `place`; UserError otherwise."""
    game = None if game_id is None else await store.finished_game(game_id)
    if game is None or place_of(game["guild_id"], game["channel_id"]) != place:  # type: ignore[arg-type]  # finished_games columns: guild_id int | None, channel_id int
        raise UserError(_(NOT_HERE))
    return {**game, "rating_changes": await store.rating_changes(game["id"])}  # type: ignore[arg-type]  # the finished_games id column: an int


def _players(game: dict[str, Any]) -> str:
    """Each player, by the name the table knew, with their score, the winners crowned, in
    the order the game ranked them."""
    winners = set(game["rules"].get("winners") or []) or {game["winner_id"]}
    scores = game["scores"]
    lines = []
    for p in game["players"]:
        pid = p["id"]
        mark = "🏆 " if pid in winners and game["winner_id"] is not None else ""
        score = scores.get(str(pid))
        lines.append(f"{mark}{_name(p)}" + ("" if score is None else f" · {_score(game['kind'], score)}"))
    text = "\n".join(lines)
    return text if len(text) <= 1024 else text[:1020] + " …"


def _rating_changes(game: dict[str, Any], changes: dict[int, tuple[float, float]]) -> str:
    """'Ann 1000 → 1069 (+69)' for each rated player, in the order the game ranked them."""
    lines = [
        f"{_name(p)} {rating_number(changes[p['id']][0])} → {rating_number(changes[p['id']][1])} "
        f"({rating_change(*changes[p['id']])})"
        for p in game["players"]
        if p["id"] in changes
    ]
    text = "\n".join(lines)
    return text if len(text) <= 1024 else text[:1020] + " …"


def game_view(
    game: dict[str, Any], channel_id: int, page: int, *, public: bool = False
) -> tuple[discord.Embed, list[TableItem]]:
    """One finished game: its result, players and scores, and one page of its log, with
    page buttons and, shown privately, Share. Raises UserError for a page that is not
    there."""
    log: list[object] | Unreadable | None = game.get("log")
    if isinstance(log, Unreadable):
        pages = [_(DAMAGED_LOG)]
    else:
        lines = [render(line_from_json(line)) for line in log or ()]
        pages = [_(NO_LOG)] if log is None else log_pages(lines) if lines else [_(EMPTY_LOG)]
    if page >= len(pages):
        raise UserError(_("That page is not in this game's log: open the game again."))
    kind = game["kind"]
    embed = discord.Embed(
        title=_("{game} · game {number}", game=game_title(kind), number=str(game["id"])),
        description=pages[page],
        colour=EMBED_COLOUR,
    )
    started, finished = int(game["started_at"]), int(game["finished_at"])
    minutes = max(1, round((finished - started) / 60))
    when = _(
        "<t:{time}:f> in {channel}, {duration}",
        time=str(finished),
        channel=f"<#{game['channel_id']}>",
        duration=duration(minutes * 60),
    )
    outcome = render(line_from_text(game["outcome"]))
    embed.add_field(name=_("Result"), value=f"{outcome}\n{when}"[:1024], inline=False)
    embed.add_field(name=_("Players"), value=_players(game) or "–", inline=False)
    changes = game.get("rating_changes")
    if changes:
        embed.add_field(
            name=_("Rating changes"), value=_rating_changes(game, changes), inline=False
        )
    footer = [
        _("Log page {page}/{pages}", page=page + 1, pages=len(pages))
        if log is not None
        else _("No log kept")
    ]
    if game.get("story") is None:
        footer.append(_("no picture kept"))
    embed.set_footer(text=" · ".join(footer))
    items: list[TableItem] = []
    if len(pages) > 1:
        items += [
            button(HISTORY_KIND, "game", channel_id, max(page - 1, 0), 0, _("◀ Earlier"),
                   arg=game["id"], disabled=page == 0),
            button(HISTORY_KIND, "game", channel_id, page + 1, 0, _("Later ▶"),
                   arg=game["id"], disabled=page + 1 >= len(pages)),
        ]  # fmt: skip
    if not public:
        items.append(
            button(HISTORY_KIND, "share", channel_id, page, 0, _("Share"), arg=game["id"],
                   style=discord.ButtonStyle.primary)
        )  # fmt: skip
    return embed, items
