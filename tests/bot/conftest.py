"""Bot-layer fixtures: the real table service on a real database, a seeded RNG and a clock
the tests move by hand. Every test that takes `db_path` or `tables` runs twice: on a SQLite
file and on a real PostgreSQL server (a schema of its own)."""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import default_adapters
from bot.components import Click
from bot.service import Actor, Reply, Tables
from bot.settings import GuildSettings
from bot.store import Shards, SqliteStore, Store
from games.text import line_from_text

GUILD = 1000
CHANNEL = 2000
ALICE = Actor(id=11, name="Alice")
BOB = Actor(id=12, name="Bob")
CAROL = Actor(id=13, name="Carol")
MALLORY = Actor(id=66, name="Mallory")
ADMIN = Actor(id=99, name="Admin", is_admin=True)


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


async def make_tables(
    path: Path | str,
    clock: Clock,
    seed: int = 7,
    *,
    shards: Shards | None = None,
    takeover_after: float = 10.0,
    **settings: object,
) -> Tables:
    store = await Store.open(path, shards=shards, takeover_after=takeover_after)
    return Tables(
        store=store,
        adapters=default_adapters(),
        defaults=GuildSettings(**settings),  # type: ignore[arg-type]
        rng=random.Random(seed),
        clock=clock,
    )


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """The database: a SQLite file, or the URL of a PostgreSQL schema of the test's own."""
    if request.param == "sqlite":
        return tmp_path / "games.sqlite3"
    return str(request.getfixturevalue("pg_url"))


async def run_sql(store: Store, sql: str, *args: object) -> None:
    """Change rows behind the bot's back (as an admin with a SQL shell would), on either
    database: `sql` uses ? placeholders."""
    if isinstance(store, SqliteStore):
        await store.db.execute(sql, args)
        return
    numbers = iter(range(1, len(args) + 1))
    await store.pool.execute(re.sub(r"\?", lambda _: f"${next(numbers)}", sql), *args)  # type: ignore[attr-defined]


async def fetch_sql(store: Store, sql: str, *args: object) -> list[tuple[object, ...]]:
    """Read rows behind the bot's back, on either database (`sql` uses ? placeholders)."""
    if isinstance(store, SqliteStore):
        async with store.db.execute(sql, args) as cur:
            return [tuple(r) for r in await cur.fetchall()]
    numbers = iter(range(1, len(args) + 1))
    rows = await store.pool.fetch(re.sub(r"\?", lambda _: f"${next(numbers)}", sql), *args)  # type: ignore[attr-defined]
    return [tuple(r) for r in rows]


@pytest.fixture
async def tables(db_path: Path, clock: Clock) -> AsyncIterator[Tables]:
    t = await make_tables(db_path, clock)
    yield t
    await t.store.close()


def outcome(record: dict[str, object]) -> str:
    """A finished game's outcome in English (it is stored as a message key with arguments)."""
    return str(line_from_text(str(record["outcome"])))


def check_limits(reply: Reply) -> None:
    """What Discord would reject with a 400: too many rows or items, long ids, big embeds."""
    view = reply.view()
    if view is not None:
        rows = view.to_components()
        assert len(rows) <= 5
        for row in rows:
            assert 1 <= len(row["components"]) <= 5
            for comp in row["components"]:
                assert len(comp["custom_id"]) <= 100
                if comp["type"] == 2:
                    assert 1 <= len(comp["label"]) <= 80
                else:
                    assert len(row["components"]) == 1
                    assert 1 <= len(comp["options"]) <= 25
                    assert len({o["value"] for o in comp["options"]}) == len(comp["options"])
                    assert all(1 <= len(o["label"]) <= 100 for o in comp["options"])
                    assert comp["min_values"] <= comp["max_values"] <= len(comp["options"])
    if reply.embed is not None:
        assert len(reply.embed) <= 6000
        assert len(reply.embed.fields) <= 25
        assert all(len(f.value) <= 1024 for f in reply.embed.fields)
        assert reply.embed.description is None or len(reply.embed.description) <= 4096
    assert reply.content is None or len(reply.content) <= 2000


def buttons(reply: Reply) -> dict[str, tuple[str, bool]]:
    """custom_id -> (label, disabled) of a reply's components."""
    out = {}
    for item in reply.items or []:
        out[item.custom_id] = (item.label, item.disabled)
    return out


def find(reply: Reply, action: str, arg: str | None = None) -> Click:
    for cid in buttons(reply):
        click = Click.parse(cid)
        if click and click.action == action and (arg is None or click.arg == arg):
            return click
    raise AssertionError(f"no {action} button in {list(buttons(reply))}")


async def open_game(tables: Tables, *players: Actor, **options: object) -> Reply:
    """Open a Farkle lobby as the first player, let the others join, and start."""
    first, *rest = players
    reply = await tables.open_lobby(first, GUILD, CHANNEL, "farkle", dict(options))
    await tables.table_posted(CHANNEL, 555)
    for p in rest:
        reply = await tables.click(p, find(reply, "join"), 555)
    return await tables.click(first, find(reply, "start"), 555)
