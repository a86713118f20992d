"""Start options standing in for /config where no server's settings apply (a DM, a group DM,
a server only a user install reaches): checked by /config's own functions in its words,
shown in the lobby, kept for the game (its turn timer) and its Rematch; the bot's defaults
under them, never a stale server row; in a server that added the bot, the server's settings
rule and those options are refused with the /config command that sets them."""

from __future__ import annotations

import logging

import pytest

from bot.errors import UserError
from bot.lobby_settings import OWN_SETTINGS, kept_settings, lobby_settings
from bot.service import Actor, Reply, Tables
from bot.settings import GuildSettings
from games.farkle.rules import FarkleRules
from tests.bot.conftest import ALICE, BOB, CAROL, GUILD, Clock, find

GROUP = 3_000  # a group DM: no server
ELSEWHERE = 4_000  # a server that never added the bot (reached through a user install)
ELSEWHERE_CHANNEL = 4_001


async def opened(
    tables: Tables, kind: str, channel: int = GROUP, guild: int | None = None, **options: object
) -> Reply:
    reply = await tables.open_lobby(ALICE, guild, channel, kind, options, server=False)
    await tables.table_posted(channel, 555)
    return reply


async def start(tables: Tables, reply: Reply, *others: Actor) -> Reply:
    """The others join the lobby `reply` shows, and its host starts it."""
    for who in others:
        reply = await tables.click(who, find(reply, "join"), 555)
    return await tables.click(ALICE, find(reply, "start"), 555)


async def test_outside_servers_the_hosts_options_are_the_games_settings(
    tables: Tables, clock: Clock
) -> None:
    reply = await opened(
        tables, "kuriki", timer=45, lives=3, two_digit=True, stake=100, foul_price=10
    )
    session = await tables.sessions.get(GROUP)
    assert session.guild_id is None
    rules = session.lobby.options["rules"]
    assert (rules["lives"], rules["two_digit"], rules["stake"], rules["foul_price"]) == (
        3, True, 100, 10
    )  # fmt: skip
    assert not rules["reverse_after_kuriki"]  # not chosen: the bot's default
    assert session.lobby.options[OWN_SETTINGS] == {
        "turn_timer": 45,
        "kuriki_lives": 3,
        "kuriki_two_digit": True,
        "kuriki_stake": 100,
        "kuriki_foul_price": 10,
    }
    text = reply.table.embed.description
    assert "**3 lives** each" in text and "Two-digit declarations" in text
    assert "Stakes 100 each, fouls 10 into the pot" in text
    assert "⏳ **45 seconds** for each move" in text
    assert session.deadline == clock.now + 900  # the lobby closes after the bot's default

    await start(tables, reply, BOB)
    game = await tables.sessions.get(GROUP)
    assert game.started and game.state.rules.lives == 3 and game.state.rules.stake == 100
    assert game.turn_deadline == clock.now + 45  # the host's timer, not the default 120


async def test_a_server_the_bot_never_joined_plays_the_defaults_not_a_stale_row(
    tables: Tables, clock: Clock
) -> None:
    """A server's settings row apply only where that server's install authorises the game;
    reached through a user install it plays the bot's defaults with the host's options."""
    await tables.save_settings(ELSEWHERE, GuildSettings(turn_timer=600, crap_threshold=5000))
    reply = await opened(
        tables, "crap", ELSEWHERE_CHANNEL, ELSEWHERE, force_recycle=True, bluff_window=40
    )
    session = await tables.sessions.get(ELSEWHERE_CHANNEL)
    assert session.guild_id == ELSEWHERE  # it still counts for that server's leaderboard
    rules = session.lobby.options["rules"]
    assert (rules["threshold"], rules["force_recycle"], rules["bluff_window"]) == (1000, True, 40)
    assert "⏳ **2 minutes** for each move" in reply.table.embed.description
    await start(tables, reply, BOB, CAROL)
    game = await tables.sessions.get(ELSEWHERE_CHANNEL)
    assert game.started and game.turn_deadline == clock.now + 120


async def test_farkle_rule_set_target_and_a_house_rule_outside_servers(tables: Tables) -> None:
    reply = await opened(
        tables, "farkle", rules="classic", target=4000, house_rule="min_bank", value="300"
    )
    rules = FarkleRules.model_validate((await tables.sessions.get(GROUP)).lobby.options["rules"])
    assert (rules.name, rules.target, rules.min_bank) == ("Classic Farkle", 4000, 300)
    text = reply.table.embed.description
    assert "**Classic Farkle** with house rules: 4,000 to win, 300 to bank" in text
    assert "House rules: Bank minimum: 300." in text
    await tables.end(ALICE, GROUP, "farkle")
    # A rule whose value reads as "not scored"
    reply = await opened(tables, "farkle", house_rule="straight", value="none", timer=0)
    assert "House rules: Straight 1-6: not scored." in reply.table.embed.description
    assert "⏳ No turn timer" in reply.table.embed.description


@pytest.mark.parametrize(
    ("kind", "options", "same_as"),
    [
        ("farkle", {"timer": 604801}, lambda s: s.updated(turn_timer=604801)),
        ("farkle", {"timer": 5}, lambda s: s.updated(turn_timer=5)),
        ("kuriki", {"lives": 12}, lambda s: s.updated(kuriki_lives=12)),
        ("kuriki", {"stake": -1}, lambda s: s.updated(kuriki_stake=-1)),
        ("crap", {"bluff_window": 2}, lambda s: s.updated(crap_bluff_window=2)),
        ("crap", {"threshold": 50}, lambda s: s.updated(crap_threshold=50)),
        ("farkle", {"rules": "yahtzee"}, lambda s: s.updated(farkle_preset="yahtzee")),
        (
            "farkle",
            {"house_rule": "min_bank", "value": "lots"},
            lambda s: s.with_house_rule("crappy-malappy", "min_bank", "lots"),
        ),
        (
            "farkle",
            {"house_rule": "target", "value": "100"},
            lambda s: s.with_house_rule("crappy-malappy", "target", "100"),
        ),
        (
            "farkle",
            {"rules": "classic", "house_rule": "one_die_throws", "value": "9"},
            lambda s: s.with_house_rule("classic", "one_die_throws", "9"),
        ),
        ("farkle", {"house_rule": "wildcard", "value": "1"}, None),
    ],
)
async def test_a_refused_option_says_what_config_says_and_opens_nothing(
    tables: Tables, kind: str, options: dict[str, object], same_as: object
) -> None:
    with pytest.raises(UserError) as refused:
        await tables.open_lobby(ALICE, None, GROUP, kind, options, server=False)
    if same_as is not None:
        with pytest.raises(UserError) as config:
            same_as(GuildSettings())  # type: ignore[operator]
        assert str(refused.value) == str(config.value)
    else:  # a rule name no client offers: a forged request
        assert str(refused.value) == "There is no Farkle rule called 'wildcard'."
    assert await tables.sessions.get(GROUP) is None
    assert await tables.store.load_session(GROUP) is None


async def test_a_house_rule_needs_its_value(tables: Tables) -> None:
    for half in ({"house_rule": "piggyback"}, {"value": "yes"}):
        with pytest.raises(UserError, match="takes both options"):
            await tables.open_lobby(ALICE, None, GROUP, "farkle", half, server=False)
    assert await tables.sessions.get(GROUP) is None


@pytest.mark.parametrize(
    ("kind", "option", "value", "words"),
    [
        ("farkle", "timer", 30, "the turn timer with /config timer"),
        ("farkle", "house_rule", "piggyback", "house rules with /config farkle-rule"),
        ("kuriki", "two_digit", True, "two-digit declarations with /config kuriki"),
        ("kuriki", "stake", 10, "the Kuriki stake with /config kuriki"),
        ("crap", "bluff_window", 60, "the bluff window with /config crap"),
        ("crap", "force_recycle", False, "Force Recycle with /config crap"),
    ],
)
async def test_in_a_server_that_added_the_bot_its_settings_rule(
    tables: Tables, kind: str, option: str, value: object, words: str
) -> None:
    options = {option: value, "value": "yes"} if option == "house_rule" else {option: value}
    with pytest.raises(UserError, match="This server's settings rule here") as refused:
        await tables.open_lobby(ALICE, GUILD, GROUP, kind, options)
    assert str(refused.value).endswith(f"a server manager sets {words}.")
    assert await tables.sessions.get(GROUP) is None


async def test_in_a_server_the_old_options_still_choose_and_the_server_settings_play(
    tables: Tables, clock: Clock
) -> None:
    await tables.save_settings(GUILD, GuildSettings(turn_timer=300, kuriki_two_digit=True))
    reply = await tables.open_lobby(ALICE, GUILD, GROUP, "kuriki", {"lives": 2})
    session = await tables.sessions.get(GROUP)
    assert OWN_SETTINGS not in session.lobby.options
    assert session.lobby.options["rules"]["lives"] == 2
    assert session.lobby.options["rules"]["two_digit"]  # the server's variant
    assert "⏳ **5 minutes** for each move" in reply.table.embed.description
    # The server's timer is the game's, read when it moves (a /config change applies).
    await tables.save_settings(GUILD, GuildSettings(turn_timer=90, kuriki_two_digit=True))
    await tables.table_posted(GROUP, 555)
    reply = await tables.click(BOB, find(reply, "join"), 555)
    await tables.click(ALICE, find(reply, "start"), 555)
    game = await tables.sessions.get(GROUP)
    assert game.turn_deadline == clock.now + 90


async def test_the_rematch_keeps_the_hosts_settings(tables: Tables, clock: Clock) -> None:
    reply = await opened(tables, "farkle", timer=75, house_rule="piggyback", value="yes")
    await start(tables, reply, BOB)
    ended = await tables.end(ALICE, GROUP, "farkle")
    (record,) = await tables.store.finished_games(GROUP)
    assert record["guild_id"] is None
    assert record["lobby"][OWN_SETTINGS]["turn_timer"] == 75
    rematch = await tables.rematch(BOB, find(Reply.of_table(ended.table), "rematch"))
    session = await tables.sessions.get(GROUP)
    assert session.lobby.options == record["lobby"]
    assert "⏳ **75 seconds** for each move" in rematch.lobby.embed.description
    assert "Piggyback: on" in rematch.lobby.embed.description
    await tables.table_posted(GROUP, 556)
    lobby = Reply.of_table(rematch.lobby)
    await tables.click(ALICE, find(lobby, "join"), 556)
    await tables.click(BOB, find(lobby, "start"), 556)
    game = await tables.sessions.get(GROUP)
    assert game.started and game.state.rules.piggyback
    assert game.turn_deadline == clock.now + 75
    # The timer runs out: the absent player's move is made and the clock restarts, still
    # with the host's timer (the game's settings are read afresh from its lobby).
    clock.now += 76
    await tables.expire(GROUP)
    moved = await tables.sessions.get(GROUP)
    assert moved.revision > game.revision and moved.turn_deadline == clock.now + 75


def test_lobby_settings_changes_are_only_what_the_host_changed() -> None:
    defaults = GuildSettings(turn_timer=200)
    settings, changed = lobby_settings(
        defaults, {"timer": 200, "lives": None, "jokers": True}, in_server=False
    )
    assert changed == {"crap_jokers": True}  # the default timer again changes nothing
    assert settings == defaults.updated(crap_jokers=True)
    with pytest.raises(ValueError, match="not a start option"):
        lobby_settings(defaults, {"colour": "red"}, in_server=False)


def test_kept_settings_that_no_longer_validate_fall_back_to_the_defaults(
    caplog: pytest.LogCaptureFixture,
) -> None:
    defaults = GuildSettings()
    assert kept_settings(defaults, {"turn_timer": 30}).turn_timer == 30
    caplog.set_level(logging.WARNING)
    assert kept_settings(defaults, {"turn_timer": 999999}) == defaults
    assert kept_settings(defaults, {"no_such_setting": 1}) == defaults
    assert kept_settings(defaults, ["turn_timer"]) == defaults
    assert len(caplog.records) == 3
