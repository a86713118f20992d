"""Who sits at which running game (`seats`, migration 15): what `/games` reads to list every
game of a player, in every place, without reading the games themselves.

A seat is a player at a lobby or a started game, with whether the game waits on them and
since when it does (or does not): `Sessions.save` hands the seats of a session to the store
with its row whenever they changed (`SessionRow.seats`), the store writes them in the same
transaction, and every path that removes a session removes its seats. A seat whose waiting
did not change keeps its time, so a restart (which forgets what was written) moves no game
in the list. Both backends run the SQL here (PostgreSQL through `postgres_params`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Seat:
    """A player at a session, as `Sessions.save` computes it from the lobby and the state."""

    player_id: int
    name: str
    #: Whether the game waits on them now (always False in a lobby).
    waiting: bool
    started: bool


@dataclass
class SeatedGame:
    """A running game or lobby of one player, as `/games` lists it."""

    channel_id: int
    guild_id: int | None
    kind: str
    message_id: int | None
    started: bool
    #: Whether the game waits on this player; None: not known yet (a seat the migration
    #: filled in from a game not moved since: the game is read to tell).
    waiting: bool | None
    #: Since when the player's seat waits, or does not (see `Seat`).
    since: float
    #: When the turn runs out (a started game with a timer), or the lobby closes; None: never.
    due: float | None
    #: Who the game waits on: (player id, name, since when), the earliest first.
    waiting_on: list[tuple[int, str, float]] = field(default_factory=list)

    @property
    def waited_since(self) -> float:
        """Since when the game has waited as it does now: on the player, since their seat
        waits; on others, since the earliest of theirs; a lobby, since it changed."""
        if self.waiting or not self.waiting_on:
            return self.since
        return self.waiting_on[0][2]


#: The stored seats of a channel (read before its seats are written again).
SEATS_OF_SQL = "SELECT player_id, waiting, since FROM seats WHERE channel_id = ?"
DROP_SEATS_SQL = "DELETE FROM seats WHERE channel_id = ?"
INSERT_SEAT_SQL = (
    "INSERT INTO seats (player_id, channel_id, name, waiting, since, started)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
#: A player's seats, each with its session and the seats its game waits on (several rows
#: for a game that waits on several players); at most `limit` of them, those waiting on
#: the player first, then the started games, each group the longest waiting first.
PLAYER_SEATS_SQL = """
    SELECT m.channel_id, s.guild_id, s.kind, s.message_id, m.started, m.waiting, m.since,
        s.deadline, s.data, w.player_id, w.name, w.since
    FROM (SELECT channel_id, started, waiting, since FROM seats WHERE player_id = ?
          ORDER BY COALESCE(waiting, 0) DESC, started DESC, since LIMIT ?) m
    JOIN sessions s ON s.channel_id = m.channel_id
    LEFT JOIN seats w ON w.channel_id = m.channel_id AND w.waiting = 1
    ORDER BY m.channel_id, w.since
"""
#: How many running games and lobbies a player sits at.
COUNT_SEATS_SQL = "SELECT COUNT(*) FROM seats WHERE player_id = ?"


def seat_values(
    channel_id: int, seats: Sequence[Seat], stored: Sequence[Sequence[Any]], now: float
) -> list[tuple[object, ...]]:
    """The rows of `INSERT_SEAT_SQL` for a channel's seats now: a seat whose waiting is as
    stored (`SEATS_OF_SQL`) keeps its time, any other takes `now`."""
    before = {int(r[0]): (r[1], float(r[2])) for r in stored}
    rows: list[tuple[object, ...]] = []
    for seat in seats:
        was = before.get(seat.player_id)
        same = was is not None and was[0] is not None and bool(was[0]) == seat.waiting
        since = was[1] if same and was is not None else now
        rows.append(
            (seat.player_id, channel_id, seat.name, int(seat.waiting), since, int(seat.started))
        )
    return rows


def seated_games(rows: Sequence[Sequence[Any]]) -> list[SeatedGame]:
    """`PLAYER_SEATS_SQL`'s rows as one `SeatedGame` each. When the turn runs out is read
    from the session's stored form (its `turn_deadline`); a lobby's is its closing time."""
    games: dict[int, SeatedGame] = {}
    for row in rows:
        channel_id = int(row[0])
        game = games.get(channel_id)
        if game is None:
            started = bool(row[4])
            game = games[channel_id] = SeatedGame(
                channel_id=channel_id,
                guild_id=row[1],
                kind=str(row[2]),
                message_id=row[3],
                started=started,
                waiting=None if row[5] is None else bool(row[5]),
                since=float(row[6]),
                due=_turn_deadline(row[8]) if started else row[7],
            )
        if row[9] is not None:
            game.waiting_on.append((int(row[9]), str(row[10]), float(row[11])))
    return list(games.values())


def _turn_deadline(data: str) -> float | None:
    """The turn deadline a session's stored form keeps (None: no timer, or unreadable)."""
    try:
        due = json.loads(data).get("turn_deadline")
    except (ValueError, AttributeError):
        return None
    return float(due) if type(due) in (int, float) else None


#: Migration 15's table, in SQLite's words (PostgreSQL gets it through `postgres_types`).
SEATS_TABLE = """
    CREATE TABLE seats (
        player_id   INTEGER NOT NULL,
        channel_id  INTEGER NOT NULL,
        name        TEXT    NOT NULL,
        waiting     INTEGER,
        since       REAL    NOT NULL,
        started     INTEGER NOT NULL,
        PRIMARY KEY (player_id, channel_id)
    );
    CREATE INDEX seats_by_channel ON seats(channel_id, waiting);
"""
#: Its rows for the sessions stored before it: the lobby's players (a started game's
#: seats are those that joined it), whether they are waited on not yet known (NULL), since
#: the session's last change. A row whose JSON cannot be read gets none.
SEATS_BACKFILL_SQLITE = """
    INSERT OR IGNORE INTO seats (player_id, channel_id, name, waiting, since, started)
    SELECT json_extract(p.value, '$.id'), s.channel_id, json_extract(p.value, '$.name'), NULL,
        s.updated_at, json_type(s.data, '$.state') IS NOT 'null'
    FROM sessions s, json_each(s.data, '$.lobby.players') p
    WHERE json_valid(s.data) AND json_type(s.data, '$.lobby.players') = 'array'
        AND json_type(p.value, '$.id') = 'integer' AND json_type(p.value, '$.name') = 'text'
"""
#: The same for PostgreSQL, one row at a time: a row that is not JSON is passed over.
SEATS_BACKFILL_POSTGRES = """
    DO $$
    DECLARE
        r RECORD;
        doc JSONB;
    BEGIN
        FOR r IN SELECT channel_id, data, updated_at FROM sessions LOOP
            BEGIN
                doc := r.data::jsonb;
            EXCEPTION WHEN others THEN
                CONTINUE;
            END;
            IF jsonb_typeof(doc -> 'lobby' -> 'players') = 'array' THEN
                INSERT INTO seats (player_id, channel_id, name, waiting, since, started)
                SELECT (p ->> 'id')::bigint, r.channel_id, p ->> 'name', NULL, r.updated_at,
                    CASE WHEN jsonb_typeof(doc -> 'state') IN ('object', 'array') THEN 1
                        ELSE 0 END
                FROM jsonb_array_elements(doc -> 'lobby' -> 'players') p
                WHERE jsonb_typeof(p -> 'id') = 'number' AND jsonb_typeof(p -> 'name') = 'string'
                ON CONFLICT DO NOTHING;
            END IF;
        END LOOP;
    END
    $$
"""
