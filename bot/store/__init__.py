"""The store of running sessions, server settings, finished games and the players' stats and
leaderboards drawn from them: one interface (`Store`, `interface.py`) and the rows it reads
and writes (`rows.py`), two backends. SQLite (`sqlite.py`, one file, the default; it reaches
the file through `sqlite_connection.py`) serves one process; PostgreSQL (`postgres.py`,
imported only when a `postgresql://` URL is opened) lets several processes with disjoint
shards share one database. The backends import the interface, never each other.

The schema is versioned with one history of numbered migrations (`migrations.py`) that both
backends apply; `stats.py` holds the stats SQL and arithmetic both share, `ratings.py` the
skill ratings', `seats.py` the index of who sits at which running game. Every write
commits before it returns, so a move the bot has acknowledged survives a crash of the
process."""

from bot.store.interface import RevisionConflict, Shards, Store, is_postgres_url
from bot.store.migrations import MIGRATIONS, Migration, migration_sql, postgres_types
from bot.store.ratings import Rating, Rebuilt
from bot.store.rows import (
    FinishedGame,
    PlayedGame,
    PlayerRating,
    PlayerRecord,
    PlayerRow,
    RatedStanding,
    SessionRow,
    Standing,
    UnseenEnding,
)
from bot.store.seats import Seat, SeatedGame
from bot.store.sqlite import SHOWN_DELAY, SqliteStore
from bot.store.stats import REBUILD_SQL

__all__ = [
    "MIGRATIONS",
    "REBUILD_SQL",
    "SHOWN_DELAY",
    "FinishedGame",
    "Migration",
    "PlayedGame",
    "PlayerRating",
    "PlayerRecord",
    "PlayerRow",
    "RatedStanding",
    "Rating",
    "Rebuilt",
    "RevisionConflict",
    "Seat",
    "SeatedGame",
    "SessionRow",
    "Shards",
    "SqliteStore",
    "Standing",
    "Store",
    "UnseenEnding",
    "is_postgres_url",
    "migration_sql",
    "postgres_types",
]
