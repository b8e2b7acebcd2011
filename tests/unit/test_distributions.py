"""Unit tests for csrwh.measures.distributions (correlations, t and Wilson intervals) against
scipy and hand-checked equations."""

from __future__ import annotations

import statistics

import numpy as np
import pytest
from scipy import stats as scipy_stats

from csrwh.measures.stats import mean_interval, pearson, spearman, t_quantile, wilson_interval

# --------------------------------------------------------------------------------------
# Correlations and intervals
# --------------------------------------------------------------------------------------


def test_correlations_equal_scipy_with_ties_and_none_when_undefined():
    rng = np.random.default_rng(0)
    for _ in range(30):
        x = rng.integers(0, 4, 9).astype(float)  # ties
        y = rng.normal(size=9)
        if np.ptp(x) == 0:
            continue
        assert pearson(x, y) == pytest.approx(scipy_stats.pearsonr(x, y).statistic, abs=1e-12)
        assert spearman(x, y) == pytest.approx(scipy_stats.spearmanr(x, y).statistic, abs=1e-12)
    assert pearson([1, 2], [3, 4]) is None  # fewer than three pairs
    assert spearman([1, 1, 1], [1, 2, 3]) is None  # a constant side
    with pytest.raises(ValueError):
        pearson([1, 2, 3], [1, 2])


@pytest.mark.parametrize("df", [1, 2, 3, 4.5, 9, 19, 30, 290, 5000])
def test_t_quantile_equals_scipy(df):
    for p in (0.5, 0.6, 0.9, 0.95, 0.975, 0.995, 0.9999, 0.025):
        assert t_quantile(p, df) == pytest.approx(scipy_stats.t.ppf(p, df), rel=1e-9, abs=1e-12)
    with pytest.raises(ValueError):
        t_quantile(1.0, df)


def test_mean_interval_is_the_t_interval_of_the_raw_values():
    values = [3.0, 4.0, 4.0, 5.0, 2.0, 5.0, 4.0]
    low, high = mean_interval(statistics.fmean(values), statistics.stdev(values), len(values))
    expected = scipy_stats.t.interval(
        0.95, len(values) - 1, loc=statistics.fmean(values), scale=scipy_stats.sem(values)
    )
    assert (low, high) == pytest.approx(expected, rel=1e-10)
    assert mean_interval(4.0, None, 1) == (None, None)
    assert mean_interval(4.0, 1.0, 1) == (None, None)  # n < 2: no interval
    assert mean_interval(4.0, 0.0, 5) == (4.0, 4.0)


def test_wilson_interval():
    # the interval is where |share - p| = z sqrt(p (1 - p) / n): check that equation at both ends
    z = scipy_stats.norm.ppf(0.975)
    for successes, n in ((0, 10), (3, 10), (10, 10), (1, 3), (45, 200)):
        low, high = wilson_interval(successes, n)
        for p in (low, high):
            assert (successes / n - p) ** 2 == pytest.approx(z * z * p * (1 - p) / n, abs=1e-12)
        assert 0.0 <= low <= successes / n <= high <= 1.0
        # symmetric: k of n successes mirrors n - k
        mirror = wilson_interval(n - successes, n)
        assert (low, high) == pytest.approx((1 - mirror[1], 1 - mirror[0]), abs=1e-12)
    assert wilson_interval(0, 10)[0] == 0.0  # where the t / normal interval would go below 0
    assert wilson_interval(0, 0) == (None, None)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
