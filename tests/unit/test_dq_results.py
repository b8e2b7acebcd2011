"""`main.dq_results`'s columns have one home (csrwh/dq_results.py): the gate's DDL and insert,
`csrwh describe dq_results` and the dashboard's Data health page all take them from it, and
docs/ARCHITECTURE.md shows the same columns and types."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import duckdb

from csrwh import dq_results
from csrwh.gate import run as gate
from csrwh.reading import catalog
from csrwh.reading.dashboard import queries as dashboard

ROOT = Path(__file__).resolve().parents[2]


def test_the_gate_writes_exactly_the_listed_columns(tmp_path: Path) -> None:
    database = tmp_path / "dq.duckdb"
    duckdb.connect(str(database)).close()
    outcome = gate.ExpectationOutcome(
        "turns", "main.turns", "turn_id_not_null", "expect_column_values_to_not_be_null",
        "critical", False, observed_value={"unexpected_count": 2}, offending_rows=[{"turn_id": None}],
        why="every turn has an id",
    )  # fmt: skip
    report = gate.ValidationReport("run-1", database, dt.datetime(2026, 1, 2), [outcome])
    gate.record_results(database, report)
    with duckdb.connect(str(database), read_only=True) as con:
        described = con.execute(f"describe {dq_results.TABLE}").fetchall()
        row = con.execute(f"select * from {dq_results.TABLE}").fetchone()
    assert [(name, kind.lower()) for name, kind, *_ in described] == [
        (name, kind) for name, (kind, _) in dq_results.COLUMNS.items()
    ]
    written = dict(zip(dq_results.NAMES, row))
    assert written["suite"] == "turns" and written["why"] == "every turn has an id"
    assert written["success"] is False and written["error"] is None


def test_readers_take_the_columns_from_the_one_home() -> None:
    assert catalog.BOOKKEEPING_COLUMNS["dq_results"] == dq_results.DESCRIPTIONS
    assert tuple(catalog.BOOKKEEPING_COLUMNS["dq_results"]) == dq_results.NAMES
    assert dashboard.DQ_COLUMNS == dq_results.NAMES


def test_the_architecture_doc_shows_the_same_columns_and_types() -> None:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text("utf-8")
    section = text[text.index("`main.dq_results` (written by") :]
    rows = re.findall(r"^\| `(\w+)` \| (\w+) \|", section, flags=re.MULTILINE)
    assert rows[: len(dq_results.COLUMNS)] == [
        (name, kind) for name, (kind, _) in dq_results.COLUMNS.items()
    ]
