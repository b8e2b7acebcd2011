"""Run dbt in-process (dbtRunner) against a given warehouse file.

Anonymous tracking is off (DO_NOT_TRACK and send_anonymous_usage_stats), partial parsing is on,
and the database path reaches the profile through CSRWH_DBT_PATH.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError


@dataclass
class DbtOutcome:
    """What a dbt invocation did: node statuses, failures and wall time."""

    success: bool
    seconds: float
    n_nodes: int = 0
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # open_vocabulary tests that warned: (test unique_id, vocabulary name, compiled SQL)
    open_vocabulary_warnings: list[tuple[str, str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


def run_dbt(args: list[str], database: Path, quiet: bool = False) -> DbtOutcome:
    """Invoke `dbt <args>` in-process on `database`; never raises for failed nodes."""
    os.environ["DO_NOT_TRACK"] = "1"
    os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    os.environ["CSRWH_DBT_PATH"] = str(database)
    from dbt.cli.main import dbtRunner

    full_args = [
        *args,
        "--project-dir",
        str(PROJECT_ROOT),
        "--profiles-dir",
        str(PROJECT_ROOT / "profiles"),
    ]
    # CSRWH_DBT_TARGET_PATH lets concurrent builds (e.g. parallel tests) keep apart artefacts.
    target = Path(os.environ.get("CSRWH_DBT_TARGET_PATH") or PROJECT_ROOT / "target")
    full_args += ["--target-path", str(target)]
    cli_flags = ["--log-path", str(target / "logs")]
    if quiet:
        cli_flags.append("--quiet")
    started = time.perf_counter()
    result = dbtRunner().invoke([*cli_flags, *full_args])
    seconds = time.perf_counter() - started
    if result.exception is not None and result.result is None:
        raise CsrwhError(
            f"dbt {args[0]} could not run: {result.exception}",
            hint="check the dbt project files (dbt_project.yml, models/) and target/logs/dbt.log",
        )
    release_database(database)
    outcome = DbtOutcome(success=bool(result.success), seconds=seconds)
    results = getattr(result.result, "results", None) or []
    for node_result in results:
        outcome.n_nodes += 1
        status = str(getattr(node_result, "status", ""))
        node = getattr(node_result, "node", None)
        name = getattr(node, "unique_id", "?")
        outcome.timings[name] = float(getattr(node_result, "execution_time", 0.0) or 0.0)
        if status in ("error", "fail", "runtime error"):
            message = getattr(node_result, "message", "") or ""
            outcome.failures.append(f"{name}: {status} {message}".strip())
        elif status == "warn":
            outcome.warnings.append(f"{name}: {getattr(node_result, 'message', '')}")
            metadata = getattr(node, "test_metadata", None)
            if metadata is not None and getattr(metadata, "name", "") == "open_vocabulary":
                vocabulary = str((getattr(metadata, "kwargs", None) or {}).get("vocabulary", ""))
                compiled = getattr(node, "compiled_code", None) or ""
                outcome.open_vocabulary_warnings.append((name, vocabulary, compiled))
    return outcome


def release_database(database: Path) -> None:
    """Close the DuckDB database dbt-duckdb keeps open between invocations, and checkpoint it.

    dbt-duckdb caches its environment (and so an open DuckDB instance) at class level for the
    life of the process. The orchestrator renames the database file after dbt, so the
    instance must be closed and its WAL folded into the file first.
    """
    import gc

    import duckdb

    try:
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    except ImportError:  # pragma: no cover - adapter layout changed
        DuckDBConnectionManager = None
    if DuckDBConnectionManager is not None:
        with DuckDBConnectionManager._LOCK:
            env = DuckDBConnectionManager._ENV
            if env is not None:
                env.close()
                DuckDBConnectionManager._ENV = None
    gc.collect()
    if Path(database).exists():
        with duckdb.connect(str(database)) as con:
            con.execute("checkpoint")
