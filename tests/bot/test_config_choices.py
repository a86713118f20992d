"""/config and the start options take values in the admin's language: every value of a fixed
set is offered (a choice, or the list of the `value` option), named in words in every
language, and what the list shows is taken back."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.cogs import common
from bot.cogs.admin import AdminCog
from bot.cogs.farkle import FarkleCog
from bot.i18n import LANGUAGES, speaking
from bot.settings import GuildSettings, SettingsError, rule_value_options
from bot.translator import CatalogueTranslator
from games.farkle.rules import PRESETS, FarkleRules, rule_fields

#: A value of a fixed set as the code writes it: a word with an underscore, a preset's id,
#: the (on)/(off) hints of old.
RAW = re.compile(r"\b\w+_\w+\b|\((on|off)\)|\bnone\b|" + "|".join(map(re.escape, PRESETS)))


async def payloads() -> list[dict[str, Any]]:
    tree: app_commands.CommandTree = app_commands.CommandTree(
        discord.Client(intents=discord.Intents.none())
    )
    commands = [
        c for cog in (AdminCog, FarkleCog) for c in vars(cog).values()
        if isinstance(c, app_commands.Command)
    ]  # fmt: skip
    return [await c.get_translated_payload(tree, CatalogueTranslator()) for c in commands]


async def test_every_word_value_is_offered_and_named_in_words_in_every_language() -> None:
    for command in await payloads():
        for option in command.get("options", []):
            where = f"/{command['name']} {option['name']}"
            if option["type"] == 3:  # text: a fixed set is a choice list or the value list
                assert option.get("choices") or option.get("autocomplete"), where
            for choice in option.get("choices", []):
                for name in [choice["name"], *choice.get("name_localizations", {}).values()]:
                    assert not RAW.search(name), (where, name)


@pytest.mark.parametrize("code", ["en", *LANGUAGES])
@pytest.mark.parametrize(
    "field", [f for f in rule_fields() if rule_value_options(f)]
)  # fmt: skip
async def test_the_value_list_offers_words_and_each_is_taken_back(code: str, field: str) -> None:
    interaction = SimpleNamespace(locale=code.replace("_", "-"), namespace=SimpleNamespace(rule=field))
    offered = await common.rule_values(interaction, "")  # type: ignore[arg-type]
    assert offered
    for choice in offered:
        assert not RAW.search(choice.name), choice.name
        with speaking(code):
            # what the list sends, and the words it shows typed by hand
            for given in (choice.value, choice.name.upper()):
                rules = GuildSettings().with_house_rule("classic", field, given)
                value = rules.farkle_house_rules["classic"][field]
                FarkleRules.model_validate({**PRESETS["classic"].model_dump(), field: value})


def test_a_german_admin_types_aus_and_it_is_off() -> None:
    with speaking("de"):
        rules = GuildSettings().with_house_rule("classic", "piggyback", "aus")
        assert rules.farkle_house_rules["classic"]["piggyback"] is False
        with pytest.raises(SettingsError, match="an oder aus"):
            GuildSettings().with_house_rule("classic", "piggyback", "vielleicht")


async def test_a_typed_number_is_offered_as_it_is() -> None:
    interaction = SimpleNamespace(locale="fr", namespace=SimpleNamespace(house_rule="straight"))
    offered = await common.rule_values(interaction, "1500")  # type: ignore[arg-type]
    assert [(c.name, c.value) for c in offered] == [("1500", "1500")]
