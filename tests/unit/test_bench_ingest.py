"""benchmarks/ingest.py measures the generated sample it is asked for (run as a script, its own
file name used to shadow the ingest package, and the sample was skipped without a word)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_ingest_benchmark_measures_the_sample(tmp_path) -> None:
    out = tmp_path / "ingest.json"
    proc = subprocess.run(
        [sys.executable, "benchmarks/ingest.py", "--scales", "1", "--no-real", "--repeat", "1"]
        + ["--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "DO_NOT_TRACK": "1"},
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads(out.read_text("utf-8"))
    assert [r["dataset"] for r in results] == ["sample x1"], results
    (sample,) = results
    assert sample["records"] > 0 and sample["rejected"] == 0
    assert sample["cold_s"] > 0 and sample["floor_s"] > 0
