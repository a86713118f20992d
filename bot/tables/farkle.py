"""Farkle on a Discord table: buttons in, one public embed out. Farkle hides nothing, so the
whole state is the public view."""

from __future__ import annotations

import contextlib
import functools
import random
from collections.abc import Callable
from typing import Any

import discord

from bot.components import TableItem
from bot.errors import UserError
from bot.mentions import mention
from bot.players import who
from bot.sessions import Session
from bot.settings import GuildSettings, SettingsError, house_rule_words
from bot.tables.base import EMBED_COLOUR, Move, Outcome, Rendered, TableAdapter, placed
from bot.tables.fields import add_paged, newest
from games.autoplay import Chooser
from games.bots import bot_seats
from games.errors import IllegalMove
from games.farkle import engine, policy
from games.farkle.engine import Action, FarklePlayer, FarkleState
from games.farkle.rules import PRESETS, FarkleRules
from games.farkle.scoring import score_selection
from games.lobby import Lobby
from games.numbers import number

LOG_LINES = 6
FIELD_LIMIT = 1024
#: On a button that rolls all six dice again after scoring every die (hot dice): short
#: enough that "Keep 1500 & roll 6 🔥" fits a phone's button.
HOT = " 🔥"
_ACTIONS = {
    "toggle": "toggle",
    "roll": "roll",
    "bank": "bank",
    "piggy": "piggyback",
    "bestroll": "roll",
    "bestbank": "bank",
}


def describe_rules(rules: FarkleRules) -> tuple[list[str], list[str]]:
    """The rule set in plain sentences (scoring, then play), generated from its fields so it
    is always true."""
    kind = {
        "singles": "Four or more of a kind score only as a triple plus single 1s and 5s.",
        "double": "Four of a kind is twice the triple, five twice that, six twice again.",
        "add": "Each die past three adds the triple again (four 4s = 800, five = 1200).",
        "flat": "Four, five, six of a kind: {} / {} / {}.".format(*rules.flat_kind),
    }[rules.kind_scoring]
    sets = [
        f"Single 1: {rules.single_one}. Single 5: {rules.single_five}.",
        f"Three 1s: {rules.triple_ones}. Three of any other face: face x 100.",
        kind,
    ]
    six = []
    if rules.straight is not None:
        six.append(f"straight 1-6: {rules.straight}")
    if rules.three_pairs is not None:
        pairs = f"three pairs: {rules.three_pairs}"
        if rules.four_and_pair_is_three_pairs:
            pairs += " (four of a kind + a pair counts)"
        six.append(pairs)
    six.append(
        f"two triples: {rules.two_triplets}"
        if rules.two_triplets is not None
        else "two triples: the two triples added"
    )
    sets.append("With all six dice: " + "; ".join(six) + ".")
    if rules.extend_triple_across_throws:
        sets.append(
            "After you set aside a triple, each later die of that face this turn scores the "
            "triple again, until you pick all six dice up."
        )
    else:
        sets.append("Sets never combine across throws.")
    play = [
        "Set aside at least one scoring die before each throw. Score all six: hot dice, roll all six again."
    ]
    bank = (
        f"You need {rules.min_bank} in a turn to bank"
        if rules.min_bank
        else "You may bank any score"
    )
    if rules.min_bank and rules.min_bank_after_hot_dice:
        bank += ", counted afresh after hot dice"
    play.append(bank + ".")
    if rules.opening:
        play.append(f"To get on the table you need {rules.opening} in one turn.")
    if rules.one_die_throws > 1:
        play.append(f"With one die left you get {rules.one_die_throws} throws to roll a 1 or a 5.")
    if rules.farkle_penalty_every:
        play.append(
            f"Every {rules.farkle_penalty_every}th {rules.farkle_word} of a player costs "
            f"{rules.farkle_penalty} "
            "(scores can go negative)."
        )
    if rules.crappy_malappy_wins:
        play.append(
            "A farkle on the first throw of six dice in a turn is a crappy malappy: "
            f"a player's crappy malappy number {rules.crappy_malappy_wins} wins the game at once."
        )
    if rules.piggyback:
        play.append(
            "Piggyback: on the table, you may start with the last player's unrolled dice and "
            "banked turn score; if that throw scores, you continue from that total."
        )
    seat = "goes first" if rules.seating == "highest_first" else "goes last"
    reach = "at or over" if rules.target_inclusive else "over"
    end = (
        "the rest of that round plays, then the game ends"
        if rules.end_rule == "finish_round"
        else "every other player gets one more turn"
    )
    play.append(f"Seating: everyone rolls a die; the highest {seat}.")
    play.append(
        f"The first to end a turn {reach} {rules.target}: {end}. Highest total wins; a tie goes "
        "to whoever reached the target first."
    )
    return sets, play


def house_rules(rules: FarkleRules) -> list[str]:
    """The rules that differ from their rule set's, in words ("Straight 1-6: not scored");
    the target is not one: the lobby's summary starts with it."""
    preset = next((p for p in PRESETS.values() if p.name == rules.name), None)
    if preset is None:
        return []
    return [
        house_rule_words(f, getattr(rules, f))
        for f in FarkleRules.model_fields
        if f not in ("name", "target") and getattr(rules, f) != getattr(preset, f)
    ]


def short_rules(rules: FarkleRules) -> str:
    """The lobby's one-paragraph summary of the rules that will be played, generated from
    the fields (so house rules and a target chosen at start read true)."""
    house = bool(house_rules(rules))
    word = rules.farkle_word
    parts = [f"{rules.target} to win"]
    if rules.min_bank:
        parts.append(f"{rules.min_bank} to bank")
    if rules.opening:
        parts.append(f"{rules.opening} to get on the table")
    if rules.extend_triple_across_throws:
        parts.append("triples extend across throws")
    if rules.kind_scoring == "flat":
        parts.append("flat four/five/six of a kind")
    if rules.one_die_throws > 1:
        parts.append(f"{rules.one_die_throws} throws with the last die")
    if rules.farkle_penalty_every:
        parts.append(
            f"every {engine.ordinal(rules.farkle_penalty_every)} {word} costs "
            f"{rules.farkle_penalty}"
        )
    if rules.crappy_malappy_wins:
        parts.append(f"{rules.crappy_malappy_wins} crappy malappys win")
    if rules.piggyback:
        parts.append("piggyback on the last player's dice")
    title = f"**{rules.name}**" + (" with house rules" if house else "")
    return f"{title}: " + ", ".join(parts) + "."


class FarkleTable(TableAdapter):
    kind = "farkle"
    title = "Farkle"
    min_players = 2
    max_players = 10
    engine = engine
    policy = policy
    #: Whether a game with a bot seat starts building its rules' win table (a child
    #: process of a few minutes per rule set; the bot sets it from `farkle_tables`).
    build_tables = False
    quick_bot_actions = frozenset({"toggle"})
    state_model = FarkleState

    # ---------------------------------------------------------------- lobby

    def lobby_options(self, settings: GuildSettings) -> dict[str, Any]:
        try:
            rules = settings.farkle_rules()
        except SettingsError as exc:
            raise UserError(str(exc)) from None
        return {"rules": rules.model_dump(mode="json")}

    def bot_preparation(self, state: FarkleState) -> Callable[[], object] | None:
        """A game with a bot seat: start building the rules' win table in the background
        (the bot plays the expected-score fallback until it is ready)."""
        if self.build_tables and bot_seats(p.id for p in state.players):
            return functools.partial(policy.warm, state.rules)
        return None

    def lobby_max_players(self, options: dict[str, Any]) -> int:
        """Per rule set: Crappy Malappy has no limit, so up to what a table shows (25)."""
        return int(FarkleRules.model_validate(options["rules"]).max_players)

    def players_text(self, settings: GuildSettings) -> str:
        """The server's rule set's count, and those of the rule sets that differ ("2-25
        players; 2-10 with Classic Farkle"), as their lobbies say."""
        usual = super().players_text(settings)
        others: dict[str, list[str]] = {}
        for preset in PRESETS:
            with contextlib.suppress(UserError):  # a house rule that no longer validates
                rules = settings.farkle_rules(preset)
                text = f"{self.min_players}-{rules.max_players} players"
                if text != usual:
                    others.setdefault(text, []).append(rules.name)
        return usual + "".join(
            f"; {t.removesuffix(' players')} with {' or '.join(n)}" for t, n in others.items()
        )

    def lobby_description(self, lobby: Lobby, settings: GuildSettings) -> str:
        rules = FarkleRules.model_validate(lobby.options["rules"])
        house = house_rules(rules)
        changed = f"\nHouse rules: {'; '.join(house)}." if house else ""
        return f"{short_rules(rules)}{changed}\nUse {mention('farkle rules')} for every rule."

    def new_game(self, lobby: Lobby, settings: GuildSettings, rng: random.Random) -> FarkleState:
        rules = FarkleRules.model_validate(lobby.options["rules"])
        state, _ = engine.new_game(lobby.players, rules, rng)
        return state

    # ---------------------------------------------------------------- moves

    def stamp(self, state: FarkleState | None, action: str, arg: str | None) -> int:
        return 0 if state is None else engine.decision(state)

    def apply(self, state: FarkleState, move: Move, rng: random.Random) -> FarkleState:
        kind = _ACTIONS.get(move.action)
        if kind is None:
            raise IllegalMove("That button does not belong to Farkle.")
        index, select = None, None
        if kind == "toggle" and move.arg is not None:
            # "<die>-on" / "<die>-off": the state the tap asks for; a bare "<die>" flips it.
            die, _, want = move.arg.partition("-")
            index = number(die)
            select = {"on": True, "off": False}.get(want)
        action = Action(
            kind=kind,  # type: ignore[arg-type]
            index=index,
            select=select,
            best=move.action in ("bestroll", "bestbank"),
        )
        return engine.apply(state, move.user_id, action, rng)[0]

    def timeout(
        self, state: FarkleState, rng: random.Random, now: float, chooser: Chooser | None = None
    ) -> FarkleState:
        return engine.timeout(state, rng, chooser)[0]

    def remove_player(self, state: FarkleState, user_id: int) -> FarkleState:
        return engine.remove_player(state, user_id)[0]

    def player_ids(self, state: FarkleState) -> list[int]:
        return [p.id for p in state.players]

    def on_clock(self, state: FarkleState) -> int | None:
        return None if state.finished else state.current_player.id

    def waiting_on(self, state: FarkleState) -> dict[int, str]:
        return {} if state.finished else {state.current_player.id: "your turn to roll"}

    def is_finished(self, state: FarkleState) -> bool:
        return state.finished

    def outcome(self, state: FarkleState) -> Outcome:
        ranked = engine.standings(state)
        winner = next((p for p in ranked if p.id == state.winner), None)
        return Outcome(
            players=[{"id": p.id, "name": p.name} for p in ranked],
            scores={str(p.id): p.score for p in ranked},
            winner_id=state.winner,
            rules=state.rules.model_dump(mode="json"),
            places=placed(engine.finishing_order(state)),
            stats={str(p.id): self._stats(state, p) for p in ranked},
            summary=(
                self.departure_summary(state.ended_by_departure)
                if state.ended_by_departure
                else f"{winner.name} wins with {winner.score}."
                if winner
                else "Nobody wins."
            ),
        )

    @staticmethod
    def _stats(state: FarkleState, player: FarklePlayer) -> dict[str, int]:
        """A player's counters for /stats, in the rule set's own words: crappys (and crappy
        malappys, where they count) in Crappy Malappy, farkles elsewhere."""
        stats = {
            f"{state.rules.farkle_word}s": player.farkles,
            "hot_dice": player.hot_dice,
            "best_turn": player.best_turn,
        }
        if state.rules.crappy_malappy_wins:
            stats["malappys"] = player.malappys
        return stats

    # ---------------------------------------------------------------- rendering

    def render(self, session: Session) -> Rendered:
        state: FarkleState = session.state
        rules = state.rules
        embed = discord.Embed(title=f"🎲 Farkle · {rules.name}", colour=EMBED_COLOUR)
        lines: list[str] = []
        content = None
        if state.finished and state.ended_by_departure:
            lines.append(self.departure_line(state.ended_by_departure))
        elif state.finished:
            winner = next((p for p in engine.standings(state) if p.id == state.winner), None)
            lines.append(
                f"🏆 **Game over.** {who(winner.id)} wins with **{winner.score}**!"
                if winner
                else "**Game over.**"
            )
            content = f"🏆 {who(winner.id)} wins the Farkle game!" if winner else None
        else:
            lines += self._turn_lines(session, state)
        embed.description = "\n".join(lines)
        for i, part in enumerate(self._scores(state)):  # a big table takes more than one field
            embed.add_field(name="Scores" if i == 0 else "Scores (cont.)", value=part, inline=False)
        if state.log:
            embed.add_field(name="Last moves", value=newest(state.log[-LOG_LINES:]), inline=False)
        reach = "at or over" if rules.target_inclusive else "over"
        embed.set_footer(
            text=f"Target: {reach} {rules.target} · "
            + (self.finished_footer() if state.finished else "/farkle rules · /farkle leave")
        )
        # A bot's turn has no button a person could use: every one of them is the turn's.
        items = [] if state.finished or self.thinking(state) else self._buttons(session, state)
        return Rendered(embed=embed, items=items, content=content)

    def _turn_lines(self, session: Session, state: FarkleState) -> list[str]:
        turn, player = state.turn, state.current_player
        bots = self.thinking(state)
        lines = [f"**{who(player.id)}'s turn** · turn total **{turn.total}**"]
        need = state.rules.bank_minimum(player.on_table)
        if need:
            what = "to get on the table" if need > state.rules.min_bank else "to bank"
            lines[0] += f" · {need} needed {what}"
        if state.final_turns is not None:
            lines.append("⚑ Final turns: " + ", ".join(who(i) for i in state.final_turns))
        if turn.dice:
            lines.append(
                "**Thrown:** "
                + " ".join(
                    self.faces.die(
                        d, "selected" if i in turn.selected and self.faces.pictures else "play"
                    )
                    for i, d in enumerate(turn.dice)
                )
            )
        if turn.set_aside:
            lines.append("**Set aside:** " + self.faces.dice(turn.set_aside, "aside"))
        if turn.extended:
            values = ", ".join(f"each {f} = {state.rules.triple(f)}" for f in turn.extended)
            lines.append(f"**Extended triples:** {values}")
        if engine.must_reroll_last_die(state):
            left = state.rules.one_die_throws - turn.one_die_misses
            lines.append(
                f"No score yet with the last die: {left} throw{'s' if left > 1 else ''} left."
            )
        elif turn.dice:
            chosen = engine.selection_dice(state)
            if not chosen:
                keep = None if bots else engine.best_keep(state)
                if keep is not None:  # (a bot's turn: nobody to tell what to press)
                    value, left, bankable = keep
                    hot = HOT if left == 6 else ""
                    press = f"**Keep {value} & roll {left}{hot}**" + (
                        f" or **Keep {value} & bank**" if bankable else ""
                    )
                    lines.append(
                        f"Tap the dice you want to keep, or press {press} to keep the best."
                    )
            else:
                try:
                    value = score_selection(chosen, state.rules, turn.extended)
                    lines.append(
                        f"**Selected:** {self.faces.dice(chosen, 'selected')} → **{value}**"
                    )
                    short = engine.bank_shortfall(state, value, engine.selection_is_hot(state))
                    if short:
                        lines.append(short)
                except IllegalMove as exc:
                    lines.append(f"**Selected:** {self.faces.dice(chosen, 'selected')} · {exc}")
        if bots:  # in place of a clock: the bot moves in a moment
            lines.append(self.thinking_line(bots))
        elif session.deadline:
            lines.append(f"⏱ Time for this move runs out <t:{int(session.deadline)}:R>.")
        return lines

    def _scores(self, state: FarkleState) -> list[str]:
        rows = []
        for i, p in enumerate(state.players):
            mark = "▶" if i == state.current and not state.finished else "·"
            extra = []
            if state.rules.opening and not p.on_table:
                extra.append("not on the table")
            if p.farkles and state.rules.farkle_penalty_every:
                word = state.rules.farkle_word
                plural = "crappies" if word == "crappy" else "farkles"
                extra.append(f"{p.farkles} {word if p.farkles == 1 else plural}")
            if p.malappys and state.rules.crappy_malappy_wins:
                extra.append(f"{p.malappys} crappy malappy")
            tail = f" ({', '.join(extra)})" if extra else ""
            rows.append(f"{mark} {who(p.id)} **{p.score}**{tail}")
        for p in state.departed:
            rows.append(f"✗ {who(p.id)} {p.score} (left)")
        parts: list[str] = []
        for row in rows:  # fields of whole rows, each within Discord's 1024 characters
            if parts and len(parts[-1]) + 1 + len(row) <= FIELD_LIMIT:
                parts[-1] += "\n" + row
            else:
                parts.append(row[:FIELD_LIMIT])
        return parts or ["nobody"]

    def _buttons(self, session: Session, state: FarkleState) -> list[TableItem]:
        turn = state.turn
        legal = engine.legal_actions(state, state.current_player.id)
        items: list[TableItem] = []
        if "toggle" in legal:
            for i, face in enumerate(turn.dice):
                picked = i in turn.selected
                item = self.button(
                    session,
                    "toggle",
                    f"{face}" + (" ✓" if picked else ""),
                    arg=f"{i}-{'off' if picked else 'on'}",
                    style=discord.ButtonStyle.success if picked else discord.ButtonStyle.secondary,
                    row=i // 3,
                    emoji=self.faces.die_emoji(face, "selected" if picked else "play"),
                )
                items.append(item)
        if not turn.dice:
            roll_label = "Roll 6 dice"
        elif engine.must_reroll_last_die(state):
            roll_label = "Throw the last die again"
        elif not turn.selected and "roll" not in legal:
            roll_label = "Tap dice to set aside"  # greyed: says why it cannot roll yet
        else:
            left = len(turn.dice) - len(turn.selected)
            roll_label = f"Set aside & roll {left or 6}" + (HOT if left == 0 else "")
        items.append(
            self.button(
                session,
                "roll",
                roll_label,
                style=discord.ButtonStyle.primary,
                disabled="roll" not in legal,
                row=2,
            )
        )
        chosen: int | None = None  # what the selection scores (None: nothing, or no score)
        if turn.dice and not engine.must_reroll_last_die(state):
            bank_label = "Bank"
            if turn.selected:  # an empty selection is no value (and no exception to raise)
                with contextlib.suppress(IllegalMove):
                    chosen = engine.selection_value(state)
                    bank_label = f"Bank {turn.total + chosen}"
            items.append(
                self.button(
                    session,
                    "bank",
                    bank_label,
                    style=discord.ButtonStyle.success,
                    disabled="bank" not in legal,
                    row=2,
                )
            )
        keep = engine.best_keep(state) if legal else None
        # The selection already is the best keep (same points, same dice left): Set aside &
        # roll and Bank do what the Keep buttons would, so those are not shown twice.
        if keep is not None and (chosen, len(turn.dice) - len(turn.selected) or 6) != keep[:2]:
            value, left, bankable = keep
            hot = HOT if left == 6 else ""
            items.append(
                self.button(
                    session,
                    "bestroll",
                    f"Keep {value} & roll {left}{hot}",
                    style=discord.ButtonStyle.primary,
                    row=3,
                )
            )
            if bankable:
                items.append(
                    self.button(
                        session,
                        "bestbank",
                        f"Keep {value} & bank",
                        style=discord.ButtonStyle.success,
                        row=3,
                    )
                )
        if "piggyback" in legal and state.piggyback is not None:
            offer = state.piggyback
            items.append(
                self.button(
                    session,
                    "piggy",
                    f"Piggyback {offer.dice} dice for {offer.points}",
                    row=2,
                )
            )
        return items

    def rules_embed(
        self, settings: GuildSettings, session: Session | None, preset: str | None
    ) -> discord.Embed:
        if session is not None and session.kind == self.kind and preset is None:
            source = (
                session.state.rules
                if session.started
                else FarkleRules.model_validate(session.lobby.options["rules"])
            )
            heading = "Rules of the game in this channel"
        else:
            try:
                source = settings.farkle_rules(preset)
            except SettingsError as exc:
                raise UserError(str(exc)) from None
            heading = (
                "Rules with this server's house rules"
                if settings.farkle_house_rules.get(preset or settings.farkle_preset)
                else "Rules"
            )
        scoring, play = describe_rules(source)
        embed = discord.Embed(
            title=f"🎲 Farkle · {source.name}", description=heading, colour=EMBED_COLOUR
        )
        add_paged(embed, "Scoring", [f"• {x}" for x in scoring])
        add_paged(embed, "Play", [f"• {x}" for x in play])
        embed.set_footer(
            text="Presets: " + ", ".join(PRESETS) + " · a server's admins change rules with "
            "/config; outside servers, the host's start options do"
        )
        return embed
