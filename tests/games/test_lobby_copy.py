"""A lobby press works on `Lobby.working_copy`, which shares the seats and option values
with the cached lobby: whatever presses do to the copy (join, leave, bots, a new host), the
lobby it was made from stays as it was, so a press that is not saved leaves nothing behind."""

from __future__ import annotations

import contextlib

from hypothesis import given
from hypothesis import strategies as st

from games.errors import GameError
from games.lobby import Lobby, Seat

PRESSES = st.lists(
    st.tuples(st.sampled_from(["join", "leave", "addbot", "dropbot"]), st.integers(1, 5)),
    max_size=12,
)


def lobby() -> Lobby:
    return Lobby(
        starter=1,
        players=[Seat(id=1, name="Ann"), Seat(id=2, name="Ben")],
        max_players=4,
        options={"rules": {"target": 10_000, "flat_kind": [1000, 2000, 3000]}, "language": "de"},
    )


@given(PRESSES)
def test_presses_on_a_working_copy_leave_the_lobby_as_it_was(presses: list[tuple[str, int]]) -> None:
    original = lobby()
    before = original.model_dump()
    work = original.working_copy()
    assert work == original and work.players is not original.players
    assert work.options is not original.options
    for action, user in presses:
        with contextlib.suppress(GameError):
            if action == "join":
                work.join(Seat(id=user, name=f"P{user}"))
            elif action == "leave":
                work.leave(user)
            elif action == "addbot":
                work.add_bot()
            else:
                work.remove_bot()
    work.options["language"] = "fr"
    assert original.model_dump() == before
