"""DuckDB tables as Parquet folders Spark reads (``csrwh build --engine spark``)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from csrwh.errors import CsrwhError


def export_raw_parquet(database: Path, out: Path) -> list[str]:
    """Write every table of schema ``raw`` of ``database`` as Parquet under ``out/<table>/``.

    JSON columns become text and TIMESTAMP WITH TIME ZONE columns plain timestamps (UTC), so
    Spark reads ``string`` and ``timestamp_ntz``; the rows are written in the table's order.
    Returns the table names."""
    return export_schema_parquet(database, out, "raw")


def export_schema_parquet(database: Path, out: Path, schema: str) -> list[str]:
    """Every table and view of ``schema`` as Parquet under ``out/<table>/`` (see
    :func:`export_raw_parquet`; HUGEINT columns become BIGINT, which Spark has)."""
    import duckdb

    out.mkdir(parents=True, exist_ok=True)
    tables = []
    with duckdb.connect(str(database), read_only=True) as con:
        con.execute("set TimeZone = 'UTC'")
        rows = con.execute(
            "select table_name, column_name, data_type from information_schema.columns "
            "where table_schema = ? order by table_name, ordinal_position",
            [schema],
        ).fetchall()
        columns: dict[str, list[str]] = {}
        for table, column, data_type in rows:
            ident = '"' + column.replace('"', '""') + '"'
            kind = data_type.upper()
            if kind == "JSON":
                expr = f"cast({ident} as varchar) as {ident}"
            elif kind.startswith("TIMESTAMP WITH TIME ZONE"):
                expr = f"cast({ident} as timestamp) as {ident}"
            elif kind == "HUGEINT":
                expr = f"cast({ident} as bigint) as {ident}"
            else:
                expr = ident
            columns.setdefault(table, []).append(expr)
        for table, exprs in columns.items():
            folder = out / table
            folder.mkdir()
            target = str(folder / "part-0.parquet").replace("'", "''")
            con.execute(
                f'copy (select {", ".join(exprs)} from "{schema}"."{table}") to \'{target}\' '
                "(format parquet, compression zstd)"
            )
            tables.append(table)
    return tables


#: the schemas ``marts_from_duckdb`` takes from the DuckDB warehouse as they are
UPSTREAM_SCHEMAS = ("raw", "seeds", "staging", "intermediate")


def marts_inputs_from_duckdb(
    warehouse: Path,
    work: Path,
    seconds: dict[str, float],
    display,
) -> None:
    """The published DuckDB warehouse's upstream schemas as Parquet, for the marts on Spark
    (``csrwh.pipeline.spark``'s marts-from-duckdb mode); its time goes to ``seconds["parquet"]``."""
    import json

    if not warehouse.is_file():
        raise CsrwhError(
            f"no DuckDB warehouse at {warehouse} to take the marts' inputs from",
            hint=f"build it first: csrwh build --warehouse {warehouse}",
        )
    display.enter("parquet")
    step = time.perf_counter()
    upstream = {}
    for schema in UPSTREAM_SCHEMAS:
        upstream[schema] = export_schema_parquet(warehouse, work / "upstream" / schema, schema)
    os.environ["CSRWH_SPARK_UPSTREAM_DIR"] = str(work / "upstream")
    os.environ["CSRWH_SPARK_UPSTREAM"] = json.dumps(
        {schema: tables for schema, tables in upstream.items() if schema != "raw"}
    )
    seconds["parquet"] = time.perf_counter() - step
