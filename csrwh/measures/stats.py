"""The statistics the report marts, figures and report use, in one import.

Each job has its own module; this one only gathers their public functions so callers
(``from csrwh.measures.stats import mean_interval``) need not know which:

* :mod:`csrwh.measures.ranking` -- Elo and Bradley-Terry strengths (``crs_leaderboard``);
* :mod:`csrwh.measures.agreement` -- Fleiss' kappa, Krippendorff's alpha and their bootstrap
  intervals (``annotator_agreement``);
* :mod:`csrwh.measures.distributions` -- correlations and t / Wilson intervals, from numpy,
  polars and ``scipy.special`` (imported on first use).

The Python models name the module they depend on (``code_version(modules=...)``), not this one.
"""

from __future__ import annotations

from csrwh.measures.agreement import (
    Level,
    fleiss_kappa,
    fleiss_kappa_bootstrap,
    fleiss_table,
    krippendorff_alpha,
    krippendorff_alpha_bootstrap,
)
from csrwh.measures.distributions import (
    mean_interval,
    pearson,
    spearman,
    t_quantile,
    wilson_interval,
)
from csrwh.measures.ranking import (
    BT_DEFAULT_L2,
    Battle,
    Outcome,
    bradley_terry,
    bradley_terry_bootstrap,
    elo_ratings,
)

__all__ = [
    "BT_DEFAULT_L2",
    "Battle",
    "Level",
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
