"""Kuriki on a Discord table. The cup is the public message, rendered only from
`public_view`; the dice reach a player only through ephemeral replies built from
`private_view` (the Roller after rolling or pressing Peek again, a player who sneaks a peek)."""

from __future__ import annotations

import discord

from bot.components import TableItem
from bot.i18n import N_, _, _n, number, plain_text
from bot.mentions import mention, spoken
from bot.players import mentions, who
from bot.sessions import Session
from bot.settings import GuildSettings
from bot.tables.base import EMBED_COLOUR, Rendered
from bot.tables.fields import add_paged, newest, without_game_over
from bot.tables.kuriki_messages import PEEK, SNEAK, KurikiMessages, peek_shown, tally
from bot.tables.kuriki_play import KurikiPlay
from games.kuriki import engine
from games.kuriki.engine import KurikiRules, KurikiState
from games.kuriki.values import name, roll_value
from games.lobby import Lobby
from games.shared import rules_model
from games.text import Part

LOG_LINES = 6


def play_order(state: KurikiState) -> str:
    """The players still in, from the Roller in the direction of play ("Ann → Bob → Cat"):
    nothing before the first Roller chose it, nor with two players (there is no order)."""
    if state.phase in ("direction", "over") or len(state.alive()) < 3:
        return ""
    order = [state.roller]
    while (nxt := state.after(order[-1])) != state.roller:
        order.append(nxt)
    return " → ".join(state.player(uid).name for uid in order)


#: The characters of a button's label a phone shows whole (Discord cuts more with "…").
LABEL_ROOM = 25


@plain_text()  # a label reads no markdown: the name as written
def next_label(name: str) -> str:
    """The first Roller's button for `name` playing next ("Bob next"), a long name cut short
    so that the label fits on a phone."""
    # Translators: a button: this player plays after the first Roller (sets the direction).
    label = _("{name} next", name=name)
    over = len(label) - LABEL_ROOM
    if over > 0 and len(name) > over + 1:
        label = _("{name} next", name=name[: len(name) - over - 1].rstrip() + "…")
    return label


def may_pass(state: KurikiState) -> bool:
    """Whether the Next Guy may still Pass (only once per roll): the table and the ping say
    what he may do."""
    return state.next_guy not in state.passed


def score_pad_row(lives_left: int, lives: int) -> str:
    """The rule text's star: one arm per life, the centre last; a mark on each life lost."""
    lost = lives - lives_left
    arms = lives - 1
    marked_arms = min(lost, arms)
    star = "◆" * marked_arms + "◇" * (arms - marked_arms)
    centre = "●" if lost >= lives else "○"
    return f"{star} {centre}" if arms else centre


RULES_TEXT = [
    N_(
        "The Roller shakes two dice under the cup, peeks, and declares. On a fresh roll any "
        "value; on a point at least the standing declaration. Lying is allowed."
    ),
    # Translators: the roll nicknames (Boxcars, the Mime, ...) as in their own messages.
    N_(
        "Ranking: Kuriki (1-2) > 6-6 Boxcars > 5-5 the Mime > 4-4 Walnuts > 3-3 Scouts > 2-2 "
        "Nixons > 1-1 Snake-Eyes > 11 > 10 > ... > 4."
    ),
    N_(
        "A Kuriki is shown at once: the Next Guy loses a life and the Roller keeps the cup. "
        "Every third Kuriki of a player: the Next Guy loses two lives, everyone else but the "
        "Roller one."
    ),
    N_(
        "The Next Guy may **Roll** (take the cup and declare at least as high), **Pull** "
        "(reveal: a lie costs the responsible player (the Roller, or the last to pass) a life "
        "and the puller starts the next point; the truth costs the puller a life and the "
        "Roller who rolled it rolls again) or **Pass** (take responsibility unseen; once per "
        "roll). Hate mail comes home: the Roller may pull on whoever passed to him."
    ),
    # Translators: "Rusk" (manhandling the cup) is the game's jargon, as in its messages.
    N_(
        "**Sneak a peek (foul!)** shows you the dice and is charged as a foul at once. "
        "`/kuriki foul` proposes a disrespect foul that counts "
        "when a majority of the players other than the accuser and the accused agree (with two "
        "players, when the accused accepts it). A Rusk (manhandling the cup) is voted the same "
        "way and is a triple foul; a server manager may also charge it directly. Every third "
        "foul costs a life."
    ),
    # Translators: "Tarted" (the first out) and "in the Tarts" (on one life) are the game's
    # jargon, as in its messages.
    N_(
        "At 0 lives you are out; the first out is Tarted (Pop-Tarts for the table: Brown Sugar "
        "and Cinnamon). On one life you are in the Tarts, at risk of being Tarted, until "
        "someone is. The last player with a life wins."
    ),
]


#: What the score pad's marks mean (the table's footer), and the finished game's picture's.
PAD_LEGEND = N_("Pad: ◆ a life lost · ◇ a life left · ○ the last life (● lost) · 👑 a Kuriki")
STORY_LEGEND = N_("Picture: a red spot per life lost, a crown per Kuriki, the fouls counted")


class KurikiTable(KurikiPlay, KurikiMessages):
    """The public table (the cup); the private replies and the foul votes' messages are
    `KurikiMessages` (bot/tables/kuriki_messages.py), the rules half `KurikiPlay`
    (bot/tables/kuriki_play.py)."""

    title = "Kuriki"
    #: "sneak" (the table's button) only asks, privately, whether to peek anyway;
    #: "sneakok" (on that private question) charges the foul and shows the dice.
    read_only_actions = frozenset({"peek", "sneak"})
    off_table_actions = frozenset({"declare", "vote", "sneakok"})

    # ---------------------------------------------------------------- lobby

    def lobby_description(self, lobby: Lobby, settings: GuildSettings) -> str:
        rules = rules_model(KurikiRules, lobby.options["rules"])
        lives = _n(
            "Two dice, a cup, and lies. **{n} life** each.",
            "Two dice, a cup, and lies. **{n} lives** each.",
            rules.lives,
        )
        return " ".join(filter(None, [lives, _variants(rules)])) + " · " + mention("kuriki rules")

    # ---------------------------------------------------------------- moves

    # ---------------------------------------------------------------- public table

    def render(self, session: Session) -> Rendered:
        state: KurikiState = session.state
        view = engine.public_view(state)
        assert view["dice"] is None  # the public table is rendered without the cup's contents
        embed = discord.Embed(title=f"🥤 {_('Kuriki')}", colour=EMBED_COLOUR)
        embed.description = "\n".join(self._situation(session, state))[:4096] or None
        embed.add_field(name=_("Score pad"), value=self._pad(state), inline=False)
        log = without_game_over(state.log) if state.finished else state.log
        if log:
            embed.add_field(name=_("Last moves"), value=newest(log[-LOG_LINES:]), inline=False)
        parts = [_n("{n} life", "{n} lives", state.rules.lives)]
        order = play_order(state)
        if order:
            with plain_text():  # a footer reads no markdown: names as written
                parts.insert(0, _("Order of play: {names}", names=order))
        if state.rules.stake:
            parts.append(
                _("stakes {stake} each · pot {pot}", stake=state.rules.stake, pot=state.pot)
            )
        foot = " · ".join(parts)
        legend = _(PAD_LEGEND) + ("\n" + _(STORY_LEGEND) if state.finished else "")
        embed.set_footer(
            text=legend
            + "\n"
            + foot
            + " · "
            + (self.finished_footer() if state.finished else spoken("kuriki rules"))
        )
        content = None
        if state.finished and state.winner is not None:
            won: list[Part] = [who(w) for w in state.winners or [state.winner]]
            content = _n(
                "🏆 {names} wins the Kuriki game!",
                "🏆 {names} win the Kuriki game!",
                len(won),
                names=won,
            )
        return Rendered(
            embed=embed,
            items=[] if state.finished else self._buttons(session, state),
            content=content,
        )

    def _situation(self, session: Session, state: KurikiState) -> list[str]:
        lines: list[str] = []
        if state.last_reveal is not None and not _log_shows_reveal(state):
            r = state.last_reveal
            if r.declared is None:
                lines.append(_("Last: 👑 Kuriki ({dice}).", dice=self.faces.pair(r.dice)))
            elif r.loser is not None:  # a pull: it always cost someone a life
                pulled = {
                    "dice": self.faces.pair(r.dice),
                    "value": name(roll_value(*r.dice, state.rules.two_digit)),
                    "declared": name(r.declared),
                    "name": who(r.loser),
                }
                lines.append(
                    _(
                        "Last pull: {dice} = {value} against {declared}: a lie; {name} lost a life.",
                        **pulled,
                    )
                    if r.liar
                    else _(
                        "Last pull: {dice} = {value} against {declared}: not a lie; {name} lost a "
                        "life.",
                        **pulled,
                    )
                )
        roller = who(state.roller)
        if state.phase == "over" and state.ended_by_departure:
            lines.append(self.departure_line(state.ended_by_departure))
        elif state.phase == "over" and not state.winners and state.winner is None:
            lines.append(_("**Game over.**"))
        elif state.phase == "over":
            pass  # the winners are said once, above the table (`render`'s content)
        elif state.phase == "direction":
            lines.append(
                _("{name} rolled highest: first Roller. Choose who plays next.", name=roller)
                if engine.rolled_highest(state)
                else _("{name} is the first Roller now: choose who plays next.", name=roller)
            )
        elif state.phase == "roll":
            lines.append(_("🥤 {name} holds the cup: **fresh roll**.", name=roller))
            if state.can_reverse:
                lines.append(_("After that Kuriki, the Roller may reverse the direction first."))
        elif state.phase == "declare":
            lines.append(
                _(
                    "🥤 {name} rolled on **{value}** and is peeking under the cup…",
                    name=roller,
                    value=name(state.minimum),
                )
                if state.minimum
                else _("🥤 {name} rolled and is peeking under the cup…", name=roller)
            )
        elif state.phase == "respond":
            assert state.declared is not None and state.responsible is not None
            assert state.next_guy is not None
            lines.append(
                _(
                    # Plain words for the rule text's "responsible": whom a lie costs a life.
                    "Standing declaration: **{value}** · a lie costs {name} a life",
                    value=name(state.declared),
                    name=who(state.responsible),
                )
            )
            next_guy = who(state.next_guy)
            lines.append(
                # A bot: the line says it is thinking, in place of a second line naming it.
                _("**Next Guy: {name}** is thinking…", name=next_guy)
                if self.thinking(state)
                else _("**Next Guy: {name}**: Roll, Pull or Pass.", name=next_guy)
                if may_pass(state)
                else _("**Next Guy: {name}**: Roll or Pull.", name=next_guy)
            )
            if state.passed:
                # In the order they passed: a sequence, not a sentence's list.
                lines.append(_("Passed: {names}", names=mentions(state.passed)))
        bots = self.thinking(state)
        if bots and state.phase not in ("declare", "respond"):  # said with the Roller, Next Guy
            lines.append(self.thinking_line(bots))
        if state.votes:
            for v in state.votes:
                called = {
                    "name": who(v.accused),
                    "reason": v.reason,
                    "when": f"<t:{int(v.deadline)}:R>",
                }
                if engine.voters(state, v):
                    lines.append(
                        _(
                            "⚖ Foul vote on {name} ({reason}): {tally}, closes {when}.",
                            tally=tally(v),
                            **called,
                        )
                    )
                else:  # two players: nobody votes, the accused accepts the foul or declines
                    lines.append(
                        _(
                            "⚖ Foul called on {name} ({reason}): {name} accepts or declines, "
                            "closes {when}.",
                            **called,
                        )
                    )
        if session.deadline and state.phase != "over" and session.turn_deadline and not bots:
            lines.append(
                _(
                    "⏱ Time for this move runs out {when}.",
                    when=f"<t:{int(session.turn_deadline)}:R>",
                )
            )
        return lines

    def _pad(self, state: KurikiState) -> str:
        rows = []
        for p in state.players:
            status = ""
            if p.left:
                status = " " + _("(left)")
            elif p.out:
                # Translators: the first player out (the game's jargon, as in its messages).
                status = " 🥧 " + _("Tarted") if p.id == state.tarted else " " + _("(out)")
            elif p.lives == 1 and state.tarted is None:
                # Translators: on one life (the game's jargon, as in its messages).
                status = " · " + _("in the Tarts")
            crowns = f" {'👑' * p.crowns}" if p.crowns else ""
            fouls = " · " + _n("{n} foul", "{n} fouls", p.fouls) if p.fouls else ""
            sign = "+" if p.purse >= 0 else ""
            purse = f" · {sign}{number(p.purse)}" if state.rules.stake else ""
            pad = score_pad_row(p.lives, state.rules.lives)
            rows.append(f"`{pad}` {who(p.id)} {number(p.lives)}♥{crowns}{fouls}{purse}{status}")
        return "\n".join(rows)[:1024]

    def _buttons(self, session: Session, state: KurikiState) -> list[TableItem]:
        primary, secondary, danger = (
            discord.ButtonStyle.primary,
            discord.ButtonStyle.secondary,
            discord.ButtonStyle.danger,
        )
        items: list[TableItem] = []
        # While a bot is to act, only what any person may press (a peek) is shown: the
        # direction, the cup and the Next Guy's answer are the bot's.
        bot_moves = bool(self.thinking(state))
        if bot_moves and state.phase in ("direction", "roll"):
            return items
        if state.phase == "direction":
            for way, uid in engine.next_ways(state):
                label = next_label(state.player(uid).name)
                items.append(self.button(session, way, label, style=primary))
        elif state.phase == "roll":
            items.append(self.button(session, "roll", _("Roll"), style=primary))
            if state.can_reverse:
                items.append(self.button(session, "reverse", _("Reverse direction")))
        elif state.phase in ("declare", "respond"):
            if state.phase == "respond" and not bot_moves:
                items += [
                    self.button(session, "roll", _("Roll (take the cup)"), style=primary),
                    self.button(session, "pull", _("Pull"), style=danger),
                    # The Next Guy passes at most once a roll: no usable Pass after that.
                    self.button(
                        session,
                        "pass",
                        _("Pass (already passed)") if not may_pass(state) else _("Pass"),
                        disabled=state.next_guy in state.passed,
                    ),
                ]
            if peek_shown(state) and not bot_moves:  # a bot never presses it
                items.append(self.button(session, "peek", _(PEEK), style=secondary))
            # The foul apart, in red, so nobody presses it for Peek again.
            items.append(self.button(session, "sneak", _(SNEAK), style=danger, row=1))
        return items

    def rules_embed(
        self, settings: GuildSettings, session: Session | None, preset: str | None
    ) -> discord.Embed:
        rules = self.rules_here(settings, session, KurikiRules)
        embed = discord.Embed(
            title=f"🥤 {_('Kuriki')}",
            description=_n("{n} life.", "{n} lives.", rules.lives) + " " + _variants(rules),
            colour=EMBED_COLOUR,
        )
        add_paged(embed, _("How to play"), [f"• {_(x)}" for x in RULES_TEXT[:4]])
        add_paged(embed, _("Fouls and the end"), [f"• {_(x)}" for x in RULES_TEXT[4:]])
        embed.set_footer(
            text=_(
                "Not played: the mock-Danzig voice for Snake-Eyes and the count-down for a die "
                "on the floor."
            )
        )
        return embed


#: The log lines of a reveal (a pull, a Kuriki shown): while the log field shows one, the
#: table does not say "Last pull" above it as well.
_REVEALS = (
    "{name} pulls the cup: {dice} = {value} against {declared}, a lie!",
    "{name} pulls the cup: {dice} = {value} against {declared}, not a lie.",
    "👑 {name} rolled a KURIKI ({dice})! Crown number {crowns}.",
)


def _log_shows_reveal(state: KurikiState) -> bool:
    """Whether the table's log window still shows the last reveal."""
    return any(
        not isinstance(line, str) and line.k in _REVEALS for line in state.log[-LOG_LINES:]
    )


def _variants(rules: KurikiRules) -> str:
    bits = []
    if rules.two_digit:
        bits.append(_("Two-digit declarations (3-4 may be called 43)."))
    if rules.reverse_after_kuriki:
        bits.append(_("After a Kuriki the Roller may reverse the direction."))
    if rules.stake:
        bits.append(
            _(
                "Stakes {stake} each, fouls {price} into the pot.",
                stake=rules.stake,
                price=rules.foul_price,
            )
        )
    return " ".join(bits)
