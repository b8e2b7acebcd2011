"""csrwh eval --save on a copy of the built sample warehouse: the sidecar's runs and scores, the published file never written."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pytest
from eval_runs import (
    MEASURES,
    assert_one_error,
    independent,
    make_run,
    measure_args,
    run_cli,
    several_kinds,
    write_run,
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_save_stores_runs_and_scores_beside_the_warehouse_and_never_writes_it(
    warehouse_copy: Path, judgments, tmp_path: Path
) -> None:
    collection, judged = several_kinds(judgments)
    run = make_run(judged["all"], "shuffled")
    path = write_run(tmp_path / "shuffled.run", run)
    before = sha256(warehouse_copy)
    args = [
        "eval",
        str(path),
        "--warehouse",
        str(warehouse_copy),
        "--corpus",
        collection,
        "--format",
        "json",
        *measure_args(),
    ]
    result = run_cli(*args, "--save", "bm25")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    sidecar = warehouse_copy.with_name("csr.evals.duckdb")
    assert sidecar.is_file() and f"saved as 'bm25' in {sidecar}" in result.stderr
    assert sha256(warehouse_copy) == before  # the published warehouse is never written
    assert not Path(str(warehouse_copy) + ".wal").exists()
    with duckdb.connect(str(warehouse_copy), read_only=True) as con:
        build_id = con.execute("select build_id from build_info").fetchone()[0]
    with duckdb.connect(str(sidecar), read_only=True) as con:
        runs = con.execute(
            "select kind, run_path, run_sha256, build_id, measures, n_topics_qrels, "
            "n_topics_evaluated, n_topics_missing, saved_at from eval_runs where run_name = 'bm25' "
            "order by kind"
        ).fetchall()
        collections = con.execute(
            "select distinct collection from eval_runs where run_name = 'bm25'"
        ).fetchall()
        scores = con.execute(
            "select kind, measure, topic_id, value from eval_scores where run_name = 'bm25'"
        ).fetchall()
    assert sorted(r[0] for r in runs) == sorted(judged)
    assert collections == [(collection,)]
    results = {item["kind"]: item for item in report["results"]}
    for kind, run_path, digest, build, measures, n_qrels, n_eval, n_missing, _ in runs:
        assert (run_path, digest, build) == (str(path.resolve()), sha256(path), build_id)
        assert list(measures) == list(MEASURES)
        item = results[kind]
        expected = independent(run, judged[kind])
        assert (n_qrels, n_eval, n_missing) == (
            item["n_topics_qrels"], len(expected["topics"]), item["n_topics_missing"],
        )  # fmt: skip
        stored = {(m, t): v for k, m, t, v in scores if k == kind}
        for measure in MEASURES:
            assert stored[(measure, None)] == pytest.approx(
                expected["aggregate"][measure], abs=1e-6
            )
            for topic, values in expected["per_topic"].items():
                assert stored[(measure, topic)] == pytest.approx(values[measure], abs=1e-6)
        assert len(stored) == len(MEASURES) * (1 + len(expected["topics"]))

    # the same name again is refused and changes nothing; --replace overwrites it
    again = run_cli(*args, "--save", "bm25")
    assert_one_error(again, 1, "'bm25' is already saved", "--replace")
    assert again.stdout == ""
    with duckdb.connect(str(sidecar), read_only=True) as con:
        assert con.execute("select max(saved_at) from eval_runs").fetchone()[0] == runs[0][-1]
    perfect = write_run(tmp_path / "perfect.run", make_run(judged["all"], "perfect"))
    replaced = run_cli("eval", str(perfect), "--warehouse", str(warehouse_copy), "--save", "bm25",
                       "--corpus", collection,
                       "--replace", "--measure", "nDCG@10", "--format", "csv")  # fmt: skip
    assert replaced.returncode == 0, replaced.stderr
    with duckdb.connect(str(sidecar), read_only=True) as con:
        assert con.execute("select count(distinct run_sha256) from eval_runs").fetchone()[0] == 1
        assert con.execute("select any_value(run_sha256) from eval_runs").fetchone()[0] == sha256(
            perfect
        )
        assert con.execute(
            "select distinct measure from eval_scores where run_name = 'bm25'"
        ).fetchall() == [("nDCG@10",)]
    assert sha256(warehouse_copy) == before


def test_save_into_a_busy_or_foreign_sidecar_is_one_error(
    warehouse_copy: Path, judgments, tmp_path: Path
) -> None:
    collection, by_kind = several_kinds(judgments)
    path = write_run(tmp_path / "p.run", make_run(by_kind["all"], "perfect"))
    sidecar = warehouse_copy.with_name("csr.evals.duckdb")
    args = ["eval", str(path), "--warehouse", str(warehouse_copy), "--corpus", collection,
            "--save", "p"]  # fmt: skip
    with duckdb.connect(str(sidecar)):  # another process holds it (the dashboard, a save)
        assert_one_error(run_cli(*args), 1, "cannot open the evaluations file", "retry")
    sidecar.unlink()
    sidecar.write_text("not a database", encoding="utf-8")
    assert_one_error(run_cli(*args), 1, "cannot open the evaluations file", str(sidecar))
