"""Page: data health (`main.dq_results` runs and outcomes, rejected records)."""

from __future__ import annotations

import pandas as pd

from csrwh import dq_results as dq_table
from csrwh.errors import CsrwhError
from csrwh.reading.dashboard.queries.reader import Reader

DQ_TABLE = "dq_results"
#: `main.dq_results`'s columns from their one home, csrwh/dq_results.py (which the gate's DDL is
#: built from; documented in docs/ARCHITECTURE.md, "Data-quality results"). The page reads these
#: columns and no others.
DQ_COLUMNS = dq_table.NAMES


def has_dq_results(db: Reader) -> bool:
    """Whether the warehouse has `main.dq_results` (False: built without the expectations gate).

    Raises:
        CsrwhError: the table lacks one of :data:`DQ_COLUMNS` (names them).
    """
    if not db.has_table(DQ_TABLE):
        return False
    missing = [c for c in DQ_COLUMNS if c not in db.columns(DQ_TABLE)]
    if missing:
        raise CsrwhError(
            f"main.{DQ_TABLE} in {db.path} lacks the documented column(s) {', '.join(missing)}",
            hint="it is written by csrwh/gate/results.py: rebuild or re-validate with this version",
        )
    return True


def dq_runs(db: Reader) -> pd.DataFrame:
    """One row per validation run, newest first: its expectations (passed, failed by severity)
    and suites, counted as the build and ``csrwh validate`` count them, and apart the build's
    own checks recorded beside them (:data:`csrwh.dq_results.BUILD_CHECK_SUITES`: volume,
    open vocabularies, lineage completeness) and how many of those failed."""
    return db.df(
        "dq_runs",
        f"""
        with outcomes as (
            select *, list_contains(?, suite) as is_build_check from {DQ_TABLE}
        )
        select run_id, max(validated_at)::timestamp as validated_at,
               count(*) filter (where not is_build_check) as n_expectations,
               count(*) filter (where not is_build_check and success) as n_passed,
               count(*) filter (
                   where not is_build_check and not success and severity = 'critical'
               ) as n_critical_failed,
               count(*) filter (
                   where not is_build_check and not success and severity <> 'critical'
               ) as n_other_failed,
               count(distinct suite) filter (where not is_build_check) as n_suites,
               count(*) filter (where is_build_check) as n_build_checks,
               count(*) filter (where is_build_check and not success) as n_build_checks_failed
        from outcomes group by run_id order by validated_at desc nulls last, run_id desc
        """,
        [list(dq_table.BUILD_CHECK_SUITES)],
    )


def dq_results(db: Reader, run_id: str) -> pd.DataFrame:
    """The run's outcomes, failures first (critical before warnings)."""
    return db.df(
        "dq_results",
        f"""
        select suite, expectation, severity, success, observed_value::varchar as observed_value,
               table_name, expectation_type, error, why
        from {DQ_TABLE} where run_id = ?
        order by success, severity <> 'critical', suite, expectation
        """,
        [run_id],
    )


def dq_suites(db: Reader, run_id: str) -> pd.DataFrame:
    """Per suite of the run: expectations, passed, failed; the expectation suites first, then
    the build's own checks (:data:`csrwh.dq_results.BUILD_CHECK_SUITES`)."""
    return db.df(
        "dq_suites",
        f"""
        select suite, count(*) as n_expectations, count(*) filter (where success) as n_passed,
               count(*) filter (where not success) as n_failed
        from {DQ_TABLE} where run_id = ? group by suite
        order by list_contains(?, suite), n_failed desc, suite
        """,
        [run_id, list(dq_table.BUILD_CHECK_SUITES)],
    )


def rejected_records(db: Reader) -> pd.DataFrame | None:
    """The `rejected_records_summary` mart: records the ingest rejected, per corpus and raw
    table, most first (None when the warehouse predates the mart)."""
    if not db.has_table("rejected_records_summary"):
        return None
    return db.df(
        "rejected_records",
        """
        select corpus, table_name, n_rejected, n_files, example_error, first_rejected_at,
               last_rejected_at
        from rejected_records_summary order by n_rejected desc, corpus, table_name
        """,
    )
