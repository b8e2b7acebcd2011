"""The rows behind a failed dbt test, for the build's failure lines.

dbt reports a failed test as ``<test>: fail Got 3 results``; the build reruns the test's compiled
SQL on the (kept) working file, read-only, and shows its first rows: the file and record where
the rows carry them (``source_path`` with ``line_number`` or ``record_index``; a grouped row of
the rules tests names one of its records in ``example_record``), then the other columns (the
rule, the column, the value), and how many rows failed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: failing rows shown per test
SHOWN = 3
#: a value longer than this is cut (a payload, a turn's text)
VALUE_CHARS = 80
_WHERE = ("source_path", "line_number", "record_index", "source_record_index")
#: a grouped failing row (macros/tests/record_location.sql): the file and record of one of its rows
_EXAMPLE = "example_record"


def _value(value: Any) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def row_text(row: dict[str, Any]) -> str:
    """``<file> line <n>: column=value, ...`` (``record <i>``, the 0-based position in the
    file, without a line; no place without ``source_path``)."""
    where = ""
    if row.get("source_path") is not None:
        where = str(row["source_path"])
        if row.get("line_number") is not None:
            where += f" line {row['line_number']}"
        else:
            index = row.get("record_index", row.get("source_record_index"))
            where += f" record {index}" if index is not None else ""
        where += ": "
    if not where and row.get(_EXAMPLE) is not None:
        where = f"{row[_EXAMPLE]} (for one): "
    rest = ", ".join(
        f"{k}={_value(v)}" for k, v in row.items() if k not in _WHERE and k != _EXAMPLE
    )
    return where + rest


def describe(database: Path, compiled_sql: str) -> str | None:
    """The first :data:`SHOWN` failing rows of a test's compiled SQL on ``database`` as one
    line (None when it cannot be rerun: the line then stays dbt's own)."""
    import duckdb

    try:
        with duckdb.connect(str(database), read_only=True) as con:
            relation = con.sql(compiled_sql)
            columns = relation.columns
            rows = relation.limit(SHOWN + 1).fetchall()
    except (duckdb.Error, OSError):
        return None
    if not rows:
        return None
    shown = "; ".join(row_text(dict(zip(columns, r))) for r in rows[:SHOWN])
    return shown + ("; …" if len(rows) > SHOWN else "")


def with_rows(
    database: Path, failures: list[str], failed_tests: list[tuple[str, str]]
) -> list[str]:
    """``failures`` with each failed test's line followed by its first failing rows."""
    by_name = {name: sql for name, sql in failed_tests}
    out = []
    for line in failures:
        name = line.split(":", 1)[0]
        shown = describe(database, by_name[name]) if name in by_name else None
        out.append(f"{line} — first failing rows: {shown}" if shown else line)
    return out
