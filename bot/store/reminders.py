"""What the store keeps for reminders over long turns (migration 14): each channel's turn
and how far its reminders got (`ReminderRow`), the reminders claimed and not yet known to
be posted (`OutboxRow`), and each player's settings (`RemindPrefs`). The statements are
written once in SQLite's dialect; both backends run them (`Store` in interface.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ReminderRow:
    """A channel's turn as its reminders know it."""

    channel_id: int
    guild_id: int | None
    turn_start: float
    turn_end: float
    #: How many of the turn's scheduled reminders went out or were skipped.
    sent: int
    remind_at: float | None


@dataclass(frozen=True)
class OutboxRow:
    """A reminder claimed (its `data`: bot/reminders.py `Delivery`), not yet known to be
    posted; `nonce` makes posting it again harmless."""

    nonce: str
    channel_id: int
    guild_id: int | None
    data: str
    created_at: float


@dataclass(frozen=True)
class RemindPrefs:
    """A player's reminder settings: direct messages wanted (and whether Discord refused
    the last one: not tried again until they say /remind me on again), quiet hours in
    minutes of the day and the zone they are in (bot/reminder_times.py `Quiet`)."""

    user_id: int
    dm: bool = False
    dm_refused: bool = False
    quiet_from: int | None = None
    quiet_to: int | None = None
    zone: str | None = None


#: A new turn starts its reminders afresh; the same turn saved again (a bystander's vote)
#: keeps how far they got.
SCHEDULE_SQL = (
    "INSERT INTO reminders (channel_id, guild_id, turn_start, turn_end, sent, remind_at)"
    " VALUES (?, ?, ?, ?, 0, ?) ON CONFLICT(channel_id) DO UPDATE SET"
    " guild_id = excluded.guild_id, turn_start = excluded.turn_start,"
    " turn_end = excluded.turn_end, sent = 0, remind_at = excluded.remind_at"
    " WHERE reminders.turn_end <> excluded.turn_end"
)
REMINDER_COLUMNS = "channel_id, guild_id, turn_start, turn_end, sent, remind_at"
#: One reminder of the turn taken (or skipped): only by whoever read it at `sent`.
CLAIM_SQL = (
    "UPDATE reminders SET sent = sent + 1, remind_at = ?"
    " WHERE channel_id = ? AND turn_end = ? AND sent = ?"
)
HOLD_SQL = "UPDATE reminders SET remind_at = ? WHERE channel_id = ? AND turn_end = ? AND sent = ?"
DROP_SQL = "DELETE FROM reminders WHERE channel_id = ? AND turn_end = ?"
#: The turn's one nudge, at most every `NUDGE_EVERY` seconds in the channel; a channel
#: with no row yet (a turn too short for scheduled reminders) gets one.
NUDGE_SQL = (
    "INSERT INTO reminders (channel_id, guild_id, turn_start, turn_end, sent, remind_at,"
    " nudged_turn, nudged_at) VALUES (?, ?, ?, ?, 0, NULL, ?, ?)"
    " ON CONFLICT(channel_id) DO UPDATE SET nudged_turn = excluded.nudged_turn,"
    " nudged_at = excluded.nudged_at"
    " WHERE (reminders.nudged_turn IS NULL OR reminders.nudged_turn <> excluded.nudged_turn)"
    " AND (reminders.nudged_at IS NULL OR reminders.nudged_at <= ?)"
)
OUTBOX_SQL = (
    "INSERT INTO reminder_outbox (nonce, channel_id, guild_id, data, created_at)"
    " VALUES (?, ?, ?, ?, ?) ON CONFLICT(nonce) DO NOTHING"
)
OUTBOX_COLUMNS = "nonce, channel_id, guild_id, data, created_at"
PREFS_COLUMNS = "user_id, dm, dm_refused, quiet_from, quiet_to, zone"
PREFS_SQL = (
    f"INSERT INTO remind_prefs ({PREFS_COLUMNS}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT(user_id) DO UPDATE SET dm = excluded.dm, dm_refused = excluded.dm_refused,"
    " quiet_from = excluded.quiet_from, quiet_to = excluded.quiet_to, zone = excluded.zone,"
    " updated_at = excluded.updated_at"
)


def prefs_of(row: Sequence[Any]) -> RemindPrefs:
    user_id, dm, refused, start, end, zone = row
    return RemindPrefs(
        int(user_id),
        bool(dm),
        bool(refused),
        None if start is None else int(start),
        None if end is None else int(end),
        None if zone is None else str(zone),
    )


class ReminderStore:
    """The reminder statements of `Store`, written once for both backends over the two
    things each provides: `_read` and `_write_if` (statements in one transaction)."""

    #: SQL true for the rows of the guilds this process serves (PostgreSQL's shards).
    _owned_rows: str = "1 = 1"

    async def _read(self, sql: str, args: Sequence[object]) -> list[Sequence[Any]]:
        raise NotImplementedError

    async def _write_if(self, steps: Sequence[tuple[str, Sequence[object]]]) -> bool:
        """Run `steps` in one transaction; each must change a row, else none is kept and
        the answer is False."""
        raise NotImplementedError

    async def schedule_reminders(
        self,
        channel_id: int,
        guild_id: int | None,
        turn_start: float,
        turn_end: float,
        remind_at: float | None,
    ) -> bool:
        """Keep the channel's new turn for its reminders; False when the row already has
        this turn (how far its reminders got is kept)."""
        return await self._write_if(
            [(SCHEDULE_SQL, (channel_id, guild_id, turn_start, turn_end, remind_at))]
        )

    async def reminder(self, channel_id: int) -> ReminderRow | None:
        found = await self._read(
            f"SELECT {REMINDER_COLUMNS} FROM reminders WHERE channel_id = ?", (channel_id,)
        )
        return ReminderRow(*found[0]) if found else None

    async def due_reminders(self, now: float) -> list[ReminderRow]:
        """The reminders due by `now` of this process's guilds, earliest first."""
        found = await self._read(
            f"SELECT {REMINDER_COLUMNS} FROM reminders WHERE remind_at IS NOT NULL"
            f" AND remind_at <= ? AND {self._owned_rows} ORDER BY remind_at",
            (now,),
        )
        return [ReminderRow(*r) for r in found]

    async def next_reminder(self) -> float | None:
        found = await self._read(
            f"SELECT MIN(remind_at) FROM reminders WHERE remind_at IS NOT NULL"
            f" AND {self._owned_rows}",
            (),
        )
        return None if not found or found[0][0] is None else float(found[0][0])

    async def claim_reminder(
        self, row: ReminderRow, next_at: float | None, outbox: OutboxRow | None
    ) -> bool:
        """Take the turn's next reminder (`row.sent` of them were taken) and, in the same
        commit, put what it posts in the outbox (None: it is skipped). False, and nothing
        written, when another process or an earlier wake took it."""
        steps: list[tuple[str, Sequence[object]]] = [
            (CLAIM_SQL, (next_at, row.channel_id, row.turn_end, row.sent))
        ]
        if outbox is not None:
            steps.append((OUTBOX_SQL, _outbox_values(outbox)))
        return await self._write_if(steps)

    async def hold_reminder(self, row: ReminderRow, until: float) -> bool:
        """Put the turn's next reminder off until `until` (quiet hours)."""
        return await self._write_if(
            [(HOLD_SQL, (until, row.channel_id, row.turn_end, row.sent))]
        )

    async def drop_reminders(self, row: ReminderRow) -> None:
        """Forget a turn that is over (the game moved on or ended), unless a new one
        replaced it meanwhile."""
        await self._write_if([(DROP_SQL, (row.channel_id, row.turn_end))])

    async def claim_nudge(
        self,
        channel_id: int,
        guild_id: int | None,
        turn_start: float,
        turn_end: float,
        now: float,
        every: float,
        outbox: OutboxRow,
    ) -> bool:
        """Take the turn's one nudge, if no nudge in the channel was within `every`
        seconds, with its outbox entry in the same commit; False: not now."""
        return await self._write_if(
            [
                (
                    NUDGE_SQL,
                    (channel_id, guild_id, turn_start, turn_end, turn_end, now, now - every),
                ),
                (OUTBOX_SQL, _outbox_values(outbox)),
            ]
        )

    async def outbox(self, created_before: float | None = None) -> list[OutboxRow]:
        """The claimed reminders not known to be posted (of this process's guilds),
        oldest first; with `created_before`, only those claimed before then."""
        where = "" if created_before is None else " AND created_at < ?"
        found = await self._read(
            f"SELECT {OUTBOX_COLUMNS} FROM reminder_outbox WHERE {self._owned_rows}{where}"
            " ORDER BY created_at",
            () if created_before is None else (created_before,),
        )
        return [OutboxRow(*r) for r in found]

    async def posted(self, nonce: str) -> None:
        """The reminder is posted: out of the outbox."""
        await self._write_if([("DELETE FROM reminder_outbox WHERE nonce = ?", (nonce,))])

    async def remind_prefs(self, user_ids: Sequence[int]) -> dict[int, RemindPrefs]:
        """The stored settings of those of `user_ids` who have any."""
        if not user_ids:
            return {}
        marks = ", ".join("?" * len(user_ids))
        found = await self._read(
            f"SELECT {PREFS_COLUMNS} FROM remind_prefs WHERE user_id IN ({marks})",
            tuple(user_ids),
        )
        return {p.user_id: p for p in map(prefs_of, found)}

    async def save_remind_prefs(self, prefs: RemindPrefs, now: float) -> None:
        await self._write_if(
            [
                (
                    PREFS_SQL,
                    (
                        prefs.user_id,
                        int(prefs.dm),
                        int(prefs.dm_refused),
                        prefs.quiet_from,
                        prefs.quiet_to,
                        prefs.zone,
                        now,
                    ),
                )
            ]
        )


def _outbox_values(row: OutboxRow) -> tuple[object, ...]:
    return (row.nonce, row.channel_id, row.guild_id, row.data, row.created_at)
