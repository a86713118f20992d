"""Every player in their own language (issue 23): whole games in a German server, played by
German clients, and not one English sentence reaches Discord.

A server whose preferred locale is "de", players whose clients are set to "de": /farkle,
/kuriki and /crap are each opened, joined, started and played to their end by players who
read no word (tests/e2e/neutral_play.py: the game's own policy chooses, custom_ids find the
button), while `LanguageWatch` (tests/e2e/language_check.py) reads every body the bot sends
(public tables, ephemerals, follow-ups, edits) and `english_in` looks in each for the
English sentences of the catalogue template. The rules, /help, /stats, /leaderboard and
/history too. A French player at a German table: the table stays German, his own answers do
not.

These tests read the real German catalogue, bot/locales/de/LC_MESSAGES/tablebot.po: they
fail, naming the English sent, while it is incomplete. To try them before it is translated,
with a stand-in catalogue: `python -m tests.e2e.language_check stand-in /tmp/de` and run
them with `TABLEBOT_TEST_LOCALES=/tmp/de` (language_check.py says more)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import _, _n, _p, speaking
from tests.e2e.fake_discord import FakeDiscord, FakeUser
from tests.e2e.harness import (
    ADMIN,
    GUILD,
    LOUNGE,
    TABLE,
    Driver,
    late_answers,
    read_finished,
    running_bot,
)
from tests.e2e.language_check import (
    LanguageWatch,
    catalogues,
    english_in,
    fragments,
    german_path,
    literal_parts,
    substantial,
    template_path,
)
from tests.e2e.neutral_play import final_table, lobby_button, open_game, play_to_end

ANNA = FakeUser(1_100_000_000_000_002_001, "Anna", locale="de")
BERND = FakeUser(1_100_000_000_000_002_002, "Bernd", locale="de")
CLARA = FakeUser(1_100_000_000_000_002_003, "Clara", locale="de")
CHLOE = FakeUser(1_100_000_000_000_002_004, "Chloé", locale="fr")
EMMA = FakeUser(1_100_000_000_000_002_005, "Emma", locale="en-US")


@pytest.fixture(autouse=True)
def _catalogues() -> Iterator[None]:
    """The bot reads bot/locales, or the stand-in named by $TABLEBOT_TEST_LOCALES."""
    with catalogues():
        yield


@contextlib.asynccontextmanager
async def server(tmp_path: Path, *, seed: int, locale: str = "de") -> AsyncIterator[Driver]:
    """The bot in a server whose preferred locale is `locale`; fails at the end on anything
    Discord would refuse, any warning the bot logged, any late answer."""
    fake = FakeDiscord()
    guild = fake.add_guild(
        GUILD, "Spieleabend", {TABLE: "spiele", LOUNGE: "plaudern"}, owner_id=ADMIN.id
    )
    guild.preferred_locale = locale
    await fake.start()
    try:
        async with running_bot(tmp_path / "e2e.sqlite3", seed=seed, fake=fake) as d:
            yield d
            problems = d.problems
    finally:
        await fake.stop()
    assert problems == [], "\n".join(problems)
    assert late_answers(fake) == []


def assert_german(watch: LanguageWatch, since: int = 0) -> None:
    assert watch.english(since) == [], watch.report(since)


async def whole_game(
    tmp_path: Path, kind: str, players: list[FakeUser], seed: int, **options: Any
) -> None:
    async with server(tmp_path, seed=seed) as d:
        watch = LanguageWatch(d.fake)
        await open_game(d, kind, players, **options)
        played = await play_to_end(d, kind, players, seed=seed)
        final = final_table(d, kind)
        assert d.database is not None
        [row] = read_finished(d.database, TABLE)
        assert row["kind"] == kind and row["channel_id"] == TABLE
        assert not final.ephemeral and final.buttons()
        # The check saw the game: tables and the players' own replies, in numbers.
        assert played.moves >= 5 and len(watch.sent) >= played.moves
        assert any(s.user_id is not None for s in watch.sent)
        watch.stop()
        assert_german(watch)


# ---------------------------------------------------------------------- the check itself


SMALL = {
    "{name} rolled {dice}.": "{name} würfelt {dice}.",
    "Set aside & roll {n}": "Beiseite & {n} würfeln",
    "Crappy Malappy": "Crappy Malappy",
    "Roll": "Würfeln",
    "Leaderboards": "Bestenlisten",
    "{mention}: your turn. Press **My hand** to act.": "{mention}: du bist dran. **Meine Hand**.",
    "Farkle is played to {target}.": "Farkle wird bis {target} gespielt.",
}


def test_the_check_on_a_small_catalogue(tmp_path: Path) -> None:
    """An English table is caught, its German one passes: fragments cut at placeholders,
    whole words only, any spacing, Discord's markup and what German keeps (Crappy Malappy)
    left alone, one word (rolled, Roll) too short to say anything, command names never."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    pot, de = Catalog(), Catalog(locale="de")
    for msgid, msgstr in SMALL.items():
        pot.add(msgid)
        de.add(msgid, msgstr)
    pot.add("leaderboard", context="command_name")
    (tmp_path / "de" / "LC_MESSAGES").mkdir(parents=True)
    for path, catalog in ((template_path(tmp_path), pot), (german_path(tmp_path), de)):
        with path.open("wb") as out:
            write_po(out, catalog)
    assert sorted(fragments(tmp_path)) == [
        ": your turn. Press **My hand** to act.",
        "Farkle is played to",
        "Leaderboards",
        "Set aside & roll",
    ]
    english = (
        "🎲 Farkle · Crappy Malappy\n<@1>: your turn. Press **My hand** to act.\n"
        "Anna rolled 3 5. Set aside  &  roll 3 · Roll · </leaderboard:9> Leaderboards"
    )
    assert english_in(english, tmp_path) == [
        ": your turn. Press **My hand** to act.",
        "Set aside & roll",
        "Leaderboards",
    ]
    german = (
        "🎲 Farkle · Crappy Malappy\n<@1>: du bist dran. **Meine Hand**.\n"
        "Anna würfelt 3 5. Beiseite & 3 würfeln · Würfeln · </leaderboard:9> Bestenlisten"
    )
    assert english_in(german, tmp_path) == []
    assert english_in("Leaderboardsx, MyLeaderboards", tmp_path) == []  # whole words only


@pytest.mark.slow
def test_every_english_sentence_is_caught_and_every_german_one_passes() -> None:
    """Each catalogue message in English shows a fragment the check looks for (when it has
    one: not one-word labels, not a proper noun German keeps); the same messages in German
    show none."""
    from babel.messages.pofile import read_po

    with template_path().open("rb") as pot:
        template = [m for m in read_po(pot) if m.id]
    assert fragments(), "the check looks for nothing"
    caught = missed = 0
    for message in template:
        ids = list(message.id) if isinstance(message.id, tuple) else [message.id]
        if not any(substantial(p) for t in ids for p in literal_parts(t)):
            continue
        with speaking("en"):
            english = _say(message.context, ids)
        with speaking("de"):
            german = _say(message.context, ids)
        assert english_in(german) == [], (message.id, german)
        if english_in(english):
            caught += 1
        else:
            missed += 1  # every fragment is also German (a shared word, a proper noun)
    assert caught > 0 and caught >= 4 * missed, (caught, missed)


def _say(context: str | None, ids: list[str]) -> str:
    """A catalogue message in the current language, each placeholder filled with a word no
    language has."""
    from tools.catalogues import placeholders

    args = {name: "Qzx" for name in placeholders(ids[-1]) if name != "n"}
    if len(ids) == 2:
        return _n(ids[0], ids[1], 2, **args)
    if context:
        return _p(context, ids[0], **args)
    return _(ids[0], **args)


@pytest.mark.slow
async def test_an_english_lobby_is_caught_a_german_one_passes(tmp_path: Path) -> None:
    """The same lobby and first table: in an English server the check finds English, in a
    German server nothing."""
    for locale, players in (("en-US", [EMMA, BERND]), ("de", [ANNA, BERND])):
        async with server(tmp_path / locale, seed=2, locale=locale) as d:
            watch = LanguageWatch(d.fake)
            await open_game(d, "farkle", players)
            await d.slash(players[0], TABLE, "farkle rules")
            found = watch.english()
            if locale == "de":
                assert found == [], watch.report()
            else:
                assert found, "an English lobby passed the check"


# ---------------------------------------------------------------------- whole games


@pytest.mark.slow
async def test_a_whole_farkle_game_in_german(tmp_path: Path) -> None:
    await whole_game(tmp_path, "farkle", [ANNA, BERND], seed=3, target=1000)


@pytest.mark.slow
async def test_a_whole_kuriki_game_in_german(tmp_path: Path) -> None:
    await whole_game(tmp_path, "kuriki", [ANNA, BERND, CLARA], seed=4, lives=2)


@pytest.mark.slow
async def test_a_whole_crap_game_in_german(tmp_path: Path) -> None:
    await whole_game(tmp_path, "crap", [ANNA, BERND, CLARA], seed=5, threshold=100)


@pytest.mark.slow
async def test_rules_help_stats_leaderboard_history_in_german(tmp_path: Path) -> None:
    async with server(tmp_path, seed=6) as d:
        await open_game(d, "farkle", [ANNA, BERND], target=500)
        await play_to_end(d, "farkle", [ANNA, BERND], seed=6)
        watch = LanguageWatch(d.fake)
        for game in ("farkle", "kuriki", "crap"):
            rec = await d.slash(ANNA, TABLE, f"{game} rules")
            assert rec.ephemeral and rec.text, game
        for command in ("help", "stats", "leaderboard"):
            rec = await d.slash(BERND, TABLE, command)
            assert rec.text, command
        listed = await d.slash(ANNA, TABLE, "history")
        assert listed.ephemeral and listed.message is not None
        [select] = [c for c in listed.message.all_components() if c.get("type") == 3]
        opened = await d.select(ANNA, TABLE, [select["options"][0]["value"]], message=listed.message)
        assert opened.ephemeral and opened.text
        assert len(watch.sent) >= 8
        assert_german(watch)


# ---------------------------------------------------------------------- a French guest


@pytest.mark.slow
async def test_a_french_player_at_a_german_table(tmp_path: Path) -> None:
    """The table is German for everyone; Chloé's own answers are in her language: a
    refusal (Cancel is the host's) and a private view (the rules) differ from Bernd's."""
    async with server(tmp_path, seed=8) as d:
        watch = LanguageWatch(d.fake)
        await d.slash(ANNA, TABLE, "crap start")
        # Cancel, pressed by others than the host: refused, to each in their language.
        cancel = lobby_button(d, ANNA, "crap", "cancel")
        refusals = {}
        for p in (BERND, CHLOE):
            rec = await d.click(p, TABLE, custom_id=cancel)
            assert rec.ephemeral, rec.text
            refusals[p.locale] = rec.text
        for p in (BERND, CHLOE):
            await d.click(p, TABLE, custom_id=lobby_button(d, p, "crap", "join"))
        assert refusals["de"] and refusals["fr"] and refusals["de"] != refusals["fr"]
        rules = {p.locale: (await d.slash(p, TABLE, "crap rules")).text for p in (BERND, CHLOE)}
        assert rules["de"] != rules["fr"]
        await d.click(ANNA, TABLE, custom_id=lobby_button(d, ANNA, "crap", "start"))
        # Everything public (the lobby, its news, the table) is German, Chloé's join too.
        public = [s for s in watch.sent if s.user_id is None or _is_public(d, s)]
        assert public
        found = [(s.where(), f) for s in public for t in s.texts for f in english_in(t)]
        assert found == [], found
        # Bernd's own answers are German too.
        bernd = [t for s in watch.sent if s.user_id == BERND.id for t in s.texts]
        assert bernd and all(english_in(t) == [] for t in bernd)


def _is_public(d: Driver, sent: Any) -> bool:
    """An interaction's body that landed on a public message (the lobby's update)."""
    return any(
        s.path == sent.path and s.public for s in d.fake.sent if s.method == sent.method
    )
