"""GX's DuckDB connection: the build's memory cap, one thread (csrwh.validate.GX_DUCKDB_THREADS)."""

from __future__ import annotations

import duckdb

from csrwh import validate as v


def test_gx_connection_has_the_build_memory_cap_and_one_thread(tmp_path, monkeypatch):
    database = tmp_path / "w.duckdb"
    duckdb.connect(str(database)).close()
    monkeypatch.setenv("CSRWH_MEMORY_LIMIT", "300")  # MiB
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
    report = v.validate(database, run_id="t", suites=["raw"], data_docs_dir=None, record=False)
    assert report.outcomes  # every raw suite reports its table missing
    assert int(seen["threads"]) == 1
    assert seen["memory_limit"] == "300.0 MiB", seen
