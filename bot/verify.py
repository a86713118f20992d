"""/verify: a game's draws checked against its seed. A finished game's record (bot/sealed.py
`dice_record`) is replayed from its revealed seed (games/draws.py `replay`): the seed's
SHA-256 must be the commitment its tables showed from the start, every die, shuffle and pick
must be what the seed gives at the place it was made, from its items in their canonical
order (never from an order the record gives), none of the numbered draws may be skipped or
drawn twice, and the game's own checks must hold (CRAP: a whole deck first, real cards in
every pile). The answer says so in a few lines, naming the place of what is wrong, and
attaches every draw twice: as text to read, and as JSON (bot/draws_file.py) that
tools/verify_game.py checks without the bot. For a running game it gives the commitment only
(the seed stays secret until the end).

A record from before the canonical orders (version 1, no "v") is checked as it was drawn:
its dice fully, a shuffle or pick only when the record gives its items in canonical order;
the others could have started from any order, so the answer never calls such a game sound.

The answer is in the reader's language; the attached text is a record of the draws, written
in English whoever asks (`report`), so that one game's record reads the same for everyone.

`ONE_LINER` is the check anyone can run without the bot, with Python alone (README.md and
docs/players.md show it): it prints the seed's SHA-256 and the dice of 30 draws."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import discord

from bot.draws_file import draws_file
from bot.errors import CorruptSession, UserError
from bot.i18n import SOURCE, _, _n, render, speaking
from bot.mentions import mention
from bot.players import unbidi
from bot.records import GAME_NAMES, game_name, place_of
from bot.sessions import Sessions
from bot.store import Store
from bot.tables.base import EMBED_COLOUR, TableAdapter
from games.draws import LEGACY, VERSION, Break, Checked, breaks, replay
from games.text import Msg

#: Run with the revealed seed and the first draw to show (0: the game's first): prints the
#: seed's SHA-256, then the die each of the 30 draws from there gives (1 + draw mod 6; a
#: draw passed over as docs/verifying.md says would shift the dice after it, which no game
#: has yet seen).
ONE_LINER = (
    'python3 -c "import hashlib,sys;s=bytes.fromhex(sys.argv[1]);a=int(sys.argv[2]);'
    "print(hashlib.sha256(s).hexdigest());print(*(1+int.from_bytes(hashlib.sha256("
    "s+b':%d'%i).digest(),'big')%6 for i in range(a,a+30)))\" SEED FROM"
)
#: How many places of breaks in the stream the short answer names (the file has them all).
NAMED = 3


def one_liner(seed: str, start: int = 0) -> str:
    """`ONE_LINER` for this seed, from draw `start`."""
    return ONE_LINER.replace("SEED", seed).replace("FROM", str(start))


@dataclass(frozen=True)
class Verdict:
    """A finished game's draws replayed from its seed."""

    commitment: str  # as recorded: what its tables showed from the start
    seed: str
    hashed: str  # the seed's SHA-256, computed now
    version: int  # the record's format (games/draws.py VERSION; LEGACY: before versions)
    end: int  # the stream's position when the game ended: draws 0 to end-1 were made
    checked: list[Checked]
    breaks: list[Break]  # where the draws do not follow each other
    problems: list[Msg]  # what the game's own checks of its piles found (CRAP's cards)

    @property
    def sealed(self) -> bool:
        return self.hashed == self.commitment

    @property
    def wrong(self) -> list[Checked]:
        return [c for c in self.checked if not c.ok]

    @property
    def unproven(self) -> list[Checked]:
        """Version 1 shuffles and picks whose starting order only the record gives."""
        return [c for c in self.checked if c.ok and not c.proven]

    @property
    def whole(self) -> bool:
        return not self.breaks and all(c.end is not None for c in self.checked)

    @property
    def bad(self) -> bool:
        """Something is wrong (not merely unchecked)."""
        return not self.sealed or not self.whole or bool(self.wrong) or bool(self.problems)

    @property
    def ok(self) -> bool:
        return not self.bad and not self.unproven


def verdict(dice: dict[str, Any], adapter: TableAdapter | None = None) -> Verdict:
    """Replay a finished game's record of draws (with `adapter`'s checks of its piles);
    ValueError when it cannot be read."""
    try:
        seed = bytes.fromhex(dice["seed"])
        moves = dice["moves"]
        end = dice["at"]
        version = dice.get("v", LEGACY)
        commitment = str(dice["commitment"])
        if type(end) is not int or end < 0 or version not in (LEGACY, VERSION):
            raise ValueError("the stream's end or the format")
        checked = replay(seed, moves, version)
        entries = [c.entry for c in checked]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise ValueError("unreadable record of draws") from exc
    return Verdict(
        commitment=commitment,
        seed=seed.hex(),
        hashed=hashlib.sha256(seed).hexdigest(),
        version=version,
        end=end,
        checked=checked,
        breaks=breaks(checked, end),
        problems=adapter.record_problems(entries) if adapter is not None else [],
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


def _drawn(c: Checked) -> str:
    """Which draws an entry used: "draw 7", "draws 7-12" (where the record says it starts,
    to where the seed's redo of it ended)."""
    first = c.first
    if first is None:
        return _("draw {number}", number="?")
    if c.end is None or c.end - first <= 1:
        return _("draw {number}", number=str(first))
    return _("draws {first}-{last}", first=str(first), last=str(c.end - 1))


def _break(b: Break) -> str:
    """A place where the stream does not follow on, in a clause."""
    if b.kind == "missing":
        if b.first == b.last:
            return _("draw {number} is missing", number=str(b.first))
        return _("draws {first}-{last} are missing", first=str(b.first), last=str(b.last))
    if b.kind == "twice":
        if b.first == b.last:
            return _("draw {number} is drawn twice", number=str(b.first))
        return _("draws {first}-{last} are drawn twice", first=str(b.first), last=str(b.last))
    return _(
        "the record says the game stopped before draw {number}, but draws up to {last} were "
        "used",
        number=str(b.first),
        last=str(b.last),
    )


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
        f"Game {game_id} · {adapter.title} · record format {found.version}",
        f"Commitment shown from the start (SHA-256 of the seed): {found.commitment}",
        f"Seed revealed at the end: {found.seed}",
        f"SHA-256 of the seed: {found.hashed} "
        + ("✓ the commitment" if found.sealed else "✗ NOT the commitment"),
        "",
        "Draw i is SHA-256(seed + ':' + i) read as a number. A number below n is the next",
        "draw mod n (a draw at or above the largest multiple of n up to 2**256 is passed",
        "over); a die is 1 + a number below 6. A shuffle or a pick first puts its items in",
        "their canonical order (numbers ascending, text by code point; CRAP's card ids",
        "ascending); a shuffle of n items then swaps item k (k = n-1 down to 1) with item",
        "(a number below k+1). The whole algorithm: docs/verifying.md; the attached .json",
        "is what tools/verify_game.py checks without the bot.",
        "Check the dice of any 30 draws without the bot (from draw FROM):",
        one_liner(found.seed, 0),
        "",
    ]
    if found.version < VERSION:
        lines += [
            "This game was played before shuffles and picks started from the canonical",
            "order: one marked ? took its items in the order its record gives, which the",
            "record alone cannot prove (the seed gives its result from that order).",
            "",
        ]
    moves = record["dice"]["moves"]
    for c in found.checked:
        move = moves[c.move]
        by = move.get("by")
        who = names.get(by, "the game") if by is not None else "the game"
        act = f" · {move['act']}" if move.get("act") else ""
        mark = "✗" if not c.ok else "✓" if c.proven else "?"
        line = f"{mark} {_drawn(c)} · {who}{act} · {describe(c.entry, names, adapter)}"
        if c.rejected:
            passed = ", ".join(map(str, c.rejected))
            line += f" (passed over: draw {passed})"
        if not c.ok:
            line += (
                f"\n    ✗ the seed gives: {describe(c.expected, names, adapter)}"
                if c.expected is not None
                else "\n    ✗ not a draw the seed can give"
            )
        lines.append(line)
    lines += [f"✗ {_break(b)}" for b in found.breaks]
    lines += [f"✗ {render(p)}" for p in found.problems]
    lines += ["", _summary(found)]
    return "\n".join(lines) + "\n"


def _problems(found: Verdict) -> list[str]:
    """Each thing wrong, as a clause naming its place."""
    out = []
    if not found.sealed:
        out.append(_("the seed is not the one committed to at the start"))
    if found.wrong:
        out.append(
            _n(
                "{n} result is not what the seed gives (the first at {draw})",
                "{n} results are not what the seed gives (the first at {draw})",
                len(found.wrong),
                draw=_drawn(found.wrong[0]),
            )
        )
    out += [_break(b) for b in found.breaks[:NAMED]]
    if len(found.breaks) > NAMED:
        out.append(
            _n(
                "{n} more place where draws are missing or repeated",
                "{n} more places where draws are missing or repeated",
                len(found.breaks) - NAMED,
            )
        )
    out += [render(p) for p in found.problems]
    return out


def _unchecked(found: Verdict) -> str:
    return _n(
        "{n} shuffle or pick cannot be checked (the first at {draw}): the game was played "
        "before every shuffle and pick started from a fixed order, and only its record says "
        "which order it started from",
        "{n} shuffles and picks cannot be checked (the first at {draw}): the game was played "
        "before every shuffle and pick started from a fixed order, and only its record says "
        "which order they started from",
        len(found.unproven),
        draw=_drawn(found.unproven[0]),
    )


def _summary(found: Verdict) -> str:
    """The verdict in a sentence, in the current language. The draws it counts are the
    numbered draws of the seed (docs/verifying.md), not the entries of the record."""
    if found.ok:
        dice = sum(len(c.entry[4]) for c in found.checked if c.entry[0] == "dice")
        shuffles = sum(1 for c in found.checked if c.entry[0] == "shuffle")
        picks = len(found.checked) - shuffles - sum(
            1 for c in found.checked if c.entry[0] == "dice"
        )
        return _n(
            "The {n} draw is what the seed gives ({dice}, {shuffles}, {picks}), none skipped "
            "or repeated.",
            "All {n} draws are what the seed gives ({dice}, {shuffles}, {picks}), none "
            "skipped or repeated.",
            found.end,
            dice=_n("{n} die", "{n} dice", dice),
            shuffles=_n("{n} shuffle", "{n} shuffles", shuffles),
            picks=_n("{n} other pick", "{n} other picks", picks),
        )
    if not found.bad:
        # Translators: {unchecked} is the clause about shuffles and picks that cannot be
        # checked
        return _(
            "Nothing the seed gives is contradicted, but not all can be checked: {unchecked}.",
            unchecked=_unchecked(found),
        )
    problems = _problems(found)
    if found.unproven:
        problems.append(_unchecked(found))
    # Translators: {problems} is one or more of the clauses above, joined by "; "
    return _("The draws do NOT check out: {problems}.", problems="; ".join(problems))


def _title(game_id: int, found: Verdict, game: str) -> str:
    if found.ok:
        return _("🔍 Game {number} · {game}: the draws check out ✅", number=str(game_id), game=game)
    if not found.bad:
        return _(
            "🔍 Game {number} · {game}: the draws can be checked only in part ⚠️",
            number=str(game_id),
            game=game,
        )
    return _failed_title(game_id, game)


def _failed_title(game_id: int, game: str) -> str:
    return _(
        "🔍 Game {number} · {game}: the draws do NOT check out ❌", number=str(game_id), game=game
    )


def finished_embed(game_id: int, found: Verdict, adapter: TableAdapter) -> discord.Embed:
    """The short answer about a finished game (the full list is in the attached files)."""
    embed = discord.Embed(
        title=_title(game_id, found, game_name(adapter.kind))[:256], colour=EMBED_COLOUR
    )
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
            _summary(found)[:2000],
            "",
            _(
                "Check it without the bot (Python alone; the seed's SHA-256, then the dice of "
                "the first 30 draws):"
            ),
            f"```\n{one_liner(found.seed)}\n```",
            _(
                "Every draw, in order, is in the attached text; the attached JSON is what "
                "tools/verify_game.py checks, every die, shuffle and pick, without the bot."
            ),
        ]
    )
    return embed


@dataclass(frozen=True)
class Answer:
    """/verify's answer: the embed, and for a finished game the attached files (the text to
    read and the JSON to check, by name)."""

    embed: discord.Embed
    files: dict[str, str]


def _damaged_record(game_id: int, game: str) -> Answer:
    embed = discord.Embed(title=_failed_title(game_id, game), colour=EMBED_COLOUR)
    embed.description = _("Its record of draws is damaged: it cannot be read.")
    return Answer(embed, {})


async def verify_answer(
    store: Store,
    sessions: Sessions,
    adapters: dict[str, TableAdapter],
    guild_id: int | None,
    channel_id: int,
    game_id: int | None,
) -> Answer:
    """/verify's answer: an embed, and the files of every draw for a finished game (none
    for a running one). UserError when there is nothing here to check."""
    if game_id is None:
        running = await _running(sessions, channel_id)
        if running is not None:
            return running
        latest = await store.latest_game(guild_id, channel_id)
        if latest is not None:
            raise UserError(
                _(
                    "No game is running here. The last game that finished here is game "
                    "{number}: try {verify} {number}.",
                    number=str(latest),
                    verify=mention("verify"),
                )
            )
        raise UserError(
            _(
                "No game is running here. To check a finished game, give its number: its "
                "final table shows it ({verify} 12).",
                verify=mention("verify"),
            )
        )
    record = await store.finished_game(game_id)
    guild = record and record["guild_id"]
    if (
        record is None
        or record["kind"] not in adapters
        or place_of(guild, record["channel_id"]) != place_of(guild_id, channel_id)  # type: ignore[arg-type]  # finished_games columns: guild_id int | None, channel_id int
    ):
        raise UserError(_("I have no record of a game {number} here.", number=str(game_id)))
    adapter = adapters[str(record["kind"])]
    game = game_name(adapter.kind)
    dice = record.get("dice")
    if dice is None:
        embed = discord.Embed(
            title=_("Game {number} · {game}", number=str(game_id), game=game),
            colour=EMBED_COLOUR,
        )
        embed.description = _(
            "This game was played before games were sealed: it has no draws to check."
        )
        return Answer(embed, {})
    if not isinstance(dice, dict):
        return _damaged_record(game_id, game)
    try:
        found = verdict(dice, adapter)
    except ValueError:
        return _damaged_record(game_id, game)
    files = {
        f"game-{game_id}-draws.txt": report(game_id, record, found, adapter),
        f"game-{game_id}-draws.json": draws_file(game_id, record, found),
    }
    return Answer(finished_embed(game_id, found, adapter), files)


async def _running(sessions: Sessions, channel_id: int) -> Answer | None:
    """The answer about the game running here: its commitment (the seed is secret until
    the end), or that its stored record of draws is damaged; None when none is running."""
    try:
        session = await sessions.get(channel_id)
    except CorruptSession as damaged:
        embed = discord.Embed(
            title=_("🔒 {game}: a damaged game", game=game_name(damaged.kind))
            if damaged.kind in GAME_NAMES
            else _("🔒 A damaged game"),
            colour=EMBED_COLOUR,
        )
        embed.description = str(damaged)
        return Answer(embed, {})
    if session is None or not session.started:
        return None
    embed = discord.Embed(
        title=_("🔒 {game}: a game in progress", game=game_name(session.kind)),
        colour=EMBED_COLOUR,
    )
    if session.draws is None:
        embed.description = _(
            "This game started before games were sealed: its draws cannot be checked."
        )
        return Answer(embed, {})
    embed.description = _(
        "**Commitment** (SHA-256 of the game's secret seed), on its tables since the start: "
        "`{commitment}`\nThe seed is revealed when the game ends: then its final table "
        "shows it and its number, and {verify} with that number replays every draw.",
        commitment=session.draws.commitment,
        verify=mention("verify"),
    )
    return Answer(embed, {})
