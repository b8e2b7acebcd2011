"""The build's line for a failed dbt test shows the test's first failing rows: file and record
where the rows carry them, then the other columns."""

from __future__ import annotations

from pathlib import Path

import duckdb

from csrwh.pipeline.failing_rows import SHOWN, with_rows


def test_failing_rows_name_file_line_or_record_and_value(tmp_path: Path) -> None:
    database = tmp_path / "w.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute(
            "create table stg as select * from (values ('a/x.jsonl', 3, 2, null), "
            "('a/y.json', null, 7, 'x'), ('a/z.json', null, 8, 'ok')) t(source_path, line_number, "
            "record_index, text)"
        )
    failures = ["test.csrwh.t_one: fail Got 2 results", "model.csrwh.m: error boom"]
    lines = with_rows(
        database,
        failures,
        [("test.csrwh.t_one", "select * from stg where text is null or text = 'x' order by 1")],
    )
    assert lines == [
        (
            "test.csrwh.t_one: fail Got 2 results — first failing rows: a/x.jsonl line 3: "
            "text=None; a/y.json record 7: text=x"
        ),
        "model.csrwh.m: error boom",
    ]


def test_more_rows_than_shown_end_with_an_ellipsis(tmp_path: Path) -> None:
    database = tmp_path / "w.duckdb"
    duckdb.connect(str(database)).close()
    sql = f"select range as n from range({SHOWN + 2})"
    (line,) = with_rows(database, ["test.csrwh.t: fail Got 5 results"], [("test.csrwh.t", sql)])
    assert line.endswith("first failing rows: n=0; n=1; n=2; …")


def test_a_grouped_row_names_one_of_its_records(tmp_path: Path) -> None:
    """A rules test's row counts offending rows (``n_rows``); its ``example_record`` names where
    one of them came from (macros/tests/record_location.sql)."""
    database = tmp_path / "w.duckdb"
    duckdb.connect(str(database)).close()
    sql = (
        "select 'accepted_values_by_column' as rule, 'role = bot' as detail, 2 as n_rows, "
        "'custom/a/chats.jsonl line 4' as example_record union all "
        "select 'unique_keys', 'id = 7', 2, null"
    )
    (line,) = with_rows(
        database, ["test.csrwh.rules_t: fail Got 2 results"], [("test.csrwh.rules_t", sql)]
    )
    assert line.endswith(
        "first failing rows: custom/a/chats.jsonl line 4 (for one): rule=accepted_values_by_column, "
        "detail=role = bot, n_rows=2; rule=unique_keys, detail=id = 7, n_rows=2"
    )
