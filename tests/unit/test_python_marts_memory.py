"""The Python marts' memory-bounded paths give the figures of the former whole-data paths.

* ``text_diversity``: ``tests/integration/test_text_diversity_engine.py`` (figures) and
  ``tests/integration/test_text_diversity_memory.py`` (memory);
* ``csrwh.measures.stats`` bootstraps: resample weights a block at a time;
* ``annotator_agreement``: the rows that cannot count are left out in DuckDB.
"""

from __future__ import annotations

import importlib.util
import random
import sys
import tracemalloc

import duckdb
import numpy as np
import pandas as pd
import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.measures import agreement as stats


def _load(relative: str, name: str):
    spec = importlib.util.spec_from_file_location(name, PROJECT_ROOT / relative)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


aa = _load("models/marts/reports/annotator_agreement.py", "annotator_agreement_memory_model")


class _Dbt:
    """dbt-duckdb's ``dbt`` object as a Python model sees it: refs are relations."""

    def __init__(self, con: duckdb.DuckDBPyConnection, config: dict | None = None) -> None:
        self._con = con
        values = config or {}
        self.is_incremental = False  # built from nothing (csrwh.dbt_support.partitions)

        class _This:
            database, schema, identifier = "memory", "main", "the_model"

            def __repr__(self) -> str:
                return '"memory"."main"."the_model"'

        self.this = _This()

        class _Config:
            def __call__(self, **kwargs) -> None:
                pass

            def get(self, key, default=None):
                return values.get(key, default)

        self.config = _Config()

    def ref(self, name: str):
        return self._con.table(name)


# --------------------------------------------------------------------------- bootstraps


def _full_weights(n_units: int, n_samples: int, seed: int) -> np.ndarray:
    """The former _unit_weights: every resample's weights in one matrix."""
    rng = np.random.default_rng(seed)
    weights = np.zeros((n_samples, n_units))
    for s in range(n_samples):
        weights[s] = np.bincount(rng.integers(0, n_units, size=n_units), minlength=n_units)
    return weights


def _full_fleiss_bootstrap(table, n_samples, seed, confidence=0.95):
    counts = np.asarray(table, dtype=float)
    n_i = counts.sum(axis=1)
    counts, n_i = counts[n_i >= 2], n_i[n_i >= 2]
    p_item = (np.sum(counts**2, axis=1) - n_i) / (n_i * (n_i - 1.0))
    weights = _full_weights(counts.shape[0], n_samples, seed)
    p_bar = weights @ p_item / weights.sum(axis=1)
    p_category = (weights @ counts) / (weights @ n_i)[:, None]
    p_expected = np.sum(p_category**2, axis=1)
    undefined = np.isclose(p_expected, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        replicates = np.where(undefined, np.nan, (p_bar - p_expected) / (1.0 - p_expected))
    return stats._percentile_interval(replicates, confidence)


def _full_alpha_bootstrap(rows, n_samples, seed, confidence=0.95):
    pairable, distinct = stats._pairable_units(rows, "ordinal")
    per_unit = stats._unit_coincidences(pairable, distinct)
    size = len(distinct)
    weights = _full_weights(len(pairable), n_samples, seed)
    resampled = (weights @ per_unit.reshape(len(pairable), size * size)).reshape(
        n_samples, size, size
    )
    replicates = np.array(
        [stats._alpha_from_coincidences(m, distinct, "ordinal") for m in resampled]
    )
    return stats._percentile_interval(replicates, confidence)


@pytest.mark.parametrize(
    "n_units, n_categories, n_samples", [(5, 2, 1000), (700, 6, 1000), (3000, 2, 300), (90, 9, 77)]
)
def test_blocked_bootstraps_are_the_whole_matrix_ones(
    n_units: int, n_categories: int, n_samples: int
) -> None:
    rng = np.random.default_rng(n_units)
    table = rng.multinomial(3, np.ones(n_categories) / n_categories, size=n_units)
    table[::5] = 0
    table[::5, 0] = 3  # some agreement, so kappa varies
    assert stats.fleiss_kappa_bootstrap(table, n_samples, 11) == _full_fleiss_bootstrap(
        table, n_samples, 11
    )
    rows = [
        (u, r, float(rng.integers(1, 6)))
        for u in range(n_units)
        for r in range(int(rng.integers(1, 4)))
    ]
    assert stats.krippendorff_alpha_bootstrap(
        rows, "ordinal", n_samples, 5
    ) == _full_alpha_bootstrap(rows, n_samples, 5)
    assert np.array_equal(
        stats._unit_weights(n_units, n_samples, 3), _full_weights(n_units, n_samples, 3)
    )


def test_bootstrap_memory_does_not_grow_with_resamples_times_units() -> None:
    n_units, n_samples = 20_000, 1000  # the whole weight matrix: 160 MB
    table = np.zeros((n_units, 2))
    table[:, 0] = 2
    table[::3] = [1, 1]
    tracemalloc.start()
    try:
        stats.fleiss_kappa_bootstrap(table, n_samples, 1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    whole = n_samples * n_units * 8
    assert peak < whole / 2, f"peak {peak / 1e6:.0f} MB"


# --------------------------------------------------------------------------- agreement


def _agreement_warehouse(seed: int) -> duckdb.DuckDBPyConnection:
    rng = random.Random(seed)
    con = duckdb.connect()
    intents, ratings, conversations = [], [], []
    for c in range(120):
        corpus = rng.choice(["cosrec", "convsearch"])
        conversation = f"{corpus}:c{c}"
        conversations.append((conversation, rng.choice(["a", "b", None]), corpus))
        for t in range(4):
            for annotator in rng.sample(["x", "y", "z"], rng.choice([1, 1, 2, 3])):
                for label in rng.sample(["ask", "tell", "bye"], rng.choice([1, 1, 2])):
                    intents.append(
                        (
                            corpus,
                            f"{corpus}_intent",
                            conversation,
                            rng.choice([t, t, t, None]),
                            annotator,
                            label,
                            rng.choice(["human", "human", "human", "llm"]),
                            rng.choice([True, True, True, False, None]),
                        )
                    )
            for item in (None, "i1"):
                raters = rng.sample([("crowd", "r1"), ("crowd", "r2"), ("user", None)], 3)
                for kind, rater in raters[: rng.choice([1, 1, 1, 2, 3])]:
                    ratings.append(
                        (
                            corpus,
                            rng.choice(["fluency", "coherence"]),
                            conversation,
                            rng.choice([t, None]),
                            item,
                            kind,
                            rater,
                            rng.choice([1.0, 2.0, 3.0, 4.0, None]),
                        )
                    )
    con.execute(
        "create table intents (corpus varchar, label_scheme varchar, conversation_id varchar, "
        "turn_index integer, annotator varchar, raw_label varchar, source varchar, "
        "is_primary boolean)"
    )
    con.executemany("insert into intents values (?, ?, ?, ?, ?, ?, ?, ?)", intents)
    con.execute(
        "create table ratings (corpus varchar, aspect varchar, conversation_id varchar, "
        "turn_index integer, item_id varchar, rater_kind varchar, rater_id varchar, "
        "value double)"
    )
    # one rater, one value per unit: duplicates of (unit, rater) are dropped
    con.executemany("insert into ratings values (?, ?, ?, ?, ?, ?, ?, ?)", ratings)
    con.execute(
        "create or replace table ratings as select * from ratings qualify row_number() over "
        "(partition by corpus, aspect, conversation_id, turn_index, item_id, rater_kind, "
        "rater_id) = 1"
    )
    con.execute(
        "create or replace table intents as select * from intents qualify row_number() over "
        "(partition by corpus, label_scheme, conversation_id, turn_index, annotator, "
        "raw_label) = 1"
    )
    con.execute(
        "create table conversations (conversation_id varchar, subset varchar, corpus varchar)"
    )
    con.executemany("insert into conversations values (?, ?, ?)", conversations)
    return con


@pytest.mark.parametrize("seed", [1, 2])
def test_agreement_model_filtering_in_duckdb_is_the_whole_frames_result(seed: int) -> None:
    con = _agreement_warehouse(seed)
    config = {"agreement_bootstrap_samples": 200, "agreement_bootstrap_seed": 9}
    got = aa.model(_Dbt(con, config), con).to_pandas()
    expected = aa.build_agreement(
        con.table("intents").df(),
        con.table("ratings").df(),
        200,
        9,
        con.table("conversations").project("conversation_id, subset").df(),
    )
    assert len(got) > 0
    pd.testing.assert_frame_equal(got, expected, check_exact=True, check_dtype=False)
    assert {"fleiss_kappa", "krippendorff_alpha"} <= set(got["measure"])
