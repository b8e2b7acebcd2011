"""The project's suites on the built sample never report an empty observed value (the DuckDB fix of gx_duckdb at work)."""

from __future__ import annotations

import shutil
from pathlib import Path

from csrwh.gate.run import validate


def test_project_suites_never_report_empty_observed_values(
    sample_warehouse: Path, tmp_path: Path
) -> None:
    """The real runner over the built sample: every expectation has an observed value."""
    warehouse = tmp_path / "w.duckdb"
    shutil.copy(sample_warehouse, warehouse)
    report = validate(warehouse, run_id="fix", data_docs_dir=None, record=False)
    empty = [o.message() for o in report.outcomes if o.error or o.observed_value is None]
    assert empty == []
