"""The build's key-path scan (every raw payload parsed, csrwh.pipeline.novelty) runs with the
build's DuckDB memory limit and threads, spilling into the folder it is given; with DuckDB's
default limit (most of the machine's memory) the build's own process held 742 MB for it at
300k generated conversations."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from csrwh.pipeline import lineage, novelty


def test_key_path_scan_runs_with_the_builds_memory_limit_and_spill_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CSRWH_MEMORY_LIMIT", "300MiB")
    monkeypatch.setenv("CSRWH_THREADS", "1")
    database = tmp_path / "w.duckdb"
    duckdb.connect(str(database)).close()
    seen: dict[str, object] = {}

    def fake_unlisted(con, spec, tables):  # type: ignore[no-untyped-def]
        seen["settings"] = con.execute(
            "select current_setting('memory_limit'), current_setting('threads'), "
            "current_setting('temp_directory')"
        ).fetchone()
        return []

    monkeypatch.setattr(lineage, "unlisted_paths", fake_unlisted)
    outcomes = novelty.lineage_outcomes(database, tmp_path / "spill")

    expected_limit = (
        duckdb.connect(config={"memory_limit": "300MiB"})
        .execute("select current_setting('memory_limit')")
        .fetchone()[0]
    )
    assert seen["settings"] == (expected_limit, 1, str(tmp_path / "spill"))
    assert outcomes and all(o.success for o in outcomes)
