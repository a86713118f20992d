"""A fresh clone is all the project has: no file of it may refer to a path outside the
repository (a folder beside it, a path of the machine it was written on)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]

# Text a project file might use to reach outside the repository.
UP = re.compile(r"(?<![\w.])((?:\.\./)+)([\w.-]+)")
ABSOLUTE = re.compile(r"(?<![\w.:/])/(?:work|root|home|Users|mnt|opt/pypi)/[\w.-]+")
PARENTS = re.compile(r"__file__\)\.resolve\(\)\.parents\[(\d+)\]")
SIBLING = re.compile(r"(?<![\w/])shared/(?:discord|rules|hooks)\b")
SKIP_SUFFIXES = {".gz", ".png", ".jpg", ".ico", ".sqlite3", ".db"}


def project_files() -> list[Path]:
    """The files git tracks, plus new ones it does not ignore (the tree a clone receives)."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [ROOT / p for p in out.split("\0") if p and (ROOT / p).is_file()]


def outside_references(relpath: str, text: str) -> list[str]:
    """Each place in `text` (the file at `relpath` in the repository) that names a path outside
    the repository, as 'line N: what'."""
    depth = len(PurePosixPath(relpath).parts) - 1  # folders between the file and the root
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in UP.finditer(line):
            if m.group(1).count("../") > depth:
                found.append(f"line {n}: {m.group(0)}")
        for m in PARENTS.finditer(line):
            if int(m.group(1)) > depth:
                found.append(f"line {n}: parents[{m.group(1)}] climbs above the repository")
        found += [f"line {n}: {m.group(0)}" for m in ABSOLUTE.finditer(line)]
        found += [f"line {n}: {m.group(0)}" for m in SIBLING.finditer(line)]
    return found


def test_no_file_refers_to_a_path_outside_the_repository() -> None:
    problems = []
    files = project_files()
    assert len(files) > 50, "git should list the project's files"
    for path in files:
        if path.suffix in SKIP_SUFFIXES or path == Path(__file__).resolve():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        rel = path.relative_to(ROOT).as_posix()
        problems += [f"{rel} {where}" for where in outside_references(rel, text)]
    assert not problems, "\n".join(problems)


def test_the_check_finds_what_it_looks_for() -> None:
    """Planted references of each kind are found; paths inside the repository are not."""
    planted = {
        "tests/e2e/x.py": 'Path(__file__).resolve().parents[3] / "spec.json"',
        "README.md": "see ../" + "shared/rules/kuriki.txt",  # split: the checks grep for it
        "bench/x.py": "open('/work/main/data.txt')",
        "tests/x.py": 'DOC = "shared/' + 'discord/openapi.json"',
        "tests/bot/y.py": 'p = "../../../outside.txt"',
    }
    for rel, text in planted.items():
        assert outside_references(rel, text), rel
    inside = {
        "tests/e2e/x.py": 'Path(__file__).resolve().parents[2] / "README.md"',
        "tests/bot/y.py": 'p = "../../README.md"',
        "bot/x.py": "the machine may be shared; shared state",
    }
    for rel, text in inside.items():
        assert not outside_references(rel, text), rel
