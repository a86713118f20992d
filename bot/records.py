"""What /stats and /leaderboard count: each game's records (in the words its rules use) and
the calendar periods a leaderboard covers. Shared by the store, which aggregates them, and
the stats cog, which shows them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from typing import Literal

from babel.numbers import format_decimal, format_percent

from bot.i18n import N_, _, current

#: Records a player's game counters add up to (sum) or the best of them (max).
Aggregate = Literal["sum", "max"]


@dataclass(frozen=True)
class Record:
    """One line of a player's stats: `key` in the stored counters, `label` as shown (a
    catalogue key: translate it with `_(record.label)` where it is shown)."""

    key: str
    label: str
    aggregate: Aggregate = "sum"


#: The records of each game, in the order /stats shows them. A game's final score is a
#: column of its own (`score`), shown as `BEST_SCORE` where the game has one worth showing.
RECORDS: dict[str, tuple[Record, ...]] = {
    "farkle": (
        Record("best_turn", N_("Best turn"), "max"),
        Record("farkles", N_("Farkles")),
        # Crappy Malappy's own words: a scoreless throw is a crappy, and one on the first
        # throw of six dice a crappy malappy
        # Translators: Crappy Malappy's jargon: keep it unless your players say otherwise
        Record("crappys", N_("Crappys")),
        Record("malappys", N_("Crappy malappys")),
        Record("hot_dice", N_("Hot dice")),
    ),
    "kuriki": (
        # Translators: a Kuriki is the best roll of the game Kuriki (a proper noun)
        Record("kurikis", N_("Kurikis")),
        Record("pull_lives", N_("Lives taken by pulls")),
        Record("fouls", N_("Fouls")),
        # Translators: "Tarted" is Kuriki's name for the first player out; keep it unless
        # your players know another word
        Record("tarted", N_("Times Tarted")),
    ),
    "crap": (
        Record("best_round", N_("Best scoring round"), "max"),
        Record("sets", N_("Sets scored")),
        Record("bluffs", N_("Successful bluffs")),
        Record("calls", N_("Bluffs called")),
    ),
}


#: Each player's dice, counted as games are played (bot/sealed.py `luck_counts`) for /stats
#: dice: every die they rolled by its face, and in Kuriki every roll under the cup by its
#: two dice, the lower first ("cup_12" is a Kuriki). Kept with the records, summed, never
#: shown as lines.
FACES = tuple(f"die_{face}" for face in range(1, 7))
CUPS = tuple(f"cup_{low}{high}" for low in range(1, 7) for high in range(low, 7))
LUCK: dict[str, tuple[str, ...]] = {"farkle": FACES, "kuriki": FACES + CUPS, "crap": FACES}


def counted(kind: str) -> tuple[Record, ...]:
    """Every counter a game's player keeps: its records, then its dice (summed)."""
    return RECORDS.get(kind, ()) + tuple(Record(key, key) for key in LUCK.get(kind, ()))


def merge(kind: str, old: dict[str, int], new: dict[str, int]) -> dict[str, int]:
    """A player's records after one more game: counts add up, bests keep the higher; a
    counter that is not one of the game's records (or dice) is not kept."""
    out = dict(old)
    for record in counted(kind):
        value = new.get(record.key)
        if value is None:
            continue
        if record.key not in out:
            out[record.key] = value
        elif record.aggregate == "max":
            out[record.key] = max(out[record.key], value)
        else:
            out[record.key] += value
    return out


#: The label of the best final score, for the games whose score is worth a record.
BEST_SCORE: dict[str, str] = {"farkle": N_("Best game score"), "crap": N_("Best game score")}

#: Each game's title with its emoji, as the commands' `game` choices name it (the command
#: tree's translator translates those); text shows `game_title`.
GAME_TITLES: dict[str, str] = {"farkle": "🎲 Farkle", "kuriki": "🥤 Kuriki", "crap": "🃏 CRAP"}
GAME_EMOJIS: dict[str, str] = {"farkle": "🎲", "kuriki": "🥤", "crap": "🃏"}
GAME_NAMES: dict[str, str] = {
    # Translators: the games' names, proper nouns: keep them unless your players know
    # the game by another name
    "farkle": N_("Farkle"),
    "kuriki": N_("Kuriki"),
    "crap": N_("CRAP"),
}


def game_name(kind: str) -> str:
    """A game's name in the current language ("Farkle"), without its emoji."""
    return _(GAME_NAMES[kind]) if kind in GAME_NAMES else kind


def game_title(kind: str) -> str:
    """A game's name with its emoji ("🎲 Farkle"), in the current language."""
    return f"{GAME_EMOJIS[kind]} {game_name(kind)}" if kind in GAME_EMOJIS else kind


def percent(part: float, whole: float) -> str:
    """`part` of `whole` as a whole percentage the current language writes ("38%", "38 %")."""
    return format_percent(part / whole, locale=current().locale)


#: What a rating shows (`rating_points`): everyone starts at `RATING_START`, and each point
#: of the model's conservative skill (mu - 3 sigma, 0 for a newcomer) is `RATING_SCALE` points.
RATING_START = 1000
RATING_SCALE = 20
#: A rating is provisional (it still moves a lot) until this many rated games.
PROVISIONAL_GAMES = 5


def rating_points(value: float) -> int:
    """A rating as shown, from the model's conservative skill `value` (mu - 3 sigma):
    1000 + 20 x value, its exact value rounded half to even (a newcomer's 0 -> 1000, 3.44 ->
    1069). Ratings equal as shown are equal on a leaderboard (they share a place)."""
    with localcontext() as exact:
        exact.prec = 80  # a float's exact value times 20 plus 1000 fits: nothing is rounded
        shown = RATING_START + RATING_SCALE * Decimal(value)
        return int(shown.to_integral_value(ROUND_HALF_EVEN))


def rating_number(value: float) -> str:
    """A rating as shown (`rating_points`), a whole number in the current language ("1069")."""
    return format_decimal(rating_points(value), format="0;-0", locale=current().locale)


def rating_change(before: float, after: float) -> str:
    """How much a shown rating moved from `before` to `after` (the model's values), always
    signed ("+69", "-37"): the difference of the two numbers as shown."""
    moved = rating_points(after) - rating_points(before)
    return format_decimal(moved, format="+0;-0", locale=current().locale)


def place_of(guild_id: int | None, channel_id: int) -> int:
    """Where a finished game counts on leaderboards and ratings: its server, or, for a game
    played outside any server (a DM or group DM, through a user install), that channel, so
    a group DM has a leaderboard of its own members. Snowflakes are unique across Discord,
    so a channel's id never names a server."""
    return guild_id if guild_id is not None else channel_id


#: The `kind` of the leaderboard over every game.
ALL_GAMES = "*"

Period = Literal["week", "month", "all"]
#: Each period in words (catalogue keys: shown with `_(PERIOD_NAMES[period])`).
PERIOD_NAMES: dict[str, str] = {
    "week": N_("this week (since Monday, UTC)"),
    "month": N_("this month (UTC)"),
    "all": N_("all time"),
}

#: Win rates are shown (and compared) only from this many games on.
MIN_GAMES_FOR_RATE = 5


def period_keys(when: float) -> dict[Period, str]:
    """The leaderboard periods a game finished at `when` counts in: its calendar week (keyed
    by its Monday, UTC), its calendar month, and all time. The migration computes the same
    keys in SQL (see `store.WEEK_KEY_SQL`), so both must change together."""
    day = dt.datetime.fromtimestamp(when, dt.UTC).date()
    monday = day - dt.timedelta(days=day.weekday())
    return {"week": f"w{monday.isoformat()}", "month": f"m{day:%Y-%m}", "all": "all"}


def win_rate(games: int, wins: int) -> str:
    """A win rate such as "60%" from `MIN_GAMES_FOR_RATE` games on; "–" before that."""
    if games < MIN_GAMES_FOR_RATE:
        return "–"
    return percent(wins, games)
