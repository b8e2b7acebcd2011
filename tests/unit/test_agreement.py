"""Unit tests for csrwh.measures.agreement (Fleiss' kappa, Krippendorff's alpha, their bootstrap
intervals) against published worked examples and the documented resampling protocol."""

from __future__ import annotations

import math

import numpy as np
import pytest
from agreement_examples import KRIPPENDORFF_DATA, WIKIPEDIA_FLEISS, _krippendorff_rows

from csrwh.measures.stats import (
    fleiss_kappa,
    fleiss_kappa_bootstrap,
    fleiss_table,
    krippendorff_alpha,
    krippendorff_alpha_bootstrap,
)

# --------------------------------------------------------------------------------------
# Fleiss' kappa
# --------------------------------------------------------------------------------------


def test_fleiss_kappa_wikipedia_example():
    assert fleiss_kappa(WIKIPEDIA_FLEISS) == pytest.approx(0.210, abs=5e-4)


def test_fleiss_kappa_perfect_and_undefined():
    assert fleiss_kappa([[3, 0], [0, 3], [3, 0]]) == pytest.approx(1.0)
    assert math.isnan(fleiss_kappa([[3, 0], [3, 0]]))


def test_fleiss_table_from_long_rows_matches_wide_table():
    rows = []
    for item, counts in enumerate(WIKIPEDIA_FLEISS):
        rater = 0
        for category, count in enumerate(counts):
            for _ in range(count):
                rows.append((f"item{item}", f"r{rater}", f"c{category}"))
                rater += 1
    rows.append(("lonely", "r0", "c0"))  # one rater only: dropped
    table, items, categories = fleiss_table(rows)
    assert "lonely" not in items
    assert categories == ["c0", "c1", "c2", "c3", "c4"]
    assert fleiss_kappa(table) == pytest.approx(0.210, abs=5e-4)
    with pytest.raises(ValueError):
        fleiss_table([("i", "r", "x"), ("i", "r", "y")])


def test_fleiss_kappa_varying_raters_generalisation():
    # items with 2, 3 and 3 raters; hand-computed:
    # P_i = [(4-2)/2, (1+4-3)/6, (9-3)/6] = [1, 1/3, 1] -> mean 7/9
    table = [[2, 0], [1, 2], [0, 3]]
    # p_A = 3/8, p_B = 5/8 -> Pe = 9/64 + 25/64 = 34/64; kappa = (7/9 - 34/64) / (30/64)
    pe = 34 / 64
    expected = (7 / 9 - pe) / (1 - pe)
    assert fleiss_kappa(table) == pytest.approx(expected)
    assert fleiss_kappa(table) == pytest.approx(0.5259, abs=1e-4)


# --------------------------------------------------------------------------------------
# Krippendorff's alpha
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_alpha_published_example(level, published):
    assert krippendorff_alpha(_krippendorff_rows(), level=level) == pytest.approx(
        published, abs=5e-4
    )


def test_krippendorff_alpha_missing_as_none_and_string_nominal():
    rows = [
        (unit, rater, value)
        for rater, values in KRIPPENDORFF_DATA.items()
        for unit, value in enumerate(values)
    ]
    assert krippendorff_alpha(rows, level="ordinal") == pytest.approx(0.815, abs=5e-4)
    as_text = [(u, r, None if v is None else f"v{v}") for u, r, v in rows]
    assert krippendorff_alpha(as_text, level="nominal") == pytest.approx(0.743, abs=5e-4)


def test_krippendorff_alpha_edge_cases():
    assert krippendorff_alpha(
        [(1, "a", 1), (1, "b", 1), (2, "a", 3), (2, "b", 3)]
    ) == pytest.approx(1.0)
    assert math.isnan(krippendorff_alpha([(1, "a", 1), (2, "b", 2)]))  # nothing pairable
    assert math.isnan(krippendorff_alpha([(1, "a", 2), (1, "b", 2)]))  # no variation
    with pytest.raises(ValueError):
        krippendorff_alpha([(1, "a", 1), (1, "a", 2)])
    with pytest.raises(ValueError):
        krippendorff_alpha([(1, "a", 1), (1, "b", 2)], level="cardinal")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# Bootstrap intervals for the agreement coefficients (annotator_agreement.ci_low/ci_high)
# --------------------------------------------------------------------------------------


def _reference_fleiss_bootstrap(table, n_samples, seed):
    """The documented protocol, slowly: resample whole items (rows), recompute kappa."""
    counts = np.asarray(table, dtype=float)
    rng = np.random.default_rng(seed)
    replicates = []
    for _ in range(n_samples):
        picks = rng.integers(0, len(counts), size=len(counts))
        replicates.append(fleiss_kappa(counts[picks]))
    replicates = np.array(replicates)
    return tuple(np.percentile(replicates[~np.isnan(replicates)], [2.5, 97.5]))


def _units(rows):
    units: dict = {}
    for unit, rater, value in rows:
        units.setdefault(unit, []).append((rater, value))
    return [ratings for ratings in units.values() if len(ratings) >= 2]


def _reference_alpha_bootstrap(rows, level, n_samples, seed):
    """The documented protocol, slowly: resample whole pairable units, recompute alpha."""
    units = _units(rows)
    rng = np.random.default_rng(seed)
    replicates = []
    for _ in range(n_samples):
        picks = rng.integers(0, len(units), size=len(units))
        resample = [(j, rater, value) for j, i in enumerate(picks) for rater, value in units[i]]
        replicates.append(krippendorff_alpha(resample, level=level))
    replicates = np.array(replicates)
    return tuple(np.percentile(replicates[~np.isnan(replicates)], [2.5, 97.5]))


def test_fleiss_bootstrap_known_answer():
    low, high = fleiss_kappa_bootstrap(WIKIPEDIA_FLEISS, n_samples=500, seed=1)
    # literal values (seed 1, 500 resamples of the 10 subjects) ...
    assert (low, high) == (pytest.approx(0.044392, abs=1e-6), pytest.approx(0.370265, abs=1e-6))
    # ... which the slow, obvious implementation of the protocol gives too
    assert (low, high) == pytest.approx(_reference_fleiss_bootstrap(WIKIPEDIA_FLEISS, 500, 1))
    assert low < fleiss_kappa(WIKIPEDIA_FLEISS) < high
    # deterministic for a seed, different for another
    assert fleiss_kappa_bootstrap(WIKIPEDIA_FLEISS, 500, 1) == (low, high)
    assert fleiss_kappa_bootstrap(WIKIPEDIA_FLEISS, 500, 2) != (low, high)


@pytest.mark.parametrize(
    ("level", "expected"),
    [("nominal", (0.396892, 1.0)), ("ordinal", (0.399781, 1.0)), ("interval", (0.376808, 1.0))],
)
def test_krippendorff_bootstrap_known_answer(level, expected):
    rows = _krippendorff_rows()
    low, high = krippendorff_alpha_bootstrap(rows, level=level, n_samples=500, seed=1)
    assert (low, high) == (pytest.approx(expected[0], abs=1e-6), pytest.approx(expected[1]))
    assert (low, high) == pytest.approx(_reference_alpha_bootstrap(rows, level, 500, 1))


def test_bootstrap_of_perfect_agreement_is_degenerate():
    # every item's raters agree, categories vary: every resample has kappa/alpha = 1
    # (a resample holding one category only is undefined and left out)
    table = [[3, 0, 0], [0, 3, 0], [0, 0, 2], [4, 0, 0], [0, 2, 0]]
    assert fleiss_kappa_bootstrap(table, n_samples=300, seed=3) == (1.0, 1.0)
    rows = [(u, r, float(u % 3)) for u in range(8) for r in ("a", "b", "c")]
    assert krippendorff_alpha_bootstrap(rows, "ordinal", n_samples=300, seed=3) == (1.0, 1.0)


def _annotation_resample_alpha(rows, n_samples, seed):
    """What the bootstrap must NOT do: resample single ratings, then regroup them by unit."""
    rng = np.random.default_rng(seed)
    replicates = []
    for _ in range(n_samples):
        picks = rng.integers(0, len(rows), size=len(rows))
        resample = [(rows[i][0], f"draw{j}", rows[i][2]) for j, i in enumerate(picks)]
        replicates.append(krippendorff_alpha(resample, level="ordinal"))
    replicates = np.array(replicates)
    return tuple(np.percentile(replicates[~np.isnan(replicates)], [2.5, 97.5]))


def test_bootstrap_resamples_items_not_annotations():
    # Every item holds exactly one disagreement pair (1, 2): whichever items a resample
    # draws, the coincidences scale together and the coefficient does not move, so the
    # item bootstrap is degenerate at the point estimate. Resampling annotations breaks
    # the pairs (an item may get 1 and 1) and moves it.
    n_items = 20
    table = [[1, 1]] * n_items
    kappa = fleiss_kappa(table)
    assert fleiss_kappa_bootstrap(table, n_samples=200, seed=5) == (
        pytest.approx(kappa),
        pytest.approx(kappa),
    )
    rows = [(u, r, v) for u in range(n_items) for r, v in (("a", 1.0), ("b", 2.0))]
    alpha = krippendorff_alpha(rows, level="ordinal")
    assert krippendorff_alpha_bootstrap(rows, "ordinal", n_samples=200, seed=5) == (
        pytest.approx(alpha),
        pytest.approx(alpha),
    )
    # the wrong resampling unit gives a visibly different interval: this test tells them apart
    wrong_low, wrong_high = _annotation_resample_alpha(rows, 200, 5)
    assert wrong_high - wrong_low > 0.5


def test_bootstrap_edge_cases():
    assert all(math.isnan(v) for v in fleiss_kappa_bootstrap([[1, 0], [0, 1]], 10))
    assert all(math.isnan(v) for v in krippendorff_alpha_bootstrap([(1, "a", 1)], "ordinal", 10))
    # every resample undefined (one category everywhere)
    assert all(math.isnan(v) for v in fleiss_kappa_bootstrap([[2, 0], [3, 0]], 10))
    with pytest.raises(ValueError):
        fleiss_kappa_bootstrap(WIKIPEDIA_FLEISS, n_samples=0)
    with pytest.raises(ValueError):
        krippendorff_alpha_bootstrap(_krippendorff_rows(), confidence=1.0)
    with pytest.raises(ValueError):
        krippendorff_alpha_bootstrap(_krippendorff_rows(), level="cardinal")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# The same values as the reference libraries (statsmodels, krippendorff)
# --------------------------------------------------------------------------------------


def _random_tables(n_tables: int, seed: int):
    """Items x categories count tables with the same number of raters per item (statsmodels'
    fleiss_kappa assumes that)."""
    rng = np.random.default_rng(seed)
    for _ in range(n_tables):
        n_items, n_categories, n_raters = (
            rng.integers(3, 30),
            rng.integers(2, 6),
            rng.integers(2, 9),
        )
        shares = rng.dirichlet(np.ones(n_categories))
        yield rng.multinomial(n_raters, shares, size=n_items)


def test_fleiss_kappa_equals_statsmodels() -> None:
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

    tables = [np.array(WIKIPEDIA_FLEISS), *_random_tables(40, seed=7)]
    for table in tables:
        expected = statsmodels_fleiss_kappa(table, method="fleiss")
        if math.isnan(expected) or math.isinf(expected):
            assert math.isnan(fleiss_kappa(table))
        else:
            assert fleiss_kappa(table) == pytest.approx(expected, abs=1e-12)


def _random_reliability_data(seed: int, level: str):
    """(raters x units) values with missing ones, as the krippendorff package takes them."""
    rng = np.random.default_rng(seed)
    n_raters, n_units = rng.integers(2, 6), rng.integers(5, 40)
    if level in ("nominal", "ordinal"):
        data = rng.integers(1, 6, size=(n_raters, n_units)).astype(float)
    else:
        data = np.round(rng.gamma(2.0, 2.0, size=(n_raters, n_units)), 2)
    data[rng.random(data.shape) < 0.25] = np.nan
    return data


def _rows(data):
    return [
        (unit, rater, float(value))
        for rater, values in enumerate(data)
        for unit, value in enumerate(values)
        if not math.isnan(value)
    ]


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_alpha_equals_the_krippendorff_package(level: str) -> None:
    import krippendorff

    published = np.array(
        [[np.nan if v is None else v for v in values] for values in KRIPPENDORFF_DATA.values()]
    )
    datasets = [published, *(_random_reliability_data(seed, level) for seed in range(25))]
    for data in datasets:
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert krippendorff_alpha(_rows(data), level=level) == pytest.approx(expected, abs=1e-9)
