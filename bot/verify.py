"""/verify: a game's draws checked against its seed. A finished game's record (bot/sealed.py
`dice_record`) is replayed from its revealed seed (games/draws.py `replay`): the seed's
SHA-256 must be the commitment its tables showed from the start, every draw must be what the
seed gives at the place it was made, and none may be skipped or drawn twice. The answer says
so in a few lines and attaches every draw as text; for a running game it gives the
commitment only (the seed stays secret until the end).

The answer is in the reader's language; the attached text is a record of the draws, written
in English whoever asks (`report`), so that one game's record reads the same for everyone.

`ONE_LINER` is the check anyone can run without the bot, with Python alone (README.md and
docs/players.md show it): it prints the seed's SHA-256 and the dice of 30 draws."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import discord

from bot.errors import CorruptSession, UserError
from bot.i18n import SOURCE, _, _n, speaking
from bot.mentions import mention
from bot.players import unbidi
from bot.records import game_name, place_of
from bot.sessions import Sessions
from bot.store import Store
from bot.tables.base import EMBED_COLOUR, TableAdapter
from games.draws import Checked, contiguous, end_of, replay

#: Run with the revealed seed and the first draw to show (0: the game's first): prints the
#: seed's SHA-256, then the die each of the 30 draws from there gives (1 + draw mod 6).
ONE_LINER = (
    'python3 -c "import hashlib,sys;s=bytes.fromhex(sys.argv[1]);a=int(sys.argv[2]);'
    "print(hashlib.sha256(s).hexdigest());print(*(1+int.from_bytes(hashlib.sha256("
    "s+b':%d'%i).digest(),'big')%6 for i in range(a,a+30)))\" SEED FROM"
)


def one_liner(seed: str, start: int = 0) -> str:
    """`ONE_LINER` for this seed, from draw `start`."""
    return ONE_LINER.replace("SEED", seed).replace("FROM", str(start))


@dataclass(frozen=True)
class Verdict:
    """A finished game's draws replayed from its seed."""

    commitment: str  # as recorded: what its tables showed from the start
    seed: str
    hashed: str  # the seed's SHA-256, computed now
    checked: list[Checked]
    whole: bool  # every draw from the first to the last, none skipped or repeated

    @property
    def sealed(self) -> bool:
        return self.hashed == self.commitment

    @property
    def wrong(self) -> list[Checked]:
        return [c for c in self.checked if not c.ok]

    @property
    def ok(self) -> bool:
        return self.sealed and self.whole and not self.wrong


def verdict(dice: dict[str, Any]) -> Verdict:
    """Replay a finished game's record of draws; ValueError when it cannot be read."""
    try:
        seed = bytes.fromhex(dice["seed"])
        moves = dice["moves"]
        end = int(dice["at"])
        commitment = str(dice["commitment"])
        checked = replay(seed, moves)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError("unreadable record of draws") from exc
    return Verdict(
        commitment=commitment,
        seed=seed.hex(),
        hashed=hashlib.sha256(seed).hexdigest(),
        checked=checked,
        whole=contiguous(checked, end),
    )


# ------------------------------------------------------------------------- in words


def _items(adapter: TableAdapter, what: str, items: list[Any]) -> str:
    return " ".join(adapter.drawn_text(what, item) for item in items)


def describe(entry: list[Any], names: dict[int, str], adapter: TableAdapter) -> str:
    """One recorded draw in words: "Ann's throw: 3 5 1", "deck shuffled: K♥ 3♠ …"; a record
    changed into something that is no draw is shown as it is."""
    try:
        return _describe(entry, names, adapter)
    except (ValueError, TypeError, IndexError, KeyError):
        return f"not a draw: {entry}"


def _describe(entry: list[Any], names: dict[int, str], adapter: TableAdapter) -> str:
    kind = entry[0]
    if kind == "dice":
        _, _, roller, what, faces = entry
        who = names.get(roller, f"player {roller}") if roller is not None else "the game"
        return f"{who}'s {what}: {' '.join(map(str, faces))}"
    if kind == "range":
        _, _, start, stop, step, value = entry
        return f"a number from {start} to {stop - 1}{f' by {step}' if step != 1 else ''}: {value}"
    if kind == "choice":
        _, _, items, item, what = entry
        return f"{what or 'a pick'}, one of {len(items)}: {adapter.drawn_text(what, item)}"
    if kind == "shuffle":
        _, _, before, after, what = entry
        return f"{what or 'items'} shuffled ({len(before)}), in order: {_items(adapter, what, after)}"
    if kind == "sample":
        _, _, items, chosen, what = entry
        return f"{what or 'a pick'}, {len(chosen)} of {len(items)}: {_items(adapter, what, chosen)}"
    return f"{kind}: {entry[-1]}"


def _drawn(entry: list[Any]) -> str:
    """Which draws an entry used: "draw 7", "draws 7-12" (numbers as the record writes
    them)."""
    try:
        first, after = int(entry[1]), end_of(entry)
    except (ValueError, TypeError, IndexError):
        return _("draw {number}", number="?")
    if after - first <= 1:
        return _("draw {number}", number=str(first))
    return _("draws {first}-{last}", first=str(first), last=str(after - 1))


def report(
    game_id: int, record: dict[str, Any], found: Verdict, adapter: TableAdapter
) -> str:
    """The attached text: the seed, its commitment, then every draw with its check. In
    English whatever the reader's language: a record, the same for everyone who asks."""
    with speaking(SOURCE):
        return _report(game_id, record, found, adapter)


def _report(
    game_id: int, record: dict[str, Any], found: Verdict, adapter: TableAdapter
) -> str:
    # A text file reads no markdown, but a name's U+202E would reverse its lines.
    names = {int(p["id"]): unbidi(str(p["name"])) for p in record.get("players") or []}
    lines = [
        f"Game {game_id} · {adapter.title}",
        f"Commitment shown from the start (SHA-256 of the seed): {found.commitment}",
        f"Seed revealed at the end: {found.seed}",
        f"SHA-256 of the seed: {found.hashed} "
        + ("✓ the commitment" if found.sealed else "✗ NOT the commitment"),
        "",
        "Draw i is SHA-256(seed + ':' + i) read as a number; a die is 1 + that number mod 6;",
        "a shuffle of n items swaps item k (k = n-1 down to 1) with item (draw mod k+1).",
        "Check any draw without the bot (the dice of 30 draws from FROM):",
        one_liner(found.seed, 0),
        "",
    ]
    moves = record["dice"]["moves"]
    for c in found.checked:
        move = moves[c.move]
        by = move.get("by")
        who = names.get(by, "the game") if by is not None else "the game"
        act = f" · {move['act']}" if move.get("act") else ""
        mark = "✓" if c.ok else "✗"
        line = f"{mark} {_drawn(c.entry)} · {who}{act} · {describe(c.entry, names, adapter)}"
        if not c.ok:
            line += (
                f"\n    ✗ the seed gives: {describe(c.expected, names, adapter)}"
                if c.expected is not None
                else "\n    ✗ not a draw the seed can give"
            )
        lines.append(line)
    lines += ["", _summary(found)]
    return "\n".join(lines) + "\n"


def _summary(found: Verdict) -> str:
    """The verdict in a sentence, in the current language."""
    if found.ok:  # every entry is then a draw as this module makes it
        dice = sum(len(c.entry[4]) for c in found.checked if c.entry[0] == "dice")
        shuffles = sum(1 for c in found.checked if c.entry[0] == "shuffle")
        return _n(
            "The {n} draw is what the seed gives ({dice}, {shuffles}), none skipped or "
            "repeated.",
            "All {n} draws are what the seed gives ({dice}, {shuffles}), none skipped or "
            "repeated.",
            len(found.checked),
            dice=_n("{n} die", "{n} dice", dice),
            shuffles=_n("{n} shuffle", "{n} shuffles", shuffles),
        )
    problems = []
    if not found.sealed:
        problems.append(_("the seed is not the one committed to at the start"))
    if found.wrong:
        first = found.wrong[0].entry
        problems.append(
            _n(
                "{n} draw is not what the seed gives (the first at {draw})",
                "{n} draws are not what the seed gives (the first at {draw})",
                len(found.wrong),
                draw=_drawn(first),
            )
        )
    if not found.whole:
        problems.append(_("draws are missing or repeated"))
    # Translators: {problems} is one or more of the clauses above, joined by "; "
    return _("The draws do NOT check out: {problems}.", problems="; ".join(problems))


def finished_embed(game_id: int, found: Verdict, adapter: TableAdapter) -> discord.Embed:
    """The short answer about a finished game (the full list is the attached text)."""
    game = game_name(adapter.kind)
    title = (
        _("🔍 Game {number} · {game}: the draws check out ✅", number=str(game_id), game=game)
        if found.ok
        else _(
            "🔍 Game {number} · {game}: the draws do NOT check out ❌",
            number=str(game_id),
            game=game,
        )
    )
    embed = discord.Embed(title=title[:256], colour=EMBED_COLOUR)
    embed.description = "\n".join(
        [
            _(
                "**Commitment**, shown on its tables from the start: `{commitment}`",
                commitment=found.commitment,
            ),
            _("**Seed**, revealed at the end: `{seed}`", seed=found.seed),
            _("✓ SHA-256 of the seed is the commitment.")
            if found.sealed
            else _("✗ SHA-256 of the seed is NOT the commitment."),
            _summary(found),
            "",
            _(
                "Check it without the bot (Python alone; the seed's SHA-256, then the dice of "
                "the first 30 draws):"
            ),
            f"```\n{one_liner(found.seed)}\n```",
            _("Every draw, in order, is in the attached file."),
        ]
    )
    return embed


async def verify_answer(
    store: Store,
    sessions: Sessions,
    adapters: dict[str, TableAdapter],
    guild_id: int | None,
    channel_id: int,
    game_id: int | None,
) -> tuple[discord.Embed, str | None]:
    """/verify's answer: an embed, and the text of every draw for a finished game (None
    for a running one). UserError when there is nothing here to check."""
    if game_id is None:
        try:
            session = await sessions.get(channel_id)
        except CorruptSession:
            session = None
        if session is None or not session.started:
            raise UserError(
                _(
                    "No game is running here. To check a finished game, give its number: its "
                    "final table shows it ({verify} 12).",
                    verify=mention("verify"),
                )
            )
        embed = discord.Embed(
            title=_("🔒 {game}: a game in progress", game=game_name(session.kind)),
            colour=EMBED_COLOUR,
        )
        if session.draws is None:
            embed.description = _(
                "This game started before games were sealed: its draws cannot be checked."
            )
            return embed, None
        embed.description = _(
            "**Commitment** (SHA-256 of the game's secret seed), on its tables since the start: "
            "`{commitment}`\nThe seed is revealed when the game ends: then its final table "
            "shows it and its number, and {verify} with that number replays every draw.",
            commitment=session.draws.commitment,
            verify=mention("verify"),
        )
        return embed, None
    record = await store.finished_game(game_id)
    guild = record and record["guild_id"]
    if (
        record is None
        or record["kind"] not in adapters
        or place_of(guild, record["channel_id"]) != place_of(guild_id, channel_id)  # type: ignore[arg-type]
    ):
        raise UserError(_("I have no record of a game {number} here.", number=str(game_id)))
    adapter = adapters[str(record["kind"])]
    game = game_name(adapter.kind)
    dice = record.get("dice")
    if not isinstance(dice, dict):
        embed = discord.Embed(
            title=_("Game {number} · {game}", number=str(game_id), game=game),
            colour=EMBED_COLOUR,
        )
        embed.description = _(
            "This game was played before games were sealed: it has no draws to check."
        )
        return embed, None
    try:
        found = verdict(dice)
    except ValueError:
        embed = discord.Embed(
            title=_(
                "🔍 Game {number} · {game}: the draws do NOT check out ❌",
                number=str(game_id),
                game=game,
            ),
            colour=EMBED_COLOUR,
        )
        embed.description = _("Its record of draws cannot be read.")
        return embed, None
    return finished_embed(game_id, found, adapter), report(game_id, record, found, adapter)
