"""A failed Spark step says why: `dbt run-operation spark_register_raw` over raw folders that
hold no Parquet fails with Spark's own reason in the build's failure lines (dbt's run-operation
result carries none; its error events do)."""

from __future__ import annotations

import os
from pathlib import Path

from spark_engine import require_spark

from csrwh.pipeline import spark


def test_a_failed_raw_registration_carries_spark_s_reason(tmp_path: Path) -> None:
    require_spark()
    os.environ["CSRWH_DBT_TARGET_PATH"] = str(tmp_path / "target")
    (tmp_path / "raw").mkdir()  # no table folders: Spark cannot read any raw table
    try:
        outcome = spark.run_dbt_spark(
            ["run-operation", "spark_register_raw"], tmp_path / "work", tmp_path / "raw"
        )
    finally:
        spark.stop_spark()
        os.environ.pop("CSRWH_DBT_TARGET_PATH", None)
    assert not outcome.success
    assert outcome.failures and "?: error" not in outcome.failures
    assert any("Unable to infer schema for Parquet" in line for line in outcome.failures), (
        outcome.failures
    )
