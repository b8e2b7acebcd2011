"""Confidence intervals for the oracles, computed independently of ``csrwh.measures.stats``: Student's
t interval from scipy's t quantile and ``statistics.stdev`` of the raw values, Wilson's score
interval as the roots of its quadratic with scipy's normal quantile."""

from __future__ import annotations

import math
import statistics

from scipy import stats

CONFIDENCE = 0.95


def t_interval(values: list[float]) -> tuple[float | None, float | None]:
    """mean -/+ t(0.975, n - 1) * s / sqrt(n) of the raw values; (None, None) for n < 2."""
    n = len(values)
    if n < 2:
        return None, None
    centre = statistics.fmean(values)
    half = stats.t.ppf((1 + CONFIDENCE) / 2, n - 1) * statistics.stdev(values) / math.sqrt(n)
    return centre - half, centre + half


def wilson(successes: int, n: int) -> tuple[float | None, float | None]:
    """The p with |p_hat - p| = z * sqrt(p (1 - p) / n): roots of
    (1 + z^2/n) p^2 - (2 p_hat + z^2/n) p + p_hat^2 = 0; (None, None) for n = 0."""
    if n == 0:
        return None, None
    z = stats.norm.ppf((1 + CONFIDENCE) / 2)
    share = successes / n
    a, b, c = 1 + z * z / n, -(2 * share + z * z / n), share * share
    root = math.sqrt(max(b * b - 4 * a * c, 0.0))
    return max((-b - root) / (2 * a), 0.0), min((-b + root) / (2 * a), 1.0)
