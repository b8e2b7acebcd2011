"""Run the csrwh command line in a child process, and read its one-line errors."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_cli(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "csrwh.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, "DO_NOT_TRACK": "1", "COLUMNS": "200", **env},
        cwd=cwd,
        timeout=600,
    )


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    return errors[0]
