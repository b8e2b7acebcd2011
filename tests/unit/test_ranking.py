"""Unit tests for csrwh.measures.ranking (Elo, Bradley-Terry) against hand-computed values and
simulations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from csrwh.measures.stats import bradley_terry, bradley_terry_bootstrap, elo_ratings

# --------------------------------------------------------------------------------------
# Elo
# --------------------------------------------------------------------------------------


def test_elo_single_win_from_equal_ratings():
    ratings = elo_ratings([("x", "y", "a")])
    # expected 0.5 each: winner +K/2, loser -K/2
    assert ratings == {"x": pytest.approx(1008.0), "y": pytest.approx(992.0)}


def test_elo_hand_computed_three_battle_sequence():
    # 1) x beats y            -> x 1008, y 992
    # 2) y ties z: e_y = 1/(1+10**((1000-992)/400)) = 0.488489...; y += 16*(0.5-e_y)
    #    -> y 992.184, z 999.816
    # 3) z beats x: e_x = 1/(1+10**((999.816-1008)/400)) = 0.511775
    #    -> x 1008 - 16*0.511775 = 999.812, z 999.816 + 8.188 = 1008.004
    ratings = elo_ratings([("x", "y", "a"), ("y", "z", "tie"), ("x", "z", "b")])
    e_y = 1.0 / (1.0 + 10 ** ((1000.0 - 992.0) / 400.0))
    y = 992.0 + 16.0 * (0.5 - e_y)
    z = 1000.0 + 16.0 * (0.5 - (1.0 - e_y))
    e_x = 1.0 / (1.0 + 10 ** ((z - 1008.0) / 400.0))
    x = 1008.0 + 16.0 * (0.0 - e_x)
    z = z + 16.0 * (1.0 - (1.0 - e_x))
    assert ratings["x"] == pytest.approx(x, abs=1e-9)
    assert ratings["y"] == pytest.approx(y, abs=1e-9)
    assert ratings["z"] == pytest.approx(z, abs=1e-9)
    # literal values, so the test cannot pass by repeating a wrong formula
    assert ratings["x"] == pytest.approx(999.812, abs=1e-3)
    assert ratings["y"] == pytest.approx(992.184, abs=1e-3)
    assert ratings["z"] == pytest.approx(1008.004, abs=1e-3)


def test_elo_is_zero_sum_and_order_dependent():
    battles = [("x", "y", "a"), ("y", "z", "a"), ("z", "x", "tie"), ("x", "y", "b")]
    forward = elo_ratings(battles)
    backward = elo_ratings(list(reversed(battles)))
    assert sum(forward.values()) == pytest.approx(3000.0)
    assert forward["x"] != pytest.approx(backward["x"], abs=1e-6)


def test_elo_parameters_and_validation():
    assert elo_ratings([("x", "y", "b")], initial=1500, k=32) == {
        "x": pytest.approx(1484.0),
        "y": pytest.approx(1516.0),
    }
    with pytest.raises(ValueError):
        elo_ratings([("x", "y", "x")])
    with pytest.raises(ValueError):
        elo_ratings([("x", "x", "a")])


# --------------------------------------------------------------------------------------
# Bradley-Terry
# --------------------------------------------------------------------------------------


def _simulated_battles(
    strengths: dict[str, float], n: int, seed: int
) -> list[tuple[str, str, str]]:
    rng = np.random.default_rng(seed)
    names = list(strengths)
    battles = []
    for _ in range(n):
        a, b = rng.choice(len(names), size=2, replace=False)
        pa, pb = strengths[names[a]], strengths[names[b]]
        winner = "a" if rng.random() < pa / (pa + pb) else "b"
        battles.append((names[a], names[b], winner))
    return battles


def test_bradley_terry_recovers_simulated_order():
    truth = {"s1": 8.0, "s2": 4.0, "s3": 2.0, "s4": 1.0, "s5": 0.5}
    battles = _simulated_battles(truth, n=4000, seed=7)
    fitted = bradley_terry(battles)
    assert sorted(fitted, key=fitted.get, reverse=True) == ["s1", "s2", "s3", "s4", "s5"]
    # each factor 2 in strength is 400*log10(2) = 120.4 points; allow sampling noise
    assert fitted["s1"] - fitted["s5"] == pytest.approx(4 * 400 * math.log10(2), rel=0.15)
    # centred on 1000 (geometric mean)
    assert np.mean(list(fitted.values())) == pytest.approx(1000.0, abs=1e-6)


def test_bradley_terry_unpenalised_two_player_closed_form():
    # 3 wins, 1 loss: MLE odds 3:1 -> gap 400*log10(3); centred on 1000
    battles = [("x", "y", "a")] * 3 + [("x", "y", "b")]
    fitted = bradley_terry(battles, l2=0.0)
    gap = 400 * math.log10(3)
    assert fitted["x"] == pytest.approx(1000 + gap / 2, abs=1e-3)
    assert fitted["y"] == pytest.approx(1000 - gap / 2, abs=1e-3)


def test_bradley_terry_ties_are_half_wins_and_order_free():
    with_ties = [("x", "y", "a"), ("x", "y", "tie"), ("x", "y", "tie"), ("y", "x", "b")]
    # x: 1 + 0.5 + 0.5 + 1 = 3 wins of 4 -> same as the 3:1 case
    fitted = bradley_terry(with_ties, l2=0.0)
    assert fitted["x"] - fitted["y"] == pytest.approx(400 * math.log10(3), abs=1e-3)
    assert bradley_terry(list(reversed(with_ties)), l2=0.0) == pytest.approx(fitted)


def test_bradley_terry_all_wins_stays_finite():
    fitted = bradley_terry([("x", "y", "a")] * 5 + [("y", "z", "a")] * 5)
    assert all(math.isfinite(v) for v in fitted.values())
    assert fitted["x"] > fitted["y"] > fitted["z"]


def test_bootstrap_is_deterministic_and_brackets_the_estimate():
    truth = {"s1": 4.0, "s2": 2.0, "s3": 1.0}
    battles = _simulated_battles(truth, n=300, seed=3)
    first = bradley_terry_bootstrap(battles, n_samples=100, seed=42)
    second = bradley_terry_bootstrap(battles, n_samples=100, seed=42)
    other = bradley_terry_bootstrap(battles, n_samples=100, seed=43)
    assert first == second
    assert first != other
    point = bradley_terry(battles)
    for name, (low, high) in first.items():
        assert low < point[name] < high
    assert first["s1"][0] > first["s3"][1]  # clearly separated systems do not overlap
    assert bradley_terry_bootstrap([], n_samples=10, seed=1) == {}
