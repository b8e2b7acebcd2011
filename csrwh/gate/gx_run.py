"""The gate's child process: Great Expectations runs the suites here, never in the CLI's process.

``python -m csrwh.gate`` (:mod:`csrwh.gate.__main__`) calls :func:`run_suites` with the request
:func:`csrwh.gate.run.validate` sent; every expectation is pushed down to DuckDB as SQL through
a read-only connection, Data Docs are rendered, and the outcomes go back to the parent as JSON
(:func:`csrwh.gate.results.report_to_json`), which records and prints them.
Details: docs/internals.md#csrwh-gate-gx_run
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import shutil
import time
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from csrwh.errors import CsrwhError
from csrwh.gate import data_docs, gx_duckdb
from csrwh.gate.gx_settings import _duckdb_config
from csrwh.gate.results import ExpectationOutcome, ValidationReport, _jsonable
from csrwh.gate.suites import SQL_TYPE, ExpectationSpec, SuiteSpec, load_suites, to_gx_expectation

OFFENDING_ROWS_KEPT = 5
#: SQL expectations, and the built-ins that failed (every offending row; ``_run_suite``)
RESULT_FORMAT = {"result_format": "COMPLETE", "partial_unexpected_count": OFFENDING_ROWS_KEPT}
#: the built-ins' first pass: the observed value or unexpected count, a few unexpected values
FIRST_PASS_FORMAT = {"result_format": "BASIC", "partial_unexpected_count": OFFENDING_ROWS_KEPT}
#: a file to write every SQL statement GX sends (with its parameters) to, as JSON, for
#: ``benchmarks/build.py``'s gate floor
SQL_CAPTURE_ENV = "CSRWH_GATE_SQL_CAPTURE"
_DOCS_SITE = "csrwh"
_GX_MANAGED = ("index.html", "validations", "expectations", "static")


def run_suites(
    database: Path,
    run_id: str,
    validated_at: dt.datetime,
    suites: list[str] | None = None,
    docs_dir: Path | None = None,
    *,
    expectations_dir: Path | None = None,
    named_rows_limit: int = OFFENDING_ROWS_KEPT,
) -> ValidationReport:
    """Validate ``database`` with the suites ``suites`` selects (:func:`load_suites`), rendering
    Data Docs into ``docs_dir`` when given; nothing is recorded (the parent does that).

    Imports GX into this process: call it in the gate's child (or a test), not in the CLI.
    """
    specs = load_suites(expectations_dir, suites)
    report = ValidationReport(run_id=run_id, database=database, validated_at=validated_at)
    step = time.perf_counter()
    try:
        import duckdb_engine  # noqa: F401  (the SQLAlchemy dialect GX talks to DuckDB through)

        # pyspark, when installed, warns on import about the pandas version (GX imports it)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import great_expectations as gx
        import sqlalchemy as sa
    except ImportError as exc:
        raise CsrwhError(
            f"validation needs great-expectations, SQLAlchemy and duckdb-engine ({exc})",
            hint="pip install -c requirements.lock -e . (or: pip install duckdb-engine sqlalchemy)",
        ) from exc

    gx_duckdb.apply()
    captured = _capture_sql(sa) if os.environ.get(SQL_CAPTURE_ENV) else None
    report.gx_version = gx.__version__
    report.seconds["import"] = time.perf_counter() - step

    # GX logs at INFO, some modules with a level of their own (its context config announces
    # "Created temporary directory ... for ephemeral docs site" on every run): errors only
    gx_loggers = [logging.getLogger("great_expectations")] + [
        logger
        for name, logger in logging.root.manager.loggerDict.items()
        if name.startswith("great_expectations.") and isinstance(logger, logging.Logger)
    ]
    previous_levels = [(logger, logger.level) for logger in gx_loggers]
    for logger in gx_loggers:
        if logger.level < logging.ERROR:
            logger.setLevel(logging.ERROR)
    datasource = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            step = time.perf_counter()
            context = gx.get_context(mode="ephemeral")
            context.variables.progress_bars = {"globally": False, "metric_calculations": False}
            if docs_dir is not None:
                _add_docs_site(context, docs_dir)
            url = sa.engine.URL.create("duckdb", database=str(database))
            try:
                datasource = context.data_sources.add_sql(
                    name="warehouse",
                    connection_string=url.render_as_string(hide_password=False),
                    # the build's memory_limit and threads (csrwh.config): GX's DuckDB stays bounded too
                    kwargs={"connect_args": {"read_only": True, "config": _duckdb_config()}},
                )
                existing = _existing_tables(datasource.get_engine())
            except Exception as exc:  # GX wraps driver errors in its own exception types
                raise CsrwhError(
                    f"cannot open {database} for validation: {str(exc).splitlines()[0]}",
                    hint="is another process writing it?",
                ) from exc
            report.seconds["context"] = time.perf_counter() - step

            step = time.perf_counter()
            gx_run_id = _gx_run_identifier(run_id, report.validated_at)
            for spec in specs:
                suite_started = time.perf_counter()
                if spec.table not in existing:
                    report.outcomes.append(_missing_table(spec))
                else:
                    report.outcomes.extend(
                        _run_suite(
                            gx,
                            context,
                            datasource,
                            spec,
                            gx_run_id,
                            docs_dir is not None,
                            named_rows_limit,
                        )
                    )
                report.suite_seconds[spec.name] = time.perf_counter() - suite_started
            report.seconds["validate"] = time.perf_counter() - step

            if docs_dir is not None:
                step = time.perf_counter()
                context.build_data_docs(site_names=[_DOCS_SITE])
                data_docs.localise(docs_dir)
                report.data_docs_index = docs_dir / "index.html"
                report.seconds["data_docs"] = time.perf_counter() - step
    finally:
        for logger, level in previous_levels:
            logger.setLevel(level)
        if datasource is not None:
            _close(datasource)
        if captured is not None:
            Path(os.environ[SQL_CAPTURE_ENV]).write_text(json.dumps(captured, default=str))
    return report


def _capture_sql(sa: Any) -> list[list[Any]]:
    """Every statement SQLAlchemy executes from now on, with its parameters (a list filled in
    place; ``SQL_CAPTURE_ENV``)."""
    captured: list[list[Any]] = []

    def listen(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        params = parameters
        if not (isinstance(params, list | tuple | dict) or params is None):
            params = list(params)
        captured.append([statement, params])

    sa.event.listen(sa.engine.Engine, "before_cursor_execute", listen)
    return captured


# --- internals ------------------------------------------------------------------------------


def _add_docs_site(context: Any, docs_dir: Path) -> None:
    """Register a local static site in ``docs_dir``, clearing what GX generated there before."""
    docs_dir.mkdir(parents=True, exist_ok=True)
    for name in _GX_MANAGED:
        target = docs_dir / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    context.add_data_docs_site(
        site_name=_DOCS_SITE,
        site_config={
            "class_name": "SiteBuilder",
            "store_backend": {
                "class_name": "TupleFilesystemStoreBackend",
                "base_directory": str(docs_dir),
            },
            "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
            # Validation pages only: they show every expectation with its result, notes and
            # SQL; separate suite pages would repeat them and double the rendering time.
            "site_section_builders": {"expectations": "0", "profiling": "0"},
            "show_how_to_buttons": False,
        },
    )


def _close(datasource: Any) -> None:
    """Close every DuckDB connection GX opened (the datasource's engine and the execution
    engine's own one), so the file can be reopened read-write to record the results."""
    execution_engine = getattr(datasource, "_execution_engine", None)
    if execution_engine is not None:
        execution_engine.close()
    datasource.get_engine().dispose()


def _existing_tables(engine: Any) -> set[str]:
    with engine.connect() as con:
        rows = con.exec_driver_sql(
            "select table_schema, table_name from information_schema.tables "
            "where table_catalog = current_database()"
        ).fetchall()
    return {f"{schema}.{name}" for schema, name in rows}


def _gx_run_identifier(run_id: str, when: dt.datetime) -> Any:
    from great_expectations.core.run_identifier import RunIdentifier

    return RunIdentifier(run_name=run_id, run_time=when.replace(tzinfo=dt.UTC))


def _run_suite(
    gx: Any,
    context: Any,
    datasource: Any,
    spec: SuiteSpec,
    run_id: Any,
    keep_for_docs: bool,
    named_rows_limit: int = OFFENDING_ROWS_KEPT,
) -> list[ExpectationOutcome]:
    """Validate one suite on its table; keep the GX result in the results store for Data Docs.

    The SQL expectations run with GX's COMPLETE result (their offending rows come with the count
    anyway); the built-ins first with BASIC (the unexpected count, a few values), and those that
    fail once more with COMPLETE, the suite's ``index_columns`` naming each unexpected value's
    row. So a clean build asks GX for no offending-row metrics of built-ins that pass: two
    queries and their metric graph per built-in, a third of the validation's CPU.

    The batch is validated directly (no stored suite, batch or validation definitions: they
    only add serialisation work here); the result is put in the validation-results store as
    a ValidationDefinition run would, which is all the docs builder reads.
    """
    from great_expectations.core import ExpectationSuiteValidationResult
    from great_expectations.data_context.types.resource_identifiers import (
        ExpectationSuiteIdentifier,
        ValidationResultIdentifier,
    )
    from great_expectations.validator.validation_statistics import calc_validation_statistics

    asset = datasource.add_query_asset(name=spec.name, query=f"select * from {spec.table}")
    batch = asset.get_batch(asset.build_batch_request())
    meta = {
        "table": spec.table,
        "source_file": f"expectations/{spec.group}/{spec.path.name}",
        "notes": {"format": "markdown", "content": [f"`{spec.table}` — {spec.description}"]},
    }

    def run(expectations: list[ExpectationSpec], result_format: dict[str, Any]) -> Any:
        suite = gx.ExpectationSuite(
            name=spec.name,
            expectations=[to_gx_expectation(spec, e) for e in expectations],
            meta=meta,
        )
        return batch.validate(suite, result_format=result_format)

    sql = [e for e in spec.expectations if e.type == SQL_TYPE]
    built_ins = [e for e in spec.expectations if e.type != SQL_TYPE]
    complete = RESULT_FORMAT | {
        "partial_unexpected_count": max(OFFENDING_ROWS_KEPT, named_rows_limit)
    }
    if spec.index_columns:  # a built-in's unexpected values with the columns naming their row
        complete["unexpected_index_column_names"] = list(spec.index_columns)
    result, by_name = None, {}
    for expectations, result_format in ((sql, RESULT_FORMAT), (built_ins, FIRST_PASS_FORMAT)):
        if expectations:
            part = run(expectations, result_format)
            result = result or part
            by_name |= {r.expectation_config.meta.get("name"): r for r in part.results}
    failed = [e for e in built_ins if e.name in by_name and not by_name[e.name].success]
    if failed:
        by_name |= {r.expectation_config.meta.get("name"): r for r in run(failed, complete).results}
    # one validation result per suite, its expectations in the suite's order, its statistics
    # and success as GX's validator states them
    results = [by_name[e.name] for e in spec.expectations if e.name in by_name]
    statistics = calc_validation_statistics(results)
    result = ExpectationSuiteValidationResult(
        success=statistics.success,
        results=results,
        suite_name=result.suite_name,
        suite_parameters=result.suite_parameters,
        statistics={
            key: getattr(statistics, key)
            for key in (
                "evaluated_expectations",
                "successful_expectations",
                "unsuccessful_expectations",
                "success_percent",
            )
        },
        meta=result.meta,
        batch_id=result.batch_id,
        result_url=result.result_url,
        id=result.id,
    )
    if keep_for_docs:
        result.meta["run_id"] = run_id
        result.meta["validation_time"] = run_id.run_time
        suite_id = ExpectationSuiteIdentifier(name=spec.name)
        context.validation_results_store.store_validation_results(
            suite_validation_result=result,
            suite_validation_result_identifier=ValidationResultIdentifier(
                expectation_suite_identifier=suite_id, run_id=run_id, batch_identifier=batch.id
            ),
            expectation_suite_identifier=suite_id,
        )
    return [_outcome(spec, e, by_name.get(e.name)) for e in spec.expectations]


def _outcome(spec: SuiteSpec, expectation: ExpectationSpec, gx_result: Any) -> ExpectationOutcome:
    outcome = ExpectationOutcome(
        suite=spec.name,
        table=spec.table,
        expectation=expectation.name,
        expectation_type=expectation.type,
        severity=expectation.severity,
        success=False,
        why=expectation.why,
    )
    if gx_result is None:
        outcome.error = "GX returned no result for this expectation"
        return outcome
    result = dict(gx_result.result or {})
    error = _exception_message(gx_result.exception_info)
    if error:
        outcome.error = error
        return outcome
    if not result:
        # The symptom of GX issues #10738/#11579: metrics silently empty. Never a pass.
        outcome.error = (
            "GX returned an empty result (no observed value); the DuckDB result-fetch fix "
            "in csrwh/gate/gx_duckdb.py is not in effect"
        )
        return outcome
    outcome.success = bool(gx_result.success)
    outcome.observed_value = _observed_value(result)
    if not outcome.success:
        outcome.offending_rows = _offending_rows(result)
        if result.get("unexpected_index_list") is not None:
            outcome.named_rows = _jsonable(list(result["unexpected_index_list"]))
    return outcome


def _missing_table(spec: SuiteSpec) -> ExpectationOutcome:
    return ExpectationOutcome(
        suite=spec.name,
        table=spec.table,
        expectation="table_exists",
        expectation_type="table_exists",
        severity="critical",
        success=False,
        error=f"table {spec.table} does not exist",
        why="Every suite's table must exist (dbt builds all marts; ingest creates all raw tables).",
    )


def _observed_value(result: dict[str, Any]) -> Any:
    if "observed_value" in result:
        return _jsonable(result["observed_value"])
    keys = ("element_count", "unexpected_count", "unexpected_percent", "missing_count")
    summary = {k: _jsonable(result[k]) for k in keys if k in result}
    return summary or None


def _offending_rows(result: dict[str, Any]) -> list[Any]:
    details = result.get("details") or {}
    if isinstance(details, dict):
        if details.get("unexpected_rows"):
            return _jsonable(list(details["unexpected_rows"])[:OFFENDING_ROWS_KEPT])
        if details.get("mismatched"):
            mismatched = details["mismatched"]
            return _jsonable(
                mismatched[:OFFENDING_ROWS_KEPT] if isinstance(mismatched, list) else [mismatched]
            )
    # a built-in on a suite with index_columns: the rows, named by those columns, with the value
    for key in (
        "partial_unexpected_index_list",
        "partial_unexpected_counts",
        "partial_unexpected_list",
        "unexpected_list",
    ):
        if result.get(key):
            return _jsonable(list(result[key])[:OFFENDING_ROWS_KEPT])
    return []


def _exception_message(info: Any) -> str | None:
    """The first exception message in GX's exception_info (flat or keyed by metric)."""
    if not isinstance(info, dict):
        return None
    candidates: Iterable[Any] = [info] if "raised_exception" in info else info.values()
    for item in candidates:
        if isinstance(item, dict) and (
            item.get("raised_exception") or item.get("exception_message")
        ):
            message = str(item.get("exception_message") or "").strip()
            lines = [ln for ln in message.splitlines() if ln.strip()]
            return " ".join(lines[:3])[:500] or "unknown error"
    return None
