"""Kuriki players for end-to-end tests. Each player acts only on what they can see: the
public cup message (its text and buttons), their own ephemeral replies (the dice under the
cup and the menu of declarations after rolling, a peek) and the foul-vote messages.

    game = await KurikiGame.open(d, [ALICE, BOB, CAROL], lives=3)
    roll = await game.roll()                      # the Roller presses Roll
    await game.declare(roll, lie_above(roll))     # ...and lies from the menu
    reveal = await game.pull()                    # the Next Guy pulls
    await play_to_end(game, Habits())

`CupSecrets` is the hidden-information check of the cup: from the moment an ephemeral shows
a player the dice ("Under the cup: **a-b**") until a pull shows them to everyone, no public
body the bot sends may contain them.

Their heads hold only the ranking every player knows (`games.kuriki.values`), to read the
names the table uses ("9", "Double-Six (Boxcars)") as values."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.i18n import render
from bot.verify import verdict
from games.kuriki.values import declarable
from games.kuriki.values import name as name_of
from games.text import line_from_text
from tests.e2e.fake_discord import FakeDiscord, FakeMessage, FakeUser, InteractionRecord
from tests.e2e.harness import GUILD, TABLE, Driver, is_summary, mention, read_finished
from tests.e2e.hidden_info import (
    Secret,
    assert_sealed_until_revealed,
    leaks_in,
    watch_public_secrets,
    watch_stored_log,
)

# The cup's two ways of seeing the dice, as a player reads them on the buttons.
PEEK = "Peek again"
SNEAK = "Sneak a peek (foul!)"

EVE = FakeUser(1_100_000_000_000_001_005, "Eve")  # a fifth player

VALUE_OF = {str(name_of(v)): v for v in declarable(False)}

STANDING = re.compile(r"Standing declaration: \*\*(.+?)\*\* · a lie costs <@(\d+)> a life")
NEXT_GUY = re.compile(r"\*\*Next Guy: <@(\d+)>\*\*")
PASSED = re.compile(r"^Passed: (.+)$", re.M)
HOLDS = re.compile(r"🥤 <@(\d+)> holds the cup: \*\*fresh roll\*\*")
PEEKING = re.compile(r"🥤 <@(\d+)> rolled(?: on \*\*(.+?)\*\*)? and is peeking under the cup")
FIRST = re.compile(r"<@(\d+)> rolled highest: first Roller")
PULLED = re.compile(r"pulls the cup: ([1-6]-[1-6]) = (.+?) against (.+?), (a lie!|not a lie\.)")
LAST_PULL = re.compile(r"Last pull: ([1-6]-[1-6]) = .+? against .+?: (?:a lie|not a lie)")
LAST_KURIKI = re.compile(r"Last: 👑 Kuriki \((1-2|2-1)\)\.")
PAD_ROW = re.compile(r"<@(\d+)> (\d+)♥( 👑+)?(?: · (\d+) fouls?)?(.*)$", re.M)
WINNER = re.compile(r"🏆 <@(\d+)> wins the Kuriki game!")
UNDER_THE_CUP = re.compile(r"Under the cup: \*\*([1-6])-([1-6])\*\*, which is \*\*(.+?)\*\*")
MENTION = re.compile(r"<@(\d+)>")


class ConfusedPlayer(AssertionError):
    """The table shows something a player cannot act on."""


# ----------------------------------------------------------------------------- reading


@dataclass
class Cup:
    """What anyone reads off the public cup message."""

    message: FakeMessage
    text: str
    description: str
    phase: str  # direction, roll, declare, respond, over
    roller: int | None  # who holds the cup (shown while choosing, rolling and declaring)
    declared: int | None
    responsible: int | None
    next_guy: int | None
    passed: list[int]
    lives: dict[int, int]
    crowns: dict[int, int]
    fouls: dict[int, int]
    status: dict[int, str]  # " · in the Tarts", " 🥧 Tarted", " (out)" ...
    log: list[str]
    winner: int | None

    def button(self, label: str) -> dict[str, Any] | None:
        return next((b for b in self.message.buttons() if b.get("label") == label), None)

    @property
    def labels(self) -> list[str]:
        return self.message.labels()


def read_cup(message: FakeMessage) -> Cup:
    [embed] = message.embeds
    description = embed.get("description") or ""
    fields = {f["name"]: f["value"] for f in embed.get("fields") or []}
    text = message.text()
    if "**Game over" in description or WINNER.search(message.content or ""):
        phase = "over"
    elif FIRST.search(description):
        phase = "direction"
    elif HOLDS.search(description):
        phase = "roll"
    elif PEEKING.search(description):
        phase = "declare"
    elif STANDING.search(description):
        phase = "respond"
    else:
        raise ConfusedPlayer(f"cannot tell what the cup waits for:\n{text}")
    holder = FIRST.search(description) or HOLDS.search(description) or PEEKING.search(description)
    standing = STANDING.search(description)
    nxt = NEXT_GUY.search(description)
    passed = PASSED.search(description)
    lives, crowns, fouls, status = {}, {}, {}, {}
    for m in PAD_ROW.finditer(fields.get("Score pad", "")):
        uid = int(m[1])
        lives[uid] = int(m[2])
        crowns[uid] = len((m[3] or "").strip())
        fouls[uid] = int(m[4] or 0)
        status[uid] = m[5]
    won = WINNER.search(message.content or "")
    return Cup(
        message=message,
        text=text,
        description=description,
        phase=phase,
        roller=int(holder[1]) if holder else None,
        declared=VALUE_OF[standing[1]] if standing else None,
        responsible=int(standing[2]) if standing else None,
        next_guy=int(nxt[1]) if nxt else None,
        passed=[int(x) for x in MENTION.findall(passed[1])] if passed else [],
        lives=lives,
        crowns=crowns,
        fouls=fouls,
        status=status,
        log=(fields.get("Last moves") or "").splitlines(),
        winner=int(won[1]) if won else None,
    )


@dataclass
class Roll:
    """What the Roller's ephemeral shows after rolling: the dice and the declarations."""

    roller: FakeUser
    dice: str  # as shown, "3-5"
    truth: int  # what the dice are worth
    options: list[int]  # the declarations offered, highest first
    labels: list[str]
    ephemeral: FakeMessage


def read_roll(roller: FakeUser, message: FakeMessage) -> Roll:
    m = UNDER_THE_CUP.search(message.text())
    if m is None:
        raise ConfusedPlayer(f"{roller.name}'s reply shows no dice:\n{message.text()}")
    options, labels = [], []
    for comp in message.all_components():
        if comp.get("type") == 3 and comp["custom_id"].startswith("t:kuriki:declare:"):
            options += [int(o["value"]) for o in comp["options"]]
            labels += [o["label"] for o in comp["options"]]
    return Roll(roller, f"{m[1]}-{m[2]}", VALUE_OF[m[3]], options, labels, message)


@dataclass
class Reveal:
    """A pull, as the table tells it."""

    dice: str
    shown: int
    declared: int
    lie: bool


# ----------------------------------------------------------------------------- secrets


class CupSecrets:
    """The hidden-information check of the cup (see the module docstring).

    A dice text is hidden in both orders ("3-5" and "5-3") and retired when a pull shows it
    (the public text cannot tell two rolls of the same dice apart). When dice that are
    already on the table from an earlier pull ("Last pull: 3-5", "pulls the cup: 3-5") lie
    under the cup again, they are hidden everywhere but in those two places."""

    def __init__(
        self, fake: FakeDiscord, channel: int = TABLE, database: Path | None = None
    ) -> None:
        self.fake = fake
        self.channel = channel
        self.watch = watch_public_secrets(fake)
        self.hidden: dict[str, Secret] = {}
        self.revealed: list[str] = []
        #: The game's stored log (its history) is checked after every body too. It keeps
        #: every earlier pull ("pulls the cup: 3-5"), which cannot be told apart from the
        #: same dice under the cup again: anywhere else, dice under the cup are a leak.
        self.stored = (
            None
            if database is None
            else watch_stored_log(
                fake, database, channel, lambda: [self._but_revealed(k) for k in self.hidden]
            )
        )

    @staticmethod
    def key(dice: str) -> str:
        return "-".join(sorted(dice.split("-")))

    @staticmethod
    def _either(dice: str) -> str:
        a, b = dice.split("-")
        return rf"(?<![\d-])(?:{a}-{b}|{b}-{a})(?![\d-])"

    @classmethod
    def _but_revealed(cls, dice: str) -> re.Pattern[str]:
        return re.compile(r"(?<!Last pull: )(?<!pulls the cup: )" + cls._either(dice))

    def mark(self) -> tuple[int, str]:
        """Where the bodies sent stand and what the channel shows, before a press."""
        return len(self.fake.sent), "\n".join(m.text() for m in self.fake.public(self.channel))

    def hide(self, dice: str, mark: tuple[int, str]) -> None:
        """`dice` just reached someone's ephemeral: check the public bodies sent since
        `mark` (taken before the press that showed them), then watch every later one."""
        since, shown_before = mark
        either = self._either(dice)
        pattern = re.compile(either)
        if re.search(either, shown_before):
            pattern = self._but_revealed(dice)
        leaks = [line for sent in self.fake.sent[since:] for line in leaks_in(sent, [pattern])]
        assert not leaks, "the dice under the cup went public:\n" + "\n".join(leaks)
        self.hidden[self.key(dice)] = pattern
        self.watch.secrets = list(self.hidden.values())

    def revealing(self, dice: str) -> None:
        """A pull is pressed: its answer may show `dice`, but only as the pull's result."""
        assert self.key(dice) in self.hidden, f"{dice} are not under the cup"
        self.hidden[self.key(dice)] = self._but_revealed(dice)
        self.watch.secrets = list(self.hidden.values())

    def reveal(self, dice: str) -> None:
        self.hidden.pop(self.key(dice), None)
        self.revealed.append(dice)
        self.watch.secrets = list(self.hidden.values())

    def stop(self) -> None:
        self.watch.stop()
        if self.stored is not None:
            self.stored.stop()


# ----------------------------------------------------------------------------- acting


@dataclass
class KurikiGame:
    """A started game: the driver, the players in join order (the cup message is the
    channel's live table, `table`)."""

    d: Driver
    players: list[FakeUser]
    secrets: CupSecrets
    channel: int = TABLE
    presses: int = 0
    under_cup: str | None = None  # the dice of the last roll, as the Roller saw them

    @classmethod
    async def open(
        cls, d: Driver, players: list[FakeUser], *, lives: int | None = None, channel: int = TABLE
    ) -> KurikiGame:
        """`/kuriki start` by the first player, Join by the others, Start by the first."""
        secrets = CupSecrets(d.fake, channel, d.database)
        opened = await d.slash(players[0], channel, "kuriki start", lives=lives)
        assert opened.callback_type == 4 and not opened.ephemeral, opened.text
        assert opened.message is not None and "Kuriki" in opened.message.text()
        for p in players[1:]:
            joined = await d.click(p, channel, label="Join", message=opened.message)
            assert joined.callback_type == 7, joined.text
        started = await d.click(players[0], channel, label="Start", message=opened.message)
        # The lobby becomes a summary; the cup is posted below, calling the first Roller.
        table = d.on_table(started, opened.message)
        assert table is not opened.message, started.text
        game = cls(d, list(players), secrets, channel)
        cup = game.cup()
        # Two players have nobody to choose: the first Roller holds the cup at once.
        first = "roll" if len(players) == 2 else "direction"
        assert cup.phase == first and d.notified(table) == {cup.roller}, table.text()
        return game

    @property
    def table(self) -> FakeMessage:
        """The cup message: the channel's live table."""
        return self.d.table(self.channel)

    def cup(self) -> Cup:
        return read_cup(self.table)

    @staticmethod
    def waits_on(cup: Cup) -> int | None:
        """Whom the cup waits on: the Roller, or the Next Guy once a roll is declared."""
        return (
            None if cup.phase == "over" else cup.next_guy if cup.phase == "respond" else cup.roller
        )

    def followed(self, before: Cup, table: FakeMessage, actor: int | None = None) -> Cup:
        """The cup after `actor`'s move, wherever it is shown: posted afresh below (`table`,
        the message that showed `before`, a summary), mentioning exactly the player it now
        newly waits on, or at the end everyone still at the table; never `actor` (nobody is
        notified of their own press). With nobody to tell, `table` is edited in place."""
        live = self.table
        after = read_cup(live)
        if after.phase == "over":
            tell = {u for u, s in after.status.items() if "left" not in (s or "")} - {actor}
        else:
            waits = self.waits_on(after)
            assert waits is not None, after.text
            tell = set() if waits == self.waits_on(before) else {waits} - {actor}
        if live is table:
            assert not tell, (tell, after.text)
            return after
        assert is_summary(table) and table.buttons() == [], table.text()
        assert tell, f"posted afresh for nobody:\n{after.text}"
        assert self.d.notified(live) == tell, live.content
        return after

    def user(self, user_id: int | None) -> FakeUser:
        for p in self.players:
            if p.id == user_id:
                return p
        raise ConfusedPlayer(f"the table names <@{user_id}>, not one of {self.players}")

    def after(self, user_id: int, cup: Cup | None = None, *, clockwise: bool = True) -> FakeUser:
        """The next player with a life in the seating (join) order, as the score pad lists it."""
        cup = cup or self.cup()
        order = list(cup.lives)
        i = order.index(user_id)
        step = 1 if clockwise else -1
        for k in range(1, len(order) + 1):
            uid = order[(i + k * step) % len(order)]
            if cup.lives[uid] > 0:
                return self.user(uid)
        raise ConfusedPlayer("nobody else has a life")

    async def press(self, who: FakeUser, label: str) -> InteractionRecord:
        """`who` presses a button of the cup message; the bot must answer with the cup:
        that message updated, or reduced to a summary with the cup posted afresh below."""
        cup = self.cup()
        button = cup.button(label)
        if button is None:
            raise ConfusedPlayer(f"no {label!r} on the cup; it shows {cup.labels}:\n{cup.text}")
        rec = await self.d.click(
            who, self.channel, custom_id=button["custom_id"], message=cup.message
        )
        self.presses += 1
        if rec.callback_type != 7 or rec.message is not cup.message:
            raise AssertionError(f"{who.name} pressed {label!r}: {rec.callback_type} {rec.text}")
        self.d.on_table(rec, cup.message)
        self.followed(cup, cup.message, who.id)
        return rec

    async def refused(
        self, who: FakeUser, label: str, *, message: FakeMessage | None = None
    ) -> str:
        """`who` presses a button and is told no, privately; the cup does not change."""
        table = self.table
        msg = message or table
        before = read_cup(table).text
        button = msg.find_component(label=label)
        assert button is not None, f"no {label!r} on the message: {msg.labels()}"
        rec = await self.d.click(who, self.channel, custom_id=button["custom_id"], message=msg)
        assert rec.callback_type == 4 and rec.ephemeral, (label, rec.callback_type, rec.text)
        assert rec.message is not None and rec.message.visible_to == who.id
        assert self.table is table and read_cup(table).text == before
        return rec.text

    async def choose(self, way: str | None = None) -> Cup:
        """The first Roller chooses who plays next: `way` is the button's label ("Bob next"),
        by default the next seat's."""
        cup = self.cup()
        assert cup.phase == "direction", cup.text
        roller = self.user(cup.roller)
        await self.press(roller, way or f"{self.after(roller.id, cup).name} next")
        return self.cup()

    async def roll(self, who: FakeUser | None = None, *, take: bool = False) -> Roll | None:
        """The Roller presses Roll (the Next Guy: Roll (take the cup)); the dice arrive in an
        ephemeral only they see. None when it was a Kuriki, shown to everyone at once."""
        cup = self.cup()
        if who is None:
            who = self.user(cup.next_guy if take else cup.roller)
        mark = self.secrets.mark()
        rec = await self.press(who, "Roll (take the cup)" if take else "Roll")
        after = self.cup()
        secret = [m for m in rec.followups if m.ephemeral]
        if not secret:
            if after.phase != "over":  # (a game over names only the winner)
                # Said once: in the log while it shows it, as "Last: 👑 Kuriki" after that.
                shown = any("rolled a KURIKI" in line for line in after.log)
                assert shown != bool(LAST_KURIKI.search(after.description)), after.text
                assert after.roller == who.id and after.phase == "roll", after.text
            return None
        [eph] = secret
        assert eph.visible_to == who.id
        roll = read_roll(who, eph)
        self.secrets.hide(roll.dice, mark)
        self.under_cup = roll.dice
        assert after.phase == "declare" and after.roller == who.id, after.text
        assert roll.options, f"{who.name} rolled {roll.dice} and may declare nothing"
        return roll

    async def declare(self, roll: Roll, value: int) -> Cup:
        """The Roller chooses `value` in the select of their ephemeral."""
        before = self.cup()
        rec = await self.d.select(roll.roller, self.channel, [str(value)], message=roll.ephemeral)
        self.presses += 1
        assert rec.callback_type == 7 and rec.message is roll.ephemeral, rec.text
        assert f"You declared **{name_of(value)}**." in roll.ephemeral.text()
        assert roll.ephemeral.all_components() == []  # the menu is used up
        # The cup now waits on the Next Guy: posted afresh as the declaration's public
        # follow-up (not a channel POST: outside the global rate limit), calling him; the cup
        # above becomes a summary.
        cup = self.followed(before, before.message, roll.roller.id)
        assert cup.message is not before.message
        assert [m for m in rec.followups if not m.ephemeral] == [cup.message]
        assert cup.phase == "respond" and cup.declared == value, cup.text
        assert cup.responsible == roll.roller.id, cup.text
        return cup

    async def pull(self, who: FakeUser | None = None) -> Reveal:
        """The Next Guy pulls: the dice are shown to everyone, on the table."""
        cup = self.cup()
        who = who or self.user(cup.next_guy)
        assert self.under_cup is not None
        self.secrets.revealing(self.under_cup)
        await self.press(who, "Pull")
        after = self.cup()
        pulls = [m for line in after.log for m in [PULLED.search(line)] if m]
        assert pulls, after.text
        m = pulls[-1]
        assert VALUE_OF[m[3]] == cup.declared
        assert m[1] == self.under_cup, "the pull shows other dice than the Roller saw"
        self.secrets.reveal(m[1])
        self.under_cup = None
        # Said once: the log shows the pull, so the table does not say "Last pull" too.
        assert not LAST_PULL.search(after.description), after.text
        return Reveal(m[1], VALUE_OF[m[2]], VALUE_OF[m[3]], m[4] == "a lie!")

    async def pass_(self, who: FakeUser | None = None) -> Cup:
        cup = self.cup()
        who = who or self.user(cup.next_guy)
        await self.press(who, "Pass")
        after = self.cup()
        assert after.responsible == who.id and who.id in after.passed, after.text
        return after

    async def peek(self, who: FakeUser) -> str:
        """Peek: the dice again, in a fresh ephemeral (for whoever has seen them)."""
        cup = self.cup()
        button = cup.button(PEEK)
        assert button is not None, cup.labels
        rec = await self.d.click(
            who, self.channel, custom_id=button["custom_id"], message=cup.message
        )
        assert rec.callback_type == 4 and rec.ephemeral and rec.message is not None, rec.text
        assert rec.message.visible_to == who.id
        m = UNDER_THE_CUP.search(rec.text)
        assert m is not None, rec.text
        return f"{m[1]}-{m[2]}"

    async def sneak(self, who: FakeUser) -> str:
        """Sneak a peek: first a private question (nothing charged yet), then "Peek anyway"
        charges the foul publicly and shows the dice privately in place of the question."""
        mark = self.secrets.mark()
        cup = self.cup()
        button = cup.button(SNEAK)
        assert button is not None, cup.labels
        asked = await self.d.click(
            who, self.channel, custom_id=button["custom_id"], message=cup.message
        )
        assert asked.callback_type == 4 and asked.ephemeral and asked.message is not None
        eph = asked.message
        assert eph.visible_to == who.id and "Peek anyway?" in eph.text(), eph.text()
        assert self.table is cup.message and read_cup(cup.message).text == cup.text  # no foul yet
        rec = await self.d.click(who, self.channel, label="Peek anyway (foul)", message=eph)
        self.presses += 1
        assert rec.callback_type == 7 and rec.message is eph, rec.text
        self.followed(cup, cup.message, who.id)
        m = UNDER_THE_CUP.search(eph.text())
        assert m is not None, eph.text()
        dice = f"{m[1]}-{m[2]}"
        assert dice == self.under_cup, "the sneak shows other dice than the Roller saw"
        self.secrets.hide(dice, mark)
        assert eph.all_components() == []  # seeing is not declaring
        return dice


# ----------------------------------------------------------------------------- playing


@dataclass(frozen=True)
class Habits:
    """How the players of a test play, from what they see. The Roller declares the truth
    when the menu offers it, else the lowest declaration offered (a forced lie); the Next Guy
    pulls on `pull_at` or more, passes once if he may, and otherwise takes the cup.

    `tests/e2e/test_kuriki_games.py` chose its seeds by playing these habits on the engine
    directly (the bot's dice come from one seeded RNG, used only by the engine)."""

    pull_at: int = 9

    def declaration(self, truth: int, options: list[int]) -> int:
        return truth if truth in options else min(options)

    def response(self, declared: int, may_pass: bool) -> str:
        if declared >= self.pull_at:
            return "pull"
        return "pass" if may_pass else "take"


async def play_move(game: KurikiGame, habits: Habits) -> None:
    """One move (a roll and its declaration count as one) by whoever the cup waits for."""
    cup = game.cup()
    if cup.phase == "direction":
        await game.choose()
    elif cup.phase == "roll":
        roll = await game.roll()
        if roll is not None:
            await game.declare(roll, habits.declaration(roll.truth, roll.options))
    elif cup.phase == "respond":
        assert cup.declared is not None and cup.next_guy is not None
        act = habits.response(cup.declared, cup.next_guy not in cup.passed)
        if act == "pull":
            await game.pull()
        elif act == "pass":
            await game.pass_()
        else:
            roll = await game.roll(take=True)
            if roll is not None:
                await game.declare(roll, habits.declaration(roll.truth, roll.options))
    else:
        raise ConfusedPlayer(f"nobody can move:\n{cup.text}")


async def play_to_end(game: KurikiGame, habits: Habits, *, max_moves: int = 300) -> Cup:
    for _ in range(max_moves):
        cup = game.cup()
        if cup.phase == "over":
            return cup
        await play_move(game, habits)
    raise AssertionError(f"no winner after {max_moves} moves:\n{game.cup().text}")


# ----------------------------------------------------------------------------- checking


def lie_above(roll: Roll) -> int:
    """The lowest declaration above the truth the menu offers: a lie."""
    above = [v for v in roll.options if v > roll.truth]
    assert above, f"{roll.dice} is Boxcars: no lie above it (choose another seed)"
    return min(above)


def no_one_else_sees(game: KurikiGame, roll: Roll) -> None:
    """No other player has any message showing dice under the cup since this roll (an
    earlier Roller keeps the ephemeral of their own roll, which shows theirs)."""
    for p in game.players:
        if p is not roll.roller:
            seen = [m for m in game.d.visible(p, game.channel) if m.id >= roll.ephemeral.id]
            assert not any("Under the cup" in m.text() for m in seen), p.name


def finished_as(game: KurikiGame, cup: Cup) -> dict[str, Any]:
    """The game is over on the table and recorded, with the table's winner, in the
    finished-games table; the session is gone."""
    d = game.d
    assert cup.phase == "over" and cup.winner is not None, cup.text
    assert [b["label"] for b in cup.message.buttons()] == ["Rematch"]  # nothing else to press
    assert "Rematch below, or /kuriki start" in cup.text
    assert [a["filename"] for a in cup.message.attachments] == ["story.png"]  # the score pads
    # A new message that tells everyone still at the table (an edit notifies nobody) but
    # whoever's press ended it (nobody is notified of their own press).
    present = [uid for uid, s in cup.status.items() if "left" not in (s or "")]
    head = (cup.message.content or "").partition(": the game is over.")[0]
    told = [uid for uid in present if f"<@{uid}>" in head]
    assert len(told) >= len(present) - 1 and d.notified(cup.message) == set(told)
    assert cup.message.content == (
        " ".join(f"<@{uid}>" for uid in told)
        + f": the game is over.\n🏆 {mention(game.user(cup.winner))} wins the Kuriki game!"
    ), cup.message.content
    alive = [uid for uid, lives in cup.lives.items() if lives > 0]
    assert alive == [cup.winner], cup.text
    winner = game.user(cup.winner).name
    # The winner is said once, above the table: not again in its description or log.
    assert "Game over" not in cup.text and "last one standing" not in cup.text, cup.text
    assert d.database is not None
    [row] = read_finished(d.database, game.channel)
    assert row["kind"] == "kuriki" and row["guild_id"] == GUILD
    assert row["winner_id"] == cup.winner
    assert render(line_from_text(row["outcome"])) == f"{winner} wins, the last one standing."
    players = json.loads(row["players"])
    assert {p["id"] for p in players} == {p.id for p in game.players}
    assert players[0]["id"] == cup.winner  # ranked by lives left
    assert json.loads(row["scores"]) == {str(uid): lives for uid, lives in cup.lives.items()}
    assert d.stored(game.channel) is None
    # Its dice were sealed: the seed in no message before this last table, every draw the
    # seed's, every roll under the cup recorded.
    dice = json.loads(row["dice"])
    assert_sealed_until_revealed(d.fake, dice["seed"], d.logs.records)
    assert verdict(dice).ok
    assert any(e[3] == "cup" for m in dice["moves"] for e in m["draws"] if e[0] == "dice")
    return row


def finish_secrets(game: KurikiGame) -> None:
    """The live checks found nothing, and had something to check."""
    assert game.secrets.watch.leaks == []
    stored = game.secrets.stored
    assert stored is None or (stored.leaks == [] and stored.checked > 0)
    assert game.secrets.revealed, "no pull revealed anything: the check checked nothing"
    game.secrets.stop()
