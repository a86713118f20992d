"""The 3-second contract every e2e test enforces at teardown must be able to fail."""

from __future__ import annotations

from tests.e2e.fake_discord import APPLICATION_COMMAND, FakeDiscord
from tests.e2e.harness import ACK_LIMIT, ALICE, GUILD, TABLE, late_answers


async def test_late_and_missing_answers_are_reported() -> None:
    fake = FakeDiscord()
    try:
        fake.add_guild(GUILD, "Game night", {TABLE: "games"}, owner_id=ALICE.id)
        on_time, late, never = (
            fake.register(fake.interaction_payload(APPLICATION_COMMAND, ALICE, TABLE, {}))
            for _ in range(3)
        )
        on_time.acked_at = on_time.dispatched_at + 0.01
        late.acked_at = late.dispatched_at + ACK_LIMIT + 0.5
        problems = late_answers(fake)
        assert len(problems) == 2, problems
        assert f"{late.id}" in problems[0] and "after 3.50 s" in problems[0]
        assert f"{never.id}" in problems[1] and "never answered" in problems[1]
    finally:
        FakeDiscord.created.remove(fake)  # checked here: not again by the teardown
