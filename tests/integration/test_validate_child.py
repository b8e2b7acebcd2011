"""`csrwh validate` runs Great Expectations in a child process: Ctrl-C stops the command with
its usual line and exit 130 and leaves no child behind; a killed child is one line naming
the gate and the signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest


def _start(tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    warehouse = tmp_path / "csr.duckdb"
    duckdb.connect(str(warehouse)).close()  # every suite's table missing: no build needed
    log = tmp_path / "validate.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "csrwh.cli", "validate", "--no-docs", "--warehouse", str(warehouse)],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "DO_NOT_TRACK": "1", "COLUMNS": "200"},
    )
    return proc, log


def _child_of(proc: subprocess.Popen[str]) -> int:
    """The pid of ``proc``'s child (the gate), once it runs."""
    deadline = time.monotonic() + 120
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    while time.monotonic() < deadline and proc.poll() is None:
        pids = children.read_text().split()
        if pids:
            time.sleep(1.0)  # into its imports
            return int(pids[0])
        time.sleep(0.05)
    pytest.fail("the gate's child process never started")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


def test_ctrl_c_stops_validate_and_its_child(tmp_path: Path) -> None:
    proc, log = _start(tmp_path)
    child = _child_of(proc)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130, log.read_text()
    text = log.read_text()
    assert [line for line in text.splitlines() if line.startswith("error:")] == [
        "error: interrupted"
    ], text
    assert "Traceback" not in text
    assert _gone(child)


def test_a_killed_child_is_one_line_naming_the_gate_and_the_signal(tmp_path: Path) -> None:
    proc, log = _start(tmp_path)
    os.kill(_child_of(proc), signal.SIGKILL)
    assert proc.wait(timeout=60) == 1, log.read_text()
    text = log.read_text()
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "expectations gate" in errors[0], text
    assert "killed by SIGKILL" in errors[0], text
    assert "Traceback" not in text
