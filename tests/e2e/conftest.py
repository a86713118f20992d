"""End-to-end fixtures: `d` is a Driver for the real bot connected to a fake Discord.

Mark a test `@pytest.mark.e2e(seed=5)` to choose the dice. At teardown the test fails on any
body Discord would refuse and on any warning or error the bot logged, unless the test cleared
`d.fake.violations` / `d.logs.records` itself after checking them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.harness import Driver, running_bot


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e(seed=1): options of the end-to-end bot fixture")


@pytest.fixture
async def d(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Driver]:
    marker = request.node.get_closest_marker("e2e")
    options = dict(marker.kwargs) if marker else {}
    async with running_bot(tmp_path / "e2e.sqlite3", **options) as driver:
        yield driver
    assert driver.problems == [], "\n".join(driver.problems)
