"""Display names as plain text (issue 30): the escaping (`bot/players.py`), the one place
that applies it (`bot/i18n.py`: names in sentences, every text of an engine's message), the
places that read no markdown (labels, options, pictures, files), and the tables, lobbies,
/history and /stats that show names."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.cogs.stats import stats_embed
from bot.components import button, select
from bot.history import Listing, game_view, list_page
from bot.i18n import LANGUAGES, _, plain_text, render, speaking
from bot.luck import spreads
from bot.pictures import luck
from bot.pictures.text import player_names
from bot.players import BIDI_CONTROLS, as_text, mentioned, mentions, unbidi, who
from bot.service import Actor, Reply, Tables
from games.text import M, Mn
from tests.bot.conftest import CHANNEL, GUILD, find, open_game

BOLD = Actor(id=21, name="**b**")
SPOILER = Actor(id=22, name="||x")
ROLE = Actor(id=23, name="<@&1>")
FLIPPED = Actor(id=24, name="Ann\u202eevil")
HOSTILE = ["**b**", "__u__", "||x", "`code`", "> quote", "# heading", "-# small", "1. list",
           "[link](https://example.com)", "@everyone", "<@&1>", "<#5>", "<:e:1>", "<t:1:R>",
           "Ann\u202eevil", "\u2066x\u2069", "\u200fy\u200e", "a\\", "~~s~~", "*i*"]  # fmt: skip
#: What would format, hide, link or mention if Discord met it unescaped.
RAW = re.compile(r"\*\*|__|\|\||`|~~|<[@#:t]|\[[^\]]*\]\(|@everyone|(?m:^ *(>|#|-#|[0-9]+\.) )")


def shown(markdown: str) -> str:
    """What Discord shows of markdown's escapes: `\\*` is `*` (any ASCII punctuation)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def unescaped(markdown: str) -> str:
    """`markdown` with each escaped character as a plain letter: what is left to read as
    markup."""
    return re.sub(r"\\[!-/:-@\[-`{-~]", "e", markdown)


# --------------------------------------------------------------------------- escaping


@pytest.mark.parametrize("name", HOSTILE)
def test_a_name_is_shown_as_written_and_formats_nothing(name: str) -> None:
    text = as_text(name)
    assert shown(text) == unbidi(name)
    assert not RAW.search(unescaped(text)), text
    assert not RAW.search(unescaped(f"**{text}'s turn**")[2:-9]), text  # inside bold too
    assert not set(text) & BIDI_CONTROLS


@pytest.mark.slow
@given(st.text())
def test_any_text_is_shown_as_written(name: str) -> None:
    text = as_text(name)
    assert shown(text) == unbidi(name)
    assert not RAW.search(unescaped(text))
    assert not set(text) & BIDI_CONTROLS and "\n" not in text


def test_bidi_controls_go_and_nothing_else() -> None:
    for control in BIDI_CONTROLS:
        assert unbidi(f"Ann{control}evil") == "Annevil"
    kept = "שלום Zoë 王小明 😀 a\u200db \u200b"  # right-to-left letters, joiners: no controls
    assert unbidi(kept) == kept and as_text(kept) == kept
    assert unbidi("two\nlines") == "two lines"
    assert unbidi("Zoë\u2028✓ 🔥\u202e") == "Zoë ✓ 🔥"  # (not ASCII, and controls too)


def test_only_the_bots_own_mentions_notify() -> None:
    text = f"{who(5)}: {as_text('<@6>')} and {mentions([7, 1001])}, \\\\{who(8)}"
    assert mentioned(text) == [5, 7, 8]
    assert mentioned(None) == []


# --------------------------------------------------------------------------- sentences


def test_names_in_sentences_are_escaped_and_mentions_kept() -> None:
    assert _("{name} left the lobby.", name="**b**") == "\\*\\*b\\*\\* left the lobby."
    assert _("{name} left the lobby.", name=who(12)) == "<@12> left the lobby."
    assert _("{player} {score}", player="||x", score=3) == "\\|\\|x 3"
    line = _("Passed: {names}", names=mentions([12, 13]))
    assert line == "Passed: <@12>, <@13>"
    listed = _("{names} is thinking…", names=["<@&1>", who(1001)])
    assert listed == "\\<\\@&1> and 🤖 Dicey is thinking…"


def test_a_sentence_said_before_is_not_mistaken_for_another() -> None:
    """`_` keeps each sentence it filled (bot/i18n.py `_filled`): a display name that reads
    like a mention, the same name where no markdown is read, and True where 1 was given
    are each filled as themselves, whichever came first."""
    for _round in range(2):
        assert _("{name} left the lobby.", name=who(12)) == "<@12> left the lobby."
        assert _("{name} left the lobby.", name="<@12>") == "\\<\\@12> left the lobby."
        with plain_text():
            assert _("{name} left the lobby.", name="<@12>") == "<@12> left the lobby."
        assert _("{player} {score}", player="Ann", score=1) == "Ann 1"
        assert _("{player} {score}", player="Ann", score=True) == "Ann True"
        # An engine's message made afresh each time (a refusal): every text in it is a name.
        said = "It's not your turn: it's {name}'s."
        assert render(M(said, name="<@12>")) == "It's not your turn: it's \\<\\@12>'s."
        with plain_text():
            assert render(M(said, name="<@12>")) == "It's not your turn: it's <@12>'s."
        with speaking("de"):
            german = render(M(said, name="Ann"))
        assert "Ann" in german and german != render(M(said, name="Ann"))
        assert _(said, name=who(12)) == "It's not your turn: it's <@12>'s."


def test_an_engines_message_holds_plain_text_everywhere() -> None:
    """Every text argument of a message is a player's (the engines write no markup): names,
    and names inside other arguments ("Ann 3+4")."""
    dealt = M("Everyone rolls two dice and draws: {draws}.", draws=["**b** 4+3", "<@&1> 1+1"])
    assert render(dealt) == (
        "Everyone rolls two dice and draws: \\*\\*b\\*\\* 4+3 and \\<\\@&1> 1+1."
    )
    nested = M("Nobody wins: {why}.", why=Mn("{name} timed out {n} time", "", 1, name="||x"))
    assert render(nested) == "Nobody wins: \\|\\|x timed out 1 time."


def test_plain_text_keeps_markdown_characters_but_no_bidi_control() -> None:
    line = M("{name} banks {points} (total {total})", name="**b**\u202e", points=50, total=90)
    with plain_text():
        assert _("Challenge {name}", name="**b**\u202e") == "Challenge **b**"
        assert render(line) == "**b** banks 50 (total 90)"
    assert render(line) == "\\*\\*b\\*\\* banks 50 (total 90)"  # (kept apart from the plain)


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_every_language_shows_names_as_written(code: str) -> None:
    """The catalogues' sentences put names in bold, after prepositions, before possessives:
    in each, the name reads as written and opens no markup of its own."""
    with speaking(code):
        for name in ("**b**", "||x", "<@&1>", "Ann\u202eevil"):
            for text in (
                _("{name} left the lobby.", name=name),
                _("**Game ended early by {name}.**", name=name),
                _("{name} wants a rematch of {game}: join below.", name=name, game="Farkle"),
                render(M("{name} has the fewest cards and starts.", name=name)),
                render(M("It's not your turn: it's {name}'s.", name=name)),
            ):
                assert unbidi(name) in shown(text), (code, text)
                assert not RAW.search(unescaped(text).replace("**", "", 2)), (code, text)


# --------------------------------------------------------------------------- surfaces


def test_labels_and_options_lose_bidi_controls() -> None:
    b = button("farkle", "roll", 1, 1, 1, "Roll \u202eit")
    s = select("crap", "target", 1, 1, 1, [("Challenge Ann\u202eevil", "x")], placeholder="\u2067p")
    assert b.label == "Roll it"
    assert s.options[0].label == "Challenge Annevil" and s.placeholder == "p"


async def start_crap(tables: Tables) -> Reply:
    reply = await tables.open_lobby(BOLD, GUILD, CHANNEL, "crap", {})
    await tables.table_posted(CHANNEL, 888)
    for p in (SPOILER, ROLE, FLIPPED):
        reply = await tables.click(p, find(reply, "join"), 888)
    return await tables.click(BOLD, find(reply, "start"), 888)


async def test_crap_tables_and_menus_show_names_as_written(tables: Tables) -> None:
    table = await start_crap(tables)
    assert table.embed is not None and table.embed.description
    text = table.embed.description
    assert "\\*\\*b\\*\\*" in text and "**b**" not in text and "\u202e" not in text
    state = (await tables.sessions.get(CHANNEL)).state
    mover = next(a for a in (BOLD, SPOILER, ROLE, FLIPPED) if a.id == state.current_player.id)
    hand = await tables.click(mover, find(table, "hand"), 888)
    [target] = [i for i in hand.items or [] if ":target:" in i.custom_id]
    labels = [o.label for o in target.options]
    others = [a for a in (BOLD, SPOILER, ROLE, FLIPPED) if a is not mover]
    assert [f"Challenge {unbidi(a.name)}" for a in others] == labels[::2][: len(others)]


async def test_ending_and_leaving_say_names_as_written(tables: Tables) -> None:
    await open_game(tables, ROLE, BOLD)
    ended = await tables.end(ROLE, CHANNEL, "farkle")
    assert ended.content is not None
    assert ended.content.startswith("\\<\\@&1> ended the Farkle game. Standings:")
    assert "\\*\\*b\\*\\* 0" in ended.content and mentioned(ended.content) == []
    lobby = await tables.open_lobby(FLIPPED, GUILD, CHANNEL, "farkle", {})
    await tables.table_posted(CHANNEL, 556)
    await tables.click(SPOILER, find(lobby, "join"), 556)
    left = await tables.leave(SPOILER, CHANNEL, "farkle")
    said = " ".join(r.content or "" for r in (left, *left.followups))
    assert "\\|\\|x left the lobby." in said, said


def test_history_and_stats_show_names_as_written() -> None:
    game = {
        "id": 7, "kind": "farkle", "channel_id": CHANNEL, "guild_id": GUILD,
        "started_at": 0, "finished_at": 600, "winner_id": 21, "scores": {"21": 1000, "24": 5},
        "rules": {}, "outcome": json.dumps({"k": "{name} wins with {points}.",
                                           "a": {"name": "**b**", "points": 1000}}),
        "players": [{"id": 21, "name": "**b**"}, {"id": 24, "name": "Ann\u202eevil"}],
        "log": [{"k": "{name} rolled {dice}.", "a": {"name": "Ann\u202eevil", "dice": "1 5"}}],
        "rating_changes": {21: (0.0, 1.5), 24: (0.0, -1.0)},
    }  # fmt: skip
    embed, _items = game_view(game, CHANNEL, 0)
    whole = json.dumps(embed.to_dict(), ensure_ascii=False)
    assert "\\\\*\\\\*b\\\\*\\\\*" in whole and "**b**" not in whole  # (JSON doubles \)
    assert "Annevil rolled 1 5." in embed.description and "\u202e" not in whole
    stats = stats_embed("||x", [])
    assert stats.title == "📊 \\|\\|x's stats" and "\\|\\|x has no" in (stats.description or "")


def test_pictures_draw_names_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    assert player_names(["**b**", "Ann\u202eevil", "<@&1>"]) == ["**b**", "Annevil", "<@&1>"]
    drawn: list[str] = []
    real = luck.write
    monkeypatch.setattr(luck, "write", lambda d, xy, text, *a: (drawn.append(text), real(d, xy, text, *a)))
    luck.luck_picture("**b**\u202e", "Farkle", spreads("farkle", {}))
    assert drawn[0] == "**b**'s dice · Farkle"


async def test_history_lists_others_by_their_names(tables: Tables) -> None:
    await open_game(tables, BOLD, FLIPPED)
    await tables.end(BOLD, CHANNEL, "farkle")
    embed, _items = await list_page(tables.store, GUILD, Listing(CHANNEL, BOLD.id, None), 0)
    assert "with Annevil" in (embed.description or ""), embed.description
