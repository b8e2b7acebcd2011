"""Inter-annotator agreement: one row per (corpus, subject, measure).

* ``intent:<label_scheme>`` / ``fleiss_kappa`` -- from the ``intents`` mart: human labels
  (``source = 'human'``) marked ``is_primary``. The unit is a turn
  ``(conversation_id, turn_index)``; each annotator contributes one category per unit:
  the sorted set of that annotator's ``raw_label`` values on the turn joined with ``+``
  (CoSRec annotators may give several intent types to one utterance; such a set is its
  own category, e.g. ``product_details+search``). Only turns with at least two
  annotators count. Kappa uses Fleiss' formula generalised to a varying number of
  annotators per turn (see ``csrwh.stats.fleiss_kappa``).
* ``quality:<aspect>`` / ``krippendorff_alpha`` -- from the ``ratings`` mart, ordinal
  metric. The unit is ``(conversation_id, turn_index, item_id)`` (NULLs matching NULLs:
  conversation-level ratings are one unit per conversation); a rater is
  ``(rater_kind, rater_id)``. Only units with at least two distinct raters count, whatever
  the rater kind (in practice the CoSRec crowd quality ratings; single-rater user, agent
  and LLM ratings drop out). Raters are pooled across kinds within an aspect.

Measures that are undefined (no unit with two raters, or no variation at all) produce no
row.

Uncertainty: ``ci_low`` / ``ci_high`` are a percentile bootstrap 95 % interval of each
measure (``csrwh.stats.fleiss_kappa_bootstrap`` / ``krippendorff_alpha_bootstrap``): the
resampling units are the rated units that enter the measure (turns for intents, rated units
for ratings), drawn with replacement together with all their ratings,
``var('agreement_bootstrap_samples')`` times with seed ``var('agreement_bootstrap_seed')``
(passed in as config); the interval is the 2.5th and 97.5th percentiles of the resampled
coefficients (resamples where the coefficient is undefined are left out; NULL if all are).
"""

from __future__ import annotations

import math

import pandas as pd

from csrwh.stats import (
    fleiss_kappa,
    fleiss_kappa_bootstrap,
    fleiss_table,
    krippendorff_alpha,
    krippendorff_alpha_bootstrap,
)

COLUMNS = [
    "corpus",
    "subject",
    "measure",
    "value",
    "ci_low",
    "ci_high",
    "n_units",
    "n_raters_mean",
    "n_ratings",
]

#: Defaults of the dbt vars agreement_bootstrap_samples / agreement_bootstrap_seed.
DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 20250101
CONFIDENCE = 0.95


def _none_for_null(column: pd.Series) -> pd.Series:
    """The column as Python objects, every NULL (NaN, NA, None) as ``None`` (hashable)."""
    return column.astype("object").where(column.notna(), None)


def _interval(low: float, high: float) -> dict:
    """The interval's columns; NULL (None) when no resample gave a defined coefficient."""
    if math.isnan(low) or math.isnan(high):
        return {"ci_low": None, "ci_high": None}
    return {"ci_low": float(low), "ci_high": float(high)}


def intent_agreement(
    intents: pd.DataFrame, n_samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED
) -> list[dict]:
    """Fleiss' kappa (and its bootstrap interval) per (corpus, label_scheme) on primary
    human intent labels."""
    human = intents[
        (intents["source"] == "human") & intents["is_primary"].fillna(False).astype(bool)
    ]
    # a label not placed on a turn (NULL turn_index) has no unit to agree on
    human = human.dropna(subset=["raw_label", "annotator", "turn_index"])
    per_annotator = (
        human.groupby(
            ["corpus", "label_scheme", "conversation_id", "turn_index", "annotator"], dropna=False
        )["raw_label"]
        .agg(lambda labels: "+".join(sorted(set(labels))))
        .reset_index(name="category")
    )
    rows = []
    for (corpus, label_scheme), group in per_annotator.groupby(
        ["corpus", "label_scheme"], sort=True
    ):
        table, _, _ = fleiss_table(
            zip(
                zip(group["conversation_id"], group["turn_index"], strict=True),
                group["annotator"],
                group["category"],
                strict=True,
            ),
            min_raters=2,
        )
        if table.shape[0] == 0:
            continue
        value = fleiss_kappa(table)
        if math.isnan(value):
            continue
        raters_per_unit = table.sum(axis=1)
        rows.append(
            {
                "corpus": corpus,
                "subject": f"intent:{label_scheme}",
                "measure": "fleiss_kappa",
                "value": float(value),
                **_interval(*fleiss_kappa_bootstrap(table, n_samples, seed, CONFIDENCE)),
                "n_units": int(table.shape[0]),
                "n_raters_mean": float(raters_per_unit.mean()),
                "n_ratings": int(raters_per_unit.sum()),
            }
        )
    return rows


def rating_agreement(
    ratings: pd.DataFrame, n_samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED
) -> list[dict]:
    """Krippendorff's alpha (ordinal, and its bootstrap interval) per (corpus, aspect) on
    units with >= 2 raters."""
    rated = ratings.dropna(subset=["value"]).copy()
    # one key per unit; NULL turn/item are part of the key (conversation-level ratings)
    rated["unit"] = list(
        zip(
            rated["conversation_id"],
            _none_for_null(rated["turn_index"]),
            _none_for_null(rated["item_id"]),
            strict=True,
        )
    )
    rated["rater"] = list(zip(rated["rater_kind"], _none_for_null(rated["rater_id"]), strict=True))
    rows = []
    for (corpus, aspect), group in rated.groupby(["corpus", "aspect"], sort=True):
        raters_per_unit = group.groupby("unit")["rater"].nunique()
        pairable = group[group["unit"].map(raters_per_unit) >= 2]
        if pairable.empty:
            continue
        rows_of_units = list(
            zip(pairable["unit"], pairable["rater"], pairable["value"].astype(float), strict=True)
        )
        value = krippendorff_alpha(rows_of_units, level="ordinal")
        if math.isnan(value):
            continue
        interval = krippendorff_alpha_bootstrap(
            rows_of_units, "ordinal", n_samples, seed, CONFIDENCE
        )
        counts = pairable.groupby("unit").size()
        rows.append(
            {
                "corpus": corpus,
                "subject": f"quality:{aspect}",
                "measure": "krippendorff_alpha",
                "value": float(value),
                **_interval(*interval),
                "n_units": int(counts.shape[0]),
                "n_raters_mean": float(counts.mean()),
                "n_ratings": int(counts.sum()),
            }
        )
    return rows


def build_agreement(
    intents: pd.DataFrame,
    ratings: pd.DataFrame,
    n_samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """The agreement frame from the ``intents`` and ``ratings`` marts."""
    rows = intent_agreement(intents, n_samples, seed) + rating_agreement(ratings, n_samples, seed)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame = frame.astype(
        {
            "corpus": "object",
            "subject": "object",
            "measure": "object",
            "value": "float64",
            "ci_low": "float64",
            "ci_high": "float64",
            "n_units": "int64",
            "n_raters_mean": "float64",
            "n_ratings": "int64",
        }
    )
    return frame.sort_values(["corpus", "subject", "measure"], ignore_index=True)


def model(dbt, session):
    dbt.config(materialized="table")
    n_samples = int(dbt.config.get("agreement_bootstrap_samples"))
    seed = int(dbt.config.get("agreement_bootstrap_seed"))
    intents = dbt.ref("intents").df()
    ratings = dbt.ref("ratings").df()
    return build_agreement(intents, ratings, n_samples, seed)
