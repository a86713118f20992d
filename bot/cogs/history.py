"""/history: a player's finished games in this place (a server, or a channel outside
servers), privately; a select opens one (its result, players, whole log and story picture,
privately), and Share posts it in the channel. The buttons carry everything in their
custom_ids (`bot/history.py`), so they keep working after a restart."""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import common
from bot.cogs.stats import GAME_CHOICES
from bot.components import Click, view_of
from bot.errors import UserError
from bot.gateway import clicked_message
from bot.history import (
    HISTORY_KIND,
    NOT_RECOGNISED,
    Listing,
    finished_here,
    game_view,
    list_page,
)
from bot.i18n import _
from bot.pictures.story import FILENAME, draw_story
from bot.players import who
from bot.records import place_of
from bot.respond import update_message
from games.numbers import number

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)


def place(interaction: discord.Interaction[Any]) -> int:
    """Where the interaction happens, as the history counts places (`records.place_of`)."""
    assert interaction.channel_id is not None
    return place_of(interaction.guild_id, interaction.channel_id)


async def story_file(game: dict[str, Any]) -> discord.File | None:
    """The game's story picture, drawn in a thread; None when it kept none, or when drawing
    fails (logged: the game is shown without it)."""
    story = game.get("story")
    if story is None:
        return None
    try:
        picture = await asyncio.to_thread(draw_story, story)
    except Exception:
        log.exception("Could not draw the story of finished game %s", game["id"])
        return None
    return discord.File(io.BytesIO(picture), filename=FILENAME)


class HistoryCog(commands.Cog):
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        bot.component_handlers[HISTORY_KIND] = self.on_click

    @app_commands.command(name="history")
    @common.anywhere
    @app_commands.describe(
        player="Whose games (default: yours)",
        game="Only this game (default: every game)",
    )
    @app_commands.choices(game=GAME_CHOICES)
    async def history(
        self,
        interaction: discord.Interaction[GameBot],
        player: discord.User | None = None,
        game: app_commands.Choice[str] | None = None,
    ) -> None:
        """A player's recent games here: open one to see its whole log, privately."""
        assert interaction.channel_id is not None
        who = player or interaction.user
        listing = Listing(interaction.channel_id, who.id, game.value if game else None)
        embed, items = await list_page(self.bot.store, place(interaction), listing, 0)
        kwargs: dict[str, Any] = {"embed": embed, "ephemeral": True}
        if items:
            kwargs["view"] = view_of(items)
        await interaction.response.send_message(**kwargs)

    async def on_click(self, interaction: discord.Interaction[GameBot], click: Click) -> None:
        """A page of the list, a game opened from its select, a page of a game's log, or
        Share. A game of another place is refused, whatever its button says."""
        store, here = self.bot.store, place(interaction)
        if click.action == "list":
            embed, items = await list_page(store, here, Listing.of(click), click.game)
            await update_message(interaction, embed=embed, view=view_of(items))
        elif click.action == "open":
            Listing.of(click)  # a forged select is refused before anything is read
            values = click.values
            game = await finished_here(store, number(values[0]) if len(values) == 1 else None, here)
            embed, items = game_view(game, click.channel_id, 0)
            await self._send(interaction, game, embed=embed, view=view_of(items), ephemeral=True)
        elif click.action == "game":
            game = await finished_here(store, number(click.arg), here)
            message = clicked_message(interaction)
            public = message is not None and not message.ephemeral
            embed, items = game_view(game, click.channel_id, click.game, public=public)
            await update_message(interaction, embed=embed, view=view_of(items))
        elif click.action == "share":
            game = await finished_here(store, number(click.arg), here)
            embed, items = game_view(game, click.channel_id, click.game, public=True)
            await self._send(
                interaction,
                game,
                content=_("Shared by {player}.", player=who(interaction.user.id)),
                embed=embed,
                view=view_of(items),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        else:
            raise UserError(_(NOT_RECOGNISED))

    @staticmethod
    async def _send(
        interaction: discord.Interaction[GameBot], game: dict[str, Any], **kwargs: Any
    ) -> None:
        """Answer with a new message showing the game, its picture attached; when Discord
        refuses the picture (no Attach Files there), without it rather than not at all."""
        picture = await story_file(game)
        if picture is None:
            await interaction.response.send_message(**kwargs)
            return
        try:
            await interaction.response.send_message(file=picture, **kwargs)
        except discord.Forbidden:
            log.info("Showing finished game %s without its picture (refused)", game["id"])
            await interaction.response.send_message(**kwargs)
