"""Every option of every command is checked as the command declares it (bot/options.py),
because a hand-made interaction skips Discord's client: the bounds of each number and text
hold, a number is a number of the right kind, a user is one Discord resolved."""

from __future__ import annotations

import math
from collections.abc import Iterator

import discord
from discord import AppCommandOptionType as Type
from discord import app_commands

from bot.cogs.admin import AdminCog
from bot.cogs.crap import CrapCog
from bot.cogs.farkle import FarkleCog
from bot.cogs.help import HelpCog
from bot.cogs.history import HistoryCog
from bot.cogs.kuriki import KurikiCog
from bot.cogs.stats import StatsCog
from bot.cogs.verify import VerifyCog
from bot.options import refusal
from games.numbers import MAX_ID

COGS = (FarkleCog, KurikiCog, CrapCog, AdminCog, StatsCog, VerifyCog, HistoryCog, HelpCog)


def parameters() -> Iterator[app_commands.Parameter]:
    def walk(c: object) -> Iterator[app_commands.Command]:  # type: ignore[type-arg]
        if isinstance(c, app_commands.Group):
            for sub in c.commands:
                yield from walk(sub)
        elif isinstance(c, app_commands.Command):
            yield c

    for cog in COGS:
        for top in cog.__cog_app_commands__:  # type: ignore[attr-defined]
            for command in walk(top):
                yield from command.parameters


def test_every_option_keeps_to_what_its_command_declares() -> None:
    kinds = set()
    for p in parameters():
        kinds.add(p.type)
        low, high = p.min_value, p.max_value
        if p.type is Type.integer:
            assert low is not None and high is not None, p.name  # every one has a range
            assert refusal(p, int(low)) is None and refusal(p, int(high)) is None
            for bad in (int(low) - 1, int(high) + 1, MAX_ID + 1, True, float(low), str(low)):
                assert refusal(p, bad), (p.name, bad)
        elif p.type is Type.number:
            assert refusal(p, low) is None and refusal(p, high) is None
            for bad in (math.nan, math.inf, high + 1, low - 1, "1", False):
                assert refusal(p, bad), (p.name, bad)
        elif p.type is Type.string:
            top = int(high or 6000)
            assert refusal(p, "x" * int(low or 1)) is None and refusal(p, "x" * top) is None
            assert refusal(p, "x" * (top + 1)) and refusal(p, 5)
            if low:
                assert refusal(p, "x" * (int(low) - 1))
        elif p.type is Type.boolean:
            assert refusal(p, True) is None and refusal(p, False) is None
            assert refusal(p, "true") and refusal(p, 1)
        elif p.type is Type.user:
            # Without Discord's resolved data discord.py gives a bare Object (no name).
            assert refusal(p, discord.Object(id=5)) and refusal(p, str(5))
    assert kinds == {Type.integer, Type.number, Type.string, Type.boolean, Type.user}


def test_the_refusals_say_what_would_do() -> None:
    [season] = [p for p in parameters() if p.name == "season" and p.type is Type.integer]
    assert refusal(season, -1) == (
        "That number is not one I can use: give a whole number from 1 to 100,000."
    )
    [game] = [p for p in parameters() if p.name == "game" and p.type is Type.integer]
    text = refusal(game, 18446744073709551616.0)
    assert text is not None and "e+" not in text and "9,007,199,254,740,991" in text
