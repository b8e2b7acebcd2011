"""GX's DuckDB connection: csrwh.gate.gx_settings.GX_MEMORY_SHARE of the build's memory cap, so
CSRWH_MEMORY_LIMIT raises it (issue 23: a fixed 512 MiB left a gate no setting could raise),
one thread (GX_DUCKDB_THREADS). GX runs in the gate's child process; these tests call the
child's runner (csrwh.gate.gx_run.run_suites) in this process to watch its connection."""

from __future__ import annotations

import datetime as dt
import logging

import duckdb
import pytest

from csrwh.gate import gx_run as v

WHEN = dt.datetime(2026, 1, 2)


@pytest.mark.parametrize(
    "build_cap, gx_cap", [("300", "150.0 MiB"), ("1024", "512.0 MiB"), ("3GiB", "1.5 GiB")]
)
def test_gx_connection_has_its_memory_cap_and_one_thread(tmp_path, monkeypatch, build_cap, gx_cap):
    database = tmp_path / "w.duckdb"
    duckdb.connect(str(database)).close()
    monkeypatch.setenv("CSRWH_MEMORY_LIMIT", build_cap)  # MiB
    monkeypatch.setenv("CSRWH_THREADS", "2")  # the build's threads; GX's stays at one
    seen = {}
    existing = v._existing_tables

    def watched(engine):
        with engine.connect() as con:
            seen.update(
                con.exec_driver_sql(
                    "select current_setting('threads') as threads, "
                    "current_setting('memory_limit') as memory_limit"
                )
                .mappings()
                .one()
            )
        return existing(engine)

    monkeypatch.setattr(v, "_existing_tables", watched)
    report = v.run_suites(database, "t", WHEN, suites=["raw"])
    assert report.outcomes  # every raw suite reports its table missing
    assert int(seen["threads"]) == 1
    assert seen["memory_limit"] == gx_cap, seen


def test_gx_info_lines_stay_off_the_console(tmp_path, caplog):
    """GX's context announces a temporary docs folder at INFO from a logger with a level of
    its own; a build's console showed it every time."""
    database = tmp_path / "w.duckdb"
    duckdb.connect(str(database)).close()
    caplog.set_level(logging.INFO)
    v.run_suites(database, "t", WHEN, suites=["raw"])
    gx_records = [r for r in caplog.records if r.name.startswith("great_expectations")]
    assert [r for r in gx_records if r.levelno < logging.ERROR] == [], gx_records
    assert logging.getLogger("great_expectations.data_context.types.base").level == logging.INFO
