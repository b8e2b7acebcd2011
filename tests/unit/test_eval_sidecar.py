"""`csrwh eval --save` into the evaluations sidecar, and the dashboard's Leaderboard (query layer and
page) over a sidecar made here."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import duckdb
import pytest
from eval_runs import (
    make_run,
    write_run,
)

from csrwh.errors import CsrwhError
from csrwh.reading import eval_sidecar as S
from csrwh.reading import evaluate as E
from csrwh.reading.dashboard import PAGES_DIR
from csrwh.reading.dashboard import queries as q


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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
