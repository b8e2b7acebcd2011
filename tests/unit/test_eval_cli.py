"""`csrwh eval` on the built sample against an independent nDCG@k / P@k / RR (tests/unit/eval_runs.py,
not through ir_measures), its errors, and the README's example."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from eval_runs import (
    MEASURES,
    ORDERS,
    assert_one_error,
    independent,
    make_run,
    measure_args,
    reciprocal_rank,
    run_cli,
    write_run,
)

from csrwh.config import PROJECT_ROOT
from csrwh.reading import eval_sidecar as S

# ---------------------------------------------------------------------------------------------
# agreement with the independent computation
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("order", ORDERS)
def test_eval_agrees_with_an_independent_computation(
    order: str, sample_warehouse: Path, judgments, tmp_path: Path
) -> None:
    run = make_run(judgments["all"], order)
    path = write_run(tmp_path / f"{order}.run", run)
    result = run_cli(
        "eval", str(path), "--warehouse", str(sample_warehouse), "--format", "json", "--per-topic",
        *measure_args(),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert "mean over the topics of the qrels that the run answers" in report["aggregation"]
    assert [r["kind"] for r in report["results"]] == ["search", "recommendation", "all"]
    run_topics = {t for t, _, _ in run}
    for item in report["results"]:
        judged = judgments[item["kind"]]
        expected = independent(run, judged)
        assert item["n_topics_qrels"] == len(judged)
        assert item["n_topics_evaluated"] == len(expected["topics"]) > 0
        assert item["n_topics_missing"] == len(set(judged) - run_topics) > 0
        assert item["n_run_topics_unjudged"] == len(run_topics - set(judged))
        assert set(item["per_topic"]) == expected["topics"]
        for measure in MEASURES:
            assert item["aggregate"][measure] == pytest.approx(
                expected["aggregate"][measure], abs=1e-6
            ), (item["kind"], measure)
            for topic, values in expected["per_topic"].items():
                assert item["per_topic"][topic][measure] == pytest.approx(
                    values[measure], abs=1e-6
                ), (item["kind"], topic, measure)
        if order == "perfect":
            assert item["aggregate"]["nDCG@10"] == pytest.approx(1.0)


def test_reversed_and_shuffled_score_below_perfect(
    sample_warehouse: Path, judgments, tmp_path: Path
) -> None:
    scores = {}
    for order in ORDERS:
        path = write_run(tmp_path / f"{order}.run", make_run(judgments["all"], order))
        out = run_cli(
            "eval", str(path), "--warehouse", str(sample_warehouse), "--format", "json",
            "--qrels", "all", "--measure", "nDCG@10",
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        scores[order] = json.loads(out.stdout)["results"][-1]["aggregate"]["nDCG@10"]
    assert scores["reversed"] < scores["perfect"] and scores["shuffled"] < scores["perfect"]


def test_table_and_csv_give_the_same_numbers_and_say_how_they_aggregate(
    sample_warehouse: Path, judgments, tmp_path: Path
) -> None:
    run = make_run(judgments["all"], "shuffled")
    path = write_run(tmp_path / "shuffled.run", run)
    expected = independent(run, judgments["search"])
    common = [str(path), "--warehouse", str(sample_warehouse), "--qrels", "search", *measure_args()]
    table = run_cli("eval", *common)
    assert table.returncode == 0, table.stderr
    assert "trec_eval" in table.stdout and "not counted (not as 0)" in table.stdout
    assert f"{expected['aggregate']['nDCG@10']:.4f}" in table.stdout
    assert f"{len(expected['topics'])} of {len(judgments['search'])}" in table.stdout
    assert "│ search" in table.stdout and "│ recommendation" not in table.stdout  # one kind asked
    out = run_cli("eval", *common, "--format", "csv", "--per-topic")
    assert out.returncode == 0, out.stderr
    assert "trec_eval" in out.stderr  # the note goes beside the CSV, not into it
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    aggregate = {r["measure"]: r for r in rows if r["topic_id"] == ""}
    assert set(aggregate) == set(MEASURES)
    for measure, row in aggregate.items():
        assert float(row["value"]) == pytest.approx(expected["aggregate"][measure], abs=1e-6)
        assert int(row["n_topics_evaluated"]) == len(expected["topics"])
    per_topic = [r for r in rows if r["topic_id"]]
    assert len(per_topic) == len(expected["topics"]) * len(MEASURES)
    for row in per_topic:
        assert float(row["value"]) == pytest.approx(
            expected["per_topic"][row["topic_id"]][row["measure"]], abs=1e-6
        )


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("third_line", "problem"),
    [
        ("t Q0 d 3 1.0", "expected 6 fields"),
        ("t Q0 d three 1.0 x", "rank must be an integer"),
        ("t Q0 d 3 nan x", "score is not finite"),
        ("t Q0 a 3 1.0 x", "document a listed twice"),
    ],
)
def test_a_bad_run_line_is_one_error_with_its_line_number(
    sample_warehouse: Path, tmp_path: Path, third_line: str, problem: str
) -> None:
    path = tmp_path / "bad.run"
    path.write_text(f"t Q0 a 1 3.0 x\nt Q0 b 2 2.0 x\n{third_line}\n", encoding="utf-8")
    result = run_cli("eval", str(path), "--warehouse", str(sample_warehouse))
    assert_one_error(result, 1, f"bad.run:3: {problem}")


def test_a_run_on_other_topic_ids_is_an_error(sample_warehouse: Path, tmp_path: Path) -> None:
    path = tmp_path / "elsewhere.run"
    path.write_text("q1 Q0 d1 1 1.0 x\nq2 Q0 d1 1 1.0 x\n", encoding="utf-8")
    result = run_cli("eval", str(path), "--warehouse", str(sample_warehouse))
    assert_one_error(result, 1, "answers none of the", "'q1'", "csrwh export --trec")


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["--measure", "nDCG@@10"], 1, "unknown measure 'nDCG@@10'"),
        (["--qrels", "both"], 2, "unknown qrels kind 'both'"),
        (["--format", "xml"], 2, "unknown --format 'xml'"),
        (["--replace"], 2, "--replace needs --save NAME"),
        (["--save", " "], 2, "invalid run name"),
    ],
)
def test_bad_options_are_one_error(
    sample_warehouse: Path, judgments, tmp_path: Path, args: list[str], code: int, needle: str
) -> None:
    path = write_run(tmp_path / "ok.run", make_run(judgments["all"], "perfect"))
    result = run_cli("eval", str(path), "--warehouse", str(sample_warehouse), *args)
    assert_one_error(result, code, needle)


def test_missing_warehouse_and_warehouse_without_judgments(tmp_path: Path) -> None:
    path = tmp_path / "ok.run"
    path.write_text("t Q0 d 1 1.0 x\n", encoding="utf-8")
    result = run_cli("eval", str(path), "--warehouse", str(tmp_path / "absent.duckdb"))
    assert_one_error(result, 1, "does not exist")
    empty = tmp_path / "empty.duckdb"
    with duckdb.connect(str(empty)) as con:
        con.execute(
            "create table relevance_judgments (topic_id varchar, doc_id varchar, grade integer, "
            "judgment_kind varchar)"
        )
    assert_one_error(
        run_cli("eval", str(path), "--warehouse", str(empty)), 1, "no relevance judgments"
    )
    missing_run = run_cli("eval", str(tmp_path / "absent.run"), "--warehouse", str(empty))
    assert_one_error(missing_run, 1, "run file not found")


def test_a_kind_without_judgments(tmp_path: Path) -> None:
    """Asked alone it is an error; in the breakdown it is a row with no topic and no value."""
    warehouse = tmp_path / "rec_only.duckdb"
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "create table relevance_judgments as select * from (values ('r1', 'd1', 2, "
            "'recommendation'), ('r1', 'd2', 0, 'recommendation')) as t(topic_id, doc_id, grade, "
            "judgment_kind)"
        )
    run = tmp_path / "r.run"
    run.write_text("r1 Q0 d2 1 2.0 x\nr1 Q0 d1 2 1.0 x\n", encoding="utf-8")
    alone = run_cli("eval", str(run), "--warehouse", str(warehouse), "--qrels", "search")
    assert_one_error(alone, 1, "holds no search relevance judgments")
    both = run_cli("eval", str(run), "--warehouse", str(warehouse), "--format", "json",
                   "--measure", "RR")  # fmt: skip
    assert both.returncode == 0, both.stderr
    results = {r["kind"]: r for r in json.loads(both.stdout)["results"]}
    assert results["search"]["n_topics_qrels"] == 0 and results["search"]["aggregate"] == {
        "RR": None
    }
    assert results["all"]["aggregate"]["RR"] == pytest.approx(
        reciprocal_rank(["d2", "d1"], {"d1": 2, "d2": 0})
    )
    table = run_cli("eval", str(run), "--warehouse", str(warehouse), "--measure", "RR")
    assert table.returncode == 0 and "0 of 0" in table.stdout


def test_eval_has_help_with_the_common_options() -> None:
    result = run_cli("eval", "--help")
    assert result.returncode == 0, result.stderr
    for option in ("--qrels", "--measure", "--per-topic", "--format", "--save", "--replace",
                   "--warehouse", "--data-dir"):  # fmt: skip
        assert option in result.stdout


# ---------------------------------------------------------------------------------------------
# --save: the evaluations sidecar


# ---------------------------------------------------------------------------------------------
# the README's example, run on the sample
# ---------------------------------------------------------------------------------------------


def readme_blocks(heading: str) -> dict[str, str]:
    """The first ```bash and ```python blocks of the README section ``heading``."""
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks = {}
    for lang in ("bash", "python"):
        if f"```{lang}\n" in section:
            blocks[lang] = section.split(f"```{lang}\n", 1)[1].split("```", 1)[0]
    return blocks


def run_readme(block: str, lang: str, cwd: Path, warehouse: Path) -> subprocess.CompletedProcess:
    code = block.replace("warehouse/demo.duckdb", str(warehouse))
    if lang == "bash":
        code = "set -euo pipefail\n" + code.replace(
            ".venv/bin/csrwh", f"{sys.executable} -m csrwh.cli"
        )
        cmd = ["bash", "-c", code]
    else:
        cmd = [sys.executable, "-c", code]
    env = {**os.environ, "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "HF_HOME": str(cwd / "hf_home")}  # fmt: skip
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, check=False)


def test_readme_run_evaluation_example_works_on_the_sample(
    warehouse_copy: Path, tmp_path: Path
) -> None:
    blocks = readme_blocks("## Run evaluation")
    result = run_readme(blocks["bash"], "bash", tmp_path, warehouse_copy)
    assert result.returncode == 0, result.stderr
    assert "trec_eval" in result.stdout and "nDCG@10" in result.stdout
    rows = list(csv.DictReader(io.StringIO((tmp_path / "toy.csv").read_text(encoding="utf-8"))))
    assert rows and {r["kind"] for r in rows} == {"search"} and any(r["topic_id"] for r in rows)
    with duckdb.connect(str(S.sidecar_path(warehouse_copy)), read_only=True) as con:
        assert con.execute("select run_name, measures from eval_runs").fetchall()[0] == (
            "toy",
            ["AP"],
        )
    python = run_readme(blocks["python"], "python", tmp_path, warehouse_copy)
    assert python.returncode == 0, python.stderr
    assert "nDCG@10" in python.stdout
