"""`csrwh ingest` lands through a connection with a build's DuckDB settings: without its
``memory_limit`` DuckDB held ~3.4 GB at 100k generated conversations and ~10 GB at 1M while
landing them (the build's ingest, with the limit: ~1.5 GB)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import duckdb
import pytest

import ingest
from csrwh.errors import CsrwhError
from csrwh.pipeline.ingest_only import ingest_only


def test_ingest_runs_with_the_builds_memory_limit_threads_and_spill_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CSRWH_MEMORY_LIMIT", "300MiB")
    monkeypatch.setenv("CSRWH_THREADS", "1")
    seen: dict[str, object] = {}

    def fake_run_ingest(data_dir, warehouse, corpora=None):  # type: ignore[no-untyped-def]
        assert isinstance(warehouse, duckdb.DuckDBPyConnection), (
            f"run_ingest was given {warehouse!r}, not a connection with the build's settings"
        )
        seen["limit"], seen["threads"], seen["spill"] = warehouse.execute(
            "select current_setting('memory_limit'), current_setting('threads'), "
            "current_setting('temp_directory')"
        ).fetchone()
        warehouse.execute("create schema raw; create table raw.landed as select 1 as x")
        return "summary"

    monkeypatch.setattr(ingest, "run_ingest", fake_run_ingest)
    (tmp_path / "data").mkdir()
    (tmp_path / "wh").mkdir()
    result = ingest_only(tmp_path / "data", tmp_path / "wh" / "csr.duckdb")

    expected_limit = (
        duckdb.connect(config={"memory_limit": "300MiB"})
        .execute("select current_setting('memory_limit')")
        .fetchone()[0]
    )
    assert (seen["limit"], seen["threads"]) == (expected_limit, 1)
    spill = Path(str(seen["spill"]))
    assert spill.parent == tmp_path / "wh", spill
    assert not spill.exists(), "the spill folder is left behind"
    assert result.summary == "summary"
    with duckdb.connect(str(result.landed), read_only=True) as con:
        assert con.execute("select x from raw.landed").fetchall() == [(1,)]
    assert sorted(p.name for p in (tmp_path / "wh").iterdir()) == ["csr.duckdb.ingested"]


def test_a_signal_inside_a_duckdb_query_is_an_interrupted_ingest(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Ctrl-C while DuckDB runs a query: DuckDB turns the KeyboardInterrupt raised inside it into
    its own "Query interrupted" error. The ingest still ends as interrupted (exit 130), with
    nothing left behind."""

    def interrupted_run_ingest(data_dir, warehouse, corpora=None):  # type: ignore[no-untyped-def]
        try:
            os.kill(os.getpid(), signal.SIGINT)
        except KeyboardInterrupt:  # as DuckDB does with one raised inside its query
            raise RuntimeError("Query interrupted") from None
        raise AssertionError("SIGINT was not delivered")

    monkeypatch.setattr(ingest, "run_ingest", interrupted_run_ingest)
    (tmp_path / "data").mkdir()
    (tmp_path / "wh").mkdir()
    with pytest.raises(CsrwhError) as caught:
        ingest_only(tmp_path / "data", tmp_path / "wh" / "csr.duckdb")
    assert caught.value.exit_code == 130
    assert "ingest interrupted by SIGINT" in str(caught.value)
    assert list((tmp_path / "wh").iterdir()) == []


def test_the_guard_tells_an_error_raised_after_a_signal_from_one_before() -> None:
    from csrwh.pipeline.signals import _SignalGuard

    with _SignalGuard() as guard:
        assert not guard.interrupted(RuntimeError("Query interrupted"))
        try:
            os.kill(os.getpid(), signal.SIGINT)
        except KeyboardInterrupt as exc:
            assert guard.interrupted(exc)
        assert guard.interrupted(RuntimeError("Query interrupted"))
        assert guard.signum == signal.SIGINT
