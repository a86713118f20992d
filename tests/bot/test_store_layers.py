"""The store package's layers: each backend imports the interface and the shared modules,
never the other backend, and the interface reaches a backend only when it opens one (so a
SQLite bot never loads asyncpg, and no module of bot/ imports itself back at load time)."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"
STORE = BOT / "store"
BACKENDS = {"bot.store.sqlite", "bot.store.postgres"}


def module_name(path: Path) -> str:
    name = ".".join(path.relative_to(BOT.parent).with_suffix("").parts)
    return name.removesuffix(".__init__")


def imported(path: Path, *, top_level_only: bool) -> set[str]:
    """The bot modules `path` imports (a `from bot.x import y` counts bot.x.y when that is a
    module); with `top_level_only`, the ones imported when it loads (not inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {n for n in names if n.startswith("bot.")}


def test_the_backends_never_import_each_other() -> None:
    for backend in BACKENDS:
        path = STORE / (backend.rsplit(".", 1)[1] + ".py")
        others = BACKENDS - {backend}
        assert not imported(path, top_level_only=False) & others, backend


def test_the_interface_and_shared_modules_load_no_backend() -> None:
    for name in ("interface", "rows", "migrations", "stats", "ratings"):
        loaded = imported(STORE / f"{name}.py", top_level_only=True)
        assert not loaded & BACKENDS, name
        assert "bot.store" not in loaded, name  # the package's own names come from its parts


def test_no_module_of_the_bot_imports_itself_back_when_it_loads() -> None:
    modules = {module_name(p): p for p in BOT.rglob("*.py")}
    graph = {
        name: {m for m in imported(path, top_level_only=True) if m in modules and m != name}
        for name, path in modules.items()
    }
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        for dep in graph[name]:
            assert dep not in path, " -> ".join([*path[path.index(dep) :], dep])
            if dep not in done:
                visit(dep, [*path, dep])
        done.add(name)

    for name in sorted(graph):
        visit(name, [name])
