"""games/ is the pure engine: no Discord, no database, no event loop."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GAMES = Path(__file__).resolve().parents[2] / "games"
FORBIDDEN = {"discord", "aiosqlite", "asyncio"}


def forbidden_imports(source: str) -> list[str]:
    """Top-level modules from FORBIDDEN that `source` imports, however it spells it."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in {"import_module", "__import__"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        else:
            continue
        found += [name for name in names if name.split(".")[0] in FORBIDDEN]
    return found


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import discord", ["discord"]),
        ("import os, aiosqlite as db", ["aiosqlite"]),
        ("from discord.ext import commands", ["discord.ext"]),
        ("from asyncio import sleep", ["asyncio"]),
        ("def f():\n    import asyncio.tasks\n", ["asyncio.tasks"]),
        ("import importlib\nimportlib.import_module('discord')", ["discord"]),
        ("import discordant\nfrom games import asyncio_free", []),
        ("from . import asyncio", []),  # a relative import is the package's own module
        ("x = 'import discord'", []),
    ],
)
def test_checker_finds_forbidden_imports(source: str, expected: list[str]) -> None:
    assert forbidden_imports(source) == expected


def test_games_package_is_pure() -> None:
    files = sorted(GAMES.rglob("*.py"))
    assert GAMES / "farkle" / "engine.py" in files
    offenders = {
        str(path.relative_to(GAMES.parent)): found
        for path in files
        if (found := forbidden_imports(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}
