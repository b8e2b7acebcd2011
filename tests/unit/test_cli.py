"""The `csrwh` entry point: help for every command, one-line errors with a hint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

COMMANDS = ["fetch", "sample", "ingest", "build", "validate", "sql", "export", "report", "dashboard"]


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "csrwh.cli", *args], capture_output=True, text=True, env=env
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str) -> None:
    result = run_cli(command, "--help")
    assert result.returncode == 0, result.stderr
    assert "--data-dir" in result.stdout and "--warehouse" in result.stdout


def test_error_is_one_line_with_hint_not_a_traceback(tmp_path: Path) -> None:
    result = run_cli("sql", "--warehouse", str(tmp_path / "nope.duckdb"), "select 1")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "error:" in result.stderr and "hint:" in result.stderr
