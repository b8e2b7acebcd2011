"""Unit tests for csrwh.measures.stats against published and hand-computed values (and scipy, an
independent implementation, for the correlations and interval quantiles)."""

from __future__ import annotations

import importlib.util
import math
import statistics

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from csrwh.config import PROJECT_ROOT
from csrwh.measures.stats import (
    bradley_terry,
    bradley_terry_bootstrap,
    elo_ratings,
    fleiss_kappa,
    fleiss_kappa_bootstrap,
    fleiss_table,
    krippendorff_alpha,
    krippendorff_alpha_bootstrap,
    mean_interval,
    pearson,
    spearman,
    t_quantile,
    wilson_interval,
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


# --------------------------------------------------------------------------------------
# annotator_agreement: per-subset and per-label rows (models/marts/reports/annotator_agreement.py)
# --------------------------------------------------------------------------------------


def _agreement_model():
    path = PROJECT_ROOT / "models" / "marts" / "reports" / "annotator_agreement.py"
    spec = importlib.util.spec_from_file_location("annotator_agreement_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _intents_frame(table, subset_of_item):
    """Long intents rows from an items x categories table (category j = label "c<j>")."""
    rows = []
    for item, counts in enumerate(table):
        annotator = 0
        for j, count in enumerate(counts):
            for _ in range(count):
                rows.append(
                    {
                        "corpus": "demo",
                        "label_scheme": "s",
                        "conversation_id": f"demo:{item:02d}",
                        "turn_index": 0,
                        "annotator": f"a{annotator}",
                        "raw_label": f"c{j}",
                        "source": "human",
                        "is_primary": True,
                    }
                )
                annotator += 1
    conversations = pd.DataFrame(
        {
            "conversation_id": [f"demo:{i:02d}" for i in range(len(table))],
            "subset": [subset_of_item(i) for i in range(len(table))],
        }
    )
    return pd.DataFrame(rows), conversations


def test_agreement_label_rows_are_fleiss_category_specific_kappa():
    A = _agreement_model()
    intents, conversations = _intents_frame(
        WIKIPEDIA_FLEISS, lambda i: "early" if i < 6 else "late"
    )
    frame = A.build_agreement(
        intents,
        intents.iloc[0:0].assign(value=[], item_id=[], rater_kind=[], rater_id=[], aspect=[]),
        200,
        7,
        conversations,
    )
    rows = {r["subject"]: r for r in frame.to_dict("records")}
    counts = np.asarray(WIKIPEDIA_FLEISS, dtype=float)
    n_items, n = counts.shape[0], counts.sum(axis=1)[0]
    assert rows["intent:s"]["value"] == pytest.approx(fleiss_kappa(WIKIPEDIA_FLEISS))
    for j in range(counts.shape[1]):
        # Fleiss (1971), eq. for kappa_j: 1 - sum_i n_ij (n - n_ij) / (N n (n - 1) p_j q_j)
        p_j = counts[:, j].sum() / (n_items * n)
        expected = 1 - (counts[:, j] * (n - counts[:, j])).sum() / (
            n_items * n * (n - 1) * p_j * (1 - p_j)
        )
        row = rows[f"intent:s|label:c{j}"]
        assert row["value"] == pytest.approx(expected)
        assert (row["n_units"], row["n_ratings"]) == (n_items, counts.sum())
    for subset, items in (("early", slice(0, 6)), ("late", slice(6, 10))):
        row = rows[f"intent:s|subset:{subset}"]
        assert row["value"] == pytest.approx(fleiss_kappa(WIKIPEDIA_FLEISS[items]))
        assert row["ci_low"] <= row["ci_high"]
    # without conversations (no subsets known) the subset rows go, the others stay as they were
    plain = A.build_agreement(
        intents,
        intents.iloc[0:0].assign(value=[], item_id=[], rater_kind=[], rater_id=[], aspect=[]),
        200,
        7,
    )
    assert sorted(plain["subject"]) == sorted(k for k in rows if "|subset:" not in k)


def test_agreement_label_rows_count_an_answer_with_several_labels_for_each():
    A = _agreement_model()
    # turn -> annotator -> labels (CoSRec annotators may give several intent types to a turn)
    answers = {
        0: {"x": {"search"}, "y": {"search", "recommendation"}, "z": {"search"}},
        1: {"x": {"recommendation"}, "y": {"recommendation"}},
        2: {"x": {"search", "recommendation"}, "y": {"product"}, "z": {"product"}},
        3: {"x": {"product"}, "y": {"product"}, "z": {"search"}},
    }
    intents = pd.DataFrame(
        [
            {
                "corpus": "demo",
                "label_scheme": "s",
                "conversation_id": "demo:1",
                "turn_index": turn,
                "annotator": annotator,
                "raw_label": label,
                "source": "human",
                "is_primary": True,
            }
            for turn, by in answers.items()
            for annotator, labels in by.items()
            for label in labels
        ]
    )
    no_ratings = pd.DataFrame(
        columns=[
            "corpus",
            "aspect",
            "conversation_id",
            "turn_index",
            "item_id",
            "rater_kind",
            "rater_id",
            "value",
        ]
    )
    rows = {
        r["subject"]: r for r in A.build_agreement(intents, no_ratings, 100, 1).to_dict("records")
    }
    for label in ("search", "recommendation", "product"):
        holds = [
            [
                sum(label in labels for labels in by.values()),
                sum(label not in labels for labels in by.values()),
            ]
            for by in answers.values()
        ]
        assert rows[f"intent:s|label:{label}"]["value"] == pytest.approx(fleiss_kappa(holds))


def test_agreement_intervals_do_not_depend_on_the_order_the_mart_is_read_in():
    A = _agreement_model()
    ratings = pd.DataFrame(
        [
            {
                "corpus": "demo",
                "aspect": "q",
                "conversation_id": f"demo:{unit:02d}",
                "turn_index": None,
                "item_id": None,
                "rater_kind": "crowd",
                "rater_id": rater,
                "value": float(value),
            }
            for unit, values in enumerate(zip(*KRIPPENDORFF_DATA.values()))
            for rater, value in zip(KRIPPENDORFF_DATA, values)
            if value is not None
        ]
    )
    conversations = pd.DataFrame(
        {
            "conversation_id": sorted(set(ratings["conversation_id"])),
            "subset": ["x"] * ratings["conversation_id"].nunique(),
        }
    )
    no_intents = pd.DataFrame(
        columns=[
            "corpus",
            "label_scheme",
            "conversation_id",
            "turn_index",
            "annotator",
            "raw_label",
            "source",
            "is_primary",
        ]
    )
    first = A.build_agreement(no_intents, ratings, 300, 11, conversations)
    shuffled = A.build_agreement(
        no_intents, ratings.sample(frac=1.0, random_state=3), 300, 11, conversations
    )
    pd.testing.assert_frame_equal(first, shuffled)
    row = first.set_index("subject").loc["quality:q"]
    assert row["value"] == pytest.approx(krippendorff_alpha(_krippendorff_rows(), "ordinal"))
    assert first.set_index("subject").loc["quality:q|subset:x", "value"] == row["value"]


# --------------------------------------------------------------------------------------
# Correlations and intervals
# --------------------------------------------------------------------------------------


def test_correlations_equal_scipy_with_ties_and_none_when_undefined():
    rng = np.random.default_rng(0)
    for _ in range(30):
        x = rng.integers(0, 4, 9).astype(float)  # ties
        y = rng.normal(size=9)
        if np.ptp(x) == 0:
            continue
        assert pearson(x, y) == pytest.approx(scipy_stats.pearsonr(x, y).statistic, abs=1e-12)
        assert spearman(x, y) == pytest.approx(scipy_stats.spearmanr(x, y).statistic, abs=1e-12)
    assert pearson([1, 2], [3, 4]) is None  # fewer than three pairs
    assert spearman([1, 1, 1], [1, 2, 3]) is None  # a constant side
    with pytest.raises(ValueError):
        pearson([1, 2, 3], [1, 2])


@pytest.mark.parametrize("df", [1, 2, 3, 4.5, 9, 19, 30, 290, 5000])
def test_t_quantile_equals_scipy(df):
    for p in (0.5, 0.6, 0.9, 0.95, 0.975, 0.995, 0.9999, 0.025):
        assert t_quantile(p, df) == pytest.approx(scipy_stats.t.ppf(p, df), rel=1e-9, abs=1e-12)
    with pytest.raises(ValueError):
        t_quantile(1.0, df)


def test_mean_interval_is_the_t_interval_of_the_raw_values():
    values = [3.0, 4.0, 4.0, 5.0, 2.0, 5.0, 4.0]
    low, high = mean_interval(statistics.fmean(values), statistics.stdev(values), len(values))
    expected = scipy_stats.t.interval(
        0.95, len(values) - 1, loc=statistics.fmean(values), scale=scipy_stats.sem(values)
    )
    assert (low, high) == pytest.approx(expected, rel=1e-10)
    assert mean_interval(4.0, None, 1) == (None, None)
    assert mean_interval(4.0, 1.0, 1) == (None, None)  # n < 2: no interval
    assert mean_interval(4.0, 0.0, 5) == (4.0, 4.0)


def test_wilson_interval():
    # the interval is where |share - p| = z sqrt(p (1 - p) / n): check that equation at both ends
    z = scipy_stats.norm.ppf(0.975)
    for successes, n in ((0, 10), (3, 10), (10, 10), (1, 3), (45, 200)):
        low, high = wilson_interval(successes, n)
        for p in (low, high):
            assert (successes / n - p) ** 2 == pytest.approx(z * z * p * (1 - p) / n, abs=1e-12)
        assert 0.0 <= low <= successes / n <= high <= 1.0
        # symmetric: k of n successes mirrors n - k
        mirror = wilson_interval(n - successes, n)
        assert (low, high) == pytest.approx((1 - mirror[1], 1 - mirror[0]), abs=1e-12)
    assert wilson_interval(0, 10)[0] == 0.0  # where the t / normal interval would go below 0
    assert wilson_interval(0, 0) == (None, None)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
