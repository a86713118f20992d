"""Server settings and the bot's config file: bad values get a clear message, nothing changes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import BotConfig, ConfigError, check_token, load_config
from bot.lobby_settings import kept_settings
from bot.server_settings import ServerSettings
from bot.service import Tables
from bot.settings import GuildSettings, SettingsError
from tests.bot.conftest import ALICE, CHANNEL, GUILD

ROOT = Path(__file__).resolve().parents[2]


def test_house_rules_apply_to_their_preset_only() -> None:
    s = GuildSettings().with_house_rule("classic", "min_bank", "500")
    s = s.with_house_rule("classic", "straight", "none")
    s = s.with_house_rule("classic", "piggyback", "yes")
    s = s.with_house_rule("classic", "flat_kind", "1000, 1500, 2000")
    rules = s.farkle_rules("classic")
    assert (rules.min_bank, rules.straight, rules.piggyback, rules.flat_kind) == (
        500,
        None,
        True,
        (1000, 1500, 2000),
    )
    assert s.farkle_rules("crappy-malappy").min_bank == 250
    assert s.farkle_rules("classic", target=4000).target == 4000


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("min_bank", "lots", "whole number"),
        ("min_bank", "-5", "Bank minimum must be at least 0"),
        ("piggyback", "maybe", "on or off"),
        ("kind_scoring", "triple", "Four or more of a kind: only as a triple plus singles"),
        ("flat_kind", "1,2", "three numbers"),
        ("target", "100", "Target must be at least 500"),
        ("one_die_throws", "9", "Throws with the last die must be at most 6"),
        ("no_such_rule", "1", "no Farkle rule"),
    ],
)
def test_bad_house_rules_are_refused(field: str, value: str, message: str) -> None:
    s = GuildSettings()
    with pytest.raises(SettingsError, match=message):
        s.with_house_rule("classic", field, value)
    assert s.farkle_house_rules == {}


@pytest.mark.parametrize(
    "changes",
    [
        {"turn_timer": -1},
        {"turn_timer": 604801},
        {"lobby_timeout": 59},
        {"lobby_timeout": 86401},
        {"kuriki_lives": 0},
        {"kuriki_lives": 10},
        {"crap_threshold": 5},
        {"farkle_preset": "yahtzee"},
    ],
)
def test_out_of_range_settings_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(SettingsError):
        GuildSettings().updated(**changes)


async def test_settings_persist_and_apply_to_new_lobbies(tables: Tables) -> None:
    settings = (await tables.settings(GUILD)).updated(farkle_preset="on-the-table", turn_timer=30)
    await tables.save_settings(GUILD, settings)
    # As a fresh process reads them: from the store, not the cache.
    loaded = await ServerSettings(tables.store, tables.defaults).get(GUILD)
    assert loaded.farkle_preset == "on-the-table" and loaded.turn_timer == 30
    await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {})
    session = await tables.sessions.get(CHANNEL)
    assert session.lobby.options["rules"]["name"] == "On the Table"


@pytest.mark.parametrize("seconds", [1, 5, 14])
def test_a_turn_timer_too_short_to_use_is_refused_with_the_reason(seconds: int) -> None:
    with pytest.raises(SettingsError) as refused:
        GuildSettings().updated(turn_timer=seconds)
    assert str(refused.value) == (
        "The turn timer must be 0 (off) or at least 15 seconds: a person needs that long to "
        "read the table and choose."
    )
    assert GuildSettings().updated(turn_timer=15).turn_timer == 15
    assert GuildSettings().updated(turn_timer=0).turn_timer == 0  # off


async def test_a_turn_timer_saved_shorter_loads_as_the_least_one(tables: Tables) -> None:
    """A server's row saved before the minimum (5 s) still loads, with its other settings,
    and plays 15 s; so do a lobby's own settings kept outside servers."""
    await tables.store.save_settings(GUILD, '{"turn_timer": 5, "kuriki_lives": 3}')
    loaded = await tables.settings(GUILD)
    assert (loaded.turn_timer, loaded.kuriki_lives) == (15, 3)
    kept = kept_settings(GuildSettings(), {"turn_timer": 4, "crap_jokers": True})
    assert (kept.turn_timer, kept.crap_jokers) == (15, True)


async def test_damaged_settings_row_falls_back_to_defaults(tables: Tables) -> None:
    await tables.store.save_settings(GUILD, "{not json")
    assert await tables.settings(GUILD) == tables.defaults


def test_config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert load_config(path) == BotConfig()
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(path, required=True)
    path.write_text(
        'shard_count = 4\nshard_ids = [1, 3]\ndatabase = "data/g{shards}.sqlite3"\n'
        "[defaults]\nturn_timer = 60\n"
    )
    config = load_config(path)
    assert config.database_path() == Path("data/g-shards-1-3.sqlite3")
    assert config.defaults.turn_timer == 60
    path.write_text("shard_ids = [5]\nshard_count = 2\n")
    with pytest.raises(ConfigError, match="shard_ids"):
        load_config(path)
    path.write_text("this is = = not toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path)
    path.write_text("colour = 'blue'\n")
    with pytest.raises(ConfigError, match="colour"):
        load_config(path)


def run_bot(*args: str, token: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    if token is not None:
        env["DISCORD_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_missing_token_is_one_clear_line() -> None:
    result = run_bot("--config", str(ROOT / "config.example.toml"), token=None)
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == "error: DISCORD_TOKEN is not set: export the bot token from the Discord developer portal"
    )


def test_invalid_config_is_one_clear_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[defaults]\nturn_timer = 999999\n")
    result = run_bot("--config", str(bad), token="x")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "turn_timer" in lines[0] and "Traceback" not in result.stderr


def test_example_config_is_valid() -> None:
    assert load_config(ROOT / "config.example.toml", required=True) == BotConfig()


@pytest.mark.parametrize(
    ("raw", "hint"),
    [
        ("Bot MTIz.abc.def", "remove that prefix"),
        ('"MTIz.abc.def"', "remove them"),
        ("'MTIz.abc.def'", "remove them"),
        (" MTIz.abc.def ", "spaces or line breaks around it"),
        ("MTIz.abc.def\n", "spaces or line breaks around it"),
        ("MTIz.abc def", "holds spaces or quotes"),
        ("", "is not set"),
        ("   ", "is not set"),
    ],
)
def test_token_paste_mistakes_get_a_hint(raw: str, hint: str) -> None:
    with pytest.raises(ConfigError, match=hint):
        check_token(raw)


def test_a_plain_token_is_kept_as_it_is() -> None:
    assert check_token("MTIzNDU2.Gh1jKl.abc-DEF_123") == "MTIzNDU2.Gh1jKl.abc-DEF_123"


def test_a_token_with_the_bot_prefix_is_one_line_saying_what_to_change() -> None:
    result = run_bot("--config", str(ROOT / "config.example.toml"), token="Bot MTIz.abc.def")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: DISCORD_TOKEN starts with 'Bot ': remove that prefix, the bot adds it itself"
    )


@pytest.mark.slow
def test_an_unreachable_discord_is_one_clear_line_and_no_voice_warning(tmp_path: Path) -> None:
    """Discord's address points at a closed local port: the bot says it cannot reach Discord,
    and logs nothing about voice support (it has no voice). The database, opened first, is
    a fresh file."""
    config = tmp_path / "bot.toml"
    config.write_text(f'database = "{tmp_path / "bot.sqlite3"}"\n')
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    code = (
        "import sys, discord.http\n"
        f"discord.http.Route.BASE = 'http://127.0.0.1:{port}/api/v10'\n"
        "from bot.__main__ import main\n"
        "sys.exit(main(['--config', sys.argv[1]]))\n"
    )
    env = {**os.environ, "DISCORD_TOKEN": "MTIz.abc.def"}
    result = subprocess.run(
        [sys.executable, "-c", code, str(config)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("error: cannot reach Discord (")
    assert "Traceback" not in result.stderr
    assert "voice" not in result.stderr.lower()


@pytest.mark.parametrize(
    ("changes", "house"),
    [
        ({"target": 5000, "piggyback": False}, None),  # a target, and piggyback as Classic has it
        ({"target": 5000, "piggyback": True}, "Piggyback: on"),
    ],
)
def test_config_show_and_the_lobby_agree_on_the_house_rules(
    changes: dict[str, object], house: str | None
) -> None:
    """A house rule is a rule that differs from its rule set's, in /config show as in the
    lobby; the target is said apart (the lobby says it first: "5,000 to win")."""
    from bot.cogs.admin import settings_embed
    from bot.tables.farkle import FarkleTable
    from games.lobby import Lobby

    settings = GuildSettings(farkle_preset="classic", farkle_house_rules={"classic": changes})
    shown = settings_embed(settings).fields[1].value or ""
    adapter = FarkleTable()
    lobby = Lobby(starter=ALICE.id, options=adapter.lobby_options(settings))
    lobby_text = adapter.lobby_description(lobby, settings)
    assert "Classic Farkle plays to **5,000**" in shown and "5,000 to win" in lobby_text
    assert ("House rules" in shown) == ("house rules" in lobby_text) == (house is not None)
    if house is not None:
        assert house in shown and house in lobby_text
