"""The documented "From Python" and "What a table or column means" examples (docs/python.md,
docs/command-line.md; found by heading, tests/docs_text.py), run as written on
the generated sample (its demo warehouse path swapped for the sample's). The eval, export and
custom-corpus examples are run by their own tests (test_eval_cli, test_export_formats,
test_build_custom)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from docs_text import code_blocks, doc_section

from csrwh.config import PROJECT_ROOT

DEMO = "warehouse/demo.duckdb"


def test_from_python_example_runs(sample_warehouse: Path) -> None:
    page, section = doc_section("From Python")
    (code,) = code_blocks(section, "python")
    assert DEMO in code
    namespace: dict = {}
    exec(compile(code.replace(DEMO, str(sample_warehouse)), str(page), "exec"), namespace)  # noqa: S102 -- the documented example, on purpose
    row = namespace["row"]
    assert namespace["train"]["split"].unique().to_list() == ["train"]
    assert {m["role"] for m in row["messages"]} <= {"user", "assistant"}
    assert len(row["turn_annotations"]) == len(row["messages"])


def _commands(block: str) -> list[list[str]]:
    """The block's `.venv/bin/csrwh` commands (continuation lines joined, comments dropped)."""
    joined = re.sub(r"\\\n\s*", " ", block)
    out = []
    for line in joined.splitlines():
        line = line.split("  #", 1)[0].strip()
        if line.startswith(".venv/bin/csrwh "):
            out.append(shlex.split(line))
    return out


CSRWH = Path(sys.executable).with_name("csrwh")
ENV = dict(os.environ, DO_NOT_TRACK="1", COLUMNS="200")


def _as_written(command: list[str], warehouse: Path) -> list[str]:
    """A documented ``.venv/bin/csrwh`` command, on ``warehouse`` in place of the demo's."""
    return [str(CSRWH), *(str(warehouse) if a == DEMO else a for a in command[1:])]


def _outputs(commands: list[list[str]], warehouse: Path) -> list[str]:
    """What each command prints, run as written; each must succeed."""
    outputs = []
    for command in commands:
        proc = subprocess.run(
            _as_written(command, warehouse),
            capture_output=True,
            text=True,
            cwd=PROJECT_ROOT,
            check=False,
            env=ENV,
        )
        assert proc.returncode == 0, (command, proc.stderr)
        outputs.append(proc.stdout)
    return outputs


def test_schema_discovery_examples_run(sample_warehouse: Path) -> None:
    (block,) = code_blocks(doc_section("What a table or column means")[1], "bash")
    commands = _commands(block)
    assert [c[1] for c in commands] == ["tables", "describe", "sql"]
    outputs = _outputs(commands, sample_warehouse)
    tables, describe, sql = outputs
    assert "conversations" in tables and "turns" in tables
    assert "n_words" in describe
    # every `votes` column is printed with its description (persist_docs), none empty
    assert "Global vote id" in sql
    assert not re.search(r"│ \w+ +│ (NULL)? +│", sql), sql  # no column without a description


def test_quick_start_commands_run(sample_warehouse: Path) -> None:
    """The README's "then try" commands on the sample warehouse: each answers (the dashboard's
    server starts and reports healthy, then is stopped)."""
    blocks = code_blocks(doc_section("Quick start")[1], "bash")
    commands = [c for block in blocks for c in _commands(block)]
    assert [c[1] for c in commands] == ["tables", "sql", "describe", "dashboard"]
    outputs = _outputs(commands[:-1], sample_warehouse)
    tables, corpus_stats, describe = outputs
    assert "conversations" in tables and "corpus" in corpus_stats and "n_words" in describe
    from csrwh.reading.dashboard import free_port

    port = free_port()
    server = subprocess.Popen(
        [*_as_written(commands[-1], sample_warehouse), "--port", str(port)],
        cwd=PROJECT_ROOT,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, "csrwh dashboard exited"
            try:
                url = f"http://127.0.0.1:{port}/_stcore/health"
                with urllib.request.urlopen(url, timeout=5) as answer:
                    assert answer.read() == b"ok"
                    break
            except OSError:
                assert time.monotonic() < deadline, "the dashboard never answered"
                time.sleep(1)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_commands_parser_sees_continuations() -> None:
    block = '.venv/bin/csrwh sql --warehouse w \\\n    "select 1"   # comment\nmake docs\n'
    assert _commands(block) == [[".venv/bin/csrwh", "sql", "--warehouse", "w", "select 1"]]


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
