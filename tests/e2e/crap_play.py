"""CRAP players for end-to-end tests. Each player acts only on what they can see: the public
table message (its text and buttons) and their own "My hand" replies (their cards, and the
selects and buttons of the moves they may make). Bot seats play by themselves: the people
wait for the table to change, and answer what the bots ask of them.

    game = await CrapGame.open(d, [ALICE, BOB, CAROL], threshold=150)
    await play_to_end(game)
    game = await CrapGame.open(d, [ALICE, BOB], threshold=100, channel=dm, bots=1)

`CardReferee` is the hidden-information check of CRAP (see its docstring): unlike the
players it reads the committed game state from the database, to know which cards have been
shown to everyone; nothing it reads ever reaches a player's decision."""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.tables.crap import last_shown
from games.bots import FIRST_BOT_ID, LAST_BOT_ID, bot_name, is_bot
from games.crap.cards import RANKS, SUITS, label
from games.crap.engine import CrapState
from tests.e2e.bot_play import until
from tests.e2e.fake_discord import FakeMessage, FakeUser, InteractionRecord
from tests.e2e.harness import TABLE, Driver, is_summary, read_session
from tests.e2e.hidden_info import strings_in, watch_public_secrets

# ----------------------------------------------------------------------------- reading

# A seat as the table writes it: a person's mention, or a bot's name (bots are never mentioned).
BOT_NAMES = {bot_name(i): i for i in range(FIRST_BOT_ID, LAST_BOT_ID + 1)}
WHO = "(<@\\d+>|" + "|".join(re.escape(n) for n in sorted(BOT_NAMES, key=len, reverse=True)) + ")"
TURN = re.compile(rf"\*\*{WHO}'s turn\*\*")
ACQUIRE = re.compile(rf"{WHO}: \*\*Acquire (.+?)!\*\*")
CHALLENGE = re.compile(rf"⚔ {WHO} challenges {WHO} and rolled \*\*([1-6])\*\*")
SEAT = re.compile(WHO)
# (said alone, or after "your turn" when the partner plays next)
COOPERATED = re.compile(rf"<@(\d+)>: (?:your turn \()?{WHO} co-operated with you")
# ▶ whose turn, ⏳ whom the table waits on, ✓ who lets the open Acquire go, · anyone else
PLAYER_ROW = re.compile(
    rf"^([▶·⏳✓]) {WHO} \*\*(-?\d+)\*\* ✋(\d+) 🛡(\d+)(?: · sets (.*) \(\+\d+ next round\))?$",
    re.M,
)
DECK = re.compile(r"Deck (\d+) · discard (\d+) · (\d+) scoring rounds?")
PROOF = re.compile(r"calls the bluff, but (.+?) shows (\S+)\.")
SHOWED = re.compile(r"^(.+?) showed (.+?): ")
RECYCLED = re.compile(r"^(.+?) (?:recycles|is forced to recycle), showing (.+?)\. Roll-off")
WINNERS = re.compile(r"🏆 (.+?) wins? the CRAP game!")  # said once, above the table

HAND = re.compile(r"^\*\*Your hand \((\d+)\):\*\* (.+)$", re.M)
PROTECTED = re.compile(r"^\*\*Protected \((\d+)\):\*\* (.+)$", re.M)
SEEN = re.compile(rf"^\*\*Seen in co-operate, {WHO}'s hand:\*\* (.+)$", re.M)
FACE_DOWN = re.compile(r"^\*\*Face down in the challenge:\*\* (.+)$", re.M)
# Every line of the "My hand" reply that lists cards: only its owner may ever see one.
PRIVATE_LINE = re.compile(r"^\*\*(?:Your hand|Protected|Seen in co-operate|Face down).*$", re.M)

# Cards as the bot writes them: "10♠", "K♥", "🃏" (a joker), or grouped in public lists:
# "7♣♥♥" (three sevens), "🃏×2".
CARD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♠♥♦♣]+)|🃏(?:×(\d+))?")
GUESS = re.compile(r"name[sd] (?:10|[2-9JQKA])[♠♥♦♣]")
TITLE = "🃏 CRAP"  # the table's title: its joker is a picture, not a card

RANK_OF = {"J": 11, "Q": 12, "K": 13, "A": 14, **{str(r): r for r in range(2, 11)}}
WORDS = {"Jacks": 11, "Queens": 12, "Kings": 13, "Aces": 14, **{f"{r}s": r for r in range(2, 11)}}


class ConfusedPlayer(AssertionError):
    """The table or a reply shows something a player cannot act on."""


def seat_id(written: str) -> int:
    """The seat a WHO match names: '<@123>' -> 123, '🤖 Dicey' -> the bot's id."""
    return BOT_NAMES[written] if written in BOT_NAMES else int(written[2:-1])


def card_rank(card: str) -> int:
    """0 for a joker, else 2..14 ('10♠' -> 10, 'K♥' -> 13)."""
    return 0 if card == "🃏" else RANK_OF[card[:-1]]


def expand(match: re.Match[str]) -> list[str]:
    """The cards one CARD match stands for ('7♣♥' -> ['7♣', '7♥'])."""
    if match[0].startswith("🃏"):
        return ["🃏"] * int(match[3] or 1)
    return [match[1] + s for s in match[2]]


def cards_of(listing: str) -> list[str]:
    """'K♥ 10♠' or grouped '7♣♥♥ 🃏×2' -> one label per card."""
    return [c for m in CARD.finditer(listing) for c in expand(m)]


@dataclass
class Table:
    """What anyone reads off the public table message."""

    message: FakeMessage
    text: str
    phase: str  # turn, acquire, challenge, over
    current: int | None  # whose turn (phase turn)
    acquirer: int | None
    acquire_rank: int | None
    challenger: int | None
    challenged: int | None
    die: int | None
    waiting: list[int]
    scores: dict[int, int]
    hands: dict[int, int]
    protected: dict[int, int]
    sets: dict[int, str]
    deck: int
    rounds: int
    log: list[str]  # every line of the last action
    shown: list[str]  # the cards shown to everyone before it
    winners: list[int]

    @property
    def labels(self) -> list[str]:
        return self.message.labels()


def read_table(message: FakeMessage) -> Table:
    [embed] = message.embeds
    description = embed.get("description") or ""
    turn, acq = TURN.search(description), ACQUIRE.search(description)
    ch, won = CHALLENGE.search(description), WINNERS.search(message.content or "")
    if won:
        phase = "over"
    elif turn:
        phase = "turn"
    elif acq:
        phase = "acquire"
    elif ch:
        phase = "challenge"
    else:
        raise ConfusedPlayer(f"cannot tell what the table waits for:\n{message.text()}")
    rows = list(PLAYER_ROW.finditer(description))
    deck = DECK.search((embed.get("footer") or {}).get("text", ""))
    lines = description.splitlines()
    if not rows or deck is None:
        raise ConfusedPlayer(f"no players or deck on the table:\n{message.text()}")
    return Table(
        message=message,
        text=message.text(),
        phase=phase,
        current=seat_id(turn[1]) if turn else None,
        acquirer=seat_id(acq[1]) if acq else None,
        acquire_rank=WORDS[acq[2]] if acq else None,
        challenger=seat_id(ch[1]) if ch else None,
        challenged=seat_id(ch[2]) if ch else None,
        die=int(ch[3]) if ch else None,
        waiting=[seat_id(m[2]) for m in rows if m[1] == "⏳"],
        scores={seat_id(m[2]): int(m[3]) for m in rows},
        hands={seat_id(m[2]): int(m[4]) for m in rows},
        protected={seat_id(m[2]): int(m[5]) for m in rows},
        sets={seat_id(m[2]): m[6] or "" for m in rows},
        deck=int(deck[1]),
        rounds=int(deck[3]),
        log=[line.removeprefix("› ") for line in lines if line.startswith("› ")],
        shown=[line.removeprefix("👁 ") for line in lines if line.startswith("👁 ")],
        winners=[seat_id(x) for x in SEAT.findall(won[1])] if won else [],
    )


@dataclass
class Hand:
    """What a player's "My hand" reply shows: their cards and what they may do."""

    owner: FakeUser
    message: FakeMessage
    hand: list[str]
    protected: list[str]
    seen: dict[int, list[str]]
    face_down: list[str]
    components: dict[str, dict[str, Any]]  # by action: t:crap:<action>:...

    def options(self, action: str) -> dict[str, str]:
        """label -> value of the select for `action`."""
        comp = self.components.get(action)
        if comp is None or comp.get("type") != 3:
            raise ConfusedPlayer(
                f"{self.owner.name} has no {action} select: {list(self.components)}"
            )
        return {o["label"]: o["value"] for o in comp["options"]}

    def counts(self, *, protected: bool = True) -> Counter[int]:
        """How many cards of each value the player holds (jokers not counted)."""
        cards = self.hand + (self.protected if protected else [])
        return Counter(card_rank(c) for c in cards if c != "🃏")


def read_hand(owner: FakeUser, message: FakeMessage, *, cards_shown: bool = True) -> Hand:
    """The reply as `owner` sees it; `cards_shown=False` for a reply that may show no
    cards."""
    assert message.ephemeral and message.visible_to == owner.id, "a hand reply must be private"
    text = message.text()
    hand, prot = HAND.search(text), PROTECTED.search(text)
    if cards_shown and (hand is None or prot is None):
        raise ConfusedPlayer(f"{owner.name}'s reply shows no hand:\n{text}")
    cards = cards_of(hand[2]) if hand else []
    protected = cards_of(prot[2]) if prot else []
    assert hand is None or len(cards) == int(hand[1]), text
    assert prot is None or len(protected) == int(prot[1]), text
    face_down = FACE_DOWN.search(text)
    components = {}
    for comp in message.all_components():
        if comp.get("type") in (2, 3):
            components[comp["custom_id"].split(":")[2]] = comp
    return Hand(
        owner=owner,
        message=message,
        hand=cards,
        protected=protected,
        seen={seat_id(m[1]): cards_of(m[2]) for m in SEEN.finditer(text)},
        face_down=cards_of(face_down[1]) if face_down else [],
        components=components,
    )


# ----------------------------------------------------------------------------- secrets


class CardReferee:
    """The hidden-information check of CRAP, run on every public body the bot sends, as
    Discord accepts it (a hook of the fake): bots move between the players' presses, so a
    body is checked against the state committed when it was sent, whoever moved.

    Card labels are poor secrets on their own: two decks hold two of each card ("K♥" may be
    in Bob's hand while the other K♥, recycled by Alice, is legitimately on the table), and a
    hidden card becomes public when it is recycled, proves an Acquire, is turned up in a
    challenge, discarded at random or scored. So the referee keeps the ledger the players
    cannot: at each body it reads the committed state (the bot commits before it shows a
    move) and, when a move was made since, notes by card id the cards that move showed to
    everyone: the engine's new reveals (a recycled hand, protected cards lost in a roll-off,
    an Acquire's proof or discard, a challenge's cards), new scored sets (their cards and an
    Ace's marker: the score line names them) and the cards new in the discard pile (a
    random discard names its card).

    A card label in a public body is legitimate only if a card with that label is in one of
    the reveals the table shows now ("Shown to everyone", the last three), or was shown by a
    move whose log lines may still be among the `LOG_LINES` the table shows (the referee
    counts the lines each move adds to the state's log). Any other card label there is a
    card of a hand, a protected row, the face-down cards of a challenge or the deck, and
    fails the test. Forgetting what scrolled off keeps the check sharp all game long: by
    its end nearly every label has been public at some time. With bots at the table a body
    may show a state a move or two older than the one committed when it arrives (a bot
    moved while it was on its way), so what was legitimate in the last `lag` + 1 states
    noted counts.

    Besides, every card-listing line of each "My hand" reply ("**Your hand (7):** ...", the
    protected row, what a co-operate showed, the face-down cards) is hidden verbatim with
    `watch_public_secrets`: with its bold prefix such a line is in no public body unless a
    private reply went public, so it cannot match by accident, whereas a bare listing such
    as "5♦ 5♠" legitimately may (a scored set, a recycled hand)."""

    def __init__(self, d: Driver, channel: int = TABLE) -> None:
        assert d.database is not None
        self.d = d
        self.channel = channel
        self.watch = watch_public_secrets(d.fake)
        self.hidden: set[str] = set()
        self.checked = 0  # bodies of fake.sent already checked
        self.revision: int | None = None
        self.state: CrapState | None = None
        self.on_table: list[int] = []  # the cards of the reveal the table shows now
        self.window = 2  # how many log lines public messages show now
        self.lines = 0  # log lines written so far
        self.shown_at: dict[int, int] = {}  # card id -> self.lines after the move showing it
        self.bodies = 0  # public bodies checked
        self.cards_checked = 0  # card labels found in them (all legitimate)
        self.failures: list[str] = []  # what the hook found, raised on the test's side
        #: How many states before the latest a body may still show: 0 when every move is a
        #: press, answered and shown before the next; with bots moving by themselves, a
        #: table on its way may arrive after the next move was committed.
        self.lag = 0
        self.recent: list[set[str]] = []  # what was legitimate in the last states noted
        d.fake.sent_hooks.append(self._on_sent)

    def hide_private_lines(self, hand: Hand) -> None:
        for line in PRIVATE_LINE.findall(hand.message.text()):
            if line not in self.hidden:
                self.hidden.add(line)
                self.watch.hide(line)

    def _show(self, cards: list[int]) -> None:
        for c in cards:
            self.shown_at[c] = self.lines

    @staticmethod
    def _appended(old: list[Any], new: list[Any]) -> int:
        """How many items a move appended to a list the state keeps the last few of (the
        fewest that explain the change: identical lines make it a lower bound)."""
        return next(
            n
            for n in range(len(new) + 1)
            if n == len(new) or new[: len(new) - n] == old[len(old) - (len(new) - n) :]
        )

    def _note(self, before: CrapState | None, state: CrapState) -> None:
        self.lines += self._appended(before.log if before else [], state.log)
        new = self._appended(before.reveals if before else [], state.reveals)
        for r in state.reveals[len(state.reveals) - new :]:
            self._show(r.cards)
        old_sets = (
            {tuple(st.all_cards()) for p in before.players for st in p.sets} if before else set()
        )
        for p in state.players:
            for st in p.sets:
                if tuple(st.all_cards()) not in old_sets:
                    self._show(st.all_cards())
        old_discard = set(before.discard) if before else set()
        self._show([c for c in state.discard if c not in old_discard])
        self.window = max(state.last_lines, 2)  # the table's lines, or a summary's two
        self.on_table = [c for r in last_shown(state) for c in r.cards]

    def _on_sent(self, sent: Any) -> None:
        """The fake accepted a body: note the state it shows and check it. A leak is kept
        and raised by the next `after` (an exception here would be the fake's, not the
        test's)."""
        try:
            self.observe()
            self.check()
        except AssertionError as exc:
            self.failures.append(str(exc))

    def observe(self) -> None:
        """Note what the committed state shows, when a move was made since the last look."""
        row = read_session(self.d.database, self.channel)  # type: ignore[arg-type]
        revision = row["revision"] if row else None
        if revision == self.revision and row is not None:
            return
        data = json.loads(row["data"]) if row else None
        state = CrapState.model_validate(data["state"]) if data and data["state"] else None
        if state is not None:
            self._note(self.state, state)
        elif self.state is not None:
            # The game is over and its row gone: its last move may have shown the mover's
            # cards (a recycle: the hand, and the protected cards if the roll-off was lost)
            # or the challenge's (the guess that settled it); nothing else.
            me = self.state.current_player
            self._show(me.hand + me.protected)
            if self.state.challenge is not None:
                for cards in self.state.challenge.committed.values():
                    self._show(cards)
        self.state, self.revision = state, revision
        self.recent = [*self.recent, self.legitimate()][-(self.lag + 1) :]

    def after(self, actor: FakeUser | None = None) -> None:
        """A player dispatched something, or waited for the bots: fail on anything the
        bodies sent meanwhile showed that nobody was shown."""
        self.observe()
        self.check()
        if self.failures:
            raise AssertionError(self.failures[0])

    def legitimate(self) -> set[str]:
        recent = [c for c, n in self.shown_at.items() if self.lines - n < self.window]
        return {label(c) for c in recent + self.on_table}

    def check(self) -> None:
        allowed = set().union(*self.recent) if self.recent else self.legitimate()
        leaks = []
        for sent in self.d.fake.sent[self.checked :]:
            if not sent.public:
                continue
            self.bodies += 1
            for text in strings_in(sent.body):
                # A challenge's guess ("Alice names 4♥") is said aloud, not a card shown.
                text = GUESS.sub("names a guess", text.replace(TITLE, ""))
                for m in CARD.finditer(text):
                    for card in expand(m):
                        self.cards_checked += 1
                        if card not in allowed:
                            where = text[max(0, m.start() - 60) : m.end() + 30]
                            leaks.append(
                                f"{sent.method} {sent.path} shows {card}, a card nobody was "
                                f"shown: ...{where.replace(chr(10), ' | ')}..."
                            )
        self.checked = len(self.d.fake.sent)
        assert not leaks, "hidden cards in public payloads:\n" + "\n".join(leaks)

    def stop(self) -> None:
        self.watch.stop()
        if self._on_sent in self.d.fake.sent_hooks:
            self.d.fake.sent_hooks.remove(self._on_sent)


# ----------------------------------------------------------------------------- acting


@dataclass
class CrapGame:
    """A started game: the driver, the people in join order, every seat in the table's
    order (`seats`: the people and the bots, which move by themselves), and what the test
    saw happen (`did`). The table message is the channel's live table (`table_message`).

    With bots at the table the game moves between the people's presses, so what a press
    left on the table may already be gone when the test reads it: `as_left` says whether it
    is still there, and the checks of a move's effect on the table are made only then."""

    d: Driver
    players: list[FakeUser]
    referee: CardReferee
    channel: int = TABLE
    seats: list[int] = field(default_factory=list)
    presses: int = 0
    did: Counter[str] = field(default_factory=Counter)
    did_by: Counter[tuple[int, str]] = field(default_factory=Counter)
    #: Taps each person made for their side of the challenge being played.
    taps: Counter[int] = field(default_factory=Counter)
    agenda: list[str] = field(default_factory=list)
    last_move: dict[int, str] = field(default_factory=dict)
    last: InteractionRecord | None = None  # the last choice made in a hand reply
    letting_go: set[int] = field(default_factory=set)  # who turned on Let bluffs go
    look: int | None = None  # the revision the test's last press or wait left
    looked_at: set[int] = field(default_factory=set)  # co-operate calls already answered

    @property
    def bots(self) -> list[int]:
        return [s for s in self.seats if is_bot(s)]

    def ping(self, target: FakeUser) -> FakeMessage:
        """The table posted after a co-operate, which tells `target` of it (no message of
        its own): it mentions them, notified them once, and has My hand."""
        table = self.table_message
        assert f"<@{target.id}>: " in (table.content or "") and "co-operated" in (
            table.content or ""
        ), table.content
        assert "My hand" in table.labels(), table.text()
        calls = [m for m in self.d.fake.public(self.channel) if target.id in m.notified]
        assert calls and calls[-1] is table, [m.text() for m in calls]
        return table

    @classmethod
    async def open(
        cls,
        d: Driver,
        players: list[FakeUser],
        *,
        threshold: int,
        channel: int = TABLE,
        bots: int = 0,
    ) -> CrapGame:
        """`/crap start threshold:<t> jokers:True [bots:<n>]` by the first player, Join by
        the others, Start by the first."""
        referee = CardReferee(d, channel)
        referee.lag = 2 if bots else 0
        game = cls(d, list(players), referee, channel)
        opened = await d.slash(
            players[0], channel, "crap start", threshold=threshold, jokers=True, bots=bots or None
        )
        referee.after(players[0])
        assert opened.callback_type == 4 and not opened.ephemeral, opened.text
        assert opened.message is not None
        assert f"two decks with jokers, to **{threshold}** points" in opened.message.text()
        for i in range(FIRST_BOT_ID, FIRST_BOT_ID + bots):
            # The lobby names its players on one line: "<@host> (host), 🤖 Dicey".
            players_line = next(
                line for line in opened.message.text().splitlines() if "(host)" in line
            )
            assert bot_name(i) in players_line, opened.message.text()
        for p in players[1:]:
            joined = await d.click(p, channel, label="Join", message=opened.message)
            referee.after(p)
            assert joined.callback_type == 7, joined.text
        lobby = game._revision()
        started = await d.click(players[0], channel, label="Start", message=opened.message)
        await game._quiet()
        referee.after(players[0])
        game.look = None if lobby is None else lobby + 1
        table = game.table()
        game.seats = list(table.scores)
        bot_ids = set(range(FIRST_BOT_ID, FIRST_BOT_ID + bots))
        assert set(game.seats) == {p.id for p in players} | bot_ids, table.text
        if game.as_left() is None:  # a bot started, and has moved already
            return game
        # The lobby becomes a summary; the table is posted below, calling the first player.
        # A bot is never called, nor whoever pressed Start: with nobody to call, the lobby
        # message becomes the table.
        live = d.on_table(started, opened.message)
        called = {table.current} - set(game.bots) - {players[0].id}
        assert (live is not opened.message) == bool(called), started.text
        assert not called or d.notified(live) == called, live.content
        assert table.phase == "turn" and all(s == 0 for s in table.scores.values()), table.text
        assert 108 - sum(table.hands.values()) == table.deck, table.text
        return game

    @property
    def table_message(self) -> FakeMessage:
        """The channel's live table."""
        return self.d.table(self.channel)

    def table(self) -> Table:
        return read_table(self.table_message)

    def _revision(self) -> int | None:
        """The stored game's revision (None once it is over: its row is gone)."""
        row = read_session(self.d.database, self.channel)  # type: ignore[arg-type]
        return row["revision"] if row else None

    def as_left(self) -> Table | None:
        """The live table, if nothing moved since the test's last press or wait: else None
        (a bot moved since, so what the press showed is gone by). Always the table in a
        game without bots. (The reads of the table and of the stored revision are made
        with no await between them: the table cannot show a newer move than the store.)"""
        table = self.table()
        if not self.bots:
            return table
        revision = self._revision()
        return table if revision is not None and revision == self.look else None

    def followed(self, before: Table, actor: int | None = None) -> Table:
        """The table after a move: the message that showed `before`, edited, while nobody
        new is waited on; else posted afresh below (that message reduced to a summary),
        mentioning exactly whom the game now waits on besides those it waited on already:
        the next player, everyone asked about an Acquire, whoever a challenge's step falls to
        (the challenged player, a player to name a card); at the end,
        everyone still at the table; never `actor`, whose press it was (nobody is notified of
        their own press: when only they are newly waited on, the table is edited), nor a bot
        (bots are never mentioned). When a bot moved since, the live table is returned
        unchecked: the bot's move is shown as it comes."""
        after = self.as_left()
        if after is None:
            return self.table()
        bots = set(self.bots)
        if after.message is before.message:  # then nobody new is waited on, but the actor
            if after.phase == "turn" and before.phase == "turn":
                assert after.current in (before.current, actor) or after.current in bots, after.text
            # An Acquire's window asks nobody; the player after a challenge was called by it
            # (a challenge that calls nobody but bots and the actor is edited in place too).
            if after.phase == "challenge" and before.phase != "challenge":
                assert after.challenger is not None and after.challenged is not None
                called = {after.challenged, self.next_seat(after.challenger)}
                assert called <= bots | {actor}, after.text
            if after.phase == "turn" and before.phase == "challenge":
                assert before.challenger is not None
                assert after.current in (self.next_seat(before.challenger), before.challenged)
            return after
        assert is_summary(before.message) and before.message.buttons() == [], before.text
        pinged = self.d.notified(after.message)
        told = {int(m[1]) for m in COOPERATED.finditer(after.message.content or "")}
        players = {p.id for p in self.players}
        if after.phase == "over":  # (players who left are not on the score rows)
            expected = players & set(after.scores)
        elif after.phase == "turn":
            expected = {after.current} | told  # and a co-operate's partner
        elif after.phase == "challenge":
            # Whoever a step newly falls to (place cards, name a card); at its start also
            # the player whose turn comes after it, unless that is the challenged player.
            assert after.challenger is not None and after.challenged is not None
            expected = set(after.waiting) - set(before.waiting if before.phase == "challenge" else [])
            if before.phase != "challenge":
                expected |= {self.next_seat(after.challenger)}
        else:  # an Acquire's window is never posted: it asks nobody
            raise AssertionError(f"a table posted afresh for nobody:\n{after.text}")
        expected -= {actor} | bots
        assert expected, f"a table posted afresh for nobody:\n{after.text}"
        assert pinged == expected, (pinged, expected, after.message.content)
        return after

    def user(self, user_id: int | None) -> FakeUser:
        for p in self.players:
            if p.id == user_id:
                return p
        raise ConfusedPlayer(f"the table names <@{user_id}>, not one of {self.players}")

    def name_of(self, seat: int) -> str:
        """A seat's name in the game's words (the log, the menus)."""
        return bot_name(seat) if is_bot(seat) else self.user(seat).name

    def after(self, user_id: int) -> FakeUser:
        """The next person to play after `user_id` (bots skipped)."""
        return self.user(next(s for s in self.seats_after(user_id) if not is_bot(s)))

    def next_seat(self, seat: int) -> int:
        """Who plays after `seat`."""
        return self.seats[(self.seats.index(seat) + 1) % len(self.seats)]

    def seats_after(self, seat: int) -> list[int]:
        """Everyone else, in playing order from `seat` on."""
        i = self.seats.index(seat)
        return self.seats[i + 1 :] + self.seats[:i]

    def target_for(self, who: FakeUser) -> int:
        """Whom the agenda's challenge or co-operate aims at: the first bot (which answers
        by itself), else the next player."""
        return self.bots[0] if self.bots else self.next_seat(who.id)

    async def _quiet(self) -> None:
        """Wait until the bot is done with everything, showing a table included: a table
        shown afresh retires the old message before the new one is posted, and a bot's
        move is shown whenever it comes. Reads made after this with no await between them
        see one whole live table."""
        tables = self.d.bot.tables if self.d.bot is not None else None
        while True:
            await self.d.settle()
            if tables is None or not tables.display_lock(self.channel).locked():
                return
            await asyncio.sleep(0.005)

    async def _dispatched(
        self, who: FakeUser, rec: InteractionRecord, *, moved_from: int | None = None
    ) -> InteractionRecord:
        """A press was answered: check the bodies it sent. `moved_from`: the revision before
        the press, when it makes a move (the next one is the move's own)."""
        self.presses += 1
        await self._quiet()
        self.referee.after(who)
        if moved_from is not None:
            self.look = moved_from + 1
        return rec

    async def wait(self, what: str, ok: Callable[[Table], bool]) -> Table:
        """A person watches the live table until `ok` holds of it (at once if it does):
        bots move by themselves, after the server's `bot_delay`, and their moves are shown
        without anyone pressing."""
        while True:
            await self._quiet()
            self.referee.after()
            table = self.table()
            if ok(table):
                self.look = self._revision()
                return table
            await until(self.d, what, functools.partial(self._changed, table), channel=self.channel)

    def _changed(self, table: Table) -> bool:
        """The live table no longer shows what `table` showed (checking what was sent
        meanwhile); False while none is shown (between retiring a table and its successor)."""
        self.referee.after()
        tables = self.d.tables(self.channel)
        return bool(tables) and tables[-1].text() != table.text

    async def log(self, who: FakeUser) -> list[str] | None:
        """`who` presses Log on the table: the game so far, only to them; None when the
        game ended as they pressed (a bot's move ended it meanwhile)."""
        rec = await self.d.click(who, self.channel, label="Log", message=self.table_message)
        await self._dispatched(who, rec)
        assert rec.callback_type == 4 and rec.message is not None, rec.text
        assert rec.message.ephemeral and rec.message.visible_to == who.id
        embed = rec.message.embeds[0] if rec.message.embeds else {}
        if embed.get("title") != "📜 The game so far" and self.bots and self._revision() is None:
            return None
        assert embed.get("title") == "📜 The game so far", rec.text
        return (embed.get("description") or "").splitlines()

    # ------------------------------------------------------------------ the hand

    async def my_hand(self, who: FakeUser, message: FakeMessage | None = None) -> Hand:
        """`who` presses My hand on the table (or on `message`, a ping): a fresh reply only
        they see."""
        revision = self._revision()
        rec = await self.d.click(
            who, self.channel, label="My hand", message=message or self.table_message
        )
        await self._dispatched(who, rec)
        assert rec.callback_type == 4 and rec.message is not None, rec.text
        hand = read_hand(who, rec.message)
        self.referee.hide_private_lines(hand)
        if not self.bots or self._revision() == revision:  # (else a bot moved meanwhile)
            table = self.table()
            assert len(hand.hand) == table.hands[who.id], (hand.hand, table.text)
            assert len(hand.protected) == table.protected[who.id], (hand.protected, table.text)
        return hand

    def pings(self) -> Counter[int]:
        """How many public messages of the channel have notified each user so far (an edit
        notifies nobody)."""
        return Counter(u for m in self.d.fake.public(self.channel) for u in m.notified)

    async def choose(self, hand: Hand, action: str, values: list[str]) -> Hand:
        """Choose in a select of the hand reply; the reply is updated in place with the new
        hand, and the table is brought up to date."""
        comp = hand.components[action]
        who = hand.owner
        before = self.table()
        revision = self._revision()
        rec = await self.d.select(
            who, self.channel, values, custom_id=comp["custom_id"], message=hand.message
        )
        await self._dispatched(who, rec, moved_from=revision)
        self.last = rec
        assert rec.callback_type == 7 and rec.message is hand.message, rec.text
        assert self.followed(before, who.id).text != before.text, f"{action} left the table as it was"
        ended = "The game is over." in hand.message.text()  # this move ended the game
        if ended or (self.table().phase == "over" and not self.bots):
            assert ended and self.table().phase == "over", hand.message.text()
            return hand
        after = read_hand(who, hand.message)
        self.referee.hide_private_lines(after)
        return after

    async def press_in_hand(self, hand: Hand, action: str) -> Hand | None:
        comp = hand.components[action]
        who = hand.owner
        before = self.table()
        revision = self._revision()
        rec = await self.d.click(
            who, self.channel, custom_id=comp["custom_id"], message=hand.message
        )
        await self._dispatched(who, rec, moved_from=revision)
        assert rec.callback_type == 7 and rec.message is hand.message, rec.text
        self.followed(before, who.id)
        if "The game is over." in hand.message.text():
            assert self.table().phase == "over"
            return None
        after = read_hand(who, hand.message)
        self.referee.hide_private_lines(after)
        return after

    async def press(self, who: FakeUser, label: str) -> Table:
        """`who` presses a button of the table; the bot answers with the table: that message
        updated, or reduced to a summary with the table posted afresh below."""
        table = self.table()
        button = table.message.find_component(label=label)
        if button is None:
            raise ConfusedPlayer(f"no {label!r} on the table; it shows {table.labels}")
        revision = self._revision()
        rec = await self.d.click(
            who, self.channel, custom_id=button["custom_id"], message=table.message
        )
        await self._dispatched(who, rec, moved_from=revision)
        if self.as_left() is not None:  # (a bot's move may have been posted since)
            self.d.on_table(rec, table.message)
        assert rec.callback_type == 7 and rec.message is table.message, rec.text
        self.last_press = rec
        return self.followed(table, who.id)


# ----------------------------------------------------------------------------- playing

AGENDA = ["protect", "acquire", "challenge", "cooperate", "recycle", "bluff"]
#: With a bot at the table: challenge it and co-operate with it (it answers by itself), and
#: an Acquire the bot answers alone (the people let bluffs go).
BOT_AGENDA = ["challenge", "cooperate", "acquire"]


def best_rank(hand: Hand, *, protected: bool = True) -> tuple[int, int] | None:
    """The value the player holds most of (the higher on a tie) and how many."""
    counts = hand.counts(protected=protected)
    if not counts:
        return None
    r = max(counts, key=lambda k: (counts[k], k))
    return r, counts[r]


def cards_to_place(hand: Hand, need: int) -> list[str]:
    """The values of the commit select: the cards of the values held fewest first. (One
    option per card: two of a label, from the two decks, are two options.)"""
    hand.options("commit")  # (a select it is)
    options = [(o["label"], o["value"]) for o in hand.components["commit"]["options"]]
    counts = hand.counts()
    ordered = sorted(options, key=lambda o: (counts.get(card_rank(o[0]), 0), card_rank(o[0])))
    return [value for _, value in ordered[:need]]


async def take_turn(game: CrapGame, who: FakeUser) -> None:
    """The player whose turn the table shows opens My hand and makes one move: a set when
    they can score, else the next move of the test's agenda, else an Acquire of the value
    they hold most of (once in a row), else a Recycle."""
    hand = await game.my_hand(who)
    if "score" in hand.components:
        options = hand.options("score")
        # The highest value; a double set before a single one; Aces last (worth little early).
        value = max(
            options.values(),
            key=lambda v: (int(v.split("-")[0]) != 14, int(v.split("-")[1]), int(v.split("-")[0])),
        )
        before = game.table()
        await game.choose(hand, "score", [value])
        game.did["score"] += 1
        game.last_move[who.id] = "score"
        after = game.as_left()
        if after is not None and after.phase != "over":
            assert after.sets[who.id] != before.sets[who.id], after.text
        return
    move = game.agenda[0] if game.agenda else None
    if move == "protect" and "protect" in hand.components:
        game.agenda.pop(0)
        return await protect(game, hand)
    if move == "acquire" and game.bots:
        game.agenda.pop(0)
        return await acquire_letting_go(game, who)
    if move == "acquire":
        game.agenda.pop(0)
        return await acquire(game, hand, bluff=False, responses=["Let it go", "Call bluff"])
    if move == "bluff":
        game.agenda.pop(0)
        return await acquire(game, hand, bluff=True, responses=["Call bluff"])
    if move == "challenge":
        game.agenda.pop(0)
        return await challenge(game, hand, game.target_for(who))
    if move == "cooperate":
        game.agenda.pop(0)
        return await cooperate(game, hand, game.target_for(who))
    if move == "recycle":
        game.agenda.pop(0)
        return await recycle(game, hand)
    unprotected = best_rank(hand, protected=False)
    if unprotected is not None and unprotected[1] == 3 and not hand.protected:
        return await protect(game, hand)  # keep one of a triple safe from Acquires
    best = best_rank(hand)
    if best is not None and best[1] >= 2 and game.last_move.get(who.id) != "acquire":
        if game.agenda and not game.bots:  # the agenda's Acquires are answered on the table
            return await acquire(game, hand, bluff=False, responses=["Let it go", "Let it go"])
        # After the agenda no person answers an Acquire: everyone has turned on Let bluffs
        # go (in My hand), so it goes through at once, or as soon as the bots answered.
        return await acquire_letting_go(game, who)
    return await recycle(game, hand)


async def acquire_letting_go(game: CrapGame, who: FakeUser) -> None:
    """Every person turns on Let bluffs go (in My hand), then `who` calls an Acquire that
    no person answers: only the bots, if any, have a say."""
    for p in game.players:
        if p.id not in game.letting_go:
            await let_bluffs_go(game, p)
    hand = await game.my_hand(who)
    await acquire(game, hand, bluff=False, responses=[])


async def let_bluffs_go(game: CrapGame, who: FakeUser) -> None:
    """`who` turns on Let bluffs go in their My hand: their hand says so from then on."""
    hand = await game.my_hand(who)
    comp = hand.components["letgo"]
    assert comp["label"] == "Let bluffs go: off", comp
    revision = game._revision()
    rec = await game.d.click(who, game.channel, custom_id=comp["custom_id"], message=hand.message)
    await game._dispatched(who, rec, moved_from=revision)
    assert rec.callback_type == 7 and rec.message is hand.message, rec.text
    assert "(**Let bluffs go** is on)" in hand.message.text(), hand.message.text()
    assert hand.message.find_component(label="Let bluffs go: on") is not None
    game.letting_go.add(who.id)


async def protect(game: CrapGame, hand: Hand) -> None:
    best = best_rank(hand, protected=False)
    assert best is not None
    # Two identical cards (two decks) are one entry, said once: "2♦ ×2".
    options = {lab.split(" ×")[0]: value for lab, value in hand.options("protect").items()}
    assert len(options) == len(hand.options("protect")), "a card listed twice"
    lab = next(lab for lab in options if card_rank(lab) == best[0])
    after = await game.choose(hand, "protect", [options[lab]])
    assert after.protected.count(lab) == hand.protected.count(lab) + 1, after.protected
    assert len(after.hand) == len(hand.hand) - 1
    table = game.as_left()
    if table is not None:
        assert table.protected[hand.owner.id] == len(after.protected), table.text
    game.did["protect"] += 1
    game.last_move[hand.owner.id] = "protect"


async def respond(game: CrapGame, responder: FakeUser, answer: str) -> Table:
    """`responder` answers an open Acquire on the table: Call bluff, or Let it go."""
    table = game.table()
    assert table.phase == "acquire", table.text
    table = await game.press(responder, answer)
    if answer == "Let it go":  # one tap, answered on the table; the window closes as soon
        # as everyone else has let it go (or one calls), without waiting for its deadline.
        # Only a player's first pass of the game is acknowledged privately (it tells of Let
        # bluffs go); a later one adds no private reply.
        acks = [m for m in game.last_press.followups if m.ephemeral]
        first = game.did_by[responder.id, "let it go"] == 0
        assert len(acks) == first, [m.text() for m in acks]
        for ack in acks:
            assert ack.visible_to == responder.id and "You let" in ack.text(), ack.text()
            assert "No need to press" in ack.text(), ack.text()
        game.did_by[responder.id, "let it go"] += 1
    game.did["let it go" if answer == "Let it go" else "call bluff"] += 1
    return table


async def acquire(game: CrapGame, hand: Hand, *, bluff: bool, responses: list[str]) -> None:
    """Call an Acquire (of the value held most of, or for a bluff of one not held at all);
    the other people answer on the table in seating order with `responses`. With bots at
    the table nobody answers it but them (`responses` is empty: the people let bluffs go),
    and the caller waits for them."""
    who = hand.owner
    held = hand.counts()
    if bluff:
        rank = next(r for r in reversed(RANKS) if r not in held)
    else:
        best = best_rank(hand)
        assert best is not None
        rank = best[0]
    await game.choose(hand, "acquire", [str(rank)])
    game.did["acquire"] += 1
    game.last_move[who.id] = "acquire"
    if game.bots:
        assert not responses, "with bots at the table the people let bluffs go"
        return await answered_by_bots(game, who, rank)
    if not responses:  # everyone else lets bluffs go: it went through at once
        table = game.table()
        assert table.phase != "acquire" and any("Everyone lets bluffs go." in x for x in table.log)
        game.did["let go by setting"] += 1
        return
    table = game.table()
    assert table.phase == "acquire" and table.acquirer == who.id, table.text
    assert table.acquire_rank == rank and table.labels[1:] == ["Call bluff", "Let it go", "Log"]
    # The window asks nobody: it closes by itself (the table says when), so nobody is
    # marked as waited on and nobody was notified (the table was edited in place).
    assert table.waiting == [] and "goes through by itself <t:" in table.text, table.text
    responders = [game.user(s) for s in game.seats_after(who.id)]
    assert len(responses) <= len(responders)
    for responder, answer in zip(responders, responses, strict=False):
        table = await respond(game, responder, answer)
    assert table.phase != "acquire", table.text
    called = "Call bluff" in responses
    if called and bluff:
        assert any("was bluffing" in line for line in table.log), table.text
        game.did["bluff caught"] += 1
    elif called:
        proof = [m for line in table.log for m in [PROOF.search(line)] if m and m[1] == who.name]
        assert proof, table.text
        shown = proof[-1][2]
        assert card_rank(shown) == rank and (shown in hand.hand or shown in hand.protected)
        game.did["proof"] += 1


async def answered_by_bots(game: CrapGame, who: FakeUser, rank: int) -> None:
    """`who` called an honest Acquire that only the bots answer (every person lets bluffs
    go): the table says the bots are thinking and offers no answer to anyone; `who` waits
    for the window to close, then reads in the Log how the bots answered."""
    table = game.as_left()
    if table is not None and table.phase == "acquire":
        assert table.acquirer == who.id and table.acquire_rank == rank, table.text
        assert table.labels == ["My hand", "Log"], table.labels
        assert "is thinking… It goes through <t:" in table.text, table.text
        assert table.waiting == [], table.text
        game.did["bots thinking about an Acquire"] += 1
    await game.wait("the bots to answer the Acquire", lambda t: t.phase != "acquire")
    log = await game.log(who)
    if log is None:
        return
    called = [i for i, line in enumerate(log) if line.startswith(f'{who.name}: "Acquire ')]
    assert called, log
    answer = log[called[-1] + 1 :]
    proof = [m for line in answer for m in [PROOF.search(line)] if m and m[1] == who.name]
    if proof:  # a bot called the bluff: the honest caller shows a card of that value
        assert card_rank(proof[0][2]) == rank, answer
        game.did["a bot called the bluff"] += 1
    else:  # every bot let it go
        assert answer and not any("calls the bluff" in line for line in answer), answer
        assert f"{who.name} acquires" in answer[0] or "Nobody has any" in answer[0], answer
        game.did["the bots let it go"] += 1


async def answer_bot_acquire(game: CrapGame, table: Table) -> None:
    """A bot called an Acquire, and the people who do not let bluffs go are asked nothing:
    the table shows Call bluff and Let it go to everyone, and says when it goes through by
    itself. The first time, the first of them calls the bluff; afterwards they all let it
    go (the window closes at once). With other bots still to answer they leave it to them
    and wait (their answers could cross)."""
    caller = table.acquirer
    assert caller is not None and caller in game.bots
    assert table.waiting == [] and "goes through by itself <t:" in table.text, table.text
    assert table.labels[1:] == ["Call bluff", "Let it go", "Log"], table.labels
    others = [s for s in game.seats_after(caller) if s not in game.letting_go]
    game.did["bot acquire"] += 1
    if not others or any(s in game.bots for s in others):
        await game.wait("the Acquire to go through", lambda t: t.phase != "acquire")
        return
    if not game.did["call a bot's bluff"]:
        game.did["call a bot's bluff"] += 1
        after = await respond(game, game.user(others[0]), "Call bluff")
        if after.phase != "over":
            assert after.phase == "turn", after.text
            caught = any(f"{bot_name(caller)} was bluffing" in line for line in after.log)
            proof = [m for line in after.log for m in [PROOF.search(line)] if m]
            assert caught or proof[-1][1] == bot_name(caller), after.text
        return
    for seat in others:
        after = await respond(game, game.user(seat), "Let it go")
    assert after.phase != "acquire", after.text


async def challenge(game: CrapGame, hand: Hand, target: int) -> None:
    """Challenge `target`: both place the die's number of cards face down (the multi-select),
    then each names a value and a suit (one select, two choices), challenger first."""
    who = hand.owner
    options = hand.options("target")
    pinged = game.pings()
    mine = await game.choose(hand, "target", [options[f"Challenge {game.name_of(target)}"]])
    game.taps[who.id] = 1  # the challenge itself: its answer is the next step, no My hand
    game.did["challenge"] += 1
    game.last_move[who.id] = "challenge"
    table = game.as_left()
    if table is not None:
        assert table.phase == "challenge" and table.challenger == who.id, table.text
        assert table.challenged == target and table.die is not None
        # The table itself, posted afresh, calls the challenged player (and only them)...
        # ...and the player whose turn comes after it, so the challenge's end is an edit
        # (bots are never called: with nobody else to call the table is edited in place).
        after = game.next_seat(who.id)
        called = {target, after} - set(game.bots)
        ping = game.table_message
        assert not called or set(ping.notified) == called, (ping.notified, called)
        assert "My hand" in ping.labels()
        if target in called:
            assert (ping.content or "").startswith(f"<@{target}>: you are challenged"), ping.text()
        if after in called and after != target:
            assert f"<@{after}>: your turn comes after this challenge" in (ping.content or "")
    await settle_challenge(game, who.id, target, mine, pinged)


async def settle_challenge(
    game: CrapGame,
    challenger: int,
    target: int,
    mine: Hand | None = None,
    pinged: Counter[int] | None = None,
) -> None:
    """The people in a challenge place their cards (the challenger with the reply their
    challenge left them, `mine`: it shows the select already; the challenged player,
    called on the table, opens My hand) and then name a card, challenger first; a bot
    does its part by itself, and they wait for it.

    Each person's side takes three taps at most: their reply (the Challenge choice, or My
    hand on the table that calls them), the cards, the card named (a value and a suit in
    one select). When their step comes by someone else's move they are called once, by a
    table posted afresh that mentions them, and the reply they have open already shows that
    step, without a press. `pinged`: the calls counted before the challenge."""
    placed: dict[int, list[str]] = {}
    table = game.table()
    die = table.die
    assert die is not None, table.text
    calls_before = pinged if pinged is not None else game.pings()
    had_cards = {seat: table.hands[seat] > 0 for seat in (challenger, target)}
    replies: dict[int, Hand] = {}
    for seat in (challenger, target):
        if is_bot(seat) or table.hands[seat] == 0:
            continue  # a bot places its own; nothing unprotected to place
        player = game.user(seat)
        if seat == challenger and mine is not None:
            h = mine
        else:
            h = await game.my_hand(player, game.table_message)
            game.taps[seat] = 1
        need = min(die, len(h.hand))
        comp = h.components["commit"]
        assert comp["min_values"] == comp["max_values"] == need, comp
        values = cards_to_place(h, need)
        after = await game.choose(h, "commit", values)
        game.taps[seat] += 1
        labels = {o["value"]: o["label"] for o in comp["options"]}
        placed[seat] = sorted(labels[v] for v in values)
        assert sorted(after.face_down) == placed[seat], after.face_down
        replies[seat] = after
        game.did["commit"] += 1
    for seat in (challenger, target):
        if is_bot(seat):
            continue  # it names its guess by itself
        name = game.name_of(seat)
        table = await game.wait(
            f"{name} to be asked for a guess",
            lambda t, seat=seat: t.phase != "challenge" or t.waiting == [seat],
        )
        assert table.phase == "challenge" and table.waiting == [seat], table.text
        player = game.user(seat)
        if seat in replies:  # the reply they have open shows the step, without a press
            h = read_hand(player, replies[seat].message)
            game.referee.hide_private_lines(h)
        else:  # (nothing to place: their first tap is My hand now)
            h = await game.my_hand(player, game.table_message)
            game.taps[seat] = 1
        assert "Nothing to do right now" not in h.message.text(), h.message.text()
        assert "guess" in h.components, (name, h.message.text())
        assert sorted(h.face_down) == placed.get(seat, [])
        comp = h.components["guess"]
        assert comp["min_values"] == comp["max_values"] == 2, comp
        counts = h.counts()
        value = max(counts, key=lambda k: (counts[k], k)) if counts else 14
        suits = Counter(c[-1] for c in h.hand + h.protected if c != "🃏")
        symbol = max("♠♥♦♣", key=lambda x: (suits[x], x))  # the suit they hold most of
        suit = SUITS["♠♥♦♣".index(symbol)]
        await game.choose(h, "guess", [str(value), suit])
        game.taps[seat] += 1
        game.did["guess"] += 1
    for seat in (challenger, target):
        if is_bot(seat):
            continue
        assert game.taps[seat] <= 3, (game.name_of(seat), game.taps[seat])
        # Called once for each step that fell to them by another's move: the challenged
        # player when challenged and when their card is to be named; the challenger when
        # the other's cards completed the placing (with a bot, that bot may be quicker).
        calls = game.pings()[seat] - calls_before[seat]
        if seat == target:  # (a bot's challenge called them before `calls_before`)
            expected: int | None = 1 + int(pinged is not None and had_cards[target])
        else:
            expected = 1 if target in placed else None
        if expected is None:
            assert calls <= 1, (game.name_of(seat), calls)
        else:
            assert calls == expected, (game.name_of(seat), calls, expected)
        game.did["challenge side in three taps"] += 1
    if game.bots:
        # A bot that guesses last settles it; the Log says what each showed.
        table = await game.wait("the challenge to end", lambda t: t.phase != "challenge")
        game.did["challenge with a bot"] += int(is_bot(challenger) or is_bot(target))
    else:
        table = game.table()
    if table.phase == "over":
        return
    if game.bots:
        log = await game.log(game.user(next(s for s in game.seats if not is_bot(s))))
        if log is None:
            return
        lines = log
    else:
        assert table.phase == "turn", table.text
        lines = table.log
    turned_up = {m[1]: cards_of(m[2]) for line in lines for m in [SHOWED.search(line)] if m}
    assert {game.name_of(challenger), game.name_of(target)} <= set(turned_up), lines
    for seat, cards in placed.items():
        assert sorted(turned_up[game.name_of(seat)]) == cards, (seat, cards, lines)


async def cooperate(game: CrapGame, hand: Hand, partner: int) -> None:
    """Co-operate with `partner`: each then sees, in My hand, the other's hand as it was (a
    bot partner is told nothing: it reads the hand it was shown)."""
    who = hand.owner
    options = hand.options("target")
    mine = await game.choose(hand, "target", [options[f"Co-operate with {game.name_of(partner)}"]])
    game.did["cooperate"] += 1
    game.last_move[who.id] = "cooperate"
    table = game.as_left()
    if table is not None and table.phase == "over":
        return
    if is_bot(partner):
        assert partner in mine.seen, mine.message.text()
        if table is not None:  # the partner drew one since
            assert len(mine.seen[partner]) == table.hands[partner] - 1, (mine.seen, table.text)
            assert "co-operated with you" not in (table.message.content or ""), table.message.content
        return
    partner_user = game.user(partner)
    ping = game.ping(partner_user)
    assert f"<@{who.id}> co-operated with you" in ping.text()
    theirs = await game.my_hand(partner_user, ping)
    assert sorted(theirs.seen[who.id]) == sorted(hand.hand), (theirs.seen, hand.hand)
    # ...and the co-operator saw the partner's hand as it was before the draws.
    assert len(mine.seen[partner]) == len(theirs.hand) - 1, (mine.seen, theirs.hand)


async def look_at_cooperation(game: CrapGame, table: Table) -> None:
    """A bot co-operated with a person: the table that follows tells them (a mention), and
    their My hand shows the bot's hand."""
    content = table.message.content or ""
    for m in COOPERATED.finditer(content):
        person, cooperator = int(m[1]), seat_id(m[2])
        if not is_bot(cooperator) or table.message.id in game.looked_at:
            continue
        game.looked_at.add(table.message.id)
        assert person in game.d.notified(table.message), content
        hand = await game.my_hand(game.user(person), table.message)
        assert hand.seen.get(cooperator), hand.message.text()
        game.did["a bot co-operated"] += 1


async def recycle(game: CrapGame, hand: Hand) -> None:
    """Recycle: the hand goes to everyone's eyes and the discard; new cards are drawn."""
    who = hand.owner
    await game.press_in_hand(hand, "recycle")
    game.did["recycle"] += 1
    game.last_move[who.id] = "recycle"
    table = game.as_left()
    if table is None or table.phase == "over":
        return
    shown = [m[2] for line in table.log for m in [RECYCLED.search(line)] if m and m[1] == who.name]
    assert shown and sorted(cards_of(shown[-1])) == sorted(hand.hand), table.text


async def wait_for_bots(game: CrapGame, table: Table) -> None:
    """The table waits on bots alone (a bot's turn): it says so and offers a person nothing
    but My hand and the Log; the people wait for the table to change."""
    assert "is thinking…" in table.text, table.text
    assert table.labels == ["My hand", "Log"], table.labels
    game.did["bot turn"] += 1
    await game.wait("the bot's move", lambda t: t.text != table.text)


async def play_move(game: CrapGame) -> None:
    """One move by whoever the table waits for (a bot's, waited for)."""
    table = game.table()
    if game.bots:
        await look_at_cooperation(game, table)
    if table.phase == "turn" and table.current in game.bots:
        await wait_for_bots(game, table)
    elif table.phase == "turn":
        await take_turn(game, game.user(table.current))
    elif table.phase == "acquire" and table.acquirer in game.bots:
        await answer_bot_acquire(game, table)
    elif table.phase == "challenge" and table.challenger in game.bots:
        assert table.challenged is not None
        game.did["a bot challenged"] += 1
        await settle_challenge(game, table.challenger, table.challenged)
    elif table.phase == "acquire":  # an Acquire is answered within take_turn
        raise ConfusedPlayer(f"an Acquire nobody answers:\n{table.text}")
    elif table.phase == "challenge":
        raise ConfusedPlayer(f"a challenge nobody finishes:\n{table.text}")
    else:
        raise ConfusedPlayer(f"nobody can move:\n{table.text}")


async def play_to_end(game: CrapGame, *, max_moves: int = 400) -> Table:
    """Play until the table shows a winner, noting every scoring round seen on the way."""
    before = game.table()
    for _ in range(max_moves):
        table = game.table()
        if table.rounds > before.rounds:
            game.did["scoring round"] += table.rounds - before.rounds
            # Protected cards went back to their owners' hands, unseen (unless a bot has
            # protected one since).
            if game.as_left() is not None:
                assert sum(table.protected.values()) == 0, table.text
            game.did["protected returned"] += sum(before.protected.values())
        if table.phase == "over":
            return table
        before = table
        await play_move(game)
    raise AssertionError(f"no winner after {max_moves} moves:\n{game.table().text}")
