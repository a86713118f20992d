"""The slash commands as Discord receives them when they sync: every command's payload with
its names, options, choices and descriptions in every language the catalogues give, compared
with tests/bot/command_tree.json. A change there is one every player sees (and one that
makes the bot sync its commands again): the test shows it as a diff to look at. When the
change is meant (a new option, a new translation), write the file again:

    python -m tests.bot.test_command_tree

The file was written before the three game cogs came from one class (bot/cogs/common.py
GameCog), so it holds them as they were when each was written out in full."""

from __future__ import annotations

import asyncio
import difflib
import json
from pathlib import Path
from typing import Any

from bot.app import GameBot, add_cogs
from bot.config import BotConfig
from bot.translator import CatalogueTranslator

SNAPSHOT = Path(__file__).with_name("command_tree.json")


async def _payloads() -> list[dict[str, Any]]:
    bot = GameBot(BotConfig(), sync=False)
    await add_cogs(bot)
    translator = CatalogueTranslator()
    return [await c.get_translated_payload(bot.tree, translator) for c in bot.tree.get_commands()]


def synced_json() -> str:
    """What `tree.sync()` would send, as JSON (the commands in their order, keys sorted)."""
    payloads = asyncio.run(_payloads())
    return json.dumps(payloads, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_synced_commands_are_the_ones_on_file() -> None:
    now, kept = synced_json(), SNAPSHOT.read_text(encoding="utf-8")
    diff = list(difflib.unified_diff(kept.splitlines(), now.splitlines(), "on file", "now", n=2))
    assert not diff, (
        "the synced commands changed (if meant: python -m tests.bot.test_command_tree):\n"
        + "\n".join(diff[:80])
    )


def test_the_file_holds_every_game_group_in_every_language() -> None:
    """The comparison is worth something: the file has the game groups with their shared
    commands, translated."""
    kept = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    groups = {c["name"]: c for c in kept}
    for game in ("farkle", "kuriki", "crap"):
        subcommands = [o["name"] for o in groups[game]["options"]]
        assert subcommands[:5] == ["start", "rules", "status", "leave", "end"]
        status = groups[game]["options"][2]
        assert {"de", "fr", "es-ES", "pt-BR", "pl"} <= status["description_localizations"].keys()
    assert [o["name"] for o in groups["kuriki"]["options"]][5:] == ["foul"]


if __name__ == "__main__":
    SNAPSHOT.write_text(synced_json(), encoding="utf-8")
    print(f"wrote {SNAPSHOT}")
