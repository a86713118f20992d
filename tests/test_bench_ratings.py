"""bench.ratings: one short run prints every figure it promises, and its rebuild finds the
incremental ratings exact."""

from __future__ import annotations

import pytest

from bench import ratings


def test_a_short_run_prints_the_cost_of_recording_a_rated_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert ratings.main(["--history", "30", "--runs", "5", "--stores", "sqlite"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("$ python -m bench.ratings ")
    assert "SQLite: filled with 30 rated games" in out
    assert "recording a rated game (4 players)" in out and "p99" in out
    assert "recording the same with a bot (unrated)" in out
    assert "rated games: " in out and "(0 differed from the incremental ones)" in out
