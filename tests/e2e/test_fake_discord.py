"""The fake's own checks: they must catch what Discord refuses, or the e2e suite proves little."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.service import Reply
from tests.e2e.fake_discord import (
    CALLBACK,
    GUILD_COMMANDS,
    SpecValidator,
    button_row,
    command_limits,
    message_limits,
)
from tests.e2e.harness import ALICE, TABLE, running_bot


def row(n: int, prefix: str = "b") -> dict:
    return button_row(*((str(i), f"{prefix}{i}") for i in range(n)))


def test_message_limits() -> None:
    assert (
        message_limits({"content": "x" * 2000, "components": [row(5, f"r{i}") for i in range(5)]})
        == []
    )
    problems = message_limits(
        {
            "content": "x" * 2001,
            "embeds": [{"description": "y" * 4000}, {"description": "z" * 2001}],
            "components": [row(6), *(row(1, f"r{i}") for i in range(5))],
        }
    )
    assert len(problems) == 4, problems
    long_id = {"type": 1, "components": [{"type": 2, "style": 2, "custom_id": "c" * 101}]}
    select = {
        "type": 1,
        "components": [
            {
                "type": 3,
                "custom_id": "s",
                "options": [{"label": str(i), "value": str(i)} for i in range(26)],
            }
        ],
    }
    assert len(message_limits({"components": [long_id, select]})) == 2


def test_command_limits() -> None:
    good = {"name": "farkle-rule", "type": 1, "description": "d", "options": []}
    assert command_limits([good]) == []
    bad = [
        {"name": "Farkle", "type": 1, "description": "d"},
        {"name": "two words", "type": 1, "description": "d"},
        {"name": "x", "type": 1, "description": ""},
        {"name": "y", "type": 1, "description": "d" * 101},
        {
            "name": "z",
            "type": 1,
            "description": "d",
            "options": [{"type": 3, "name": "o", "description": ""}],
        },
    ]
    assert len(command_limits(bad)) == 5
    assert command_limits([{"name": "Show Scores", "type": 3, "description": ""}]) == []


def test_schema_catches_bad_bodies() -> None:
    spec = SpecValidator()
    assert spec.errors("post", CALLBACK, {"type": 4, "data": {"content": "hi", "flags": 64}}) == []
    assert spec.errors("post", CALLBACK, {"type": 7, "data": {"content": 5}})
    assert spec.errors("post", CALLBACK, {"type": 4, "data": {"embeds": [{"title": "t" * 257}]}})
    assert spec.errors("put", GUILD_COMMANDS, [{"description": "no name"}])


async def test_the_harness_fails_on_what_discord_refuses(tmp_path: Path) -> None:
    async with running_bot(tmp_path / "e2e.sqlite3") as d:

        async def too_long(channel_id: int, kind: str) -> Reply:
            return Reply(content="x" * 2001, ephemeral=True)

        d.bot.tables.status = too_long  # type: ignore[method-assign]
        with pytest.raises(AssertionError, match="content is 2001 chars"):
            await d.slash(ALICE, TABLE, "farkle status")
        assert any("content is 2001 chars" in v for v in d.fake.violations)
        # Refused with 400, the bot apologised instead, and logged the error.
        assert "Sorry" in d.latest(ALICE, TABLE).text()
        assert any("Unexpected error" in p for p in d.problems)
