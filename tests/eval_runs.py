"""Shared by the `csrwh eval` tests (test_eval_cli.py, test_eval_sidecar.py): the CLI runner, an
independent nDCG@k / P@k / RR computed here (not through ir_measures), the judgments read with
plain SQL, and run files made from them."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from pathlib import Path

MEASURES = ("nDCG@10", "nDCG@5", "P@5", "RR")
ORDERS = ("perfect", "reversed", "shuffled")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DO_NOT_TRACK": "1"}
    return subprocess.run(
        [sys.executable, "-m", "csrwh.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
    )


def reciprocal_rank(ranked: list[str], grades: dict[str, int]) -> float:
    return next((1 / (i + 1) for i, d in enumerate(ranked) if grades.get(d, 0) >= 1), 0.0)


def independent(run: list[tuple[str, str, float]], judged: dict[str, dict[str, int]]) -> dict:
    """Per-topic values over the judged topics the run answers, and their mean."""
    ranked: dict[str, list[str]] = {}
    for topic, doc, _score in sorted(run, key=lambda r: (r[0], -r[2])):
        ranked.setdefault(topic, []).append(doc)
    topics = sorted(set(judged) & set(ranked))
    per_topic = {
        t: {
            "nDCG@10": ndcg_at(ranked[t], judged[t], 10),
            "nDCG@5": ndcg_at(ranked[t], judged[t], 5),
            "P@5": precision_at(ranked[t], judged[t], 5),
            "RR": reciprocal_rank(ranked[t], judged[t]),
        }
        for t in topics
    }
    mean = {m: sum(v[m] for v in per_topic.values()) / len(topics) for m in MEASURES}
    return {"per_topic": per_topic, "aggregate": mean, "topics": set(topics)}


def make_run(judged: dict[str, dict[str, int]], order: str) -> list[tuple[str, str, float]]:
    """Every 4th topic left out (missing), one topic no qrels judge; shuffled runs also rank an
    unjudged document first."""
    rng = random.Random(11)
    run = []
    for index, topic in enumerate(sorted(judged)):
        if index % 4 == 3:
            continue
        docs = sorted(judged[topic].items(), key=lambda x: (-x[1], x[0]))
        if order == "reversed":
            docs.reverse()
        elif order == "shuffled":
            rng.shuffle(docs)
            docs.insert(0, (f"unjudged-{index}", 0))
        run += [(topic, doc, float(100 - i)) for i, (doc, _) in enumerate(docs)]
    run.append(("not-a-judged-topic", "some-doc", 1.0))
    return run


def write_run(path: Path, run: list[tuple[str, str, float]]) -> Path:
    ranks: dict[str, int] = {}
    lines = []
    for topic, doc, score in run:
        ranks[topic] = ranks.get(topic, 0) + 1
        lines.append(f"{topic} Q0 {doc} {ranks[topic]} {score} test\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def measure_args() -> list[str]:
    return [arg for m in MEASURES for arg in ("--measure", m)]


def assert_one_error(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)


def several_kinds(judgments: dict) -> tuple[str, dict[str, dict[str, dict[str, int]]]]:
    """(collection, its judgments by kind) of the sample's collection with the most judgment
    kinds (the judgments fixture's shape), the first by name among equals."""
    collection = min(judgments, key=lambda c: (-len(judgments[c]), c))
    return collection, judgments[collection]


def kind_order(kinds) -> list[str]:
    """The kinds as `csrwh eval --qrels all` reports them: each kind by name, then ``all``."""
    return [*sorted(k for k in kinds if k != "all"), "all"]


def ndcg_at(ranked: list[str], grades: dict[str, int], k: int) -> float:
    """trec_eval's ndcg_cut: gain = grade (a negative grade gains 0, as a non-relevant one),
    discount log2(rank + 1), ideal from all judged grades."""
    dcg = sum(max(grades.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:k]))
    return dcg / idcg if idcg else 0.0


def precision_at(ranked: list[str], grades: dict[str, int], k: int) -> float:
    return sum(1 for d in ranked[:k] if grades.get(d, 0) >= 1) / k
