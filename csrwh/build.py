"""`csrwh build`: ingest + dbt build (+ expectations) into a staging copy, then publish.

The published warehouse is never written in place. A build works on
`<warehouse>.building` (a copy of the last published file, so unchanged files are not
re-ingested), and only when every step passed is that file atomically renamed over the
published one. A failed build leaves the published warehouse untouched and keeps the
rejected build as `<warehouse>.failed` for inspection.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from csrwh import __version__
from csrwh.config import PROJECT_ROOT
from csrwh.dbt_runner import DbtOutcome, run_dbt
from csrwh.errors import CsrwhError

console = Console(stderr=True)

# Hook for quality gates run on the building database before publishing: each returns a
# list of failure messages (empty = pass). The expectations step registers itself here.
Gate = Callable[[Path, str], list[str]]


@dataclass
class BuildResult:
    """Timings and outcome of one build."""

    build_id: str
    warehouse: Path
    published: bool
    seconds: dict[str, float] = field(default_factory=dict)
    records_rejected: int = 0
    # new JSON key paths and new open-vocabulary values (warnings; see csrwh/novelty.py)
    novelties: list[str] = field(default_factory=list)
    dbt: DbtOutcome | None = None
    up_to_date: bool = False


def building_path(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + ".building")


def failed_path(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + ".failed")


def _remove_db(path: Path) -> None:
    for candidate in (path, path.with_name(path.name + ".wal")):
        if candidate.exists():
            candidate.unlink()


def build(
    data_dir: Path,
    warehouse: Path,
    corpora: list[str] | None = None,
    strict: bool = False,
    gates: list[Gate] | None = None,
    full_refresh: bool = False,
) -> BuildResult:
    """Build the warehouse from `data_dir` and publish it to `warehouse` if every step passes."""
    from ingest import run_ingest

    build_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    work = building_path(warehouse)
    _remove_db(work)
    result = BuildResult(build_id=build_id, warehouse=warehouse, published=False)
    started = time.perf_counter()
    if warehouse.exists() and not full_refresh:
        shutil.copy2(warehouse, work)
    result.seconds["copy"] = time.perf_counter() - started

    step = time.perf_counter()
    summary = run_ingest(data_dir, work, corpora=corpora)
    result.seconds["ingest"] = time.perf_counter() - step
    result.records_rejected = summary.records_rejected

    if strict and summary.rejected_outstanding:
        _remove_db(work)
        raise CsrwhError(
            f"{summary.rejected_outstanding} rejected record(s) in raw.rejected_records and "
            f"--strict is set; {warehouse} was left untouched",
            hint=f'see them with: csrwh sql --warehouse {warehouse} "select * from raw.rejected_records"'
            if warehouse.exists() else "re-run without --strict to land the good records and inspect the rejects",
            exit_code=3,
        )

    fingerprint = project_fingerprint()
    nothing_changed = not (summary.files_loaded or summary.files_removed)
    if nothing_changed and not full_refresh and _published_fingerprint(warehouse) == fingerprint:
        _remove_db(work)
        result.up_to_date = True
        result.seconds["total"] = time.perf_counter() - started
        console.print(f"[green]Up to date[/green]: no input file and no model changed since the last build of {warehouse}")
        return result

    failures: list[str] = []

    if not failures:
        step = time.perf_counter()
        console.print("[bold]dbt build[/bold] (staging views, marts, tests)")
        outcome = run_dbt(["build"], work)
        result.dbt = outcome
        result.seconds["dbt"] = time.perf_counter() - step
        if not outcome.success:
            failures.extend(outcome.failures or ["dbt build failed (see target/logs/dbt.log)"])

    if not failures:
        from csrwh.novelty import report as report_novelties

        step = time.perf_counter()
        result.novelties = report_novelties(work, build_id, result.dbt, console)
        result.seconds["novelty"] = time.perf_counter() - step
        _record_build(work, build_id, data_dir, fingerprint)
        for gate in gates or []:
            step = time.perf_counter()
            failures.extend(gate(work, build_id))
            result.seconds[getattr(gate, "__name__", "gate")] = time.perf_counter() - step

    if failures:
        rejected = failed_path(warehouse)
        _remove_db(rejected)
        if work.exists():
            os.replace(work, rejected)
        for line in failures[:20]:
            console.print(f"  [red]✗[/red] {line}")
        raise CsrwhError(
            f"build {build_id} failed ({len(failures)} problem(s)); the published warehouse "
            f"{warehouse} was left untouched",
            hint=f"inspect the rejected build with: csrwh sql --warehouse {rejected} \"...\"",
        )

    wal = work.with_name(work.name + ".wal")
    if wal.exists():  # every writer checkpointed on close; a WAL here means one did not
        raise CsrwhError(
            f"build {build_id}: {wal} still holds unwritten changes; not publishing",
            hint="another process may have the building database open; retry the build",
        )
    os.replace(work, warehouse)
    result.published = True
    result.seconds["total"] = time.perf_counter() - started
    return result


def project_fingerprint() -> str:
    """sha256 over everything that shapes the marts: dbt project, models, macros, seeds, tests, suites."""
    digest = hashlib.sha256(__version__.encode())
    names = ["dbt_project.yml", "profiles/profiles.yml"]
    for folder in ("models", "macros", "seeds", "tests/dbt", "expectations"):
        names.extend(
            str(p.relative_to(PROJECT_ROOT))
            for p in (PROJECT_ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        )
    for name in sorted(names):
        path = PROJECT_ROOT / name
        if path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _published_fingerprint(warehouse: Path) -> str | None:
    """The fingerprint recorded by the last published build, if any."""
    import duckdb

    if not warehouse.exists():
        return None
    try:
        with duckdb.connect(str(warehouse), read_only=True) as con:
            row = con.execute("select project_fingerprint from main.build_info").fetchone()
    except duckdb.Error:
        return None
    return row[0] if row else None


def _record_build(database: Path, build_id: str, data_dir: Path, fingerprint: str) -> None:
    """Write the build's id into the warehouse (`main.build_info`) so reports can cite it."""
    import duckdb

    with duckdb.connect(str(database)) as con:
        con.execute(
            "create or replace table main.build_info as select ? as build_id, "
            "current_timestamp as built_at, ? as data_dir, ? as project_fingerprint, "
            "? as csrwh_version",
            [build_id, str(data_dir), fingerprint, __version__],
        )
