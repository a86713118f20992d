"""Who reads which language: a channel's table and log in its server's language (/config
language, else the server's preferred locale; outside servers the host's), each answer in
the language of whoever asked, and a running game re-rendered when the server changes its
language (the state keeps message keys, not text)."""

from __future__ import annotations

import dataclasses

from bot import i18n
from bot.errors import said
from bot.i18n import _, _n, render, speaking
from bot.replies import Actor
from bot.service import Tables
from bot.settings import GuildSettings
from tests.bot.conftest import ALICE, BOB, CHANNEL, GUILD, find

ANA = dataclasses.replace(ALICE, locale="de", guild_locale="de")
BRUNO = dataclasses.replace(BOB, locale="fr", guild_locale="de")


def _text(reply_table: object) -> str:
    embed = reply_table.embed  # type: ignore[attr-defined]
    parts = [embed.title or "", embed.description or "", embed.footer.text or ""]
    parts += [f"{f.name}\n{f.value}" for f in embed.fields]
    return "\n".join(parts)


async def _game(tables: Tables, host: Actor, guest: Actor, guild: int | None = GUILD) -> object:
    reply = await tables.open_lobby(host, guild, CHANNEL, "farkle", {})
    await tables.table_posted(CHANNEL, 555)
    reply = await tables.click(guest, find(reply, "join"), 555)
    return await tables.click(host, find(reply, "start"), 555)


async def test_a_table_is_in_its_servers_preferred_language(tables: Tables) -> None:
    await _game(tables, ANA, BRUNO)
    session = await tables.sessions.get(CHANNEL)
    assert tables.language(session) == "de"
    update = (await tables.status(CHANNEL, "farkle")).update
    assert update is not None
    with speaking("de"):
        german = _text(tables.adapters["farkle"].render(session))
    with speaking("en"):
        english = _text(tables.adapters["farkle"].render(session))
    assert german != english
    shown = _text(update.table)
    assert shown.split("\n")[0] == german.split("\n")[0]  # the same German title


async def test_config_language_re_renders_a_running_game(tables: Tables) -> None:
    """The log is kept as keys: the same game's lines read in Polish after the change."""
    await _game(tables, ANA, BRUNO)
    session = await tables.sessions.get(CHANNEL)
    lines = list(session.state.log)
    with speaking("de"):
        german = [render(line) for line in lines]
    await tables.save_settings(GUILD, GuildSettings(language="pl"))
    assert tables.language(session) == "pl"
    with speaking("pl"):
        polish = [render(line) for line in lines]
    assert polish != german
    update = (await tables.status(CHANNEL, "farkle")).update
    assert update is not None
    assert polish[-1] in _text(update.table)
    await tables.save_settings(GUILD, GuildSettings(language=None))
    assert tables.language(session) == "de"  # back to the server's preferred locale


async def test_outside_servers_the_table_speaks_the_hosts_language(tables: Tables) -> None:
    host = dataclasses.replace(ALICE, locale="es", guild_locale=None)
    await _game(tables, host, BRUNO, guild=None)
    session = await tables.sessions.get(CHANNEL)
    assert tables.language(session) == "es"


async def _refusal(tables: Tables, who: Actor, reply: object, language: str) -> str:
    with speaking(language):
        try:
            answer = await tables.click(who, find(reply, "roll"), 555)  # type: ignore[arg-type]
        except Exception as exc:  # refused: the interaction answers with this
            return said(exc)
        return answer.content or ""


async def test_an_answer_is_in_the_language_of_whoever_asked(tables: Tables) -> None:
    """Bruno (French) presses Roll out of turn at a German table: the refusal is in his
    language, whatever the table's."""
    reply = await _game(tables, ANA, BRUNO)
    session = await tables.sessions.get(CHANNEL)
    waiting = BRUNO if session.state.current_player.id == ANA.id else ANA
    french = await _refusal(tables, waiting, reply, "fr")
    english = await _refusal(tables, waiting, reply, "en")
    assert "not your turn" in english
    assert french and french != english
    assert tables.language(session) == "de"


def test_the_sentences_a_language_keeps_are_bounded() -> None:
    """Each language keeps the sentences it filled (`_filled`), a bot that runs for weeks
    too: never more than `_FILLED_KEPT`, and none longer than `_FILLED_LONGEST` (a long one
    is filled anew each time, and still right)."""
    with speaking("de") as german:
        for points in range(i18n._FILLED_KEPT + 100):
            assert i18n.number(points) in _("Bank {points}", points=points)
            assert len(german.filled) <= i18n._FILLED_KEPT
        long = "x" * (i18n._FILLED_LONGEST + 1)
        german.filled.clear()
        assert _("{name} left the lobby.", name=long).count("x") == len(long)
        assert _n("{n} farkle", "{n} farkles", 2) == "2 Farkles"
        assert len(german.filled) == 1  # the plural, not the long one
