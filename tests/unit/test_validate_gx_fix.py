"""Regression tests for the DuckDB result-fetch fix (csrwh/gate/gx_duckdb.py).

GX issues #10738/#11579: on DuckDB via duckdb-engine, GX's SQL execution engine returns query
results after closing their connection, so every metric comes back empty and every
expectation fails with ``result == {}`` and no error. These tests fail if any expectation's
observed value comes back empty with the fix applied, show the bug without it (so an upgrade
that fixes GX is noticed), and check the version guard.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from csrwh.gate import gx_duckdb


@pytest.fixture(scope="module")
def database(module_tmp_path: Path) -> Path:
    path = module_tmp_path / "fix.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(
            "create table main.t as select range as id, range % 7 as grp, "
            "case when range % 10 = 0 then null else 'x' || range end as label from range(5000)"
        )
    return path


def _suite(gx):
    import great_expectations.expectations as gxe

    return gx.ExpectationSuite(
        name="fix",
        expectations=[
            gxe.ExpectTableRowCountToBeBetween(min_value=1),
            gxe.ExpectColumnValuesToNotBeNull(column="label", mostly=0.5),
            gxe.ExpectColumnValuesToBeUnique(column="id"),
            gxe.ExpectColumnValuesToBeBetween(column="grp", min_value=0, max_value=6),
            gxe.ExpectColumnMaxToBeBetween(column="id", max_value=5000),
            gxe.UnexpectedRowsExpectation(
                unexpected_rows_query="select * from {batch} where grp > 6"
            ),
        ],
    )


def _validate_with_gx(database: Path):
    import great_expectations as gx

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = {"globally": False, "metric_calculations": False}
    datasource = context.data_sources.add_sql(
        name="db",
        connection_string=f"duckdb:///{database}",
        kwargs={"connect_args": {"read_only": True}},
    )
    batch = (
        datasource.add_table_asset(name="t", table_name="t")
        .add_batch_definition_whole_table("all")
        .get_batch()
    )
    try:
        return batch.validate(_suite(gx))
    finally:
        datasource.get_execution_engine().close()
        datasource.get_engine().dispose()


def test_with_fix_every_observed_value_is_present(database: Path) -> None:
    gx_duckdb.apply()
    result = _validate_with_gx(database)
    assert result.success
    for r in result.results:
        assert r.result, f"{r.expectation_config.type}: empty result"
        observed = r.result.get("observed_value", r.result.get("unexpected_count"))
        assert observed is not None, f"{r.expectation_config.type}: no observed value"
    observed = {r.expectation_config.type: r.result.get("observed_value") for r in result.results}
    assert observed["expect_table_row_count_to_be_between"] == 5000
    assert observed["expect_column_max_to_be_between"] == 4999


def test_without_fix_gx_returns_empty_results(database: Path) -> None:
    """Documents the upstream bug. If this fails after a GX upgrade, the bug may be fixed:
    re-verify and widen or drop the fix (csrwh/gate/gx_duckdb.py, KNOWN_BROKEN)."""
    gx_duckdb.remove()
    try:
        result = _validate_with_gx(database)
    finally:
        gx_duckdb.apply()
    assert not result.success
    assert all(r.result == {} for r in result.results)


def test_fix_only_touches_duckdb() -> None:
    gx_duckdb.apply()
    from great_expectations.execution_engine.sqlalchemy_execution_engine import (
        SqlAlchemyExecutionEngine,
    )

    assert gx_duckdb.is_applied()
    original = SqlAlchemyExecutionEngine.execute_query.__wrapped__
    assert getattr(original, "_csrwh_duckdb_fetch_fix", False) is False
    gx_duckdb.apply()  # idempotent: no double wrapping
    assert SqlAlchemyExecutionEngine.execute_query.__wrapped__ is original


def test_unknown_gx_version_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    from packaging.version import Version

    gx_duckdb.remove()
    try:
        monkeypatch.setattr(gx_duckdb, "gx_version", lambda: Version("1.25.0"))
        with pytest.raises(gx_duckdb.UnsupportedGXVersion, match="1.25.0") as info:
            gx_duckdb.apply()
        assert "KNOWN_BROKEN" in info.value.hint
        assert not gx_duckdb.is_applied()
    finally:
        monkeypatch.undo()
        gx_duckdb.apply()


# --- regex expectations: GX builds no regex SQL for the duckdb dialect; the fix maps it ------


@pytest.fixture(scope="module")
def texts(module_tmp_path: Path) -> Path:
    path = module_tmp_path / "texts.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(
            "create table main.t as select * from (values "
            "(1, 'abc', 'ab12', false), (2, 'xabcx', 'zz', null), (3, 'q', '', true), "
            "(4, '  ', null, false)) as v(id, label, code, is_image)"
        )
    return path


def _results_on(database: Path, expectations: list) -> list:
    """GX's results of ``expectations`` on main.t, through a SQL datasource on DuckDB, in the
    order given (GX returns them in an order of its own)."""
    import great_expectations as gx

    for i, expectation in enumerate(expectations):
        expectation.meta = {"position": i}

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = {"globally": False, "metric_calculations": False}
    datasource = context.data_sources.add_sql(
        name="db",
        connection_string=f"duckdb:///{database}",
        kwargs={"connect_args": {"read_only": True}},
    )
    asset = datasource.add_query_asset(name="t", query="select * from main.t")
    batch = asset.get_batch(asset.build_batch_request())
    try:
        result = batch.validate(
            gx.ExpectationSuite(name="t", expectations=expectations),
            result_format={"result_format": "COMPLETE", "unexpected_index_column_names": ["id"]},
        )
    finally:
        datasource.get_execution_engine().close()
        datasource.get_engine().dispose()
    return sorted(result.results, key=lambda r: r.expectation_config.meta["position"])


def _unexpected_ids(result) -> list[int]:
    assert not result.exception_info.get("raised_exception"), result.exception_info
    return sorted(row["id"] for row in result.result["unexpected_index_list"])


def test_regex_expectations_fail_on_a_non_matching_value_on_duckdb(texts: Path) -> None:
    """With the fix a value that does not match fails, one that matches passes, NULL is left to
    the not-null expectations (GX's rule on every engine), and a regex searches the value as GX
    documents (Pandas' str.contains): anchor it to match the whole value."""
    import great_expectations.expectations as gxe

    gx_duckdb.apply()
    results = _results_on(
        texts,
        [
            gxe.ExpectColumnValuesToMatchRegex(column="label", regex="abc"),
            gxe.ExpectColumnValuesToMatchRegex(column="label", regex="^abc$"),
            gxe.ExpectColumnValuesToNotMatchRegex(column="label", regex=r"^\s*$"),
            gxe.ExpectColumnValuesToMatchRegex(column="code", regex="^[a-z]+[0-9]*$"),
            gxe.ExpectColumnValuesToMatchRegexList(column="label", regex_list=["^a", "b"]),
            gxe.ExpectColumnValuesToNotMatchRegexList(column="label", regex_list=["x", "q"]),
        ],
    )
    assert [_unexpected_ids(r) for r in results] == [[3, 4], [2, 3, 4], [4], [3], [3, 4], [2, 3]]
    assert [r.success for r in results] == [False] * 6


def test_without_fix_gx_has_no_regex_for_duckdb(texts: Path) -> None:
    """Documents the gap. If this fails after a GX upgrade, GX may map DuckDB's regex itself:
    re-verify and drop the regex part of the fix (csrwh/gate/gx_duckdb.py)."""
    import importlib

    import great_expectations.expectations as gxe

    gx_duckdb.apply()
    try:
        for name in gx_duckdb._REGEX_MODULES:  # the regex part only: results need the fetch fix
            module = importlib.import_module(name)
            module.get_dialect_regex_expression = module.get_dialect_regex_expression.__wrapped__
        (result,) = _results_on(
            texts, [gxe.ExpectColumnValuesToMatchRegex(column="label", regex="a")]
        )
    finally:
        gx_duckdb.remove()
        gx_duckdb.apply()
    assert not result.success
    assert "Regex is not supported for dialect duckdb" in str(result.exception_info)


def test_row_conditions_filter_rows_on_duckdb(texts: Path) -> None:
    """GX row conditions (its Condition objects, written in the suites as their dicts) run as
    SQL on the DuckDB datasource: only the rows they select are checked."""
    import great_expectations.expectations as gxe
    from great_expectations.expectations.row_conditions import Column

    gx_duckdb.apply()
    not_an_image = Column("is_image").is_null() | (Column("is_image") == False)
    results = _results_on(
        texts,
        [
            gxe.ExpectColumnValuesToNotBeNull(column="code"),
            gxe.ExpectColumnValuesToNotBeNull(column="code", row_condition=Column("id") < 4),
            gxe.ExpectColumnValuesToNotMatchRegex(column="code", regex="^$"),
            gxe.ExpectColumnValuesToNotMatchRegex(
                column="code", regex="^$", row_condition=not_an_image
            ),
            gxe.ExpectColumnValuesToNotMatchRegex(
                column="code", regex="^$", row_condition=not_an_image.dict()
            ),
        ],
    )
    assert [_unexpected_ids(r) for r in results] == [[4], [], [3], [], []]
