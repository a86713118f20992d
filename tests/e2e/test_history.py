"""/history through the real client: a player's games in this server, paged, opened from
the select (result, players, the whole log a page at a time, the story picture) privately,
paged on after a restart, and shared with the channel; a game finished before logs were
kept says so; games of other places are neither listed nor opened, whatever a forged
button says; outside servers the place is the channel."""

from __future__ import annotations

import time
from pathlib import Path

from bot.pictures.story import LineStory, Series
from bot.store import FinishedGame, Store
from tests.e2e.fake_discord import FakeDiscord, FakeMessage, button_row
from tests.e2e.harness import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    LOUNGE,
    TABLE,
    running_bot,
)

OTHER_GUILD = GUILD + 7
NOW = time.time()
#: A long game's log: several pages of Discord's embed.
LONG_LOG = [f"Move {n}: Alice rolls and banks {n * 50} points, a line of the table." for n in range(150)]
STORY = LineStory(
    title="Farkle · Classic",
    x_label="turns played",
    series=[Series(name="Alice", points=[0, 500, 10_050], won=True), Series(name="Bob", points=[0, 300])],
    target=10_000,
    target_label="target 10000",
).model_dump(mode="json")


def game(
    n: int, *, guild: int | None = GUILD, channel: int = TABLE, kind: str = "farkle", **kw: object
) -> FinishedGame:
    """Game `n` between Alice and Bob (Alice wins the even ones), finished n minutes ago."""
    winner = ALICE.id if n % 2 == 0 else BOB.id
    fields: dict[str, object] = {
        "guild_id": guild,
        "channel_id": channel,
        "kind": kind,
        "players": [{"id": ALICE.id, "name": "Alice"}, {"id": BOB.id, "name": "Bob"}],
        "scores": {str(ALICE.id): 100 * n, str(BOB.id): 7},
        "winner_id": winner,
        "rules": {},
        "outcome": f"Game {n}: {'Alice' if winner == ALICE.id else 'Bob'} wins.",
        "started_at": NOW - 60 * n - 600,
        "finished_at": NOW - 60 * n,
        "log": [f"Game {n} starts.", f"Game {n} ends."],
        "story": STORY,
    }
    fields.update(kw)
    return FinishedGame(**fields)  # type: ignore[arg-type]


async def fill(path: Path) -> dict[str, int]:
    """Twelve games here (one long, one from before logs were kept, one of Kuriki with
    Carol), one in another server and one in a DM; their ids by name."""
    store = await Store.open(path)
    ids: dict[str, int] = {}
    try:
        for n in range(12, 0, -1):  # the oldest first, as they finished
            extra: dict[str, object] = {}
            if n == 1:
                extra = {"log": LONG_LOG}
            elif n == 5:
                extra = {"log": None, "story": None}
            elif n == 3:
                extra = {
                    "kind": "kuriki",
                    "players": [
                        {"id": CAROL.id, "name": "Carol"},
                        {"id": ALICE.id, "name": "Alice"},
                        {"id": BOB.id, "name": "Bob"},
                    ],
                    "scores": {str(CAROL.id): 2, str(ALICE.id): 0, str(BOB.id): 0},
                    "winner_id": CAROL.id,
                    "outcome": "Carol wins, the last one standing.",
                }
            ids[str(n)] = await store.finish_session(TABLE, game(n, **extra))
        ids["elsewhere"] = await store.finish_session(
            TABLE + 99, game(0, guild=OTHER_GUILD, channel=TABLE + 99, log=["A secret server."])
        )
        ids["dm"] = await store.finish_session(
            DM_CHANNEL, game(0, guild=None, channel=DM_CHANNEL, log=["Played in a DM."])
        )
    finally:
        await store.close()
    return ids


DM_CHANNEL = 1_100_000_000_000_000_777


def options(message: FakeMessage) -> dict[str, str]:
    """The select's option labels by value."""
    [select] = [c for c in message.all_components() if c.get("type") == 3]
    return {o["value"]: o["label"] for o in select["options"]}


async def test_history_lists_opens_pages_and_shares(tmp_path: Path, fake: FakeDiscord) -> None:
    database = tmp_path / "e2e.sqlite3"
    ids = await fill(database)
    async with running_bot(database, fake=fake) as d:
        listed = await d.slash(ALICE, TABLE, "history")
        assert listed.ephemeral and listed.callback_type == 4
        first = listed.message
        text = first.text()
        assert f"<@{ALICE.id}>'s games here" in text and "Page 1/2 · 12 games" in text
        # The most recent first: game 1 (a win of Bob's), then 2 (Alice's), ...
        assert text.index("**1.**") < text.index("**2.**") < text.index("**10.**")
        assert "**lost** · 100 · with Bob" in text and "**won** · 200 · with Bob" in text
        labels = options(first)
        assert list(labels) == [str(ids[str(n)]) for n in range(1, 11)]
        assert labels[str(ids["1"])].startswith("1. Farkle · lost · ")
        assert labels[str(ids["3"])].startswith("3. Kuriki · lost · ")
        assert str(ids["elsewhere"]) not in labels and str(ids["dm"]) not in labels
        paged = await d.click(ALICE, TABLE, label="Next ▶", message=first)
        assert paged.callback_type == 7 and paged.message is first
        assert "Page 2/2" in first.text() and list(options(first)) == [str(ids["11"]), str(ids["12"])]

        # Open the long game: privately, a page of its log, the picture, Share.
        back = await d.click(ALICE, TABLE, label="◀ Previous", message=first)
        assert back.callback_type == 7 and "Page 1/2" in first.text()
        opened = await d.select(ALICE, TABLE, [str(ids["1"])], message=first)
        assert opened.callback_type == 4 and opened.ephemeral
        view = opened.message
        assert view is not first and "Game 1: Bob wins." in view.text()
        assert LONG_LOG[0] in view.text() and LONG_LOG[-1] not in view.text()
        assert [a["filename"] for a in view.attachments] == ["story.png"]
        assert view.labels() == ["◀ Earlier", "Later ▶", "Share"]
        pages = int(view.text().split("Log page 1/")[1].split()[0])
        assert pages >= 3
        shown = [view.embeds[0]["description"]]
        later = await d.click(ALICE, TABLE, label="Later ▶", message=view)
        assert later.callback_type == 7 and f"Log page 2/{pages}" in view.text()
        shown.append(view.embeds[0]["description"])
        assert [a["filename"] for a in view.attachments] == ["story.png"]  # kept on the edit
        assert d.problems == []

    async with running_bot(database, fake=fake) as d:  # a new process: the same buttons work
        for page in range(3, pages + 1):
            await d.click(ALICE, TABLE, label="Later ▶", message=view)
            assert f"Log page {page}/{pages}" in view.text()
            shown.append(view.embeds[0]["description"])
        assert [b.get("disabled", False) for b in view.buttons()] == [False, True, False]
        assert "\n".join(shown).split("\n") == LONG_LOG  # each line once, in order
        shared = await d.click(ALICE, TABLE, label="Share", message=view)
        assert shared.callback_type == 4 and not shared.ephemeral
        post = shared.message
        assert post.content == f"Shared by <@{ALICE.id}>." and d.notified(post) == set()
        assert LONG_LOG[-1] in post.text() and f"Log page {pages}/{pages}" in post.text()
        assert [a["filename"] for a in post.attachments] == ["story.png"]
        assert post.labels() == ["◀ Earlier", "Later ▶"]  # shared: no Share
        # Anyone may page the shared game; it stays public, without Share.
        earlier = await d.click(BOB, TABLE, label="◀ Earlier", message=post)
        assert earlier.callback_type == 7 and not post.ephemeral
        assert f"Log page {pages - 1}/{pages}" in post.text() and post.labels() == ["◀ Earlier", "Later ▶"]

        # A game from before whole logs were kept: its result and players, and why no log.
        old = await d.select(ALICE, TABLE, [str(ids["5"])], message=first)
        assert "Game 5: Bob wins." in old.text and "log of this game was not kept" in old.text
        assert old.message.attachments == [] and "no picture kept" in old.text
        assert old.message.labels() == ["Share"]

        # Where Discord refuses files (no Attach Files), the game is shown without its picture.
        d.fake.refuse_files = True
        bare = await d.select(ALICE, TABLE, [str(ids["2"])], message=first)
        assert bare.ephemeral and "Game 2: Alice wins." in bare.text
        assert bare.message.attachments == []
        d.fake.refuse_files = False

        # Bob's Kuriki games: the one Carol won, Bob's score there in lives.
        kuriki = await d.slash(BOB, TABLE, "history", player=CAROL, game="kuriki")
        assert "Kuriki" in kuriki.text and "**won** · 2 lives left · with Alice and Bob" in kuriki.text
        opened = await d.select(BOB, TABLE, [str(ids["3"])], message=kuriki.message)
        assert "🏆 Carol · 2 lives left" in opened.text and "Alice · 0 lives left" in opened.text
        nobody = await d.slash(BOB, TABLE, "history", player=CAROL, game="crap")
        assert f"<@{CAROL.id}> has no finished games here yet." in nobody.text
        assert nobody.message.buttons() == []

        # Forged: a game of another server, by the select and by a button; another channel.
        d.fake.add_message(
            TABLE,
            content="Forged",
            components=[
                button_row(
                    ("Later ▶", f"t:hist:game:{TABLE}:0:0:{ids['elsewhere']}"),
                    ("Share", f"t:hist:share:{TABLE}:0:0:{ids['dm']}"),
                    ("Next ▶", f"t:hist:list:{TABLE}:1:0:{ALICE.id}-chess"),
                    ("Next ▶", f"t:hist:list:{TABLE}:5:0:{ALICE.id}-all"),
                    ("Later ▶", f"t:hist:game:{LOUNGE}:0:0:{ids['1']}"),
                )
            ],
        )
        forged = d.fake.messages[TABLE][-1]
        for custom_id, why in (
            (f"t:hist:game:{TABLE}:0:0:{ids['elsewhere']}", "not in the history of this place"),
            (f"t:hist:share:{TABLE}:0:0:{ids['dm']}", "not in the history of this place"),
            (f"t:hist:list:{TABLE}:1:0:{ALICE.id}-chess", "not one I recognise"),
            (f"t:hist:list:{TABLE}:5:0:{ALICE.id}-all", "page is not in this history"),
            (f"t:hist:game:{LOUNGE}:0:0:{ids['1']}", "another channel"),
        ):
            refused = await d.click(ALICE, TABLE, custom_id=custom_id, message=forged)
            assert refused.callback_type == 4 and refused.ephemeral and why in refused.text
        d.fake.add_message(
            TABLE,
            content="Forged select",
            components=[
                {
                    "type": 1,
                    "components": [
                        {
                            "type": 3,
                            "custom_id": f"t:hist:open:{TABLE}:0:0:{ALICE.id}-all",
                            "options": [
                                {"label": "x", "value": str(ids["elsewhere"])},
                                {"label": "y", "value": "²"},
                            ],
                        }
                    ],
                }
            ],
        )
        select = d.fake.messages[TABLE][-1]
        for value in (str(ids["elsewhere"]), "²"):
            refused = await d.select(ALICE, TABLE, [value], message=select)
            assert refused.ephemeral and "not in the history of this place" in refused.text
        assert "A secret server." not in "".join(m.text() for m in d.visible(ALICE, TABLE))
        assert d.problems == []


async def test_outside_servers_the_place_is_the_channel(tmp_path: Path, fake: FakeDiscord) -> None:
    """A DM's history holds the games played in that DM. (The harness registers the
    commands in the test server only, so the list is opened here from a list button.)"""
    database = tmp_path / "e2e.sqlite3"
    ids = await fill(database)
    fake.add_dm(ALICE, fake.bot, channel_id=DM_CHANNEL)
    page = f"t:hist:list:{DM_CHANNEL}:0:0:{ALICE.id}-all"
    forged = f"t:hist:game:{DM_CHANNEL}:0:0:{ids['1']}"
    fake.add_message(DM_CHANNEL, content="Buttons", components=[button_row(("List", page))])
    planted = fake.messages[DM_CHANNEL][-1]
    async with running_bot(database, fake=fake) as d:
        there = await d.click(ALICE, DM_CHANNEL, custom_id=page, message=planted)
        assert there.callback_type == 7 and list(options(planted)) == [str(ids["dm"])]
        assert "Page 1/1 · 1 game" in planted.text()
        opened = await d.select(ALICE, DM_CHANNEL, [str(ids["dm"])], message=planted)
        assert opened.ephemeral and "Played in a DM." in opened.text
        # The server's games are not this place's.
        fake.add_message(
            DM_CHANNEL, content="Forged", components=[button_row(("Later ▶", forged))]
        )
        refused = await d.click(
            ALICE, DM_CHANNEL, custom_id=forged, message=fake.messages[DM_CHANNEL][-1]
        )
        assert refused.ephemeral and "not in the history of this place" in refused.text
        assert d.problems == []
