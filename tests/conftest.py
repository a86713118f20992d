"""Fixtures for every test package: a real PostgreSQL server for the tests that run on both
databases (see tests/postgres.py for how it is found, started and stopped)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from bot import mentions
from tests.postgres import (
    PostgresServer,
    create_database,
    drop_schema,
    find_bindir,
    fresh_schema,
    unavailable,
)


@pytest.fixture(autouse=True)
def forget_synced_commands() -> Iterator[None]:
    """A bot that synced its commands teaches the process their ids (`bot.mentions`), and
    every later text would mention them as `</farkle end:id>`: each test starts and ends
    with none known, whatever ran before it."""
    mentions.learn({})
    yield
    mentions.learn({})


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One server for the whole run, stopped (and its folder removed) at the end."""
    bindir = find_bindir()
    if bindir is None:
        unavailable(
            "no server binaries (initdb, pg_ctl, createdb) on PATH, from pg_config, or in "
            "/usr/lib/postgresql/*/bin"
        )
    assert bindir is not None
    server = PostgresServer(bindir)
    try:
        server.start()
        create_database(server)
    except Exception as exc:
        server.stop()
        unavailable(f"the server in {bindir} did not start: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def pg_url(postgres_server: PostgresServer) -> AsyncIterator[str]:
    """A URL of an empty schema of its own (dropped after the test)."""
    name, url = await fresh_schema(postgres_server)
    try:
        yield url
    finally:
        await drop_schema(postgres_server, name)
