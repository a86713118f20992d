"""Per-server settings an admin changes with /config, validated before they are stored."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.errors import UserError
from games.farkle.rules import PRESETS, FarkleRules, rule_fields
from games.numbers import is_number


class SettingsError(UserError, ValueError):
    """A setting value was refused; the message says which and why, for the admin."""


class GuildSettings(BaseModel):
    """What a server has chosen; the defaults are what a new server plays."""

    model_config = ConfigDict(extra="forbid")

    farkle_preset: str = Field("crappy-malappy", description="Preset /farkle start uses.")
    farkle_house_rules: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Per preset, the rule fields this server changed."
    )
    turn_timer: int = Field(120, ge=0, le=3600, description="Seconds per move; 0 turns it off.")
    lobby_timeout: int = Field(
        900, ge=60, le=86400, description="Seconds an unstarted lobby stays open."
    )
    kuriki_lives: int = Field(5, ge=1, le=9, description="Lives each Kuriki player starts with.")
    kuriki_two_digit: bool = Field(False, description="Declare non-doubles as two-digit numbers.")
    kuriki_reverse_after_kuriki: bool = Field(
        False, description="After a Kuriki the Roller may reverse the direction of play."
    )
    kuriki_stake: int = Field(0, ge=0, le=1_000_000, description="Kuriki buy-in; 0: no stakes.")
    kuriki_foul_price: int = Field(
        25, ge=0, le=1_000_000, description="Paid into the pot per foul."
    )
    crap_threshold: int = Field(1000, ge=100, le=100000, description="Points that win CRAP.")
    crap_jokers: bool = Field(False, description="Play CRAP with the four jokers.")
    crap_force_recycle: bool = Field(False, description="The optional Force Recycle action.")
    crap_bluff_window: int = Field(20, ge=5, le=300, description="Seconds to call a bluff.")

    @model_validator(mode="after")
    def _check(self) -> GuildSettings:
        if self.farkle_preset not in PRESETS:
            raise ValueError(f"unknown Farkle preset {self.farkle_preset!r}")
        for preset in self.farkle_house_rules:
            if preset not in PRESETS:
                raise ValueError(f"house rules for unknown preset {preset!r}")
            self.farkle_rules(preset)
        return self

    def farkle_rules(self, preset: str | None = None, target: int | None = None) -> FarkleRules:
        """The preset with this server's house rules on top, and the start command's target."""
        name = preset or self.farkle_preset
        if name not in PRESETS:
            raise SettingsError(f"There is no Farkle rule set called {name!r}.")
        data = PRESETS[name].model_dump()
        data.update(self.farkle_house_rules.get(name, {}))
        if target is not None:
            data["target"] = target
        try:
            return FarkleRules.model_validate(data)
        except ValidationError as exc:
            raise SettingsError(describe(exc)) from None

    def with_house_rule(self, preset: str, field: str, raw: str) -> GuildSettings:
        """A copy with one Farkle rule changed; raises SettingsError with a clear reason."""
        if field not in rule_fields():
            raise SettingsError(f"There is no Farkle rule called {field!r}.")
        value = parse_rule_value(field, raw)
        rules = dict(self.farkle_house_rules.get(preset, {}))
        rules[field] = value
        return self.updated(farkle_house_rules={**self.farkle_house_rules, preset: rules})

    def updated(self, **changes: Any) -> GuildSettings:
        """A validated copy with `changes`; raises SettingsError naming what is wrong."""
        try:
            return GuildSettings.model_validate({**self.model_dump(), **changes})
        except (ValidationError, SettingsError) as exc:
            msg = describe(exc) if isinstance(exc, ValidationError) else str(exc)
            raise SettingsError(msg) from None


_NONE_WORDS = {"none", "off", "no set", "null", "-"}
_TRUE_WORDS = {"yes", "true", "on", "1"}
_FALSE_WORDS = {"no", "false", "off", "0"}


def parse_rule_value(field: str, raw: str) -> Any:
    """Turn what an admin typed into the rule field's type (validation happens after)."""
    text = raw.strip().lower()
    annotation = str(FarkleRules.model_fields[field].annotation)
    if "bool" in annotation:
        if text in _TRUE_WORDS:
            return True
        if text in _FALSE_WORDS:
            return False
        raise SettingsError(f"{field} takes yes or no, not {raw!r}.")
    if "tuple" in annotation:
        parts = [p for p in text.replace(" ", ",").split(",") if p]
        if len(parts) != 3 or not all(is_number(p) for p in parts):
            raise SettingsError(f"{field} takes three numbers, e.g. 1000,2000,3000.")
        return tuple(int(p) for p in parts)
    if "int" in annotation:
        if "None" in annotation and text in _NONE_WORDS:
            return None
        try:
            if not text.isascii():
                raise ValueError(text)
            return int(text.replace("_", ""))
        except ValueError:
            extra = " (or none)" if "None" in annotation else ""
            raise SettingsError(f"{field} takes a whole number{extra}, not {raw!r}.") from None
    return text


def describe(exc: ValidationError) -> str:
    """The first validation problem in one short line."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__")
    msg = err.get("msg", "invalid value").removeprefix("Value error, ")
    return f"{where}: {msg}" if where else msg
