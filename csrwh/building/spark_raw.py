"""DuckDB tables as Parquet folders Spark reads (``csrwh build --engine spark``, issue 28)."""

from __future__ import annotations

from pathlib import Path


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
