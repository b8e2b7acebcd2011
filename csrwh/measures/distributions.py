"""Correlations and confidence intervals (the report's tables and plots), from libraries.

:func:`pearson`, :func:`spearman`, :func:`t_quantile`, :func:`mean_interval` and
:func:`wilson_interval`, on numpy, polars and ``scipy.special`` (not ``scipy.stats``, whose
import is slow), scipy imported on first use.
Details: docs/internals.md#csrwh-measures-distributions
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

__all__ = ["mean_interval", "pearson", "spearman", "t_quantile", "wilson_interval"]


def _paired(x: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray] | None:
    """``x`` and ``y`` as float arrays, or None when a correlation is undefined (fewer than
    three pairs, or either side constant)."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("x and y must be 1-D sequences of the same length")
    if a.size < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    return a, b


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's correlation coefficient of paired values (``numpy.corrcoef``); None when
    undefined (fewer than three pairs or a constant side)."""
    pair = _paired(x, y)
    if pair is None:
        return None
    return float(np.clip(np.corrcoef(*pair)[0, 1], -1.0, 1.0))


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation: Pearson's on average ranks (polars' ``rank``), so ties share
    the mean of their ranks as in ``scipy.stats.spearmanr``; None when undefined."""
    pair = _paired(x, y)
    if pair is None:
        return None
    import polars as pl

    ranks = [pl.Series(side).rank(method="average").to_numpy() for side in pair]
    return pearson(*ranks)


@lru_cache(maxsize=1024)
def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t distribution with ``df`` degrees of freedom
    (``scipy.special.stdtrit``): e.g. ``t_quantile(0.975, 10)`` = 2.228139 (tables: 2.228)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if not df > 0:
        raise ValueError("df must be positive")
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


def _normal_quantile(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


def mean_interval(
    mean: float | None, sd: float | None, n: int | None, confidence: float = 0.95
) -> tuple[float | None, float | None]:
    """Student's t interval of a mean: ``mean -/+ t_{(1+confidence)/2, n-1} * sd / sqrt(n)``
    (sd with n - 1). ``(None, None)`` when it is undefined: n < 2 or a missing value."""
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    if mean is None or sd is None or n is None or n < 2 or math.isnan(mean) or math.isnan(sd):
        return None, None
    half = t_quantile((1.0 + confidence) / 2.0, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half


def wilson_interval(
    successes: int, n: int, confidence: float = 0.95
) -> tuple[float | None, float | None]:
    """Wilson's score interval of a proportion ``successes / n`` (within [0, 1] also at 0 or n
    successes, where the t or normal interval collapses). ``(None, None)`` for n = 0."""
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    if not n:
        return None, None
    if not 0 <= successes <= n:
        raise ValueError("successes must be between 0 and n")
    z = _normal_quantile((1.0 + confidence) / 2.0)
    share = successes / n
    denominator = 1.0 + z * z / n
    centre = (share + z * z / (2.0 * n)) / denominator
    half = z * math.sqrt(share * (1.0 - share) / n + z * z / (4.0 * n * n)) / denominator
    # exactly 0 (1) at no (all) successes, where the two terms cancel up to rounding
    low = 0.0 if successes == 0 else max(centre - half, 0.0)
    high = 1.0 if successes == n else min(centre + half, 1.0)
    return low, high
