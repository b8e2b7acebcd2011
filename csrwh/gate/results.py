"""What a validation run found, and where it goes: the outcomes (:class:`ExpectationOutcome`,
:class:`ValidationReport`; as JSON from the gate's child to its parent), ``main.dq_results``
(:func:`record_results`; the columns: :mod:`csrwh.dq_results`), the ``csrwh validate`` sidecar
and the printed summary."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from csrwh import dq_results
from csrwh.errors import CsrwhError, is_out_of_memory
from csrwh.gate.gx_settings import _duckdb_config

DQ_RESULTS = dq_results.TABLE
_DQ_RESULTS_DDL = dq_results.DDL  # the columns: csrwh/dq_results.py


@dataclass
class ExpectationOutcome:
    """What one expectation of one suite found."""

    suite: str
    table: str
    expectation: str
    expectation_type: str
    severity: str
    success: bool
    observed_value: Any = None
    offending_rows: list[Any] = field(default_factory=list)
    error: str | None = None
    why: str = ""
    #: every unexpected row of a failed built-in, named by its suite's ``index_columns`` (GX's
    #: ``unexpected_index_list``); not recorded (``offending_rows`` keeps the first few)
    named_rows: list[dict[str, Any]] | None = None

    @property
    def blocking(self) -> bool:
        return self.severity == "critical" and not self.success

    def message(self) -> str:
        """One line naming the suite, expectation, observed value and a few offending rows."""
        text = f"{self.suite} › {self.expectation} [{self.severity}]: "
        if self.error and is_out_of_memory(self.error):
            from csrwh.errors import out_of_memory_line

            where = f"suite {self.suite} › {self.expectation} [{self.severity}]"
            limit = _duckdb_config()["memory_limit"]
            return out_of_memory_line("gate", where, self.error, memory_limit=limit)
        if self.error:
            text += f"could not be evaluated: {self.error}"
        else:
            text += f"observed {_short(self.observed_value, 160)}"
        if self.offending_rows:
            text += f"; offending rows: {_short(self.offending_rows[:3], 400)}"
        return text


@dataclass
class ValidationReport:
    """Every expectation outcome of one run, plus where the docs went and how long it took."""

    run_id: str
    database: Path
    validated_at: dt.datetime
    outcomes: list[ExpectationOutcome] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    suite_seconds: dict[str, float] = field(default_factory=dict)
    data_docs_index: Path | None = None
    gx_version: str = ""

    @property
    def critical_failures(self) -> list[ExpectationOutcome]:
        return [o for o in self.outcomes if o.blocking]

    @property
    def warnings(self) -> list[ExpectationOutcome]:
        return [o for o in self.outcomes if o.severity == "warning" and not o.success]

    @property
    def success(self) -> bool:
        """True when no critical expectation failed (warnings do not count)."""
        return not self.critical_failures

    @property
    def suites(self) -> list[str]:
        return list(dict.fromkeys(o.suite for o in self.outcomes))


def report_to_json(report: ValidationReport) -> dict[str, Any]:
    """``report`` as JSON values: what the gate's child hands its parent (:func:`report_from_json`
    reads it back). Observed values and offending rows are JSON already (``_jsonable``)."""
    return {
        "run_id": report.run_id,
        "database": str(report.database),
        "validated_at": report.validated_at.isoformat(),
        "outcomes": [dataclasses.asdict(o) for o in report.outcomes],
        "seconds": report.seconds,
        "suite_seconds": report.suite_seconds,
        "data_docs_index": None if report.data_docs_index is None else str(report.data_docs_index),
        "gx_version": report.gx_version,
    }


def report_from_json(data: dict[str, Any]) -> ValidationReport:
    """The :class:`ValidationReport` that :func:`report_to_json` wrote."""
    index = data.get("data_docs_index")
    return ValidationReport(
        run_id=data["run_id"],
        database=Path(data["database"]),
        validated_at=dt.datetime.fromisoformat(data["validated_at"]),
        outcomes=[ExpectationOutcome(**o) for o in data["outcomes"]],
        seconds=dict(data["seconds"]),
        suite_seconds=dict(data["suite_seconds"]),
        data_docs_index=None if index is None else Path(index),
        gx_version=data.get("gx_version", ""),
    )


def record_checks(database: Path, run_id: str, outcomes: list[ExpectationOutcome]) -> None:
    """:func:`record_results` of checks the build made itself, now (not a suite run)."""
    record_results(
        database,
        ValidationReport(
            run_id=run_id,
            database=database,
            validated_at=dt.datetime.now(dt.UTC).replace(tzinfo=None),
            outcomes=outcomes,
        ),
    )


def record_results(database: Path, report: ValidationReport) -> None:
    """Append the report's outcomes to ``main.dq_results``.

    Rows of the same run_id for the same suites are replaced, so re-running a validation is
    idempotent and several partial runs can share one run id.
    """
    import duckdb

    rows = [
        (
            report.run_id,
            report.validated_at,
            o.suite,
            o.table,
            o.expectation,
            o.expectation_type,
            o.severity,
            o.success,
            _to_json(o.observed_value),
            _to_json(o.offending_rows) if o.offending_rows else None,
            o.error,
            o.why,
        )
        for o in report.outcomes
    ]
    try:
        con = duckdb.connect(str(database))
    except duckdb.Error as exc:
        raise CsrwhError(
            f"cannot write {DQ_RESULTS} into {database}: {exc}",
            hint="close other connections to the warehouse (another build or client?)",
        ) from exc
    try:
        con.execute("begin")
        con.execute(_DQ_RESULTS_DDL)
        con.execute(
            f"delete from {DQ_RESULTS} where run_id = ? and list_contains(?, suite)",
            [report.run_id, report.suites],
        )
        if rows:
            con.executemany(dq_results.INSERT, rows)
        con.execute("commit")
    finally:
        con.close()


#: ``csrwh validate`` records its results here, beside the warehouse, never in it: only
#: ``csrwh build`` writes the published file (the build's gate records ``main.dq_results`` in
#: its working copy, which it then publishes).
RESULTS_SIDECAR_SUFFIX = ".dq.duckdb"


def results_sidecar(warehouse: Path) -> Path:
    """``<warehouse stem>.dq.duckdb`` (``csr.duckdb`` -> ``csr.dq.duckdb``): the ``dq_results``
    of ``csrwh validate`` runs against ``warehouse``."""
    warehouse = Path(warehouse)
    return warehouse.with_name(warehouse.stem + RESULTS_SIDECAR_SUFFIX)


def print_summary(
    report: ValidationReport, console: Console | None = None, show_passed: bool = False
) -> None:
    """Print failed expectations (critical first) and one line of totals."""
    console = console or Console(stderr=True)
    shown = [o for o in report.outcomes if show_passed or not o.success]
    shown.sort(key=lambda o: (o.success, o.severity != "critical"))
    if shown:
        table = Table(title=f"expectations · run {escape(report.run_id)}", show_lines=False)
        table.add_column("result", no_wrap=True)
        table.add_column("suite › expectation", overflow="fold", ratio=2)
        table.add_column("observed", overflow="fold", ratio=1)
        table.add_column("first offending row", overflow="fold", ratio=3)
        for o in shown:
            status = (
                "[green]pass[/green]"
                if o.success
                else ("[red]FAIL[/red]" if o.severity == "critical" else "[yellow]warn[/yellow]")
            )
            observed = f"error: {o.error}" if o.error else _short(o.observed_value, 80)
            first_row = _short(o.offending_rows[0], 160) if o.offending_rows else ""
            table.add_row(
                status, escape(f"{o.suite} › {o.expectation}"), escape(observed), escape(first_row)
            )
        console.print(table)
    n_critical, n_warn = len(report.critical_failures), len(report.warnings)
    colour = "red" if n_critical else ("yellow" if n_warn else "green")
    timing = ", ".join(f"{k} {v:.1f}s" for k, v in report.seconds.items())
    console.print(
        f"[{colour}]{len(report.outcomes)} expectations in {len(report.suites)} suites: "
        f"{sum(o.success for o in report.outcomes)} passed, {n_critical} critical failed, "
        f"{n_warn} warning(s)[/{colour}] ({timing})"
    )
    if report.data_docs_index is not None:
        console.print(f"Data Docs: {report.data_docs_index}")


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _to_json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, default=str, ensure_ascii=False)


def _short(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
