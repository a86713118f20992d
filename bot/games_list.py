"""What `/games` shows: every running game and lobby a player sits at, in every place the bot
can name (a server's channel, a DM, a group DM), privately. Each line says the game, where,
whose turn it is, when the turn runs out (a Discord timestamp, counting down in the reader's
own clock and language) and links to the table. The games waiting on the player come first,
then their other games, then their lobbies, each the longest waiting first.

Everything comes from the store's index of seats (bot/store/seats.py) in one read; only a
game whose seats the migration filled in, and that nobody moved since, is read itself to
tell whom it waits on."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

import discord

from bot.errors import CorruptSession
from bot.i18n import _, _n
from bot.records import game_title
from bot.replies import Reply
from bot.store import SeatedGame
from bot.tables.base import EMBED_COLOUR

if TYPE_CHECKING:
    from bot.service import Tables

log = logging.getLogger(__name__)

#: The most games one answer lists; the rest are counted ("and 3 more").
SHOWN = 20
#: The most seats read for one answer (the order is decided among them).
READ = 200
#: Discord's limit of an embed's description, less room for the closing line.
ROOM = 3900


def table_link(game: SeatedGame) -> str:
    """The jump link to the game's table message (the channel's, before one was posted)."""
    place = "@me" if game.guild_id is None else str(game.guild_id)
    tail = "" if game.message_id is None else f"/{game.message_id}"
    return f"https://discord.com/channels/{place}/{game.channel_id}{tail}"


def order(game: SeatedGame) -> tuple[int, float]:
    """Waiting on the player first, then their other games, then lobbies; in each, the
    longest waiting first."""
    group = 0 if game.waiting else 1 if game.started else 2
    return group, game.waited_since


def line(game: SeatedGame) -> str:
    """One game as the list shows it, in the reader's language."""
    where = _("direct messages") if game.guild_id is None else f"<#{game.channel_id}>"
    parts = [f"**{game_title(game.kind)}**", where]
    if not game.started:
        parts.append(_("lobby"))
        if game.due is not None:
            parts.append(_("closes {when}", when=f"<t:{int(game.due)}:R>"))
    else:
        if game.waiting:
            parts.append(_("**your turn**"))
        elif game.waiting_on:
            parts.append(_("waiting for {names}", names=[n for _i, n, _s in game.waiting_on]))
        if game.due is not None:
            parts.append(_("time runs out {when}", when=f"<t:{int(game.due)}:R>"))
        else:
            parts.append(_("no turn timer"))
    link = _("table") if game.started else _("lobby message")
    parts.append(f"[{link}]({table_link(game)})")
    return " · ".join(parts)


async def my_games(tables: Tables, player_id: int) -> Reply:
    """The player's games, privately (see the module's docstring)."""
    total, seated = await tables.store.player_seats(player_id, READ)
    games = []
    for game in seated:
        told = game if game.waiting is not None else await _told(tables, game, player_id)
        if told is None:
            total -= 1
            continue
        games.append(told)
    if not games:
        return Reply(
            content=_(
                "You are in no running game or lobby. Start one with `/farkle start`, "
                "`/kuriki start` or `/crap start`."
            ),
            ephemeral=True,
        )
    games.sort(key=order)
    lines: list[str] = []
    size = 0
    for game in games[:SHOWN]:
        text = f"{len(lines) + 1}. {line(game)}"
        if size + len(text) + 1 > ROOM:
            break
        lines.append(text)
        size += len(text) + 1
    more = total - len(lines)
    if more > 0:
        lines.append(_n("…and {n} more game.", "…and {n} more games.", more))
    embed = discord.Embed(
        title=_("🎲 Your games"), description="\n".join(lines), colour=EMBED_COLOUR
    )
    return Reply(embed=embed, ephemeral=True)


async def _told(tables: Tables, game: SeatedGame, player_id: int) -> SeatedGame | None:
    """A seat whose waiting is not known yet (filled in by the migration), told by reading
    its game: None when the player is no longer at it, or it cannot be read."""
    try:
        session = await tables.sessions.get(game.channel_id)
    except CorruptSession:
        return None
    adapter = tables.adapters.get(game.kind)
    if session is None or adapter is None:
        return None
    if session.state is None:
        return replace(game, waiting=False)
    if player_id not in adapter.present_ids(session.state):
        return None
    names = {p.id: p.name for p in session.lobby.players}
    waiting = adapter.waiting_on(session.state)
    return replace(
        game,
        waiting=player_id in waiting,
        waiting_on=[(p, names.get(p, ""), game.since) for p in waiting],
    )
