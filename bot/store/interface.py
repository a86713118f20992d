"""What the bot needs of its database (`Store`), which guilds a process serves (`Shards`),
and the conflict a shared database reports. `Store.open` picks the backend: a
`postgresql://` URL gives `bot.store.postgres.PostgresStore`, anything else
`bot.store.sqlite.SqliteStore`; each backend imports this module, never the other."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bot.store.ratings as ratings
import bot.store.seats as seats
from bot.store.ratings import Rebuilt
from bot.store.reminders import ReminderStore
from bot.store.rows import (
    FinishedGame,
    PlayedGame,
    PlayerRating,
    PlayerRecord,
    RatedStanding,
    SessionRow,
    Standing,
    UnseenEnding,
)
from bot.store.seats import SeatedGame


def is_postgres_url(database: str | Path) -> bool:
    return str(database).startswith(("postgresql://", "postgres://"))


@dataclass(frozen=True)
class Shards:
    """Which guilds a process serves: those of its shard ids, as Discord assigns them
    ((guild_id >> 22) % count; direct messages are shard 0's; see `postgres.owned_filter`)."""

    count: int
    ids: tuple[int, ...]

    def serves(self, guild_id: int | None) -> bool:
        return ((guild_id or 0) >> 22) % self.count in self.ids



class Store(ReminderStore, ABC):
    """What the bot needs of its database. Open one with `await Store.open(database)`: a
    `postgresql://` URL gives the shared PostgreSQL store, anything else is a SQLite file."""

    #: The longest the turn timers may sleep: a shared database learns of other processes'
    #: deadlines only by looking.
    max_sleep: float = 30.0

    def serves(self, guild_id: int | None) -> bool:
        """Whether this process serves the guild (its shards'), rather than only filling in
        for a dead process whose deadlines it took over: what it reads of another's guild
        may change there, so it is not kept. One process on SQLite serves every guild."""
        return True

    @classmethod
    async def open(
        cls, database: Path | str, *, shards: Shards | None = None, takeover_after: float = 10.0
    ) -> Store:
        """`shards` and `takeover_after` matter only to a shared (PostgreSQL) database.
        A database that cannot be opened (a server that is down, a wrong password, a SQLite
        path that is a folder) raises DatabaseUnavailable, saying so in words."""
        from bot.database_errors import unavailable

        try:
            if is_postgres_url(database):
                from bot.store.postgres import PostgresStore  # asyncpg only when asked for

                return await PostgresStore.open_url(
                    str(database), shards=shards, takeover_after=takeover_after
                )
            from bot.store.sqlite import SqliteStore

            return await SqliteStore.open_file(database)
        except Exception as exc:
            problem = unavailable(database, exc)
            if problem is None:
                raise
            raise problem from exc

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def schema_version(self) -> int: ...

    @abstractmethod
    async def load_session(self, channel_id: int) -> SessionRow | None:
        """The stored session, with what its moves stored beside it (`SessionRow.beside`),
        read together; None when the channel has none."""

    @abstractmethod
    async def save_session(self, row: SessionRow) -> bool:
        """Insert a new session (revision 1) or store the next revision of one; False, and
        nothing written, when the stored revision is not the one before `row`'s (another
        process moved first). The row's `log` lines and what it keeps `beside` are appended to
        the game's log in the same commit: a move, its lines and its draws are all kept, or
        none."""

    @abstractmethod
    async def note_session(self, channel_id: int, revision: int, data: str) -> bool:
        """Rewrite the stored form of revision `revision` of a session (what it keeps beside
        the game, no move); False, and nothing written, when the row is at another revision."""

    @abstractmethod
    async def table_shown(
        self,
        channel_id: int,
        message_id: int,
        revision: int,
        *,
        created_at: float,
        defer: bool = False,
    ) -> None:
        """The table message now in the channel and the revision it shows, for the session
        created at `created_at`: a mark of an earlier game of the channel (shown as the next
        one was opened) writes nothing. `defer` (the same message, edited) lets a backend
        write the mark a moment later with others: a mark lost in a crash only makes the
        restarted bot redraw that table once."""

    @abstractmethod
    async def behind_sessions(self) -> list[int]:
        """Channels of this process's servers whose table shows an older state than stored."""

    @abstractmethod
    async def clear_deadline(self, channel_id: int) -> None: ...

    @abstractmethod
    async def set_aside(self, channel_id: int, reason: str, cleared_by: int | None) -> None: ...

    @abstractmethod
    async def damaged_sessions(self) -> list[dict[str, object]]: ...

    @abstractmethod
    async def delete_session(self, channel_id: int) -> None:
        """Drop the session and its log (both in one commit)."""

    @abstractmethod
    async def game_log(self, channel_id: int) -> list[str]:
        """The log lines stored so far of the channel's running game, oldest first."""

    @abstractmethod
    async def finish_session(
        self, channel_id: int, game: FinishedGame, revision: int | None = None
    ) -> int:
        """Record a finished game and drop its session in one transaction; returns the id.
        The game keeps its whole log: the lines stored with its moves, then `game.log`
        (None: no log). With `revision`, raises RevisionConflict (and writes nothing) when
        the stored session is at another revision. The channel's earlier games are no
        longer unseen (see `unseen_ending`): only its latest can be."""

    @abstractmethod
    async def unseen_ending(self, channel_id: int) -> UnseenEnding | None:
        """The channel's latest finished game if its final table was never shown (it
        ended where the bot is no member, with no interaction open to show it), or None."""

    @abstractmethod
    async def ending_shown(self, game_id: int) -> None:
        """The finished game's final table is in its channel now: it is no longer unseen."""

    @abstractmethod
    async def due_sessions(self, now: float) -> list[int]:
        """Sessions whose deadline passed that this process should play, earliest first."""

    @abstractmethod
    async def next_deadline(self) -> float | None:
        """When `due_sessions` will next return something (as far as known now)."""

    async def claim(self, channel_id: int) -> bool:
        """Take the right to play a due deadline; False when another process holds it. One
        process per database needs no claim."""
        return True

    async def release(self, channel_id: int) -> None:  # nothing to give back
        """Give back a claim taken with `claim`."""

    @abstractmethod
    async def count_sessions(self) -> int: ...

    async def player_seats(self, player_id: int, limit: int) -> tuple[int, list[SeatedGame]]:
        """How many running games and lobbies the player sits at, in every place, and `limit`
        of them, each with whom it waits on (bot/store/seats.py): those waiting on the
        player first, then the started games, each group the longest waiting first."""
        counted = await self._read(seats.COUNT_SEATS_SQL, (player_id,))
        rows = await self._read(seats.PLAYER_SEATS_SQL, (player_id, limit))
        return int(counted[0][0]) if counted else 0, seats.seated_games(rows)

    @abstractmethod
    async def load_settings(self, guild_id: int) -> str | None: ...

    @abstractmethod
    async def save_settings(self, guild_id: int, data: str) -> None: ...

    @abstractmethod
    async def finished_games(self, channel_id: int | None = None) -> list[dict[str, object]]: ...

    @abstractmethod
    async def finished_game(self, game_id: int) -> dict[str, object] | None:
        """One finished game by its id (as `finished_games` gives it), or None."""

    async def latest_game(self, guild_id: int | None, channel_id: int) -> int | None:
        """The number of the channel's most recently finished game, or None. It reads the
        server's games newest first (`finished_by_guild`) until one of the channel's."""
        where = "guild_id IS NULL" if guild_id is None else "guild_id = ?"
        args = (channel_id,) if guild_id is None else (guild_id, channel_id)
        found = await self._read(
            f"SELECT id FROM finished_games WHERE {where} AND channel_id = ?"
            " ORDER BY finished_at DESC, id DESC LIMIT 1",
            args,
        )
        return int(found[0][0]) if found else None

    @abstractmethod
    async def player_games(
        self, place: int, player_id: int, kind: str | None, offset: int, limit: int
    ) -> tuple[int, list[PlayedGame]]:
        """How many finished games the player sat at in `place` (`records.place_of`: a
        server, or a channel outside servers), of one game or all (`kind` None), and
        `limit` of them from `offset`, the most recent first."""

    @abstractmethod
    async def player_records(
        self, guild_id: int | None, player_id: int, kinds: Iterable[str]
    ) -> list[PlayerRecord]:
        """A player's figures in this server (None: outside servers, all such games
        together), one per game of `kinds` they have played."""

    @abstractmethod
    async def leaderboard(
        self, place: int, kind: str, period: str, offset: int, limit: int
    ) -> tuple[int, list[Standing]]:
        """How many players a leaderboard has, and `limit` of them from `offset`: most wins
        first, then fewer games (the better rate), then the earlier player id; players with
        as many wins in as many games share a place (`rows.places`). `place` is
        `records.place_of` (a server, or the channel of games outside servers); `kind` a
        game or `ALL_GAMES`; `period` a key of `records.period_keys`."""


    # Ratings (bot/store/ratings.py). A place is `records.place_of`: a server, or the
    # channel of a game outside servers.

    @abstractmethod
    async def current_season(self, place: int) -> int:
        """The place's rating season: 1 until an admin starts another."""

    @abstractmethod
    async def start_season(self, place: int, started_by: int | None, now: float) -> int:
        """Start the place's next rating season (everyone starts afresh in it; the earlier
        seasons' ratings are kept); returns its number."""

    @abstractmethod
    async def rating_board(
        self, place: int, kind: str, season: int, offset: int, limit: int
    ) -> tuple[int, list[RatedStanding]]:
        """How many players have a rating in a place, game and season, and `limit` of them
        from `offset`: the highest shown rating first, then the earlier player id; ratings
        equal as shown (`records.rating_points`) share a place."""

    @abstractmethod
    async def player_ratings(
        self, place: int, player_id: int, kinds: Iterable[str], season: int
    ) -> list[PlayerRating]:
        """A player's ratings in a place and season, one per game of `kinds` rated there."""

    async def rating_changes(self, game_id: int) -> dict[int, tuple[float, float]]:
        """Each player's shown rating before and after the finished game `game_id` (empty:
        not rated), replayed from the rated games of its place, game and season up to it."""
        found = await self._read(ratings.GAME_SEASON_SQL, (game_id,))
        if not found:
            return {}
        place, kind, season = found[0]
        records = await self._read(ratings.PLACE_REPLAY_SQL, (season, kind, place, game_id))
        return ratings.changes_in(game_id, records)

    @abstractmethod
    async def _read(self, sql: str, args: Sequence[object]) -> list[Sequence[Any]]:
        """The rows of a read written in SQLite's dialect (`?` placeholders)."""

    @abstractmethod
    async def rebuild_ratings(self, *, write: bool = True) -> Rebuilt:
        """Compute every rating afresh from the rated games and (with `write`) store them
        in place of the ones kept; says how many differed from those."""


class RevisionConflict(Exception):
    """Another process changed the session first: nothing was written."""


