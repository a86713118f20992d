"""Reminders over long turns and the Remind button (a part of `Tables`, bot/service.py;
no Discord here: bot/reminder_delivery.py posts what this decides).

A turn of at least two hours is reminded at half time and an hour before its deadline
(bot/reminder_times.py `schedule`). `Commit` tells `new_turn` of every new turn clock; the
store keeps the turn and when its next reminder is due, and the timer loop (bot/timers.py)
wakes for it like for a deadline, so a game days from its deadline costs nothing meanwhile.
Taking a reminder (`due`) and putting it in the outbox are one commit; posting it carries a
nonce Discord enforces, and a restart posts the outbox again: sent once, never twice."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

from bot.components import TableItem, button
from bot.errors import UserError
from bot.i18n import _
from bot.mentions import mention
from bot.players import people
from bot.reminder_times import NUDGE_EVERY, NUDGE_LEFT, Quiet, schedule
from bot.server_settings import ServerSettings
from bot.sessions import Session, Sessions
from bot.store import Store
from bot.store.reminders import OutboxRow, ReminderRow, RemindPrefs
from bot.tables.base import Rendered, TableAdapter

log = logging.getLogger(__name__)

#: The custom_id kind of the Remind button (t:remind:nudge:<channel>:<game id>:0): not a
#: game's, so `GameBot.on_component` hands it to the handler bot/cogs/remind.py registers.
NUDGE_KIND = "remind"
NUDGE_ACTION = "nudge"
#: An outbox entry older than this is posted again by the timer loop (a post that failed).
RETRY_AFTER = 60.0


@dataclass(frozen=True)
class Delivery:
    """One reminder to post: whom it mentions in the channel (with a link to the table),
    whom it writes to directly, and who pressed Remind (None: the schedule)."""

    nonce: str
    channel_id: int
    guild_id: int | None
    kind: str
    users: list[int]
    dms: list[int]
    message_id: int | None
    deadline: float
    language: str
    by: int | None = None
    created_at: float = field(default=0.0, compare=False)

    def outbox(self) -> OutboxRow:
        data = asdict(self)
        del data["created_at"]
        return OutboxRow(
            self.nonce, self.channel_id, self.guild_id, json.dumps(data), self.created_at
        )

    @classmethod
    def of(cls, row: OutboxRow) -> Delivery:
        return cls(**json.loads(row.data), created_at=row.created_at)

    def link(self) -> str:
        """The jump link to the table (to the channel while no table message is known)."""
        where = "@me" if self.guild_id is None else str(self.guild_id)
        tail = "" if self.message_id is None else f"/{self.message_id}"
        return f"https://discord.com/channels/{where}/{self.channel_id}{tail}"

    def target_nonce(self, target: int) -> str:
        """The nonce of its post in `target` (the channel, or a player's DM): Discord's
        nonces are at most 25 characters."""
        if target == self.channel_id:
            return self.nonce
        return _nonce(f"{self.nonce}:{target}")


def _nonce(text: str) -> str:
    return "r" + hashlib.sha256(text.encode()).hexdigest()[:24]


class Reminders:
    """What is due, to whom, and the nudge's limits (see the module's docstring)."""

    def __init__(
        self,
        *,
        store: Store,
        sessions: Sessions,
        adapters: dict[str, TableAdapter],
        language: Callable[[Session], str],
        settings: ServerSettings,
        clock: Callable[[], float],
        on_deadline: Callable[[float], None],
    ) -> None:
        self.store = store
        self.sessions = sessions
        self.adapters = adapters
        self.language = language
        self.settings = settings
        self.clock = clock
        self.on_deadline = on_deadline

    async def new_turn(self, work: Session, timer: float) -> None:
        """A turn clock (re)started: its reminders start afresh. Turns an hour or shorter
        keep no row (no reminder, no Remind button)."""
        end = work.turn_deadline
        if end is None or timer <= NUDGE_LEFT:
            return
        start = end - timer
        slots = schedule(start, end)
        first = slots[0] if slots else None
        stored = await self.store.schedule_reminders(
            work.channel_id, work.guild_id, start, end, first
        )
        if stored and first is not None:
            self.on_deadline(first)

    async def caught_up(self, channel_id: int) -> None:
        """Keep the running turn's reminders if they are not kept yet: the process may have
        died between the game's commit and `new_turn` (the same turn kept already changes
        nothing)."""
        session = await self.sessions.get(channel_id)
        if session is None or not session.started or session.turn_deadline is None:
            return
        settings = await self.settings.of(session)
        await self.new_turn(session, settings.turn_timer)

    async def due(self) -> list[Delivery]:
        """Take every reminder due now and return what to post (already in the outbox)."""
        now = self.clock()
        out = []
        for row in await self.store.due_reminders(now):
            try:
                delivery = await self._take(row, now)
            except Exception:
                log.exception("The reminder of channel %s failed", row.channel_id)
                continue
            if delivery is not None:
                out.append(delivery)
        return out

    async def _take(self, row: ReminderRow, now: float) -> Delivery | None:
        session = await self.sessions.get(row.channel_id)
        adapter = None if session is None else self.adapters.get(session.kind)
        if (
            session is None
            or adapter is None
            or not session.started
            or adapter.is_finished(session.state)
            or session.turn_deadline != row.turn_end
        ):
            await self.store.drop_reminders(row)  # the turn is over: its new one has its own
            return None
        slots = schedule(row.turn_start, row.turn_end)
        following = slots[row.sent + 1] if row.sent + 1 < len(slots) else None
        if row.sent >= len(slots):
            await self.store.claim_reminder(row, None, None)
            return None
        holders = people(adapter.clock_holders(session.state))
        prefs = await self.store.remind_prefs(holders)
        awake, wakes = _awake(holders, prefs, now)
        if not awake:
            # Everyone it is for is in their quiet hours: held to the first end of them
            # while that is before the turn's next reminder and deadline, else skipped.
            if wakes is not None and wakes < min(following or row.turn_end, row.turn_end):
                await self.store.hold_reminder(row, wakes)
                self.on_deadline(wakes)
            else:
                await self.store.claim_reminder(row, following, None)
            return None
        delivery = self._delivery(
            session, adapter, awake, prefs, f"{row.channel_id}:{row.turn_end}:{row.sent}", now
        )
        if not await self.store.claim_reminder(row, following, delivery.outbox()):
            return None  # taken by another process meanwhile
        return delivery

    async def nudge(self, actor_id: int, channel_id: int, game: int | None = None) -> Delivery:
        """A seated player pressed Remind: remind whoever the game waits for, at most once a
        turn and once every `NUDGE_EVERY` seconds in the channel. Raises UserError, with
        nothing stored, when it may not."""
        session = await self.sessions.get(channel_id)
        adapter = None if session is None else self.adapters.get(session.kind)
        if session is None or adapter is None or not session.started:
            raise UserError(_("There is no game running here."))
        if game is not None and game != session.game_id:
            raise UserError(_("This table's game is over: use the buttons on the latest table."))
        state = session.state
        if adapter.is_finished(state) or session.turn_deadline is None:
            raise UserError(_("This game has no turn timer: there is nobody to remind."))
        if actor_id not in adapter.present_ids(state):
            raise UserError(_("Only the players at this table can remind someone."))
        holders = [u for u in people(adapter.clock_holders(state)) if u != actor_id]
        if not holders:
            raise UserError(_("The game is waiting for you, not for someone else."))
        now = self.clock()
        prefs = await self.store.remind_prefs(holders)
        delivery = self._delivery(
            session, adapter, holders, prefs, f"nudge:{channel_id}:{session.turn_deadline}", now
        )
        delivery = replace(delivery, by=actor_id)
        end = session.turn_deadline
        if not await self.store.claim_nudge(
            channel_id, session.guild_id, now, end, now, NUDGE_EVERY, delivery.outbox()
        ):
            raise UserError(
                _(
                    "Someone was reminded here a moment ago, or this turn's reminder was "
                    "used: each turn may be nudged once, at most every {minutes} minutes.",
                    minutes=int(NUDGE_EVERY // 60),
                )
            )
        return delivery

    def _delivery(
        self,
        session: Session,
        adapter: TableAdapter,
        users: list[int],
        prefs: dict[int, RemindPrefs],
        key: str,
        now: float,
    ) -> Delivery:
        dms = [u for u in users if u in prefs and prefs[u].dm and not prefs[u].dm_refused]
        return Delivery(
            nonce=_nonce(key),
            channel_id=session.channel_id,
            guild_id=session.guild_id,
            kind=adapter.kind,
            users=users,
            dms=dms,
            message_id=session.message_id,
            deadline=session.turn_deadline or now,
            language=self.language(session),
            created_at=now,
        )

    async def undelivered(self, *, retry: bool) -> list[Delivery]:
        """The outbox: all of it (at start-up), or (`retry`) what waited over a minute."""
        before = self.clock() - RETRY_AFTER if retry else None
        return [Delivery.of(row) for row in await self.store.outbox(before)]

    async def posted(self, delivery: Delivery) -> None:
        await self.store.posted(delivery.nonce)

    async def dm_refused(self, user_id: int) -> None:
        """Discord refused a direct message to the player (50007): not tried again until
        they say /remind me on again."""
        prefs = (await self.store.remind_prefs([user_id])).get(user_id)
        if prefs is not None and not prefs.dm_refused:
            await self.store.save_remind_prefs(replace(prefs, dm_refused=True), self.clock())


def _awake(
    users: list[int], prefs: dict[int, RemindPrefs], now: float
) -> tuple[list[int], float | None]:
    """Those of `users` not in their quiet hours `now`, and when the first of the others'
    quiet hours end (None: nobody is in them)."""
    awake, ends = [], []
    for user in users:
        p = prefs.get(user)
        quiet = None
        if p is not None and p.quiet_from is not None and p.quiet_to is not None:
            quiet = Quiet(p.quiet_from, p.quiet_to, p.zone or "UTC")
        end = None if quiet is None else quiet.ends(now)
        if end is None:
            awake.append(user)
        else:
            ends.append(end)
    return awake, min(ends, default=None)


def with_remind_button(
    rendered: Rendered, session: Session, now: float, *, far: bool = False
) -> Rendered:
    """The table with a Remind button while more than `NUDGE_LEFT` of a timed turn is left
    and its rows have room (a full table goes without it). `far`: the bot is no member of
    the channel, and the table says what reminders can do there."""
    end = session.turn_deadline
    if end is None or end - now <= NUDGE_LEFT or session.ended is not None:
        return rendered
    if far:
        note = _(
            "-# The bot is not a member here: its reminders reach players only as direct "
            "messages (turned on with {command}). Remind mentions them here, as it is pressed.",
            command=mention("remind me"),
        )
        rendered = replace(rendered, content="\n".join(filter(None, [rendered.content, note])))
    row = _free_row(rendered.items)
    if row is None:
        return rendered
    nudge = button(
        NUDGE_KIND, NUDGE_ACTION, session.channel_id, session.game_id, 0, _("Remind"), row=row
    )
    return replace(rendered, items=[*rendered.items, nudge])


def _free_row(items: list[TableItem]) -> int | None:
    """The last action row with room for a button (rows fill as `action_rows` fills them)."""
    used = [0] * 5
    for item in items:
        width, row = item.width, item.row
        if row is None:
            row = next((i for i in range(5) if used[i] + width <= 5), None)
            if row is None:
                return None
        used[row] += width
    last = next((i for i in range(4, 0, -1) if used[i]), 0)
    return next((i for i in range(last, 5) if used[i] < 5), None)
