"""The bot object: wires the store, the table service, the cogs, the timers and the one
handler every component click goes through."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import discord
from discord.ext import commands

from bot import callback_http, mentions
from bot.components import LEGACY_CUSTOM_ID, Click
from bot.config import BotConfig
from bot.display import retire_orphans, retire_pressed, show_table
from bot.errors import GameOver, GameTree, NoSession, UserError, answer_error
from bot.gateway import clicked_message, hear_new_messages, skip_unread_events
from bot.i18n import _, speak
from bot.interactions import actor_of, send_rematch, send_reply
from bot.pictures.emojis import Faces, load_emojis
from bot.reach import answered, open_window, through_channel, window_of
from bot.replies import Reply
from bot.respond import release
from bot.service import Tables
from bot.store import Store
from bot.tables.base import TableAdapter
from bot.tables.crap import CrapTable
from bot.tables.farkle import FarkleTable
from bot.tables.farkle_play import FarklePlay
from bot.tables.kuriki import KurikiTable
from bot.timers import TurnTimers
from bot.translator import CatalogueTranslator
from games.farkle import policy as farkle_policy

log = logging.getLogger(__name__)


def default_adapters() -> dict[str, TableAdapter]:
    adapters: list[TableAdapter] = [FarkleTable(), KurikiTable(), CrapTable()]
    return {a.kind: a for a in adapters}


async def add_cogs(bot: GameBot) -> None:
    """One cog per game, then the admin, stats, verify, history, remind, games and help
    commands, and /away."""
    from bot.cogs.admin import AdminCog
    from bot.cogs.away import AwayCog
    from bot.cogs.crap import CrapCog
    from bot.cogs.farkle import FarkleCog
    from bot.cogs.games import GamesCog
    from bot.cogs.help import HelpCog
    from bot.cogs.history import HistoryCog
    from bot.cogs.kuriki import KurikiCog
    from bot.cogs.remind import RemindCog
    from bot.cogs.stats import StatsCog
    from bot.cogs.verify import VerifyCog

    cogs = (
        FarkleCog, KurikiCog, CrapCog, AdminCog, StatsCog, VerifyCog, HistoryCog, RemindCog, GamesCog
    )
    for cog in (*cogs, HelpCog):
        await bot.add_cog(cog(bot))
    await bot.add_cog(AwayCog(bot))


class GameBot(commands.AutoShardedBot):
    """AutoShardedBot so that large bots can split guilds over processes (shard_ids)."""

    def __init__(
        self, config: BotConfig, *, sync: bool = True, rng: random.Random | None = None
    ) -> None:
        # A table-game bot never joins voice: no warning about voice libraries at start-up.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        intents = discord.Intents.none()
        intents.guilds = True  # channels and threads; no privileged intent is needed
        intents.guild_messages = True  # to see chatter push a table up (not its content)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            tree_cls=GameTree,
            help_command=None,
            shard_count=config.shard_count,
            shard_ids=config.shard_ids,  # type: ignore[arg-type]  # None: every shard (discord.py's default), which its stubs leave out
            # Nobody is notified unless a message names whom (`replies.only_mentioning`): a
            # display name that looks like a mention must never ping anyone.
            allowed_mentions=discord.AllowedMentions.none(),
            max_messages=None,  # no message cache: the bot reads every message it needs once
        )
        self.config = config
        self.sync_commands = sync
        self.rng = rng or random.SystemRandom()
        self.adapters = default_adapters()
        #: How the tables write dice and cards: text until the emojis are loaded.
        self.faces = Faces()
        for adapter in self.adapters.values():
            adapter.faces = self.faces
        self.timers = TurnTimers(self)
        self._reposts: set[asyncio.Task[None]] = set()
        self.store: Store
        self.tables: Tables
        #: Buttons of something other than a game table (the leaderboard's pages), by the
        #: custom_id's first field; each handler answers the interaction itself.
        self.component_handlers: dict[
            str, Callable[[discord.Interaction[GameBot], Click], Awaitable[None]]
        ] = {}

    async def setup_hook(self) -> None:
        if self.config.farkle_tables:  # games with a Farkle bot build its win tables there
            farkle_policy.cache_dir = Path(self.config.farkle_tables)
            farkle = self.adapters["farkle"]
            if isinstance(farkle, FarklePlay):
                farkle.build_tables = True
        await self.open_store()
        self.tables = Tables(
            store=self.store,
            adapters=self.adapters,
            defaults=self.config.defaults,
            rng=self.rng,
            on_deadline=self.timers.poke,
            repost_after=self.config.repost_after,
            cached_games=self.config.cached_games,
        )
        await add_cogs(self)
        skip_unread_events(self)  # after the cogs: their listeners count
        hear_new_messages(self, self.message_seen)
        self.timers.start()
        await self.tree.set_translator(CatalogueTranslator())
        if self.sync_commands:
            await self.sync_tree()
        self._catch_up_task = asyncio.create_task(self.catch_up(), name="catch-up")
        #: Uploading the pictures can take a while (rate limits): the tables use text until
        #: it is done, so the bot plays from the first second.
        self.emoji_task: asyncio.Task[bool] | None = (
            asyncio.create_task(
                load_emojis(self, self.faces, self.config.four_colour_cards), name="emojis"
            )
            if self.config.pictures
            else None
        )
        log.info("Ready to play: %s running sessions", await self.store.count_sessions())

    async def open_store(self) -> None:
        """Open the database, unless already open: `python -m bot` opens it before it
        contacts Discord, so that one that cannot be used (DatabaseUnavailable) is said so
        first, and no login is spent on it."""
        if not hasattr(self, "store"):
            self.store = await Store.open(
                self.config.database_path(),
                shards=self.config.shards(),
                takeover_after=self.config.takeover_after,
            )

    async def sync_tree(self) -> None:
        guild_id = self.config.dev_guild_id
        if guild_id:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("Synced %d commands to server %s", len(synced), guild_id)
        else:
            synced = await self.tree.sync()
            log.info("Synced %d global commands (may take a while to appear)", len(synced))
        # Every message that suggests a command mentions it clickably from now on.
        mentions.learn({c.name: c.id for c in synced})

    async def on_interaction(self, interaction: discord.Interaction[GameBot]) -> None:
        """Every button and select click, by its custom_id: no discord.ui View is rebuilt
        from the clicked message (discord.py does that only for items registered with it)."""
        if interaction.type is not discord.InteractionType.component:
            return  # slash commands go through the command tree
        speak(interaction.locale)
        self.note(interaction)
        data: dict[str, Any] = interaction.data or {}  # type: ignore[assignment]  # a component's data: its stubs type it as the union of every interaction's
        values = tuple(str(v) for v in data.get("values", ()))
        try:
            await self.on_component(interaction, str(data.get("custom_id", "")), values)
        finally:
            answered(interaction)
            release(interaction)

    def note(self, interaction: discord.Interaction[GameBot]) -> None:
        """Where the bot is no member of the channel, the interaction's token is the only way
        to show anything there: remember it for this answer and the next 15 minutes."""
        if interaction.channel_id is None or through_channel(interaction):
            return
        self.tables.sessions.arrived(interaction.channel_id, open_window(interaction))

    async def on_component(
        self, interaction: discord.Interaction[GameBot], custom_id: str, values: tuple[str, ...]
    ) -> None:
        """Every button and select lands here, including stale, forged and foreign ones."""
        try:
            click = Click.parse(custom_id, values)
            if click is None and LEGACY_CUSTOM_ID.fullmatch(custom_id):
                raise UserError(
                    _(
                        "This table was drawn by an older version of the bot: "
                        "use the buttons on the latest table message."
                    )
                )
            known = click is not None and (
                click.kind in self.adapters or click.kind in self.component_handlers
            )
            if click is None or not known:
                raise UserError(_("This button is not one I recognise any more."))
            if interaction.channel_id != click.channel_id:
                raise UserError(_("This button belongs to a table in another channel."))
            if click.kind in self.component_handlers:
                await self.component_handlers[click.kind](interaction, click)
                return
            message = clicked_message(interaction)
            message_id = message.id if message else None
            ephemeral = bool(message and message.ephemeral)
            owner = message.owner if message and ephemeral else None
            if click.action == "rematch":  # a finished table's: there is no session to click
                rematch = await self.tables.rematch(actor_of(interaction), click)
                if isinstance(rematch, Reply):  # joined the rematch someone else opened
                    await send_reply(interaction, rematch)
                else:
                    await send_rematch(interaction, rematch)
                return
            reply = await self.tables.click(
                actor_of(interaction), click, message_id, ephemeral=ephemeral, owner=owner
            )
            await send_reply(interaction, reply)
        except (NoSession, GameOver) as exc:
            message = clicked_message(interaction)
            if window_of(interaction) is not None and message and not message.ephemeral:
                await retire_pressed(interaction, str(exc))
            else:
                await answer_error(interaction, exc)
        except Exception as exc:
            await answer_error(interaction, exc)

    async def catch_up(self) -> int:
        """Bring every table that shows an older state than the stored one up to date (the
        process died between a commit and the table's edit); returns how many. Most tables
        are current and cost nothing; discord.py paces the rest within the rate limits."""
        count = 0
        for channel_id in await self.store.behind_sessions():
            try:
                update = await self.tables.catch_up(channel_id)
                if update is not None:
                    await retire_orphans(self, update)
                    await show_table(self, update)
                    count += 1
            except Exception:
                log.exception("Could not bring the table of channel %s up to date", channel_id)
        if count:
            log.info("Brought %d table(s) up to date", count)
        return count

    async def on_app_command_completion(
        self, interaction: discord.Interaction[GameBot], command: object
    ) -> None:
        """A command's answer was sent: its window is open to others, and its response
        object goes (`release`: no cyclic garbage left by every command)."""
        answered(interaction)
        release(interaction)

    async def on_resumed(self) -> None:
        await self.catch_up()

    def message_seen(self, channel_id: int, message_id: int) -> None:
        """Chatter below a table pushes it up: once it is out of sight, and the channel has
        been quiet for a moment, the table is posted again at the bottom. (Called by the
        gateway with each new message's ids: bot/gateway.py, `hear_new_messages`.)"""
        if self.tables.heard(channel_id, message_id):
            task = asyncio.create_task(self._repost_later(channel_id))
            self._reposts.add(task)
            task.add_done_callback(self._reposts.discard)

    async def on_message(self, message: discord.Message) -> None:
        """`message_seen`, for a message discord.py parsed (its parsers moved, or another
        listener wants messages: bot/gateway.py). No prefix commands to look for."""
        self.message_seen(message.channel.id, message.id)

    async def _repost_later(self, channel_id: int) -> None:
        await asyncio.sleep(self.config.repost_delay)
        try:
            update = await self.tables.repost(channel_id)
            if update is not None:
                await show_table(self, update)
        except Exception:
            log.exception("Could not post the table of channel %s again", channel_id)

    async def close(self) -> None:
        for task in [
            getattr(self, "_catch_up_task", None),
            getattr(self, "emoji_task", None),
            *self._reposts,
        ]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self.timers.stop()
        if hasattr(self, "store"):
            await self.store.close()
        await super().close()  # discord.py's HTTP session with it
        await callback_http.close(self)  # and the bot's own, for interaction callbacks
