"""run_dbt runs dbt in a child process (csrwh.pipeline.dbt_child): its events reach the build
live as JSON lines, its result fills DbtOutcome, and a child that dies or is interrupted
ends in one line or the interrupt, never left running."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from fake_dbt import NO_NODES, event, fake_dbt_child

from csrwh.errors import CsrwhError
from csrwh.pipeline import dbt_runner
from csrwh.pipeline.dbt_child import DbtEvent, event_dict, result_dict

FAILED_TEST = {
    "unique_id": "test.csrwh.not_null_x",
    "status": "fail",
    "message": "Got 3 results, configured to fail if != 0",
    "execution_time": 0.5,
    "compiled_code": "select 1",
    "test_name": "not_null",
    "test_kwargs": {},
}
VOCABULARY_WARNING = {
    "unique_id": "test.csrwh.open_vocabulary_x",
    "status": "warn",
    "message": "Got 2 results",
    "execution_time": 0.25,
    "compiled_code": "select 2",
    "test_name": "open_vocabulary",
    "test_kwargs": {"vocabulary": "roles"},
}
MODEL = {
    "unique_id": "model.csrwh.m",
    "status": "success",
    "message": "OK",
    "execution_time": 1.0,
    "compiled_code": "select 3",
    "test_name": None,
    "test_kwargs": {},
}
EVENTS = [
    event("UnableToPartialParse", msg="Unable to do partial parsing", reason="a file changed"),
    event("FoundStats", msg="Found 1 model, 2 data tests"),
    event("LogStartLine", msg="1 of 3 START sql table model m", description="model m", total=3),
    event("NodeFinished", level="debug", node_info={"unique_id": "model.csrwh.m"}),
    event("RunResultError", level="error", msg="Failure in test not_null_x"),
]


def test_events_and_results_fill_the_outcome(monkeypatch, tmp_path: Path, capsys) -> None:
    result = {
        "success": False,
        "exception": None,
        "results": [MODEL, FAILED_TEST, VOCABULARY_WARNING],
    }
    fake_dbt_child(monkeypatch, EVENTS, result)
    seen: list[DbtEvent] = []
    log_file = tmp_path / "logs" / "build.log"
    outcome = dbt_runner.run_dbt(
        ["build"], tmp_path / "csr.duckdb", quiet=True, log_file=log_file, on_event=seen.append
    )
    assert [e.info.name for e in seen] == [e["info"]["name"] for e in EVENTS]
    assert seen[2].data.total == 3 and seen[3].data.node_info.unique_id == "model.csrwh.m"
    assert not outcome.success and outcome.n_nodes == 3
    assert outcome.statuses == {"success": 1, "fail": 1, "warn": 1}
    assert outcome.failures == [
        "test.csrwh.not_null_x: fail Got 3 results, configured to fail if != 0"
    ]
    assert outcome.failed_tests == [("test.csrwh.not_null_x", "select 1")]
    assert outcome.open_vocabulary_warnings == [
        ("test.csrwh.open_vocabulary_x", "roles", "select 2")
    ]
    assert outcome.warnings == ["test.csrwh.open_vocabulary_x: Got 2 results"]
    assert outcome.timings["model.csrwh.m"] == 1.0
    assert outcome.full_parse_reason == "a file changed"
    assert outcome.parse_seconds is not None and outcome.log_file == log_file
    logged = log_file.read_text()
    assert "START sql table model m" in logged and "Failure in test not_null_x" in logged
    assert "NodeFinished" not in logged and len(logged.splitlines()) == 4  # info and above
    printed = capsys.readouterr().out.splitlines()  # quiet: dbt's error lines only
    assert len(printed) == 1 and printed[0].endswith("  Failure in test not_null_x")


def test_project_hooks_are_not_nodes_but_their_failure_is_one(monkeypatch, tmp_path) -> None:
    hook = {**MODEL, "unique_id": "operation.csrwh.csrwh-on-run-start-0", "message": ""}
    fake_dbt_child(
        monkeypatch, EVENTS, {"success": True, "exception": None, "results": [hook, MODEL]}
    )
    outcome = dbt_runner.run_dbt(["build"], tmp_path / "csr.duckdb", quiet=True)
    assert outcome.n_nodes == 1 and outcome.statuses == {"success": 1}
    assert list(outcome.timings) == ["model.csrwh.m"] and outcome.failures == []

    failed = {**hook, "status": "error", "message": "Catalog Error: no such database"}
    fake_dbt_child(monkeypatch, EVENTS, {"success": False, "exception": None, "results": [failed]})
    outcome = dbt_runner.run_dbt(["build"], tmp_path / "csr.duckdb", quiet=True)
    assert outcome.n_nodes == 0 and outcome.failures == [
        "operation.csrwh.csrwh-on-run-start-0: error Catalog Error: no such database"
    ]


def test_without_quiet_dbts_console_lines_are_printed(monkeypatch, tmp_path: Path, capsys) -> None:
    fake_dbt_child(monkeypatch, EVENTS)
    dbt_runner.run_dbt(["build"], tmp_path / "csr.duckdb", quiet=False)
    printed = capsys.readouterr().out
    assert "1 of 3 START sql table model m" in printed and "Found 1 model" in printed


def test_events_arrive_while_dbt_runs(monkeypatch, tmp_path: Path) -> None:
    fake_dbt_child(monkeypatch, EVENTS[:1], sleep=1.5)
    arrived: list[float] = []
    started = time.monotonic()
    dbt_runner.run_dbt(
        ["build"],
        tmp_path / "c.duckdb",
        quiet=True,
        on_event=lambda e: arrived.append(time.monotonic()),
    )
    assert arrived and arrived[0] - started < 1.4 < time.monotonic() - started


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_child_is_one_line_naming_dbt_and_the_signal(
    monkeypatch, tmp_path: Path, signum: int
) -> None:
    fake_dbt_child(monkeypatch, EVENTS[:2], signal=signum)
    with pytest.raises(CsrwhError) as failed:
        dbt_runner.run_dbt(["build"], tmp_path / "csr.duckdb", quiet=True)
    message = failed.value.message
    assert "\n" not in message
    assert message.startswith("dbt build was killed by " + signal.Signals(signum).name)


def test_a_child_that_exits_without_a_result_names_its_exit_code(
    monkeypatch, tmp_path: Path
) -> None:
    fake_dbt_child(monkeypatch, result=None, exit_code=3)
    with pytest.raises(CsrwhError, match="^dbt build ended with exit code 3 "):
        dbt_runner.run_dbt(["build"], tmp_path / "csr.duckdb", quiet=True)


def test_dbt_that_could_not_run_is_an_error(monkeypatch, tmp_path: Path) -> None:
    fake_dbt_child(monkeypatch, result={**NO_NODES, "success": False, "exception": "no project"})
    with pytest.raises(CsrwhError, match="dbt build could not run: no project"):
        dbt_runner.run_dbt(["build"], tmp_path / "csr.duckdb", quiet=True)


def test_an_interrupt_ends_the_child_and_goes_on(monkeypatch, tmp_path: Path) -> None:
    """A Ctrl-C in the build (KeyboardInterrupt while it reads the events) terminates the
    child's process group and waits for it before the interrupt goes on."""
    fake_dbt_child(monkeypatch, [event("FoundStats", msg="Found 1 model")], sleep=60)
    spill = tmp_path / "tmp"
    spill.mkdir()
    (spill / "duckdb_temp_storage_DEFAULT-0.tmp").write_text("x")
    children: list[int] = []
    real_popen = dbt_runner.subprocess.Popen

    def popen(*args, **kwargs):
        child = real_popen(*args, **kwargs)
        children.append(child.pid)
        return child

    monkeypatch.setattr(dbt_runner.subprocess, "Popen", popen)

    def interrupt(_event: object) -> None:
        raise KeyboardInterrupt

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        dbt_runner.run_dbt(
            ["build"], tmp_path / "csr.duckdb", quiet=True, on_event=interrupt, temp_dir=spill
        )
    assert time.monotonic() - started < 30
    with pytest.raises(ProcessLookupError):  # ended and reaped
        os.kill(children[0], 0)
    assert list(spill.iterdir()) == []


def test_the_child_serialises_dbts_events_the_build_reads() -> None:
    from dbt.events.types import FoundStats, LogStartLine, NodeFinished
    from dbt_common.events.base_types import EventLevel, msg_from_base_event
    from dbt_common.events.types import Note

    found = msg_from_base_event(FoundStats(stat_line="1 model"), level=EventLevel.INFO)
    start = msg_from_base_event(
        LogStartLine(description="model m", index=1, total=700), level=EventLevel.INFO
    )
    finished = msg_from_base_event(NodeFinished(), level=EventLevel.DEBUG)
    debug = msg_from_base_event(Note(msg="a SQL statement"), level=EventLevel.DEBUG)
    assert event_dict(debug) is None
    through_the_pipe = [
        DbtEvent(json.loads(json.dumps(event_dict(m)))) for m in (found, start, finished)
    ]
    assert [e.info.name for e in through_the_pipe] == ["FoundStats", "LogStartLine", "NodeFinished"]
    assert through_the_pipe[0].info.level == "info" and "1 model" in through_the_pipe[0].info.msg
    assert int(through_the_pipe[1].data.total) == 700
    assert str(through_the_pipe[1].data.description) == "model m"


def test_the_childs_result_keeps_what_the_build_reads() -> None:
    metadata = SimpleNamespace(name="open_vocabulary", kwargs={"vocabulary": "roles", "model": {}})
    node = SimpleNamespace(unique_id="test.t", compiled_code="select 1", test_metadata=metadata)
    result = SimpleNamespace(
        success=False,
        exception=None,
        result=SimpleNamespace(
            results=[SimpleNamespace(node=node, status="warn", message="Got 2", execution_time=0.5)]
        ),
    )
    assert json.loads(json.dumps(result_dict(result))) == {
        "success": False,
        "exception": None,
        "results": [
            {
                "unique_id": "test.t",
                "status": "warn",
                "message": "Got 2",
                "execution_time": 0.5,
                "compiled_code": "select 1",
                "test_name": "open_vocabulary",
                "test_kwargs": {"vocabulary": "roles"},
            }
        ],
    }
    could_not = SimpleNamespace(success=False, exception=RuntimeError("boom"), result=None)
    assert result_dict(could_not)["exception"] == "boom"


def test_the_child_starts_with_openblas_on_one_thread_whatever_the_user_set(monkeypatch) -> None:
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert dbt_runner.child_environment()["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")  # a user's value: the pin would scan
    assert dbt_runner.child_environment()["OPENBLAS_NUM_THREADS"] == "1"
