"""Reading a finished game's history as a player would: `share_whole_log` opens the latest
game of a player's /history and shares it, then pages the shared message to its end, so every
line of the game's log goes out in a public body, where the hidden-information watches
(`tests/e2e/hidden_info.py`) see it."""

from __future__ import annotations

from tests.e2e.fake_discord import FakeUser
from tests.e2e.harness import Driver


async def share_whole_log(d: Driver, user: FakeUser, channel: int) -> list[str]:
    """Open `user`'s most recent game here from /history, share it, and page the shared
    message from its first log page to its last; the log lines shown, in order."""
    listed = await d.slash(user, channel, "history")
    assert listed.ephemeral and listed.message is not None, listed.text
    [select] = [c for c in listed.message.all_components() if c.get("type") == 3]
    latest = select["options"][0]["value"]
    opened = await d.select(user, channel, [latest], message=listed.message)
    assert opened.ephemeral and opened.message is not None, opened.text
    shared = await d.click(user, channel, label="Share", message=opened.message)
    post = shared.message
    assert post is not None and not post.ephemeral, shared.text
    pages = [post.embeds[0]["description"]]
    while any(b["label"] == "Later ▶" and not b.get("disabled") for b in post.buttons()):
        paged = await d.click(user, channel, label="Later ▶", message=post)
        assert paged.callback_type == 7 and not post.ephemeral
        pages.append(post.embeds[0]["description"])
    return "\n".join(pages).split("\n")
