"""`csrwh eval` on the built sample against an independent nDCG@k / P@k / RR (tests/eval_runs.py,
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
from docs_text import code_blocks, doc_section
from eval_runs import (
    MEASURES,
    ORDERS,
    assert_one_error,
    independent,
    kind_order,
    make_run,
    measure_args,
    reciprocal_rank,
    run_cli,
    several_kinds,
    write_run,
)

from csrwh.reading import eval_sidecar as S

# ---------------------------------------------------------------------------------------------
# agreement with the independent computation
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("order", ORDERS)
def test_eval_agrees_with_an_independent_computation(
    order: str, sample_warehouse: Path, judgments, tmp_path: Path
) -> None:
    """Every collection of the sample, each kind and all, against the independent oracle."""
    for collection, by_kind in judgments.items():
        run = make_run(by_kind["all"], order)
        path = write_run(tmp_path / f"{order}.run", run)
        result = run_cli(
            "eval", str(path), "--warehouse", str(sample_warehouse), "--corpus", collection,
            "--format", "json", "--per-topic", *measure_args(),
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["corpus"] == collection
        assert "mean over the topics of the qrels that the run answers" in report["aggregation"]
        assert [r["kind"] for r in report["results"]] == kind_order(by_kind)
        run_topics = {t for t, _, _ in run}
        for item in report["results"]:
            judged = by_kind[item["kind"]]
            expected = independent(run, judged)
            assert item["n_topics_qrels"] == len(judged)
            assert item["n_topics_evaluated"] == len(expected["topics"]) > 0
            assert item["n_topics_missing"] == len(set(judged) - run_topics)
            assert item["n_run_topics_unjudged"] == len(run_topics - set(judged))
            assert set(item["per_topic"]) == expected["topics"]
            for measure in MEASURES:
                assert item["aggregate"][measure] == pytest.approx(
                    expected["aggregate"][measure], abs=1e-6
                ), (collection, item["kind"], measure)
                for topic, values in expected["per_topic"].items():
                    assert item["per_topic"][topic][measure] == pytest.approx(
                        values[measure], abs=1e-6
                    ), (collection, item["kind"], topic, measure)
            if order == "perfect" and any(g > 0 for docs in judged.values() for g in docs.values()):
                assert item["aggregate"]["nDCG@10"] == pytest.approx(1.0)


def test_reversed_and_shuffled_score_below_perfect(
    sample_warehouse: Path, judgments, tmp_path: Path
) -> None:
    scores = {}
    collection, by_kind = several_kinds(judgments)
    for order in ORDERS:
        path = write_run(tmp_path / f"{order}.run", make_run(by_kind["all"], order))
        out = run_cli(
            "eval", str(path), "--warehouse", str(sample_warehouse), "--format", "json",
            "--corpus", collection, "--qrels", "all", "--measure", "nDCG@10",
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        scores[order] = json.loads(out.stdout)["results"][-1]["aggregate"]["nDCG@10"]
    assert scores["reversed"] < scores["perfect"] and scores["shuffled"] < scores["perfect"]


def test_table_and_csv_give_the_same_numbers_and_say_how_they_aggregate(
    sample_warehouse: Path, judgments, tmp_path: Path
) -> None:
    collection, by_kind = several_kinds(judgments)
    asked, other = kind_order(by_kind)[:2]
    run = make_run(by_kind["all"], "shuffled")
    path = write_run(tmp_path / "shuffled.run", run)
    expected = independent(run, by_kind[asked])
    common = [str(path), "--warehouse", str(sample_warehouse), "--corpus", collection,
              "--qrels", asked, *measure_args()]  # fmt: skip
    table = run_cli("eval", *common)
    assert table.returncode == 0, table.stderr
    assert "trec_eval" in table.stdout and "not counted (not as 0)" in table.stdout
    assert f"{expected['aggregate']['nDCG@10']:.4f}" in table.stdout
    assert f"{len(expected['topics'])} of {len(by_kind[asked])}" in table.stdout
    assert f"│ {asked}" in table.stdout and f"│ {other}" not in table.stdout  # one kind asked
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


def test_a_run_on_other_topic_ids_is_an_error(
    sample_warehouse: Path, judgments, tmp_path: Path
) -> None:
    path = tmp_path / "elsewhere.run"
    path.write_text("q1 Q0 d1 1 1.0 x\nq2 Q0 d1 1 1.0 x\n", encoding="utf-8")
    collection, _ = several_kinds(judgments)
    result = run_cli(
        "eval", str(path), "--warehouse", str(sample_warehouse), "--corpus", collection
    )
    assert_one_error(result, 1, "answers none of the", "'q1'", "csrwh export --trec")


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["--measure", "nDCG@@10"], 1, "unknown measure 'nDCG@@10'"),
        (["--qrels", "both"], 2, "unknown qrels kind 'both'"),
        (["--format", "xml"], 2, "unknown --format 'xml'"),
        (["--replace"], 2, "--replace needs --save NAME"),
        (["--save", " "], 2, "invalid run name"),
        (["--corpus", "nosuch"], 2, "no relevance judgments of corpus 'nosuch'"),
        (["--corpus", "custom:nosuch"], 2, "no relevance judgments of corpus 'custom:nosuch'"),
    ],
)
def test_bad_options_are_one_error(
    sample_warehouse: Path, judgments, tmp_path: Path, args: list[str], code: int, needle: str
) -> None:
    collection, by_kind = several_kinds(judgments)
    path = write_run(tmp_path / "ok.run", make_run(by_kind["all"], "perfect"))
    corpus = [] if "--corpus" in args else ["--corpus", collection]
    result = run_cli("eval", str(path), "--warehouse", str(sample_warehouse), *corpus, *args)
    assert_one_error(result, code, needle)


def test_without_corpus_several_corpora_with_judgments_are_named(
    sample_warehouse: Path, judgments, tmp_path: Path
) -> None:
    _, by_kind = several_kinds(judgments)
    path = write_run(tmp_path / "ok.run", make_run(by_kind["all"], "perfect"))
    result = run_cli("eval", str(path), "--warehouse", str(sample_warehouse))
    assert_one_error(result, 2, "relevance judgments of several corpora", *sorted(judgments))
    assert "--corpus" in result.stderr


def test_missing_warehouse_and_warehouse_without_judgments(tmp_path: Path) -> None:
    path = tmp_path / "ok.run"
    path.write_text("t Q0 d 1 1.0 x\n", encoding="utf-8")
    result = run_cli("eval", str(path), "--warehouse", str(tmp_path / "absent.duckdb"))
    assert_one_error(result, 1, "does not exist")
    empty = tmp_path / "empty.duckdb"
    with duckdb.connect(str(empty)) as con:
        con.execute(
            "create table relevance_judgments (collection varchar, topic_id varchar, "
            "doc_id varchar, grade integer, judgment_kind varchar)"
        )
    assert_one_error(
        run_cli("eval", str(path), "--warehouse", str(empty)), 1, "no relevance judgments"
    )
    missing_run = run_cli("eval", str(tmp_path / "absent.run"), "--warehouse", str(empty))
    assert_one_error(missing_run, 1, "run file not found")


def test_one_corpus_with_judgments_needs_no_corpus_and_names_its_kinds(tmp_path: Path) -> None:
    """Without --corpus, the one collection with judgments; a kind it lacks is one error naming
    the kinds it has; its kind and all are both reported."""
    warehouse = tmp_path / "rec_only.duckdb"
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "create table relevance_judgments as select * from (values ('lab', 'r1', 'd1', 2, "
            "'recommendation'), ('lab', 'r1', 'd2', 0, 'recommendation')) as t(collection, "
            "topic_id, doc_id, grade, judgment_kind)"
        )
    run = tmp_path / "r.run"
    run.write_text("r1 Q0 d2 1 2.0 x\nr1 Q0 d1 2 1.0 x\n", encoding="utf-8")
    alone = run_cli("eval", str(run), "--warehouse", str(warehouse), "--qrels", "search")
    assert_one_error(alone, 2, "unknown qrels kind 'search'", "recommendation")
    both = run_cli("eval", str(run), "--warehouse", str(warehouse), "--format", "json",
                   "--measure", "RR")  # fmt: skip
    assert both.returncode == 0, both.stderr
    report = json.loads(both.stdout)
    assert report["corpus"] == "lab"
    results = {r["kind"]: r for r in report["results"]}
    assert list(results) == ["recommendation", "all"]
    assert results["all"]["aggregate"]["RR"] == pytest.approx(
        reciprocal_rank(["d2", "d1"], {"d1": 2, "d2": 0})
    )
    table = run_cli("eval", str(run), "--warehouse", str(warehouse), "--measure", "RR")
    assert table.returncode == 0 and "1 of 1" in table.stdout


def test_eval_has_help_with_the_common_options() -> None:
    result = run_cli("eval", "--help")
    assert result.returncode == 0, result.stderr
    for option in ("--corpus", "--qrels", "--measure", "--per-topic", "--format", "--save", "--replace",
                   "--warehouse", "--data-dir"):  # fmt: skip
        assert option in result.stdout


# ---------------------------------------------------------------------------------------------
# --save: the evaluations sidecar


# ---------------------------------------------------------------------------------------------
# the README's example, run on the sample
# ---------------------------------------------------------------------------------------------


def readme_blocks(heading: str) -> dict[str, str]:
    """The first ```bash and ```python blocks of the documented section ``heading`` (README.md
    or a docs page, found by heading: tests/docs_text.py)."""
    _, section = doc_section(heading)
    found = {lang: code_blocks(section, lang) for lang in ("bash", "python")}
    return {lang: blocks[0] for lang, blocks in found.items() if blocks}


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
    assert (tmp_path / "own.run").stat().st_size > 0  # the own corpus' judgments were exported
    with duckdb.connect(str(S.sidecar_path(warehouse_copy)), read_only=True) as con:
        assert con.execute("select run_name, measures from eval_runs").fetchall()[0] == (
            "toy",
            ["AP"],
        )
    python = run_readme(blocks["python"], "python", tmp_path, warehouse_copy)
    assert python.returncode == 0, python.stderr
    assert "nDCG@10" in python.stdout
