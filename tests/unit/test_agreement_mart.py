"""The annotator_agreement mart's per-subset and per-label rows
(models/marts/reports/annotator_agreement.py) on hand-made intents and ratings."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest
from agreement_examples import KRIPPENDORFF_DATA, WIKIPEDIA_FLEISS, _krippendorff_rows

from csrwh.config import PROJECT_ROOT
from csrwh.measures.stats import fleiss_kappa, krippendorff_alpha

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
