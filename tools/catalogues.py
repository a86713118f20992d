"""Keeping the message catalogues: one command writes the template and brings every
language up to date, another checks that each is complete (docs/translating.md).

    python -m tools.catalogues extract     # bot/locales/tablebot.pot and every .po
    python -m tools.catalogues new it      # start a catalogue for another language
    python -m tools.catalogues check       # what is missing, fuzzy or broken, per language

The template holds every string the code marks (`_`, `_n`, `_p`, `N_`, `M`, `Mn`, see
`bot/i18n.py`) and every slash command's name, description, option and choice, read from
the command tree with the context Discord's translation asks for (`command_name`,
`parameter_description`, ...). It lives beside the bot, not in it: reading the command tree
imports the whole bot (bot.app), which the bot's own modules never need."""

from __future__ import annotations

import asyncio
import string
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from bot.command_strings import command_fault
from bot.i18n import DOMAIN, LANGUAGES, LOCALES_DIR, SOURCE, catalogue_path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = LOCALES_DIR / f"{DOMAIN}.pot"
#: The marking functions and where their strings are (Babel's keyword spec).
KEYWORDS: dict[str, object] = {
    "_": None,
    "N_": None,
    "_n": (1, 2),
    "_p": ((1, "c"), 2),
    "M": None,
    "Mn": (1, 2),
}


def source_messages() -> Iterator[tuple[str | tuple[str, str], str | None, str, list[str]]]:
    """Every marked string in bot/ and games/: (message or (singular, plural), context,
    where, the comments for translators above it)."""
    for package in ("bot", "games"):
        for filename, lineno, message, comments, context in extract_from_dir(
            ROOT / package,
            method_map=[("**.py", "python")],
            keywords=KEYWORDS,
            comment_tags=("Translators:",),
        ):
            yield message, context, f"{package}/{filename}:{lineno}", comments


def command_messages() -> list[tuple[str, str]]:
    """Every string of the slash commands, with the context its translation is asked in."""
    return asyncio.run(_command_messages())


async def _command_messages() -> list[tuple[str, str]]:
    import discord
    from discord import app_commands

    from bot.app import GameBot, add_cogs
    from bot.config import BotConfig

    found: list[tuple[str, str]] = []

    class Recorder(app_commands.Translator):
        async def translate(
            self,
            string: app_commands.locale_str,
            locale: discord.Locale,
            context: app_commands.TranslationContextTypes,
        ) -> str | None:
            if locale is discord.Locale.german and not string.extras.get("verbatim"):
                found.append((string.message, context.location.name))
            return None

    bot = GameBot(BotConfig(), sync=False)
    await add_cogs(bot)
    recorder = Recorder()
    for command in bot.tree.get_commands():
        await command.get_translated_payload(bot.tree, recorder)  # type: ignore[arg-type]
    return found


def template() -> Catalog:
    """The catalogue template as the code stands."""
    catalog = Catalog(project="tablebot", fuzzy=False)
    for message, context, where, comments in source_messages():
        if not message or (isinstance(message, tuple) and not all(message)):
            continue
        path, line = where.rsplit(":", 1)
        known = catalog.get(message if isinstance(message, str) else message[0], context)
        if known is not None:  # the same message in another place
            known.locations.append((path, int(line)))
            known.auto_comments.extend(c for c in comments if c not in known.auto_comments)
            continue
        catalog.add(message, locations=[(path, int(line))], context=context, auto_comments=comments)
    for message, context in command_messages():
        catalog.add(message, context=context, auto_comments=[f"Discord: {context}"])
    return catalog


def _write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        write_po(out, catalog, width=100, ignore_obsolete=True, sort_output=False)


def extract() -> Catalog:
    """Write the template, and add its new messages to every language's catalogue (empty,
    to translate) and drop the ones the code no longer has."""
    pot = template()
    _write(pot, TEMPLATE)
    for code in LANGUAGES:
        if code != SOURCE:
            update(code, pot)
    return pot


def update(code: str, pot: Catalog) -> None:
    path = catalogue_path(code)
    if path.exists():
        with path.open("rb") as po:
            catalog = read_po(po, locale=code)
    else:
        catalog = Catalog(locale=code, project="tablebot", fuzzy=False)
    catalog.update(pot, no_fuzzy_matching=True, update_header_comment=False)
    catalog.obsolete.clear()
    _write(catalog, path)


@dataclass
class Problem:
    language: str
    message: str
    what: str

    def __str__(self) -> str:
        return f"{self.language}: {self.what}: {self.message!r}"


def placeholders(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}


def problems(code: str, pot: Catalog | None = None) -> list[Problem]:
    """Why the catalogue of `code` is not complete: a message missing from it (the template
    changed since the last extract), untranslated, fuzzy, with placeholders not its
    source's, or a command string Discord would refuse."""
    with catalogue_path(code).open("rb") as po:
        catalog = read_po(po, locale=code)
    return problems_in(catalog, pot)


def problems_in(catalog: Catalog, pot: Catalog | None = None) -> list[Problem]:
    """`problems` of a catalogue already read."""
    code = str(catalog.locale)
    found: list[Problem] = []
    if pot is not None:
        for message in pot:
            if message.id and catalog.get(message.id, message.context) is None:
                found.append(Problem(code, _id(message), "not in the catalogue (run extract)"))
    for message in catalog:
        if not message.id:
            continue
        found.extend(Problem(code, _id(message), what) for what in _faults(message, catalog))
    return found


def _id(message: Message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def _faults(message: Message, catalog: Catalog) -> Iterator[str]:
    if message.fuzzy:
        yield "fuzzy"
    if isinstance(message.id, tuple):
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        if len(forms) != catalog.num_plurals:
            yield f"{len(forms)} plural forms, the language has {catalog.num_plurals}"
        source = placeholders(message.id[1]) | placeholders(message.id[0])
        for form in forms:
            if not form:
                yield "untranslated"
                return
            extra = placeholders(form) - source
            missing = (placeholders(message.id[1]) - {"n"}) - placeholders(form)
            if extra or missing:
                yield f"placeholders {sorted(placeholders(form))} not {sorted(source)}"
        return
    if not message.string:
        yield "untranslated"
        return
    if placeholders(message.string) != placeholders(message.id):
        yield (
            f"placeholders {sorted(placeholders(message.string))} "
            f"not {sorted(placeholders(message.id))}"
        )
    fault = command_fault(message.context or "", message.string)
    if fault is not None:
        yield fault


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "extract"
    if command == "extract":
        pot = extract()
        print(f"{TEMPLATE.relative_to(ROOT)}: {len(pot)} messages")
        return 0
    if command == "new" and len(argv) == 2:
        code = argv[1]
        update(code, template())
        print(f"{catalogue_path(code).relative_to(ROOT)}: add {code!r} to LANGUAGES in "
              "bot/i18n.py, then translate it")
        return 0
    if command == "check":
        pot = template()
        found = [p for code in LANGUAGES if code != SOURCE for p in problems(code, pot)]
        for problem in found:
            print(problem)
        print(f"{len(found)} problem(s)")
        return 1 if found else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
