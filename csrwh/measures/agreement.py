"""Inter-annotator agreement (``annotator_agreement``) and its bootstrap intervals.

Pure, deterministic functions: :func:`fleiss_kappa` (own: raters per item may differ),
:func:`krippendorff_alpha` (the ``krippendorff`` package's ``alpha`` on the units' value
counts) and their percentile bootstraps (own: per-unit coincidences, resampled in blocks).
Details: docs/internals.md#csrwh-measures-agreement
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import Literal

import krippendorff
import numpy as np

__all__ = [
    "Level",
    "fleiss_kappa",
    "fleiss_kappa_bootstrap",
    "fleiss_table",
    "krippendorff_alpha",
    "krippendorff_alpha_bootstrap",
]

Level = Literal["nominal", "ordinal", "interval", "ratio"]


# ---------------------------------------------------------------------------------------
# Agreement
# ---------------------------------------------------------------------------------------


def fleiss_kappa(table: np.ndarray | Sequence[Sequence[float]]) -> float:
    """Fleiss' kappa from an items x categories count matrix (own code, not statsmodels'
    ``fleiss_kappa``: that one assumes every item has the same number of raters, and the
    real CoSRec intent labels' turns have two to six).

    ``table[i, j]`` is the number of raters who put item i in category j. With the same
    number of raters ``n`` for every item this is exactly Fleiss (1971)::

        P_i   = (sum_j n_ij^2 - n) / (n (n - 1))      agreement on item i
        p_j   = sum_i n_ij / (N n)                    share of category j
        kappa = (mean_i P_i - sum_j p_j^2) / (1 - sum_j p_j^2)

    Items may have different numbers of raters ``n_i`` (>= 2): then ``P_i`` uses ``n_i``
    and ``p_j = sum_i n_ij / sum_i n_i`` (the common generalisation of Fleiss' formula to
    varying ``n_i``; it equals Fleiss (1971) when all ``n_i`` are equal). Items with fewer
    than two ratings carry no agreement information and are ignored.

    Returns:
        kappa, or NaN when it is undefined (no item with two ratings, or expected agreement
        of 1 because every rating falls in one category).
    """
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2:
        raise ValueError("table must be a 2-D items x categories matrix")
    if np.any(counts < 0):
        raise ValueError("table counts must be non-negative")
    n_i = counts.sum(axis=1)
    counts = counts[n_i >= 2]
    n_i = n_i[n_i >= 2]
    if counts.shape[0] == 0:
        return float("nan")
    p_item = (np.sum(counts**2, axis=1) - n_i) / (n_i * (n_i - 1.0))
    p_category = counts.sum(axis=0) / n_i.sum()
    p_bar = float(p_item.mean())
    p_expected = float(np.sum(p_category**2))
    if math.isclose(p_expected, 1.0):
        return float("nan")
    return (p_bar - p_expected) / (1.0 - p_expected)


def fleiss_table(
    rows: Iterable[tuple[Hashable, Hashable, Hashable]],
    min_raters: int = 2,
) -> tuple[np.ndarray, list[Hashable], list[Hashable]]:
    """Build the Fleiss count table from long ``(item, rater, label)`` rows.

    Each ``(item, rater)`` pair must appear once (one label per rater and item; combine
    multi-label answers into one category beforehand). Items with fewer than
    ``min_raters`` raters are dropped. The number of raters may differ between items; see
    :func:`fleiss_kappa` for how that is handled.

    Returns:
        ``(table, items, categories)``: counts of shape ``(len(items), len(categories))``,
        items in order of first appearance, categories sorted by their string form.
    """
    labels_by_item: dict[Hashable, dict[Hashable, Hashable]] = defaultdict(dict)
    for item, rater, label in rows:
        seen = labels_by_item[item]
        if rater in seen:
            raise ValueError(f"rater {rater!r} labels item {item!r} more than once")
        seen[rater] = label
    kept = {
        item: by_rater for item, by_rater in labels_by_item.items() if len(by_rater) >= min_raters
    }
    categories = sorted(
        {label for by_rater in kept.values() for label in by_rater.values()}, key=str
    )
    column = {category: j for j, category in enumerate(categories)}
    items = list(kept)
    table = np.zeros((len(items), len(categories)))
    for i, item in enumerate(items):
        for label in kept[item].values():
            table[i, column[label]] += 1
    return table, items, categories


def _distance_matrix(values: Sequence, marginals: np.ndarray, level: Level) -> np.ndarray:
    """Squared difference ``delta^2(c, k)`` between the sorted distinct values."""
    size = len(values)
    if level == "nominal":
        return 1.0 - np.eye(size)
    numeric = np.asarray(values, dtype=float)
    if level == "interval":
        return (numeric[:, None] - numeric[None, :]) ** 2
    if level == "ratio":
        total = numeric[:, None] + numeric[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            delta = np.where(total == 0, 0.0, (numeric[:, None] - numeric[None, :]) / total)
        return delta**2
    if level == "ordinal":
        # delta(c, k) = sum_{g=c..k} n_g - (n_c + n_k) / 2, over values ranked c <= g <= k
        cumulative = np.concatenate([[0.0], np.cumsum(marginals)])
        delta = np.zeros((size, size))
        for c in range(size):
            for k in range(size):
                low, high = min(c, k), max(c, k)
                delta[c, k] = (
                    cumulative[high + 1] - cumulative[low] - (marginals[c] + marginals[k]) / 2.0
                )
        return delta**2
    raise ValueError(f"unknown level {level!r}; use nominal, ordinal, interval or ratio")


def _pairable_units(
    rows: Iterable[tuple[Hashable, Hashable, object]], level: Level
) -> tuple[list[list], list]:
    """Units with >= 2 values (each a list of values) and the sorted distinct values."""
    values_by_unit: dict[Hashable, dict[Hashable, object]] = defaultdict(dict)
    for unit, rater, value in rows:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        seen = values_by_unit[unit]
        if rater in seen:
            raise ValueError(f"rater {rater!r} gives unit {unit!r} more than one value")
        seen[rater] = value
    pairable = [
        list(by_rater.values()) for by_rater in values_by_unit.values() if len(by_rater) >= 2
    ]
    if level == "nominal":
        distinct = sorted({v for unit in pairable for v in unit}, key=lambda v: (str(type(v)), v))
    else:
        pairable = [[float(v) for v in unit] for unit in pairable]  # type: ignore[arg-type]
        distinct = sorted({v for unit in pairable for v in unit})
    return pairable, distinct


def _value_counts(pairable: list[list], distinct: list) -> np.ndarray:
    """How many values of each unit are each distinct value: shape ``(units, values)``."""
    index = {value: i for i, value in enumerate(distinct)}
    counts = np.zeros((len(pairable), len(distinct)))
    units = np.repeat(np.arange(len(pairable)), [len(unit) for unit in pairable])
    np.add.at(counts, (units, [index[v] for unit in pairable for v in unit]), 1.0)
    return counts


def _unit_coincidences(pairable: list[list], distinct: list) -> np.ndarray:
    """Per-unit coincidence matrices, shape ``(units, values, values)``; their sum is ``o``.

    Own code, for the bootstrap: ``krippendorff.alpha`` returns the coefficient only (the
    units' coincidences are summed inside it), so each resample would rebuild every unit's
    matrix; here they are built once and a resample's ``o`` is their weighted sum."""
    index = {value: i for i, value in enumerate(distinct)}
    per_unit = np.zeros((len(pairable), len(distinct), len(distinct)))
    for u, unit in enumerate(pairable):
        m_u = len(unit)
        counts = Counter(index[v] for v in unit)
        for c, n_uc in counts.items():
            for k, n_uk in counts.items():
                pairs = n_uc * (n_uk - 1) if c == k else n_uc * n_uk
                per_unit[u, c, k] += pairs / (m_u - 1)
    return per_unit


def _alpha_from_coincidences(coincidences: np.ndarray, distinct: Sequence, level: Level) -> float:
    """Alpha from a coincidence matrix: a bootstrap resample's (``krippendorff.alpha`` takes
    units' value counts, not a summed matrix)."""
    marginals = coincidences.sum(axis=1)
    n_total = marginals.sum()
    if n_total <= 1.0:
        return float("nan")
    delta2 = _distance_matrix(distinct, marginals, level)
    observed = float(np.sum(coincidences * delta2))
    expected = float(np.sum(np.outer(marginals, marginals) * delta2)) / (n_total - 1.0)
    if expected == 0.0:
        return float("nan")
    return 1.0 - observed / expected


def krippendorff_alpha(
    rows: Iterable[tuple[Hashable, Hashable, object]],
    level: Level = "ordinal",
) -> float:
    """Krippendorff's alpha from long ``(unit, rater, value)`` rows (missing = absent row).

    Coincidence-matrix method (Krippendorff, "Computing Krippendorff's Alpha-Reliability",
    2011): only units with ``m_u >= 2`` values are pairable; each unit adds, for every
    ordered pair of its values taken from different raters, ``1 / (m_u - 1)`` to ``o[c, k]``.
    With ``n_c = sum_k o[c, k]`` and ``n = sum_c n_c``::

        alpha = 1 - D_o / D_e
        D_o   = sum_ck o[c, k] * delta^2(c, k) / n
        D_e   = sum_ck n_c * n_k * delta^2(c, k) / (n (n - 1))

    ``delta^2`` by ``level``: nominal ``[c != k]``; ordinal
    ``(sum_{g between c and k} n_g - (n_c + n_k) / 2)^2`` (ranks of the values that occur,
    weighted by their pairable frequencies); interval ``(c - k)^2``; ratio
    ``((c - k) / (c + k))^2``. Values ``None`` or NaN count as missing.

    Computed by ``krippendorff.alpha`` on the pairable units' value counts, the domain the
    sorted distinct values (for nominal data their positions: any hashable values).

    Returns:
        alpha (1 = perfect agreement, 0 = chance, < 0 = systematic disagreement), or NaN
        when undefined (no pairable unit, or no variation at all in the pairable values).
    """
    if level not in ("nominal", "ordinal", "interval", "ratio"):
        raise ValueError(f"unknown level {level!r}; use nominal, ordinal, interval or ratio")
    pairable, distinct = _pairable_units(rows, level)
    if not pairable or len(distinct) < 2:  # undefined (the package raises ValueError)
        return float("nan")
    domain = None if level == "nominal" else np.asarray(distinct, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):  # ratio: D_e may be 0 (c + k = 0)
        value = float(
            krippendorff.alpha(
                value_counts=_value_counts(pairable, distinct),
                value_domain=domain,
                level_of_measurement=level,
            )
        )
    return value if math.isfinite(value) else float("nan")


# ---------------------------------------------------------------------------------------
# Agreement: bootstrap intervals over units
# ---------------------------------------------------------------------------------------


def _check_bootstrap_args(n_samples: int, confidence: float) -> None:
    if n_samples < 1:
        raise ValueError("n_samples must be at least 1")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")


def _unit_weights(n_units: int, n_samples: int, seed: int) -> np.ndarray:
    """How often each unit is drawn in each resample: shape ``(n_samples, n_units)``.

    Resample ``s`` draws ``n_units`` unit indices with replacement as
    ``numpy.random.default_rng(seed).integers(0, n_units, size=n_units)`` (the s-th such
    call on one generator); a unit drawn twice enters twice, with all its ratings.
    """
    return np.concatenate(list(_unit_weight_blocks(n_units, n_samples, seed)))


#: Resamples whose weights are held at once (a multiple of BLAS kernels' row unrolling, so
#: each block's products are the very rows of the whole matrix's products).
WEIGHT_BLOCK = 128


def _unit_weight_blocks(
    n_units: int, n_samples: int, seed: int, block: int = WEIGHT_BLOCK
) -> Iterator[np.ndarray]:
    """The rows of :func:`_unit_weights`, ``block`` resamples at a time (memory: ``block x
    n_units`` rather than ``n_samples x n_units``)."""
    rng = np.random.default_rng(seed)
    for start in range(0, n_samples, block):
        weights = np.zeros((min(block, n_samples - start), n_units))
        for s in range(weights.shape[0]):
            weights[s] = np.bincount(rng.integers(0, n_units, size=n_units), minlength=n_units)
        yield weights


def _percentile_interval(replicates: np.ndarray, confidence: float) -> tuple[float, float]:
    valid = replicates[~np.isnan(replicates)]
    if valid.size == 0:
        return float("nan"), float("nan")
    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(valid, [tail, 100.0 - tail])
    return float(low), float(high)


def fleiss_kappa_bootstrap(
    table: np.ndarray | Sequence[Sequence[float]],
    n_samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval for :func:`fleiss_kappa`, resampling items.

    The resampling unit is the item (a row of ``table``: one turn with all its annotators'
    labels), never a single label: ``n_samples`` resamples of the items with replacement,
    each the size of the original (drawn as in :func:`_unit_weights`), kappa recomputed on
    each exactly as :func:`fleiss_kappa` would on the resampled table. Resamples where
    kappa is undefined (e.g. every label in one category) are dropped; the interval is the
    ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles (numpy's linear
    interpolation) of the rest -- the plain percentile method, no bias correction.

    Returns:
        ``(low, high)``; ``(nan, nan)`` when no resample gives a defined kappa.
    """
    _check_bootstrap_args(n_samples, confidence)
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2:
        raise ValueError("table must be a 2-D items x categories matrix")
    n_i = counts.sum(axis=1)
    counts, n_i = counts[n_i >= 2], n_i[n_i >= 2]
    if counts.shape[0] == 0:
        return float("nan"), float("nan")
    p_item = (np.sum(counts**2, axis=1) - n_i) / (n_i * (n_i - 1.0))
    parts = []
    for weights in _unit_weight_blocks(counts.shape[0], n_samples, seed):
        p_bar = weights @ p_item / weights.sum(axis=1)
        p_category = (weights @ counts) / (weights @ n_i)[:, None]
        p_expected = np.sum(p_category**2, axis=1)
        undefined = np.isclose(p_expected, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            parts.append(np.where(undefined, np.nan, (p_bar - p_expected) / (1.0 - p_expected)))
    return _percentile_interval(np.concatenate(parts), confidence)


def krippendorff_alpha_bootstrap(
    rows: Iterable[tuple[Hashable, Hashable, object]],
    level: Level = "ordinal",
    n_samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval for :func:`krippendorff_alpha`, resampling units.

    The resampling unit is the rated unit with all its values (its pairable coincidences),
    never a single rating: ``n_samples`` resamples of the pairable units with replacement,
    each the size of the original (drawn as in :func:`_unit_weights`); alpha is recomputed
    on each resample's coincidence matrix (for the ordinal metric with the resample's own
    marginals), which equals :func:`krippendorff_alpha` on the resampled units. Undefined
    resamples (no variation) are dropped; percentile interval as in
    :func:`fleiss_kappa_bootstrap`.

    Returns:
        ``(low, high)``; ``(nan, nan)`` when no resample gives a defined alpha.
    """
    _check_bootstrap_args(n_samples, confidence)
    if level not in ("nominal", "ordinal", "interval", "ratio"):
        raise ValueError(f"unknown level {level!r}; use nominal, ordinal, interval or ratio")
    pairable, distinct = _pairable_units(rows, level)
    if not pairable:
        return float("nan"), float("nan")
    per_unit = _unit_coincidences(pairable, distinct)
    size = len(distinct)
    flat = per_unit.reshape(len(pairable), size * size)
    replicates = []
    for weights in _unit_weight_blocks(len(pairable), n_samples, seed):
        resampled = (weights @ flat).reshape(weights.shape[0], size, size)
        replicates.extend(_alpha_from_coincidences(matrix, distinct, level) for matrix in resampled)
    return _percentile_interval(np.array(replicates), confidence)
