"""The windows through which the bot shows a table where it is no channel member
(bot/reach.py): how long a token serves, the follow-up budget of a user install, which
windows a channel keeps, and what a restart finds in the session row."""

from __future__ import annotations

import datetime as dt
import json

import discord

from bot.reach import (
    KEPT,
    MARGIN,
    TOKEN_LIFETIME,
    USER_APP_FOLLOWUPS,
    Reach,
    Window,
    refused_token,
)
from bot.sessions import _reach

T0 = 1_800_000_000.0


def snowflake_at(when: float) -> int:
    """The id of a message Discord made at `when`."""
    return discord.utils.time_snowflake(dt.datetime.fromtimestamp(when, dt.UTC))


def test_a_window_serves_until_shortly_before_its_token_expires() -> None:
    w = Window("t", T0, limited=True)
    assert w.open(T0 + TOKEN_LIFETIME - MARGIN - 1)
    assert not w.open(T0 + TOKEN_LIFETIME - MARGIN)
    w.refused = True
    assert not w.open(T0 + 1)


def test_an_unanswered_interaction_lends_its_window_to_nobody() -> None:
    w = Window("t", T0, limited=True, answered=False)
    reach = Reach([w])
    assert reach.poster(T0 + 1) is None
    w.answered = True
    assert reach.poster(T0 + 1) is w


def test_a_user_install_sends_five_follow_ups_then_the_next_window_serves() -> None:
    old, new = Window("old", T0, limited=True), Window("new", T0 + 1, limited=True)
    reach = Reach([old, new])
    for _ in range(USER_APP_FOLLOWUPS):
        assert reach.poster(T0 + 2) is new
        new.posted(None)
    assert reach.poster(T0 + 2) is old
    server = Window("server", T0, limited=False, followups=50)
    assert server.can_post(T0 + 2)  # a server's own install has no such limit


def test_a_channel_keeps_the_newest_windows_and_those_that_made_its_latest_messages() -> None:
    reach = Reach()
    maker = Window("maker", T0, limited=True)
    maker.made(snowflake_at(T0 + 0.5))
    reach.note(maker)
    for i in range(3 * KEPT):
        reach.note(Window(f"w{i}", T0 + 1 + i, limited=True))
    tokens = [w.token for w in reach.windows]
    assert tokens == ["maker", *[f"w{i}" for i in range(2 * KEPT, 3 * KEPT)]]
    # Once its token has expired, the maker is of no use: the next press forgets it.
    reach.note(Window("late", T0 + TOKEN_LIFETIME, limited=True))
    assert "maker" not in [w.token for w in reach.windows]


def test_the_window_that_made_a_message_edits_it_else_every_one_opened_before_it() -> None:
    a, b, c = (Window(n, T0 + i * 10, limited=True) for i, n in enumerate("abc"))
    reach = Reach([a, b, c])
    message = snowflake_at(T0 + 15)  # made after a and b were opened, before c
    assert reach.editors(message, T0 + 30) == [b, a]  # a restart: it is not known which
    a.made(message)
    assert reach.editors(message, T0 + 30) == [a]


def test_the_windows_round_trip_through_the_session_row_and_bad_ones_are_dropped() -> None:
    w = Window("t", T0, limited=True, followups=2, messages=[5, 6])
    stored = json.loads(json.dumps(Reach([w]).as_json()))
    again = _reach(1, stored)
    assert again is not None and again.windows == [w]
    assert _reach(1, None) is None
    broken = _reach(1, [{"token": 5}])
    assert broken is not None and broken.windows == []  # still shown through presses only


class _Answer:
    def __init__(self, status: int) -> None:
        self.status, self.reason = status, "refused"


def test_a_token_is_refused_by_its_expiry_and_a_post_by_the_follow_up_limit() -> None:
    def refusal(status: int, code: int) -> discord.HTTPException:
        return discord.HTTPException(_Answer(status), {"code": code, "message": "refused"})  # type: ignore[arg-type]

    expired, unknown = refusal(401, 50027), refusal(404, 10015)
    over_limit, missing = refusal(400, 50035), refusal(404, 10008)
    assert refused_token(expired) and refused_token(unknown)
    assert refused_token(over_limit, posting=True)
    assert not refused_token(over_limit)  # an edit refused for its body: the window is fine
    assert not refused_token(missing, posting=True)  # a message this token did not make
