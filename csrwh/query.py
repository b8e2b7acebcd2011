"""Read side: run SQL against the published warehouse and export marts to Parquet."""

from __future__ import annotations

from pathlib import Path

import duckdb
from rich.console import Console
from rich.table import Table

from csrwh.errors import CsrwhError

MART_SCHEMA = "main"
# Tables in `main` that are bookkeeping, not marts.
NOT_MARTS = ("build_info", "dq_results")


def connect_read_only(warehouse: Path) -> duckdb.DuckDBPyConnection:
    """Open the warehouse read-only, with a clear error when it does not exist yet."""
    if not warehouse.exists():
        raise CsrwhError(
            f"warehouse {warehouse} does not exist",
            hint="build it first: make demo (sample data) or make build (real corpora)",
        )
    try:
        return duckdb.connect(str(warehouse), read_only=True)
    except duckdb.Error as exc:
        raise CsrwhError(f"cannot open {warehouse}: {exc}", hint="is another build writing it?") from exc


def run_query(
    warehouse: Path,
    query: str,
    csv: Path | None = None,
    parquet: Path | None = None,
    max_rows: int = 50,
) -> int:
    """Run `query`; write CSV/Parquet when asked, else print up to `max_rows` rows. Returns row count."""
    con = connect_read_only(warehouse)
    try:
        try:
            relation = con.sql(query)
        except duckdb.Error as exc:
            raise CsrwhError(f"query failed: {str(exc).splitlines()[0]}", hint="check the SQL; list tables with: csrwh sql \"show all tables\"") from exc
        if relation is None:
            return 0
        frame = relation.pl()
    finally:
        con.close()
    if csv is not None:
        csv.parent.mkdir(parents=True, exist_ok=True)
        frame.write_csv(csv)
    if parquet is not None:
        parquet.parent.mkdir(parents=True, exist_ok=True)
        frame.write_parquet(parquet)
    if csv is None and parquet is None:
        table = Table(show_lines=False)
        for column in frame.columns:
            table.add_column(column, overflow="fold")
        for row in frame.head(max_rows).iter_rows():
            table.add_row(*["" if v is None else str(v) for v in row])
        import sys

        Console(width=None if sys.stdout.isatty() else 250).print(table)
        if frame.height > max_rows:
            Console(stderr=True).print(f"({frame.height} rows, {max_rows} shown; use --csv for all)")
    return frame.height


def list_marts(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Tables in the marts schema (dbt marts and report marts)."""
    rows = con.execute(
        "select table_name from information_schema.tables "
        "where table_schema = ? and table_type = 'BASE TABLE' order by table_name",
        [MART_SCHEMA],
    ).fetchall()
    return [name for (name,) in rows if name not in NOT_MARTS]


def export_marts(warehouse: Path, out: Path) -> list[Path]:
    """Write every mart table to `out/<mart>.parquet`."""
    out.mkdir(parents=True, exist_ok=True)
    con = connect_read_only(warehouse)
    written = []
    try:
        for name in list_marts(con):
            target = out / f"{name}.parquet"
            con.execute(f"copy {MART_SCHEMA}.\"{name}\" to '{target.as_posix()}' (format parquet)")
            written.append(target)
    finally:
        con.close()
    return written
