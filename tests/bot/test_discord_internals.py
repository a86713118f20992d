"""The parts of discord.py the bot reaches without a public API (bot/discord_internals.py) are
all there, in the shape the bot uses: an upgrade that moves one fails here, naming it, rather
than leaving the bot on its slower fallback unnoticed."""

from __future__ import annotations

import re
from pathlib import Path

import discord
import pytest

from bot import discord_internals as internals

ROOT = Path(__file__).resolve().parents[2]


def test_every_internal_the_bot_reaches_is_there_in_its_shape() -> None:
    assert internals.problems() == []
    assert internals.CALLBACK_PARTS


def test_discord_py_is_pinned_to_the_minor_version_the_internals_were_read_from() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    minor = internals.DISCORD_PY_MINOR
    low, high = minor.split(".")
    assert f'"discord.py>={minor},<{low}.{int(high) + 1}"' in pyproject
    assert discord.__version__.startswith(minor + ".")


@pytest.mark.parametrize(
    ("target", "name", "internal"),
    [
        (discord.Client, "_listeners", "Client._listeners"),
        (discord.webhook.async_, "interaction_message_response_params",
         "discord.webhook.async_.interaction_message_response_params"),
        (discord.webhook.async_, "async_context", "discord.webhook.async_.async_context"),
        (discord.Webhook, "from_state", "Webhook.from_state"),
    ],
)
def test_a_moved_internal_is_named(
    monkeypatch: pytest.MonkeyPatch, target: object, name: str, internal: str
) -> None:
    """The check fails, naming the internal, when one is gone."""
    if target is discord.Client:  # an attribute each client sets on itself
        original = discord.Client.__init__

        def without(self: discord.Client, *args: object, **kwargs: object) -> None:
            original(self, *args, **kwargs)  # type: ignore[arg-type]
            del self._listeners

        monkeypatch.setattr(discord.Client, "__init__", without)
    else:
        monkeypatch.delattr(target, name)
    found = internals.problems()
    assert found and any(line.split(": ", 1)[1].startswith(internal) for line in found), found


def test_a_changed_slot_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discord.InteractionResponse, "__slots__", ("_parent",))
    (line,) = internals.problems()
    assert re.search(r"InteractionResponse\._response_type is no slot \(set when", line)


def test_only_the_internals_module_reaches_into_discord_py() -> None:
    """gateway.py, respond.py, reach.py and callback_http.py name no private attribute of discord.py's objects
    themselves: each goes through bot/discord_internals.py, where INTERNALS lists it."""
    private = re.compile(r"\b(?:client|bot|interaction|response|state)\._[a-z]\w*|\"_[a-z]\w*\"")
    for module in ("gateway.py", "respond.py", "reach.py", "callback_http.py"):
        text = (ROOT / "bot" / module).read_text()
        assert private.findall(text) == [], module
