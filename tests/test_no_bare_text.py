"""No words reach a player except through the catalogues: a static look at every place the
code hands text to Discord or to a player (a message's content, an embed's title, fields
and footer, a button's label, a select's placeholder, a refusal, an engine's log line) for
literal English that no marking function (`_`, `_n`, `_p`, `N_`, `M`, `Mn`) wraps.

The end-to-end tests in German (tests/e2e/test_german_games.py) check what actually reaches
the channel; this one also covers the paths no game plays through."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Text for the operator, not for players: command-line tools, start-up and database
#: reports, the config file's reader, the store.
OPERATOR_ONLY = {
    "bot/__main__.py",
    "bot/catalogues.py",
    "bot/config.py",
    "bot/database_errors.py",
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
