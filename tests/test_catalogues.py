"""The message catalogues: every shipped language complete and in step with the code, and
the checks that say so catching what they must."""

from __future__ import annotations

import asyncio

import discord
import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from discord import app_commands

from bot.i18n import (
    LANGUAGES,
    SOURCE,
    _,
    catalogue_path,
    lang,
    listed,
    number,
    render,
    speaking,
)
from bot.translator import CatalogueTranslator
from games.text import M, Mn
from tools.catalogues import TEMPLATE, problems, problems_in, template

TRANSLATED = [code for code in LANGUAGES if code != SOURCE]


@pytest.fixture(scope="module")
def pot() -> Catalog:
    return template()


@pytest.mark.slow
@pytest.mark.parametrize("code", TRANSLATED)
def test_every_shipped_language_is_complete(code: str, pot: Catalog) -> None:
    """No message missing, untranslated, fuzzy, with other placeholders than its source,
    with the wrong number of plural forms, or a command name Discord would refuse."""
    found = problems(code, pot)
    assert not found, "\n".join(map(str, found[:40])) + f"\n({len(found)} in all)"


def test_the_committed_template_is_the_codes(pot: Catalog) -> None:
    """`python -m tools.catalogues extract` was run after the last change of a string."""
    with TEMPLATE.open("rb") as f:
        committed = read_po(f)
    ids = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in pot if m.id}
    kept = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in committed if m.id}
    assert ids - kept == set(), "new strings: run python -m tools.catalogues extract"
    assert kept - ids == set(), "strings the code no longer has: run extract"


def test_a_language_with_three_plural_forms_is_shipped() -> None:
    with catalogue_path("pl").open("rb") as f:
        assert read_po(f, locale="pl").num_plurals == 3
    polish = lang("pl")
    forms = [polish.ngettext("{n} life", "{n} lives", n) for n in (1, 2, 5, 22, 25)]
    assert len(set(forms[:3])) == 3  # życie, życia, żyć
    assert forms[3] == forms[1] and forms[4] == forms[2]  # 22 as 2, 25 as 5


def _catalog(*entries: tuple[object, object], context: str | None = None) -> Catalog:
    catalog = Catalog(locale="de")
    for msgid, msgstr in entries:
        catalog.add(msgid, msgstr, context=context)
    return catalog


def test_the_check_catches_untranslated_fuzzy_and_broken_placeholders() -> None:
    catalog = _catalog(("Roll", ""), ("{name} wins", "{nom} gewinnt"), ("Bank", "Sichern"))
    catalog.add("Pass", "Passen", flags=["fuzzy"])
    catalog.add(("{n} card", "{n} cards"), ("{n} Karte", ""))
    found = {(p.message, p.what.split(" ")[0]) for p in problems_in(catalog)}
    assert found == {
        ("Roll", "untranslated"),
        ("{name} wins", "placeholders"),
        ("Pass", "fuzzy"),
        ("{n} card", "untranslated"),
    }


def test_the_check_catches_a_message_missing_and_a_command_name_discord_refuses() -> None:
    pot = _catalog(("start", ""), ("leave", ""), context="command_name")
    catalog = _catalog(("start", "Spiel starten"), context="command_name")
    found = {(p.message, p.what.split(" ")[0]) for p in problems_in(catalog, pot)}
    assert found == {("leave", "not"), ("start", "'Spiel")}


def test_numbers_lists_and_plurals_follow_the_language() -> None:
    with speaking("de"):
        assert number(1500) == "1.500"
        assert listed(["Ann", "Bob", "Cy"]) == "Ann, Bob und Cy"
    with speaking("fr"):
        assert number(1500) == "1\u202f500"
    with speaking("en"):
        assert number(1500) == "1,500"
        assert _("{n} points", n=2500) == "2,500 points"


def test_a_message_renders_nested_and_old_text_renders_as_written() -> None:
    line = M("{who} rolled {what}.", who="Ann", what=Mn("{n} die", "{n} dice", 3))
    assert render(line) == "Ann rolled 3 dice." == str(line)
    assert render("Ann rolled 3 dice.") == "Ann rolled 3 dice."  # a game saved before keys


def test_the_translator_gives_discord_a_valid_name_or_nothing() -> None:
    translator = CatalogueTranslator()

    def ask(text: str, locale: discord.Locale, where: str) -> str | None:
        location = app_commands.TranslationContextLocation[where]
        context = app_commands.TranslationContext(location=location, data=None)
        string = app_commands.locale_str(text)
        return asyncio.run(translator.translate(string, locale, context))

    german = lang("de").pgettext("command_name", "start")
    assert german != "start" and german == german.lower()
    assert ask("start", discord.Locale.german, "command_name") == german
    assert ask("start", discord.Locale.american_english, "command_name") is None
    assert ask("start", discord.Locale.brazil_portuguese, "command_name") == lang(
        "pt_BR"
    ).pgettext("command_name", "start")
    assert ask("start", discord.Locale.japanese, "command_name") is None  # not shipped


def test_what_the_catalogue_file_says_is_what_the_bot_says() -> None:
    """`lang` compiles the .po in memory: no compiled file to fall out of step."""
    with catalogue_path("de").open("rb") as f:
        catalog = read_po(f, locale="de")
    plain = [m for m in catalog if m.id and isinstance(m.id, str) and not m.context]
    assert plain
    assert all(lang("de").gettext(m.id) == m.string for m in plain)


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_shortcut_of_underscore_says_what_gettext_says(code: str) -> None:
    """`_` reads a table made from the catalogue instead of calling gettext: for every
    text of the catalogue (either form of a plural too) and one it lacks, the same words."""
    with catalogue_path(code).open("rb") as f:
        catalog = read_po(f, locale=code)
    texts = [t for m in catalog if m.id for t in (m.id if isinstance(m.id, tuple) else (m.id,))]
    texts.append("A sentence no catalogue has")
    language = lang(code)
    with speaking(code):
        said = [_(t) for t in texts]
    assert said == [language.gettext(t) for t in texts]
    assert sum(s != t for s, t in zip(said, texts, strict=True)) > len(texts) // 2


def test_a_broken_translation_falls_back_to_english_and_a_wrong_call_to_its_text() -> None:
    from bot.i18n import _fill

    german = lang("de")
    assert _fill("{nom} gewinnt", "{name} wins", {"name": "Ann"}, german) == "Ann wins"
    assert _fill("{name} gewinnt", "{name} wins", {}, german) == "{name} gewinnt"
    assert _fill("{name} gewinnt", "{name} wins", {"name": "Ann"}, german) == "Ann gewinnt"


def test_the_running_bot_never_imports_the_catalogue_tool() -> None:
    """The command Translator checks translations with bot/command_strings.py; the tool that
    writes the catalogues (tools/catalogues.py, which reads the whole command tree) stays out
    of the bot: importing the translator loads neither it nor bot.app."""
    import subprocess
    import sys

    probe = (
        "import sys, bot.translator; "
        "print(sorted(m for m in ('tools.catalogues', 'bot.app', 'babel.messages.extract') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
