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
    cli_flags = ["--log-path", str(PROJECT_ROOT / "target" / "logs")]
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
    return outcome
