"""The players' stats as both backends keep them: the SQL that rebuilds the summaries from
`player_stats` (`REBUILD_SQL`, SQLite's dialect: migration 6 and the benchmark run it), and
how one more finished game adds to a player's records (`added_record`) and to the
leaderboards' totals (`leaderboard_rows`), which both backends write.

Where a game counts: a player's records (/stats) are kept per server, games outside any
server together under 0 (`player_records.guild_id`); a leaderboard's totals per
`records.place_of` (`player_totals.guild_id`): the server, or, for a game outside servers,
its channel (a group DM's own board), which `player_stats` gets from the game's
`finished_games` row."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bot.records import ALL_GAMES, RECORDS, counted, merge, period_keys, place_of
from bot.store.rows import PlayerRow

#: The summaries computed afresh from the per-game rows of `player_stats`: migration 6 uses
#: this, and so does the benchmark after a bulk fill. Games count on the leaderboard when
#: they had a winner, no bot seat, and the row is a person's; its periods are those of
#: `records.period_keys`, computed here in SQL, and its place `records.place_of`'s: the
#: server, else the game's channel (looked up only for games outside servers: COALESCE
#: stops at the first value that is not NULL).
PLACE_SQL = (
    "COALESCE(guild_id, (SELECT channel_id FROM finished_games WHERE id = game_id), 0)"
)
_COUNTED = f"SELECT {PLACE_SQL} AS g, {{kind}} AS k, {{period}} AS p, player_id, won"
_COUNTED += " FROM player_stats WHERE abandoned = 0 AND with_bots = 0 AND is_bot = 0"
WEEK_KEY_SQL = "'w' || date(finished_at, 'unixepoch', '-6 days', 'weekday 1')"
MONTH_KEY_SQL = "'m' || strftime('%Y-%m', finished_at, 'unixepoch')"


def _records_sql(kind: str) -> str:
    """A game's records (and dice) over a player's rows, as JSON without the ones never
    counted."""
    parts = "".join(
        f", '{r.key}', {r.aggregate.upper()}(json_extract(stats, '$.{r.key}'))"
        for r in counted(kind)
    )
    return f"json_patch('{{}}', json_object({parts[2:]}))"


REBUILD_SQL = (
    "DELETE FROM player_totals;\n"
    "INSERT INTO player_totals (guild_id, kind, period, player_id, games, wins)"
    " SELECT g, k, p, player_id, COUNT(*), SUM(won) FROM ("
    + " UNION ALL ".join(
        _COUNTED.format(kind=kind, period=period)
        for kind in ("kind", "'*'")
        for period in ("'all'", MONTH_KEY_SQL, WEEK_KEY_SQL)
    )
    + ") GROUP BY g, k, p, player_id;\n"
    "DELETE FROM player_records;\n"
    + "".join(
        "INSERT INTO player_records (guild_id, player_id, kind, games, wins, bot_games,"
        " bot_wins, abandoned, best_score, records) SELECT COALESCE(guild_id, 0), player_id,"
        " kind, SUM(abandoned = 0 AND with_bots = 0), SUM(won AND with_bots = 0),"
        " SUM(abandoned = 0 AND with_bots = 1), SUM(won AND with_bots = 1), SUM(abandoned),"
        f" MAX(score), {_records_sql(kind)} FROM player_stats WHERE kind = '{kind}'"
        " GROUP BY COALESCE(guild_id, 0), player_id;\n"
        for kind in RECORDS
    )
)

def added_record(old: Sequence[Any] | None, row: PlayerRow) -> tuple[Any, ...]:
    """A player's (games, wins, bot_games, bot_wins, abandoned, best_score, records JSON) in
    a game, from `old` (None: their first) and one more game's row: as `REBUILD_SQL` adds
    them up. Both stores write what this returns."""
    games, wins, bot_games, bot_wins, abandoned, best, records = old or (
        0, 0, 0, 0, 0, None, "{}"
    )  # fmt: skip
    finished = not row.abandoned
    scores = [s for s in (best, row.score) if s is not None]
    return (
        games + int(finished and not row.with_bots),
        wins + int(bool(row.won) and not row.with_bots),
        bot_games + int(finished and bool(row.with_bots)),
        bot_wins + int(bool(row.won) and bool(row.with_bots)),
        abandoned + row.abandoned,
        max(scores, default=None),
        json.dumps(merge(row.kind, json.loads(records), json.loads(row.stats))),
    )


def leaderboard_rows(
    rows: Iterable[PlayerRow], channels: Mapping[int, int]
) -> list[tuple[int, str, str, int, int]]:
    """(place, game or ALL_GAMES, period, player, won) to add one game to: only games with a
    winner and no bot seat are on the leaderboards. `channels`: the channel of each game
    (by id) played outside servers, where it counts (`records.place_of`)."""
    return [
        (place_of(row.guild_id, channels.get(row.game_id, 0)), kind, period, row.player_id, row.won)
        for row in rows
        if not row.abandoned and not row.with_bots and not row.is_bot
        for kind in (row.kind, ALL_GAMES)
        for period in period_keys(row.finished_at).values()
    ]

