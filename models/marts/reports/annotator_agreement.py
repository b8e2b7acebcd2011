"""Inter-annotator agreement: one row per (corpus, subject, measure).

Fleiss' kappa of the human intent labels (``intents``) and Krippendorff's alpha (ordinal) of the
quality ratings (``ratings``), per corpus, subset and label, each with a percentile bootstrap 95 %
interval. Measures that are undefined produce no row.
Details: docs/internals.md#models-marts-reports-annotator_agreement
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa

from csrwh.measures.stats import (
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

#: The mart's column types, explicit so that an empty frame (no corpus with two annotators of
#: one unit, e.g. a data folder holding only custom corpora) still lands typed, not as NULLs.
SCHEMA = pa.schema(
    [
        ("corpus", pa.string()),
        ("subject", pa.string()),
        ("measure", pa.string()),
        ("value", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("n_units", pa.int64()),
        ("n_raters_mean", pa.float64()),
        ("n_ratings", pa.int64()),
    ]
)

#: Defaults of the dbt vars agreement_bootstrap_samples / agreement_bootstrap_seed.
DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 20250101
CONFIDENCE = 0.95
#: Separates a subject from its scope: ``intent:<scheme>|subset:<subset>``.
SCOPE_SEPARATOR = "|"


def scoped(subject: str, scope: str, value: str) -> str:
    """The subject of a subset or label row, e.g. ``quality:fluency|subset:crowd``."""
    return f"{subject}{SCOPE_SEPARATOR}{scope}:{value}"


def _none_for_null(column: pd.Series) -> pd.Series:
    """The column as Python objects, every NULL (NaN, NA, None) as ``None`` (hashable)."""
    return column.astype("object").where(column.notna(), None)


def _interval(low: float, high: float) -> dict:
    """The interval's columns; NULL (None) when no resample gave a defined coefficient."""
    if math.isnan(low) or math.isnan(high):
        return {"ci_low": None, "ci_high": None}
    return {"ci_low": float(low), "ci_high": float(high)}


def _subsets(conversations: pd.DataFrame | None) -> dict[str, str]:
    if conversations is None or conversations.empty:
        return {}
    return dict(zip(conversations["conversation_id"], conversations["subset"], strict=True))


def _kappa_row(
    corpus: str, subject: str, table: np.ndarray, n_samples: int, seed: int
) -> dict | None:
    """A kappa row for a units x categories table, or None when kappa is undefined."""
    if table.shape[0] == 0:
        return None
    value = fleiss_kappa(table)
    if math.isnan(value):
        return None
    raters_per_unit = table.sum(axis=1)
    return {
        "corpus": corpus,
        "subject": subject,
        "measure": "fleiss_kappa",
        "value": float(value),
        **_interval(*fleiss_kappa_bootstrap(table, n_samples, seed, CONFIDENCE)),
        "n_units": int(table.shape[0]),
        "n_raters_mean": float(raters_per_unit.mean()),
        "n_ratings": int(raters_per_unit.sum()),
    }


def _intent_table(group: pd.DataFrame) -> tuple[np.ndarray, list]:
    table, _, categories = fleiss_table(
        zip(
            zip(group["conversation_id"], group["turn_index"], strict=True),
            group["annotator"],
            group["category"],
            strict=True,
        ),
        min_raters=2,
    )
    return table, categories


def intent_agreement(
    intents: pd.DataFrame,
    n_samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    conversations: pd.DataFrame | None = None,
) -> list[dict]:
    """Fleiss' kappa (and its bootstrap interval) per (corpus, label_scheme) on primary
    human intent labels, per subset (when ``conversations`` maps conversations to subsets)
    and per label."""
    human = intents[
        (intents["source"] == "human") & intents["is_primary"].fillna(False).astype(bool)
    ]
    # a label not placed on a turn (NULL turn_index) has no unit to agree on
    human = human.dropna(subset=["raw_label", "annotator", "turn_index"])
    per_annotator = (
        human.groupby(
            ["corpus", "label_scheme", "conversation_id", "turn_index", "annotator"], dropna=False
        )["raw_label"]
        .agg(lambda labels: tuple(sorted(set(labels))))
        .reset_index(name="labels")
    )
    per_annotator["category"] = per_annotator["labels"].map("+".join)
    labels_of = dict(zip(per_annotator["category"], per_annotator["labels"], strict=True))
    subset_of = _subsets(conversations)
    per_annotator["subset"] = per_annotator["conversation_id"].map(subset_of)
    rows = []
    for (corpus, label_scheme), group in per_annotator.groupby(
        ["corpus", "label_scheme"], sort=True
    ):
        subject = f"intent:{label_scheme}"
        table, categories = _intent_table(group)
        row = _kappa_row(corpus, subject, table, n_samples, seed)
        if row is None:
            continue
        rows.append(row)
        for subset, part in group.dropna(subset=["subset"]).groupby("subset", sort=True):
            sub_table, _ = _intent_table(part)
            rows.append(
                _kappa_row(corpus, scoped(subject, "subset", subset), sub_table, n_samples, seed)
            )
        # one label against the rest, on the corpus's units (so the same bootstrap draws)
        for label in sorted({lab for category in categories for lab in labels_of[category]}):
            holds = np.array([label in labels_of[c] for c in categories])
            with_label = table[:, holds].sum(axis=1)
            binary = np.column_stack([with_label, table.sum(axis=1) - with_label])
            rows.append(
                _kappa_row(corpus, scoped(subject, "label", label), binary, n_samples, seed)
            )
    return [row for row in rows if row is not None]


def _alpha_row(
    corpus: str, subject: str, group: pd.DataFrame, n_samples: int, seed: int
) -> dict | None:
    """An alpha row over the units of ``group`` with >= 2 raters, or None when undefined."""
    raters_per_unit = group.groupby("unit", sort=False)["rater"].nunique()
    pairable = group[group["unit"].map(raters_per_unit) >= 2]
    if pairable.empty:
        return None
    rows_of_units = list(
        zip(pairable["unit"], pairable["rater"], pairable["value"].astype(float), strict=True)
    )
    value = krippendorff_alpha(rows_of_units, level="ordinal")
    if math.isnan(value):
        return None
    interval = krippendorff_alpha_bootstrap(rows_of_units, "ordinal", n_samples, seed, CONFIDENCE)
    counts = pairable.groupby("unit", sort=False).size()
    return {
        "corpus": corpus,
        "subject": subject,
        "measure": "krippendorff_alpha",
        "value": float(value),
        **_interval(*interval),
        "n_units": int(counts.shape[0]),
        "n_raters_mean": float(counts.mean()),
        "n_ratings": int(counts.sum()),
    }


def rating_agreement(
    ratings: pd.DataFrame,
    n_samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    conversations: pd.DataFrame | None = None,
) -> list[dict]:
    """Krippendorff's alpha (ordinal, and its bootstrap interval) per (corpus, aspect) on
    units with >= 2 raters, and per subset (when ``conversations`` maps conversations to
    subsets)."""
    rated = ratings.dropna(subset=["value"])
    # units in (conversation_id, turn_index, item_id) order, whatever order the mart is read in
    rated = rated.sort_values(
        ["conversation_id", "turn_index", "item_id", "rater_kind", "rater_id"],
        na_position="first",
        kind="mergesort",
        ignore_index=True,
    )
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
    rated["subset"] = rated["conversation_id"].map(_subsets(conversations))
    rows = []
    for (corpus, aspect), group in rated.groupby(["corpus", "aspect"], sort=True):
        subject = f"quality:{aspect}"
        row = _alpha_row(corpus, subject, group, n_samples, seed)
        if row is None:
            continue
        rows.append(row)
        for subset, part in group.dropna(subset=["subset"]).groupby("subset", sort=True):
            rows.append(
                _alpha_row(corpus, scoped(subject, "subset", subset), part, n_samples, seed)
            )
    return [row for row in rows if row is not None]


def build_agreement(
    intents: pd.DataFrame,
    ratings: pd.DataFrame,
    n_samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    conversations: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The agreement frame from the ``intents``, ``ratings`` and ``conversations`` marts
    (without ``conversations``: the corpus and label rows only)."""
    rows = intent_agreement(intents, n_samples, seed, conversations) + rating_agreement(
        ratings, n_samples, seed, conversations
    )
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
    from csrwh.dbt_support.partitions import code_version, corpus_digests, partitions, sql_list

    dbt.config(
        materialized="incremental",
        incremental_strategy="replace",
        on_schema_change="sync_all_columns",
    )
    n_samples = int(dbt.config.get("agreement_bootstrap_samples"))
    seed = int(dbt.config.get("agreement_bootstrap_seed"))
    # only the rows and columns the measures read, chosen in DuckDB (the texts and most
    # ratings -- single-rater -- never reach Python): human primary intent labels placed on
    # a turn, of turns with >= 2 annotators; rated units with >= 2 distinct raters (within
    # their corpus and aspect, NULLs matching NULLs as in the unit and rater keys). The
    # measures apply the same rules again, so what is left out here could not count.
    intents = dbt.ref("intents").project(
        "corpus, label_scheme, conversation_id, turn_index, annotator, raw_label, source, "
        "is_primary"
    )
    intents = intents.filter(
        "source = 'human' and coalesce(is_primary, false) and raw_label is not null "
        "and annotator is not null and turn_index is not null"
    )
    intents = intents.project(
        "*, count(distinct annotator) over "
        "(partition by corpus, label_scheme, conversation_id, turn_index) as n_annotators"
    ).filter("n_annotators >= 2")
    intents = intents.project(
        "corpus, label_scheme, conversation_id, turn_index, annotator, raw_label, source, "
        "is_primary"
    )
    ratings = dbt.ref("ratings").project(
        "corpus, aspect, conversation_id, turn_index, item_id, rater_kind, rater_id, value"
    )
    ratings = (
        ratings.filter("value is not null")
        .project(
            "*, count(distinct (rater_kind, rater_id)) over (partition by corpus, aspect, "
            "conversation_id, turn_index, item_id) as n_raters"
        )
        .filter("n_raters >= 2")
        .project(
            "corpus, aspect, conversation_id, turn_index, item_id, rater_kind, rater_id, value"
        )
    )
    used = intents.project("conversation_id").union(ratings.project("conversation_id"))
    conversations = dbt.ref("conversations").project("conversation_id, subset, corpus")
    conversations = conversations.join(
        used.distinct().set_alias("used"), "conversation_id", how="semi"
    )
    # per-corpus partitions: a corpus whose rows read here, settings and code are unchanged
    # is carried over (each row's bootstrap is seeded alone, so corpora are independent)
    version = code_version(
        __file__,
        modules=["csrwh.measures.agreement"],
        packages=["krippendorff", "numpy", "pandas", "scipy"],
        settings={"n_samples": n_samples, "seed": seed},
    )
    digests = _merge_digests(
        corpus_digests(intents, INTENT_COLUMNS),
        corpus_digests(ratings, RATING_COLUMNS),
        corpus_digests(conversations, ("conversation_id", "subset")),
    )
    plan = partitions(session, dbt, version, digests)
    in_todo = f"list_contains({sql_list(plan.todo)}, corpus)"
    frame = build_agreement(
        intents.filter(in_todo).df(),
        ratings.filter(in_todo).df(),
        n_samples,
        seed,
        conversations.filter(in_todo).project("conversation_id, subset").df(),
    )
    computed = pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False)
    return plan.finish(session, dbt, computed, SCHEMA).sort_by(
        [("corpus", "ascending"), ("subject", "ascending"), ("measure", "ascending")]
    )


INTENT_COLUMNS = (
    "label_scheme",
    "conversation_id",
    "turn_index",
    "annotator",
    "raw_label",
    "source",
    "is_primary",
)
RATING_COLUMNS = (
    "aspect",
    "conversation_id",
    "turn_index",
    "item_id",
    "rater_kind",
    "rater_id",
    "value",
)


def _merge_digests(*parts: dict[str, str]) -> dict[str, str]:
    """corpus -> the digests of each input (an input without the corpus: '-')."""
    corpora = sorted(set().union(*parts))
    return {c: "/".join(part.get(c, "-") for part in parts) for c in corpora}
