"""For every test package: the markers set by where a test is and what it uses, the
hypothesis profiles, and a real PostgreSQL server for the tests that run on both databases
(see tests/postgres.py for how it is found, started and stopped).

Hypothesis profiles: `ci` (derandomized: every run tries the same examples, so a failure in
CI is a failure of the change, not of the day's seed; a failure prints the blob that
reproduces it; no example database) is used when the environment has CI set (`.ci/run`
exports CI=1) or with `--hypothesis-profile=ci`. `dev`, the default, draws new examples on
every run, as many as CI tries, from one seed printed at the end (`--hypothesis-seed=N`
repeats the run's examples): a developer's runs explore further. Neither has a deadline or the too-slow health check:
those measure the machine's load, not the code."""

from __future__ import annotations

import gc
import os
import random
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import hypothesis.core
import pytest
from hypothesis import HealthCheck, settings

from bot import mentions
from bot.tuning import tune_gc
from tests.postgres import (
    PostgresServer,
    create_database,
    drop_schema,
    find_bindir,
    fresh_schema,
    unavailable,
)

_UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", derandomize=True, print_blob=True, database=None, **_UNTIMED)
settings.register_profile("dev", print_blob=True, **_UNTIMED)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

E2E = Path(__file__).resolve().parent / "e2e"


def pytest_configure(config: pytest.Config) -> None:
    """Under `dev`, one seed for the run, drawn here unless --hypothesis-seed gave one, so
    that it can be printed and the run repeated (hypothesis's plugin sets the same switch
    from --hypothesis-seed). With PYTHONDONTWRITEBYTECODE set, the Python processes the
    tests start (bot processes, `python -m bot`, the benchmarks) share one bytecode cache
    in a folder of the run's own instead: each would compile bot/ afresh (0.15 s of CPU)."""
    if config.getoption("--hypothesis-seed") is None and not settings.default.derandomize:
        hypothesis.core.global_force_seed = random.SystemRandom().randrange(10**6)
    tune_gc()  # see pytest_collection_finish
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and "PYTHONPYCACHEPREFIX" not in os.environ:
        del os.environ["PYTHONDONTWRITEBYTECODE"]
        os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="tablebot-pyc-")
        config.add_cleanup(lambda: shutil.rmtree(os.environ.pop("PYTHONPYCACHEPREFIX")))


def pytest_collection_finish(session: pytest.Session) -> None:
    """The test process's garbage collector is tuned as the bot's (bot/tuning.py): a larger
    young generation from the start (pytest_configure), and what collection built (modules,
    test items) frozen out of every full collection. With Python's defaults the collector
    took a tenth of the run's CPU."""
    gc.freeze()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Which hypothesis profile ran, and its seed (above pytest's last line, which CI reads)."""
    profile = settings._current_profile  # chosen by --hypothesis-profile or the environment
    if settings.default.derandomize:
        how = "derandomized: the same examples on every run"
    else:
        seed = hypothesis.core.global_force_seed
        how = f"seed {seed}: --hypothesis-seed={seed} repeats this run's examples"
    terminalreporter.write_line(f"hypothesis profile {profile} ({how})")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`e2e` on every test of tests/e2e/, `postgres` on every test that runs on the
    PostgreSQL server (through its fixture, or a database parameter set to it)."""
    for item in items:
        if E2E in item.path.parents and item.get_closest_marker("e2e") is None:
            item.add_marker(pytest.mark.e2e)
        params = getattr(item, "callspec", None)
        on_postgres = "postgres_server" in getattr(item, "fixturenames", ()) or (
            params is not None and "postgresql" in params.params.values()
        )
        if on_postgres:
            item.add_marker(pytest.mark.postgres)


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
