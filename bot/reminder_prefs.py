"""A player's reminder settings as /remind changes and shows them (stored per user,
migration 14: `RemindPrefs`): direct messages on or off, quiet hours in their time zone."""

from __future__ import annotations

from dataclasses import replace

from bot.errors import UserError
from bot.i18n import _
from bot.mentions import mention
from bot.reminder_times import Quiet, parse_hours, parse_zone
from bot.store.reminders import RemindPrefs

#: What `/remind quiet` takes for "no quiet hours".
OFF_WORDS = frozenset({"off", "none", "no", "0"})


def with_dms(prefs: RemindPrefs, on: bool) -> RemindPrefs:
    """Direct messages on (trying again if Discord refused the last one) or off."""
    return replace(prefs, dm=on, dm_refused=False)


def with_quiet(prefs: RemindPrefs, hours: str, zone: str | None) -> RemindPrefs:
    """Quiet hours from '22-8' in `zone` (or the zone given before), or none ('off').
    Raises UserError with an example when either cannot be read."""
    if hours.strip().lower() in OFF_WORDS:
        return replace(prefs, quiet_from=None, quiet_to=None)
    span = parse_hours(hours)
    if span is None:
        raise UserError(
            _(
                "I could not read {hours} as quiet hours: give two times of day, for "
                "example 22-8 or 22:30-7.",
                hours=hours[:40],
            )
        )
    stored = prefs.zone
    if zone is not None:
        stored = parse_zone(zone)
        if stored is None:
            raise UserError(
                _(
                    "I do not know the time zone {zone}: give a name such as Europe/Berlin "
                    "or America/New_York, or an offset from UTC such as +2 or -5.",
                    zone=zone[:40],
                )
            )
    if stored is None:
        raise UserError(
            _(
                "In which time zone? Give it with the hours: a name such as Europe/Berlin, "
                "or an offset from UTC such as +2 or -5."
            )
        )
    return replace(prefs, quiet_from=span[0], quiet_to=span[1], zone=stored)


def quiet_of(prefs: RemindPrefs) -> Quiet | None:
    if prefs.quiet_from is None or prefs.quiet_to is None:
        return None
    return Quiet(prefs.quiet_from, prefs.quiet_to, prefs.zone or "UTC")


def describe(prefs: RemindPrefs) -> str:
    """The settings as /remind answers them, with what they do."""
    if not prefs.dm:
        dms = _("Direct messages: off. Reminders mention you in the game's channel.")
    elif prefs.dm_refused:
        dms = _(
            "Direct messages: on, but Discord refused the last one (your privacy settings, "
            "or no server in common with the bot). Allow them, then turn them on again with "
            "{command}.",
            command=mention("remind me"),
        )
    else:
        dms = _("Direct messages: on. Reminders also come to you as a direct message.")
    quiet = quiet_of(prefs)
    if quiet is None:
        hours = _("Quiet hours: none.")
    else:
        hours = _(
            "Quiet hours: {hours}. A reminder that falls in them waits until they end, "
            "or is left out if the turn runs out first.",
            hours=quiet.text(),
        )
    return "\n".join([dms, hours])
