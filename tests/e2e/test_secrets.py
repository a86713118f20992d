"""The hidden-value check itself: it must be able to fail. A value planted in a public
payload is caught wherever it sits (content, embed, custom_id; interaction answers, message
updates, channel edits, webhook followups), and the same value only in ephemerals is not."""

from __future__ import annotations

import re

import aiohttp
import pytest

from tests.e2e.fake_discord import (
    APPLICATION_COMMAND,
    MESSAGE_COMPONENT,
    FakeDiscord,
    button_row,
)
from tests.e2e.harness import ALICE, MALLORY, TABLE, Driver, FakeUser
from tests.e2e.hidden_info import (
    assert_no_public_secrets,
    private_texts,
    public_leaks,
    watch_public_secrets,
)

PLANTED = "Zed-7f3a9c"  # a display name: the table's log shows player names
ZED = FakeUser(1_100_000_000_000_001_077, PLANTED)


@pytest.mark.e2e(seed=7)  # Zed plays first: the table is posted afresh, calling him
async def test_a_planted_secret_is_caught(d: Driver) -> None:
    await d.slash(ALICE, TABLE, "farkle start", rules="classic", target=1000)
    await d.click(ZED, TABLE, label="Join")
    assert public_leaks(d.fake, [PLANTED]) == []  # the lobby shows mentions, not names

    # Live: the press whose answer shows it fails at once, naming the secret.
    watch = watch_public_secrets(d.fake, [PLANTED])
    with pytest.raises(AssertionError, match=r"secret leaked.*Zed-7f3a9c"):
        # Type 7: the lobby becomes a summary of the last moves ("Seating rolls: ... Zed");
        # the table posted afresh below, as the interaction's follow-up, shows them too.
        await d.click(ALICE, TABLE, label="Start")
    assert len(watch.leaks) == 2, watch.leaks
    assert (
        watch.leaks[0].startswith("POST /api/v10/interactions/") and "/callback" in watch.leaks[0]
    )
    assert watch.leaks[1].startswith("POST /api/v10/webhooks/")
    watch.stop()
    d.fake.violations.clear()  # checked: the teardown would fail on it otherwise

    # A refusal only Mallory sees is private; then Zed leaves in public.
    refused = await d.click(MALLORY, TABLE, label="Roll")
    assert refused.ephemeral and "not in this game" in refused.text
    await d.slash(ZED, TABLE, "farkle leave")  # a private answer, and an edit of the table
    leaks = public_leaks(d.fake, [PLANTED])
    routes = {line.split(" (")[0] for line in leaks}
    assert any(r.startswith("POST /api/v10/interactions/") for r in routes), routes
    assert any(r.startswith("PATCH /api/v10/channels/") for r in routes), routes
    with pytest.raises(AssertionError, match=PLANTED):
        assert_no_public_secrets(d.fake, [PLANTED])

    # Patterns, and custom_ids: any client can read the buttons' ids.
    assert public_leaks(d.fake, [re.compile(r"Seating rolls: .*Zed-")])
    assert public_leaks(d.fake, ["t:farkle:join:"])

    # What only the clicker saw is not a public leak.
    assert any("You are not in this game" in t for t in private_texts(d.fake))
    assert_no_public_secrets(d.fake, ["You are not in this game"])
    with pytest.raises(ValueError):
        public_leaks(d.fake, [""])


async def test_webhook_followups_and_edits_are_classified(fake: FakeDiscord) -> None:
    """What the bot does not do yet but games with hidden cards will: deferred answers,
    followups and webhook edits, public or ephemeral (sent here by hand)."""
    api = fake.api_url
    json = {"Content-Type": "application/json"}

    def interaction() -> tuple[str, str]:
        rec = fake.interaction_payload(APPLICATION_COMMAND, ALICE, TABLE, {"name": "x"})
        fake.register(rec)
        return (
            f"{api}/interactions/{rec.id}/{rec.token}/callback",
            f"{api}/webhooks/{fake.app_id}/{rec.token}",
        )

    async with aiohttp.ClientSession(headers=json) as http:
        callback, hook = interaction()
        # Deferred ephemerally: the first followup fills the private "thinking" message.
        async with http.post(callback, json={"type": 5, "data": {"flags": 64}}) as r:
            assert r.status == 204
        async with http.post(hook + "?wait=true", json={"content": "secret-one"}) as r:
            assert r.status == 200
        async with http.patch(hook + "/messages/@original", json={"content": "secret-two"}) as r:
            assert r.status == 200
        # A second followup without the flag is a new public message.
        async with http.post(hook + "?wait=true", json={"content": "leak-three"}) as r:
            assert r.status == 200

        callback, hook = interaction()
        async with http.post(callback, json={"type": 4, "data": {"content": "hello"}}) as r:
            assert r.status == 204
        async with http.patch(hook + "/messages/@original", json={"content": "leak-four"}) as r:
            assert r.status == 200

        # A button on an ephemeral message: its type 7 update stays private.
        callback, _ = interaction()
        button = button_row(("Peek", "peek"))
        body = {"type": 4, "data": {"content": "yours", "flags": 64, "components": [button]}}
        async with http.post(callback + "?with_response=true", json=body) as r:
            mid = int((await r.json())["resource"]["message"]["id"])
        mine = fake.message(mid)
        assert mine is not None and mine.ephemeral
        data = {"custom_id": "peek", "component_type": 2, "id": 1}
        rec = fake.interaction_payload(MESSAGE_COMPONENT, ALICE, TABLE, data, mine)
        fake.register(rec)
        callback = f"{api}/interactions/{rec.id}/{rec.token}/callback"
        async with http.post(callback, json={"type": 7, "data": {"content": "secret-five"}}) as r:
            assert r.status == 204

    assert_no_public_secrets(fake, ["secret-one", "secret-two", "secret-five"])
    assert {"secret-one", "secret-five"} <= set(private_texts(fake))
    leaks = public_leaks(fake, ["leak-three", "leak-four"])
    assert len(leaks) == 2, leaks
    assert leaks[0].startswith("POST /api/v10/webhooks/") and "leak-three" in leaks[0]
    assert leaks[1].startswith("PATCH /api/v10/webhooks/") and "leak-four" in leaks[1]
    assert fake.violations == []
