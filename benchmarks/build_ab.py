"""Cold `csrwh build` of two commits, interleaved in one run: is the build slower than before?

    python benchmarks/build_ab.py --before fcb8f0f --after HEAD --data-dir ../shared/corpora --rounds 2

Each commit is checked out (``git worktree add``) under a temporary folder this script makes
and removes; every round builds the same data cold with each commit in turn (A B A B ...), in
a fresh warehouse folder, through this venv's Python with the commit's code first on
``PYTHONPATH`` (its own dbt target folder, so each keeps its partial parse across rounds). It
prints each build's wall and the peak RSS of its process tree (the highest sum, sampled every
0.1 s from ``/proc``, of the CLI's resident set and its descendants': dbt's child process, the
gate's) and the after/before ratios of the means. The machine is shared: only the ratios of one
run compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = "import sys; from csrwh.cli import main; sys.exit(main())"


def _checkout(rev: str, where: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(where), rev], check=True
    )
    return where


def _tree_rss_kb(pid: int) -> int:
    """VmRSS of ``pid`` plus that of its descendants (``/proc/<pid>/task/*/children``)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            total = next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))
        tasks = os.listdir(f"/proc/{pid}/task")
    except (OSError, StopIteration):  # ended meanwhile
        return 0
    children = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                children += fh.read().split()
        except OSError:  # a thread that ended meanwhile
            continue
    return total + sum(_tree_rss_kb(int(child)) for child in children)


def _build(code: Path, data: Path, out: Path, target: Path) -> tuple[float, float]:
    """One cold build: (wall seconds, peak MB of the process tree's summed RSS)."""
    out.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(code), "CSRWH_DBT_TARGET_PATH": str(target)}
    env["DO_NOT_TRACK"] = "1"
    command = [sys.executable, "-c", BUILD, "build"]
    command += ["--data-dir", str(data), "--warehouse", str(out / "csr.duckdb")]
    started = time.perf_counter()
    proc = subprocess.Popen(
        command, cwd=code, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    peak = [0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss_kb(proc.pid))
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, stderr = proc.communicate()
    wall = time.perf_counter() - started
    sampler.join()
    if proc.returncode != 0:
        tail = stderr.strip().splitlines()[-3:]
        raise SystemExit(f"error: the build of {code.name} failed ({proc.returncode}): {tail}")
    return wall, peak[0] / 1024


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="git revision of the old code")
    parser.add_argument("--after", default="HEAD", help="git revision of the new code")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="csrwh-build-ab-") as tmp:
        root = Path(tmp)
        codes = {}
        try:
            for side in ("before", "after"):
                codes[side] = _checkout(getattr(args, side), root / side)
            runs: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
            for n in range(1, args.rounds + 1):
                for side, code in codes.items():
                    wall, peak = _build(
                        code, args.data_dir.resolve(), root / f"wh-{side}-{n}", root / f"t-{side}"
                    )
                    runs[side].append((wall, peak))
                    print(
                        f"round {n} {side:6} wall {wall:7.1f} s  peak RSS {peak:6.0f} MB",
                        flush=True,
                    )
        finally:
            for code in codes.values():
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(code)],
                    check=False,
                )
    walls = {side: statistics.mean(w for w, _ in r) for side, r in runs.items()}
    peaks = {side: statistics.mean(p for _, p in r) for side, r in runs.items()}
    print(
        f"mean wall before {walls['before']:.1f} s, after {walls['after']:.1f} s: "
        f"after/before {walls['after'] / walls['before']:.2f}"
    )
    print(
        f"mean peak before {peaks['before']:.0f} MB, after {peaks['after']:.0f} MB: "
        f"after/before {peaks['after'] / peaks['before']:.2f}"
    )


if __name__ == "__main__":
    main()
