"""Per-server settings an admin changes with /config, validated before they are stored."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.config_errors import located, problems
from bot.errors import UserError
from bot.i18n import LANGUAGES
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
    bot_delay: float = Field(
        1.5,
        ge=0.0,
        le=10.0,
        allow_inf_nan=False,
        description="Seconds a bot waits before each move, so people can follow.",
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
    language: str | None = Field(
        None,
        description="Language of the public tables and logs (bot/i18n.py LANGUAGES); "
        "None: the server's preferred locale.",
    )

    @field_validator("language")
    @classmethod
    def _known_language(cls, code: str | None) -> str | None:
        if code is not None and code not in LANGUAGES:
            raise ValueError(f"must be one of {', '.join(LANGUAGES)}")
        return code

    @field_validator("farkle_preset")
    @classmethod
    def _known_preset(cls, name: str) -> str:
        if name not in PRESETS:
            raise ValueError(unknown_preset(name))
        return name

    @field_validator("farkle_house_rules")
    @classmethod
    def _valid_house_rules(cls, house: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Each preset's house rules make a valid rule set; a problem keeps its place
        (`farkle_house_rules.classic.min_bank`), so a config file names the key."""
        found: list[tuple[list[str], dict[str, Any]]] = []
        for preset, changes in house.items():
            if preset not in PRESETS:
                found.append(([preset], {"type": "value_error", "msg": unknown_preset(preset)}))
                continue
            try:
                merged_rules(preset, changes)
            except ValidationError as exc:
                found += [([preset], dict(e)) for e in exc.errors(include_url=False)]
        if found:
            raise located(found, FarkleRules)
        return house

    def farkle_rules(self, preset: str | None = None, target: int | None = None) -> FarkleRules:
        """The preset with this server's house rules on top, and the start command's target."""
        name = preset or self.farkle_preset
        if name not in PRESETS:
            raise SettingsError(sentence(unknown_preset(name)))
        try:
            return merged_rules(name, self.farkle_house_rules.get(name, {}), target)
        except ValidationError as exc:
            raise SettingsError(explain(exc)) from None

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
            msg = explain(exc) if isinstance(exc, ValidationError) else str(exc)
            raise SettingsError(msg) from None


def unknown_preset(name: str) -> str:
    """What is said wherever a preset name is typed that is none (config, lobby, /config)."""
    *others, last = PRESETS
    return f"there is no Farkle rule set called {name!r}; choose {', '.join(others)} or {last}"


def sentence(text: str) -> str:
    """`text` with a capital first letter and a full stop."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def merged_rules(
    preset: str, changes: dict[str, Any], target: int | None = None
) -> FarkleRules:
    """A known preset with `changes` on top; pydantic's ValidationError when they are bad."""
    data = {**PRESETS[preset].model_dump(), **changes}
    if target is not None:
        data["target"] = target
    return FarkleRules.model_validate(data)


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
        raise SettingsError(f"{rule_label(field)} takes yes or no, not {raw!r}.")
    if "tuple" in annotation:
        parts = [p for p in text.replace(" ", ",").split(",") if p]
        if len(parts) != 3 or not all(is_number(p) for p in parts):
            raise SettingsError(f"{rule_label(field)} takes three numbers, e.g. 1000,2000,3000.")
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
            raise SettingsError(
                f"{rule_label(field)} takes a whole number{extra}, not {raw!r}."
            ) from None
    return text


#: Each Farkle rule field in a player's words: its name, and what the value means.
RULE_WORDS: dict[str, tuple[str, str]] = {
    "target": ("Target", "the score that ends the game"),
    "target_inclusive": ("Reaching the target exactly", "counts (on) or must be passed (off)"),
    "single_one": ("Single 1", "points for a single 1"),
    "single_five": ("Single 5", "points for a single 5"),
    "triple_ones": ("Three 1s", "points for three 1s (others: face x 100)"),
    "kind_scoring": ("Four or more of a kind", "singles, double, add or flat"),
    "flat_kind": ("Flat 4/5/6 of a kind", "three numbers, e.g. 1000,2000,3000"),
    "three_pairs": ("Three pairs", "points, or none: not scored"),
    "four_and_pair_is_three_pairs": ("Four of a kind + a pair", "counts as three pairs"),
    "straight": ("Straight 1-6", "points, or none: not scored"),
    "two_triplets": ("Two triples", "points, or none: the two triples added"),
    "extend_triple_across_throws": ("Triples extend", "later dice of a triple's face score it"),
    "min_bank": ("Bank minimum", "turn score needed to bank"),
    "min_bank_after_hot_dice": ("Bank minimum after hot dice", "counted afresh"),
    "opening": ("Opening", "turn score needed to get on the table"),
    "one_die_throws": ("Throws with the last die", "to roll a 1 or a 5 (1-6)"),
    "farkle_penalty_every": ("Farkle penalty", "every Nth farkle costs points; 0: off"),
    "farkle_penalty": ("Farkle penalty points", "what that farkle costs"),
    "crappy_malappy_wins": ("Crappy malappys to win", "0: off"),
    "piggyback": ("Piggyback", "take over the last player's unrolled dice"),
    "seating": ("Seating", "highest_first or highest_last"),
    "end_rule": ("End of the game", "finish_round or one_more_turn"),
}

_VALUE_WORDS: dict[str, dict[object, str]] = {
    "kind_scoring": {
        "singles": "only as a triple plus singles",
        "double": "doubled per extra die",
        "add": "the triple added per extra die",
        "flat": "flat",
    },
    "seating": {"highest_first": "highest roll goes first", "highest_last": "highest goes last"},
    "end_rule": {
        "finish_round": "the round is finished",
        "one_more_turn": "everyone else gets one more turn",
    },
}
_NONE_MEANS = {"two_triplets": "the two triples added"}


def rule_label(field: str) -> str:
    return RULE_WORDS.get(field, (field, ""))[0]


def rule_choice_name(field: str) -> str:
    """A `/config farkle-rule` choice: the rule in words and what its value means, whole
    words only, within Discord's 100 characters."""
    label, hint = RULE_WORDS.get(field, (field, ""))
    text = f"{label}: {hint}" if hint else label
    if len(text) > 100:
        text = text[:99].rsplit(" ", 1)[0] + "…"
    return text


def rule_value_words(field: str, value: object) -> str:
    """A rule's value as a player reads it: "not scored", "on", "1000 / 2000 / 3000"."""
    if value is None:
        return _NONE_MEANS.get(field, "not scored")
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (tuple, list)):
        return " / ".join(str(v) for v in value)
    return _VALUE_WORDS.get(field, {}).get(value, str(value))


def house_rule_words(field: str, value: object) -> str:
    """ "Straight 1-6: not scored", "Piggyback: on"."""
    return f"{rule_label(field)}: {rule_value_words(field, value)}"


_SETTING_WORDS = {
    "turn_timer": "The turn timer",
    "lobby_timeout": "The lobby timeout",
    "bot_delay": "The bots' pause",
    "kuriki_lives": "Kuriki lives",
    "kuriki_stake": "The Kuriki stake",
    "kuriki_foul_price": "The foul price",
    "crap_threshold": "The CRAP threshold",
    "crap_bluff_window": "The bluff window",
    "farkle_preset": "The rule set",
}


def explain(exc: ValidationError) -> str:
    """The first validation problem as one sentence an admin of /config understands."""
    problem = problems(exc)[0]
    field = str(problem.loc[-1]) if problem.loc else ""
    what = (
        rule_label(field)
        if field in RULE_WORDS
        else _SETTING_WORDS.get(field, field.replace("_", " ").capitalize())
    )
    ctx, kind = problem.ctx, problem.kind
    if kind in ("greater_than_equal", "greater_than") and what:
        return f"{what} must be at least {ctx.get('ge', ctx.get('gt'))}."
    if kind in ("less_than_equal", "less_than") and what:
        return f"{what} must be at most {ctx.get('le', ctx.get('lt'))}."
    if kind == "literal_error" and what:
        return f"{what} must be {ctx.get('expected', 'one of the listed values')}."
    if kind in ("int_parsing", "int_type", "int_from_float") and what:
        return f"{what} must be a whole number."
    msg = sentence(problem.msg)
    # A validator's own message says what is wrong in full (an unknown preset, listing them).
    return f"{what}: {msg}" if what and kind != "value_error" else msg
