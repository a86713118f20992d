"""No words reach a player except through the catalogues: a static look at every place the
code hands text to Discord or to a player (a message's content, an embed's title, fields
and footer, a button's label, a select's placeholder, a refusal, an engine's log line) for
literal English that no marking function (`_`, `_n`, `_p`, `N_`, `M`, `Mn`) wraps.

A second, wider look takes every literal with words outside a marking call, a docstring, an
operator log or a fault's exception, and fails unless it was looked at (REVIEWED): a
sentence made in a helper and handed on later is found there.

The end-to-end tests in German (tests/e2e/test_german_games.py) check what actually reaches
the channel, but only for English the catalogues know; these also cover unmarked text and
the paths no game plays through."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from bot.settings import RULE_WORDS

ROOT = Path(__file__).resolve().parent.parent
#: Text for the operator, not for players: command-line tools, start-up and database
#: reports, the config file's reader, the store, the list of discord.py's internals, the
#: interaction callbacks' HTTP (its faults).
OPERATOR_ONLY = {
    "bot/__main__.py",
    "bot/callback_http.py",
    "bot/command_strings.py",
    "bot/config.py",
    "bot/database_errors.py",
    "bot/discord_internals.py",
    "bot/migrate.py",
    "bot/rebuild_ratings.py",
}
OPERATOR_DIRS = ("bot/store/",)
MARKERS = {"_", "_n", "_p", "N_", "M", "Mn"}
#: Keyword arguments whose text a player reads.
SHOWN = {"content", "label", "placeholder", "title", "description", "text", "value", "footer"}
#: Calls whose `name=` a player reads too (an embed field's, an author's).
NAMED = {"add_field", "set_author", "insert_field_at", "set_field_at"}
#: Calls whose text is not shown, or is translated elsewhere (the command tree's strings go
#: through bot/translator.py; pydantic's descriptions document the model).
NOT_SHOWN = {"Field", "describe", "Choice", "command", "Group", "group", "rename", "Parameter"}
#: Moves and other plain data whose `value` is a choice's key, not words.
NOT_SHOWN |= {"Action", "Move"}
#: Exceptions whose message a player reads.
REFUSALS = re.compile(
    r"^(UserError|StaleTable|NoSession|GameOver|GameError|NotYourTurn|NotInGame|IllegalMove|"
    r"InvalidSelection|LobbyError|SettingsError|private)$"
)
WORDS = re.compile(r"[A-Za-z]{2,}")


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _bare(node: ast.expr) -> str | None:
    """The literal English in `node`, when it is a string or f-string with words outside
    any marking call."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = re.sub(r"\{[^}]*\}|<[^>]*>|https?://\S+", "", node.value)
        return node.value if WORDS.search(text) else None
    if isinstance(node, ast.JoinedStr):
        literal = "".join(
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        )
        return literal if WORDS.search(re.sub(r"<[^>]*>", "", literal)) else None
    if isinstance(node, ast.BinOp):
        return _bare(node.left) or _bare(node.right)
    if isinstance(node, ast.IfExp):
        return _bare(node.body) or _bare(node.orelse)
    return None


def bare_texts(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = _name(node.func)
        if callee in MARKERS or callee in NOT_SHOWN:
            continue
        shown: list[ast.expr] = [
            k.value
            for k in node.keywords
            if k.arg in SHOWN or (k.arg == "name" and callee in NAMED)
        ]
        if REFUSALS.match(callee) and node.args:
            shown.append(node.args[0])
        for value in shown:
            text = _bare(value)
            if text is not None:
                yield f"{path.relative_to(ROOT)}:{value.lineno}: {text[:60]!r}"


def test_no_player_reads_text_the_catalogues_do_not_hold() -> None:
    found = []
    for package in ("bot", "games"):
        for path in sorted((ROOT / package).rglob("*.py")):
            where = str(path.relative_to(ROOT))
            if where in OPERATOR_ONLY or where.startswith(OPERATOR_DIRS):
                continue
            found.extend(bare_texts(path))
    assert not found, f"{len(found)} texts outside the catalogues:\n" + "\n".join(found)


def test_the_look_finds_what_it_must(tmp_path: Path) -> None:
    """An f-string refusal, a bare label and a bare log line are found; marked ones and
    text with no words are not."""
    sample = ROOT / "tests" / "_bare_sample.py"
    sample.write_text(
        "raise UserError(f'You are not in {name}.')\n"
        "button(label='Roll')\n"
        "Event(kind='x', text='Ann rolled.')\n"
        "button(label=_('Roll'))\n"
        "Event(kind='x', text=M('{who} rolled.', who=w))\n"
        "button(label='✓')\n"
        "Reply.private(_('Hi {name}', name=n))\n"
    )
    try:
        found = list(bare_texts(sample))
    finally:
        sample.unlink()
    assert [f.split(":")[1] for f in found] == ["1", "2", "3"]


#: Calls whose string arguments are not shown to a player as they are: the marking
#: functions, operator logs, command paths (`mention`/`spoken` translate them), the command
#: tree's own strings (translated by bot/translator.py) and pydantic's field docs.
NOT_PLAYER_TEXT = MARKERS | NOT_SHOWN | {
    "debug", "info", "warning", "error", "exception", "critical",
    "mention", "spoken", "choices", "Range",
}  # fmt: skip
#: Exceptions that report a fault of the bot or a caller, never shown to a player (an
#: unexpected error gets the apology, bot/errors.py).
FAULTS = {
    "ValueError", "TypeError", "AssertionError", "RuntimeError", "KeyError", "IndexError",
    "NotImplementedError", "RunawayGame",
}  # fmt: skip
#: Whole functions whose text is a record, not a message: /verify's attached list of draws
#: is written in English for everyone (a record anyone can check against the seed).
RECORDS = {("bot/verify.py", name) for name in ("_describe", "_drawn", "_report")}
#: Constants that hold code, not words: the shell one-liner /verify gives, and the name of
#: the JSON format /verify attaches (what a program reads, the same in every language).
CODE = {("bot/verify.py", "ONE_LINER"), ("bot/draws_file.py", "FORMAT")}
#: Text for the operator: the config file's reader (its /config sentences are the
#: translated `explain` in bot/settings.py).
OPERATOR_ONLY_TOO = {"bot/config_errors.py"}
#: Literals with words that reach no player, each looked at: why it is not a message.
REVIEWED = {
    # the command tree's descriptions (translated by bot/translator.py)
    ("bot/cogs/common.py", "Time for each move: 90s, 10m, 12h, 1d, 3d (up to 7d), off for none (outside servers)"),
    ("bot/cogs/common.py", "The new value: pick one from the list, or type a number"),
    # the command a start option's setting is changed with (a path `mention` shows)
    *(("bot/lobby_settings.py", f"config {c}") for c in ("farkle", "kuriki", "crap", "timer", "farkle-rule")),
    # the keys of the engines' log lines a table recognises to say a fact once
    # (bot/tables/fields.py without_game_over, bot/tables/kuriki.py _REVEALS)
    ("bot/tables/fields.py", "Game over:"),
    ("bot/tables/kuriki.py", "{name} pulls the cup: {dice} = {value} against {declared}, a lie!"),
    ("bot/tables/kuriki.py", "{name} pulls the cup: {dice} = {value} against {declared}, not a lie."),
    ("bot/tables/kuriki.py", "👑 {name} rolled a KURIKI ({dice})! Crown number {crowns}."),
    # the key of a message, to recognise it (games.autoplay.is_idle)
    ("games/autoplay.py", "nobody played for {n} turn"),
    # the words a setting's value may be typed in (parsed, not shown)
    ("bot/settings.py", "no set"),
    # the English an old save kept, read back to recognise it
    ("games/autoplay.py", "nobody played for "),
    ("games/crap/policy.py", "'s recycled hand"),
    ("games/crap/policy.py", "'s protected cards"),
    # the /config farkle-rule choices' hints: the command tree translates each choice whole
    *(("bot/settings.py", hint) for _label, hint in RULE_WORDS.values()),
}  # fmt: skip


def loose_texts(path: Path) -> Iterator[tuple[str, int]]:
    """Every string literal with words in `path` that is no docstring and sits in no call
    or raise that keeps it from a player."""
    tree = ast.parse(path.read_text(), str(path))
    parent = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    where = str(path.relative_to(ROOT))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if not re.search(r"[A-Za-z]{2,}\s+[a-z]{2,}", re.sub(r"\{[^}]*\}", "", node.value)):
            continue
        up, kept = node, False
        while up in parent and not kept:
            up = parent[up]
            if isinstance(up, ast.Expr) and isinstance(up.value, ast.Constant):
                kept = True  # a docstring
            elif isinstance(up, ast.Call):
                kept = _name(up.func) in NOT_PLAYER_TEXT or _name(up.func) in FAULTS
            elif isinstance(up, ast.Assert):
                kept = True  # a fault of the bot's own
            elif isinstance(up, ast.FunctionDef):
                kept = (where, up.name) in RECORDS
            elif isinstance(up, ast.Assign):
                kept = any((where, _name(t)) in CODE for t in up.targets)
            elif isinstance(up, ast.ClassDef):
                kept = any(node in ast.walk(k) for k in up.keywords)  # group_description=
        if not kept:
            yield node.value, node.lineno


def test_no_literal_with_words_is_outside_the_catalogues() -> None:
    """Wider than the look at Discord's arguments: any literal with words in the player's
    part of the code is a message, or was looked at and listed in REVIEWED with why (a
    sentence built in a helper and handed on later, such as a ping's "your move", is found
    here)."""
    found = []
    for package in ("bot", "games"):
        for path in sorted((ROOT / package).rglob("*.py")):
            where = str(path.relative_to(ROOT))
            if where in OPERATOR_ONLY | OPERATOR_ONLY_TOO or where.startswith(OPERATOR_DIRS):
                continue
            found += [
                f"{where}:{line}: {text[:60]!r}"
                for text, line in loose_texts(path)
                if (where, text) not in REVIEWED
            ]
    assert not found, f"{len(found)} literals outside the catalogues:\n" + "\n".join(found)
