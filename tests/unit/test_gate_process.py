"""The gate's child process (csrwh/gate/run.py run_child, csrwh/gate/__main__.py): its answer
comes back through a pipe, an interrupt terminates and reaps it, a killed or silent child is
one line naming the gate, the child goes when its parent does, and GX never loads in the
parent."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from csrwh.errors import CsrwhError
from csrwh.gate.results import (
    ExpectationOutcome,
    ValidationReport,
    report_from_json,
    report_to_json,
)
from csrwh.gate.run import run_child

ROOT = Path(__file__).resolve().parents[2]
GATE = "expectations gate"


def test_the_childs_json_answer_comes_back() -> None:
    script = "import os, sys; os.write(int(sys.argv[1]), b'{\"seen\": [1, 2]}')"
    assert run_child([sys.executable, "-c", script, "{fd}"], GATE) == {"seen": [1, 2]}


def test_a_killed_child_is_one_line_naming_the_gate_and_the_signal() -> None:
    script = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    with pytest.raises(CsrwhError) as caught:
        run_child([sys.executable, "-c", script], GATE)
    message = caught.value.message
    assert message.startswith(f"{GATE}: ") and "killed by SIGKILL" in message
    assert "\n" not in message


def test_a_child_that_exits_without_an_answer_names_its_exit_code() -> None:
    with pytest.raises(CsrwhError, match=f"{GATE}: .* exited with code 3 and no result"):
        run_child([sys.executable, "-c", "raise SystemExit(3)"], GATE)


def test_an_interrupt_terminates_and_reaps_the_child(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(120)"

    def interrupt(signum: int, frame: object) -> None:  # as the build's signal guard does
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    started = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, 3.0)
        with pytest.raises(KeyboardInterrupt):
            run_child([sys.executable, "-c", script, str(pid_file)], GATE)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - started < 60
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):  # terminated and waited for: no such process left
        os.kill(pid, 0)


def test_the_child_exits_when_its_parents_end_of_stdin_closes() -> None:
    script = (
        "import threading, time\n"
        "from csrwh.gate.__main__ import _exit_when_parent_goes\n"
        "threading.Thread(target=_exit_when_parent_goes, daemon=True).start()\n"
        "time.sleep(120)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, env=env)
    try:
        time.sleep(1.0)
        assert proc.poll() is None
        proc.stdin.close()  # type: ignore[union-attr]
        assert proc.wait(timeout=30) == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_report_survives_its_json_round_trip() -> None:
    outcome = ExpectationOutcome(
        "turns", "main.turns", "ids", "expect_column_values_to_be_unique", "critical", False,
        observed_value={"unexpected_count": 2}, offending_rows=[{"id": 1}], error=None,
        why="ids are unique", named_rows=[{"id": 1}],
    )  # fmt: skip
    report = ValidationReport(
        "run-1", Path("/w.duckdb"), dt.datetime(2026, 1, 2, 3, 4, 5, 6), [outcome],
        {"import": 1.5}, {"turns": 0.25}, Path("/docs/index.html"), "1.24.1",
    )  # fmt: skip
    assert report_from_json(report_to_json(report)) == report


def test_validate_keeps_great_expectations_out_of_its_own_process(tmp_path: Path) -> None:
    """... and the child writes GX's SQL where CSRWH_GATE_SQL_CAPTURE says (benchmarks/build.py)."""
    database = tmp_path / "w.duckdb"
    capture = tmp_path / "sql.json"
    duckdb.connect(str(database)).close()
    script = (
        "import sys\n"
        "from csrwh.gate.run import validate\n"
        "report = validate(sys.argv[1], 'run', suites=['raw'], data_docs_dir=None, record=False)\n"
        "assert report.outcomes and report.gx_version, report\n"
        "print('gx in parent:', 'great_expectations' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DO_NOT_TRACK": "1"}
    env["CSRWH_GATE_SQL_CAPTURE"] = str(capture)
    out = subprocess.run(
        [sys.executable, "-c", script, str(database)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    ).stdout
    assert "gx in parent: False" in out
    statements = [statement for statement, _ in json.loads(capture.read_text())]
    assert any("information_schema.tables" in statement for statement in statements), statements
