"""End-to-end fixtures: `d` is a Driver for the real bot connected to a fake Discord.

Mark a test `@pytest.mark.e2e(seed=5)` to choose the dice. At teardown the test fails on any
body Discord would refuse and on any warning or error the bot logged, unless the test cleared
`d.fake.violations` / `d.logs.records` itself after checking them; and on any interaction
not answered within Discord's 3 seconds, in every e2e test, with `d` or with its own fakes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.harness import (
    ADMIN,
    GUILD,
    LOUNGE,
    TABLE,
    Driver,
    bury_corpses,
    late_answers,
    running_bot,
)


@pytest.fixture
async def d(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Driver]:
    marker = request.node.get_closest_marker("e2e")
    options = dict(marker.kwargs) if marker else {}
    async with running_bot(tmp_path / "e2e.sqlite3", **options) as driver:
        yield driver
    assert driver.problems == [], "\n".join(driver.problems)
    late = late_answers(driver.fake)
    assert late == [], "\n".join(late)


@pytest.fixture
async def fake(request: pytest.FixtureRequest) -> AsyncIterator[FakeDiscord]:
    """A started fake Discord with the test server (TABLE and LOUNGE), to share between bots
    (a restart); fails at teardown on anything Discord would have refused. Mark a test
    `@pytest.mark.fake(token_lifetime=TOKEN_LIFETIME)` to pass FakeDiscord options."""
    marker = request.node.get_closest_marker("fake")
    fake = FakeDiscord(**(marker.kwargs if marker else {}))
    fake.add_guild(GUILD, "Game night", {TABLE: "games", LOUNGE: "lounge"}, owner_id=ADMIN.id)
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()
    assert fake.violations == [], "\n".join(fake.violations)


@pytest.fixture(autouse=True)
async def _e2e_contracts() -> AsyncIterator[None]:
    """Every e2e test: each interaction any fake saw was answered within 3 s of its
    dispatch; and bots killed by `Driver.crash()` are buried (their SQLite thread stopped)."""
    known = len(FakeDiscord.created)
    try:
        yield
    finally:
        await bury_corpses()
        fakes = FakeDiscord.created[known:]
        del FakeDiscord.created[known:]
    late = [line for f in fakes for line in late_answers(f)]
    assert late == [], "\n".join(late)
