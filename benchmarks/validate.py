"""Benchmark the Great Expectations gate: the whole GX step in a fresh interpreter (imports
included) on a published warehouse, split into import / validate / Data Docs / dq_results;
``cpu`` counts the gate's child process (where GX runs) with the interpreter's own.

    .venv/bin/python benchmarks/validate.py --warehouse warehouse/csr.duckdb [--repeat 3]

Runs on a copy, so the warehouse itself is not written.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = (
    "import json, resource, sys, time\n"
    "t0, c0 = time.perf_counter(), time.process_time()\n"
    "from pathlib import Path\n"
    "from csrwh.gate.run import validate\n"
    "r = validate(Path(sys.argv[1]), 'benchmark', data_docs_dir=Path(sys.argv[2]))\n"
    "child = resource.getrusage(resource.RUSAGE_CHILDREN)\n"  # the gate's GX process
    "print(json.dumps({'wall': time.perf_counter() - t0,"
    " 'cpu': time.process_time() - c0 + child.ru_utime + child.ru_stime,"
    " 'expectations': len(r.outcomes), **r.seconds}))\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for attempt in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "copy.duckdb"
            shutil.copy(args.warehouse, copy)
            out = subprocess.run(
                [sys.executable, "-c", SCRIPT, str(copy), str(Path(tmp) / "docs")],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        timings = json.loads(out.strip().splitlines()[-1])
        load = os.getloadavg()[0]
        print(
            f"run {attempt + 1} (load average {load:.1f}): "
            + ", ".join(
                f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in timings.items()
            )
        )


if __name__ == "__main__":
    main()
