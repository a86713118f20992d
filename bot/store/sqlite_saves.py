"""How the SQLite store writes the saves made together (its group commit, `SqliteStore.
save_session`), inside one transaction: each session row over the revision before it, the
log lines and what they keep beside the row, and the seats when they changed."""

from __future__ import annotations

import functools
import sqlite3

from bot.store.rows import SessionRow, log_values, session_values
from bot.store.seats import DROP_SEATS_SQL, INSERT_SEAT_SQL, SEATS_OF_SQL, seat_values


def save_rows(
    rows: list[SessionRow], now: float, conn: sqlite3.Connection
) -> set[tuple[int, int]]:
    """Save `rows` (`_write_rows`) and append the log lines and what those written keep
    beside them, and write their seats when they changed (bot/store/seats.py), inside the
    caller's transaction. A new session (revision 1) starts with no log: lines left by a
    game of that channel that was never finished are dropped."""
    written = _write_rows(rows, now, conn)
    for row in rows:
        if (row.channel_id, row.revision) not in written:
            continue
        if row.revision == 1:
            conn.execute("DELETE FROM game_log WHERE channel_id = ?", (row.channel_id,))
        if row.log or row.beside:
            conn.execute(
                "INSERT INTO game_log (channel_id, revision, lines, beside) VALUES (?, ?, ?, ?)",
                (row.channel_id, row.revision, *log_values(row)),
            )
        if row.seats is not None:
            stored = conn.execute(SEATS_OF_SQL, (row.channel_id,)).fetchall()
            conn.execute(DROP_SEATS_SQL, (row.channel_id,))
            conn.executemany(
                INSERT_SEAT_SQL, seat_values(row.channel_id, row.seats, stored, row.seats_at)
            )
    return written


#: At most this many sessions in one transaction (and the UPSERT's 9 values each: SQLite
#: allows 32,766).
SAVE_BATCH = 500

#: A session past its first revision, over the revision before it: the UPSERT's DO UPDATE
#: without the INSERT it tries first, half its time a row (docs/performance.md, "Per click").
_UPDATE_SESSION = (
    "UPDATE sessions SET guild_id = ?, kind = ?, data = ?, revision = ?, deadline = ?,"
    " updated_at = ? WHERE channel_id = ? AND revision = ?"
)


def _write_rows(
    rows: list[SessionRow], now: float, conn: sqlite3.Connection
) -> set[tuple[int, int]]:
    """Write each row only over the revision before it; returns the (channel, revision)
    pairs written. A row past its first revision is one UPDATE; a new session, or a row whose
    UPDATE found nothing to follow (gone, or at another revision), goes through the UPSERT,
    which inserts the one and leaves the other: what the UPSERT alone would have written."""
    written: set[tuple[int, int]] = set()
    rest: list[SessionRow] = []
    for row in rows:
        if row.revision > 1 and conn.execute(
            _UPDATE_SESSION,
            (row.guild_id, row.kind, row.data, row.revision, row.deadline, now, row.channel_id,
             row.revision - 1),
        ).rowcount:  # fmt: skip
            written.add((row.channel_id, row.revision))
        else:
            rest.append(row)
    if rest:
        values = [v for row in rest for v in (*session_values(row), now)]
        written.update(conn.execute(_upsert_sessions(len(rest)), values).fetchall())
    return written


@functools.cache
def _upsert_sessions(count: int) -> str:
    """Insert or update `count` sessions; RETURNING names the (channel, revision) pairs
    written: an update only follows the revision before it."""
    return (
        "INSERT INTO sessions (channel_id, guild_id, kind, data, revision, message_id,"
        " deadline, created_at, updated_at) VALUES "
        + ",".join(["(?,?,?,?,?,?,?,?,?)"] * count)
        + " ON CONFLICT(channel_id) DO UPDATE SET guild_id=excluded.guild_id,"
        " kind=excluded.kind, data=excluded.data, revision=excluded.revision,"
        " deadline=excluded.deadline, updated_at=excluded.updated_at"
        " WHERE sessions.revision = excluded.revision - 1 RETURNING channel_id, revision"
    )
