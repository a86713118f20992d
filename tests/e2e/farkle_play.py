"""A Farkle player for end-to-end tests that decides only from what the public table message
shows (its text and its buttons' labels, styles and custom_ids), the way a person at the
table does, and presses one button at a time.

    view = read_table(d.table(TABLE))
    await play_move(d, TABLE, players)          # one press by whoever's turn it is
    moves = await play_to_end(d, TABLE, players)

Its head holds only what any player knows of the rules: 1s and 5s score alone, three or more
of a face score together, a face the table lists under "Extended triples" scores alone, and
six dice with none of those can still be three pairs. It banks once the Bank button offers
`bank_at` or more (or with two dice or fewer left), and takes a piggyback when offered."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tests.e2e.fake_discord import FakeMessage, FakeUser, InteractionRecord
from tests.e2e.harness import Driver


def points(text: str) -> int:
    """A score as the table writes it in English ("1,450")."""
    return int(text.replace(",", ""))


DIE = re.compile(r"^([1-6])( ✓)?$")
TURN = re.compile(r"<@(\d+)>'s turn")
EXTENDED = re.compile(r"each ([1-6]) =")
WINNER = re.compile(r"🏆 <@(\d+)> wins the Farkle game!")
SCORE = re.compile(r"<@(\d+)> \*\*(-?[\d,]+)\*\*")


class ConfusedPlayer(AssertionError):
    """The table shows something a player cannot act on."""


@dataclass
class Die:
    index: int
    face: int
    selected: bool
    button: dict[str, Any]


@dataclass
class TableView:
    """What a player reads off the table message."""

    message: FakeMessage
    text: str
    current: int | None
    dice: list[Die]
    roll: dict[str, Any] | None
    bank: dict[str, Any] | None
    piggyback: dict[str, Any] | None
    extended: set[int]
    winner: int | None
    winner_score: int | None
    scores: dict[int, int]

    @property
    def finished(self) -> bool:
        return self.winner is not None or "Game over" in self.text

    def buttons(self) -> list[dict[str, Any]]:
        return self.message.buttons()


def read_table(message: FakeMessage) -> TableView:
    text = message.text()
    turn = TURN.search(text)
    dice, roll, bank, piggy = [], None, None, None
    for b in message.buttons():
        label = b.get("label") or ""
        m = DIE.match(label)
        if m:
            dice.append(Die(len(dice), int(m[1]), bool(m[2]), b))
        elif label.startswith(
            ("Roll", "Set aside & roll", "Throw the last die", "Tap dice to set aside")
        ):
            roll = b
        elif label.startswith("Bank"):
            bank = b
        elif label.startswith("Piggyback"):
            piggy = b
    extended: set[int] = set()
    for line in text.splitlines():
        if "Extended triples" in line:
            extended |= {int(f) for f in EXTENDED.findall(line)}
    won = WINNER.search(message.content or "")
    scores_field = next(
        (
            f["value"]
            for e in message.embeds
            for f in e.get("fields") or []
            if f["name"] == "Scores"
        ),
        "",
    )
    scores = {int(i): points(s) for i, s in SCORE.findall(scores_field)}
    return TableView(
        message=message,
        text=text,
        current=int(turn[1]) if turn else None,
        dice=dice,
        roll=roll,
        bank=bank,
        piggyback=piggy,
        extended=extended,
        winner=int(won[1]) if won else None,
        winner_score=scores.get(int(won[1])) if won else None,
        scores=scores,
    )


def scoring_dice(faces: Sequence[int], extended: set[int]) -> set[int]:
    """The dice a player sets aside: every die that scores as a single or in a set."""
    counts = Counter(faces)
    keep = {i for i, f in enumerate(faces) if f in (1, 5) or counts[f] >= 3 or f in extended}
    if not keep and len(faces) == 6:
        keep = set(range(6))  # three pairs: nothing else scores in six dice
    return keep


def enabled(button: dict[str, Any] | None) -> bool:
    return button is not None and not button.get("disabled")


def next_press(view: TableView, *, bank_at: int = 300) -> tuple[str, dict[str, Any]]:
    """The button the player whose turn it is presses next, and why."""
    if view.finished or view.current is None:
        raise ConfusedPlayer(f"nobody's turn on the table:\n{view.text}")
    if enabled(view.piggyback):
        assert view.piggyback is not None
        return "piggyback", view.piggyback
    if not view.dice:
        if not enabled(view.roll):
            raise ConfusedPlayer(f"no dice and no roll button:\n{view.text}")
        assert view.roll is not None
        return "roll", view.roll
    wanted = scoring_dice([d.face for d in view.dice], view.extended)
    if not wanted:
        raise ConfusedPlayer(f"the table shows a throw with nothing to set aside:\n{view.text}")
    chosen = {d.index for d in view.dice if d.selected}
    for die in view.dice:
        if (die.index in wanted) != die.selected:
            return f"toggle {die.face}", die.button
    if not enabled(view.roll):
        raise ConfusedPlayer(
            f"set aside {sorted(view.dice[i].face for i in chosen)} but cannot roll:\n{view.text}"
        )
    assert view.roll is not None
    left = len(view.dice) - len(chosen)
    if enabled(view.bank):
        assert view.bank is not None
        value = points(view.bank["label"].split()[1])
        if value >= bank_at or 0 < left <= 2:
            return f"bank {value}", view.bank
    return "roll", view.roll


def player(players: Sequence[FakeUser], user_id: int | None) -> FakeUser:
    for p in players:
        if p.id == user_id:
            return p
    raise ConfusedPlayer(f"the table says it is <@{user_id}>'s turn, not one of {players}")


async def play_move(
    d: Driver, channel: int, players: Sequence[FakeUser], *, bank_at: int = 300
) -> InteractionRecord:
    """One press by the player whose turn the table shows; the bot must answer with the
    table: edited in place while the same player goes on, posted afresh below (mentioning
    exactly the next player) when the turn passes, and (mentioning every other player: nobody
    is notified of their own press) at the end."""
    view = read_table(d.table(channel))
    why, button = next_press(view, bank_at=bank_at)
    who = player(players, view.current)
    rec = await d.click(who, channel, custom_id=button["custom_id"], message=view.message)
    if rec.callback_type != 7 or rec.message is not view.message:
        raise AssertionError(f"{who.name} pressed {why!r} and got {rec.callback_type}: {rec.text}")
    after = read_table(d.on_table(rec, view.message))
    others = {p.id for p in players} - {who.id}
    if after.finished:
        assert (after.message is not view.message) == bool(others), (why, after.text)
        assert d.notified(after.message) == others, (why, after.message.content)
    elif after.message is view.message:
        assert after.current == view.current, (why, after.text)
    else:
        assert not after.finished and after.current != view.current, (why, after.text)
        assert d.notified(after.message) == {after.current}, (why, after.message.content)
    return rec


async def play_to_end(
    d: Driver,
    channel: int,
    players: Sequence[FakeUser],
    *,
    bank_at: int = 300,
    max_presses: int = 1000,
) -> int:
    """Press until the table says the game is over; returns the number of presses."""
    for n in range(max_presses):
        if read_table(d.table(channel)).finished:
            return n
        await play_move(d, channel, players, bank_at=bank_at)
    raise AssertionError(f"no winner after {max_presses} presses:\n{d.table(channel).text()}")


async def open_game(
    d: Driver,
    channel: int,
    players: Sequence[FakeUser],
    *,
    rules: str | None = None,
    target: int | None = None,
) -> FakeMessage:
    """`/farkle start` by the first player, Join by the others, Start: the table message,
    posted afresh below the lobby (now a summary), mentioning the first player; when that is
    the starter (nobody is notified of their own press), the lobby becomes the table."""
    opened = await d.slash(players[0], channel, "farkle start", rules=rules, target=target)
    assert opened.callback_type == 4 and opened.message is not None and not opened.ephemeral
    for p in players[1:]:
        joined = await d.click(p, channel, label="Join", message=opened.message)
        assert joined.callback_type == 7 and d.table(channel) is opened.message, joined.text
    started = await d.click(players[0], channel, label="Start", message=opened.message)
    table = d.on_table(started, opened.message)
    assert "'s turn" in table.text(), started.text
    first = read_table(table).current
    if first == players[0].id:
        assert table is opened.message and "<@" not in (table.content or ""), table.content
    else:
        assert table is not opened.message and d.notified(table) == {first}, table.content
    return table


def stamp_of(message: FakeMessage) -> tuple[int, int]:
    """The game and the decision a Farkle table's buttons answer: every button of it carries
    the same (t:farkle:<action>:<channel>:<game>:<stamp>[:<arg>])."""
    stamps = {tuple(int(x) for x in b["custom_id"].split(":")[4:6]) for b in message.buttons()}
    assert len(stamps) == 1, stamps
    game, stamp = stamps.pop()
    return game, stamp
