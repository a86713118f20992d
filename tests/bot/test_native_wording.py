"""Every language as a native speaker writes it: names keep the form the player chose
(no French elision, no Polish case after a preposition), German keeps one gender for
Kuriki and no rule set's name after a preposition, no raw id and no number written into a
sentence by hand."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from babel.messages.pofile import read_po

from bot import mentions
from bot.app import default_adapters
from bot.i18n import LANGUAGES, SOURCE, _, catalogue_path, number, speaking
from bot.settings import GuildSettings
from bot.tables.farkle_rules import describe_rules
from games.farkle.rules import PRESETS

#: The placeholders that hold a player's name as they wrote it (bot/i18n.py NAME_ARGS).
NAME = r"\{(name|names|player|other|host|caller|accused|voters)\}"
#: What each language must not write next to a name or a rule set's name, and why.
FAULTS: dict[str, list[tuple[str, str]]] = {
    "fr": [
        (rf"\b[Dd]e \**{NAME}", "'de' before a name wants 'd'' before a vowel: say 'par', 'à'"),
        (r"\b[Dd]'\**\{", "'d'' before a name that may start with a consonant"),
        (rf"\b(que|Que|le|la|Le|La) \**{NAME}", "elision before a name"),
    ],
    "pl": [
        (
            rf"\b(na|Na|przez|dla|Dla|do|Do|od|Od|z|Z|ze|o|u|U|w|po|Po|przy|bez|za|nad|pod|"
            rf"przed|wobec) \**{NAME}",
            "a preposition declines the name after it: keep it nominative ('gracza {name}', "
            "'Teraz gra {name}')",
        ),
        (r"Brown Sugar", "left in English"),
    ],
    "de": [
        (
            r"\b(mit|für|von|bei|nach|zu|aus|ohne) \**\{(preset|rule_sets|rule_set)\}",
            "a rule set's name after a preposition misses its case ('im Regelwerk {preset}')",
        ),
        (r"\b(das|ein|kein) (Kuriki|KURIKI)\b(?!-)\s*(gewürfelt|geworfen)", "Kuriki is masculine"),
        (r"\bdas (Kuriki|KURIKI)\b(?!-)", "Kuriki is masculine"),
        (rf"{NAME} [^.!]*\bals (Erster|Letzter)\b", "a player's name is neither gender"),
    ],
}


def translations(code: str) -> Iterator[tuple[str, str]]:
    with catalogue_path(code).open("rb") as po:
        catalog = read_po(po, locale=code)
    for message in catalog:
        if not message.id:
            continue
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            if text:
                yield key, text


@pytest.mark.parametrize("code", sorted(FAULTS))
def test_names_and_rule_sets_read_as_the_language_writes_them(code: str) -> None:
    found = [
        f"{why}: {key!r} -> {text!r}"
        for key, text in translations(code)
        for pattern, why in FAULTS[code]
        if re.search(pattern, text)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("code", [SOURCE, *LANGUAGES])
def test_the_rules_footer_names_rule_sets_not_their_ids(code: str) -> None:
    adapter = default_adapters()["farkle"]
    with speaking(code):
        footer = adapter.rules_embed(GuildSettings(), None, "classic").footer.text or ""
    assert footer and not any(key in footer for key in PRESETS if "-" in key or key == "classic")


@pytest.mark.parametrize("code", ["de", "fr", "pt_BR"])  # those that group 1,200
def test_numbers_in_the_rules_are_written_as_the_language_writes_them(code: str) -> None:
    """The example of adding triples: its numbers are the bot's, written by the language
    (German 1.200), not typed into the translation."""
    rules = PRESETS["classic"].model_copy(update={"kind_scoring": "add"})
    with speaking(code):
        scoring, _play = describe_rules(rules)
        shown = number(1200)
    (line,) = [s for s in scoring if "800" in s]
    assert shown in line, line


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != SOURCE])
def test_a_command_is_named_as_its_mention_shows_it_in_every_language(
    code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord writes a mention's name as given (English); a footer, where no mention is
    clickable, names the command the same way, so one message never has two names for it."""
    with speaking(code):
        footer = mentions.spoken("farkle rules")
        monkeypatch.setattr(mentions, "_command_ids", {"farkle": 1})
        clickable = mentions.mention("farkle rules")
    assert footer == "/farkle rules" and clickable == "</farkle rules:1>"


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_one_word_for_a_crappy_on_the_table_and_in_stats(code: str) -> None:
    """Crappy Malappy's scoreless throw has one plural in each language: the table's
    "Bob 300 (2 crappys)" and the /stats line "Crappys: 2" write the same word."""
    import random

    from bot.records import RECORDS
    from bot.tables.farkle import FarkleTable
    from games.farkle.engine import new_game
    from games.farkle.rules import PRESETS
    from games.lobby import Seat

    state, _events = new_game(
        [Seat(id=1, name="Ann"), Seat(id=2, name="Bob")], PRESETS["crappy-malappy"], random.Random(1)
    )
    state.players[0].farkles = 2
    label = next(r.label for r in RECORDS["farkle"] if r.key == "crappys")
    with speaking(code):
        row = FarkleTable()._scores(state)[0]
        word = _(label).lower()
    assert re.search(rf"\b2 {re.escape(word)}\b", row.lower()), (row, word)
