"""Scaffolding of tests/integration/test_build_safety.py: subprocess builds, waiting on their phases,
and what a build left beside the published warehouse."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb

TIMEOUT = 900  # seconds a subprocess build may take on a loaded 2-core machine


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def count(warehouse: Path, sql: str) -> int:
    """Read through a private instance (like every reader of a freshly renamed file)."""
    con = duckdb.connect(":memory:")
    try:
        con.execute(f"attach '{warehouse}' as w (read_only)")
        con.execute("use w")
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def cli_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(DO_NOT_TRACK="1", PYTHONUNBUFFERED="1", COLUMNS="200")
    env.pop("CSRWH_TEST_PAUSE_AT", None)
    env.update(extra)
    return env


def spawn(args: list[str], tmp_path: Path, log: Path, **extra: str) -> subprocess.Popen:
    """`csrwh <args>` in a subprocess, stdout+stderr to ``log`` (polled by the test)."""
    fh = open(log, "wb")  # noqa: SIM115 - the child writes it
    return subprocess.Popen(
        [sys.executable, "-m", "csrwh.cli", *args],
        stdout=fh,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
        env=cli_env(tmp_path, **extra),
    )


def wait_for(
    predicate, proc: subprocess.Popen | None = None, timeout: float = TIMEOUT, what: str = ""
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"process exited ({proc.returncode}) before {what}")
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def spawn_paused(
    args: list[str], tmp_path: Path, log: Path, phase: str, what: str
) -> tuple[subprocess.Popen, Path]:
    """`csrwh <args>` spawned with the build's test hook (``CSRWH_TEST_PAUSE_AT=<phase>``) and
    waited for until it pauses at ``phase`` (``what``: that moment, for the error); (the
    process, its pause file: remove it to let the build go on). A process that never pauses
    is killed."""
    pause = tmp_path / "pause"
    proc = spawn(args, tmp_path, log, CSRWH_TEST_PAUSE_AT=phase, CSRWH_TEST_PAUSE_FILE=str(pause))
    try:
        wait_for(pause.exists, proc, what=what)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc, pause


def finish(proc: subprocess.Popen, timeout: float = TIMEOUT) -> int:
    try:
        return proc.wait(timeout)
    finally:
        if proc.poll() is None:
            proc.kill()


def error_lines(log: Path) -> list[str]:
    return [
        line
        for line in log.read_text("utf-8", "replace").splitlines()
        if line.startswith(("error:", "hint:"))
    ]


def leftovers(warehouse: Path) -> list[str]:
    """What lies beside the published file, but for ``<warehouse>.build/``'s kept parts (the
    saved dbt state of the published build and DuckDB's (empty) spill folder) and the Data
    Docs the gate renders (``<warehouse>.data_docs/``)."""
    kept = warehouse.with_name(warehouse.name + ".build")
    docs = warehouse.name + ".data_docs"
    out = [
        p.name
        for p in warehouse.parent.iterdir()
        if p.name not in (warehouse.name, kept.name, docs)
    ]
    if kept.is_dir():
        out += [
            f"{kept.name}/{p.name}"
            for p in kept.iterdir()
            if p.name not in ("state", "tmp") or (p.name == "tmp" and any(p.iterdir()))
        ]
    return sorted(out)


def drop_last_conversation(data: Path) -> None:
    """A harmless input change (a CoSRec raw conversation nothing else refers to)."""
    conversations = data / "cosrec/dataset/raw/conversations.jsonl"
    conversations.write_text(
        "".join(conversations.read_text("utf-8").splitlines(True)[:-1]), "utf-8"
    )
