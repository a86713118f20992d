"""bench.bots: the confidence interval, the game list (loaded only when asked for) and one
short run that prints every figure it promises."""

from __future__ import annotations

import pytest

from bench import bots
from bench.common import wilson


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    low, high = wilson(0, 10)
    assert low == 0.0 and 0.25 < high < 0.35
    low, high = wilson(10, 10)
    assert 0.65 < low < 0.75 and high == 1.0


def test_games_are_modules_loaded_on_demand() -> None:
    assert bots.GAMES["farkle"] == "bench.farkle_policy"
    for game in ("kuriki", "crap"):
        listed = bots.matchups(game)
        assert listed and all(0 < equal < 1 for _, _, equal in listed)


def test_a_short_run_prints_rates_speed_and_decision_times(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bots.main(["--games", "2", "--seed", "3", "--game", "kuriki"])
    out = capsys.readouterr().out
    assert out.startswith("$ python -m bench.bots --games 2 --seed 3 --game kuriki\n")
    assert out.count("wins ") == len(bots.matchups("kuriki"))
    assert "95% CI" in out and "games/s" in out and "p99" in out and "max" in out


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(SystemExit):
        bots.parse_args(["--games", "0"])
    with pytest.raises(SystemExit):
        bots.parse_args(["--game", "chess"])
