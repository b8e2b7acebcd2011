"""Value parity of the Spark marts with the DuckDB warehouse.

``python -m csrwh.pipeline.spark_parity --warehouse W`` compares every mart of ``W`` with its
Spark Parquet folder by value (``EXCEPT ALL`` both ways, floats rounded) and prints one line per
mart: match, differs, excluded or missing. Exit status 1 when a mart differs or is missing.
Details: docs/internals.md#csrwh-pipeline-spark_parity
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from csrwh.errors import CsrwhError
from csrwh.pipeline.spark import project_marts

#: decimal places floats are rounded to before comparing (both engines compute in doubles;
#: sums and averages in another order differ in the last bits)
PRECISION = 9
#: rows shown per side for a mart that differs
EXAMPLES = 3

_FLOATING = ("FLOAT", "DOUBLE", "REAL", "DECIMAL")


@dataclass
class MartParity:
    mart: str
    status: str  # match, differs, excluded, missing
    detail: str = ""
    rows: int = 0
    only_duckdb: list[tuple] = field(default_factory=list)
    only_spark: list[tuple] = field(default_factory=list)

    def line(self) -> str:
        text = f"{self.mart}: {self.status}"
        if self.status == "match":
            text += f" ({self.rows} rows)"
        if self.detail:
            text += f" ({self.detail})" if self.status != "match" else f"; {self.detail}"
        return text


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def exclusion_reasons(
    marts: list[str], manifest: Path | None, excluded: dict[str, str]
) -> dict[str, str]:
    """``{mart: "<selector>: <reason>"}`` for each mart that is, or is built from, what an
    exclusion selects (the manifest's parent map gives the lineage)."""
    from csrwh.pipeline.spark import excluded_by

    if manifest is None or not manifest.exists() or not excluded:
        return {}
    data = json.loads(manifest.read_text(encoding="utf-8"))
    nodes = {**data.get("nodes", {}), **data.get("sources", {})}
    parents = data.get("parent_map", {})
    by_name = {
        node["name"]: uid
        for uid, node in data.get("nodes", {}).items()
        if node.get("resource_type") == "model"
    }
    out = {}
    for mart in marts:
        start = by_name.get(mart)
        seen: set[str] = set()
        queue = [start] if start else []
        found = None
        while queue and found is None:
            uid = queue.pop(0)
            if uid in seen:
                continue
            seen.add(uid)
            node = nodes.get(uid, {})
            for selector, reason in excluded.items():
                if excluded_by(node, selector):
                    found = (
                        f"{selector}: {reason}"
                        if uid == start
                        else (f"built from {node.get('name')}, {selector}: {reason}")
                    )
                    break
            queue.extend(parents.get(uid, []))
        if found is not None:
            out[mart] = found
    return out


def compare_mart(
    con: duckdb.DuckDBPyConnection, mart: str, folder: Path, precision: int = PRECISION
) -> MartParity:
    """One mart of ``con``'s schema ``main`` against the Parquet files in ``folder``."""
    columns = con.execute(
        "select column_name, data_type from information_schema.columns "
        "where table_schema = 'main' and table_name = ? order by ordinal_position",
        [mart],
    ).fetchall()
    spark = f"read_parquet({_sql_str(str(folder / '*.parquet'))})"
    spark_columns = {
        name.lower() for name, *_ in con.execute(f"describe select * from {spark}").fetchall()
    }
    missing = [name for name, _ in columns if name.lower() not in spark_columns]
    if missing:
        return MartParity(mart, "differs", "columns missing on Spark: " + ", ".join(missing))
    exprs = []
    for name, data_type in columns:
        col = _ident(name)
        if data_type.upper().startswith(_FLOATING):
            exprs.append(f"round(cast({col} as double), {int(precision)}) as {col}")
        else:
            exprs.append(f"cast({col} as {data_type}) as {col}")
    select = ", ".join(exprs)
    left = f"select {select} from main.{_ident(mart)}"
    right = f"select {select} from {spark}"
    only_duckdb = con.execute(f"{left} except all {right}").fetchall()
    only_spark = con.execute(f"{right} except all {left}").fetchall()
    rows = con.execute(f"select count(*) from main.{_ident(mart)}").fetchone()[0]
    if not only_duckdb and not only_spark:
        return MartParity(mart, "match", rows=rows)
    detail = (
        f"{len(only_duckdb)} row(s) only on DuckDB, {len(only_spark)} only on Spark; "
        f"e.g. DuckDB {only_duckdb[:EXAMPLES]} Spark {only_spark[:EXAMPLES]}"
    )
    return MartParity(mart, "differs", detail, rows, only_duckdb, only_spark)


def compare(
    warehouse: Path,
    spark_out: Path | None = None,
    *,
    precision: int = PRECISION,
    marts: list[str] | None = None,
    manifest: Path | None = None,
    excluded: dict[str, str] | None = None,
) -> list[MartParity]:
    """Every mart of ``warehouse`` against ``spark_out/<mart>/`` (default ``<warehouse>.spark``).

    ``marts`` defaults to :func:`project_marts`, ``manifest`` to the published DuckDB build's
    (``<warehouse>.build/state/manifest.json``), ``excluded`` to the entries of
    ``spark_exclusions.yml`` the Spark build does not publish (those marked ``duckdb_pass`` it
    builds, so their marts are ``missing`` when absent)."""
    from csrwh.pipeline.spark import duckdb_pass_models, exclusions, spark_dir

    warehouse = Path(warehouse)
    if not warehouse.is_file():
        raise CsrwhError(
            f"no DuckDB warehouse at {warehouse}",
            hint="build it first: csrwh build --warehouse " + str(warehouse),
        )
    spark_out = Path(spark_out) if spark_out is not None else spark_dir(warehouse)
    if not spark_out.is_dir():
        raise CsrwhError(
            f"no Spark marts at {spark_out}",
            hint=f"build them first: csrwh build --engine spark --warehouse {warehouse}",
        )
    marts = project_marts() if marts is None else marts
    if manifest is None:
        manifest = warehouse.with_name(warehouse.name + ".build") / "state" / "manifest.json"
    if excluded is None:
        built_by_duckdb = set(duckdb_pass_models())
        excluded = {k: v for k, v in exclusions().items() if k not in built_by_duckdb}
    reasons = exclusion_reasons(marts, manifest, excluded)
    out = []
    with duckdb.connect(str(warehouse), read_only=True) as con:
        present = {
            name
            for (name,) in con.execute(
                "select table_name from information_schema.tables where table_schema = 'main'"
            ).fetchall()
        }
        for mart in marts:
            folder = spark_out / mart
            if mart not in present:
                out.append(MartParity(mart, "missing", "not in the DuckDB warehouse"))
            elif folder.is_dir() and any(folder.glob("*.parquet")):
                out.append(compare_mart(con, mart, folder, precision))
            elif mart in reasons:
                out.append(MartParity(mart, "excluded", reasons[mart]))
            else:
                out.append(MartParity(mart, "missing", f"no Parquet files in {folder}"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m csrwh.pipeline.spark_parity",
        description="Compare every mart of a DuckDB warehouse with the Spark build's Parquet marts.",
    )
    parser.add_argument("--warehouse", type=Path, required=True)
    parser.add_argument("--spark", type=Path, default=None, help="default <warehouse>.spark")
    parser.add_argument("--precision", type=int, default=PRECISION)
    args = parser.parse_args(argv)
    try:
        results = compare(args.warehouse, args.spark, precision=args.precision)
    except CsrwhError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"hint: {exc.hint}", file=sys.stderr)
        return 2
    for result in results:
        print(result.line())
    counts: dict[str, int] = {}
    for result in results:
        counts[result.status] = counts.get(result.status, 0) + 1
    print(
        f"{len(results)} marts, floats rounded to {args.precision} decimals: "
        + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    )
    return 1 if counts.get("differs") or counts.get("missing") else 0


if __name__ == "__main__":
    sys.exit(main())
