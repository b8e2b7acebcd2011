"""`csrwh eval --save` into the evaluations sidecar, and the dashboard's Leaderboard (query layer and
page) over a sidecar made here."""

from __future__ import annotations

import hashlib
import json
import os
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

from csrwh.errors import CsrwhError
from csrwh.reading import eval_sidecar as S
from csrwh.reading import evaluate as E
from csrwh.reading.dashboard import PAGES_DIR
from csrwh.reading.dashboard import queries as q


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


@pytest.mark.parametrize("link", ["hard", "symbolic"])
def test_save_refuses_a_sidecar_that_is_a_link_to_another_file(tmp_path: Path, link: str) -> None:
    """An evaluations file that is a hard or symbolic link (here to another DuckDB database) is
    refused before anything is opened; the other file keeps its bytes."""
    victim = tmp_path / "other" / "lab.duckdb"  # a database DuckDB would open and write
    victim.parent.mkdir(parents=True)
    with duckdb.connect(str(victim)) as con:
        con.execute("create table kept as select 42 as answer")
    before = victim.read_bytes()
    sidecar = tmp_path / "wh.evals.duckdb"
    if link == "hard":
        os.link(victim, sidecar)
    else:
        sidecar.symlink_to(victim)
    with pytest.raises(CsrwhError, match="refusing to write through it"):
        S.save_report(small_report("perfect", tmp_path / "p.run"), "p", sidecar)
    assert victim.read_bytes() == before


def test_sidecar_sits_beside_the_warehouse() -> None:
    assert S.sidecar_path(Path("/w/csr.duckdb")) == Path("/w/csr.evals.duckdb")
    assert S.sidecar_path(Path("/w/demo.duckdb")) == Path("/w/demo.evals.duckdb")
    assert q.evals_path("/w/demo.duckdb") == Path("/w/demo.evals.duckdb")


# ---------------------------------------------------------------------------------------------
# the Leaderboard page and its queries
# ---------------------------------------------------------------------------------------------

SMALL = [("t1", "a", 2), ("t1", "b", 1), ("t1", "c", 0), ("t2", "x", 1), ("t2", "y", 0)]


def small_report(order: str, run_path: Path) -> E.EvalReport:
    judged = {"t1": {"a": 2, "b": 1, "c": 0}, "t2": {"x": 1, "y": 0}}
    run = [(t, d, s) for t, d, s in make_run(judged, order) if t in judged]
    write_run(run_path, run)
    lines = E.read_run(run_path)
    evaluation = E.evaluate(lines, SMALL, ["nDCG@10", "RR"], kind="all")
    return E.EvalReport(
        run_path, E.file_sha256(run_path), None, "b-1", "all", [evaluation], "custom:lab"
    )


@pytest.fixture()
def sidecar(tmp_path: Path) -> Path:
    path = tmp_path / "wh.evals.duckdb"
    S.save_report(small_report("reversed", tmp_path / "rev.run"), "reversed", path)
    S.save_report(small_report("perfect", tmp_path / "perf.run"), "perfect", path)
    return path


def test_leaderboard_queries_read_the_saved_scores(sidecar: Path, tmp_path: Path) -> None:
    reversed_ = small_report("reversed", tmp_path / "again.run").evaluations[0]
    with q.Warehouse(sidecar).open() as db:
        assert q.eval_collections(db) == ["custom:lab"]
        assert q.eval_kinds(db) == ["all"] == q.eval_kinds(db, "custom:lab")
        assert q.eval_kinds(db, "cosrec") == []
        board = q.eval_leaderboard(db, "all", "custom:lab")
        assert q.eval_leaderboard(db, "all", "cosrec").empty
        assert q.eval_leaderboard(db, "search").empty
        topics = q.eval_topic_scores(db, "reversed", "all")
    ndcg = board[board["measure"] == "nDCG@10"]
    assert ndcg["run_name"].tolist() == ["perfect", "reversed"]  # best first
    assert ndcg["value"].tolist() == pytest.approx([1.0, reversed_.aggregate["nDCG@10"]])
    assert ndcg["value"].iloc[1] < 1.0
    assert set(board["n_topics_evaluated"]) == {2} and set(board["build_id"]) == {"b-1"}
    assert len(topics) == 2 * 2
    got = {(r.topic_id, r.measure): r.value for r in topics.itertuples()}
    assert got == pytest.approx(
        {(t, m): v for t, values in reversed_.per_topic.items() for m, v in values.items()}
    )


def test_leaderboard_reads_a_file_saved_before_the_corpus_was_kept(tmp_path: Path) -> None:
    """An evaluations file without eval_runs.collection: its runs under '(not recorded)'; a
    save into it adds the column."""
    old = tmp_path / "old.evals.duckdb"
    ddl = S.SIDECAR_DDL.split("-- the judgments' collection")[0]
    with duckdb.connect(str(old)) as con:
        con.execute(ddl)
        con.execute(
            "insert into eval_runs values ('bm25', 'all', '/r.run', 'x', now(), null, 'b-0', "
            "['RR'], 1, 1, 0, 0)"
        )
        con.execute("insert into eval_scores values ('bm25', 'all', 'RR', null, 0.5)")
    with q.Warehouse(old).open() as db:
        assert q.eval_collections(db) == [q.UNRECORDED]
        assert q.eval_leaderboard(db, "all", q.UNRECORDED)["run_name"].tolist() == ["bm25"]
    S.save_report(small_report("perfect", tmp_path / "p.run"), "perfect", old)
    with q.Warehouse(old).open() as db:
        assert q.eval_collections(db) == [q.UNRECORDED, "custom:lab"]


def test_leaderboard_kinds_of_a_file_without_tables(tmp_path: Path) -> None:
    empty = tmp_path / "empty.evals.duckdb"
    duckdb.connect(str(empty)).close()
    with q.Warehouse(empty).open() as db:
        assert q.eval_kinds(db) == []


def _page(warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("CSRWH_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(str(PAGES_DIR / "leaderboard.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_leaderboard_page_ranks_runs_and_says_how_to_start(
    sidecar: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("streamlit")
    warehouse = tmp_path / "wh.duckdb"
    with duckdb.connect(str(warehouse)) as con:
        con.execute("create table build_info as select 'b-1' as build_id, now() as built_at")
    at = _page(warehouse, monkeypatch)
    shown = at.table[0].value
    assert shown["run"].tolist() == ["perfect", "reversed"]
    assert shown["this build"].tolist() == ["yes", "yes"]
    sidecar.unlink()
    at = _page(warehouse, monkeypatch)
    assert not at.table
    text = " ".join(str(i.value) for i in at.info)
    assert "No saved evaluations" in text and "csrwh eval" in text and "--save" in text
