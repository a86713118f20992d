"""Every relative link of the project's Markdown (README, CONTRIBUTING, CHANGELOG, docs/)
points at a file of the repository, and a `#section` at a heading that file has, so moving
or renaming a doc or a heading cannot leave a reader at a dead end."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def markdown_files() -> list[Path]:
    top = [ROOT / name for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")]
    return [p for p in top if p.exists()] + sorted((ROOT / "docs").glob("*.md"))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(m[1]) for m in re.finditer(r"^#+ (.+)$", text, re.M)}


def broken_links(path: Path, text: str | None = None) -> list[str]:
    """Each relative link of `path` (or of `text`, read as if it were there) that leads
    nowhere, as 'target: why'."""
    text = FENCE.sub("", path.read_text(encoding="utf-8") if text is None else text)
    out = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        rel = dest.relative_to(ROOT).as_posix() if dest.is_relative_to(ROOT) else str(dest)
        if not dest.exists():
            out.append(f"{target}: no such file")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            out.append(f"{target}: no heading #{anchor} in {rel}")
    return out


def test_every_relative_link_leads_somewhere() -> None:
    files = markdown_files()
    assert len(files) >= 10, "the README, CONTRIBUTING, CHANGELOG and the docs"
    problems = [
        f"{p.relative_to(ROOT).as_posix()} -> {b}" for p in files for b in broken_links(p)
    ]
    assert not problems, "\n".join(problems)


def test_the_check_finds_a_dead_link_and_a_missing_heading() -> None:
    assert slug("Bot players: Farkle") == "bot-players-farkle"
    assert slug("Configuration (`config.toml`)") == "configuration-configtoml"
    assert "bot-players" in anchors(ROOT / "docs" / "players.md")
    probe = (
        "[a](players.md#bot-players) [b](nowhere.md) [c](players.md#no-such) "
        "[d](https://example.com/x) ![e](img/farkle-table.png) [f](../LICENSE)\n"
        "```\n[g](inside-a-code-block.md)\n```\n"
    )
    assert broken_links(ROOT / "docs" / "probe.md", probe) == [
        "nowhere.md: no such file",
        "players.md#no-such: no heading #no-such in docs/players.md",
    ]
