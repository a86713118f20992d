"""bench.arena: a tiny Kuriki run prints the command, one row per cell with its interval
and verdict, and refuses bad arguments."""

from __future__ import annotations

import pytest

from bench import arena


def test_a_tiny_kuriki_run_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--game", "kuriki", "--games", "2", "--players", "2", "3"]
    arena.main([*argv, "--only", "declare-105", "--only", "rusk"])
    out = capsys.readouterr().out
    assert out.startswith("$ python -m bench.arena " + " ".join(argv))
    rows = [line for line in out.splitlines() if line.startswith(("declare-105 ", "rusk "))]
    assert len(rows) == 4 and all("ms" in row and "%" in row for row in rows)


def test_every_declaration_has_its_opponent_and_limits_follow_the_issue() -> None:
    two = {c.opponent: c for c in arena.cells("kuriki", [2])}
    assert {"truthful", "declare-106", "step-above", "caller", "rusk"} <= set(two)
    assert two["declare-105"].limit == 0.55 and two["caller"].limit == 0.60
    four = arena.cells("kuriki", [4], ["caller"])
    assert [(c.fair, c.limit) for c in four] == [(0.25, pytest.approx(0.35))]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(SystemExit):
        arena.parse_args(["--game", "kuriki", "--games", "0"])
    with pytest.raises(SystemExit):
        arena.cells("kuriki", [2], ["nobody"])
