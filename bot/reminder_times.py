"""When a long turn's reminders fall due, and when a player's quiet hours end: pure
arithmetic on epoch seconds (no Discord, no database), so it is tested on its own."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

HOUR = 3600.0
#: Turns at least this long are reminded (at half time and an hour before the deadline); a
#: shorter turn runs out before anyone would read a reminder, so it gets none.
LONG_TURN = 2 * HOUR
#: The Remind button shows while more than this is left of the turn: a shorter turn's
#: timer plays it soon enough, and the last hour has its scheduled reminder.
NUDGE_LEFT = HOUR
#: A nudge in a channel at most this often, whichever turn (no ping storm).
NUDGE_EVERY = 15 * 60.0


def schedule(turn_start: float, turn_end: float) -> list[float]:
    """The reminders of a turn, earliest first: at half time and an hour before the
    deadline for a turn of at least `LONG_TURN` (a turn of exactly two hours has one, the
    two fall together); none for a shorter turn."""
    if turn_end - turn_start < LONG_TURN:
        return []
    half = turn_start + (turn_end - turn_start) / 2
    return sorted({half, turn_end - HOUR})


# ----------------------------------------------------------------- quiet hours

_HOURS = re.compile(r"\s*(\d{1,2})(?::(\d{2}))?\s*-\s*(\d{1,2})(?::(\d{2}))?\s*")
_OFFSET = re.compile(r"\s*(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?\s*", re.IGNORECASE)


def parse_hours(text: str) -> tuple[int, int] | None:
    """'22-8' or '22:30-7:15' as (start, end) in minutes of the day; None when it is not
    two times of day, or both are the same."""
    m = _HOURS.fullmatch(text)
    if m is None:
        return None
    h1, m1, h2, m2 = int(m[1]), int(m[2] or 0), int(m[3]), int(m[4] or 0)
    if h1 > 24 or h2 > 24 or m1 > 59 or m2 > 59:
        return None
    start, end = (h1 * 60 + m1) % 1440, (h2 * 60 + m2) % 1440
    return None if start == end else (start, end)


def parse_zone(text: str) -> str | None:
    """A time zone as stored: an IANA name ('Europe/Berlin', 'UTC') as zoneinfo spells it,
    or a fixed offset from UTC ('+2', '-5', '+5:30', 'UTC+2') as '+02:00'; None when it is
    neither (an offset beyond 14 hours, an unknown name)."""
    m = _OFFSET.fullmatch(text)
    if m is not None:
        hours, minutes = int(m[2]), int(m[3] or 0)
        if hours > 14 or minutes > 59 or hours * 60 + minutes > 14 * 60:
            return None
        return f"{m[1]}{hours:02d}:{minutes:02d}"
    name = text.strip()
    if not name or not re.fullmatch(r"[A-Za-z0-9_+\-/]{1,64}", name) or ".." in name:
        return None
    try:
        return ZoneInfo(name).key
    except (ZoneInfoNotFoundError, ValueError):
        return None


def zone_info(zone: str) -> tzinfo:
    """The tzinfo of a stored zone (`parse_zone`); an unreadable one (a zone a later tzdata
    dropped) is UTC."""
    if zone[:1] in "+-":
        sign = -1 if zone[0] == "-" else 1
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        return timezone(sign * timedelta(hours=hours, minutes=minutes))
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


@dataclass(frozen=True)
class Quiet:
    """A player's quiet hours: from `start` to `end` (minutes of the day, `end` may be the
    next day) in their time zone."""

    start: int
    end: int
    zone: str

    def ends(self, at: float) -> float | None:
        """When the quiet hours `at` falls in end (epoch seconds); None when `at` is not in
        them. Wall-clock times in the zone: across a change to or from summer time the
        night is an hour shorter or longer, and an end that does not exist that night (in
        the skipped hour) is the first moment after it."""
        tz = zone_info(self.zone)
        local = datetime.fromtimestamp(at, tz)
        minute = local.hour * 60 + local.minute
        if self.start < self.end:
            inside = self.start <= minute < self.end
            day = local.date()
        else:  # past midnight: 22-8
            inside = minute >= self.start or minute < self.end
            day = local.date() + timedelta(days=1) if minute >= self.start else local.date()
        if not inside:
            return None
        end = _wall(day, self.end, tz)
        return end if end > at else at + 60

    def text(self) -> str:
        """'22:00-08:00 (Europe/Berlin)' as the player reads it back."""
        return f"{_clock(self.start)}-{_clock(self.end)} ({self.zone})"


def _wall(day: date, minutes: int, tz: tzinfo) -> float:
    """The epoch time of a wall-clock time on `day` in `tz` (the earlier of a repeated hour;
    in a skipped hour, the moment the clocks jumped to)."""
    wall = datetime.combine(day, time(minutes // 60, minutes % 60), tzinfo=tz)
    stamp = wall.timestamp()
    # A time in a skipped hour does not survive the round trip: it lies after the jump.
    back = datetime.fromtimestamp(stamp, tz)
    if back.replace(tzinfo=None) != wall.replace(tzinfo=None):
        jumped = datetime.combine(day, time(minutes // 60), tzinfo=tz).timestamp()
        # the top of the skipped hour, counted in the offset before the jump, is the jump
        return min(stamp, jumped)
    return stamp


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
