"""A lobby's start options, each standing in for a server setting (`GuildSettings`).

Where no server's settings apply (a DM, a group DM, the bot's DM, a server that only a user
install reaches: there is no /config there) the host's start options over the bot's
defaults (config.toml `[defaults]`) are the lobby's settings, checked as /config checks them
(the same functions, so the same words), and kept with the lobby (`options["settings"]`), so
the game and its Rematch play by them. In a server that added the bot its settings rule: the
rule set, target, lives, threshold and jokers stay the host's choice for their lobby, as
they always were; an option that is a server setting (the turn timer, house rules, Kuriki's
variants and stakes, CRAP's optional rules) is refused with the /config command that sets
it."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from bot.errors import UserError
from bot.i18n import N_, _, _p
from bot.mentions import mention
from bot.settings import GuildSettings

log = logging.getLogger(__name__)

#: The key of a lobby's options that holds its own settings (what the host changed from the
#: bot's defaults); present only where no server's settings apply.
OWN_SETTINGS = "settings"


@dataclass(frozen=True)
class StandIn:
    """A start option and the setting it stands for."""

    #: The `GuildSettings` field it sets; None for Farkle's target and house rule, which
    #: change the chosen rule set's fields (as /config farkle and /config farkle-rule do).
    setting: str | None
    #: The setting in words, as a refusal in a server names it (translated there).
    words: str
    #: The /config command that sets it in a server that added the bot.
    config: str
    #: Whether a host chooses it in a server that added the bot too.
    in_servers: bool = False


STAND_INS: dict[str, StandIn] = {
    "rules": StandIn("farkle_preset", N_("the rule set"), "config farkle", in_servers=True),
    "target": StandIn(None, N_("the target"), "config farkle", in_servers=True),
    "lives": StandIn("kuriki_lives", N_("Kuriki lives"), "config kuriki", in_servers=True),
    "threshold": StandIn(
        "crap_threshold", N_("the CRAP threshold"), "config crap", in_servers=True
    ),
    "jokers": StandIn("crap_jokers", N_("jokers"), "config crap", in_servers=True),
    "timer": StandIn("turn_timer", N_("the turn timer"), "config timer"),
    "house_rule": StandIn(None, N_("house rules"), "config farkle-rule"),
    "value": StandIn(None, N_("house rules"), "config farkle-rule"),
    "two_digit": StandIn("kuriki_two_digit", N_("two-digit declarations"), "config kuriki"),
    "reverse_after_kuriki": StandIn(
        "kuriki_reverse_after_kuriki", N_("reversing after a Kuriki"), "config kuriki"
    ),
    "stake": StandIn("kuriki_stake", N_("the Kuriki stake"), "config kuriki"),
    "foul_price": StandIn("kuriki_foul_price", N_("the foul price"), "config kuriki"),
    "force_recycle": StandIn("crap_force_recycle", N_("Force Recycle"), "config crap"),
    "bluff_window": StandIn("crap_bluff_window", N_("the bluff window"), "config crap"),
}


def lobby_settings(
    base: GuildSettings, options: dict[str, Any], *, in_server: bool
) -> tuple[GuildSettings, dict[str, Any]]:
    """The lobby's settings: `base` (the server's, or the bot's defaults) with the start
    options in `options` applied (None: not given), and what they changed, as JSON (what a
    lobby outside servers keeps). Raises UserError in /config's words for a refused value;
    in a server that added the bot (`in_server`), for an option that is the server's
    setting, naming the /config command that sets it."""
    given = {k: v for k, v in options.items() if v is not None}
    unknown = set(given) - set(STAND_INS)
    if unknown:
        raise ValueError(f"not a start option: {sorted(unknown)}")
    if in_server:
        for name in given:
            stand_in = STAND_INS[name]
            if not stand_in.in_servers:
                raise UserError(
                    _(
                        "This server's settings rule here: a server manager sets {setting} "
                        "with {command}.",
                        setting=_(stand_in.words),
                        command=mention(stand_in.config),
                    )
                )
    rule, value = given.get("house_rule"), given.get("value")
    if (rule is None) != (value is None):
        raise UserError(
            _(
                "A house rule takes both options: {rule} (which rule) and {value} (its new "
                "value, from the list or a number).",
                rule=_p("parameter_name", "house_rule"),
                value=_p("parameter_name", "value"),
            )
        )
    settings = base.updated(
        **{setting: v for k, v in given.items() if (setting := STAND_INS[k].setting)}
    )
    if rule is not None:
        settings = settings.with_house_rule(settings.farkle_preset, str(rule), str(value))
    if "target" in given:
        settings = settings.with_house_rule(settings.farkle_preset, "target", str(given["target"]))
    return settings, changes(base, settings)


def changes(base: GuildSettings, settings: GuildSettings) -> dict[str, Any]:
    """The fields of `settings` that differ from `base`, as JSON."""
    old, new = base.model_dump(mode="json"), settings.model_dump(mode="json")
    return {k: v for k, v in new.items() if old.get(k) != v}


def kept_settings(defaults: GuildSettings, kept: object) -> GuildSettings:
    """The settings a lobby outside servers kept (`options["settings"]`) over the bot's
    defaults; the defaults alone, logged, when what was kept no longer validates (a row
    changed by hand, or defaults the kept changes no longer fit)."""
    if not isinstance(kept, dict):
        log.warning("A lobby's own settings are not a table (%s); using the defaults", type(kept))
        return defaults
    try:
        return defaults.updated(saved=True, **kept)
    except UserError as exc:
        log.warning("A lobby's own settings no longer validate (%s); using the defaults", exc)
        return defaults
