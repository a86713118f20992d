"""/config: per-server settings, for members with Manage Server (checked again at run time,
since server admins can change who sees the command)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import common
from bot.durations import length_words
from bot.i18n import LANGUAGES, _, _n, number, one_unit
from bot.interactions import send_reply
from bot.records import place_of
from bot.replies import Reply
from bot.settings import GuildSettings, SettingsError
from bot.tables.base import EMBED_COLOUR
from bot.tables.farkle_rules import house_rules
from games.farkle.rules import PRESETS

if TYPE_CHECKING:
    from bot.app import GameBot


#: /config language's choices: each language by its own name (the Translator leaves these
#: alone: a language is found by the name it has in itself).
LANGUAGE_CHOICES = [
    app_commands.Choice(name=app_commands.locale_str(name, verbatim=True), value=code)
    for code, name in LANGUAGES.items()
]


def pause_words(seconds: float) -> str:
    """'1.5 seconds', '1 second', 'no time'."""
    if seconds <= 0:
        return _("no time")
    shown = round(seconds, 2)
    if shown == int(shown):
        return _n("{n} second", "{n} seconds", int(shown))
    return _("{seconds} seconds", seconds=number(shown))


def farkle_changes(settings: GuildSettings, preset: str) -> list[str]:
    """What this server changed of a Farkle rule set, as its lobby says it: the target it
    plays to, and the house rules (`house_rules`: the rules that differ from the rule
    set's, the target not among them), so a change back to the rule set's own value is
    none."""
    try:
        rules = settings.farkle_rules(preset)
    except SettingsError:
        return []
    name = _(PRESETS[preset].name)
    lines = []
    if rules.target != PRESETS[preset].target:
        lines.append(_("{preset} plays to **{points}**", preset=name, points=rules.target))
    house = house_rules(rules)
    if house:
        lines.append(_("House rules for {preset}: {rules}", preset=name, rules=_("; ").join(house)))
    return lines


def settings_embed(settings: GuildSettings) -> discord.Embed:
    """The server's settings in the current language, each field within Discord's limit."""
    embed = discord.Embed(title=_("Server settings"), colour=EMBED_COLOUR)
    timer = length_words(settings.turn_timer)
    general = [
        _("Turn timer: **{timer}**", timer=timer),
        _(
            "An unstarted lobby closes after **{time}**",
            time=one_unit(settings.lobby_timeout),
        ),
        _("Bots wait **{pause}** before each move", pause=pause_words(settings.bot_delay)),
        _(
            "Tables and logs in **{language}**",
            language=LANGUAGES[settings.language]
            if settings.language
            else _("the server's preferred language"),
        ),
    ]
    embed.add_field(name=_("General"), value="\n".join(general)[:1024], inline=False)
    farkle = [_("Default rule set: **{preset}**", preset=_(PRESETS[settings.farkle_preset].name))]
    for preset in settings.farkle_house_rules:
        farkle += farkle_changes(settings, preset)
    # Translators: a game's name; keep it unless your players call it otherwise.
    embed.add_field(name=_("Farkle"), value="\n".join(farkle)[:1024], inline=False)
    kuriki = [_("Lives: **{n}**", n=settings.kuriki_lives)]
    if settings.kuriki_two_digit:
        kuriki.append(_("two-digit declarations"))
    if settings.kuriki_reverse_after_kuriki:
        kuriki.append(_("may reverse after a Kuriki"))
    if settings.kuriki_stake:
        kuriki.append(
            _(
                "stakes {stake}, fouls {price}",
                stake=settings.kuriki_stake,
                price=settings.kuriki_foul_price,
            )
        )
    # Translators: a game's name; keep it unless your players call it otherwise.
    embed.add_field(name=_("Kuriki"), value=", ".join(kuriki)[:1024], inline=True)
    crap = [
        _("Threshold: **{points}**", points=settings.crap_threshold),
        _("bluff window {seconds} s", seconds=settings.crap_bluff_window),
    ]
    if settings.crap_jokers:
        crap.append(_("jokers"))
    if settings.crap_force_recycle:
        crap.append(_("force recycle"))
    # Translators: a game's name; keep it unless your players call it otherwise.
    embed.add_field(name=_("CRAP"), value=", ".join(crap)[:1024], inline=True)
    return embed


@common.server_only
@app_commands.default_permissions(manage_guild=True)
class AdminCog(
    commands.GroupCog,
    group_name="config",
    group_description="Server settings for the games (Manage Server).",
):
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    async def _update(self, interaction: discord.Interaction[GameBot], **changes: object) -> None:
        assert interaction.guild_id is not None
        tables = self.bot.tables
        current = await tables.settings(interaction.guild_id)
        new = current.updated(saved=False, **changes)
        await tables.save_settings(interaction.guild_id, new)
        await send_reply(
            interaction, Reply(content=_("Saved."), embed=settings_embed(new), ephemeral=True)
        )

    @app_commands.command(name="show")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def show(self, interaction: discord.Interaction[GameBot]) -> None:
        """Show this server's game settings."""
        settings = await self.bot.tables.settings(interaction.guild_id)
        await send_reply(interaction, Reply(embed=settings_embed(settings), ephemeral=True))

    @app_commands.command(name="farkle")
    @app_commands.describe(preset="Rule set /farkle start uses", target="Score to play to with it")
    @app_commands.choices(preset=common.PRESET_CHOICES)
    @app_commands.checks.has_permissions(manage_guild=True)
    async def farkle(
        self,
        interaction: discord.Interaction[GameBot],
        preset: app_commands.Choice[str],
        target: app_commands.Range[int, 500, 1_000_000] | None = None,
    ) -> None:
        """Choose the server's Farkle rule set (and its target)."""
        current = await self.bot.tables.settings(interaction.guild_id)
        changed = current.updated(farkle_preset=preset.value)
        if target is not None:
            changed = changed.with_house_rule(preset.value, "target", str(target))
        await self._update(interaction, **changed.model_dump())

    @app_commands.command(name="farkle-rule")
    @app_commands.describe(
        rule="The rule to change",
        value=common.VALUE_HELP,
        preset="Rule set to change (default: the server's)",
    )
    @app_commands.choices(rule=common.RULE_CHOICES, preset=common.PRESET_CHOICES)
    @app_commands.autocomplete(value=common.rule_values)
    @app_commands.checks.has_permissions(manage_guild=True)
    async def farkle_rule(
        self,
        interaction: discord.Interaction[GameBot],
        rule: app_commands.Choice[str],
        value: app_commands.Range[str, 1, 40],
        preset: app_commands.Choice[str] | None = None,
    ) -> None:
        """Change one Farkle house rule."""
        current = await self.bot.tables.settings(interaction.guild_id)
        name = preset.value if preset else current.farkle_preset
        changed = current.with_house_rule(name, rule.value, value)
        await self._update(interaction, **changed.model_dump())

    @app_commands.command(name="farkle-reset")
    @app_commands.describe(preset="Rule set to reset (default: the server's)")
    @app_commands.choices(preset=common.PRESET_CHOICES)
    @app_commands.checks.has_permissions(manage_guild=True)
    async def farkle_reset(
        self,
        interaction: discord.Interaction[GameBot],
        preset: app_commands.Choice[str] | None = None,
    ) -> None:
        """Drop the house rules of a Farkle rule set."""
        current = await self.bot.tables.settings(interaction.guild_id)
        name = preset.value if preset else current.farkle_preset
        rules = {k: v for k, v in current.farkle_house_rules.items() if k != name}
        await self._update(interaction, farkle_house_rules=rules)

    @app_commands.command(
        name="language", description="Set the language of this server's tables and game logs."
    )
    @app_commands.describe(
        language="The language of this server's tables and logs (empty: its preferred locale)"
    )
    @app_commands.choices(language=LANGUAGE_CHOICES)
    @app_commands.checks.has_permissions(manage_guild=True)
    async def language(
        self,
        interaction: discord.Interaction[GameBot],
        language: app_commands.Choice[str] | None = None,
    ) -> None:
        """Choose the language of the tables and game logs (each player's own replies follow
        their Discord language)."""
        await self._update(interaction, language=language.value if language else None)

    @app_commands.command(name="timer")
    @app_commands.describe(
        time="Time a player has for each move: 90s, 10m, 1h, 12h, 1d, 3d (up to 7d); off turns "
        "the timer off"
    )
    @app_commands.autocomplete(time=common.timer_lengths)
    @app_commands.checks.has_permissions(manage_guild=True)
    async def timer(
        self,
        interaction: discord.Interaction[GameBot],
        time: app_commands.Range[str, 1, common.LENGTH_TEXT],
    ) -> None:
        """Set the turn timer for every game (a game may last days: 1d, 3d)."""
        await self._update(interaction, turn_timer=time)

    @app_commands.command(name="lobby")
    @app_commands.describe(
        time="How long a lobby waits for someone to start it: 15m, 1h, 1d (1 minute to 7 days)"
    )
    @app_commands.autocomplete(time=common.lobby_lengths)
    @app_commands.checks.has_permissions(manage_guild=True)
    async def lobby(
        self,
        interaction: discord.Interaction[GameBot],
        time: app_commands.Range[str, 1, common.LENGTH_TEXT],
    ) -> None:
        """Set how long an unstarted lobby stays open before it closes by itself."""
        await self._update(interaction, lobby_timeout=time)

    @app_commands.command(name="bots")
    @app_commands.describe(delay="Seconds a bot waits before each move (0-10, e.g. 1.5)")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def bots(
        self,
        interaction: discord.Interaction[GameBot],
        delay: app_commands.Range[float, 0.0, 10.0],
    ) -> None:
        """Set how long bot players pause before each move, so people can follow."""
        await self._update(interaction, bot_delay=delay)

    @app_commands.command(name="kuriki")
    @app_commands.describe(
        lives="Lives each player starts with (1-9)",
        two_digit="Declare non-doubles as two-digit numbers (3-4 as 43)",
        reverse_after_kuriki="After a Kuriki the Roller may reverse the direction",
        stake="Buy-in per player, 0 for no stakes",
        foul_price="What each foul puts in the pot when playing for stakes",
    )
    @app_commands.checks.has_permissions(manage_guild=True)
    async def kuriki(
        self,
        interaction: discord.Interaction[GameBot],
        lives: app_commands.Range[int, 1, 9] | None = None,
        two_digit: bool | None = None,
        reverse_after_kuriki: bool | None = None,
        stake: app_commands.Range[int, 0, 1_000_000] | None = None,
        foul_price: app_commands.Range[int, 0, 1_000_000] | None = None,
    ) -> None:
        """Set Kuriki's lives, variants and stakes."""
        changes = {
            "kuriki_lives": lives,
            "kuriki_two_digit": two_digit,
            "kuriki_reverse_after_kuriki": reverse_after_kuriki,
            "kuriki_stake": stake,
            "kuriki_foul_price": foul_price,
        }
        await self._update(interaction, **{k: v for k, v in changes.items() if v is not None})

    @app_commands.command(name="season")
    @app_commands.describe(
        start="Start the next rating season now: every rating starts afresh (the earlier "
        "seasons' standings stay readable)"
    )
    @app_commands.checks.has_permissions(manage_guild=True)
    async def season(self, interaction: discord.Interaction[GameBot], start: bool = False) -> None:
        """Show the server's rating season, or start the next one."""
        assert interaction.channel_id is not None
        store = self.bot.store
        place = place_of(interaction.guild_id, interaction.channel_id)
        if not start:
            current = await store.current_season(place)
            text = _(
                "This server is in rating season **{season}**. `/config season start: True` "
                "starts season {next}: every rating starts afresh, and season {season}'s "
                "standings stay readable with `/leaderboard by: Rating season: {season}`.",
                season=str(current),
                next=str(current + 1),
            )
        else:
            new = await store.start_season(place, interaction.user.id, time.time())
            text = _(
                "Rating season **{season}** has started: every rating starts afresh with the "
                "next game. Season {previous}'s standings stay readable with `/leaderboard by: "
                "Rating season: {previous}`.",
                season=str(new),
                previous=str(new - 1),
            )
        await send_reply(interaction, Reply(content=text, ephemeral=True))

    @app_commands.command(name="crap")
    @app_commands.describe(
        threshold="Points that end a CRAP game (100-100000)",
        jokers="Play with the four jokers",
        force_recycle="Allow the optional Force Recycle action",
        bluff_window="Seconds the others have to call an Acquire bluff (5-300)",
    )
    @app_commands.checks.has_permissions(manage_guild=True)
    async def crap(
        self,
        interaction: discord.Interaction[GameBot],
        threshold: app_commands.Range[int, 100, 100000] | None = None,
        jokers: bool | None = None,
        force_recycle: bool | None = None,
        bluff_window: app_commands.Range[int, 5, 300] | None = None,
    ) -> None:
        """Set CRAP's winning threshold, jokers and optional rules."""
        changes = {
            "crap_threshold": threshold,
            "crap_jokers": jokers,
            "crap_force_recycle": force_recycle,
            "crap_bluff_window": bluff_window,
        }
        await self._update(interaction, **{k: v for k, v in changes.items() if v is not None})
