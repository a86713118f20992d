"""Reading and pressing the live table of a game, whatever message holds it now: the table
moves down the channel (posted afresh each turn), so tests find it by its enabled buttons."""

from __future__ import annotations

import json
from typing import Any

from bot.app import default_adapters
from tests.e2e.fake_discord import MESSAGE_COMPONENT, FakeMessage, InteractionRecord
from tests.e2e.harness import TABLE, Driver, FakeUser

ADAPTERS = default_adapters()


def state_of(d: Driver, kind: str) -> Any:
    row = d.stored(TABLE)
    assert row is not None and row["kind"] == kind
    return ADAPTERS[kind].state_model.model_validate(json.loads(row["data"])["state"])


def find_live_table(d: Driver, kind: str) -> FakeMessage | None:
    """The message holding the game's enabled table buttons, or None while there is none (a
    fresh post retires the old table first, then posts the new one)."""
    prefix = f"t:{kind}:"
    for msg in reversed(d.fake.public(TABLE)):
        if any(
            b["custom_id"].startswith(prefix) and not b.get("disabled") for b in msg.buttons()
        ):
            return msg
    return None


def live_table(d: Driver, kind: str) -> FakeMessage:
    """The message holding the game's enabled table buttons: the one players press."""
    msg = find_live_table(d, kind)
    if msg is None:
        raise AssertionError("no live table in the channel")
    return msg


def button(msg: FakeMessage, action: str, arg: str | None = None) -> str:
    for b in msg.buttons():
        parts = b["custom_id"].split(":")
        if parts[2] == action and (arg is None or parts[6:] == [arg]):
            return str(b["custom_id"])
    raise AssertionError(f"no {action} {arg or ''} on {msg.labels()}")


def select_payload(
    d: Driver, user: FakeUser, msg: FakeMessage, prefix: str, values: list[str]
) -> InteractionRecord:
    """The select interaction `user` sends by choosing `values` in `msg`'s select whose
    custom_id starts with `prefix` (built, not sent: for dispatch_all)."""
    comp = next(c for c in msg.all_components() if str(c.get("custom_id", "")).startswith(prefix))
    data = {"custom_id": comp["custom_id"], "component_type": 3, "id": 1, "values": values}
    return d.fake.interaction_payload(MESSAGE_COMPONENT, user, TABLE, data, msg)


async def start(d: Driver, kind: str, players: list[FakeUser], **options: Any) -> None:
    await d.slash(players[0], TABLE, f"{kind} start", **options)
    for p in players[1:]:
        await d.click(p, TABLE, label="Join")
    await d.click(players[0], TABLE, label="Start")
