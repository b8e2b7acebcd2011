"""An own corpus with its own relevance judgments, end to end, as a lab brings them.

A data folder holds one own corpus, ``lab_search``: conversations (custom/<name>/*.jsonl), a
corpus.json declaring the judgment kind ``relevance`` on a graded scale -2..4, and
``relevance.qrels`` (TREC qrels) with negative grades, topics that are conversation ids and
topics that are not, and three bad lines: three fields, a grade ``high``, and a (topic,
document) pair judged twice with two grades. The build (``--allow-rejects``) lands the good
lines and rejects the bad ones verbatim with file, line and reason; ``csrwh eval --corpus
custom:lab_search`` scores a run and equals ir_measures called directly on the file's
judgments; and the project tree is left as it was (an own corpus touches no project file).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from csrwh.config import PROJECT_ROOT

NAME = "lab_search"
CONVERSATIONS = [
    {
        "id": f"s{i}",
        "user_id": f"p{i % 3}",
        "messages": [
            {"role": "user", "text": f"Find papers on topic {i}", "labels": ["search"]},
            {"role": "assistant", "text": f"Here are three papers on topic {i}."},
        ],
    }
    for i in range(1, 6)
]
GOOD_LINES = [
    f"{topic} 0 {doc} {grade}"
    for topic, docs in {
        "s1": {"d1": 4, "d2": 2, "d3": -2, "d4": 0},
        "s2": {"d1": 1, "d5": 3, "d6": -1},
        "s3": {"d7": 0, "d8": 2},
        "free-topic": {"d1": 3, "d9": 0, "d2": -2},
    }.items()
    for doc, grade in docs.items()
]
#: the bad lines and the reason each is rejected with (the line numbers follow GOOD_LINES)
BAD_LINES = [
    ("s4 0 d1", "wrong field count: qrels line has 3 fields"),
    ("s4 0 d2 high", "grade is not an integer: high"),
    (
        "s1 0 d2 3",
        "topic s1 document d2 is judged twice: first at lab_search/relevance.qrels line 2",
    ),
]
CORPUS_JSON = {
    "description": "A lab's conversational search study",
    "language": "en",
    "judgment_kinds": {
        "relevance": {"min": -2, "max": 4, "description": "graded relevance, -2 spam .. 4 perfect"}
    },
}


def _git_status() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=PROJECT_ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DO_NOT_TRACK": "1", "CSRWH_DBT_TARGET_PATH": str(cwd / "target")}
    return subprocess.run(
        [sys.executable, "-m", "csrwh.cli", *args],
        cwd=cwd,
        env=env,
        check=False,
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def lab(module_tmp_path: Path) -> dict:
    root = module_tmp_path
    folder = root / "data" / "custom" / NAME
    folder.mkdir(parents=True)
    (folder / "corpus.json").write_text(json.dumps(CORPUS_JSON), encoding="utf-8")
    (folder / "study.jsonl").write_text(
        "".join(json.dumps(c) + "\n" for c in CONVERSATIONS), encoding="utf-8"
    )
    lines = GOOD_LINES + [line for line, _ in BAD_LINES]
    (folder / "relevance.qrels").write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = _git_status()
    warehouse = root / "warehouse" / "lab.duckdb"
    built = _cli(
        "build", "--data-dir", str(root / "data"), "--warehouse", str(warehouse),
        "--allow-rejects", cwd=root,
    )  # fmt: skip
    return {
        "root": root,
        "warehouse": warehouse,
        "built": built,
        "status_before": before,
        "status_after": _git_status(),
    }


def test_the_build_publishes_and_touches_no_project_file(lab: dict) -> None:
    assert lab["built"].returncode == 0, (lab["built"].stdout + lab["built"].stderr)[-4000:]
    assert lab["status_after"] == lab["status_before"]


def test_bad_qrels_lines_are_rejected_with_file_line_and_reason(lab: dict) -> None:
    with duckdb.connect(str(lab["warehouse"]), read_only=True) as con:
        rejected = con.execute(
            "select source_path, line_number, error, raw_text from raw.rejected_records "
            "order by line_number"
        ).fetchall()
    first_bad = len(GOOD_LINES) + 1
    assert [(path, line, text) for path, line, _, text in rejected] == [
        (f"{NAME}/relevance.qrels", first_bad + i, text) for i, (text, _) in enumerate(BAD_LINES)
    ]
    for (_, _, error, _), (_, reason) in zip(rejected, BAD_LINES, strict=True):
        assert reason in error and "\n" not in error


def test_judgments_land_on_their_declared_scale_and_link_to_conversations(lab: dict) -> None:
    with duckdb.connect(str(lab["warehouse"]), read_only=True) as con:
        got = con.execute(
            "select topic_id, doc_id, grade, judgment_kind, collection, corpus, grade_min, "
            "grade_max, is_implicit, conversation_id, turn_index from relevance_judgments "
            "order by topic_id, doc_id"
        ).fetchall()
    want = sorted(
        (
            topic, doc, int(grade), "relevance", f"custom:{NAME}", "custom", -2, 4, False,
            None if topic == "free-topic" else f"custom:{NAME}/{topic}",
            None if topic == "free-topic" else 0,
        )
        for topic, _, doc, grade in (line.split() for line in GOOD_LINES)
    )  # fmt: skip
    assert got == want


def test_eval_of_the_own_corpus_equals_ir_measures_called_directly(lab: dict) -> None:
    import ir_measures

    judged = [line.split() for line in GOOD_LINES]
    # a run ranking each judged topic's documents in reverse name order, plus an unjudged topic
    run_lines = []
    for topic in dict.fromkeys(t for t, _, _, _ in judged):
        docs = sorted((d for t, _, d, _ in judged if t == topic), reverse=True)
        run_lines += [f"{topic} Q0 {d} {r} {10 - r} x" for r, d in enumerate(docs, start=1)]
    run_lines.append("nobody Q0 d1 1 1.0 x")
    run = lab["root"] / "lab.run"
    run.write_text("\n".join(run_lines) + "\n", encoding="utf-8")
    measures = ["nDCG@10", "P@5", "AP", "RR"]
    out = _cli(
        "eval", str(run), "--warehouse", str(lab["warehouse"]), "--corpus", f"custom:{NAME}",
        "--format", "json", *[a for m in measures for a in ("--measure", m)], cwd=lab["root"],
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["corpus"] == f"custom:{NAME}"
    assert [r["kind"] for r in report["results"]] == ["relevance", "all"]
    qrels = [ir_measures.Qrel(t, d, int(g)) for t, _, d, g in judged]
    scored = [
        ir_measures.ScoredDoc(t, d, float(s))
        for t, _, d, _, s, _ in (line.split() for line in run_lines)
    ]
    direct = ir_measures.calc_aggregate(
        [ir_measures.parse_measure(m) for m in measures], qrels, scored
    )
    for result in report["results"]:
        assert result["n_topics_evaluated"] == 4 and result["n_run_topics_unjudged"] == 1
        for measure in measures:
            assert result["aggregate"][measure] == pytest.approx(
                direct[ir_measures.parse_measure(measure)], abs=1e-9
            ), measure
