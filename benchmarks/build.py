"""Benchmark `csrwh build` on the real corpora: cold into a fresh warehouse, then again with
nothing changed; says where the time goes (ingest, dbt parse, models, tests, the
expectations gate) — the same build `csrwh build` runs.

Usage::

    .venv/bin/python benchmarks/build.py                 # ../shared/corpora
    .venv/bin/python benchmarks/build.py --data /path/to/corpora --repeat 2

Each run is a fresh `csrwh build` subprocess (imports included, as a user runs it). The
breakdown comes from the build's own step timings and dbt's run_results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REAL = Path(os.environ.get("CSRWH_SHARED_CORPORA") or ROOT.parent / "shared" / "corpora")

CHILD = """
import json, sys, time
from pathlib import Path
t0 = time.perf_counter()
from csrwh.build import build
from csrwh.validate import gate
result = build(Path(sys.argv[1]), Path(sys.argv[2]), gates=[gate])
out = {"wall_in_process": time.perf_counter() - t0, "steps": result.seconds,
       "up_to_date": result.up_to_date}
if result.dbt is not None:
    out["dbt_seconds"] = result.dbt.seconds
print("BENCH " + json.dumps(out))
"""


def run_build(data: Path, warehouse: Path, target: Path) -> dict:
    env = dict(os.environ, DO_NOT_TRACK="1", CSRWH_DBT_TARGET_PATH=str(target))
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(data), str(warehouse)],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"build failed:\n{proc.stderr[-3000:]}")
    line = next(l for l in proc.stdout.splitlines() if l.startswith("BENCH "))
    result = json.loads(line[6:])
    result["wall"] = wall
    run_results = target / "run_results.json"
    if not result["up_to_date"] and run_results.exists():
        data_rr = json.loads(run_results.read_text())
        kinds: dict[str, float] = {}
        for node in data_rr["results"]:
            kind = node["unique_id"].split(".")[0]
            kinds[kind] = kinds.get(kind, 0.0) + node["execution_time"]
        result["dbt_node_seconds"] = kinds  # summed over threads
        result["dbt_run_elapsed"] = data_rr["elapsed_time"]
        result["dbt_parse_and_setup"] = result["dbt_seconds"] - data_rr["elapsed_time"]
        result["dbt_nodes"] = len(data_rr["results"])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_REAL)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    if not args.data.is_dir():
        sys.exit(f"no corpora at {args.data}")
    for attempt in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            warehouse = Path(tmp) / "csr.duckdb"
            target = Path(tmp) / "target"
            cold = run_build(args.data, warehouse, target)
            warm = run_build(args.data, warehouse, target)
        print(f"run {attempt + 1}: corpora {args.data}")
        print(f"  cold build        {cold['wall']:6.1f} s wall (in-process {cold['wall_in_process']:.1f} s)")
        for step, seconds in cold["steps"].items():
            print(f"    {step:<16}{seconds:6.1f} s")
        print(f"    dbt parse+setup {cold['dbt_parse_and_setup']:6.1f} s")
        print(f"    dbt run elapsed {cold['dbt_run_elapsed']:6.1f} s over {cold['dbt_nodes']} nodes")
        for kind, seconds in sorted(cold["dbt_node_seconds"].items()):
            print(f"      {kind:<14}{seconds:6.1f} s summed over threads")
        print(f"  no-change rebuild {warm['wall']:6.1f} s wall (in-process {warm['wall_in_process']:.1f} s; up to date: {warm['up_to_date']})")


if __name__ == "__main__":
    main()
