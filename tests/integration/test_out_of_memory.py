"""An out-of-memory error, in any phase of a build, is one line that names the phase, what ran
out (file, model or suite), CSRWH_MEMORY_LIMIT and CSRWH_THREADS (issue 23). DuckDB's own
advice (``SET threads``, ``SET memory_limit``) is for its SQL users, not a build's."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from csrwh.errors import CsrwhError, is_out_of_memory, out_of_memory_line
from csrwh.gate.run import ExpectationOutcome
from csrwh.pipeline import dbt_runner

DUCKDB_OOM = (
    "Runtime Error in model int_custom__conversations (models/x.sql)\n"
    "  Out of Memory Error: failed to allocate data of size 16.0 MiB (1020.7 MiB/1.0 GiB used)\n"
    "  \n  Possible solutions:\n  * Reducing the number of threads (SET threads=X)\n"
    "  * Increasing the memory limit (SET memory_limit='...GB')\n"
)


def one_line_about_settings(line: str, phase: str, where: str) -> None:
    assert "\n" not in line
    assert f"out of memory in the {phase} phase, {where}" in line
    assert "CSRWH_MEMORY_LIMIT" in line and "CSRWH_THREADS" in line
    assert "SET " not in line


def test_the_line_names_phase_place_use_and_both_settings(monkeypatch):
    monkeypatch.setenv("CSRWH_MEMORY_LIMIT", "1GiB")
    monkeypatch.setenv("CSRWH_THREADS", "2")
    line = out_of_memory_line("dbt", "model.csrwh.x", DUCKDB_OOM)
    one_line_about_settings(line, "dbt", "model.csrwh.x")
    assert "DuckDB held 1020.7 MiB of 1.0 GiB (memory_limit 1024 MiB, 2 thread(s))" in line
    assert "CSRWH_MEMORY_LIMIT=2GiB" in line
    assert is_out_of_memory(DUCKDB_OOM) and not is_out_of_memory("Binder Error: no column x")


def test_a_dbt_node_that_ran_out_of_memory_is_one_failure_line():
    result = SimpleNamespace(status="error", message=DUCKDB_OOM)
    line = dbt_runner.failure_line("model.csrwh.int_custom__conversations", result)
    one_line_about_settings(line, "dbt", "model.csrwh.int_custom__conversations")
    other = SimpleNamespace(status="fail", message="Got 3 results, configured to fail if != 0")
    assert dbt_runner.failure_line("test.csrwh.t", other) == (
        "test.csrwh.t: fail Got 3 results, configured to fail if != 0"
    )


def test_dbt_error_lines_reach_the_console_but_not_duckdbs_memory_advice(capsys):
    printer = dbt_runner._ConsoleErrors()
    for level, text in [
        ("error", "Failure in test t (models/x.yml)"),
        ("error", DUCKDB_OOM),
        ("info", "1 of 9 START sql table model x"),
    ]:
        printer(SimpleNamespace(info=SimpleNamespace(level=level, msg=text)))
    out = capsys.readouterr().out
    assert "Failure in test t (models/x.yml)" in out
    assert "Out of Memory" not in out and "SET threads" not in out and "START" not in out


def test_an_expectation_that_ran_out_of_memory_is_one_line_with_the_gates_limit(monkeypatch):
    monkeypatch.setenv("CSRWH_MEMORY_LIMIT", "3GiB")
    outcome = ExpectationOutcome(
        suite="raw.custom__conversations",
        table="raw.custom__conversations",
        expectation="messages_have_documented_shape",
        expectation_type="unexpected_rows_expectation",
        severity="critical",
        success=False,
        error="OutOfMemoryException: Out of Memory Error: (504.9 MiB/512.0 MiB used)",
    )
    line = outcome.message()
    one_line_about_settings(
        line, "gate", "suite raw.custom__conversations › messages_have_documented_shape"
    )
    assert "memory_limit 1536MiB" in line  # the gate's share of the build's 3 GiB


def test_a_build_that_runs_out_of_memory_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    """A real build under a tiny limit: long own-corpus lines run out in ingest (or later);
    whichever phase it is, one line says so and the build fails without publishing."""
    from csrwh.pipeline import build

    folder = tmp_path / "data" / "custom" / "long"
    folder.mkdir(parents=True)
    text = "word " * 20_000  # ~100 KB a message
    with (folder / "chats.jsonl").open("w") as lines:
        for n in range(300):
            messages = [{"role": "user", "text": text}, {"role": "assistant", "text": text}]
            lines.write(json.dumps({"id": f"c{n}", "messages": messages}) + "\n")
    monkeypatch.setenv("CSRWH_MEMORY_LIMIT", "64MiB")
    monkeypatch.setenv("CSRWH_THREADS", "2")
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(tmp_path / "target"))
    warehouse = tmp_path / "warehouse" / "w.duckdb"
    with pytest.raises(CsrwhError) as failed:
        build(tmp_path / "data", warehouse)
    printed = capsys.readouterr().out + str(failed.value.message)
    lines = [line for line in printed.splitlines() if "out of memory in the" in line]
    assert lines, printed[-2000:]
    assert "CSRWH_MEMORY_LIMIT" in lines[0] and "CSRWH_THREADS" in lines[0]
    assert "SET threads" not in printed
    assert not warehouse.exists()
    assert not Path(f"{warehouse}.wal").exists()
