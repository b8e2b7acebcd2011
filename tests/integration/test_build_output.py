"""Quiet builds (issue 11, item 6): one line per phase off a terminal, dbt's per-node lines in a
log file named by the summary (on the console only with -v), failures still printed in full;
on a terminal a progress bar per phase counting dbt's nodes from its events."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from csrwh.pipeline import PHASES
from csrwh.pipeline.display import _Display
from csrwh.sample import generate

#: a dbt per-node console line: "12 of 700 START sql table model ..." / "... OK created ..." / "... PASS ..."
NODE_LINE = re.compile(r"\b\d+ of \d+ (START|OK|PASS|WARN|FAIL|ERROR)\b")
LOG_NAMED = re.compile(r"dbt's per-node lines: (\S+\.log)")


def run_build(tmp: Path, data: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ, DO_NOT_TRACK="1", COLUMNS="200", CSRWH_DBT_TARGET_PATH=str(tmp / "target")
    )
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "csrwh.cli",
            "build",
            "--data-dir",
            str(data),
            "--warehouse",
            str(tmp / "wh" / "csr.duckdb"),
            *extra,
        ],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp,
        timeout=1800,
    )


def drop_last_line(path: Path) -> None:
    path.write_text("".join(path.read_text("utf-8").splitlines(True)[:-1]), "utf-8")


@pytest.fixture(scope="module")
def quiet_build(
    module_tmp_path: Path,
) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """The sample built once through the CLI with default output, stdout and stderr captured."""
    tmp = module_tmp_path
    data = tmp / "data"
    generate(data, scale=1, seed=0)
    return tmp, data, run_build(tmp, data)


def test_default_build_prints_one_line_per_phase_and_no_dbt_node_lines(quiet_build) -> None:
    _, _, result = quiet_build
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout + result.stderr
    assert NODE_LINE.search(out) is None, NODE_LINE.search(out)
    assert result.stdout.strip() == ""  # dbt used to print ~1400 lines here
    for phase in PHASES:
        assert len(re.findall(rf"^phase {phase} · build ", out, re.MULTILINE)) == 1, (phase, out)
    # off a terminal no progress bar is drawn: no redraws, no escape codes, no elapsed-time column
    assert "\r" not in out and "\x1b[" not in out and not re.search(r"\b\d:\d\d:\d\d\b", out)
    assert re.search(r"^phase dbt · build \S+ · START \d+ nodes", out, re.MULTILINE)


def test_a_build_ends_without_teardown_warnings(quiet_build) -> None:
    """GX runs in the gate's child process (which skips teardown) and the CLI exits normally:
    no "leaked semaphore objects" from the resource tracker, no nanobind pages."""
    _, _, result = quiet_build
    assert result.returncode == 0, result.stderr[-3000:]
    assert "leaked semaphore" not in result.stderr, result.stderr[-2000:]
    assert "nanobind" not in result.stderr, result.stderr[-2000:]


def test_the_summary_names_the_log_that_holds_every_node_line(quiet_build) -> None:
    _, _, result = quiet_build
    published = next(line for line in result.stderr.splitlines() if line.startswith("Published"))
    counts = re.search(r"(\d+) dbt nodes: (\d+) ok(?:, (\d+) no-op)?", published)
    n_nodes, n_ok = int(counts.group(1)), int(counts.group(2))
    # exposures are nodes dbt reports as no-op, without a START line of their own
    assert n_nodes == n_ok + int(counts.group(3) or 0)
    log = Path(LOG_NAMED.search(published).group(1))
    text = log.read_text("utf-8")
    # the project's on-run-start hook has lines of its own and is not a node
    assert len(re.findall(r"\b\d+ of \d+ START (?!hook)", text)) == n_ok
    assert len(re.findall(r"\b\d+ of \d+ (OK|PASS) (?!hook)", text)) == n_ok
    assert f"START {n_nodes} nodes" in result.stderr


def test_verbose_shows_dbt_node_lines_and_still_logs_them(quiet_build) -> None:
    tmp, data, _ = quiet_build
    drop_last_line(data / "cosrec/dataset/raw/conversations.jsonl")  # a change: dbt runs again
    result = run_build(tmp, data, "-v")
    assert result.returncode == 0, result.stderr[-3000:]
    shown = re.findall(r"\b\d+ of \d+ START ", result.stdout)
    log = Path(LOG_NAMED.search(result.stderr).group(1))
    logged = re.findall(r"\b\d+ of \d+ START ", log.read_text("utf-8"))
    assert len(shown) > 100 and len(shown) == len(logged)


def test_a_failing_dbt_test_still_prints_its_failure_by_default(quiet_build) -> None:
    tmp, data, _ = quiet_build
    conversations = data / "cosrec/dataset/crowd/conversations.jsonl"
    with conversations.open("a", encoding="utf-8") as fh:  # a duplicate conversation id
        fh.write(conversations.read_text("utf-8").splitlines()[0] + "\n")
    result = run_build(tmp, data)
    assert result.returncode == 1
    out = result.stdout + result.stderr
    assert not re.search(r"\b\d+ of \d+ (START|OK|PASS) ", out)  # still quiet about passing nodes
    failed = [
        line for line in result.stderr.splitlines() if line.strip().startswith("✗ test.csrwh.")
    ]
    assert failed and all(" fail " in line and "Got " in line for line in failed), result.stderr[
        -3000:
    ]
    assert "Failure in test" in result.stdout  # dbt's own error lines are not silenced
    assert re.search(r"^error: build \S+ failed", result.stderr, re.MULTILINE)


# --------------------------------------------------------------------------- on a terminal


def finished(terminal_output: str) -> list[str]:
    """The lines a terminal keeps: ``✓ <phase> <seconds>s [detail]`` (bars are redrawn away)."""
    return [m.strip() for m in re.findall(r"[✓✗] [a-z]+ +[\d.]+s[^\n\r\x1b]*", terminal_output)]


def _event(name: str, **data: object) -> SimpleNamespace:
    return SimpleNamespace(info=SimpleNamespace(name=name), data=SimpleNamespace(**data))


def _node(uid: str) -> SimpleNamespace:
    return _event("NodeFinished", node_info=SimpleNamespace(unique_id=uid))


def test_on_a_terminal_each_phase_ends_in_one_line_and_dbt_counts_its_nodes() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=100, color_system=None)
    display = _Display(console, "B1", verbose=False)
    assert display.live
    with display:
        display.enter("ingest")
        display.enter("dbt")
        for i in range(3):
            display.dbt_event(
                _event("LogStartLine", description=f"model m{i}", index=i + 1, total=3)
            )
        for i in range(2):
            display.dbt_event(_node(f"model.m{i}"))
        display.enter("gate")
    lines = finished(buffer.getvalue())
    assert [line.split()[:2] for line in lines] == [["✓", "ingest"], ["✓", "dbt"], ["✓", "gate"]]
    assert lines[1].endswith("2/3 nodes")
    assert "phase " not in buffer.getvalue()


def test_on_a_terminal_a_failed_phase_is_marked() -> None:
    buffer = io.StringIO()
    display = _Display(
        Console(file=buffer, force_terminal=True, width=100, color_system=None), "B1", False
    )
    with pytest.raises(RuntimeError), display:
        display.enter("dbt")
        raise RuntimeError("boom")
    assert [line.split()[:2] for line in finished(buffer.getvalue())] == [["✗", "dbt"]]


def test_verbose_or_no_terminal_prints_phase_lines_not_bars() -> None:
    buffer = io.StringIO()
    display = _Display(Console(file=buffer, force_terminal=False, width=100), "B1", verbose=False)
    assert not display.live
    display.log_file = Path("/x/build-B1.log")
    with display:
        display.enter("ingest")
        display.enter("dbt")  # announced by its first node, with the count
        display.dbt_event(_event("LogStartLine", description="seed s", index=1, total=700))
        display.dbt_event(_event("LogStartLine", description="seed t", index=2, total=700))
    assert buffer.getvalue().splitlines() == [
        "phase ingest · build B1",
        "phase dbt · build B1 · START 700 nodes; dbt's per-node lines: /x/build-B1.log",
    ]


def test_old_build_logs_are_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from csrwh.pipeline import KEEP_DBT_LOGS, dbt_log_path

    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(tmp_path))
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(KEEP_DBT_LOGS + 5):
        old = logs / f"build-{i:02d}.log"
        old.write_text("x")
        os.utime(old, (1_000_000 + i, 1_000_000 + i))
    (logs / "dbt.log").write_text("dbt's own log stays")
    new = dbt_log_path("new")
    assert new == logs / "build-new.log" and not new.exists()
    kept = sorted(p.name for p in logs.glob("build-*.log"))
    assert kept == [f"build-{i:02d}.log" for i in range(6, KEEP_DBT_LOGS + 5)]  # the newest 19
    assert (logs / "dbt.log").exists()
