"""Wall-clock and CPU time of `csrwh report` (csrwh.reading.report.build_report) on a warehouse, by phase.

Runs the report ``--runs`` times, each in a fresh Python process as the command line does
(imports included), and prints the median of each phase that ``build_report(timings=...)``
records: reading the notebook, starting the kernel, every section's cells, stopping the
kernel, exporting to HTML, writing the page; the figures (layout, drawing, PNG encoding, timed
in the kernel) with the slowest ones; and the CPU time of the whole process tree (the command
and its kernel: user + system), which, unlike wall-clock time, does not grow when other jobs
compete for the machine. The load average is printed before and after, since on a shared
machine wall-clock time depends on it. It then checks that every run wrote byte-identical
tables and pages identical but for the generation time, and with ``--render`` times the
headless Chromium render check of the last page.

    .venv/bin/python benchmarks/report.py --warehouse /tmp/real.duckdb [--runs 5] [--render]

To time another checkout (e.g. the last commit, ``git archive HEAD | tar -x -C /tmp/base``), put
it first on the path: ``PYTHONPATH=/tmp/base .venv/bin/python benchmarks/report.py ...``; a
checkout whose ``build_report`` records no timings gets wall-clock and CPU only.

Exit status 1 when the runs' tables differ, or when ``--budget`` seconds is given and the
median wall-clock time is over it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

GENERATED_AT = re.compile(r'<span id="generated-at">[^<]*</span>')

CHILD = """
import inspect, json, sys
from pathlib import Path
from csrwh.reading.report import build_report
timings = {}
if "timings" in inspect.signature(build_report).parameters:
    build_report(Path(sys.argv[1]), Path(sys.argv[2]), progress=False, timings=timings)
else:  # an older checkout (PYTHONPATH=<its folder>): wall clock and CPU only
    build_report(Path(sys.argv[1]), Path(sys.argv[2]), progress=False)
print(json.dumps(timings))
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(warehouse: Path, out: Path) -> dict:
    """One report in a fresh process: its timings plus wall-clock and process-tree CPU seconds."""
    env = {**os.environ, "DO_NOT_TRACK": "1"}
    cpu0, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(warehouse), str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=out.parent,
        check=False,
    )
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode != 0:
        raise SystemExit(f"report failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    timings = {"cells": [], "figures": [], **json.loads(done.stdout.strip().splitlines()[-1])}
    return {**timings, "wall": wall, "cpu": cpu}


def _median(values: list[float | None]) -> float:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else float("nan")


def same_outputs(outs: list[Path]) -> tuple[bool, list[str]]:
    """Every run's tables byte-identical to the first's, pages identical but for the time."""
    problems = []
    first = outs[0]
    names = sorted(p.name for p in (first / "tables").glob("*.csv"))
    for other in outs[1:]:
        if sorted(p.name for p in (other / "tables").glob("*.csv")) != names:
            problems.append(f"{other.name}: another set of tables")
            continue
        for name in names:
            if (first / "tables" / name).read_bytes() != (other / "tables" / name).read_bytes():
                problems.append(f"{other.name}: tables/{name} differs")
        page1 = GENERATED_AT.sub("", (first / "statistics.html").read_text(encoding="utf-8"))
        page2 = GENERATED_AT.sub("", (other / "statistics.html").read_text(encoding="utf-8"))
        if page1 != page2:
            problems.append(f"{other.name}: statistics.html differs beyond the generation time")
    return not problems, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", type=Path, required=True, help="a built warehouse")
    parser.add_argument(
        "--runs", type=int, default=3, help="repetitions (median reported; default 3)"
    )
    parser.add_argument(
        "--render", action="store_true", help="also time the headless Chromium render check"
    )
    parser.add_argument(
        "--budget", type=float, default=None, help="fail when the median wall time exceeds it (s)"
    )
    args = parser.parse_args(argv)

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="csrwh-bench-report-") as tmp:
        outs = [Path(tmp) / f"run{i + 1}" for i in range(args.runs)]
        runs = []
        for i, out in enumerate(outs):
            runs.append(run_once(args.warehouse.resolve(), out))
            print(
                f"run {i + 1}: wall {runs[-1]['wall']:.2f} s, CPU {runs[-1]['cpu']:.2f} s",
                file=sys.stderr,
            )
        identical, problems = same_outputs(outs)
        render_s = None
        if args.render:
            from csrwh.reading.report import check_render

            t0 = time.perf_counter()
            check = check_render(outs[-1] / "statistics.html", Path(tmp) / "statistics.png")
            render_s = time.perf_counter() - t0
            if not check.ok:
                problems.append(f"render check: {check.status} {check.console}")
        page_bytes = (outs[-1] / "statistics.html").stat().st_size
        n_tables = len(list((outs[-1] / "tables").glob("*.csv")))
    load_after = os.getloadavg()

    print(f"# csrwh report on {args.warehouse} — {args.runs} runs, medians")
    print(
        f"load average before {load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f}, "
        f"after {load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f} (1/5/15 min; {os.cpu_count()} CPUs)"
    )
    print()
    print("| phase | seconds (median) |")
    print("|---|---|")
    for phase in ("read", "kernel_start"):
        print(f"| {phase.replace('_', ' ')} | {_median([r.get(phase) for r in runs]):.2f} |")
    sections: dict[str, list[float]] = defaultdict(list)
    order: list[str] = []
    for r in runs:
        per: dict[str, float] = defaultdict(float)
        for _, _, section, seconds in r["cells"]:
            per[section] += seconds
            if section not in order:
                order.append(section)
        for section, seconds in per.items():
            sections[section].append(seconds)
    for section in order:
        print(
            f"| cells: {section or '(before the first heading)'} | {_median(sections[section]):.2f} |"
        )
    for phase in ("kernel_stop", "export", "write"):
        print(f"| {phase.replace('_', ' ')} | {_median([r.get(phase) for r in runs]):.2f} |")
    print(f"| **build_report total** | **{_median([r.get('total') for r in runs]):.2f}** |")
    print(f"| **wall, whole process** | **{_median([r['wall'] for r in runs]):.2f}** |")
    print(f"| CPU, process and kernel (user + system) | {_median([r['cpu'] for r in runs]):.2f} |")
    if render_s is not None:
        print(f"| render check (headless Chromium, once) | {render_s:.2f} |")
    print()
    figures: dict[str, list[float]] = defaultdict(list)
    for r in runs:
        for alt, seconds in r["figures"]:
            figures[alt].append(seconds)
    total = _median([sum(s for _, s in r["figures"]) for r in runs])
    print(
        f"figures: {len(figures)}, {total:.2f} s (median of the runs' sums; inside the cells above); slowest:"
    )
    for alt, values in sorted(figures.items(), key=lambda kv: -_median(kv[1]))[:5]:
        print(f"  {_median(values):.2f} s  {alt}")
    print(f"page {page_bytes / 1e6:.2f} MB, {n_tables} tables")
    print(f"tables identical across the {args.runs} runs: {'yes' if identical else 'NO'}")
    for problem in problems:
        print(f"  {problem}")
    over = args.budget is not None and _median([r["wall"] for r in runs]) > args.budget
    if over:
        print(f"median wall time over the budget of {args.budget:.1f} s")
    return 1 if problems or over else 0


if __name__ == "__main__":
    sys.exit(main())
