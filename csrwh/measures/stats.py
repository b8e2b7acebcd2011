"""Pairwise-ranking and inter-annotator-agreement statistics used by the report marts.

Pure functions over plain Python iterables and numpy arrays: no I/O, no database access,
deterministic for a given input (and seed, where randomness is involved).

Ranking (``crs_leaderboard``)
    * :func:`elo_ratings` -- sequential Elo, exactly as the CRSArena-Dial analysis notebook
      (``tool/analysis.ipynb``, itself taken from FastChat's ``compute_elo``).
    * :func:`bradley_terry` -- order-free, ridge-penalised maximum-likelihood Bradley-Terry
      strengths on the same (Elo-like) scale.
    * :func:`bradley_terry_bootstrap` -- percentile confidence intervals for those strengths.

Correlations and intervals (the report's tables and plots; no scipy, whose import alone
costs the report a second)
    * :func:`pearson` / :func:`spearman` -- correlation coefficients (Spearman with average
      ranks for ties).
    * :func:`t_quantile` -- quantiles of Student's t distribution.
    * :func:`mean_interval` -- the t interval of a mean from its sd and n.
    * :func:`wilson_interval` -- Wilson's score interval of a proportion.

Agreement (``annotator_agreement``)
    * :func:`fleiss_kappa` / :func:`fleiss_table` -- Fleiss' kappa for nominal labels, in the
      generalisation that allows a different number of raters per item.
    * :func:`krippendorff_alpha` -- Krippendorff's alpha (nominal, ordinal, interval, ratio)
      by the coincidence-matrix method, tolerating missing values.
    * :func:`fleiss_kappa_bootstrap` / :func:`krippendorff_alpha_bootstrap` -- percentile
      bootstrap intervals for both, resampling the rated units (items, turns) with all of
      their ratings, never single ratings.
"""

from __future__ import annotations

import ctypes
import math
import threading
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from statistics import NormalDist
from typing import Literal

import numpy as np

__all__ = [
    "Battle",
    "Outcome",
    "bradley_terry",
    "bradley_terry_bootstrap",
    "elo_ratings",
    "fleiss_kappa",
    "fleiss_kappa_bootstrap",
    "fleiss_table",
    "krippendorff_alpha",
    "krippendorff_alpha_bootstrap",
    "mean_interval",
    "pearson",
    "spearman",
    "t_quantile",
    "wilson_interval",
]

Outcome = Literal["a", "b", "tie"]
"""Result of a battle from system_a's point of view: ``a`` won, ``b`` won, or a tie."""

Battle = tuple[str, str, str]
"""One pairwise comparison: ``(system_a, system_b, winner)`` with winner in ``a``/``b``/``tie``."""

Level = Literal["nominal", "ordinal", "interval", "ratio"]

_SCORE_A: dict[str, float] = {"a": 1.0, "b": 0.0, "tie": 0.5}
_LOG10 = math.log(10.0)

#: Default ridge penalty of :func:`bradley_terry` (on natural-log strengths).
BT_DEFAULT_L2 = 0.1


# ---------------------------------------------------------------------------------------
# Battles
# ---------------------------------------------------------------------------------------


def _validated_battles(battles: Iterable[Sequence[str]]) -> list[Battle]:
    """Materialise ``battles`` as a list of ``(a, b, winner)`` tuples, checking each one."""
    out: list[Battle] = []
    for position, battle in enumerate(battles):
        system_a, system_b, winner = battle
        if winner not in _SCORE_A:
            raise ValueError(f"battle {position}: winner must be 'a', 'b' or 'tie', got {winner!r}")
        if system_a == system_b:
            raise ValueError(f"battle {position}: a system cannot battle itself ({system_a!r})")
        out.append((system_a, system_b, winner))
    return out


def elo_ratings(
    battles: Iterable[Sequence[str]],
    initial: float = 1000.0,
    k: float = 16.0,
    base: float = 10.0,
    scale: float = 400.0,
) -> dict[str, float]:
    """Sequential Elo ratings, applying ``battles`` one by one in the order given.

    This is the CRSArena-Dial analysis (``compute_elo_ratings`` in the dataset's
    ``tool/analysis.ipynb``, taken from FastChat): every system starts at ``initial``; for a
    battle between A (rating ``ra``) and B (``rb``)::

        ea = 1 / (1 + base ** ((rb - ra) / scale))
        eb = 1 / (1 + base ** ((ra - rb) / scale))
        sa = 1 (A wins) | 0 (B wins) | 0.5 (tie)
        ra <- ra + k * (sa - ea)
        rb <- rb + k * (1 - sa - eb)

    With the dataset's settings (initial 1000, K 16, base 10, scale 400) this reproduces the
    published open/closed/global ratings to the rounded digit when fed the vote files in file
    order (global: open file then closed file), duplicates included.

    Args:
        battles: ``(system_a, system_b, winner)`` with winner ``'a'``, ``'b'`` or ``'tie'``;
            order matters.
        initial: starting rating of every system.
        k: K-factor (maximum change per battle).
        base: base of the logistic expected-score curve.
        scale: rating difference at which the expected-score odds are ``base`` to 1.

    Returns:
        Rating per system, in order of first appearance. Systems never seen are absent.
    """
    ratings: dict[str, float] = {}
    for system_a, system_b, winner in _validated_battles(battles):
        ra = ratings.setdefault(system_a, float(initial))
        rb = ratings.setdefault(system_b, float(initial))
        ea = 1.0 / (1.0 + base ** ((rb - ra) / scale))
        eb = 1.0 / (1.0 + base ** ((ra - rb) / scale))
        sa = _SCORE_A[winner]
        ratings[system_a] = ra + k * (sa - ea)
        ratings[system_b] = rb + k * (1.0 - sa - eb)
    return ratings


def _win_matrix(battles: Sequence[Battle], systems: Sequence[str]) -> np.ndarray:
    """``w[i, j]`` = wins of system i over system j, a tie counting half a win for each."""
    index = {system: i for i, system in enumerate(systems)}
    wins = np.zeros((len(systems), len(systems)))
    for system_a, system_b, winner in battles:
        i, j = index[system_a], index[system_b]
        score = _SCORE_A[winner]
        wins[i, j] += score
        wins[j, i] += 1.0 - score
    return wins


_BLAS_LOCK = threading.Lock()
_blas_users = 0
_blas_saved: list[tuple[object, int]] = []


def _scipy_openblas_threads() -> list[tuple[object, object]]:
    """``(get, set)`` thread-count functions of the OpenBLAS that scipy's wheels bundle
    (``scipy.libs/libscipy_openblas*``), found among the libraries this process has loaded;
    empty where there is none (another platform or build: nothing is changed there)."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = sorted(
                {line.split()[-1] for line in maps if "scipy.libs" in line and "openblas" in line}
            )
    except OSError:
        return []
    controls = []
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            get = getattr(library, f"{prefix}_get_num_threads", None)
            put = getattr(library, f"{prefix}_set_num_threads", None)
            if get is not None and put is not None:
                put.argtypes, put.restype = [ctypes.c_int], None
                get.argtypes, get.restype = [], ctypes.c_int
                controls.append((get, put))
                break
    return controls


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """Run scipy's L-BFGS-B with its OpenBLAS on one thread (restored after).

    The fits are tiny (a few systems), but each L-BFGS-B step calls OpenBLAS, whose worker
    threads then wake and spin: on a machine with busy cores that made every step take
    milliseconds instead of microseconds (the leaderboard's bootstrap: ~30 s instead of
    ~1 s). At these sizes OpenBLAS computes on one thread either way, so the results are
    the same bits; only the hand-off goes. Only scipy's own bundled OpenBLAS is set, not
    numpy's, so other threads' numpy work is untouched."""
    global _blas_users
    with _BLAS_LOCK:
        if _blas_users == 0:
            controls = _scipy_openblas_threads()
            _blas_saved[:] = [(put, get()) for get, put in controls]
            for put, _ in _blas_saved:
                put(1)
        _blas_users += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _blas_users -= 1
            if _blas_users == 0:
                for put, threads in _blas_saved:
                    put(threads)
                _blas_saved.clear()


def _fit_log_strengths(wins: np.ndarray, l2: float) -> np.ndarray:
    """Maximise the penalised Bradley-Terry log-likelihood; return centred log strengths."""
    from scipy.optimize import minimize  # here, not at import: the report imports this module

    n_systems = wins.shape[0]
    if n_systems == 0:
        return np.zeros(0)
    pair_totals = wins + wins.T

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        diff = theta[:, None] - theta[None, :]
        # log sigma(diff) computed stably; p = sigma(diff) = P(i beats j)
        log_p = -np.logaddexp(0.0, -diff)
        p = np.exp(log_p)
        loss = -float(np.sum(wins * log_p)) + 0.5 * l2 * float(theta @ theta)
        # d/dtheta_i of -sum_ij w_ij log sigma(t_i - t_j) = -sum_j [w_ij - (w_ij + w_ji) p_ij]
        grad = -np.sum(wins - pair_totals * p, axis=1) + l2 * theta
        return loss, grad

    with _one_blas_thread():
        result = minimize(
            objective,
            x0=np.zeros(n_systems),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": 2000, "gtol": 1e-10, "ftol": 1e-15},
        )
    theta = np.asarray(result.x, dtype=float)
    return theta - theta.mean()


def bradley_terry(
    battles: Iterable[Sequence[str]],
    systems: Iterable[str] | None = None,
    l2: float = BT_DEFAULT_L2,
    initial: float = 1000.0,
    scale: float = 400.0,
) -> dict[str, float]:
    """Order-free Bradley-Terry strengths on an Elo-like scale.

    Model: ``P(i beats j) = p_i / (p_i + p_j) = sigmoid(theta_i - theta_j)`` with
    ``theta = ln p``. A tie counts as half a win for each side (so a tie between i and j
    contributes ``0.5 * log P(i>j) + 0.5 * log P(j>i)``, the usual "ties as half wins"
    treatment, as in Elo). The log strengths maximise

        sum_ij w_ij * log sigmoid(theta_i - theta_j)  -  (l2 / 2) * sum_i theta_i^2

    where ``w_ij`` is the (fractional) number of wins of i over j. The ridge term is a weak
    zero-mean Gaussian prior (standard deviation ``1/sqrt(l2)`` on the log-odds scale): it
    keeps a system with only wins or only losses finite and makes the solution unique even
    when the comparison graph is not connected; with ``l2 = 0.1`` it shrinks well-observed
    systems only slightly. Set ``l2=0`` for the plain MLE (then every system needs at least
    one win and one loss and the graph must be connected).

    The result is reported as ``initial + scale * log10(p_i / geometric_mean(p))``, i.e.
    centred on ``initial`` with Elo's 400-points-per-factor-10 scale, so a 400-point gap
    means 10:1 odds, as in :func:`elo_ratings`.

    Args:
        battles: ``(system_a, system_b, winner)``; order does not matter.
        systems: optional systems to include even without battles (they get ``initial``
            only through the prior; callers usually leave them out).
        l2: ridge penalty on the natural-log strengths (> 0 recommended).
        initial: the scale's centre (the geometric-mean system).
        scale: points per factor of 10 in odds.

    Returns:
        Strength per system, systems sorted by name.
    """
    checked = _validated_battles(battles)
    names = {name for battle in checked for name in battle[:2]}
    if systems is not None:
        names.update(systems)
    ordered = sorted(names)
    theta = _fit_log_strengths(_win_matrix(checked, ordered), l2)
    return {
        name: initial + scale * value / _LOG10 for name, value in zip(ordered, theta, strict=True)
    }


def bradley_terry_bootstrap(
    battles: Iterable[Sequence[str]],
    n_samples: int = 200,
    seed: int = 0,
    confidence: float = 0.95,
    l2: float = BT_DEFAULT_L2,
    initial: float = 1000.0,
    scale: float = 400.0,
) -> dict[str, tuple[float, float]]:
    """Percentile bootstrap intervals for :func:`bradley_terry` strengths.

    Draws ``n_samples`` resamples of the battles (with replacement, same size as the
    input) using ``numpy.random.default_rng(seed)``, refits Bradley-Terry on each and
    returns the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles
    (linear interpolation) of each system's strength. A system missing from a resample has
    no estimate in it; its interval uses the resamples where it appears. Deterministic for
    a given ``battles`` order and ``seed``.

    Returns:
        ``(low, high)`` per system seen in ``battles`` (sorted by name); empty input gives
        an empty dict.
    """
    checked = _validated_battles(battles)
    if n_samples < 1:
        raise ValueError("n_samples must be at least 1")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    ordered = sorted({name for battle in checked for name in battle[:2]})
    if not checked:
        return {}
    rng = np.random.default_rng(seed)
    samples = np.full((n_samples, len(ordered)), np.nan)
    n_systems, n_battles = len(ordered), len(checked)
    # each battle as a cell of the win matrix and its transpose: a resample's matrix is then
    # its battle counts summed per cell -- halves and whole numbers, so exactly the sums
    # _win_matrix makes battle by battle, in any order
    column = {name: i for i, name in enumerate(ordered)}
    a = np.fromiter((column[battle[0]] for battle in checked), dtype=np.int64, count=n_battles)
    b = np.fromiter((column[battle[1]] for battle in checked), dtype=np.int64, count=n_battles)
    score = np.fromiter(
        (_SCORE_A[battle[2]] for battle in checked), dtype=np.float64, count=n_battles
    )
    cells = np.concatenate([a * n_systems + b, b * n_systems + a])
    with _one_blas_thread():
        for s in range(n_samples):
            picks = rng.integers(0, n_battles, size=n_battles)
            drawn = np.bincount(picks, minlength=n_battles).astype(np.float64)
            wins = np.bincount(
                cells,
                weights=np.concatenate([drawn * score, drawn * (1.0 - score)]),
                minlength=n_systems * n_systems,
            ).reshape(n_systems, n_systems)
            # bradley_terry(resample): the systems of the resample, in name order
            present = np.flatnonzero((wins + wins.T).sum(axis=1) > 0)
            theta = _fit_log_strengths(wins[np.ix_(present, present)], l2)
            for i, value in zip(present.tolist(), theta, strict=True):
                samples[s, i] = initial + scale * value / _LOG10
    tail = 100.0 * (1.0 - confidence) / 2.0
    low = np.nanpercentile(samples, tail, axis=0)
    high = np.nanpercentile(samples, 100.0 - tail, axis=0)
    return {name: (float(low[i]), float(high[i])) for i, name in enumerate(ordered)}


# ---------------------------------------------------------------------------------------
# Agreement
# ---------------------------------------------------------------------------------------


def fleiss_kappa(table: np.ndarray | Sequence[Sequence[float]]) -> float:
    """Fleiss' kappa from an items x categories count matrix.

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


def _unit_coincidences(pairable: list[list], distinct: list) -> np.ndarray:
    """Per-unit coincidence matrices, shape ``(units, values, values)``; their sum is ``o``."""
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

    Returns:
        alpha (1 = perfect agreement, 0 = chance, < 0 = systematic disagreement), or NaN
        when undefined (no pairable unit, or no variation at all in the pairable values).
    """
    if level not in ("nominal", "ordinal", "interval", "ratio"):
        raise ValueError(f"unknown level {level!r}; use nominal, ordinal, interval or ratio")
    pairable, distinct = _pairable_units(rows, level)
    if not pairable:
        return float("nan")
    coincidences = _unit_coincidences(pairable, distinct).sum(axis=0)
    return _alpha_from_coincidences(coincidences, distinct, level)


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


# ---------------------------------------------------------------------------------------
# Correlations and intervals
# ---------------------------------------------------------------------------------------


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
    """Pearson's correlation coefficient of paired values; None when undefined (fewer than
    three pairs or a constant side)."""
    pair = _paired(x, y)
    if pair is None:
        return None
    a, b = pair[0] - pair[0].mean(), pair[1] - pair[1].mean()
    return float(np.clip(np.dot(a, b) / math.sqrt(np.dot(a, a) * np.dot(b, b)), -1.0, 1.0))


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing the mean of the ranks they span."""
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(values.size)
    ordered = values[order]
    start = 0
    for end in range(1, values.size + 1):
        if end == values.size or ordered[end] != ordered[start]:
            ranks[order[start:end]] = (start + end + 1) / 2.0  # mean of start+1 .. end
            start = end
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation (Pearson's on average ranks, so ties are handled as
    scipy's ``spearmanr`` does); None when undefined."""
    pair = _paired(x, y)
    if pair is None:
        return None
    return pearson(_average_ranks(pair[0]), _average_ranks(pair[1]))


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def _regularized_beta(a: float, b: float, x: float) -> float:
    """``I_x(a, b)``, the regularized incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def _t_cdf(t: float, df: float) -> float:
    tail = 0.5 * _regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def _t_pdf(t: float, df: float) -> float:
    log_norm = math.lgamma((df + 1.0) / 2.0) - math.lgamma(df / 2.0) - 0.5 * math.log(df * math.pi)
    return math.exp(log_norm - (df + 1.0) / 2.0 * math.log1p(t * t / df))


@lru_cache(maxsize=1024)
def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t distribution with ``df`` degrees of freedom.

    Solves ``F(t) = p`` for the distribution function ``F(t) = 1 - I_{df/(df+t^2)}(df/2, 1/2) / 2``
    (t > 0; the regularized incomplete beta by its continued fraction) by Newton's method from
    the normal quantile, kept inside a bracket that bisection narrows whenever a Newton step
    would leave it, to a relative 1e-13: e.g. ``t_quantile(0.975, 10)`` = 2.228139 (tables:
    2.228)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if not df > 0:
        raise ValueError("df must be positive")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while _t_cdf(high, df) < p:
        low, high = high, high * 2.0
    t = min(max(NormalDist().inv_cdf(p), low), high)
    for _ in range(200):
        error = _t_cdf(t, df) - p
        if error > 0:
            high = t
        else:
            low = t
        step = error / _t_pdf(t, df)
        candidate = t - step
        if not low < candidate < high:
            candidate = (low + high) / 2.0
        if abs(candidate - t) <= 1e-13 * candidate or high - low <= 1e-13 * high:
            return candidate
        t = candidate
    return t


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
    z = NormalDist().inv_cdf((1.0 + confidence) / 2.0)
    share = successes / n
    denominator = 1.0 + z * z / n
    centre = (share + z * z / (2.0 * n)) / denominator
    half = z * math.sqrt(share * (1.0 - share) / n + z * z / (4.0 * n * n)) / denominator
    # exactly 0 (1) at no (all) successes, where the two terms cancel up to rounding
    low = 0.0 if successes == 0 else max(centre - half, 0.0)
    high = 1.0 if successes == n else min(centre + half, 1.0)
    return low, high
