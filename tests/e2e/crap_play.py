"""CRAP players for end-to-end tests. Each player acts only on what they can see: the public
table message (its text and buttons) and their own "My hand" replies (their cards, and the
selects and buttons of the moves they may make).

    game = await CrapGame.open(d, [ALICE, BOB, CAROL], threshold=150)
    await play_to_end(game)

`CardReferee` is the hidden-information check of CRAP (see its docstring): unlike the
players it reads the committed game state from the database, to know which cards have been
shown to everyone; nothing it reads ever reaches a player's decision."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.tables.crap import last_shown
from games.crap.cards import RANKS, SUITS, label
from games.crap.engine import CrapState
from tests.e2e.fake_discord import FakeMessage, FakeUser, InteractionRecord
from tests.e2e.harness import TABLE, Driver, is_summary, read_session
from tests.e2e.hidden_info import strings_in, watch_public_secrets

# ----------------------------------------------------------------------------- reading

TURN = re.compile(r"\*\*<@(\d+)>'s turn\*\*")
ACQUIRE = re.compile(r"<@(\d+)>: \*\*Acquire (.+?)!\*\*")
CHALLENGE = re.compile(r"⚔ <@(\d+)> challenges <@(\d+)> and rolled \*\*([1-6])\*\*")
MENTION = re.compile(r"<@(\d+)>")
COOPERATED = re.compile(r"<@(\d+)>: <@\d+> co-operated with you")
# ▶ whose turn, ⏳ whom the table waits on, · anyone else
PLAYER_ROW = re.compile(
    r"^([▶·⏳]) <@(\d+)> \*\*(-?\d+)\*\* ✋(\d+) 🛡(\d+)(?: · sets (.*) \(\+\d+ next round\))?$",
    re.M,
)
DECK = re.compile(r"Deck (\d+) · discard (\d+) · (\d+) scoring rounds?")
PROOF = re.compile(r"calls the bluff, but (.+?) shows (\S+)\.")
SHOWED = re.compile(r"^(.+?) showed (.+?): ")
RECYCLED = re.compile(r"^(.+?) (?:recycles|is forced to recycle), showing (.+?)\. Roll-off")
WINNERS = re.compile(r"🏆 \*\*Game over\.\*\* (.+?) wins?!")

HAND = re.compile(r"^\*\*Your hand \((\d+)\):\*\* (.+)$", re.M)
PROTECTED = re.compile(r"^\*\*Protected \((\d+)\):\*\* (.+)$", re.M)
SEEN = re.compile(r"^\*\*Seen in co-operate, <@(\d+)>'s hand:\*\* (.+)$", re.M)
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
    ch, won = CHALLENGE.search(description), WINNERS.search(description)
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
        current=int(turn[1]) if turn else None,
        acquirer=int(acq[1]) if acq else None,
        acquire_rank=WORDS[acq[2]] if acq else None,
        challenger=int(ch[1]) if ch else None,
        challenged=int(ch[2]) if ch else None,
        die=int(ch[3]) if ch else None,
        waiting=[int(m[2]) for m in rows if m[1] == "⏳"],
        scores={int(m[2]): int(m[3]) for m in rows},
        hands={int(m[2]): int(m[4]) for m in rows},
        protected={int(m[2]): int(m[5]) for m in rows},
        sets={int(m[2]): m[6] or "" for m in rows},
        deck=int(deck[1]),
        rounds=int(deck[3]),
        log=[line.removeprefix("› ") for line in lines if line.startswith("› ")],
        shown=[line.removeprefix("👁 ") for line in lines if line.startswith("👁 ")],
        winners=[int(x) for x in MENTION.findall(won[1])] if won else [],
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
    """The reply as `owner` sees it; `cards_shown=False` for the suit picker, which shows
    no cards (it replaces the hand until the guess is made)."""
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
        seen={int(m[1]): cards_of(m[2]) for m in SEEN.finditer(text)},
        face_down=cards_of(face_down[1]) if face_down else [],
        components=components,
    )


# ----------------------------------------------------------------------------- secrets


class CardReferee:
    """The hidden-information check of CRAP, run after every dispatch on every public body
    the bot sent since the last one.

    Card labels are poor secrets on their own: two decks hold two of each card ("K♥" may be
    in Bob's hand while the other K♥, recycled by Alice, is legitimately on the table), and a
    hidden card becomes public when it is recycled, proves an Acquire, is turned up in a
    challenge, discarded at random or scored. So the referee keeps the ledger the players
    cannot: after each move it reads the committed state (the bot commits before it answers)
    and notes, by card id, the cards that move showed to everyone: the engine's new reveals
    (a recycled hand, protected cards lost in a roll-off, an Acquire's proof or discard, a
    challenge's cards), new scored sets (their cards and an Ace's marker: the score line
    names them) and the cards new in the discard pile (a random discard names its card).

    A card label in a public body is legitimate only if a card with that label is in one of
    the reveals the table shows now ("Shown to everyone", the last three), or was shown by a
    move whose log lines may still be among the `LOG_LINES` the table shows (the referee
    counts the lines each move adds to the state's log). Any other card label there is a
    card of a hand, a protected row, the face-down cards of a challenge or the deck, and
    fails the test. Forgetting what scrolled off keeps the check sharp all game long: by
    its end nearly every label has been public at some time.

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

    def after(self, actor: FakeUser) -> None:
        """`actor` just dispatched something: note what the state shows, then check."""
        row = read_session(self.d.database, self.channel)  # type: ignore[arg-type]
        data = json.loads(row["data"]) if row else None
        state = CrapState.model_validate(data["state"]) if data and data["state"] else None
        revision = row["revision"] if row else None
        if state is not None and revision != self.revision:
            self._note(self.state, state)
        elif state is None and self.state is not None:
            # The game is over and its row gone: the last move may have shown the mover's
            # cards (a recycle) or the challenge's (the guess that settled it); nothing else.
            me = self.state.player(actor.id)
            self._show(me.hand + me.protected)
            if self.state.challenge is not None:
                for cards in self.state.challenge.committed.values():
                    self._show(cards)
        self.state, self.revision = state, revision
        self.check()

    def legitimate(self) -> set[str]:
        recent = [c for c, n in self.shown_at.items() if self.lines - n < self.window]
        return {label(c) for c in recent + self.on_table}

    def check(self) -> None:
        allowed = self.legitimate()
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


# ----------------------------------------------------------------------------- acting


@dataclass
class CrapGame:
    """A started game: the driver, the players in join order, and what the test saw happen
    (`did`). The table message is the channel's live table (`table_message`)."""

    d: Driver
    players: list[FakeUser]
    referee: CardReferee
    channel: int = TABLE
    presses: int = 0
    did: Counter[str] = field(default_factory=Counter)
    agenda: list[str] = field(default_factory=list)
    last_move: dict[int, str] = field(default_factory=dict)
    last: InteractionRecord | None = None  # the last choice made in a hand reply
    letting_go: set[int] = field(default_factory=set)  # who turned on Let bluffs go

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
        cls, d: Driver, players: list[FakeUser], *, threshold: int, channel: int = TABLE
    ) -> CrapGame:
        """`/crap start threshold:<t> jokers:True` by the first player, Join by the others,
        Start by the first."""
        referee = CardReferee(d, channel)
        opened = await d.slash(players[0], channel, "crap start", threshold=threshold, jokers=True)
        referee.after(players[0])
        assert opened.callback_type == 4 and not opened.ephemeral, opened.text
        assert opened.message is not None
        assert f"two decks with jokers, to **{threshold}** points" in opened.message.text()
        for p in players[1:]:
            joined = await d.click(p, channel, label="Join", message=opened.message)
            referee.after(p)
            assert joined.callback_type == 7, joined.text
        started = await d.click(players[0], channel, label="Start", message=opened.message)
        referee.after(players[0])
        # The lobby becomes a summary and the table is posted below, calling the first
        # player; when that is the starter (nobody is notified of their own press), the
        # lobby becomes the table.
        shown = d.on_table(started, opened.message)
        game = cls(d, list(players), referee, channel)
        table = game.table()
        if table.current == players[0].id:
            assert shown is opened.message and not d.notified(shown), started.text
        else:
            assert shown is not opened.message, started.text
            assert d.notified(table.message) == {table.current}, table.message.content
        assert table.phase == "turn" and set(table.scores) == {p.id for p in players}
        assert all(s == 0 for s in table.scores.values()), table.text
        assert 108 - sum(table.hands.values()) == table.deck, table.text
        return game

    @property
    def table_message(self) -> FakeMessage:
        """The channel's live table."""
        return self.d.table(self.channel)

    def table(self) -> Table:
        return read_table(self.table_message)

    def followed(self, before: Table, actor: int | None = None) -> Table:
        """The table after a move: the message that showed `before`, edited, while nobody
        new is waited on; else posted afresh below (that message reduced to a summary),
        mentioning exactly whom the game now waits on besides those it waited on already:
        the next player, everyone asked about an Acquire, the challenged player; at the end,
        everyone still at the table; never `actor`, whose press it was (nobody is notified of
        their own press: when only they are newly waited on, the table is edited)."""
        after = self.table()
        if after.message is before.message:  # then nobody new is waited on, but the actor
            if after.phase == "turn" and before.phase == "turn":
                assert after.current in (before.current, actor), after.text
            # An Acquire's window asks nobody; the player after a challenge was called by it.
            assert after.phase != "challenge" or after.phase == before.phase, after.text
            if after.phase == "turn" and before.phase == "challenge":
                assert before.challenger is not None
                assert after.current in (self.after(before.challenger).id, before.challenged)
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
            assert after.challenger is not None and after.challenged is not None
            expected = {after.challenged, self.after(after.challenger).id}
        else:  # an Acquire's window is never posted: it asks nobody
            raise AssertionError(f"a table posted afresh for nobody:\n{after.text}")
        expected -= {actor}
        assert expected, f"a table posted afresh for nobody:\n{after.text}"
        assert pinged == expected, (pinged, expected, after.message.content)
        return after

    def user(self, user_id: int | None) -> FakeUser:
        for p in self.players:
            if p.id == user_id:
                return p
        raise ConfusedPlayer(f"the table names <@{user_id}>, not one of {self.players}")

    def after(self, user_id: int) -> FakeUser:
        ids = [p.id for p in self.players]
        return self.players[(ids.index(user_id) + 1) % len(ids)]

    async def _dispatched(self, who: FakeUser, rec: InteractionRecord) -> InteractionRecord:
        self.presses += 1
        self.referee.after(who)
        return rec

    # ------------------------------------------------------------------ the hand

    async def my_hand(self, who: FakeUser, message: FakeMessage | None = None) -> Hand:
        """`who` presses My hand on the table (or on `message`, a ping): a fresh reply only
        they see."""
        rec = await self.d.click(
            who, self.channel, label="My hand", message=message or self.table_message
        )
        await self._dispatched(who, rec)
        assert rec.callback_type == 4 and rec.message is not None, rec.text
        hand = read_hand(who, rec.message)
        self.referee.hide_private_lines(hand)
        table = self.table()
        assert len(hand.hand) == table.hands[who.id], (hand.hand, table.text)
        assert len(hand.protected) == table.protected[who.id], (hand.protected, table.text)
        return hand

    async def choose(self, hand: Hand, action: str, values: list[str]) -> Hand:
        """Choose in a select of the hand reply; the reply is updated in place with the new
        hand, and the table is brought up to date."""
        comp = hand.components[action]
        who = hand.owner
        before = self.table()
        rec = await self.d.select(
            who, self.channel, values, custom_id=comp["custom_id"], message=hand.message
        )
        await self._dispatched(who, rec)
        self.last = rec
        assert rec.callback_type == 7 and rec.message is hand.message, rec.text
        if action != "pickrank":
            assert self.followed(before, who.id).text != before.text, f"{action} left the table as it was"
        if self.table().phase == "over":
            assert "The game is over." in hand.message.text()
            return hand
        after = read_hand(who, hand.message, cards_shown=action != "pickrank")
        self.referee.hide_private_lines(after)
        return after

    async def press_in_hand(self, hand: Hand, action: str) -> Hand | None:
        comp = hand.components[action]
        who = hand.owner
        before = self.table()
        rec = await self.d.click(
            who, self.channel, custom_id=comp["custom_id"], message=hand.message
        )
        await self._dispatched(who, rec)
        assert rec.callback_type == 7 and rec.message is hand.message, rec.text
        if self.followed(before, who.id).phase == "over":
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
        rec = await self.d.click(
            who, self.channel, custom_id=button["custom_id"], message=table.message
        )
        await self._dispatched(who, rec)
        self.d.on_table(rec, table.message)
        self.last_press = rec
        return self.followed(table, who.id)


# ----------------------------------------------------------------------------- playing

AGENDA = ["protect", "acquire", "challenge", "cooperate", "recycle", "bluff"]


def best_rank(hand: Hand, *, protected: bool = True) -> tuple[int, int] | None:
    """The value the player holds most of (the higher on a tie) and how many."""
    counts = hand.counts(protected=protected)
    if not counts:
        return None
    r = max(counts, key=lambda k: (counts[k], k))
    return r, counts[r]


def cards_to_place(hand: Hand, need: int) -> list[str]:
    """The values of the commit select: the cards of the values held fewest first."""
    options = hand.options("commit")
    counts = hand.counts()
    ordered = sorted(options, key=lambda lab: (counts.get(card_rank(lab), 0), card_rank(lab)))
    return [options[lab] for lab in ordered[:need]]


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
        after = game.table()
        if after.phase != "over":
            assert after.sets[who.id] != before.sets[who.id], after.text
        return
    move = game.agenda[0] if game.agenda else None
    if move == "protect" and "protect" in hand.components:
        game.agenda.pop(0)
        return await protect(game, hand)
    if move == "acquire":
        game.agenda.pop(0)
        return await acquire(game, hand, bluff=False, responses=["Let it go", "Call bluff"])
    if move == "bluff":
        game.agenda.pop(0)
        return await acquire(game, hand, bluff=True, responses=["Call bluff"])
    if move == "challenge":
        game.agenda.pop(0)
        return await challenge(game, hand, game.after(who.id))
    if move == "cooperate":
        game.agenda.pop(0)
        return await cooperate(game, hand, game.after(who.id))
    if move == "recycle":
        game.agenda.pop(0)
        return await recycle(game, hand)
    unprotected = best_rank(hand, protected=False)
    if unprotected is not None and unprotected[1] == 3 and not hand.protected:
        return await protect(game, hand)  # keep one of a triple safe from Acquires
    best = best_rank(hand)
    if best is not None and best[1] >= 2 and game.last_move.get(who.id) != "acquire":
        if game.agenda:  # the agenda's Acquires are answered on the table
            return await acquire(game, hand, bluff=False, responses=["Let it go", "Let it go"])
        # After the agenda nobody answers an Acquire: everyone has turned on Let bluffs go
        # (in My hand), so it goes through at once and nobody presses anything for it.
        for p in game.players:
            if p.id not in game.letting_go:
                await let_bluffs_go(game, p)
        hand = await game.my_hand(who)
        return await acquire(game, hand, bluff=False, responses=[])
    return await recycle(game, hand)


async def let_bluffs_go(game: CrapGame, who: FakeUser) -> None:
    """`who` turns on Let bluffs go in their My hand: their hand says so from then on."""
    hand = await game.my_hand(who)
    comp = hand.components["letgo"]
    assert comp["label"] == "Let bluffs go: off", comp
    rec = await game.d.click(who, game.channel, custom_id=comp["custom_id"], message=hand.message)
    await game._dispatched(who, rec)
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
    table = game.table()
    assert table.protected[hand.owner.id] == len(after.protected), table.text
    game.did["protect"] += 1
    game.last_move[hand.owner.id] = "protect"


async def acquire(game: CrapGame, hand: Hand, *, bluff: bool, responses: list[str]) -> None:
    """Call an Acquire (of the value held most of, or for a bluff of one not held at all);
    the others answer on the table in seating order with `responses`."""
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
    responder = game.after(who.id)
    for answer in responses:
        assert responder.id != who.id
        table = game.table()
        assert table.phase == "acquire", table.text
        table = await game.press(responder, answer)
        if answer == "Let it go":  # acknowledged privately; the window closes as soon as
            # everyone else has let it go (or one calls), without waiting for its deadline
            [ack] = [m for m in game.last_press.followups if m.ephemeral]
            assert ack.visible_to == responder.id and "You let" in ack.text(), ack.text()
            assert "No need to press" in ack.text(), ack.text()
        game.did["let it go" if answer == "Let it go" else "call bluff"] += 1
        responder = game.after(responder.id)
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


async def challenge(game: CrapGame, hand: Hand, target: FakeUser) -> None:
    """Challenge `target`: both place the die's number of cards face down (the multi-select),
    then each names a value (pickrank) and a suit (guess), challenger first."""
    who = hand.owner
    options = hand.options("target")
    mine = await game.choose(hand, "target", [options[f"Challenge {target.name}"]])
    table = game.table()
    assert table.phase == "challenge" and table.challenger == who.id, table.text
    assert table.challenged == target.id and table.die is not None
    # The table itself, posted afresh, calls the challenged player (and only them).
    ping = game.table_message
    assert (ping.content or "").startswith(f"<@{target.id}>: you are challenged"), ping.text()
    # ...and the player whose turn comes after it, so the challenge's end is an edit.
    after = game.after(who.id)
    assert set(ping.notified) == {target.id, after.id} and "My hand" in ping.labels()
    if after.id != target.id:
        assert f"<@{after.id}>: your turn comes after this challenge" in (ping.content or "")
    game.did["challenge"] += 1
    game.last_move[who.id] = "challenge"
    placed: dict[int, list[str]] = {}
    # The challenger places first, with the reply their challenge left them (it shows the
    # select already); then the challenged player, pinged on the table, opens My hand.
    for player in (who, target):
        table = game.table()
        if player.id not in table.waiting:
            continue  # nothing unprotected to place
        h = mine if player is who else await game.my_hand(player, ping)
        need = min(table.die, len(h.hand))  # type: ignore[type-var]
        comp = h.components["commit"]
        assert comp["min_values"] == comp["max_values"] == need, comp
        values = cards_to_place(h, need)
        after = await game.choose(h, "commit", values)
        labels = {v: k for k, v in h.options("commit").items()}
        placed[player.id] = sorted(labels[v] for v in values)
        assert sorted(after.face_down) == placed[player.id], after.face_down
        game.did["commit"] += 1
    for player in (who, target):
        table = game.table()
        assert table.phase == "challenge" and table.waiting == [player.id], table.text
        h = await game.my_hand(player)
        assert sorted(h.face_down) == placed.get(player.id, [])
        counts = h.counts()
        value = max(counts, key=lambda k: (counts[k], k)) if counts else 14
        picked = await game.choose(h, "pickrank", [str(value)])
        assert not picked.hand and "Now a suit" in picked.message.text()
        suits = Counter(c[-1] for c in h.hand + h.protected if c != "🃏")
        symbol = max("♠♥♦♣", key=lambda x: (suits[x], x))  # the suit they hold most of
        suit = SUITS["♠♥♦♣".index(symbol)]
        await game.choose(picked, "guess", [suit])
        game.did["guess"] += 1
    table = game.table()
    if table.phase != "over":
        assert table.phase == "turn", table.text
        turned_up = [m[2] for line in table.log for m in [SHOWED.search(line)] if m]
        assert len(turned_up) == 2, table.text
        assert sorted(c for cards in turned_up for c in cards_of(cards)) == sorted(
            c for cards in placed.values() for c in cards
        )


async def cooperate(game: CrapGame, hand: Hand, partner: FakeUser) -> None:
    """Co-operate with `partner`: each then sees, in My hand, the other's hand as it was."""
    who = hand.owner
    options = hand.options("target")
    mine = await game.choose(hand, "target", [options[f"Co-operate with {partner.name}"]])
    game.did["cooperate"] += 1
    game.last_move[who.id] = "cooperate"
    table = game.table()
    if table.phase == "over":
        return
    ping = game.ping(partner)
    assert f"<@{who.id}> co-operated with you" in ping.text()
    theirs = await game.my_hand(partner, ping)
    assert sorted(theirs.seen[who.id]) == sorted(hand.hand), (theirs.seen, hand.hand)
    # ...and the co-operator saw the partner's hand as it was before the draws.
    assert len(mine.seen[partner.id]) == len(theirs.hand) - 1, (mine.seen, theirs.hand)


async def recycle(game: CrapGame, hand: Hand) -> None:
    """Recycle: the hand goes to everyone's eyes and the discard; new cards are drawn."""
    who = hand.owner
    await game.press_in_hand(hand, "recycle")
    game.did["recycle"] += 1
    game.last_move[who.id] = "recycle"
    table = game.table()
    if table.phase == "over":
        return
    shown = [m[2] for line in table.log for m in [RECYCLED.search(line)] if m and m[1] == who.name]
    assert shown and sorted(cards_of(shown[-1])) == sorted(hand.hand), table.text


async def play_move(game: CrapGame) -> None:
    """One move by whoever the table waits for."""
    table = game.table()
    if table.phase == "turn":
        await take_turn(game, game.user(table.current))
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
            # Protected cards went back to their owners' hands, unseen.
            assert sum(table.protected.values()) == 0, table.text
            game.did["protected returned"] += sum(before.protected.values())
        if table.phase == "over":
            return table
        before = table
        await play_move(game)
    raise AssertionError(f"no winner after {max_moves} moves:\n{game.table().text}")
