"""The commands every game has (start, status, leave, end, rules), written once: a game's
cog is a `GameCog`, which makes its rules, status, leave and end; the game writes its start
(its own options) and whatever else is its own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.durations import LOBBY_CHOICES, TIMER_CHOICES, length_choices
from bot.errors import UserError
from bot.i18n import N_, _, speak
from bot.interactions import actor_of, send_reply
from bot.reach import seen_by_invoker_only
from bot.settings import rule_choice_name, rule_value_options
from games.farkle.rules import PRESETS, rule_fields

if TYPE_CHECKING:
    from bot.app import GameBot

T = TypeVar("T")

#: The `timer` start option's description (every game has it).
TIMER_HELP = (
    "Time for each move: 90s, 10m, 12h, 1d, 3d (up to 7d), off for none (outside servers)"
)
#: The longest text a length option takes ("2 days 12 hours").
LENGTH_TEXT = 30

#: Farkle's rule sets and rules as /farkle start and /config offer them.
PRESET_CHOICES = [app_commands.Choice(name=r.name, value=key) for key, r in PRESETS.items()]
RULE_CHOICES = [
    app_commands.Choice(name=rule_choice_name(name), value=name) for name in rule_fields()
]
#: The `value` option of a house rule: what its list offers, or a number typed.
VALUE_HELP = "The new value: pick one from the list, or type a number"


async def rule_values(
    interaction: discord.Interaction[GameBot], current: str
) -> list[app_commands.Choice[str]]:
    """The `value` option's list for the rule chosen beside it (`rule` in /config
    farkle-rule, `house_rule` in /farkle start), in the admin's language: the values that
    are words ("on", "highest roll goes first", "not scored"), so nobody types a token, and
    what they typed as it is when it is a number."""
    speak(interaction.locale)
    namespace = interaction.namespace
    chosen = getattr(namespace, "rule", None) or getattr(namespace, "house_rule", None)
    field = str(getattr(chosen, "value", chosen) or "")
    typed = current.strip()
    options = [
        app_commands.Choice(name=words[:100], value=token)
        for words, token in rule_value_options(field)
        if typed.lower() in words.lower()
    ]
    if typed and not options:
        options = [app_commands.Choice(name=typed[:100], value=typed[:40])]
    return options[:25]


async def timer_lengths(
    interaction: discord.Interaction[GameBot], current: str
) -> list[app_commands.Choice[str]]:
    """A turn timer's list: what was typed, read back ("1d12h": 36 hours), then the common
    lengths from 1 minute to 7 days, in the reader's language."""
    speak(interaction.locale)
    return _length_list(current, TIMER_CHOICES)


async def lobby_lengths(
    interaction: discord.Interaction[GameBot], current: str
) -> list[app_commands.Choice[str]]:
    """How long a lobby waits: as `timer_lengths`, from 5 minutes to 7 days."""
    speak(interaction.locale)
    return _length_list(current, LOBBY_CHOICES)


def _length_list(current: str, offered: tuple[int, ...]) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=words[:100], value=value[:LENGTH_TEXT])
        for words, value in length_choices(current[:LENGTH_TEXT], offered)
    ]


def anywhere(command: T) -> T:
    """Usable wherever a player can reach the app: a server that added the bot, and, through
    a user install, any other server, the bot's DM, group DMs and DMs between users."""
    command = app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)(command)
    return app_commands.allowed_installs(guilds=True, users=True)(command)


def server_only(command: T) -> T:
    """Usable only in a server that added the bot (its settings are the server's)."""
    command = app_commands.allowed_contexts(guilds=True, dms=False, private_channels=False)(command)
    return app_commands.allowed_installs(guilds=True, users=False)(command)


#: Why a game cannot be opened where Discord shows the app's messages only to the invoker.
#: Translated where it is said.
INVOKER_ONLY = N_(
    "This server has turned off **Use External Apps** for its members, so Discord shows what "
    "this app posts here only to the person who used it: the others could neither see nor "
    "join a game. Ask a server admin to allow Use External Apps, or to add the bot to the "
    "server, or play in a group DM or DM."
)


def in_server(interaction: discord.Interaction) -> bool:
    """Whether a server that added the bot authorised this interaction, so its /config
    settings apply; not in a DM, a group DM, the bot's DM, nor a server that only a user
    install reaches."""
    return interaction.guild_id is not None and interaction.is_guild_integration()


def settings_server(interaction: discord.Interaction) -> int | None:
    """The server whose settings apply here; None: the bot's defaults (`in_server`)."""
    return interaction.guild_id if in_server(interaction) else None


async def start(interaction: discord.Interaction[GameBot], kind: str, **options: object) -> None:
    """Open a lobby; where no server's settings apply, the start options stand in for them
    (bot/lobby_settings.py)."""
    assert interaction.channel_id is not None
    if seen_by_invoker_only(interaction):
        raise UserError(_(INVOKER_ONLY))
    reply = await interaction.client.tables.open_lobby(
        actor_of(interaction),
        interaction.guild_id,
        interaction.channel_id,
        kind,
        options,
        server=in_server(interaction),
    )
    await send_reply(interaction, reply)


async def _status(interaction: discord.Interaction[GameBot], kind: str) -> None:
    assert interaction.channel_id is not None
    tables = interaction.client.tables
    reply = await tables.status(interaction.channel_id, kind, actor_of(interaction))
    await send_reply(interaction, reply)


async def _leave(interaction: discord.Interaction[GameBot], kind: str) -> None:
    assert interaction.channel_id is not None
    reply = await interaction.client.tables.leave(
        actor_of(interaction), interaction.channel_id, kind
    )
    await send_reply(interaction, reply)


async def _end(interaction: discord.Interaction[GameBot], kind: str) -> None:
    assert interaction.channel_id is not None
    reply = await interaction.client.tables.end(actor_of(interaction), interaction.channel_id, kind)
    await send_reply(interaction, reply)


async def show_rules(
    interaction: discord.Interaction[GameBot], kind: str, preset: str | None
) -> None:
    assert interaction.channel_id is not None
    reply = await interaction.client.tables.rules(
        settings_server(interaction), interaction.channel_id, kind, preset
    )
    await send_reply(interaction, reply)


#: The order of a game's commands in its group (the synced payload keeps it); a game's own
#: other commands follow.
SHARED_ORDER = ("start", "rules", "status", "leave", "end")


class GameCog(commands.GroupCog):
    """A game's slash command group, `/<group_name>`: subclass it with the game's group name
    and description and its `title` (the game's name in the commands' descriptions), e.g.
    `class KurikiCog(GameCog, group_name="kuriki", group_description=..., title="Kuriki")`,
    and define `start` and any command of the game's own. Rules, status, leave and end come
    from here (a `rules` of the game's own replaces the shared one). Usable anywhere."""

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    def __init_subclass__(cls, *, title: str, **kwargs: Any) -> None:
        # Runs inside discord.py's CogMeta before it collects the class's commands, so the
        # shared ones set here are collected too, in the group's order.
        super().__init_subclass__(**kwargs)
        own = {k: v for k, v in vars(cls).items() if isinstance(v, app_commands.Command)}
        if "start" not in own:
            raise TypeError(f"{cls.__name__} must define its start command")
        made = {**_shared_commands(str(cls.__cog_group_name__), title), **own}
        for name in own:  # set again below, in the group's order
            delattr(cls, name)
        for name in (*SHARED_ORDER, *(n for n in own if n not in SHARED_ORDER)):
            setattr(cls, name, made[name])
        anywhere(cls)


def _shared_commands(kind: str, title: str) -> dict[str, app_commands.Command[Any, ..., None]]:
    """Rules, status, leave and end of the game `kind`, described with its `title` (each
    description a whole sentence for the translators, as the command tree gives it). Made in
    a class body so that discord.py takes each callback's first parameter for the cog."""

    class Shared(commands.Cog):  # a Cog only for the commands' binding type; never loaded
        @app_commands.command(name="rules", description=f"Show the rules of {title}, only to you.")
        async def rules(self, interaction: discord.Interaction[GameBot]) -> None:
            await show_rules(interaction, kind, None)

        @app_commands.command(
            name="status",
            description=f"Post the {title} table again at the bottom of this channel, for everyone.",
        )
        async def status(self, interaction: discord.Interaction[GameBot]) -> None:
            await _status(interaction, kind)

        @app_commands.command(
            name="leave", description=f"Leave the {title} game or lobby in this channel."
        )
        async def leave(self, interaction: discord.Interaction[GameBot]) -> None:
            await _leave(interaction, kind)

        @app_commands.command(
            name="end", description=f"End the {title} game here (its host or a server manager)."
        )
        async def end(self, interaction: discord.Interaction[GameBot]) -> None:
            await _end(interaction, kind)

    return {k: v for k, v in vars(Shared).items() if isinstance(v, app_commands.Command)}
