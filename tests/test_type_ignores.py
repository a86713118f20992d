"""Every `# type: ignore` in bot/ and games/ names the error it silences and says why on the
same line (`# type: ignore[code]  # reason`): the type checker (mypy, run by .ci/run) is only
as good as what it is allowed to skip."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IGNORE = re.compile(r"#\s*type:\s*ignore\b(?P<rest>.*)$")
#: `[code, code]`, then a comment of at least a few words' worth of reason.
EXPLAINED = re.compile(r"^\[[a-z-]+(?:,\s*[a-z-]+)*\]\s+#\s*\S.{8,}$")


def unexplained(source: str) -> list[tuple[int, str]]:
    """(line, comment) of each type-ignore comment in `source` without a code and a
    reason."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.COMMENT:
            continue
        match = IGNORE.search(token.string)
        if not match or EXPLAINED.match(match.group("rest").strip()):
            continue
        found.append((token.start[0], token.string))
    return found


def test_every_type_ignore_in_bot_and_games_has_a_code_and_a_reason() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {comment}"
        for package in ("bot", "games")
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, comment in unexplained(path.read_text(encoding="utf-8"))
    ]
    assert not found, "type: ignore without [code] and a reason:\n" + "\n".join(found)


def test_the_check_refuses_a_bare_ignore_and_one_without_a_reason() -> None:
    source = (
        "a = f()  # type: ignore\n"
        "b = f()  # type: ignore[arg-type]\n"
        "c = f()  # type: ignore  # the stubs are wrong here\n"
        "d = f()  # type: ignore[arg-type]  # the stubs say list[int]; None is the default\n"
        "e = '# type: ignore'\n"
    )
    assert [line for line, _ in unexplained(source)] == [1, 2, 3]
