"""Per-server settings an admin changes with /config, validated before they are stored."""

from __future__ import annotations

from typing import Any, Literal, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from bot.config_errors import located, problems
from bot.errors import UserError
from bot.i18n import LANGUAGES, N_, SOURCE, _, listed, number, speaking
from games.farkle.rules import PRESETS, FarkleRules, rule_fields
from games.numbers import is_number

#: The shortest turn timer a person can use: reading the table on a phone, opening a reply
#: and choosing takes longer than a few seconds (with 5 s the bots played every turn and the
#: game was abandoned in 24 s). 0 still turns the timer off.
MIN_TURN_TIMER = 15

#: The validation context of settings that were saved before (a server's row, a lobby's
#: own settings): a turn timer saved shorter than MIN_TURN_TIMER loads as MIN_TURN_TIMER.
SAVED = {"saved": True}


class SettingsError(UserError, ValueError):
    """A setting value was refused; the message says which and why, for the admin."""


class GuildSettings(BaseModel):
    """What a server has chosen; the defaults are what a new server plays."""

    model_config = ConfigDict(extra="forbid")

    farkle_preset: str = Field("crappy-malappy", description="Preset /farkle start uses.")
    farkle_house_rules: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Per preset, the rule fields this server changed."
    )
    turn_timer: int = Field(120, ge=0, le=604800, description="Seconds per move; 0 turns it off.")
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
    crap_bluff_window: int = Field(10, ge=5, le=300, description="Seconds to call a bluff.")
    language: str | None = Field(
        None,
        description="Language of the public tables and logs (bot/i18n.py LANGUAGES); "
        "None: the server's preferred locale.",
    )

    @field_validator("turn_timer")
    @classmethod
    def _usable_timer(cls, seconds: int, info: ValidationInfo) -> int:
        """0 (off) or at least MIN_TURN_TIMER; a shorter timer saved before loads as that."""
        if 0 < seconds < MIN_TURN_TIMER:
            if info.context and info.context.get("saved"):
                return MIN_TURN_TIMER
            raise ValueError(
                _(
                    "the turn timer must be 0 (off) or at least {seconds} seconds: a person "
                    "needs that long to read the table and choose",
                    seconds=MIN_TURN_TIMER,
                )
            )
        return seconds

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
            raise SettingsError(_("There is no Farkle rule called {rule}.", rule=repr(field)))
        value = parse_rule_value(field, raw)
        rules = dict(self.farkle_house_rules.get(preset, {}))
        rules[field] = value
        return self.updated(farkle_house_rules={**self.farkle_house_rules, preset: rules})

    def updated(self, *, saved: bool = False, **changes: Any) -> GuildSettings:
        """A validated copy with `changes`; raises SettingsError naming what is wrong.
        `saved`: the changes were saved before (a too short turn timer loads as the least)."""
        try:
            return GuildSettings.model_validate(
                {**self.model_dump(), **changes}, context=SAVED if saved else None
            )
        except (ValidationError, SettingsError) as exc:
            msg = explain(exc) if isinstance(exc, ValidationError) else str(exc)
            raise SettingsError(msg) from None


def unknown_preset(name: str) -> str:
    """What is said wherever a preset name is typed that is none (config, lobby, /config),
    in the current language (English in a config file's report)."""
    return _(
        "there is no Farkle rule set called {name}; choose {presets}",
        name=repr(name),
        presets=listed(PRESETS, style="or"),
    )


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
    """Turn what an admin chose or typed into the rule field's type (validation happens
    after): a value `rule_value_options` offers, by its token or by its words in the current
    language or English ("aus" is off for a German admin), or a number."""
    text = raw.strip().lower()
    annotation = str(FarkleRules.model_fields[field].annotation)
    offered = rule_value_options(field)
    for words, token in offered:
        with speaking(SOURCE):
            english = rule_value_words(field, _token_value(field, token))
        if text in (words.lower(), english.lower(), token):
            return _token_value(field, token)
    if "bool" in annotation:
        if text in _TRUE_WORDS:
            return True
        if text in _FALSE_WORDS:
            return False
    if "Literal" in annotation or "bool" in annotation:
        raise SettingsError(
            _(
                "{rule}: {choices} (pick one from the list), not {raw}.",
                rule=rule_label(field),
                choices=listed((words for words, _token in offered), style="or"),
                raw=repr(raw),
            )
        )
    if "tuple" in annotation:
        parts = [p for p in text.replace(" ", ",").split(",") if p]
        if len(parts) != 3 or not all(is_number(p) for p in parts):
            raise SettingsError(
                _("{rule} takes three numbers, e.g. 1000,2000,3000.", rule=rule_label(field))
            )
        return tuple(int(p) for p in parts)
    if "int" in annotation:
        if "None" in annotation and text in _NONE_WORDS:
            return None
        try:
            if not text.isascii():
                raise ValueError(text)
            return int(text.replace("_", ""))
        except ValueError:
            label, given = rule_label(field), repr(raw)
            raise SettingsError(
                _(
                    "{rule} takes a whole number, or {none} from the list, not {raw}.",
                    rule=label,
                    none=offered[0][0],
                    raw=given,
                )
                if offered
                else _("{rule} takes a whole number, not {raw}.", rule=label, raw=given)
            ) from None
    return text


def rule_value_options(field: str) -> list[tuple[str, str]]:
    """The values of a rule that are words, not numbers, as (words in the current language,
    the token `parse_rule_value` reads): what /config farkle-rule and /farkle start offer
    for their `value` option, so nobody types "none" or "highest_first"."""
    info = FarkleRules.model_fields.get(field)
    if info is None:
        return []
    annotation = info.annotation
    if annotation is bool:
        return [(_("on"), "yes"), (_("off"), "no")]
    if get_origin(annotation) is Literal:
        return [(rule_value_words(field, v), str(v)) for v in get_args(annotation)]
    if type(None) in get_args(annotation):
        return [(rule_value_words(field, None), "none")]
    return []


def _token_value(field: str, token: str) -> Any:
    """The value an offered token stands for."""
    return {"yes": True, "no": False, "none": None}.get(token, token)


#: Each Farkle rule field in a player's words: its name (translated where it is shown, see
#: `rule_label`), and what the value means. Both make the `/config farkle-rule` choices,
#: which the command tree's translator translates whole (bot/translator.py), so the hints
#: are no messages of their own.
RULE_WORDS: dict[str, tuple[str, str]] = {
    "target": (N_("Target"), "the score that ends the game"),
    "target_inclusive": (N_("Reaching the target exactly"), "whether it is enough to win"),
    "single_one": (N_("Single 1"), "points for a single 1"),
    "single_five": (N_("Single 5"), "points for a single 5"),
    "triple_ones": (N_("Three 1s"), "points for three 1s (others: face x 100)"),
    "kind_scoring": (N_("Four or more of a kind"), "how they score"),
    "flat_kind": (N_("Flat 4/5/6 of a kind"), "three numbers, e.g. 1000,2000,3000"),
    "three_pairs": (N_("Three pairs"), "points, or not scored"),
    "four_and_pair_is_three_pairs": (N_("Four of a kind + a pair"), "counts as three pairs"),
    "straight": (N_("Straight 1-6"), "points, or not scored"),
    "two_triplets": (N_("Two triples"), "points, or the two triples added"),
    "extend_triple_across_throws": (N_("Triples extend"), "later dice of a triple's face score it"),
    "min_bank": (N_("Bank minimum"), "turn score needed to bank"),
    "min_bank_after_hot_dice": (N_("Bank minimum after hot dice"), "counted afresh"),
    "opening": (N_("Opening"), "turn score needed to get on the table"),
    "one_die_throws": (N_("Throws with the last die"), "to roll a 1 or a 5 (1-6)"),
    "farkle_penalty_every": (N_("Farkle penalty"), "every how many farkles cost points (0: never)"),
    "farkle_penalty": (N_("Farkle penalty points"), "what that farkle costs"),
    # Translators: "crappy malappy" is the game's name for a roll; keep it unless your
    # players call it otherwise.
    "crappy_malappy_wins": (N_("Crappy malappys to win"), "how many win the game at once (0: never)"),
    "piggyback": (N_("Piggyback"), "take over the last player's unrolled dice"),
    "seating": (N_("Seating"), "who the highest seating roll makes go"),
    "end_rule": (N_("End of the game"), "what follows when someone reaches the target"),
    "max_players": (N_("Players at a table"), "how many may sit at one table (2-25)"),
}

_VALUE_WORDS: dict[str, dict[object, str]] = {
    "kind_scoring": {
        "singles": N_("only as a triple plus singles"),
        "double": N_("doubled per extra die"),
        "add": N_("the triple added per extra die"),
        "flat": N_("flat"),
    },
    "seating": {
        "highest_first": N_("highest roll goes first"),
        "highest_last": N_("highest goes last"),
    },
    "end_rule": {
        "finish_round": N_("the round is finished"),
        "one_more_turn": N_("everyone else gets one more turn"),
    },
}
_NONE_MEANS = {"two_triplets": N_("the two triples added")}


def rule_label(field: str) -> str:
    """The rule's name in the current language (the field itself for an unknown one)."""
    return _(RULE_WORDS[field][0]) if field in RULE_WORDS else field


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
        return _(_NONE_MEANS.get(field, N_("not scored")))
    if isinstance(value, bool):
        return _("on") if value else _("off")
    if isinstance(value, (tuple, list)):
        return " / ".join(_shown(v) for v in value)
    words = _VALUE_WORDS.get(field, {}).get(value)
    return _(words) if words is not None else _shown(value)


def _shown(value: object) -> str:
    """A rule's number as the language writes it; any other value as it is."""
    return number(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)


def house_rule_words(field: str, value: object) -> str:
    """ "Straight 1-6: not scored", "Piggyback: on"."""
    # Translators: a Farkle house rule and its value, e.g. "Piggyback: on".
    return _("{rule}: {value}", rule=rule_label(field), value=rule_value_words(field, value))


_SETTING_WORDS = {
    "turn_timer": N_("The turn timer"),
    "lobby_timeout": N_("The lobby timeout"),
    "bot_delay": N_("The bots' pause"),
    "kuriki_lives": N_("Kuriki lives"),
    "kuriki_stake": N_("The Kuriki stake"),
    "kuriki_foul_price": N_("The foul price"),
    "crap_threshold": N_("The CRAP threshold"),
    "crap_bluff_window": N_("The bluff window"),
    "farkle_preset": N_("The rule set"),
}


def explain(exc: ValidationError) -> str:
    """The first validation problem as one sentence an admin of /config understands, in
    the current language."""
    problem = problems(exc)[0]
    field = str(problem.loc[-1]) if problem.loc else ""
    what = (
        rule_label(field)
        if field in RULE_WORDS
        else _(_SETTING_WORDS[field])
        if field in _SETTING_WORDS
        else field.replace("_", " ").capitalize()
    )
    ctx, kind = problem.ctx, problem.kind
    if kind in ("greater_than_equal", "greater_than") and what:
        return _("{setting} must be at least {low}.", setting=what, low=_bound(ctx, "ge", "gt"))
    if kind in ("less_than_equal", "less_than") and what:
        return _("{setting} must be at most {high}.", setting=what, high=_bound(ctx, "le", "lt"))
    if kind == "literal_error" and what:
        choices = _literal_choices(problem.model, field)
        if choices:
            return _("{setting} must be {choices}.", setting=what, choices=choices)
        return _("{setting} must be one of the listed values.", setting=what)
    if kind in ("int_parsing", "int_type", "int_from_float") and what:
        return _("{setting} must be a whole number.", setting=what)
    msg = sentence(problem.msg)
    # A validator's own message says what is wrong in full (an unknown preset, listing them).
    if what and kind != "value_error":
        # Translators: a setting and what is wrong with it (pydantic's English words).
        return _("{setting}: {problem}", setting=what, problem=msg)
    return msg


def _bound(ctx: dict[str, Any], inclusive: str, exclusive: str) -> str:
    """A range's bound from a validation error, as the language writes numbers."""
    value = ctx.get(inclusive, ctx.get(exclusive))
    return number(value) if isinstance(value, (int, float)) else str(value)


def _literal_choices(model: type[BaseModel] | None, field: str) -> str:
    """ "only as a triple plus singles, doubled per extra die, ... or flat": the values a
    Literal field takes, in words, as alternatives in the current language ("" when the
    field takes no Literal)."""
    info = model.model_fields.get(field) if model is not None else None
    if info is None or get_origin(info.annotation) is not Literal:
        return ""
    return listed((rule_value_words(field, v) for v in get_args(info.annotation)), style="or")
