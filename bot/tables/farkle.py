"""Farkle on a Discord table: buttons in, one public embed out. Farkle hides nothing, so the
whole state is the public view."""

from __future__ import annotations

import contextlib
from typing import NamedTuple

import discord

from bot.components import TableItem
from bot.errors import UserError
from bot.i18n import Lang, _, _n, current, listed, reads_markdown, render
from bot.mentions import mention, spoken
from bot.players import who
from bot.sessions import Session
from bot.settings import GuildSettings, SettingsError
from bot.tables.base import EMBED_COLOUR, Rendered, TableAdapter
from bot.tables.farkle_play import FarklePlay
from bot.tables.farkle_rules import describe_rules, house_rules, short_rules
from bot.tables.fields import add_paged, newest, without_game_over
from games.errors import IllegalMove
from games.farkle import engine
from games.farkle.engine import FarkleState
from games.farkle.rules import PRESETS, FarkleRules
from games.lobby import Lobby
from games.shared import rules_model
from games.text import Msg

LOG_LINES = 6
FIELD_LIMIT = 1024
#: On a button that rolls all six dice again after scoring every die (hot dice): short
#: enough that "Keep 1500 & roll 6 🔥" fits a phone's button.
HOT = " 🔥"


def _keep_and_bank(value: int, total: int) -> str:
    """The label of the button that keeps the best dice and banks: "Keep 200 & bank 400",
    the second number the turn total the log says was banked (not the dice kept now)."""
    return _("Keep {points} & bank {total}", points=value, total=total + value)


def _keep_and_roll(value: int, left: int) -> str:
    """The label of the button that keeps the best dice and rolls on: "Keep 1500 & roll 6 🔥"
    after hot dice."""
    label = _("Keep {points} & roll {n}", points=value, n=left)
    return label + HOT if left == 6 else label


#: The scores' fields already written (`FarkleTable._scores`), by the language (kept with
#: them, so its id stays its own), markdown or not, and all they show; at most 256 tables'.
_score_fields: dict[tuple[object, ...], tuple[Lang, tuple[str, ...]]] = {}
_SCORES_KEPT = 256


class _Throw(NamedTuple):
    """What the engine says about the throw on the table, asked once per render: the turn's
    lines and the buttons both show it."""

    #: The last die missed and is thrown again.
    reroll: bool
    #: What keeping the best dice gives (`engine.best_keep`); None on a bot's turn.
    keep: tuple[int, int, bool] | None
    #: What the selection scores (None: nothing selected, or no score).
    value: int | None
    #: Why the selection scores nothing (the refusal's message: the exception itself, kept,
    #: would keep this frame through its traceback, a cycle of the whole render for the
    #: garbage collector).
    problem: Msg | str | None

    @classmethod
    def of(cls, state: FarkleState, bots: list[int]) -> _Throw:
        turn = state.turn
        reroll = engine.must_reroll_last_die(state)
        keep = None if bots or state.finished else engine.best_keep(state)
        value, problem = None, None
        if turn.dice and not reroll and turn.selected:
            try:
                value = engine.selection_value(state)
            except IllegalMove as exc:
                problem = exc.message
        return cls(reroll, keep, value, problem)


class FarkleTable(FarklePlay, TableAdapter[FarkleState]):
    """The Farkle table: its rules half is `FarklePlay` (bot/tables/farkle_play.py)."""

    title = "Farkle"

    # ---------------------------------------------------------------- lobby

    def players_text(self, settings: GuildSettings) -> str:
        """The server's rule set's count, and those of the rule sets that differ ("2-25
        players; 2-10 with Classic Farkle"), as their lobbies say."""
        text = super().players_text(settings)
        usual = self.lobby_max_players(self.lobby_options(settings))
        others: dict[int, list[str]] = {}
        for preset in PRESETS:
            with contextlib.suppress(UserError):  # a house rule that no longer validates
                rules = settings.farkle_rules(preset)
                if rules.max_players != usual:
                    others.setdefault(rules.max_players, []).append(_(rules.name))
        for most, names in others.items():
            text = _(
                "{players}; {least}-{most} with {rule_sets}",
                players=text,
                least=self.min_players,
                most=most,
                rule_sets=listed(names, style="or"),
            )
        return text

    def lobby_description(self, lobby: Lobby, settings: GuildSettings) -> str:
        rules = rules_model(FarkleRules, lobby.options["rules"])
        house = house_rules(rules)
        parts = [short_rules(rules)]
        if house:
            parts.append(_("House rules: {rules}.", rules=_("; ").join(house)))
        return " ".join(parts) + " · " + mention("farkle rules")

    # ---------------------------------------------------------------- moves

    # ---------------------------------------------------------------- rendering

    def render(self, session: Session) -> Rendered:
        state: FarkleState = session.state
        rules = state.rules
        embed = discord.Embed(
            title=_("🎲 Farkle · {rule_set}", rule_set=_(rules.name)), colour=EMBED_COLOUR
        )
        lines: list[str] = []
        content = None
        bots = [] if state.finished else self.thinking(state)
        throw = _Throw.of(state, bots)
        if state.finished and state.ended_by_departure:
            lines.append(self.departure_line(state.ended_by_departure))
        elif state.finished:
            # The winner is said once, above the table (the scores show the points).
            winner = next((p for p in engine.standings(state) if p.id == state.winner), None)
            if winner:
                content = _("🏆 {player} wins the Farkle game!", player=who(winner.id))
            else:
                lines.append(_("**Game over.**"))
        else:
            lines += self._turn_lines(session, state, bots, throw)
        embed.description = "\n".join(lines) or None
        for i, part in enumerate(self._scores(state)):  # a big table takes more than one field
            embed.add_field(
                name=_("Scores") if i == 0 else _("Scores (cont.)"), value=part, inline=False
            )
        log = without_game_over(state.log) if state.finished else state.log
        if log:
            embed.add_field(name=_("Last moves"), value=newest(log[-LOG_LINES:]), inline=False)
        then = self.finished_footer() if state.finished else f"{spoken('farkle rules')} · {spoken('farkle leave')}"
        embed.set_footer(
            text=_("Target: at or over {target} · {then}", target=rules.target, then=then)
            if rules.target_inclusive
            else _("Target: over {target} · {then}", target=rules.target, then=then)
        )
        # A bot's turn has no button a person could use: every one of them is the turn's.
        items = [] if state.finished or bots else self._buttons(session, state, throw)
        return Rendered(embed=embed, items=items, content=content)

    def _turn_lines(
        self, session: Session, state: FarkleState, bots: list[int], throw: _Throw
    ) -> list[str]:
        turn, player = state.turn, state.current_player
        need = state.rules.bank_minimum(player.on_table)
        name, total = who(player.id), turn.total
        if not need:
            head = _("**{player}'s turn** · turn total **{total}**", player=name, total=total)
        elif need > state.rules.min_bank:
            head = _(
                "**{player}'s turn** · turn total **{total}** · {need} needed to get on the table",
                player=name,
                total=total,
                need=need,
            )
        else:
            head = _(
                "**{player}'s turn** · turn total **{total}** · {need} needed to bank",
                player=name,
                total=total,
                need=need,
            )
        lines = [head]
        if state.final_turns is not None:
            final = ", ".join(who(i) for i in state.final_turns)
            lines.append(_("⚑ Final turns: {players}", players=final))
        if turn.dice:
            thrown = " ".join(
                self.faces.die(d, "selected" if i in turn.selected and self.faces.pictures else "play")
                for i, d in enumerate(turn.dice)
            )
            lines.append(_("**Thrown:** {dice}", dice=thrown))
        if turn.set_aside:
            aside = self.faces.dice(turn.set_aside, "aside")
            lines.append(_("**Set aside:** {dice}", dice=aside))
        if turn.extended:
            values = _(", ").join(
                _("each {face} = {points}", face=str(f), points=state.rules.triple(f))
                for f in turn.extended
            )
            lines.append(_("**Extended triples:** {values}", values=values))
        if throw.reroll:
            left = state.rules.one_die_throws - turn.one_die_misses
            lines.append(
                _n(
                    "No score yet with the last die: {n} throw left.",
                    "No score yet with the last die: {n} throws left.",
                    left,
                )
            )
        elif turn.dice:
            chosen = engine.selection_dice(state)
            if not chosen:
                keep = throw.keep
                if keep is not None:  # (a bot's turn: nobody to tell what to press)
                    value, left, bankable = keep
                    roll = _keep_and_roll(value, left)
                    lines.append(
                        _(
                            "Tap the dice you want to keep, or press **{roll}** or **{bank}** "
                            "to keep the best.",
                            roll=roll,
                            bank=_keep_and_bank(value, turn.total),
                        )
                        if bankable
                        else _(
                            "Tap the dice you want to keep, or press **{roll}** to keep the best.",
                            roll=roll,
                        )
                    )
            elif throw.problem is not None:
                lines.append(
                    _(
                        "**Selected:** {dice} · {problem}",
                        dice=self.faces.dice(chosen, "selected"),
                        problem=render(throw.problem),
                    )
                )
            elif throw.value is not None:
                lines.append(
                    _(
                        "**Selected:** {dice} → **{points}**",
                        dice=self.faces.dice(chosen, "selected"),
                        points=throw.value,
                    )
                )
                short = engine.bank_shortfall(state, throw.value, engine.selection_is_hot(state))
                if short:
                    lines.append(render(short))
        if bots:  # in place of a clock: the bot moves in a moment
            lines.append(self.thinking_line(bots))
        elif session.deadline:
            lines.append(
                _(
                    "⏱ Time for this move runs out {when}.",
                    when=f"<t:{int(session.deadline)}:R>",
                )
            )
        return lines

    def _scores(self, state: FarkleState) -> tuple[str, ...]:
        """The scores' fields: the same for every tap of a throw, and from one turn to the
        next but for two players' rows, so each is written once (`_score_fields`)."""
        rules, language = state.rules, current()
        key = (
            id(language),
            reads_markdown(),
            -1 if state.finished else state.current,
            rules.opening,
            rules.farkle_penalty_every,
            rules.farkle_word,
            rules.crappy_malappy_wins,
            *[(p.id, p.score, p.on_table, p.farkles, p.malappys) for p in state.players],
            None,  # (the players end here, the departed begin)
            *[(p.id, p.score) for p in state.departed],
        )
        hit = _score_fields.get(key)
        if hit is not None:
            return hit[1]
        parts = tuple(self._score_rows(state))
        if len(_score_fields) >= _SCORES_KEPT:
            _score_fields.clear()
        _score_fields[key] = (language, parts)
        return parts

    def _score_rows(self, state: FarkleState) -> list[str]:
        rows = []
        for i, p in enumerate(state.players):
            mark = "▶" if i == state.current and not state.finished else "·"
            extra = []
            if state.rules.opening and not p.on_table:
                extra.append(_("not on the table"))
            if p.farkles and state.rules.farkle_penalty_every:
                extra.append(
                    _n("{n} crappy", "{n} crappys", p.farkles)
                    if state.rules.farkle_word == "crappy"
                    else _n("{n} farkle", "{n} farkles", p.farkles)
                )
            if p.malappys and state.rules.crappy_malappy_wins:
                extra.append(_n("{n} crappy malappy", "{n} crappy malappys", p.malappys))
            row = _("{mark} {player} **{points}**", mark=mark, player=who(p.id), points=p.score)
            if extra:
                row = _("{row} ({notes})", row=row, notes=_(", ").join(extra))
            rows.append(row)
        for p in state.departed:
            rows.append(_("✗ {player} {points} (left)", player=who(p.id), points=p.score))
        parts: list[str] = []
        for row in rows:  # fields of whole rows, each within Discord's 1024 characters
            if parts and len(parts[-1]) + 1 + len(row) <= FIELD_LIMIT:
                parts[-1] += "\n" + row
            else:
                parts.append(row[:FIELD_LIMIT])
        return parts or [_("nobody")]

    def _buttons(self, session: Session, state: FarkleState, throw: _Throw) -> list[TableItem]:
        turn = state.turn
        legal = engine.legal_actions(state, state.current_player.id)
        # Every button answers the same decision (this throw): one stamp for all of them.
        button = self.stamped(session, self.stamp_of(state, "roll", None))
        items: list[TableItem] = []
        if "toggle" in legal:
            for i, face in enumerate(turn.dice):
                picked = i in turn.selected
                item = button(
                    "toggle",
                    f"{face}" + (" ✓" if picked else ""),
                    arg=f"{i}-{'off' if picked else 'on'}",
                    style=discord.ButtonStyle.success if picked else discord.ButtonStyle.secondary,
                    row=i // 3,
                    emoji=self.faces.die_emoji(face, "selected" if picked else "play"),
                )
                items.append(item)
        if not turn.dice:
            roll_label = _("Roll 6 dice")
        elif throw.reroll:
            roll_label = _("Throw the last die again")
        elif not turn.selected and "roll" not in legal:
            roll_label = _("Tap dice to set aside")  # greyed: says why it cannot roll yet
        else:
            left = len(turn.dice) - len(turn.selected)
            roll_label = (
                _("Set aside & roll {n}", n=left) if left else _("Set aside & roll {n}", n=6) + HOT
            )
        items.append(
            button(
                "roll",
                roll_label,
                style=discord.ButtonStyle.primary,
                disabled="roll" not in legal,
                row=2,
            )
        )
        chosen = throw.value  # what the selection scores (None: nothing, or no score)
        if turn.dice and not throw.reroll:
            bank_label = _("Bank") if chosen is None else _("Bank {points}", points=turn.total + chosen)
            items.append(
                button(
                    "bank",
                    bank_label,
                    style=discord.ButtonStyle.success,
                    disabled="bank" not in legal,
                    row=2,
                )
            )
        keep = throw.keep if legal else None
        # The selection already is the best keep (same points, same dice left): Set aside &
        # roll and Bank do what the Keep buttons would, so those are not shown twice.
        if keep is not None and (chosen, len(turn.dice) - len(turn.selected) or 6) != keep[:2]:
            value, left, bankable = keep
            items.append(
                button(
                    "bestroll",
                    _keep_and_roll(value, left),
                    style=discord.ButtonStyle.primary,
                    row=3,
                )
            )
            if bankable:
                items.append(
                    button(
                        "bestbank",
                        _keep_and_bank(value, turn.total),
                        style=discord.ButtonStyle.success,
                        row=3,
                    )
                )
        if "piggyback" in legal and state.piggyback is not None:
            offer = state.piggyback
            items.append(
                button(
                    "piggy",
                    _n(
                        "Piggyback {n} die: {points}",
                        "Piggyback {n} dice: {points}",
                        offer.dice,
                        points=offer.points,
                    ),
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
                else rules_model(FarkleRules, session.lobby.options["rules"])
            )
            heading = _("Rules of the game in this channel")
        else:
            try:
                source = settings.farkle_rules(preset)
            except SettingsError as exc:
                raise UserError(str(exc)) from None
            heading = (
                _("Rules with this server's house rules")
                if settings.farkle_house_rules.get(preset or settings.farkle_preset)
                else _("Rules")
            )
        scoring, play = describe_rules(source)
        embed = discord.Embed(
            title=_("🎲 Farkle · {rule_set}", rule_set=_(source.name)),
            description=heading,
            colour=EMBED_COLOUR,
        )
        add_paged(embed, _("Scoring"), [f"• {x}" for x in scoring])
        add_paged(embed, _("Play"), [f"• {x}" for x in play])
        embed.set_footer(
            text=_(
                "Presets: {presets} · a server's admins change rules with /config; outside "
                "servers, the host's start options do",
                presets=listed(_(r.name) for r in PRESETS.values()),
            )
        )
        return embed
