"""benchmarks/build.py's floor child runs the SQL models that call the build's Python functions
(csrwh/dbt_support/udfs.py): every DuckDB connection it opens has them, as dbt's have through the
dbt-duckdb plugin (before issue 26's run, the floor stopped at csrwh_repr_json_status)."""

from __future__ import annotations

import importlib.util

import duckdb
import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.dbt_support.udfs import FUNCTIONS


def _benchmark():
    spec = importlib.util.spec_from_file_location(
        "build_benchmark_functions", PROJECT_ROOT / "benchmarks" / "build.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_floors_connections_have_the_build_functions(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setattr(duckdb, "connect", duckdb.connect)  # restored when the test ends
    _benchmark()._functions_on_every_connection()
    with duckdb.connect(str(tmp_path / "floor.duckdb")) as con:
        names = {
            name
            for (name,) in con.execute(
                "select function_name from duckdb_functions() where function_name like 'csrwh_%'"
            ).fetchall()
        }
        assert names == {spec.name for spec in FUNCTIONS}
        assert con.execute("select csrwh_repr_json_status('{\"a\": 1}')").fetchone() == ("json",)
