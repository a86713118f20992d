"""Farkle's rules in words, generated from a rule set's fields: the /farkle rules page
(`describe_rules`), the lobby's one-paragraph summary (`short_rules`) and the house rules a
server changed (`house_rules`), so a house rule or a target chosen at start always reads
true, in the reader's language."""

from __future__ import annotations

from bot.i18n import N_, _, _n
from bot.settings import house_rule_words
from games.farkle import engine
from games.farkle.rules import PRESETS, FarkleRules


def describe_rules(rules: FarkleRules) -> tuple[list[str], list[str]]:
    """The rule set in plain sentences (scoring, then play), generated from its fields so it
    is always true; in the current language."""
    if rules.kind_scoring == "singles":
        kind = _("Four or more of a kind score only as a triple plus single 1s and 5s.")
    elif rules.kind_scoring == "double":
        kind = _("Four of a kind is twice the triple, five twice that, six twice again.")
    elif rules.kind_scoring == "add":
        # The example: four and five 4s, each die past three adding the triple (400).
        kind = _(
            "Each die past three adds the triple again ({four_dice} = {four}, "
            "{five_dice} = {five}).",
            four_dice=" ".join("4" * 4),
            four=800,
            five_dice=" ".join("4" * 5),
            five=1200,
        )
    else:
        four, five, six = rules.flat_kind
        kind = _("Four, five, six of a kind: {four} / {five} / {six}.", four=four, five=five, six=six)
    sets = [
        _("Single 1: {one}. Single 5: {five}.", one=rules.single_one, five=rules.single_five),
        _("Three 1s: {points}. Three of any other face: face x 100.", points=rules.triple_ones),
        kind,
    ]
    all_six: list[str] = []
    if rules.straight is not None:
        all_six.append(_("straight 1-6: {points}", points=rules.straight))
    if rules.three_pairs is not None:
        all_six.append(
            _("three pairs: {points} (four of a kind + a pair counts)", points=rules.three_pairs)
            if rules.four_and_pair_is_three_pairs
            else _("three pairs: {points}", points=rules.three_pairs)
        )
    all_six.append(
        _("two triples: {points}", points=rules.two_triplets)
        if rules.two_triplets is not None
        else _("two triples: the two triples added")
    )
    # Translators: {sets} is a list of sets separated by semicolons ("three pairs: 500; ...").
    sets.append(_("With all six dice: {sets}.", sets=_("; ").join(all_six)))
    if rules.extend_triple_across_throws:
        sets.append(
            _(
                "After you set aside a triple, each later die of that face this turn scores the "
                "triple again, until you pick all six dice up."
            )
        )
    else:
        sets.append(_("Sets never combine across throws."))
    play = [
        _(
            "Set aside at least one scoring die before each throw. Score all six: hot dice, "
            "roll all six again."
        )
    ]
    if not rules.min_bank:
        play.append(_("You may bank any score."))
    elif rules.min_bank_after_hot_dice:
        play.append(
            _(
                "You need {points} in a turn to bank, counted afresh after hot dice.",
                points=rules.min_bank,
            )
        )
    else:
        play.append(_("You need {points} in a turn to bank.", points=rules.min_bank))
    if rules.opening:
        play.append(_("To get on the table you need {points} in one turn.", points=rules.opening))
    if rules.one_die_throws > 1:
        play.append(
            _n(
                "With one die left you get {n} throw to roll a 1 or a 5.",
                "With one die left you get {n} throws to roll a 1 or a 5.",
                rules.one_die_throws,
            )
        )
    if rules.farkle_penalty_every:
        nth = engine.nth(rules.farkle_penalty_every)
        play.append(
            _(
                "Every {nth} crappy of a player costs {points} (scores can go negative).",
                nth=nth,
                points=rules.farkle_penalty,
            )
            if rules.farkle_word == "crappy"
            else _(
                "Every {nth} farkle of a player costs {points} (scores can go negative).",
                nth=nth,
                points=rules.farkle_penalty,
            )
        )
    if rules.crappy_malappy_wins:
        play.append(
            # Translators: "crappy malappy" is jargon of the Crappy Malappy rules; keep it or
            # use your players' word.
            _(
                "A farkle on the first throw of six dice in a turn is a crappy malappy: "
                "a player's crappy malappy number {n} wins the game at once.",
                n=rules.crappy_malappy_wins,
            )
        )
    if rules.piggyback:
        play.append(
            _(
                "Piggyback: on the table, you may start with the last player's unrolled dice and "
                "banked turn score; if that throw scores, you continue from that total."
            )
        )
    play.append(
        _("Seating: everyone rolls a die; the highest goes first.")
        if rules.seating == "highest_first"
        else _("Seating: everyone rolls a die; the highest goes last.")
    )
    play.append(_(_ENDS[rules.target_inclusive, rules.end_rule], target=rules.target))
    return sets, play


#: How a game ends, by (reaching the target exactly counts, the end rule).
_ENDS = {
    (True, "finish_round"): N_(
        "The first to end a turn at or over {target}: the rest of that round plays, then the "
        "game ends. Highest total wins; a tie goes to whoever reached the target first."
    ),
    (False, "finish_round"): N_(
        "The first to end a turn over {target}: the rest of that round plays, then the game "
        "ends. Highest total wins; a tie goes to whoever reached the target first."
    ),
    (True, "one_more_turn"): N_(
        "The first to end a turn at or over {target}: every other player gets one more turn. "
        "Highest total wins; a tie goes to whoever reached the target first."
    ),
    (False, "one_more_turn"): N_(
        "The first to end a turn over {target}: every other player gets one more turn. "
        "Highest total wins; a tie goes to whoever reached the target first."
    ),
}


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
    parts = [_("{points} to win", points=rules.target)]
    if rules.min_bank:
        parts.append(_("{points} to bank", points=rules.min_bank))
    if rules.opening:
        parts.append(_("{points} to get on the table", points=rules.opening))
    if rules.extend_triple_across_throws:
        parts.append(_("triples extend across throws"))
    if rules.kind_scoring == "flat":
        parts.append(_("flat four/five/six of a kind"))
    if rules.one_die_throws > 1:
        parts.append(
            _n(
                "{n} throw with the last die",
                "{n} throws with the last die",
                rules.one_die_throws,
            )
        )
    if rules.farkle_penalty_every:
        nth = engine.nth(rules.farkle_penalty_every)
        parts.append(
            _("every {nth} crappy costs {points}", nth=nth, points=rules.farkle_penalty)
            if rules.farkle_word == "crappy"
            else _("every {nth} farkle costs {points}", nth=nth, points=rules.farkle_penalty)
        )
    if rules.crappy_malappy_wins:
        parts.append(
            _n(
                "{n} crappy malappy wins",
                "{n} crappy malappys win",
                rules.crappy_malappy_wins,
            )
        )
    if rules.piggyback:
        parts.append(_("piggyback on the last player's dice"))
    # Translators: {terms} is a list of the rules' terms separated by commas.
    terms = _(", ").join(parts)
    if house:
        return _("**{name}** with house rules: {terms}.", name=_(rules.name), terms=terms)
    return _("**{name}**: {terms}.", name=_(rules.name), terms=terms)
