"""`csrwh build --engine spark` on the generated sample, against the DuckDB build of the same
files (issue 28): every mart not excluded in spark_exclusions.yml is identical by value
(``csrwh.pipeline.spark_parity``: EXCEPT ALL both ways, floats rounded to its PRECISION).

One SparkSession for the whole module (one Spark build). Needs the ``spark`` extra and Java
(``make setup-spark``); skipped without them unless CI is set, where that is a failure.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from spark_engine import require_spark

from csrwh.pipeline import spark, spark_parity


@pytest.fixture(scope="module")
def both_engines(module_tmp_path: Path):
    require_spark()
    from csrwh.gate.run import gate
    from csrwh.pipeline import build
    from csrwh.sample import generate

    root = module_tmp_path
    os.environ["CSRWH_DBT_TARGET_PATH"] = str(root / "target")
    data = root / "data"
    generate(data, scale=1, seed=7)
    warehouse = root / "warehouse" / "demo.duckdb"
    assert build(data, warehouse, gates=[gate]).published
    started = time.perf_counter()
    result = spark.spark_build(data, warehouse)
    seconds = time.perf_counter() - started
    yield warehouse, result, seconds
    os.environ.pop("CSRWH_DBT_TARGET_PATH", None)


def test_spark_marts_equal_duckdb_by_value(both_engines) -> None:
    warehouse, result, seconds = both_engines
    print(f"Spark build of the sample: {seconds:.0f} s ({result.summary()})")
    parity = spark_parity.compare(warehouse)
    lines = [p.line() for p in parity]
    assert [
        line for p, line in zip(parity, lines, strict=True) if p.status in ("differs", "missing")
    ] == []
    matched = sorted(p.mart for p in parity if p.status == "match")
    # every mart the Spark build published is compared, and only those are
    assert matched == sorted(result.marts)
    # every mart exists after a Spark build: the Python report models (spark_exclusions.yml,
    # duckdb_pass) from the DuckDB pass over the Spark tables, equal to the DuckDB build's
    assert matched == sorted(spark.project_marts())
    assert set(spark.duckdb_pass_models()) <= set(matched)


def test_spark_build_writes_only_its_folders(both_engines) -> None:
    warehouse, result, _ = both_engines
    names = sorted(p.name for p in warehouse.parent.iterdir())
    # the DuckDB build's files and <warehouse>.spark; the Spark build's work folder is gone
    assert f"{warehouse.name}.spark" in names
    assert not [
        p
        for p in (warehouse.parent / f"{warehouse.name}.build").iterdir()
        if p.name.startswith("spark-")
    ]
    assert not [n for n in names if "metastore" in n or n == "derby.log" or n == "spark-warehouse"]
    published = sorted(p.name for p in result.out.iterdir())
    assert published == sorted([*result.marts, ".csrwh-spark.json"])
    for mart in result.marts:
        files = list((result.out / mart).iterdir())
        assert files and all(f.suffix == ".parquet" for f in files)
