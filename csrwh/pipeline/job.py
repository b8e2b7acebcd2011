"""One locked build, phase by phase (package doc): copy, ingest, up-to-date, refusals, dbt,
gate, publish."""

from __future__ import annotations

import contextlib
import inspect
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from rich.markup import escape

from csrwh.errors import (
    DISK_FULL_LINE,
    CsrwhError,
    damaged_warehouse_error,
    is_damaged_database,
)
from csrwh.pipeline.checks import _Checks
from csrwh.pipeline.dbt_runner import run_dbt
from csrwh.pipeline.display import _Display, console, dbt_log_path
from csrwh.pipeline.fingerprint import _record_build, project_fingerprint
from csrwh.pipeline.ingest_only import landing_connection
from csrwh.pipeline.lock import LockInfo
from csrwh.pipeline.paths import (
    _remove_db,
    build_dir,
    building_path,
    dbt_path,
    remove_leftovers,
    state_dir,
    temp_dir,
    wal_path,
)
from csrwh.pipeline.result import EXIT_REFUSED, BuildResult, Gate
from csrwh.pipeline.selection import _carry_over, _DbtState
from csrwh.pipeline.signals import (
    _pause,
    _SignalGuard,
    disk_full_error,
    free_bytes,
    pausing_after,
)
from csrwh.pipeline.state import (
    _ingest_files,
    _inputs_digest,
    _read_state,
    _record_volumes,
    _Volume,
    _volume_tables,
    _volumes,
)
from csrwh.pipeline.uptodate import published_file_differs, why_not_up_to_date


class _Build(_DbtState, _Checks):
    """The state of one locked build; ``phase`` says where it is (for messages and cleanup)."""

    def __init__(
        self,
        build_id: str,
        data_dir: Path,
        warehouse: Path,
        corpora: list[str] | None,
        strict: bool,
        gates: list[Gate],
        full_refresh: bool,
        allow_rejects: bool,
        dropped: set[str],
        allow_shrink: bool,
        max_shrink: float,
        verbose: bool = False,
        full: bool = False,
    ) -> None:
        self.build_id = build_id
        self.data_dir = data_dir
        self.warehouse = warehouse
        self.corpora = corpora
        self.strict = strict
        self.gates = gates
        self.full_refresh = full_refresh
        self.allow_rejects = allow_rejects
        self.dropped = dropped
        self.allow_shrink = allow_shrink
        self.max_shrink = max_shrink
        self.work = building_path(warehouse, build_id)
        self.phase = "lock"
        self.guard = _SignalGuard()
        self.result = BuildResult(build_id=build_id, warehouse=warehouse, published=False)
        self.verbose = verbose
        self.full = full
        # why the published file needs repair (stale WAL, written since published), or None
        self.repair: str | None = None
        self.display = _Display(console, build_id, verbose)
        # the file dbt's profile points at (dbt_path(); the working file if no link can be made)
        self.dbt_db = self.work
        # the published build's landed files, read from the working copy before ingest
        self.published_files: list[tuple[str, str, str, str]] = []
        # the next saved state (dbt manifest + build.json), moved into place on publish
        self.new_state = build_dir(warehouse) / f"state.new-{build_id}"
        # the room on the warehouse's disk when the build began (named if the disk fills)
        self.free_at_start: int | None = None

    # -- phases ---------------------------------------------------------------------
    def enter(self, phase: str) -> None:
        self.guard.check()
        self.phase = phase
        self.display.enter(phase)
        _pause(phase, self.warehouse)

    def note(self, line: str) -> None:
        self.result.notes.append(line)
        console.print(f"[yellow]note:[/yellow] {escape(line)}", soft_wrap=True)

    def took_over(self, previous: LockInfo | None) -> None:
        """Remove whatever dead builds left (we hold the lock: no other build is running)."""
        self.enter("lock")
        if previous is not None:
            self.note(f"took over the lock of {previous.describe()}, which is no longer running")
        removed = remove_leftovers(self.warehouse, self.work)
        if removed:
            self.note(
                "removed what builds and ingests that did not finish left beside the "
                f"warehouse: {', '.join(removed)}"
            )
        # a dead build's hard link for dbt and half-written states (we hold the lock)
        _remove_db(dbt_path(self.warehouse))
        for stale in build_dir(self.warehouse).glob("state.*-*"):
            shutil.rmtree(stale, ignore_errors=True)

    def run(self) -> BuildResult:
        result, warehouse, work = self.result, self.warehouse, self.work
        started = time.perf_counter()
        self.free_at_start = free_bytes(warehouse.parent)

        self.enter("copy")
        # a stale WAL or a file written since its build published it: a full, checked rebuild
        self.repair = (
            published_file_differs(warehouse)
            if warehouse.exists() and not self.full_refresh
            else None
        )
        if self._up_to_date():  # before any copy, and before dbt or GX is imported
            result.up_to_date = True
            result.seconds["check"] = result.seconds["total"] = time.perf_counter() - started
            console.print(
                f"[green]Up to date[/green]: {warehouse} was built from these input files with these models"
            )
            return result

        from ingest import run_ingest

        _remove_db(work)
        with self._naming_damage():
            if warehouse.exists() and not self.full_refresh:
                self._check_no_writer()
                shutil.copy2(warehouse, work)
                if wal_path(warehouse).exists():
                    self._fold_wal()
            published_state = self._published_state()
            if work.exists():
                self.published_files = _ingest_files(work)
            result.seconds["copy"] = time.perf_counter() - started

            self.enter("ingest")
            step = time.perf_counter()
            summary = self._ingest(run_ingest)
        self.guard.check()
        result.seconds["ingest"] = time.perf_counter() - step
        result.records_rejected = summary.records_rejected

        if self.strict and summary.rejected_outstanding:
            kept = self.keep_failed()
            raise CsrwhError(
                f"{summary.rejected_outstanding} rejected record(s) and --strict is set; build "
                f"{self.build_id} was not published and {warehouse} was left untouched",
                hint=f"the rejects are in the kept build: csrwh sql --warehouse {kept} "
                '"select corpus, source_path, line_number, error from raw.rejected_records"'
                if kept
                else "re-run without --strict to land the good records and inspect the rejects",
                exit_code=EXIT_REFUSED,
            )

        fingerprint = project_fingerprint()
        inputs = _inputs_digest(work)
        if (
            not self.full_refresh
            and not self.full
            and self.repair is None
            and published_state is not None
            and published_state.fingerprint == fingerprint
            and published_state.inputs_digest == inputs
        ):
            _remove_db(work)
            result.up_to_date = True
            result.seconds["total"] = time.perf_counter() - started
            console.print(
                f"[green]Up to date[/green]: {warehouse} was built from these input files with these models"
            )
            return result

        raw_tables, mart_tables = _volume_tables()
        refusals = self._input_refusals(published_state, summary.missing_corpora)
        volumes: list[_Volume] = []
        if published_state is not None:
            now = _read_state(work, raw_tables, full=False)
            volumes = _volumes(published_state, now, raw_tables, self.dropped, self.max_shrink)
            refusals += self._shrink_refusals(volumes)
        if refusals:
            _record_volumes(work, self.build_id, volumes, self.allow_shrink)
            self.refuse(refusals)

        selection = self._plan(published_state, fingerprint)
        log_file = dbt_log_path(self.build_id)
        self.display.log_file = log_file
        self.enter("dbt")
        step = time.perf_counter()
        if self.verbose:
            console.print(
                f"[bold]dbt build[/bold] (staging views, marts, tests; also in {escape(str(log_file))})"
            )
        self.dbt_db = self._link_for_dbt()
        args = ["build"]
        if selection is not None:
            args += ["--select", *selection.select, "--state", str(state_dir(warehouse))]
        elif self.full:  # --full: the incremental Python models too compute everything again
            args.append("--full-refresh")
        # dbt runs in a child process, which run_dbt ends before an interrupt goes on
        outcome = run_dbt(
            args,
            self.dbt_db,
            quiet=not self.verbose,
            log_file=log_file,
            on_event=self.display.dbt_event,
            temp_dir=temp_dir(warehouse),
        )
        self._unlink_for_dbt()
        self.guard.check()
        self._stage_state()
        result.dbt = outcome
        result.seconds["dbt"] = time.perf_counter() - step
        failures: list[str] = []
        if not outcome.success:
            from csrwh.pipeline.failing_rows import with_rows

            failures.extend(
                with_rows(work, outcome.failures, outcome.failed_tests)
                or [f"dbt build failed (see {outcome.log_file})"]
            )

        if not failures and published_state is not None:
            marts = _volumes(
                published_state,
                _read_state(work, mart_tables, full=False),
                mart_tables,
                self.dropped,
                self.max_shrink,
            )
            volumes += marts
            _record_volumes(work, self.build_id, volumes, self.allow_shrink)
            refusals = self._shrink_refusals(marts)
            if refusals:
                self.refuse(refusals)

        if not failures:
            from csrwh.pipeline.novelty import report as report_novelties

            self.enter("gate")
            step = time.perf_counter()
            # a selective rebuild with no project file changed scans only the re-ingested raw
            # tables' key paths; _carry_over brings the others' outcomes
            scanned = None if selection is None or selection.code_changed else selection.raw_tables
            result.novelties = report_novelties(
                work,
                self.build_id,
                result.dbt,
                console,
                temp_dir(warehouse),
                raw_tables=scanned,
            )
            result.seconds["novelty"] = time.perf_counter() - step
            _record_build(work, self.build_id, self.data_dir, fingerprint, inputs)
            suites = None if selection is None else selection.suites(outcome)
            for gate in self.gates:
                step = time.perf_counter()
                if suites is not None and "suites" in inspect.signature(gate).parameters:
                    failures.extend(gate(work, self.build_id, suites=suites))
                else:
                    failures.extend(gate(work, self.build_id))
                self.guard.check()  # GX reports an interrupt as a failed expectation
                result.seconds[getattr(gate, "__name__", "gate")] = time.perf_counter() - step
            if selection is not None and published_state is not None and published_state.build_id:
                _carry_over(work, published_state.build_id, self.build_id, outcome)

        full = [  # a failed node's or expectation's line (csrwh.errors.DISK_FULL_LINE)
            line
            for line in failures
            if line.removeprefix("expectation ").startswith(DISK_FULL_LINE)
        ]
        if full:  # the working file is removed, not kept: it would keep the disk full
            raise disk_full_error(self.build_id, self.phase, warehouse, self.free_at_start, full[0])
        if failures:
            kept = self.keep_failed()
            for line in failures[:20]:
                console.print(f"  [red]✗[/red] {escape(line)}")
            raise CsrwhError(
                f"build {self.build_id} failed ({len(failures)} problem(s)); the published warehouse "
                f"{warehouse} was left untouched",
                hint=f'inspect the rejected build with: csrwh sql --warehouse {kept} "..."'
                if kept
                else "re-run the build to see the failures again",
            )

        self.enter("publish")
        if wal_path(
            work
        ).exists():  # every writer checkpointed on close; a WAL here means one did not
            raise CsrwhError(
                f"build {self.build_id}: {wal_path(work)} still holds unwritten changes; not publishing",
                hint="another process may have the building database open; retry the build",
            )
        stale = wal_path(warehouse)
        if stale.exists():
            self._check_no_writer()
        with self.guard.deferred():
            self.guard.check()
            if stale.exists():
                aside = stale.with_name(f"{stale.name}.stale-{self.build_id}")
                os.replace(stale, aside)
                self.note(
                    f"moved the stale {stale.name} (left by a writer of the old file that did not close) "
                    f"to {aside.name}, so readers of the new file do not replay it"
                )
            os.replace(work, warehouse)
            result.published = True
            _data_docs().publish(work, warehouse)
            self._publish_state()
        self.guard.check()
        result.seconds["total"] = time.perf_counter() - started
        return result

    def _up_to_date(self) -> bool:
        """The no-change check of :mod:`csrwh.pipeline.uptodate`, on the published file as it is.

        Not with ``full_refresh`` or ``full``, nor for a published file that needs repair
        (``self.repair``), nor when the test hook pauses at a later phase (the build must
        reach it). When it cannot tell, the copy, ingest and the check after ingest decide.
        """
        if self.full_refresh or self.full or self.repair is not None or pausing_after("copy"):
            if self.verbose and self.repair is not None:
                console.print(f"[dim]not up to date: {escape(self.repair)}[/dim]", soft_wrap=True)
            return False
        try:
            why = why_not_up_to_date(
                self.data_dir, self.warehouse, self.corpora, self.strict, console=console
            )
        except Exception as exc:  # noqa: BLE001 - the copy and ingest decide and report
            why = f"the check failed ({type(exc).__name__}: {str(exc)[:160]})"
        if why is not None and self.verbose:
            console.print(f"[dim]not up to date: {escape(why)}[/dim]", soft_wrap=True)
        return why is None

    @contextlib.contextmanager
    def _naming_damage(self):
        """A DuckDB error saying the copy of the published file is damaged becomes one line
        naming the published warehouse and ``--full-refresh`` (which starts without it)."""
        import duckdb

        try:
            yield
        except duckdb.Error as exc:
            if self.full_refresh or not is_damaged_database(str(exc)):
                raise
            raise damaged_warehouse_error(self.warehouse, str(exc)) from exc

    # -- ingest, selection and dbt's state ---------------------------------------------
    def _ingest(self, run_ingest: Callable[..., object]) -> object:
        """Ingest through a connection with the build's DuckDB settings (memory, threads, spill)."""
        folder = temp_dir(self.warehouse)
        folder.mkdir(parents=True, exist_ok=True)
        with landing_connection(self.work, folder) as con:
            return run_ingest(self.data_dir, con, corpora=self.corpora)


def _data_docs():  # the module, imported on use (the gate package loads the suite specs)
    from csrwh.gate import data_docs

    return data_docs
