"""csrwh.reading.evaluate (ir_measures over CoSRec's qrels) against an independent nDCG / P@k here."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from eval_runs import ndcg_at, precision_at

from csrwh.errors import CsrwhError
from csrwh.reading import evaluate as E

JUDGMENTS = [
    ("t1", "a", 2),
    ("t1", "b", 1),
    ("t1", "c", 0),
    ("t1", "d", 2),
    ("t1", "e", 1),
    ("t1", "f", 0),
    ("t2", "a", 0),
    ("t2", "x", 1),
    ("t2", "y", 0),
    ("t3", "q", 2),  # a topic the runs below do not answer
]


def independent(
    run: list[E.RunLine], judgments, k_ndcg: int = 10, k_p: int = 5
) -> dict[str, float]:
    by_topic: dict[str, dict[str, int]] = {}
    for t, d, g in judgments:
        by_topic.setdefault(t, {})[d] = g
    ranked: dict[str, list[str]] = {}
    for r in sorted(run, key=lambda r: (r.topic_id, -r.score)):
        ranked.setdefault(r.topic_id, []).append(r.doc_id)
    topics = sorted(set(by_topic) & set(ranked))
    return {
        f"nDCG@{k_ndcg}": sum(ndcg_at(ranked[t], by_topic[t], k_ndcg) for t in topics)
        / len(topics),
        f"P@{k_p}": sum(precision_at(ranked[t], by_topic[t], k_p) for t in topics) / len(topics),
    }


def make_run(judgments, order: str, seed: int = 0) -> list[E.RunLine]:
    rng = random.Random(seed)
    out = []
    topics = sorted({t for t, _, _ in judgments})
    for topic in topics:
        docs = [(d, g) for t, d, g in judgments if t == topic]
        if order == "perfect":
            docs.sort(key=lambda x: (-x[1], x[0]))
        elif order == "reversed":
            docs.sort(key=lambda x: (x[1], x[0]))
        else:
            rng.shuffle(docs)
        out += [E.RunLine(topic, d, i + 1, float(len(docs) - i)) for i, (d, _) in enumerate(docs)]
    return out


@pytest.mark.parametrize("order", ["perfect", "reversed", "shuffled"])
def test_measures_agree_with_an_independent_computation(order: str) -> None:
    run = [r for r in make_run(JUDGMENTS, order) if r.topic_id != "t3"]
    result = E.evaluate(run, JUDGMENTS, ["nDCG@10", "P@5"])
    expected = independent(run, JUDGMENTS)
    for name, value in expected.items():
        assert result.aggregate[name] == pytest.approx(value, abs=1e-6), name
    assert (result.n_topics_qrels, result.n_topics_evaluated, result.n_topics_missing) == (3, 2, 1)
    if order == "perfect":
        assert result.aggregate["nDCG@10"] == pytest.approx(1.0)


def test_aggregate_is_the_mean_over_evaluated_topics_only() -> None:
    run = [r for r in make_run(JUDGMENTS, "perfect") if r.topic_id == "t1"]
    result = E.evaluate(run, JUDGMENTS, ["nDCG@10"])
    assert result.aggregate["nDCG@10"] == pytest.approx(
        1.0
    )  # t2, t3 unanswered: not averaged in as 0
    assert set(result.per_topic) == {"t1"}


def test_bad_run_lines_are_one_error_with_the_line_number(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text("t1 Q0 a 1 2.0 sys\nt1 Q0 b 2 sys\n", encoding="utf-8")
    with pytest.raises(CsrwhError, match=r"run.txt:2: expected 6 fields"):
        E.read_run(run)
    run.write_text("t1 Q0 a one 2.0 sys\n", encoding="utf-8")
    with pytest.raises(CsrwhError, match=r"run.txt:1: rank must be an integer"):
        E.read_run(run)
    run.write_text("t1 Q0 a 1 2.0 sys\nt1 Q0 a 2 1.0 sys\n", encoding="utf-8")
    with pytest.raises(CsrwhError, match=r"run.txt:2: document a listed twice"):
        E.read_run(run)
    run.write_text("", encoding="utf-8")
    with pytest.raises(CsrwhError, match="no lines"):
        E.read_run(run)
    with pytest.raises(CsrwhError, match="unknown measure"):
        E.evaluate(make_run(JUDGMENTS, "perfect"), JUDGMENTS, ["nDCG@@"])
