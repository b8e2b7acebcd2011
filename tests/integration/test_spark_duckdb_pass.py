"""The Spark build's DuckDB pass (``csrwh.pipeline.spark_duckdb_pass.duckdb_pass``, issue 28):
the Python report models ``spark_exclusions.yml`` marks ``duckdb_pass`` are built by
dbt-duckdb -- their own code and tests -- over Parquet copies of the tables they read, and come
out equal by value to the DuckDB build's marts. No Spark needed: the lookup of a Spark table's Parquet files is
replaced by the DuckDB warehouse's tables written as Parquet (the Spark side of the same pass is
tests/integration/test_spark_parity.py)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from csrwh.pipeline import spark, spark_duckdb_pass, spark_parity


def test_duckdb_pass_builds_the_report_marts_equal_to_the_duckdb_build(
    sample_warehouse: Path, tmp_path: Path, monkeypatch
) -> None:
    models = spark.duckdb_pass_models()
    assert sorted(models) == ["annotator_agreement", "crs_leaderboard", "text_diversity"]
    manifest = sample_warehouse.with_name(sample_warehouse.name + ".build") / "state"
    manifest = manifest / "manifest.json"
    read: list[str] = []

    def parquet_files(session, table: str, scratch: Path) -> list[str]:
        read.append(table)
        scratch.mkdir(parents=True)
        schema, name = table.split(".")
        with duckdb.connect(str(sample_warehouse), read_only=True) as con:
            con.execute(
                f'copy (select * from "{schema}"."{name}") to ? (format parquet)',
                [str(scratch / "part-0.parquet")],
            )
        return [str(scratch / "part-0.parquet")]

    monkeypatch.setattr(spark_duckdb_pass, "_spark_parquet_files", parquet_files)
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(tmp_path / "target"))
    work = tmp_path / "work"
    built = spark_duckdb_pass.duckdb_pass(work, manifest, models)
    assert built == sorted(models)
    # the models read these relations and nothing else of the build
    assert "intermediate.int_turns_unioned" in read
    assert {"main.conversations", "main.intents", "main.ratings", "main.votes"} <= set(read)
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        for mart in models:
            folder = work / "spark-warehouse" / "main.db" / mart
            parity = spark_parity.compare_mart(con, mart, folder)
            assert parity.status == "match", parity.line()
            assert parity.rows > 0, mart
