"""`python -m bot` says why it cannot start, in a line or two naming the real cause and the
config key it came from, with a non-zero exit and no traceback: a database that cannot be
opened, a mistyped key, a bad value, an unknown Farkle preset."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import discord.http
import pytest

import bot.__main__
from bot.database_errors import unavailable
from bot.errors import UserError
from bot.service import Tables
from bot.settings import GuildSettings, SettingsError
from tests.bot.conftest import ALICE, CHANNEL, GUILD
from tests.postgres import PostgresServer

ROOT = Path(__file__).resolve().parents[2]
PRESETS_LISTED = "choose crappy-malappy, classic, or on-the-table"


#: The real entry point, with Discord's address on a closed local port: every case fails
#: before Discord is contacted, and a regression must not reach the internet either. As
#: root (whom no folder's mode keeps out) `nobody=True` runs it as nobody, with the modules
#: it uses loaded first (that user may not read the interpreter's own folder).
ENTRY_POINT = """
import os, pwd, sys
import aiohttp, asyncpg, discord.http, bot.__main__, bot.app, bot.tuning
discord.http.Route.BASE = "http://127.0.0.1:{port}/api/v10"
if {nobody} and os.geteuid() == 0:
    nobody = pwd.getpwnam("nobody")
    os.setgroups([]); os.setgid(nobody.pw_gid); os.setuid(nobody.pw_uid)
sys.exit(bot.__main__.main(sys.argv[1:]))
"""


def start(
    config: Path | None, *, cwd: Path = ROOT, nobody: bool = False
) -> subprocess.CompletedProcess[str]:
    code = ENTRY_POINT.format(port=closed_port(), nobody=nobody)
    args = ["--config", str(config)] if config is not None else []
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env={**os.environ, "DISCORD_TOKEN": "MTIz.abc.def"},
        capture_output=True,
        text=True,
        timeout=60,
    )


@dataclass
class Started:
    """What `bot.__main__.main` did when called in the test's process: its exit status and
    what it printed on stderr (the log's records go to pytest, checked for tracebacks)."""

    returncode: int
    stderr: str


@pytest.fixture
def start_here(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> Callable[..., Started]:
    """`main` in this process, Discord's address a closed port as for `start`: a database
    problem stops it before Discord is contacted, as the process tests above show for
    PostgreSQL (each process costs most of a second of CPU)."""

    def run(config: Path | None, *, cwd: Path = ROOT) -> Started:
        monkeypatch.setenv("DISCORD_TOKEN", "MTIz.abc.def")
        base = f"http://127.0.0.1:{closed_port()}/api/v10"
        monkeypatch.setattr(discord.http.Route, "BASE", base)
        monkeypatch.chdir(cwd)
        code = bot.__main__.main(["--config", str(config)] if config is not None else [])
        out = capsys.readouterr()
        assert out.out == ""
        assert not [r for r in caplog.records if r.exc_info], caplog.text
        return Started(code, out.err)

    return run


def error(result: subprocess.CompletedProcess[str] | Started) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    return result.stderr.strip()


def write_config(folder: Path, text: str) -> Path:
    path = folder / "bot.toml"
    path.write_text(text)
    return path


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound for a free one, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ------------------------------------------------------------------------------- database


@pytest.mark.slow
def test_an_unreachable_postgresql_names_host_port_and_key_not_the_password(
    tmp_path: Path,
) -> None:
    port = closed_port()
    config = write_config(
        tmp_path, f'database = "postgresql://tablebot:s3cret@127.0.0.1:{port}/tablebot"\n'
    )
    result = start(config)
    assert result.returncode == 1
    assert error(result) == (
        f"error: cannot reach PostgreSQL at 127.0.0.1:{port} (database in {config}):"
        " connection refused; is the server running there?"
    )
    assert "s3cret" not in result.stderr + result.stdout


@pytest.mark.slow
def test_a_postgresql_server_that_refuses_says_what_it_said(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """The tests' own server on 127.0.0.1: a database it lacks, a user it does not know."""
    port = postgres_server.port
    config = write_config(tmp_path, f'database = "{postgres_server.url("no_such_db")}"\n')
    result = start(config)
    assert result.returncode == 1
    assert error(result) == (
        f"error: cannot use PostgreSQL at 127.0.0.1:{port} (database in {config}):"
        ' database "no_such_db" does not exist'
    )
    url = f"postgresql://ghost:s3cret@127.0.0.1:{port}/postgres"
    config = write_config(tmp_path, f'database = "{url}"\n')
    result = start(config)
    assert result.returncode == 1
    assert error(result) == (
        f"error: PostgreSQL at 127.0.0.1:{port} refused the login (database in {config}):"
        ' role "ghost" does not exist'
    )
    assert "s3cret" not in result.stderr


def test_a_sqlite_path_that_is_a_folder(
    tmp_path: Path, start_here: Callable[..., Started]
) -> None:
    (tmp_path / "games").mkdir()
    config = write_config(tmp_path, f'database = "{tmp_path / "games"}"\n')
    result = start_here(config)
    assert result.returncode == 1
    assert error(result) == (
        f"error: cannot open the SQLite database {tmp_path / 'games'} (database in {config}):"
        " that is a folder, not a file"
    )


def test_a_file_that_is_not_a_sqlite_database(
    tmp_path: Path, start_here: Callable[..., Started]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list\n" * 100)
    config = write_config(tmp_path, f'database = "{notes}"\n')
    result = start_here(config)
    assert result.returncode == 1
    assert error(result) == (
        f"error: cannot open the SQLite database {notes} (database in {config}):"
        " that file is not a SQLite database (or is damaged)"
    )
    assert notes.read_text() == "shopping list\n" * 100


def test_a_file_in_the_way_of_the_database_folder(
    tmp_path: Path, start_here: Callable[..., Started]
) -> None:
    (tmp_path / "data").write_text("")
    database = tmp_path / "data" / "bot.sqlite3"
    config = write_config(tmp_path, f'database = "{database}"\n')
    result = start_here(config)
    assert result.returncode == 1
    assert error(result) == (
        f"error: cannot open the SQLite database {database} (database in {config}):"
        f" a file is in the way of its folder {tmp_path / 'data'}"
    )


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder another user can read (pytest's tmp_path is its owner's alone)."""
    with tempfile.TemporaryDirectory() as name:
        os.chmod(name, 0o755)
        yield Path(name)


@pytest.mark.slow
def test_no_permission_to_create_the_database(shared_folder: Path) -> None:
    locked = shared_folder / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    database = locked / "bot.sqlite3"
    config = write_config(shared_folder, f'database = "{database}"\n')
    config.chmod(0o644)
    result = start(config, nobody=True)
    assert result.returncode == 1
    assert error(result) == (
        f"error: cannot open the SQLite database {database} (database in {config}):"
        f" no permission to create files in the folder {locked}"
    )


def test_the_default_database_says_where_to_set_another(
    tmp_path: Path, start_here: Callable[..., Started]
) -> None:
    (tmp_path / "tablebot.sqlite3").mkdir()
    result = start_here(None, cwd=tmp_path)
    assert result.returncode == 1
    assert error(result) == (
        "error: cannot open the SQLite database tablebot.sqlite3 (the default database;"
        " set database in config.toml): that is a folder, not a file"
    )


def test_postgresql_login_problems_in_words_without_the_password() -> None:
    url = "postgresql://tablebot:s3cret@db.example:6432/tablebot"
    wrong = asyncpg.InvalidPasswordError('password authentication failed for user "tablebot"')
    problem = unavailable(url, wrong)
    assert problem is not None
    assert problem.naming("database in bot.toml") == (
        "PostgreSQL at db.example:6432 refused the login (database in bot.toml):"
        " wrong password for user 'tablebot'"
    )
    lookup = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    assert str(unavailable(url, lookup)) == (
        "cannot reach PostgreSQL at db.example:6432: unknown host (Name or service not known)"
    )
    echoed = OSError(0, "server said s3cret")
    assert "s3cret" not in str(unavailable(url, echoed))
    assert str(unavailable("postgresql://u@db.example/x", TimeoutError())) == (
        "cannot reach PostgreSQL at db.example:5432: no answer (timed out)"
    )


def test_unexpected_errors_are_not_dressed_up_as_database_problems() -> None:
    """A bug keeps its traceback: only opening problems are put in words."""
    assert unavailable("bot.sqlite3", sqlite3.OperationalError("no such table: x")) is None
    assert unavailable("bot.sqlite3", KeyError("x")) is None
    assert unavailable("postgresql://u@h/x", asyncpg.UndefinedTableError("x")) is None


# --------------------------------------------------------------------------- config file


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[defaults]\nturn_timr = 60\n", "defaults.turn_timr: unknown key; did you mean turn_timer?"),
        ("repost_afterr = 3\n", "repost_afterr: unknown key; did you mean repost_after?"),
        ("turn_timer = 60\n", "turn_timer: unknown key; did you mean turn_timer under [defaults]?"),
        (
            "[defaults.farkle_house_rules.classic]\nmin_bnk = 300\n",
            "defaults.farkle_house_rules.classic.min_bnk: unknown key; did you mean min_bank?",
        ),
        ("colour = 'blue'\n", "colour: unknown key"),
        (
            "[defaults]\nturn_timer = 999999\n",
            "defaults.turn_timer: must be from 0 to 604800, not 999999",
        ),
        (
            "cached_games = 'many'\n",
            "cached_games: must be a whole number from 10 to 1000000, not 'many'",
        ),
        (
            "log_level = 'LOUD'\n",
            "log_level: must be 'DEBUG', 'INFO', 'WARNING' or 'ERROR', not 'LOUD'",
        ),
        (
            "[defaults.farkle_house_rules.classic]\nstraight = -5\n",
            "defaults.farkle_house_rules.classic.straight: must be from 0 to 10000, not -5",
        ),
        (
            "[defaults]\nfarkle_preset = 'clasic'\n",
            "defaults.farkle_preset: there is no Farkle rule set called 'clasic';"
            f" {PRESETS_LISTED}",
        ),
        (
            "[defaults.farkle_house_rules.yahtzee]\nmin_bank = 300\n",
            f"defaults.farkle_house_rules.yahtzee: there is no Farkle rule set called 'yahtzee';"
            f" {PRESETS_LISTED}",
        ),
    ],
)
def test_a_config_problem_is_one_line_naming_the_key(
    tmp_path: Path,
    text: str,
    line: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`main` in this process: a config problem stops it before the bot is made (the next
    test runs the same path in a process of its own, as `python -m bot` does)."""
    config = write_config(tmp_path, text)
    monkeypatch.setenv("DISCORD_TOKEN", "MTIz.abc.def")
    assert bot.__main__.main(["--config", str(config)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "Traceback" not in out.err
    assert out.err.strip() == f"error: {config}: {line}"


@pytest.mark.slow
def test_several_config_problems_are_a_line_each(tmp_path: Path) -> None:
    config = write_config(tmp_path, "repost_after = 0\npictures = 3\n[defaults]\nkuriki_lives = 10\n")
    result = start(config)
    assert result.returncode == 2
    assert error(result).splitlines() == [
        f"error: {config} has 3 problems:",
        "  repost_after: must be from 1 to 50, not 0",
        "  pictures: must be true or false, not 3",
        "  defaults.kuriki_lives: must be from 1 to 9, not 10",
    ]


# ------------------------------------------------------------ presets typed in the server


async def test_an_unknown_preset_in_a_lobby_lists_the_presets(tables: Tables) -> None:
    with pytest.raises(UserError) as caught:
        await tables.open_lobby(ALICE, GUILD, CHANNEL, "farkle", {"rules": "yahtzee"})
    assert str(caught.value) == f"There is no Farkle rule set called 'yahtzee'; {PRESETS_LISTED}."
    assert await tables.store.load_session(CHANNEL) is None


async def test_an_unknown_preset_in_the_rules_command_lists_the_presets(tables: Tables) -> None:
    with pytest.raises(UserError) as caught:
        await tables.rules(GUILD, CHANNEL, "farkle", "yahtzee")
    assert str(caught.value) == f"There is no Farkle rule set called 'yahtzee'; {PRESETS_LISTED}."


def test_an_unknown_preset_in_config_commands_lists_the_presets() -> None:
    settings = GuildSettings()
    with pytest.raises(SettingsError) as caught:
        settings.updated(farkle_preset="yahtzee")
    assert str(caught.value) == f"There is no Farkle rule set called 'yahtzee'; {PRESETS_LISTED}."
    with pytest.raises(SettingsError) as caught:
        settings.with_house_rule("yahtzee", "min_bank", "300")
    assert str(caught.value) == f"There is no Farkle rule set called 'yahtzee'; {PRESETS_LISTED}."
