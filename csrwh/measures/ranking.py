"""Pairwise ranking of systems from battles (``crs_leaderboard``).

Pure functions over plain Python iterables and numpy arrays: no I/O, no database access,
deterministic for a given input (and seed, where randomness is involved).

* :func:`elo_ratings` -- sequential Elo, exactly as the CRSArena-Dial analysis notebook
  (``tool/analysis.ipynb``, itself taken from FastChat's ``compute_elo``).
* :func:`bradley_terry` -- order-free, ridge-penalised maximum-likelihood Bradley-Terry
  strengths on the same (Elo-like) scale.
* :func:`bradley_terry_bootstrap` -- percentile confidence intervals for those strengths.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Literal

import numpy as np

__all__ = [
    "BT_DEFAULT_L2",
    "Battle",
    "Outcome",
    "bradley_terry",
    "bradley_terry_bootstrap",
    "elo_ratings",
]

Outcome = Literal["a", "b", "tie"]
"""Result of a battle from system_a's point of view: ``a`` won, ``b`` won, or a tie."""

Battle = tuple[str, str, str]
"""One pairwise comparison: ``(system_a, system_b, winner)`` with winner in ``a``/``b``/``tie``."""

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
_blas_limits: list[object] = []


def scipy_blas() -> object:
    """A threadpoolctl controller of the OpenBLAS that scipy's wheels bundle
    (``scipy.libs/libscipy_openblas*``) among the libraries this process has loaded; it controls
    nothing where there is none (another platform or build). numpy's own OpenBLAS (same prefix,
    under ``numpy.libs``) is left out, so other threads' numpy work is untouched."""
    from threadpoolctl import ThreadpoolController

    controller = ThreadpoolController()
    scipy_own = [
        lib["filepath"]
        for lib in controller.info()
        if lib["internal_api"] == "openblas" and "scipy.libs" in lib["filepath"]
    ]
    return controller.select(filepath=scipy_own)


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """Run scipy's L-BFGS-B with its OpenBLAS on one thread (restored after; threadpoolctl).

    The fits are tiny (a few systems), but each L-BFGS-B step calls OpenBLAS, whose worker
    threads then wake and spin: on a machine with busy cores that made every step take
    milliseconds instead of microseconds (the leaderboard's bootstrap: ~30 s instead of
    ~1 s). At these sizes OpenBLAS computes on one thread either way, so the results are
    the same bits; only the hand-off goes. Nested and concurrent callers share one limit."""
    global _blas_users
    if os.environ.get("OPENBLAS_NUM_THREADS") == "1":
        # OpenBLAS started on one thread (the dbt child is started so): nothing to pin, and no
        # scan of the loaded libraries, which from a worker thread can deadlock against another
        # thread's import of a C extension (dl_iterate_phdr's lock against the GIL)
        yield
        return
    # scipy's OpenBLAS is loaded with scipy.optimize: load it first, so that there is one to pin
    from scipy.optimize import minimize  # noqa: F401

    with _BLAS_LOCK:
        if _blas_users == 0:
            _blas_limits[:] = [scipy_blas().limit(limits=1)]
        _blas_users += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _blas_users -= 1
            if _blas_users == 0:
                for limit in _blas_limits:
                    limit.restore_original_limits()
                _blas_limits.clear()


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
