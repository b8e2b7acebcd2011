"""Run a benchmark script's ``--child`` mode in a fresh interpreter and read what it measured.

A benchmark measures each build, ingest or floor in its own process, so that one run's memory
and caches do not carry into the next; the child prints its figures as JSON on its last line.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

#: the checkout's root; not csrwh.config's, which imports the ingest package (benchmarks/ingest.py
#: run as a script would be that package)
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def run_timed(
    cmd: list[str], *, what: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess, float]:
    """Run ``cmd`` from the project root, its output captured: the finished process and its
    wall seconds (measured here). A failed command ends the benchmark with ``<what> failed:``
    and the tails of its output."""
    started = time.perf_counter()
    proc = subprocess.run(
        cmd, check=False, capture_output=True, text=True, env=env, cwd=PROJECT_ROOT
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(
            f"{what} failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
        )
    return proc, wall


def run_json_child(
    script: str | Path, *args: str, what: str, env: dict[str, str] | None = None
) -> dict:
    """``python <script> --child <args>`` from the project root: the JSON object on the
    child's last stdout line, with ``wall`` (seconds, measured here) added. A failed child
    ends the benchmark with ``<what> failed:`` and the tails of its output."""
    proc, wall = run_timed([sys.executable, str(script), "--child", *args], what=what, env=env)
    lines = proc.stdout.strip().splitlines()
    try:
        result = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        sys.exit(f"{what} printed no JSON on its last line:\n{proc.stdout[-2000:]}")
    result["wall"] = wall
    return result
