"""Skill ratings, as both stores keep them: which finished games are rated (`counts`), how
one game moves its players' ratings (`rate`, OpenSkill's Plackett-Luce model, which takes
the whole finishing order, ties included), the replay of every rated game that `python -m
bot ratings rebuild` runs (`replay`), and the SQL both backends share (written with `?`;
PostgreSQL numbers it with `migrations.postgres_params`).

A rating is kept per place (`records.place_of`: a server, or the channel of a game outside
servers), game and season. It is a belief about a player's skill: `mu`, the estimate, and
`sigma`, how unsure it still is; what is ranked is the conservative value `mu - 3 sigma`
(`Rating.shown`, kept in the `shown` column), which starts at 0 and rises as the player
keeps finishing well and the estimate firms up; players see it as `records.rating_points`
(1000 + 20 x that value: a newcomer's 1000).

The incremental update (in the transaction that records the game) and the replay run the
same code on the same float64 values in the same order (the rated games of one place in
the order of their ids, which is the order they were recorded in: PostgreSQL takes the
place's lock, `place_lock`, before the game gets its id), so a rebuild gives exactly the
stored values."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from itertools import groupby
from typing import Any

from openskill.models import PlackettLuce

from bot.records import RATING_SCALE, RATING_START, place_of, rating_points
from bot.store.rows import PLAYER_COLUMNS, FinishedGame, PlayerRating, PlayerRow

#: The model and its parameters, fixed here (OpenSkill's defaults as of 6.x) so that a change
#: of the library's defaults cannot change what the stored ratings mean.
MODEL = PlackettLuce(mu=25.0, sigma=25.0 / 3.0, beta=25.0 / 6.0, kappa=0.0001, tau=25.0 / 300.0)
#: How many sigmas below the estimate the shown rating is.
Z = 3.0


@dataclass(frozen=True)
class Rating:
    """A player's rating in one place, game and season, after their latest rated game."""

    mu: float
    sigma: float
    games: int = 0
    #: How much `shown` moved in their latest game.
    last_change: float = 0.0
    #: The id of that game (0: none yet).
    last_game: int = 0

    @property
    def shown(self) -> float:
        """The conservative value shown and ranked: the skill the player has with
        near-certainty (mu - 3 sigma); 0 for a newcomer."""
        return self.mu - Z * self.sigma


#: Everyone's rating before their first rated game in a place, game and season.
FRESH = Rating(MODEL.mu, MODEL.sigma)

#: A rating's key in the `ratings` table: (place, game, season, player).
Key = tuple[int, str, int, int]


def counts(rows: Sequence[PlayerRow]) -> bool:
    """Whether a finished game is rated: at least two people, nobody a bot (games with bots
    are unrated), finished with a winner (an abandoned game, ended early or by players
    leaving or letting their turns run out, is not), and every finishing place known."""
    return len(rows) >= 2 and all(
        not r.is_bot and not r.with_bots and not r.abandoned and r.position is not None
        for r in rows
    )


def rate(rows: Sequence[PlayerRow], old: Mapping[int, Rating], game_id: int) -> dict[int, Rating]:
    """Every player's rating after a rated game: `old` holds the ratings they had (a player
    missing from it starts at `FRESH`). Players are given to the model in place order, ties
    by player id, so the same game always computes the same values."""
    ordered = sorted(rows, key=lambda r: (r.position, r.player_id))
    before = [old.get(r.player_id, FRESH) for r in ordered]
    after = MODEL.rate(
        [[MODEL.rating(mu=b.mu, sigma=b.sigma)] for b in before],
        ranks=[float(r.position or 0) for r in ordered],
    )
    out: dict[int, Rating] = {}
    for row, was, (now,) in zip(ordered, before, after, strict=True):
        new = Rating(now.mu, now.sigma, was.games + 1, 0.0, game_id)
        out[row.player_id] = replace(new, last_change=new.shown - was.shown)
    return out


def is_rated(game: FinishedGame) -> bool:
    """Whether `game` will be rated once recorded (see `counts`)."""
    return counts(game.player_rows(0, 0.0))


def place_lock(place: int) -> int:
    """The PostgreSQL advisory lock that orders a place's rated games and its seasons: the
    place's id negated, so it never meets the deadline claims' keys (channel ids) or the
    migrations' (positive numbers)."""
    return -place


def in_season(rows: Sequence[PlayerRow], season: int) -> list[PlayerRow]:
    """A rated game's rows marked with the season it counts in."""
    return [r._replace(season=season) for r in rows]


def old_ratings_args(place: int, rows: Sequence[PlayerRow]) -> tuple[object, ...]:
    """The arguments of `old_ratings_sql(len(rows))` for a rated game (season marked)."""
    return (place, rows[0].kind, rows[0].season, *(r.player_id for r in rows))


def updated_ratings(
    place: int, rows: Sequence[PlayerRow], stored: Iterable[Row]
) -> list[tuple[object, ...]]:
    """The `ratings` rows (`UPSERT_SQL`'s values) a rated game writes: its players' rows
    (season marked) and what `old_ratings_sql` read of them."""
    old = {int(r[0]): stored_rating(r[1:]) for r in stored}
    kind, season = rows[0].kind, int(rows[0].season or 0)
    return [
        rating_values((place, kind, season, pid), new)
        for pid, new in rate(rows, old, rows[0].game_id).items()
    ]


# --------------------------------------------------------------------------- replay


@dataclass(frozen=True)
class RatedGame:
    """A recorded rated game, as the rebuild reads it back."""

    game_id: int
    place: int
    kind: str
    season: int
    rows: list[PlayerRow]


#: A database row: its columns are typed by the SQL that reads them (aiosqlite and asyncpg
#: give them untyped).
Row = Sequence[Any]


def rated_games(records: Iterable[Row]) -> Iterator[RatedGame]:
    """The rows of `REPLAY_SQL` (ordered by game, then player) grouped into games."""
    for game_id, group in groupby(records, key=lambda r: r[2]):
        rows = list(group)
        guild_id, channel_id = rows[0][0], rows[0][1]
        players = [PlayerRow(*r[2:]) for r in rows]
        yield RatedGame(
            game_id=int(game_id),
            place=place_of(guild_id, channel_id),
            kind=players[0].kind,
            season=int(players[0].season or 0),
            rows=players,
        )


def replay(games: Iterable[RatedGame]) -> tuple[dict[Key, Rating], int]:
    """Every rating, computed afresh from the rated games in the order they were recorded
    (by id): what the incremental updates stored, game after game; and how many games
    were rated."""
    table: dict[Key, Rating] = {}
    rated = 0
    for game in sorted(games, key=lambda g: g.game_id):
        if not counts(game.rows):
            continue
        rated += 1
        keys, old = _before(table, game)
        for pid, new in rate(game.rows, old, game.game_id).items():
            table[keys[pid]] = new
    return table, rated


def _before(table: Mapping[Key, Rating], game: RatedGame) -> tuple[dict[int, Key], dict[int, Rating]]:
    """The keys of a game's players' ratings, and the ratings `table` holds for them."""
    keys = {r.player_id: (game.place, game.kind, game.season, r.player_id) for r in game.rows}
    return keys, {pid: table[key] for pid, key in keys.items() if key in table}


def changes_in(game_id: int, records: Iterable[Sequence[object]]) -> dict[int, tuple[float, float]]:
    """Each player's shown rating before and after the rated game `game_id`, from
    `PLACE_REPLAY_SQL`'s rows (the rated games of its place, game and season up to it): the
    games before it replayed as the rebuild does, then `rate` on it, as when it was
    recorded, so the numbers are the ones that game moved."""
    games = list(rated_games(records))
    game = next((g for g in games if g.game_id == game_id and counts(g.rows)), None)
    if game is None:
        return {}
    table, _ = replay(g for g in games if g.game_id < game_id)
    _, old = _before(table, game)
    return {
        pid: (old.get(pid, FRESH).shown, new.shown)
        for pid, new in rate(game.rows, old, game_id).items()
    }


@dataclass(frozen=True)
class Rebuilt:
    """What a rebuild found: the rated games replayed, the ratings they give, and how many
    of those differed from the stored ones (or were missing, or stored without a game)."""

    games: int
    ratings: int
    differed: int


def rebuilt(
    stored: Iterable[Row], records: Iterable[Row]
) -> tuple[dict[Key, Rating], Rebuilt]:
    """The ratings replayed from `REPLAY_SQL`'s rows, and how they compare with the stored
    ones (`ALL_RATINGS_SQL`'s rows): equal means every float is the same."""
    old = {(int(r[0]), str(r[1]), int(r[2]), int(r[3])): stored_rating(r[4:]) for r in stored}
    fresh, games = replay(rated_games(records))
    differed = sum(old.get(k) != v for k, v in fresh.items()) + len(old.keys() - fresh.keys())
    return fresh, Rebuilt(games=games, ratings=len(fresh), differed=differed)


def rating_values(key: Key, rating: Rating) -> tuple[object, ...]:
    """A `ratings` row, in `UPSERT_SQL`'s order."""
    return (*key, rating.mu, rating.sigma, rating.shown, rating.games, rating.last_change,
            rating.last_game)  # fmt: skip


def stored_rating(row: Row) -> Rating:
    """A `Rating` from the columns `RATING_COLUMNS` names."""
    mu, sigma, games, change, last = row
    return Rating(float(mu), float(sigma), int(games), float(change), int(last))


# --------------------------------------------------------------------------- SQL

#: The current season of a place: the last one started, or 1 when none was.
SEASON_SQL = "SELECT COALESCE(MAX(season), 1) FROM seasons WHERE place = ?"
#: Start the place's next season (after its current one), returning its number.
NEW_SEASON_SQL = (
    "INSERT INTO seasons (place, season, started_at, started_by)"
    " VALUES (?, (SELECT COALESCE(MAX(season), 1) + 1 FROM seasons WHERE place = ?), ?, ?)"
    " RETURNING season"
)
RATING_COLUMNS = "mu, sigma, games, last_change, last_game"


def old_ratings_sql(players: int) -> str:
    """The stored ratings of `players` players of one place, game and season."""
    return (
        f"SELECT player_id, {RATING_COLUMNS} FROM ratings"
        " WHERE place = ? AND kind = ? AND season = ?"
        f" AND player_id IN ({', '.join('?' * players)})"
    )


UPSERT_SQL = (
    "INSERT INTO ratings (place, kind, season, player_id, mu, sigma, shown, games,"
    " last_change, last_game) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (place, kind, season, player_id) DO UPDATE SET mu = excluded.mu,"
    " sigma = excluded.sigma, shown = excluded.shown, games = excluded.games,"
    " last_change = excluded.last_change, last_game = excluded.last_game"
)
#: Every rated game's player rows with where it was played, in recording order.
REPLAY_SQL = (
    "SELECT f.guild_id, f.channel_id, "
    + ", ".join(f"s.{c}" for c in PLAYER_COLUMNS.split(", "))
    + " FROM player_stats s JOIN finished_games f ON f.id = s.game_id"
    " WHERE s.season IS NOT NULL ORDER BY s.game_id, s.player_id"
)
#: The place, game and season a rated game counted in (no row: it was not rated).
GAME_SEASON_SQL = (
    "SELECT COALESCE(f.guild_id, f.channel_id), s.kind, s.season FROM player_stats s"
    " JOIN finished_games f ON f.id = s.game_id WHERE s.game_id = ? AND s.season IS NOT NULL"
    " LIMIT 1"
)
#: `REPLAY_SQL` for one place (`records.place_of`, in SQL), game and season, up to a game.
PLACE_REPLAY_SQL = REPLAY_SQL.replace(
    " WHERE s.season IS NOT NULL",
    " WHERE s.season = ? AND s.kind = ? AND COALESCE(f.guild_id, f.channel_id) = ?"
    " AND s.game_id <= ?",
)
ALL_RATINGS_SQL = f"SELECT place, kind, season, player_id, {RATING_COLUMNS} FROM ratings"
BOARD_COUNT_SQL = "SELECT COUNT(*) FROM ratings WHERE place = ? AND kind = ? AND season = ?"


def ahead_sql(shown: float) -> tuple[str, float]:
    """How many players rank above a rating `shown` on its board (SQL with the board's
    place, game and season, and the float it returns): those shown higher, as
    `records.rating_points` rounds, so that equal ratings as shown share a place. Shown
    higher than p points means 1000 + 20 v above p + 1/2, that is v above
    (2p + 1 - 2000) / 40 exactly, or on it when half to even rounds it up (p odd); the float
    nearest that bound says whether `>` or `>=` draws that line in floats."""
    p = rating_points(shown)
    bound = Decimal(2 * p + 1 - 2 * RATING_START) / (2 * RATING_SCALE)
    nearest = float(bound)
    inclusive = Decimal(nearest) > bound or (Decimal(nearest) == bound and p % 2 == 1)
    return f"{BOARD_COUNT_SQL} AND shown {'>=' if inclusive else '>'} ?", nearest

BOARD_SQL = (
    "SELECT player_id, shown, games, last_change FROM ratings"
    " WHERE place = ? AND kind = ? AND season = ?"
    " ORDER BY shown DESC, player_id LIMIT ? OFFSET ?"
)


def all_values(table: Mapping[Key, Rating]) -> list[tuple[object, ...]]:
    """Every rating of a rebuild as `UPSERT_SQL`'s values."""
    return [rating_values(key, rating) for key, rating in sorted(table.items())]


def player_ratings(kinds: Sequence[str], rows: Iterable[Sequence[object]]) -> list[PlayerRating]:
    """`player_ratings_sql`'s rows as /stats shows them, in the order of `kinds`."""
    found = {str(r[0]): stored_rating(r[1:]) for r in rows}
    return [
        PlayerRating(kind, found[kind].shown, found[kind].games, found[kind].last_change)
        for kind in kinds
        if kind in found
    ]


def player_ratings_sql(kinds: int) -> str:
    """A player's ratings in one place and season, in the games named."""
    return (
        f"SELECT kind, {RATING_COLUMNS} FROM ratings WHERE place = ? AND season = ?"
        f" AND player_id = ? AND kind IN ({', '.join('?' * kinds)})"
    )
