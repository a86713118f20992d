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

from bot.components import Click, TableItem, button, select
from bot.errors import UserError
from bot.i18n import render
from bot.records import GAME_TITLES, place_of
from bot.store import PlayedGame, Store
from bot.tables.base import EMBED_COLOUR
from games.numbers import number
from games.text import line_from_json

HISTORY_KIND = "hist"  # the custom_id "game" of the history's buttons
PAGE_SIZE = 10  # games per page of the list (a select shows them all)
#: Characters of log per page: an embed's description takes 4,096 and the whole embed 6,000,
#: with the players and the result beside it.
LOG_PAGE_CHARS = 3000
#: What a game's score counts, where it is not points.
SCORE_WORDS: dict[str, str] = {"kuriki": "lives left"}
NOT_RECOGNISED = "This button is not one I recognise any more."
NOT_HERE = "That game is not in the history of this place."
NO_LOG = "The log of this game was not kept: it finished before the bot kept whole logs."
EMPTY_LOG = "Nothing was written in this game's log."


def game_name(kind: str) -> str:
    """A game's title without its emoji (for a select's labels)."""
    return GAME_TITLES.get(kind, kind).split(" ", 1)[-1]


def _score(kind: str, score: int) -> str:
    """A final score as the game counts it: "350", "2 lives left"."""
    return f"{score} {SCORE_WORDS.get(kind, '')}".rstrip()


def _name(player: dict[str, Any]) -> str:
    """A player's name as the table knew it, shown as written (no markdown)."""
    return discord.utils.escape_markdown(str(player["name"]))


def _result(game: PlayedGame) -> str:
    return "no winner" if game.abandoned else "won" if game.won else "lost"


def _others(game: PlayedGame, player_id: int) -> str:
    """Whom the player played with, by the names they had at the table."""
    names = [_name(p) for p in game.players if p["id"] != player_id]
    if len(names) > 3:
        names = [*names[:3], f"{len(names) - 3} more"]
    return ", ".join(names)


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
        player, _, game = (click.arg or "").partition("-")
        player_id = number(player)
        if player_id is None or (game != "all" and game not in GAME_TITLES):
            raise UserError(NOT_RECOGNISED)
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
        raise UserError("That page is not in this history: ask /history again.")
    which = "" if listing.kind is None else f" · {GAME_TITLES[listing.kind]}"
    embed = discord.Embed(title=f"📜 Game history{which}", colour=EMBED_COLOUR)
    who = f"<@{listing.player_id}>"
    if not games:
        embed.description = f"{who} has no finished games here yet."
        return embed, []
    start = page * PAGE_SIZE
    embed.description = f"{who}'s games here, the most recent first:\n" + "\n".join(
        f"**{start + n}.** <t:{int(g.finished_at)}:d> · {GAME_TITLES.get(g.kind, g.kind)} · "
        f"**{_result(g)}**" + ("" if g.score is None else f" · {_score(g.kind, g.score)}")
        + (f" · with {others}" if (others := _others(g, listing.player_id)) else "")
        for n, g in enumerate(games, start=1)
    )  # fmt: skip
    embed.set_footer(text=f"Page {page + 1}/{pages} · {total} game{'s' if total != 1 else ''}")
    options = [
        (
            f"{start + n}. {game_name(g.kind)} · {_result(g)} · "
            f"{dt.datetime.fromtimestamp(g.finished_at, dt.UTC):%d %b %Y}",
            str(g.game_id),
        )
        for n, g in enumerate(games, start=1)
    ]
    items = [
        select(HISTORY_KIND, "open", listing.channel_id, page, 0, options,
               placeholder="Open a game", arg=listing.arg),
    ]  # fmt: skip
    if pages > 1:
        items += [
            button(HISTORY_KIND, "list", listing.channel_id, max(page - 1, 0), 0, "◀ Previous",
                   arg=listing.arg, disabled=page == 0),
            button(HISTORY_KIND, "list", listing.channel_id, page + 1, 0, "Next ▶",
                   arg=listing.arg, disabled=page + 1 >= pages),
        ]  # fmt: skip
    return embed, items


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
    if game is None or place_of(game["guild_id"], game["channel_id"]) != place:  # type: ignore[arg-type]
        raise UserError(NOT_HERE)
    return {**game, "rating_changes": await store.rating_changes(game["id"])}  # type: ignore[arg-type]


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
    """'Ann 12.3 → 14.1 (+1.8)' for each rated player, in the order the game ranked them."""
    lines = [
        f"{_name(p)} {changes[p['id']][0]:.1f} → {changes[p['id']][1]:.1f} "
        f"({changes[p['id']][1] - changes[p['id']][0]:+.1f})"
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
    log: list[object] | None = game.get("log")
    lines = [render(line_from_json(line)) for line in log or ()]
    pages = [NO_LOG] if log is None else log_pages(lines) if lines else [EMPTY_LOG]
    if page >= len(pages):
        raise UserError("That page is not in this game's log: open the game again.")
    kind = game["kind"]
    embed = discord.Embed(
        title=f"{GAME_TITLES.get(kind, kind)} · game {game['id']}",
        description=pages[page],
        colour=EMBED_COLOUR,
    )
    started, finished = int(game["started_at"]), int(game["finished_at"])
    minutes = max(1, round((finished - started) / 60))
    embed.add_field(
        name="Result",
        value=f"{game['outcome']}\n<t:{finished}:f> in <#{game['channel_id']}>, "
        f"{minutes} minute{'s' if minutes != 1 else ''}"[:1024],
        inline=False,
    )
    embed.add_field(name="Players", value=_players(game) or "–", inline=False)
    changes = game.get("rating_changes")
    if changes:
        embed.add_field(name="Rating changes", value=_rating_changes(game, changes), inline=False)
    footer = f"Log page {page + 1}/{len(pages)}" if log is not None else "No log kept"
    if game.get("story") is None:
        footer += " · no picture kept"
    embed.set_footer(text=footer)
    items: list[TableItem] = []
    if len(pages) > 1:
        items += [
            button(HISTORY_KIND, "game", channel_id, max(page - 1, 0), 0, "◀ Earlier",
                   arg=game["id"], disabled=page == 0),
            button(HISTORY_KIND, "game", channel_id, page + 1, 0, "Later ▶",
                   arg=game["id"], disabled=page + 1 >= len(pages)),
        ]  # fmt: skip
    if not public:
        items.append(
            button(HISTORY_KIND, "share", channel_id, page, 0, "Share", arg=game["id"],
                   style=discord.ButtonStyle.primary)
        )  # fmt: skip
    return embed, items
