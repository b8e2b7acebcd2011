"""csrwh validate on a built sample warehouse: read-only, the published file byte-identical."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
from cli_run import one_error_line, run_cli, sha256


def test_validate_leaves_the_published_warehouse_byte_identical(
    sample_warehouse: Path, tmp_path: Path
) -> None:
    warehouse = tmp_path / "csr.duckdb"
    shutil.copy2(sample_warehouse, warehouse)
    before = sha256(warehouse)
    with duckdb.connect(str(warehouse), read_only=True) as con:
        builds = con.execute("select count(*), count(distinct run_id) from dq_results").fetchone()
    result = run_cli(
        "validate", "turns", "votes", "--no-docs", "--run-id", "v1", "--warehouse", str(warehouse)
    )
    assert result.returncode == 0, result.stderr
    assert sha256(warehouse) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["csr.dq.duckdb", "csr.duckdb"]
    sidecar = tmp_path / "csr.dq.duckdb"  # csrwh.gate.run.results_sidecar
    with duckdb.connect(str(sidecar), read_only=True) as con:
        runs = con.execute(
            "select run_id, count(distinct suite) from dq_results group by 1"
        ).fetchall()
    assert runs == [("v1", 2)]
    with duckdb.connect(str(warehouse), read_only=True) as con:  # the build's results as they were
        assert (
            con.execute("select count(*), count(distinct run_id) from dq_results").fetchone()
            == builds
        )
    # a bad env value is still one line when the build would be up to date
    data = sample_warehouse.parent.parent / "data"
    up_to_date = run_cli(
        "build", "--data-dir", str(data), "--warehouse", str(warehouse), CSRWH_MEMORY_LIMIT="nan"
    )
    assert up_to_date.returncode == 2 and "CSRWH_MEMORY_LIMIT" in one_error_line(up_to_date)
    assert sha256(warehouse) == before
