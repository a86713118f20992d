"""The reminders' arithmetic: the schedule of a turn, quiet hours across midnight and across
changes of summer time, zones given as names or offsets."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.reminder_times import HOUR, LONG_TURN, Quiet, parse_hours, parse_zone, schedule


def at(text: str) -> float:
    """An ISO time with its offset, as epoch seconds."""
    return datetime.fromisoformat(text).timestamp()


def test_a_day_long_turn_is_reminded_at_half_time_and_an_hour_before() -> None:
    start = 1_000_000.0
    assert schedule(start, start + 86400) == [start + 43200, start + 86400 - HOUR]


def test_a_two_hour_turn_is_reminded_once_and_a_shorter_one_never() -> None:
    assert schedule(0.0, LONG_TURN) == [HOUR]
    assert schedule(0.0, LONG_TURN - 1) == []
    assert schedule(0.0, 120.0) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("22-8", (1320, 480)),
        (" 22:30 - 7:15 ", (1350, 435)),
        ("0-6", (0, 360)),
        ("23-24", (1380, 0)),
        ("8-8", None),
        ("25-8", None),
        ("22:75-8", None),
        ("ten to six", None),
        ("", None),
    ],
)
def test_quiet_hours_are_read_as_minutes_of_the_day(
    text: str, expected: tuple[int, int] | None
) -> None:
    assert parse_hours(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Europe/Berlin", "Europe/Berlin"),
        ("America/New_York", "America/New_York"),
        ("UTC", "UTC"),
        ("+2", "+02:00"),
        ("-5", "-05:00"),
        ("+5:30", "+05:30"),
        ("UTC+2", "+02:00"),
        ("+15", None),
        ("Mars/Olympus", None),
        ("../../etc/passwd", None),
        ("", None),
    ],
)
def test_zones_are_names_or_offsets(text: str, expected: str | None) -> None:
    assert parse_zone(text) == expected


def test_quiet_hours_past_midnight_end_the_next_morning() -> None:
    quiet = Quiet(22 * 60, 8 * 60, "Europe/Berlin")  # winter: UTC+1
    assert quiet.ends(at("2026-01-10T23:30+01:00")) == at("2026-01-11T08:00+01:00")
    assert quiet.ends(at("2026-01-11T03:00+01:00")) == at("2026-01-11T08:00+01:00")
    assert quiet.ends(at("2026-01-11T08:00+01:00")) is None
    assert quiet.ends(at("2026-01-11T21:59+01:00")) is None
    assert quiet.ends(at("2026-01-11T22:00+01:00")) == at("2026-01-12T08:00+01:00")


def test_quiet_hours_within_a_day() -> None:
    quiet = Quiet(13 * 60, 15 * 60, "+02:00")
    assert quiet.ends(at("2026-06-01T14:00+02:00")) == at("2026-06-01T15:00+02:00")
    assert quiet.ends(at("2026-06-01T12:59+02:00")) is None
    assert quiet.ends(at("2026-06-01T15:00+02:00")) is None


def test_the_night_summer_time_starts_is_an_hour_shorter() -> None:
    """Europe/Berlin, 29 March 2026: the clocks jump from 2:00 to 3:00. Quiet hours 22-8
    end at 8:00 summer time, 06:00 UTC (07:00 UTC the night before)."""
    quiet = Quiet(22 * 60, 8 * 60, "Europe/Berlin")
    evening = at("2026-03-28T23:00+01:00")
    assert quiet.ends(evening) == datetime(2026, 3, 29, 6, 0, tzinfo=UTC).timestamp()
    assert quiet.ends(at("2026-03-27T23:00+01:00")) == datetime(
        2026, 3, 28, 7, 0, tzinfo=UTC
    ).timestamp()


def test_the_night_summer_time_ends_is_an_hour_longer() -> None:
    """25 October 2026: 3:00 summer time is 2:00 again. 22-8 ends at 08:00 UTC+1."""
    quiet = Quiet(22 * 60, 8 * 60, "Europe/Berlin")
    assert quiet.ends(at("2026-10-24T23:00+02:00")) == at("2026-10-25T08:00+01:00")
    assert quiet.ends(at("2026-10-24T23:00+02:00")) - at("2026-10-24T23:00+02:00") == 10 * HOUR


def test_quiet_hours_ending_in_the_skipped_hour_end_when_the_clocks_jump() -> None:
    quiet = Quiet(23 * 60, 2 * 60 + 30, "Europe/Berlin")
    assert quiet.ends(at("2026-03-29T00:30+01:00")) == at("2026-03-29T03:00+02:00")


def test_offsets_west_of_utc_and_a_reminder_at_their_midnight() -> None:
    quiet = Quiet(22 * 60, 7 * 60, "-05:00")
    assert quiet.ends(at("2026-01-10T04:30+00:00")) == at("2026-01-10T07:00-05:00")
    assert quiet.ends(at("2026-01-10T12:00+00:00")) is None  # 07:00 in New York: awake
    assert quiet.text() == "22:00-07:00 (-05:00)"
