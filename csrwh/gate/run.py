"""`csrwh validate` and the build's expectations gate: Great Expectations suites over DuckDB.

:func:`validate` runs the suites of ``expectations/`` in a child process (``python -m
csrwh.gate``, :mod:`csrwh.gate.gx_run`: GX is never imported here), appends the results it
hands back to ``main.dq_results`` and names the Data Docs it rendered beside the warehouse;
:func:`gate` blocks publishing on a ``critical`` failure.
Details: docs/internals.md#csrwh-gate-run
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from csrwh.errors import CsrwhError
from csrwh.gate import data_docs
from csrwh.gate.gx_settings import GX_DUCKDB_THREADS, GX_MEMORY_SHARE
from csrwh.gate.results import (
    DQ_RESULTS,
    RESULTS_SIDECAR_SUFFIX,
    ExpectationOutcome,
    ValidationReport,
    print_summary,
    record_results,
    report_from_json,
    results_sidecar,
)
from csrwh.gate.suites import load_suites

#: what other modules import from here (the outcomes, recording and printing live in
#: :mod:`csrwh.gate.results`, GX's DuckDB settings in :mod:`csrwh.gate.gx_settings`)
__all__ = [
    "DQ_RESULTS",
    "GX_DUCKDB_THREADS",
    "GX_MEMORY_SHARE",
    "RESULTS_SIDECAR_SUFFIX",
    "ExpectationOutcome",
    "ValidationReport",
    "gate",
    "load_suites",
    "print_summary",
    "raw_gate",
    "record_results",
    "results_sidecar",
    "run_child",
    "validate",
]

#: ``data_docs_dir`` default: ``<database>.data_docs/`` beside the validated file
DEFAULT_DATA_DOCS_DIR = "beside"
OFFENDING_ROWS_KEPT = 5
#: how long a terminated child may take to exit before it is killed
_TERMINATE_GRACE_SECONDS = 10.0


def validate(
    database: Path,
    run_id: str,
    suites: list[str] | None = None,
    data_docs_dir: Path | str | None = DEFAULT_DATA_DOCS_DIR,
    *,
    expectations_dir: Path | None = None,
    record: bool = True,
    named_rows_limit: int = OFFENDING_ROWS_KEPT,
) -> ValidationReport:
    """Run the expectation suites against ``database`` (a DuckDB file) in a child process.

    ``suites`` selects suites by name, group (``raw``, ``marts``) or pattern (default: all).
    With ``record`` the outcomes are appended to ``main.dq_results`` in ``database`` (rows of
    an earlier run with the same ``run_id`` and suite are replaced). With ``data_docs_dir`` GX Data
    Docs are rendered there (static HTML, ``index.html``; by default ``<database>.data_docs/``),
    their CDN assets served from the folder itself. Nothing else in the database is
    written; the child reads it through a read-only connection, so no process may be writing
    it meanwhile. ``named_rows_limit``: how many rows of a failed built-in GX names (its SQL
    engine stops there; ``ExpectationOutcome.named_rows``), ``scripts/cookbook.py`` asks for all.
    """
    started = time.perf_counter()
    database = Path(database).expanduser().resolve()
    if not database.is_file():
        raise CsrwhError(f"database {database} does not exist", hint="build it first: csrwh build")
    load_suites(expectations_dir, suites)  # an unknown suite is one line before any process starts
    docs_dir = None
    if data_docs_dir is not None:
        docs_dir = (
            data_docs.docs_dir(database)
            if data_docs_dir == DEFAULT_DATA_DOCS_DIR
            else Path(data_docs_dir).expanduser().resolve()
        )
    request = {
        "database": str(database),
        "run_id": run_id,
        "validated_at": dt.datetime.now(dt.UTC).replace(tzinfo=None).isoformat(),
        "suites": suites,
        "docs_dir": None if docs_dir is None else str(docs_dir),
        "expectations_dir": None if expectations_dir is None else str(expectations_dir),
        "named_rows_limit": named_rows_limit,
    }
    answer = run_child(
        [sys.executable, "-m", "csrwh.gate", "{fd}", json.dumps(request)], "expectations gate"
    )
    if "error" in answer:
        error = answer["error"]
        raise CsrwhError(
            error["message"], hint=error.get("hint"), exit_code=error.get("exit_code", 1)
        )
    report = report_from_json(answer["report"])
    if record:
        step = time.perf_counter()
        record_results(database, report)
        report.seconds["record"] = time.perf_counter() - step
    report.seconds["total"] = time.perf_counter() - started
    return report


def run_child(command: list[str], what: str) -> dict[str, Any]:
    """Run ``command`` (``{fd}`` in it: the number of the pipe it writes one JSON object to) and
    return that object.

    The child's output streams are ours; its standard input is a pipe held here, so it can see
    this process go; it runs in a process group of its own, so a terminal's Ctrl-C reaches
    only this process, which then stops it. Any exception while it runs (KeyboardInterrupt from SIGINT/SIGTERM
    included) terminates it, waits for it and propagates. A child killed by a signal, or one
    that exits without an answer, is one line naming ``what``.
    """
    read_end, write_end = os.pipe()
    env = dict(os.environ)
    env.setdefault("GX_ANALYTICS_ENABLED", "false")
    # the csrwh the parent runs, whatever the child's working folder
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    try:
        proc = subprocess.Popen(
            [arg.replace("{fd}", str(write_end)) for arg in command],
            stdin=subprocess.PIPE,
            pass_fds=(write_end,),
            env=env,
            process_group=0,  # the terminal's Ctrl-C reaches this process only, which stops it
        )
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as answer:
            data = answer.read()
        returncode = proc.wait()
    except BaseException:
        _stop(proc)
        raise
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
    if returncode < 0:
        name = signal.Signals(-returncode).name
        raise CsrwhError(
            f"{what}: its process (pid {proc.pid}) was killed by {name}",
            hint="was it out of memory (dmesg)? re-run to see whether it happens again",
        )
    try:
        return json.loads(data)
    except ValueError:
        raise CsrwhError(
            f"{what}: its process (pid {proc.pid}) exited with code {returncode} and no result",
            hint="its error is printed above; re-run with CSRWH_DEBUG=1 for more",
        ) from None


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate ``proc`` and wait for it (killed if it outlives the grace period)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=_TERMINATE_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def gate(database: Path, build_id: str, suites: list[str] | None = None) -> list[str]:
    """Build gate (``csrwh.pipeline.Gate``): validate, print the summary, return critical failures.

    Runs every suite (or, from a selective rebuild, the named ``suites``: those of the tables it
    changed; the build carries the published results of the others over), records
    ``main.dq_results`` under the build id and renders Data Docs. Every message names the
    suite, the expectation, the observed value and a few offending rows. Warnings are printed
    but never returned, so they do not block publishing.
    """
    if suites is not None and not suites:
        Console(stderr=True).print("expectations: no suite's table changed; results carried over")
        return []
    docs = data_docs.docs_dir_for_build(database, build_id)  # moved to the warehouse's at publish
    report = validate(database, run_id=build_id, suites=suites, data_docs_dir=docs)
    if report.data_docs_index is not None:  # name where they will be read from
        report.data_docs_index = data_docs.published_index(database, build_id)
    print_summary(report, Console(stderr=True))
    return [f"expectation {o.message()}" for o in report.critical_failures]


def raw_gate(database: Path, build_id: str) -> list[str]:
    """Optional early gate after ingest, before dbt: the raw suites only, nothing recorded.

    Lets a build stop before dbt on malformed raw data; :func:`gate` re-runs the raw suites
    at the end so that dq_results and Data Docs cover the whole build.
    """
    report = validate(database, run_id=build_id, suites=["raw"], data_docs_dir=None, record=False)
    print_summary(report, Console(stderr=True))
    return [f"expectation {o.message()}" for o in report.critical_failures]
