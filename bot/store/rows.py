"""What the store reads and writes: a running session's row, a finished game and its
players' rows, a player's figures and a leaderboard line; and the finished-games and
sessions columns in the order both backends write them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from bot.json_text import compact
from bot.records import LUCK
from bot.store.packed import pack, stored_value
from bot.store.seats import Seat

#: A log line as it is stored (JSON): a message's dict (games/text.py `line_json`), or text.
LogLine = dict[str, object] | str


@dataclass
class SessionRow:
    """A running session as stored: the game's JSON plus what the adapter needs around it."""

    channel_id: int
    guild_id: int | None
    kind: str
    data: str
    revision: int
    message_id: int | None
    deadline: float | None
    created_at: float
    shown_revision: int = 0
    #: The log lines this revision adds to the game's whole log (`save_session` appends
    #: them in the same commit; nothing is read back into this field).
    log: list[LogLine] = field(default_factory=list, kw_only=True)
    #: What the game keeps beside the row, growing with every move (the records of its
    #: sealed draws, a score history: see `bot.session_json.beside_json`), as JSON objects:
    #: written, the one this revision adds (`save_session` appends it with the log lines);
    #: read (`load_session`), every one stored so far, oldest first.
    beside: list[str] = field(default_factory=list, kw_only=True)
    #: Written: who sits at the session now, when that changed since it was last written
    #: (`save_session` writes them in the same commit, a seat's waiting changed at
    #: `seats_at`); None: as stored (see bot/store/seats.py). Never read back.
    seats: list[Seat] | None = field(default=None, kw_only=True)
    seats_at: float = field(default=0.0, kw_only=True)


@dataclass
class FinishedGame:
    """What the finished-games table keeps of a game."""

    guild_id: int | None
    channel_id: int
    kind: str
    players: list[dict[str, object]]
    scores: dict[str, int]
    winner_id: int | None
    rules: dict[str, object]
    outcome: str
    started_at: float
    lobby: dict[str, object] | None = None
    #: Each player's counters for /stats (see `records.RECORDS`), by player id as text.
    stats: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Everyone who won when that can be several (a tie); empty: `winner_id` alone.
    winners: list[int] = field(default_factory=list)
    #: The seats that were bot players.
    bots: list[int] = field(default_factory=list)
    #: The persons a bot played for while they were away (bot/away.py): the game is
    #: counted with the games with bots, unrated.
    stand_ins: list[int] = field(default_factory=list)
    #: When it ended; None: now (tests and the benchmark give their own).
    finished_at: float | None = None
    #: Each player's finishing place by player id as text (1 first, ties share a place;
    #: `Outcome.places`); empty: not known, and the game is not rated.
    places: dict[str, int] = field(default_factory=dict)
    #: Its sealed draws, the seed revealed (bot/sealed.py `dice_record`); None: not sealed.
    dice: dict[str, object] | None = None
    #: The log lines of its last move, not yet stored: `finish_session` keeps them after
    #: the lines stored with the game's earlier moves. None: the game keeps no log.
    log: list[LogLine] | None = None
    #: What its story picture draws (`bot.pictures.story`), to draw it again later.
    story: dict[str, object] | None = None
    #: Where the bot is no member of the channel: the finished session as stored (see
    #: `bot.session_json.ending_json`), kept until its final table is shown
    #: (`Store.unseen_ending`, `Store.ending_shown`). None elsewhere.
    unseen: str | None = None

    def player_rows(self, game_id: int, finished_at: float) -> list[PlayerRow]:
        """The game's `player_stats` rows. A game with no winner was abandoned (players
        left, or it was ended early); a game with a bot seat, or where a bot played for an
        away player, is counted apart."""
        winners = set(self.winners) or ({self.winner_id} if self.winner_id is not None else set())
        abandoned = self.winner_id is None
        return [
            PlayerRow(
                game_id=game_id,
                player_id=pid,
                guild_id=self.guild_id,
                kind=self.kind,
                won=int(not abandoned and pid in winners),
                score=self.scores.get(str(pid)),
                is_bot=int(pid in self.bots),
                with_bots=int(bool(self.bots or self.stand_ins)),
                abandoned=int(abandoned),
                finished_at=finished_at,
                stats=json.dumps(self.stats.get(str(pid), {})),
                position=self.places.get(str(pid)),
            )
            for pid in dict.fromkeys(int(p["id"]) for p in self.players)  # type: ignore[call-overload]  # an Outcome.players id: an int
        ]


class PlayerRow(NamedTuple):
    """One player's row of one finished game in `player_stats` (in its column order)."""

    game_id: int
    player_id: int
    guild_id: int | None
    kind: str
    won: int
    score: int | None
    is_bot: int
    with_bots: int
    abandoned: int
    finished_at: float
    stats: str
    #: Their finishing place (1 first, ties share one); None in games recorded before
    #: places were kept.
    position: int | None = None
    #: The rating season of the place the game counted in; None: the game is not rated
    #: (see `ratings.counts`).
    season: int | None = None


#: `player_stats`' columns in `PlayerRow`'s order (both stores insert them so).
PLAYER_COLUMNS = ", ".join(PlayerRow._fields)


@dataclass
class PlayerRecord:
    """A player's figures in one game, as /stats shows them: games among people with a
    winner, those against bots and the abandoned ones apart, and the records."""

    kind: str
    games: int
    wins: int
    bot_games: int
    bot_wins: int
    abandoned: int
    best_score: int | None
    records: dict[str, int]
    #: The dice they rolled (`records.LUCK`), kept with the records: moved here from them.
    luck: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for key in LUCK.get(self.kind, ()):
            if key in self.records:
                self.luck[key] = self.records.pop(key)

    @classmethod
    def stored(cls, figures: Sequence[Any], records: dict[str, int]) -> PlayerRecord:
        """A record from its stored columns, `kind` to `best_score` in order, and its
        records (decoded)."""
        kind, games, wins, bot_games, bot_wins, abandoned, best_score = figures
        return cls(kind, games, wins, bot_games, bot_wins, abandoned, best_score, records)


def places(keys: Sequence[object], offset: int, ahead: int) -> list[int]:
    """The places of a leaderboard page's rows, best first, as standard competition ranking
    numbers them (1, 2, 2, 4): `keys` is what the board ranks each row by (equal keys tie),
    `offset` how many rows come before the page, `ahead` how many of them rank above its
    first row (fewer than `offset` when a tie runs over the page's top)."""
    out: list[int] = []
    for i, key in enumerate(keys):
        out.append(ahead + 1 if i == 0 else out[-1] if key == keys[i - 1] else offset + i + 1)
    return out


#: How many players rank above wins `?` and games `?` on a board by wins (more wins, or as
#: many in fewer games), with the board's place, game and period.
WINS_AHEAD_SQL = (
    "SELECT COUNT(*) FROM player_totals WHERE guild_id = ? AND kind = ? AND period = ?"
    " AND (wins > ? OR (wins = ? AND games < ?))"
)


@dataclass
class Standing:
    """One line of a leaderboard: `rank` its place, shared with those who tie."""

    rank: int
    player_id: int
    games: int
    wins: int


@dataclass
class RatedStanding:
    """One line of a leaderboard by rating (see `store.ratings`): `rank` its place, shared
    with those whose rating is the same as shown (`records.rating_points`)."""

    rank: int
    player_id: int
    rating: float
    games: int
    last_change: float


@dataclass
class PlayerRating:
    """A player's rating in one game, as /stats shows it: the shown value, how many rated
    games it comes from, and how much it moved in the last of them."""

    kind: str
    rating: float
    games: int
    last_change: float


def log_values(row: SessionRow) -> tuple[str, str | None]:
    """The `game_log` values (lines, beside) of a saved revision: the log lines it adds, as
    JSON, and what it adds beside the row, or None."""
    if len(row.beside) > 1:
        raise ValueError("a saved revision adds one value beside its row")
    return compact(row.log), row.beside[0] if row.beside else None


def session_values(row: SessionRow) -> tuple[object, ...]:
    """A session's stored columns, in both stores' INSERT order (updated_at comes after)."""
    return (
        row.channel_id,
        row.guild_id,
        row.kind,
        row.data,
        row.revision,
        row.message_id,
        row.deadline,
        row.created_at,
    )


#: The columns `finish_session` writes, in the order of `finished_values` (both backends
#: take their placeholders from this list: a new column is added here and there only).
FINISHED_INSERT = (
    "guild_id, channel_id, kind, players, scores, winner_id, rules, outcome, started_at,"
    " finished_at, lobby, bots"
    ", dice_packed, log_packed, story, unseen"
)


def finished_values(
    game: FinishedGame, finished_at: float, log: list[LogLine] | None
) -> tuple[object, ...]:
    """A finished game as the row `finish_session` inserts (JSON columns encoded, its
    sealed draws and its whole log packed: `bot.store.packed`), with its whole log (None:
    not kept)."""
    return (
        game.guild_id,
        game.channel_id,
        game.kind,
        json.dumps(game.players),
        json.dumps(game.scores),
        game.winner_id,
        json.dumps(game.rules),
        game.outcome,
        game.started_at,
        finished_at,
        None if game.lobby is None else json.dumps(game.lobby),
        json.dumps(game.bots),
        pack(None if game.dice is None else json.dumps(game.dice, separators=(",", ":"))),
        pack(None if log is None else json.dumps(log, separators=(",", ":"))),
        None if game.story is None else json.dumps(game.story),
        game.unseen,
    )


FINISHED_COLUMNS = (
    "id, guild_id, channel_id, kind, players, scores, winner_id, rules, outcome,"
    " started_at, finished_at, lobby, bots"
    ", dice, log, story, dice_packed, log_packed"
)


def finished_record(cols: list[str], row: Iterable[object]) -> dict[str, object]:
    """A finished_games row as a dict, its JSON columns decoded (`lobby`, `dice`, `log` and
    `story` may be None: older games kept none). `dice` and `log` are read from their packed
    columns, or the text of a row recorded before those (`packed.stored_value`); either is
    an `Unreadable` when damaged."""
    rec = dict(zip(cols, row, strict=True))
    for key in ("players", "scores", "rules", "lobby", "bots", "story"):
        if rec[key] is not None:
            rec[key] = json.loads(rec[key])  # type: ignore[arg-type]  # a JSON column: its text
    for key in ("dice", "log"):
        packed = rec.pop(f"{key}_packed")
        rec[key] = stored_value(rec["id"], key, rec[key], packed)  # type: ignore[arg-type]  # a JSON column: its text
    return rec


@dataclass
class UnseenEnding:
    """A finished game whose final table nobody has seen yet (`FinishedGame.unseen`)."""

    game_id: int
    channel_id: int
    guild_id: int | None
    kind: str
    started_at: float
    unseen: str


#: What `unseen_ending` reads, in `UnseenEnding`'s order; the channel's latest game only
#: (a game's record clears the `unseen` of the games before it in its channel).
UNSEEN_SQL = (
    "SELECT id, channel_id, guild_id, kind, started_at, unseen FROM finished_games"
    " WHERE channel_id = ? AND unseen IS NOT NULL ORDER BY id DESC LIMIT 1"
)
#: Run before a game's record is inserted: only the channel's latest game can be unseen.
CLEAR_UNSEEN_SQL = (
    "UPDATE finished_games SET unseen = NULL WHERE channel_id = ? AND unseen IS NOT NULL"
)
ENDING_SHOWN_SQL = "UPDATE finished_games SET unseen = NULL WHERE id = ? AND unseen IS NOT NULL"


@dataclass
class PlayedGame:
    """One line of a player's history: a finished game they sat at, as they did in it."""

    game_id: int
    kind: str
    finished_at: float
    players: list[dict[str, object]]
    won: bool
    score: int | None
    abandoned: bool
    outcome: str


def _played(kind: bool) -> str:
    """A player's games in a place (`records.place_of`: a server, or a channel outside
    servers), as their `player_stats` rows: those of the server, read from its index
    (migration 12), and those outside servers in that channel. Its arguments: the player,
    the place[, the kind], twice."""
    of_kind = " AND s.kind = ?" if kind else ""
    columns = "s.game_id, s.won, s.score, s.abandoned, s.finished_at"
    return (
        f"SELECT {columns} FROM player_stats s"
        f" WHERE s.player_id = ? AND s.guild_id = ?{of_kind}"
        f" UNION ALL SELECT {columns} FROM player_stats s JOIN finished_games g ON g.id = s.game_id"
        f" WHERE s.player_id = ? AND s.guild_id IS NULL AND g.channel_id = ?{of_kind}"
    )


def played_sql(kind: bool) -> tuple[str, str]:
    """What `player_games` runs (with `?` placeholders): how many games the player sat at in
    the place, and a page of them, the most recent first, each in `played_game`'s order
    (only the page's games are looked up in `finished_games`). The count's arguments are
    `_played`'s; the page's the same, then the limit and the offset."""
    mine = _played(kind)
    count = f"SELECT COUNT(*) FROM ({mine}) m"
    page = (
        "SELECT g.id, g.kind, g.finished_at, g.players, m.won, m.score, m.abandoned, g.outcome"
        f" FROM (SELECT * FROM ({mine}) u ORDER BY u.finished_at DESC, u.game_id DESC"
        " LIMIT ? OFFSET ?) m JOIN finished_games g ON g.id = m.game_id"
        " ORDER BY m.finished_at DESC, m.game_id DESC"
    )
    return count, page


def played_game(row: Iterable[Any]) -> PlayedGame:
    game_id, kind, finished_at, players, won, score, abandoned, outcome = row
    return PlayedGame(
        game_id=game_id,
        kind=kind,
        finished_at=finished_at,
        players=json.loads(players),
        won=bool(won),
        score=score,
        abandoned=bool(abandoned),
        outcome=outcome,
    )
