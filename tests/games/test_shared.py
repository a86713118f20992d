"""games/shared.py: cached games share their fields sets and rule dicts, and nothing a game
does afterwards reaches another game through them."""

from __future__ import annotations

from pydantic import BaseModel

from games.lobby import Lobby, Seat
from games.shared import share_fields_sets, share_rules
from games.text import M, Mn


class Inner(BaseModel):
    n: int = 0


class Outer(BaseModel):
    inner: Inner
    items: list[Inner] = []
    note: str = ""
    history: list[tuple[int, int]] = []


def make() -> Outer:
    return Outer(inner=Inner(n=1), items=[Inner(n=2)], note="x", history=[(1, 2)])


def test_equal_full_sets_become_one_and_dumps_are_unchanged() -> None:
    a, b = make(), make()
    dumped = a.model_dump(), a.model_dump(exclude_unset=True)
    share_fields_sets([a, b])
    assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__
    assert a.inner.__pydantic_fields_set__ is b.items[0].__pydantic_fields_set__
    assert (a.model_dump(), a.model_dump(exclude_unset=True)) == dumped


def test_a_partial_set_of_a_model_that_can_change_stays_its_own() -> None:
    a, b = Outer(inner=Inner()), Outer(inner=Inner())
    share_fields_sets([a, b])
    assert a.__pydantic_fields_set__ is not b.__pydantic_fields_set__
    a.note = "changed"
    assert "note" not in b.model_dump(exclude_unset=True)


def test_changes_after_sharing_stay_in_their_own_model() -> None:
    a, b = make(), make()
    share_fields_sets([a, b])
    a.note = "y"
    c = a.model_copy(update={"note": "z"})
    assert (a.note, b.note, c.note) == ("y", "x", "z")
    assert b.model_dump(exclude_unset=True) == make().model_dump(exclude_unset=True)


def test_messages_share_by_value() -> None:
    lines = [M("{name} rolled.", name="Ann"), M("{name} rolled.", name="Ben")]
    share_fields_sets(lines)
    assert lines[0].__pydantic_fields_set__ is lines[1].__pydantic_fields_set__
    assert str(lines[1]) == "Ben rolled."


def test_equal_rules_are_one_dict() -> None:
    one = Lobby(starter=1, players=[Seat(id=1, name="Ann")], options={"rules": {"a": 1}})
    two = Lobby(starter=2, options={"rules": {"a": 1}})
    other = Lobby(starter=3, options={"rules": {"a": 2}})
    for lobby in (one, two, other):
        share_rules(lobby.options)
    assert one.options["rules"] is two.options["rules"]
    assert other.options["rules"] == {"a": 2}


def test_messages_are_made_with_the_shared_set() -> None:
    one, many = M("{name} rolled.", name="Ann"), Mn("{n} die", "{n} dice", 2)
    assert one.__pydantic_fields_set__ is many.__pydantic_fields_set__
    assert one.__pydantic_fields_set__ == {"k", "a", "p", "n"}
    assert many.model_dump(exclude_defaults=True) == {"k": "{n} die", "p": "{n} dice", "n": 2}


def test_a_lobby_keeps_one_shared_dict_of_equal_rules_and_reads_it_back_once() -> None:
    from games.crap.engine import CrapRules
    from games.farkle.rules import PRESETS, FarkleRules
    from games.shared import rules_json, rules_model

    classic = PRESETS["classic"]
    again = FarkleRules.model_validate(classic.model_dump())
    kept = rules_json(classic)
    assert kept == classic.model_dump(mode="json") and rules_json(again) is kept
    assert rules_model(FarkleRules, kept) is rules_model(FarkleRules, kept) == classic
    other = rules_json(classic.model_copy(update={"target": 5_000}))
    assert other is not kept and rules_model(FarkleRules, other).target == 5_000
    stored = dict(kept)  # read back from the database: not the shared dict
    assert rules_model(FarkleRules, stored) == classic
    assert rules_model(FarkleRules, stored) is not rules_model(FarkleRules, stored)
    # A model that can change is neither shared nor made once.
    crap = CrapRules(threshold=500)
    assert rules_json(crap) is not rules_json(crap)
    assert rules_model(CrapRules, rules_json(crap)) == crap
