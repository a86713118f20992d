"""Kuriki's messages besides the table (part of `KurikiTable`): the private dice under the
cup, built from `private_view` only (with the Roller's declaration menus), the question
before a sneaked peek, the answer after a declaration, and the public messages of foul
votes and Rusks."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord

from bot.components import TableItem
from bot.errors import UserError
from bot.i18n import N_, _, render
from bot.players import who
from bot.sessions import Session
from bot.tables.base import EMBED_COLOUR, Rendered, TableAdapter
from games.bots import is_bot, only_bots
from games.kuriki import engine
from games.kuriki.engine import KurikiState
from games.kuriki.values import legal_declarations, name, roll_value
from games.numbers import number

SELECT_LIMIT = 25
#: The key a foul vote's message is kept under with the session ("vote:<id>").
SIDE_VOTE = "vote:"

#: The table's two ways of seeing the dice: again, for whoever has seen them; the foul
#: (buttons: shown as `_(PEEK)`).
PEEK = N_("Peek again")
SNEAK = N_("Sneak a peek (foul!)")


def peek_shown(state: KurikiState) -> bool:
    """Whether the table offers Peek again: only while the player it waits on has seen the
    dice (the Roller declaring; a Next Guy who rolled them or sneaked), so the Next Guy who
    has not is never offered a peek he would be refused."""
    if state.phase == "declare":
        return True
    return state.phase == "respond" and state.next_guy in state.seen


def tally(vote: engine.Vote) -> str:
    """A foul vote's count so far: '1 yes, 0 no', or 'no votes yet' (never '0 yes, 0 no')."""
    if vote.yes or vote.no:
        return _("{yes} yes, {no} no", yes=len(vote.yes), no=len(vote.no))
    return _("no votes yet")


class KurikiMessages(TableAdapter[KurikiState]):
    """The private replies and vote messages of `KurikiTable` (bot/tables/kuriki.py), the
    part of its rendering besides the cup (it uses `button`, `select`, `faces` and
    `thinking_line` of `TableAdapter`)."""

    def private(
        self,
        session: Session,
        user_id: int,
        action: str,
        arg: str | None = None,
        values: tuple[str, ...] = (),
    ) -> Rendered | None:
        """The ephemeral a player gets after `action`: the dice for whoever has seen them, and
        the Roller's declarations. Built from private_view only."""
        state: KurikiState = session.state
        if state.finished:
            return None
        if action == "sneak":
            return self._sneak_question(session, user_id)
        if action not in ("roll", "peek"):
            return None
        view = engine.private_view(state, user_id)
        dice = view["dice"]
        if not isinstance(dice, list):  # None: the dice are not this player's to see
            if action == "peek":
                raise UserError(
                    _(
                        "You have not seen these dice: **{peek}** is for whoever has. "
                        "**{sneak}** shows them to you, charged as a foul.",
                        peek=_(PEEK),
                        sneak=_(SNEAK),
                    )
                )
            return None
        value = roll_value(dice[0], dice[1], state.rules.two_digit)
        lines = [
            _(
                "🎲 Under the cup: **{dice}**, which is **{value}**.",
                dice=self.faces.pair(dice),
                value=name(value),
            )
        ]
        items: list[TableItem] = []
        if state.phase == "declare" and user_id == state.roller:
            legal = legal_declarations(state.rules.two_digit, state.minimum)
            if state.minimum:
                lines.append(
                    _(
                        "You must declare at least **{value}**. Lying is allowed.",
                        value=name(state.minimum),
                    )
                )
            else:
                lines.append(_("Fresh roll: declare anything. Lying is allowed."))
            options = [
                (
                    _("{value} · the truth", value=name(v)) if v == value else render(name(v)),
                    str(v),
                )
                for v in reversed(legal)
            ]
            for part, chunk in enumerate(_chunks(options, SELECT_LIMIT)):
                arg = "hi" if part == 0 else "lo"
                label = (
                    _("Declare…")
                    if len(options) <= SELECT_LIMIT
                    else (_("Declare (higher)…") if part == 0 else _("Declare (lower)…"))
                )
                items.append(
                    self.select(
                        session,
                        "declare",
                        chunk,
                        placeholder=label,
                        arg=arg,
                    )
                )
        embed = discord.Embed(description="\n".join(lines), colour=EMBED_COLOUR)
        return Rendered(embed=embed, items=items)

    def _sneak_question(self, session: Session, user_id: int) -> Rendered:
        """The private question before a sneaked peek: it is a foul, charged publicly."""
        state: KurikiState = session.state
        if state.phase not in ("declare", "respond") or state.dice is None:
            raise UserError(_("There is nothing under the cup to peek at."))
        if user_id in state.seen:
            raise UserError(
                _("You have already seen these dice: use **{peek}**.", peek=_(PEEK))
                if peek_shown(state)
                else _("You have already seen these dice.")
            )
        fouls = state.player(user_id).fouls
        foul = _(
            "🍑 Sneaking a peek is a **foul**, charged on the table for everyone to see (every "
            "third foul costs a life; you have {fouls}).",
            fouls=fouls,
        )
        if (fouls + 1) % 3 == 0:
            foul += " " + _("It is your third: it costs you a life.")
        text = foul + "\n" + _("Peek anyway? To change your mind, just dismiss this message.")
        items = [
            self.button(
                session, "sneakok", _("Peek anyway (foul)"), style=discord.ButtonStyle.danger
            )
        ]
        return Rendered(embed=discord.Embed(description=text, colour=EMBED_COLOUR), items=items)

    def message_after(
        self, session: Session, user_id: int, action: str, arg: str | None
    ) -> Rendered:
        """The declaration ephemeral once used; the sneaked dice in place of the question; a
        foul vote's public message; a Rusk notice."""
        state: KurikiState = session.state
        if action == "sneakok":
            shown = None if state.finished else self.private(session, user_id, "peek")
            return shown or Rendered(
                embed=discord.Embed(description=_("The cup is gone."), colour=EMBED_COLOUR)
            )
        if action == "declare":
            said = (
                _("You declared **{value}**.", value=name(state.declared))
                if state.declared is not None
                else _("You declared.")
            )
            return Rendered(embed=discord.Embed(description=said, colour=EMBED_COLOUR))
        opened = next((v for v in state.votes if v.id == state.next_vote - 1), None)
        proposed_rusk = opened is not None and opened.rusk and opened.proposer == user_id
        if action == "rusk" and not proposed_rusk:  # charged directly by a server manager
            accused = number((arg or "0").partition(":")[0]) or 0
            # Translators: "Rusk" (manhandling the cup) is the game's jargon.
            text = _(
                "🥤💥 A **Rusk** is charged on {name}: a triple foul. Fetch a new cup and clean "
                "up the old one.",
                name=who(accused),
            )
            return Rendered(embed=discord.Embed(description=text, colour=EMBED_COLOUR))
        if action in ("propose", "rusk"):
            new_vote = state.next_vote - 1  # the vote just opened: its message is kept
            return replace(self._vote_message(session, new_vote), side=f"{SIDE_VOTE}{new_vote}")
        vote_id: int | None = None
        if action == "vote":
            head = (arg or "").partition("-")[0]
            vote_id = number(head)
        return self._vote_message(session, vote_id)

    def side_messages(self, state: KurikiState) -> dict[str, str]:
        """The foul votes open, each with what its message shows (the vote, its voters)."""
        if state.phase == "over":
            return {}
        return {
            f"{SIDE_VOTE}{v.id}": v.model_dump_json() + repr(engine.voters(state, v))
            for v in state.votes
        }

    def side_message(self, session: Session, key: str) -> Rendered:
        """A foul vote's message as it stands: open, or closed with its result."""
        return self._vote_message(session, number(key.removeprefix(SIDE_VOTE)))

    @staticmethod
    def _closed_vote_message(
        state: KurikiState, vote_id: int | None, *, ended: bool = False
    ) -> Rendered:
        """A vote that closed: who called what on whom, the count, and what came of it.
        `ended`: the game ended (or was ended) with the vote still open."""
        closed = next((c for c in state.closed_votes if c.vote.id == vote_id), None)
        if closed is None:
            last = render(state.log[-1]) if state.log else ""
            if ended:
                last = _("The game ended before the vote closed: nothing was charged.")
            return Rendered(
                embed=discord.Embed(
                    title=_("⚖ Foul vote closed"), description=last[:4096], colour=EMBED_COLOUR
                )
            )
        vote = closed.vote
        if vote.rusk:
            title = (
                _("⚖ Rusk vote closed: charged")
                if closed.carried
                else _("⚖ Rusk vote closed: not charged")
            )
        else:
            title = (
                _("⚖ Foul vote closed: charged")
                if closed.carried
                else _("⚖ Foul vote closed: not charged")
            )
        called = {"name": who(vote.proposer), "accused": who(vote.accused), "reason": vote.reason}
        line = (
            _("{name} called a Rusk on {accused}: {reason}.", **called)
            if vote.rusk
            else _("{name} called a foul on {accused}: {reason}.", **called)
        )
        if vote.yes or vote.no:
            line += " " + _("Votes: {tally}.", tally=tally(vote))
        lines = [line, *(render(outcome) for outcome in closed.outcome)]
        return Rendered(
            embed=discord.Embed(
                title=title, description="\n".join(lines)[:4096], colour=EMBED_COLOUR
            )
        )

    def _vote_message(self, session: Session, vote_id: int | None) -> Rendered:
        state: KurikiState = session.state
        vote = next((v for v in state.votes if v.id == vote_id), None)
        ended = state.phase == "over" or session.ended is not None
        if vote is None or ended:
            return self._closed_vote_message(state, vote_id, ended=ended)
        voters = engine.voters(state, vote)
        called = {"name": who(vote.proposer), "accused": who(vote.accused), "reason": vote.reason}
        head = (
            _("{name} calls a **Rusk** (a triple foul) on {accused}: {reason}.", **called)
            if vote.rusk
            else _("{name} calls a foul on {accused}: {reason}.", **called)
        )
        if vote.abstain:
            head += "\n" + _(
                "Abstained: {names} (a bot does not see what is said or done at the table).",
                names=[who(v) for v in vote.abstain],
            )
        closes = _("Closes {when}.", when=f"<t:{int(vote.deadline)}:R>")
        if not voters:  # two players: the accused accepts the foul or it is not charged
            nobody = _(
                "Nobody else is at the table to vote: {name} may accept the foul, or it is not "
                "charged.",
                name=who(vote.accused),
            )
            description = f"{head}\n{nobody} {closes}"
            embed = discord.Embed(title=_("⚖ Foul!"), description=description, colour=EMBED_COLOUR)
            if is_bot(vote.accused):  # its answer is the bot's: nothing here to press
                embed.description = description + "\n" + self.thinking_line([vote.accused])
                return Rendered(embed=embed)
            items = [
                self.button(
                    session,
                    "vote",
                    _("Accept the foul"),
                    arg=f"{vote.id}-accept",
                    style=discord.ButtonStyle.danger,
                ),
                self.button(session, "vote", _("Decline"), arg=f"{vote.id}-decline"),
            ]
            asked = _("{name}: accept the foul or decline it.", name=who(vote.accused))
            return Rendered(embed=embed, items=items, content=asked)
        needed = len(voters) // 2 + 1
        who_votes = _(
            "The voters are the players other than the accuser and the accused: {voters}. A "
            "majority ({needed} of {total}) must agree.",
            voters=[who(v) for v in voters],
            needed=needed,
            total=len(voters),
        )
        votes = _("Votes: {tally}.", tally=tally(vote))
        description = f"{head}\n{who_votes} {votes} {closes}"
        embed = discord.Embed(title=_("⚖ Foul!"), description=description, colour=EMBED_COLOUR)
        items = [
            self.button(
                session,
                "vote",
                _("Agree: Rusk") if vote.rusk else _("Agree: foul"),
                arg=f"{vote.id}-yes",
                style=discord.ButtonStyle.danger,
            ),
            self.button(session, "vote", _("Disagree"), arg=f"{vote.id}-no"),
        ]
        # The vote waits on the players who have still to vote: the new vote message calls
        # them (an edit after a vote notifies nobody, as Discord does).
        undecided = [v for v in voters if v not in (*vote.yes, *vote.no)]
        if undecided and only_bots(undecided):  # the votes left are bots': none to press
            embed.description = description + "\n" + self.thinking_line(undecided)
            return Rendered(embed=embed)
        content: str | None = (
            _("{names}: vote on the foul.", names=[who(v) for v in undecided])
            if undecided
            else None
        )
        return Rendered(embed=embed, items=items, content=content)


def _chunks(seq: list[Any], size: int) -> list[list[Any]]:
    return [seq[i : i + size] for i in range(0, len(seq), size)]
