"""Every message a game shows fits Discord's limits in every language the bot ships, and in
the worst case a translation may reach: a language whose every sentence is 35% longer than
its English (German and French run 20-30% longer).

For each game and language: the biggest table the game can show (the most players it
seats, names of 32 characters, big scores and penalties, every optional rule that adds
text, the longest turn timer, clickable command mentions), its lobby filling up, several
moves of every kind through the table service, the tables posted afresh and the summaries
they leave behind, the private views (a hand, the dice under the cup, menus), the rules,
the end (the final table, its Rematch lobby), and a game with bots played to its winner.
Every `Reply`, each of its follow-ups, and every `TableUpdate`'s table and summary must be
something Discord accepts (`check_limits`, plus titles, footers, field names and menu
placeholders).

The public language is the lobby's (from the host's server locale, `Actor.guild_locale`);
private answers are in the current language, as `bot/app.py` sets it for an interaction
(`speaking`). The 35%-longer language is made from the code's own strings when the test
runs (`padded_catalogue`) and stands in for German's catalogue, so its numbers and plural
rules stay a real language's."""

from __future__ import annotations

import contextlib
import math
import random
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextvars import ContextVar
from itertools import cycle, islice
from pathlib import Path
from typing import Any

import discord
import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from bot import i18n, mentions
from bot.app import default_adapters
from bot.cogs.help import help_embed
from bot.components import Click
from bot.errors import UserError
from bot.i18n import LANGUAGES, speaking
from bot.replies import Rematch
from bot.service import Actor, Reply, Tables
from bot.settings import GuildSettings
from bot.tables.base import Rendered
from games.errors import GameError
from games.farkle.rules import PRESETS
from games.gamelog import EARLIER_NOT_KEPT
from tests.bot.conftest import GUILD, Clock, check_limits, make_tables
from tools.catalogues import placeholders, template

CODES = list(LANGUAGES)
#: The catalogue the 35%-longer language replaces (a language with two plural forms).
STAND_IN = "de"
LONGER = 0.35
NAME = 32  # Discord's longest display name
SEED = 5

#: Every optional rule that adds words to a lobby, a table or the rules, at its wordiest.
SETTINGS: dict[str, Any] = {
    "turn_timer": 3600,
    "lobby_timeout": 86400,
    "bot_delay": 10.0,
    "kuriki_lives": 9,
    "kuriki_two_digit": True,
    "kuriki_reverse_after_kuriki": True,
    "kuriki_stake": 1_000_000,
    "kuriki_foul_price": 1_000_000,
    "crap_threshold": 100_000,
    "crap_jokers": True,
    "crap_force_recycle": True,
    "crap_bluff_window": 300,
    "farkle_house_rules": {
        "crappy-malappy": {
            "target": 1_000_000,
            "opening": 500,
            "one_die_throws": 3,
            "piggyback": True,
            "two_triplets": 10_000,
            "four_and_pair_is_three_pairs": True,
            "kind_scoring": "flat",
            "flat_kind": [100_000, 100_000, 100_000],
            "farkle_penalty": 100_000,
            "seating": "highest_first",
            "end_rule": "one_more_turn",
        },
        "classic": {"piggyback": True, "farkle_penalty_every": 3, "crappy_malappy_wins": 10},
        "on-the-table": {"extend_triple_across_throws": True, "min_bank_after_hot_dice": True},
    },
}

#: The biggest game of each kind: (start options, seats for people, seats for bots).
BIGGEST: dict[str, tuple[dict[str, object], int, int]] = {
    "farkle": ({"rules": "crappy-malappy"}, 24, 1),
    "kuriki": ({}, 11, 1),
    "crap": ({}, 5, 1),
}
#: What the people of the biggest game press at the least (the moves are seeded).
PRESSED = {
    "farkle": {"join", "addbot", "start", "toggle", "roll", "bestroll", "bestbank"},
    "kuriki": {"join", "addbot", "start", "roll", "declare", "pull", "pass", "sneakok", "vote"},
    "crap": {
        *("join", "addbot", "start", "hand", "log", "acquire", "target", "commit", "guess"),
        *("recycle", "bluff", "nocall", "vote"),
    },
}
#: A game against bots, small enough to reach its winner: (start options, bots).
TO_THE_END: dict[str, tuple[dict[str, object], int]] = {
    "farkle": ({"rules": "classic", "target": 1500}, 2),
    "kuriki": ({"lives": 1}, 2),
    "crap": ({"threshold": 100}, 2),
}


# ---------------------------------------------------------------------------- languages


def padded(text: str) -> str:
    """`text` 35% longer, line by line, its placeholders, Markdown and emoji kept: words
    appended, as many characters as 35% of the line's own (placeholder names not counted)."""
    lines = []
    for line in text.split("\n"):
        own = len(line) - sum(len(p) + 2 for p in placeholders(line) if "{" + p + "}" in line)
        extra = math.ceil(max(own, 0) * LONGER)
        filler = "".join(islice(cycle(" Längerwörter"), extra))
        lines.append(line + filler if line.strip() else line)
    return "\n".join(lines)


def padded_catalogue(path: Path) -> Path:
    """A catalogue of every string the code marks (the template `python -m tools.catalogues
    extract` writes), each translated 35% longer than its English."""
    catalog = Catalog(locale=STAND_IN, project="tablebot", fuzzy=False)
    for message in template():
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            string: str | tuple[str, ...] = tuple(padded(m) for m in message.id)
        else:
            string = padded(message.id)
        catalog.add(message.id, string, context=message.context)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        write_po(out, catalog, width=100)
    return path


@pytest.fixture(scope="module")
def longer_po(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return padded_catalogue(tmp_path_factory.mktemp("longer") / "tablebot.po")


@pytest.fixture
def longer(longer_po: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The 35%-longer language, standing in for German's catalogue during the test."""
    shipped = i18n.catalogue_path
    monkeypatch.setattr(
        i18n, "catalogue_path", lambda code: longer_po if code == STAND_IN else shipped(code)
    )
    i18n.lang.cache_clear()
    yield STAND_IN
    i18n.lang.cache_clear()


@pytest.fixture(autouse=True)
def synced_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Command suggestions as the synced bot writes them: clickable mentions with their
    19-digit ids (`</farkle start:1234567890123456789>`), longer than `/farkle start`."""

    class Synced(dict[str, int]):
        def get(self, key: str, default: Any = None) -> int:  # type: ignore[override]
            return 1_234_567_890_123_456_789

    monkeypatch.setattr(mentions, "_command_ids", Synced())


def test_the_longer_language_is_longer() -> None:
    assert padded("Roll") == "Roll L"  # 4 characters, and 2 more
    assert len(padded("x" * 100)) == 135
    text = padded("{name} rolled {dice}.\n\n**Bank** {n}")
    assert placeholders(text) == {"name", "dice", "n"}
    assert text == "{name} rolled {dice}. Län\n\n**Bank** {n} Län"


async def test_the_longer_language_is_what_the_bot_speaks(longer: str) -> None:
    """The stand-in is read through bot.i18n as a shipped catalogue is (a message the code
    marks comes back 35% longer)."""
    key = "(The moves before these were not kept.)"  # games/gamelog.py
    with speaking(longer):
        assert i18n._(key) == padded(key) != key
        assert i18n.render(EARLIER_NOT_KEPT) == padded(key)


# ---------------------------------------------------------------------------- limits

#: Discord's limits that `check_limits` does not check.
TITLE, FOOTER, FIELD_NAME, PLACEHOLDER, OPTION_DESCRIPTION = 256, 2048, 256, 150, 100
#: A button's label a phone shows whole (Discord takes 80 and cuts the rest with "…"):
#: what each shipped language's translations keep to; the 35%-longer stand-in is no real
#: translation and is held to Discord's limit only.
BUTTON_LABEL = 25
_short_labels: ContextVar[bool] = ContextVar("short_labels", default=False)


@contextlib.contextmanager
def short_labels() -> Iterator[None]:
    """Hold every button of this block to `BUTTON_LABEL` characters."""
    token = _short_labels.set(True)
    try:
        yield
    finally:
        _short_labels.reset(token)


def fits(message: Reply | Rendered | None) -> None:
    """`message` is one Discord accepts; for a Reply, its follow-ups and the table update
    it brings (the table and the summary the older table message keeps) too."""
    if message is None:
        return
    check_limits(message)  # type: ignore[arg-type]
    embed = message.embed
    if embed is not None:
        fits_embed(embed)
    view = message.view()
    for row in view.to_components() if view is not None else []:
        for comp in row["components"]:
            assert len(comp.get("placeholder") or "") <= PLACEHOLDER, comp
            if comp["type"] == 2 and _short_labels.get():
                label = comp.get("label") or ""
                assert len(label) <= BUTTON_LABEL, f"button {label!r} over {BUTTON_LABEL}"
            for option in comp.get("options", []):
                assert len(option.get("description") or "") <= OPTION_DESCRIPTION, option
    if isinstance(message, Reply):
        for followup in message.followups:
            fits(followup)
        if message.update is not None:
            fits(message.update.table)
            fits(message.update.summary)


def fits_embed(embed: discord.Embed) -> None:
    assert len(embed) <= 6000
    assert len(embed.title or "") <= TITLE, embed.title
    assert len(embed.footer.text or "") <= FOOTER, embed.footer.text
    assert len(embed.author.name or "") <= TITLE
    assert len(embed.fields) <= 25
    for f in embed.fields:
        assert 1 <= len(f.name) <= FIELD_NAME and 1 <= len(f.value) <= 1024, f
        # A field exactly at the limit was cut there, in mid-sentence: what can outgrow a
        # field is paged (the rules) or keeps its newest whole lines (a log window), see
        # bot/tables/fields.py.
        assert len(f.value) < 1024, f"{f.name!r} cut at 1,024 characters: {f.value[-80:]!r}"
    assert len(embed.description or "") <= 4096


# ---------------------------------------------------------------------------- players


def person(seat: int, code: str) -> Actor:
    """A player with a 32-character name, whose client and server speak `code`."""
    name = f"Maximiliane Wolkenstein-Berg {seat:03d}"
    assert len(name) == NAME
    return Actor(id=10**18 + 7 * seat, name=name, locale=code, guild_locale=code)


class Game:
    """One channel's game driven through the table service; every answer is checked."""

    def __init__(self, tables: Tables, clock: Clock, kind: str, channel: int, code: str):
        self.tables, self.clock, self.kind, self.channel, self.code = (
            tables,
            clock,
            kind,
            channel,
            code,
        )
        self.people: dict[int, Actor] = {}
        self.table: Rendered | None = None
        self.rng = random.Random(SEED)
        self.steps = 0
        self.vote_items: list[Any] = []
        self.pressed: Counter[str] = Counter()

    def seen(self, reply: Reply) -> Reply:
        fits(reply)
        if reply.table is not None:
            self.table = reply.table
        for message in (reply, *reply.followups):
            votes = [i for i in message.items or [] if i.custom_id.startswith("t:kuriki:vote:")]
            if votes:
                self.vote_items = votes
        return reply

    async def session(self) -> Any:
        return await self.tables.sessions.get(self.channel)

    async def state(self) -> Any:
        return (await self.session()).state

    def items(self) -> dict[str, list[Any]]:
        """The live table's usable buttons, by action."""
        found: dict[str, list[Any]] = {}
        for item in self.table.items if self.table is not None else []:
            click = Click.parse(item.custom_id)
            if click is not None and not item.disabled:
                found.setdefault(click.action, []).append(item)
        return found

    async def press(self, actor: Actor, item: Any, values: tuple[str, ...] = ()) -> Reply:
        self.pressed[Click.parse(item.custom_id).action] += 1
        with speaking(actor.locale):  # what bot/app.py does for an interaction
            return self.seen(
                await self.tables.click(actor, Click.parse(item.custom_id, values), 555)
            )

    async def choose(self, actor: Actor, item: Any, values: tuple[str, ...]) -> Reply:
        """A choice in a menu of a private message (not the table)."""
        self.pressed[Click.parse(item.custom_id).action] += 1
        with speaking(actor.locale):
            return self.seen(
                await self.tables.click(
                    actor, Click.parse(item.custom_id, values), 900, ephemeral=True
                )
            )

    async def open(self, options: dict[str, object], people: int, bots: int) -> None:
        host, *others = [person(i, self.code) for i in range(people)]
        self.people = {p.id: p for p in (host, *others)}
        with speaking(host.locale):
            lobby = await self.tables.open_lobby(host, GUILD, self.channel, self.kind, options)
        self.seen(lobby)
        await self.tables.table_posted(self.channel, 555)
        for p in others:
            await self.press(p, self.items()["join"][0])
        for _ in range(bots):
            await self.press(host, self.items()["addbot"][0])
        await self.press(host, self.items()["start"][0])

    async def step(self) -> bool:
        """One move: a person's, or else the bots' and the clocks' (whatever is due first).
        False once the game is over."""
        session = await self.session()
        if session is None:
            return False
        self.steps += 1
        moved = None
        if session.bot_deadline is None or session.bot_deadline > self.clock.now + 1:
            moved = await getattr(self, f"{self.kind}_move")(session.state)
        if moved is None:
            if session.deadline is None:
                raise AssertionError(f"the {self.kind} game waits on nothing")
            self.pressed["(expire)"] += 1
            self.clock.now = max(self.clock.now, session.deadline)
            with speaking(self.code):
                expired = await self.tables.expire(self.channel)
            if expired is not None:
                self.seen(expired)
        return True

    async def play(self, steps: int) -> None:
        for _ in range(steps):
            if not await self.step():
                return

    # ------------------------------------------------------------------ the people's moves

    async def farkle_move(self, state: Any) -> Reply | None:
        actor = self.people.get(state.current_player.id)
        if actor is None:
            return None
        acts = self.items()
        n = self.steps
        if "toggle" in acts and n % 5 == 1 and not state.turn.selected:
            return await self.press(actor, acts["toggle"][0])  # maybe no score: says why
        for action in ("bestbank", "piggy", "bestroll", "bank", "roll"):
            if action in acts and (action != "bestbank" or n % 3 == 0):
                return await self.press(actor, acts[action][0])
        return None

    async def kuriki_move(self, state: Any) -> Reply | None:
        acts = self.items()
        n = self.steps
        if state.votes:
            voted = await self.kuriki_vote(state)
            if voted is not None:
                return voted
        actor = self.people.get(state.roller if state.phase != "respond" else state.next_guy)
        if n % 11 == 3 and "sneak" in acts:  # someone else sneaks a peek
            spy = next((p for i, p in self.people.items() if i not in (state.roller,)), None)
            if spy is not None:
                asked = await self.press(spy, acts["sneak"][0])
                ok = [i for i in asked.items or [] if ":sneakok:" in i.custom_id]
                if ok:
                    return await self.choose(spy, ok[0], ())
                return asked
        if n % 13 == 5 and not state.votes and state.phase in ("roll", "respond"):
            accuser = next((p for p in state.players if p.id in self.people and not p.out), None)
            accused = next(
                (p.id for p in state.players if accuser and p.id != accuser.id and not p.out), None
            )
            if accuser is not None and accused is not None:  # a foul, to vote on
                actor = self.people[accuser.id]
                with speaking(actor.locale), contextlib.suppress(GameError, UserError):
                    return self.seen(
                        await self.tables.command(
                            actor, self.channel, "kuriki", "propose", f"{accused}:" + "x" * 100
                        )
                    )
        if actor is None:
            return None
        if state.phase == "direction":
            return await self.press(actor, acts["ccw" if n % 2 else "cw"][0])
        if state.phase == "declare" and "peek" in acts:
            return await self.declare(actor, await self.press(actor, acts["peek"][0]))
        if state.phase == "roll":
            if "reverse" in acts and n % 2:
                return await self.press(actor, acts["reverse"][0])
            return await self.declare(actor, await self.press(actor, acts["roll"][0]))
        if state.phase == "respond":
            if "pass" in acts and n % 3 == 0:
                return await self.press(actor, acts["pass"][0])
            if "roll" in acts and n % 3 == 1:
                return await self.declare(actor, await self.press(actor, acts["roll"][0]))
            return await self.press(actor, acts["pull"][0])
        return None

    async def declare(self, actor: Actor, rolled: Reply) -> Reply:
        secret = [f for f in rolled.followups if f.ephemeral] + ([rolled] if rolled.ephemeral else [])
        for message in secret:
            for item in message.items or []:
                if ":declare:" in item.custom_id:
                    choice = item.options[self.rng.randrange(len(item.options))].value
                    return await self.choose(actor, item, (choice,))
        return rolled  # a Kuriki: shown to everyone, nothing to declare

    async def kuriki_vote(self, state: Any) -> Reply | None:
        """A person who still has to answer a foul vote presses on its message."""
        from games.kuriki.engine import voters

        for vote in state.votes:
            deciders = voters(state, vote) or [vote.accused]
            for voter in deciders:
                if voter not in self.people or voter in vote.yes + vote.no:
                    continue
                for item in self.vote_items:
                    click = Click.parse(item.custom_id)
                    if click and (click.arg or "").startswith(f"{vote.id}-") and not item.disabled:
                        return await self.choose(self.people[voter], item, ())
        return None

    async def crap_move(self, state: Any) -> Reply | None:
        from games.crap.engine import legal_actions, waiting_for

        acts = self.items()
        if state.phase == "acquire":
            callers = [
                p for i, p in self.people.items() if "call_bluff" in legal_actions(state, i)
            ]
            if not callers:
                return None
            answer = "bluff" if self.steps % 4 == 0 else "nocall"
            return await self.press(callers[0], acts[answer][0])
        if state.phase == "force_vote":
            voters = [p for i, p in self.people.items() if "vote" in legal_actions(state, i)]
            if not voters:
                return None
            return await self.press(voters[0], acts["vote"][self.steps % 2])
        waiting = (
            [state.current_player.id] if state.phase == "turn" else waiting_for(state)
        )
        actor = next((self.people[i] for i in waiting if i in self.people), None)
        if actor is None:
            return None
        if self.steps % 7 == 0:
            await self.press(actor, acts["log"][0])
        hand = await self.press(actor, acts["hand"][0])
        menus = {Click.parse(i.custom_id).action: i for i in hand.items or []}
        if "score" in menus or "commit" in menus:
            item = menus.get("score") or menus["commit"]
            values = tuple(o.value for o in item.options[: max(1, item.min_values or 1)])
            return await self.choose(actor, item, values)
        if "guess" in menus:  # one value and one suit, in one select
            item = menus["guess"]
            value = self.rng.choice([o for o in item.options if o.value.isdigit()]).value
            suit = self.rng.choice([o for o in item.options if not o.value.isdigit()]).value
            return await self.choose(actor, item, (value, suit))
        kinds = [k for k in ("acquire", "target", "protect", "recycle") if k in menus]
        if not kinds:
            return None
        pick = kinds[self.steps % len(kinds)]
        item = menus[pick]
        if pick == "recycle":
            return await self.choose(actor, item, ())
        options = item.options
        if pick == "target":  # now and then a forced recycle, to vote on
            forced = [o for o in options if o.value.startswith("force-")]
            options = forced if forced and self.steps % 3 == 0 else options
        return await self.choose(actor, item, (self.rng.choice(options).value,))

    # ------------------------------------------------------------------ the biggest numbers

    async def biggest(self) -> None:
        """The rows at their longest: big and negative scores, every penalty and mark a
        player can carry, set on the service's cached game (the next move stores them),
        and the table posted afresh."""
        state = await self.state()
        if self.kind == "farkle":
            for i, p in enumerate(state.players):
                p.score, p.farkles, p.malappys = (-1_234_567 if i % 2 else 9_876_543), 6, 1
                p.on_table = i % 3 != 0
            state.final_turns = [p.id for p in state.players]
        elif self.kind == "kuriki":
            for i, p in enumerate(state.players):
                p.crowns, p.fouls, p.purse = 9, 99, -999_999_999
                if i % 4 == 1:
                    p.lives = 1
        else:
            for p in state.players:
                p.score = 99_999
        with speaking(self.code):
            self.seen(await self.tables.status(self.channel, self.kind))

    async def rules(self) -> None:
        for actor in list(self.people.values())[:1]:
            with speaking(actor.locale):
                fits(await self.tables.rules(GUILD, self.channel, self.kind, None))

    async def end(self) -> None:
        """The host ends it (unless it ended in play): the final table, and a Rematch lobby
        of everyone."""
        host = next(iter(self.people.values()))
        if await self.session() is not None:
            with speaking(host.locale):
                self.seen(await self.tables.end(host, self.channel, self.kind))
        assert self.table is not None
        rematch = next(i for i in self.table.items if ":rematch:" in i.custom_id)
        with speaking(host.locale):
            lobby = await self.tables.rematch(host, Click.parse(rematch.custom_id))
        assert isinstance(lobby, Rematch), lobby
        fits(lobby.lobby)
        fits(Rendered(embed=discord.Embed(), items=lobby.finished_items))
        with speaking(host.locale):
            await self.tables.end(host, self.channel, self.kind)  # the lobby, cancelled


@pytest.fixture
async def tables(tmp_path: Path, clock: Clock) -> AsyncIterator[Tables]:
    """The service on a SQLite file (the limits are the renderer's, not the database's)."""
    t = await make_tables(tmp_path / "games.sqlite3", clock, seed=SEED, **SETTINGS)
    yield t
    await t.store.close()


async def every_message_of(kind: str, code: str, tables: Tables, clock: Clock) -> None:
    # The biggest table: its lobby filling up, moves of every kind, its rows at their
    # longest, the rules, the end by its host and the Rematch lobby.
    game = Game(tables, clock, kind, 2000, code)
    options, people, bots = BIGGEST[kind]
    await game.open(options, people, bots)
    await game.play(40)
    await game.biggest()
    await game.play(10)
    await game.rules()
    if kind == "crap":  # a CRAP player leaves between actions: settle the one under way
        for _ in range(20):
            if (await game.state()).phase == "turn":
                break
            await game.play(1)
    leaver = list(game.people.values())[-1]
    with speaking(code):
        game.seen(await tables.leave(leaver, game.channel, kind))
    await game.end()
    assert set(game.pressed) >= PRESSED[kind], game.pressed
    # Against bots, to the winner's table.
    small = Game(tables, clock, kind, 3000, code)
    options, bots = TO_THE_END[kind]
    await small.open(options, 1, bots)
    await small.play(2000)
    assert await small.session() is None, f"the {kind} game did not end"
    (record,) = await tables.store.finished_games(small.channel)
    assert record["winner_id"] is not None


def every_page(code: str) -> None:
    """/help (in a server and elsewhere) and every game's rules, as the user who asks reads
    them."""
    settings = GuildSettings(**SETTINGS)
    adapters = default_adapters()
    with speaking(code):
        players = {kind: a.players_text(settings) for kind, a in adapters.items()}
        for in_server in (True, False):
            fits_embed(help_embed(players, in_server))
        for kind, adapter in adapters.items():
            for preset in PRESETS if kind == "farkle" else [None]:
                fits_embed(adapter.rules_embed(settings, None, preset))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["farkle", "kuriki", "crap"])
@pytest.mark.parametrize("code", CODES)
async def test_every_message_fits_in_every_shipped_language(
    tables: Tables, clock: Clock, kind: str, code: str
) -> None:
    with short_labels():
        await every_message_of(kind, code, tables, clock)


@pytest.mark.parametrize("code", CODES)
def test_help_and_rules_fit_in_every_shipped_language(code: str) -> None:
    every_page(code)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["farkle", "kuriki", "crap"])
async def test_every_message_fits_in_a_language_35_percent_longer_than_english(
    longer: str, tables: Tables, clock: Clock, kind: str
) -> None:
    """The worst case: a translation that makes every sentence 35% longer still fits
    everywhere (where a text can outgrow a limit, the renderer cuts or pages what was
    translated, not the English)."""
    await every_message_of(kind, longer, tables, clock)
    every_page(longer)


@pytest.mark.parametrize("code", CODES)
def test_buttons_the_games_may_not_reach_here_stay_short(code: str) -> None:
    """The labels that hold numbers, at the biggest a game shows on them (a piggyback on six
    dice for 1,500), and the toggles a seeded game may not press, within `BUTTON_LABEL`, in
    English as in every translation."""
    with speaking(code):
        labels = [
            i18n._n(
                "Piggyback {n} die: {points}",
                "Piggyback {n} dice: {points}",
                n,
                points=i18n.number(1500),
            )
            for n in range(1, 7)
        ]
        labels += [i18n._(t) for t in ("Let bluffs go: on", "Let bluffs go: off")]
    long = [label for label in labels if len(label) > BUTTON_LABEL]
    assert not long, long
