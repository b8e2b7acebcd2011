"""Which suites a selective rebuild runs again (issue 26): the tables a suite reads and the
rebuilt tables whose rows did not change. A build of the sample checks the outcome against a
full gate (tests/integration/test_build_incremental.py::test_dq_results_describe_the_whole_warehouse).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from csrwh.gate.carry import suite_tables, unchanged_tables
from csrwh.gate.suites import SQL_TYPE, ExpectationSpec, SuiteSpec, load_suites


def _suite(*queries: str) -> SuiteSpec:
    return SuiteSpec(
        name="s",
        table="main.own",
        path=Path("s.yml"),
        group="marts",
        expectations=tuple(
            ExpectationSpec(f"e{i}", SQL_TYPE, {"unexpected_rows_query": q}, "critical", "why")
            for i, q in enumerate(queries)
        ),
    )


def test_a_suite_reads_its_table_and_the_tables_its_sql_names() -> None:
    spec = _suite(
        "with turns as (select * from {batch}) select * from turns "
        "left join main.users using (user_id) where exists (select 1 from votes)",
        "select * from {batch} where x in (select y from raw.cosrec__qrels) "
        "and '{{\"a\": 1}}' <> ''",
    )
    # the CTE named turns is the batch, not main.turns; votes without a schema is main.votes
    assert suite_tables([spec])["s"] == {
        "main.own",
        "main.users",
        "main.votes",
        "raw.cosrec__qrels",
    }
    assert suite_tables([_suite("select * from {batch} where (")])["s"] is None


def test_the_project_suites_cross_table_reads_are_found() -> None:
    reads = suite_tables(load_suites())
    assert all(tables is not None for tables in reads.values())
    assert {"main.turns", "main.users"} <= reads["conversations"]
    assert "main.votes" in reads["crs_leaderboard"]
    assert reads["turns"] == {"main.turns", "seeds.corpora"}  # the public corpora's rules


def test_a_table_is_unchanged_only_with_the_same_columns_and_rows(tmp_path: Path) -> None:
    published, work = tmp_path / "published.duckdb", tmp_path / "work.duckdb"
    rows = "(1, 'a', 1.5), (2, 'b', null), (2, 'b', null)"
    for path in (published, work):
        with duckdb.connect(str(path)) as con:
            for name in ("same", "reordered", "dup", "typed", "gone", "value"):
                con.execute(f"create table {name} (i integer, s varchar, d double)")
                con.execute(f"insert into {name} values {rows}")
    with duckdb.connect(str(work)) as con:
        con.execute("create or replace table reordered as select * from reordered order by i desc")
        # a pair of equal rows replaced by another pair: an xor of row hashes would miss it
        con.execute("delete from dup where i = 2; insert into dup values (3, 'c', 0), (3, 'c', 0)")
        con.execute("create or replace table typed as select i::bigint as i, s, d from typed")
        con.execute("drop table gone")
        con.execute("update value set d = 1.5000000000000002 where i = 1")
    tables = {f"main.{t}" for t in ("same", "reordered", "dup", "typed", "gone", "value")}
    assert unchanged_tables(published, work, tables | {"main.new"}) == {
        "main.same",
        "main.reordered",
    }
