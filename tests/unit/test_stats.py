"""Unit tests for csrwh.stats against published and hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from csrwh.stats import (
    bradley_terry,
    bradley_terry_bootstrap,
    elo_ratings,
    fleiss_kappa,
    fleiss_kappa_bootstrap,
    fleiss_table,
    krippendorff_alpha,
    krippendorff_alpha_bootstrap,
)

# --------------------------------------------------------------------------------------
# Elo
# --------------------------------------------------------------------------------------


def test_elo_single_win_from_equal_ratings():
    ratings = elo_ratings([("x", "y", "a")])
    # expected 0.5 each: winner +K/2, loser -K/2
    assert ratings == {"x": pytest.approx(1008.0), "y": pytest.approx(992.0)}


def test_elo_hand_computed_three_battle_sequence():
    # 1) x beats y            -> x 1008, y 992
    # 2) y ties z: e_y = 1/(1+10**((1000-992)/400)) = 0.488489...; y += 16*(0.5-e_y)
    #    -> y 992.184, z 999.816
    # 3) z beats x: e_x = 1/(1+10**((999.816-1008)/400)) = 0.511775
    #    -> x 1008 - 16*0.511775 = 999.812, z 999.816 + 8.188 = 1008.004
    ratings = elo_ratings([("x", "y", "a"), ("y", "z", "tie"), ("x", "z", "b")])
    e_y = 1.0 / (1.0 + 10 ** ((1000.0 - 992.0) / 400.0))
    y = 992.0 + 16.0 * (0.5 - e_y)
    z = 1000.0 + 16.0 * (0.5 - (1.0 - e_y))
    e_x = 1.0 / (1.0 + 10 ** ((z - 1008.0) / 400.0))
    x = 1008.0 + 16.0 * (0.0 - e_x)
    z = z + 16.0 * (1.0 - (1.0 - e_x))
    assert ratings["x"] == pytest.approx(x, abs=1e-9)
    assert ratings["y"] == pytest.approx(y, abs=1e-9)
    assert ratings["z"] == pytest.approx(z, abs=1e-9)
    # literal values, so the test cannot pass by repeating a wrong formula
    assert ratings["x"] == pytest.approx(999.812, abs=1e-3)
    assert ratings["y"] == pytest.approx(992.184, abs=1e-3)
    assert ratings["z"] == pytest.approx(1008.004, abs=1e-3)


def test_elo_is_zero_sum_and_order_dependent():
    battles = [("x", "y", "a"), ("y", "z", "a"), ("z", "x", "tie"), ("x", "y", "b")]
    forward = elo_ratings(battles)
    backward = elo_ratings(list(reversed(battles)))
    assert sum(forward.values()) == pytest.approx(3000.0)
    assert forward["x"] != pytest.approx(backward["x"], abs=1e-6)


def test_elo_parameters_and_validation():
    assert elo_ratings([("x", "y", "b")], initial=1500, k=32) == {
        "x": pytest.approx(1484.0),
        "y": pytest.approx(1516.0),
    }
    with pytest.raises(ValueError):
        elo_ratings([("x", "y", "x")])
    with pytest.raises(ValueError):
        elo_ratings([("x", "x", "a")])


# --------------------------------------------------------------------------------------
# Bradley-Terry
# --------------------------------------------------------------------------------------


def _simulated_battles(
    strengths: dict[str, float], n: int, seed: int
) -> list[tuple[str, str, str]]:
    rng = np.random.default_rng(seed)
    names = list(strengths)
    battles = []
    for _ in range(n):
        a, b = rng.choice(len(names), size=2, replace=False)
        pa, pb = strengths[names[a]], strengths[names[b]]
        winner = "a" if rng.random() < pa / (pa + pb) else "b"
        battles.append((names[a], names[b], winner))
    return battles


def test_bradley_terry_recovers_simulated_order():
    truth = {"s1": 8.0, "s2": 4.0, "s3": 2.0, "s4": 1.0, "s5": 0.5}
    battles = _simulated_battles(truth, n=4000, seed=7)
    fitted = bradley_terry(battles)
    assert sorted(fitted, key=fitted.get, reverse=True) == ["s1", "s2", "s3", "s4", "s5"]
    # each factor 2 in strength is 400*log10(2) = 120.4 points; allow sampling noise
    assert fitted["s1"] - fitted["s5"] == pytest.approx(4 * 400 * math.log10(2), rel=0.15)
    # centred on 1000 (geometric mean)
    assert np.mean(list(fitted.values())) == pytest.approx(1000.0, abs=1e-6)


def test_bradley_terry_unpenalised_two_player_closed_form():
    # 3 wins, 1 loss: MLE odds 3:1 -> gap 400*log10(3); centred on 1000
    battles = [("x", "y", "a")] * 3 + [("x", "y", "b")]
    fitted = bradley_terry(battles, l2=0.0)
    gap = 400 * math.log10(3)
    assert fitted["x"] == pytest.approx(1000 + gap / 2, abs=1e-3)
    assert fitted["y"] == pytest.approx(1000 - gap / 2, abs=1e-3)


def test_bradley_terry_ties_are_half_wins_and_order_free():
    with_ties = [("x", "y", "a"), ("x", "y", "tie"), ("x", "y", "tie"), ("y", "x", "b")]
    # x: 1 + 0.5 + 0.5 + 1 = 3 wins of 4 -> same as the 3:1 case
    fitted = bradley_terry(with_ties, l2=0.0)
    assert fitted["x"] - fitted["y"] == pytest.approx(400 * math.log10(3), abs=1e-3)
    assert bradley_terry(list(reversed(with_ties)), l2=0.0) == pytest.approx(fitted)


def test_bradley_terry_all_wins_stays_finite():
    fitted = bradley_terry([("x", "y", "a")] * 5 + [("y", "z", "a")] * 5)
    assert all(math.isfinite(v) for v in fitted.values())
    assert fitted["x"] > fitted["y"] > fitted["z"]


def test_bootstrap_is_deterministic_and_brackets_the_estimate():
    truth = {"s1": 4.0, "s2": 2.0, "s3": 1.0}
    battles = _simulated_battles(truth, n=300, seed=3)
    first = bradley_terry_bootstrap(battles, n_samples=100, seed=42)
    second = bradley_terry_bootstrap(battles, n_samples=100, seed=42)
    other = bradley_terry_bootstrap(battles, n_samples=100, seed=43)
    assert first == second
    assert first != other
    point = bradley_terry(battles)
    for name, (low, high) in first.items():
        assert low < point[name] < high
    assert first["s1"][0] > first["s3"][1]  # clearly separated systems do not overlap
    assert bradley_terry_bootstrap([], n_samples=10, seed=1) == {}


# --------------------------------------------------------------------------------------
# Fleiss' kappa
# --------------------------------------------------------------------------------------

# Fleiss (1971) as worked on Wikipedia: 10 subjects, 14 raters, 5 categories.
WIKIPEDIA_FLEISS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


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

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", example C:
# 4 observers x 12 units, values 1..5, '*' = missing.
KRIPPENDORFF_DATA = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


def _krippendorff_rows():
    return [
        (unit, rater, value)
        for rater, values in KRIPPENDORFF_DATA.items()
        for unit, value in enumerate(values)
        if value is not None
    ]


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

