"""Benchmark `csrwh ingest`: throughput, peak memory, no-change re-ingest, and a DuckDB floor.

Usage::

    .venv/bin/python benchmarks/ingest.py                      # sample x1, x10 and real corpora
    .venv/bin/python benchmarks/ingest.py --scales 1 --no-real
    .venv/bin/python benchmarks/ingest.py --real /path/to/corpora --repeat 3 --json out.json

For each dataset (synthetic data from ``csrwh.sample.generate`` at each scale, and the real
corpora in ../shared/corpora or $CSRWH_SHARED_CORPORA) it runs, each in a fresh subprocess
so that peak RSS is the run's own:

* **cold**: ingest into a new warehouse file -> MB/s, records/s, peak RSS;
* **no-change**: the same ingest again (every file unchanged: scan + sha256 + manifest check);
* **floor**: the same files scanned by bare DuckDB, no warehouse writes --
  ``read_text`` over every file (bytes read and UTF-8 checked) plus
  ``read_json_objects(format='array')`` over the JSON array files (elements cut).

With ``--repeat N`` the best (minimum) time of N runs is reported.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REAL = Path(os.environ.get("CSRWH_SHARED_CORPORA") or ROOT.parent / "shared" / "corpora")


# ----------------------------------------------------------------------------- child processes


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def child_ingest(data_dir: str, warehouse: str) -> dict:
    sys.path.insert(0, str(ROOT))
    from ingest import run_ingest

    t0 = time.perf_counter()
    s = run_ingest(Path(data_dir), Path(warehouse), progress=False)
    seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
        "files_loaded": s.files_loaded,
        "files_unchanged": s.files_unchanged,
        "records": s.records_loaded,
        "rejected": s.records_rejected,
        "timings": s.timings,
        "peak_rss_mb": _peak_rss_mb(),
    }


def child_floor(data_dir: str) -> dict:
    sys.path.insert(0, str(ROOT))
    import duckdb

    from ingest import registry
    from ingest.loader import Format, discover

    files = []
    for corpus in registry.CORPORA:
        root = Path(data_dir) / corpus.folder
        if root.is_dir():
            files += discover(corpus, root)[0]
    all_paths = [str(f.path) for f in files]
    arrays = [str(f.path) for f in files if f.spec.format is Format.JSON_ARRAY]
    con = duckdb.connect()
    t0 = time.perf_counter()
    n_text, n_chars = con.execute(
        "SELECT count(*), sum(length(content)) FROM read_text(?)", [all_paths]
    ).fetchone()
    n_elems = 0
    if arrays:
        n_elems = con.execute(
            "SELECT count(*) FROM read_json_objects(?, format='array', maximum_object_size=1073741824)",
            [arrays],
        ).fetchone()[0]
    seconds = time.perf_counter() - t0
    con.close()
    return {
        "seconds": seconds,
        "files": n_text,
        "chars": n_chars,
        "array_elements": n_elems,
        "peak_rss_mb": _peak_rss_mb(),
    }


def _run_child(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", *args],
        check=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- orchestration


def _size_and_count(data_dir: Path) -> tuple[int, int]:
    sys.path.insert(0, str(ROOT))
    from ingest import registry
    from ingest.loader import discover

    n = size = 0
    for corpus in registry.CORPORA:
        root = data_dir / corpus.folder
        if root.is_dir():
            for f in discover(corpus, root)[0]:
                n += 1
                size += f.size
    return n, size


def bench(name: str, data_dir: Path, work: Path, repeat: int) -> dict:
    n_files, size = _size_and_count(data_dir)
    mb = size / 1e6
    colds, warms, floors = [], [], []
    for i in range(repeat):
        wh = work / f"{name}-{i}.duckdb"
        if wh.exists():
            wh.unlink()
        colds.append(_run_child("ingest", str(data_dir), str(wh)))
        warms.append(_run_child("ingest", str(data_dir), str(wh)))
        floors.append(_run_child("floor", str(data_dir)))
        wh.unlink()
    cold = min(colds, key=lambda r: r["seconds"])
    warm = min(warms, key=lambda r: r["seconds"])
    floor = min(floors, key=lambda r: r["seconds"])
    assert warm["files_loaded"] == 0, "no-change re-ingest loaded files"
    return {
        "dataset": name,
        "files": n_files,
        "mb": mb,
        "records": cold["records"],
        "rejected": cold["rejected"],
        "cold_s": cold["seconds"],
        "cold_mb_s": mb / cold["seconds"],
        "cold_records_s": cold["records"] / cold["seconds"],
        "cold_peak_rss_mb": max(r["peak_rss_mb"] for r in colds),
        "cold_phases": cold["timings"],
        "nochange_s": warm["seconds"],
        "nochange_peak_rss_mb": max(r["peak_rss_mb"] for r in warms),
        "floor_s": floor["seconds"],
        "floor_mb_s": mb / floor["seconds"],
        "floor_peak_rss_mb": floor["peak_rss_mb"],
    }


def print_table(results: list[dict]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title="csrwh ingest benchmark (best of runs; wall clock incl. DuckDB open/close)")
    cols = [
        ("dataset", "dataset", "{}"),
        ("files", "files", "{}"),
        ("MB", "mb", "{:.1f}"),
        ("records", "records", "{}"),
        ("rejects", "rejected", "{}"),
        ("cold s", "cold_s", "{:.2f}"),
        ("MB/s", "cold_mb_s", "{:.1f}"),
        ("records/s", "cold_records_s", "{:,.0f}"),
        ("peak RSS MB", "cold_peak_rss_mb", "{:.0f}"),
        ("no-change s", "nochange_s", "{:.2f}"),
        ("floor s", "floor_s", "{:.2f}"),
        ("floor MB/s", "floor_mb_s", "{:.1f}"),
        ("cold / floor", None, None),
    ]
    for head, _, _ in cols:
        t.add_column(head, justify="left" if head == "dataset" else "right")
    for r in results:
        cells = [fmt.format(r[key]) for _, key, fmt in cols[:-1]]
        cells.append(f"{r['cold_s'] / r['floor_s']:.1f}x")
        t.add_row(*cells)
    Console(width=200).print(t)
    for r in results:
        phases = ", ".join(f"{k} {v:.2f}" for k, v in r["cold_phases"].items())
        print(f"  {r['dataset']} cold phases (s): {phases}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        kind, *rest = argv[1:]
        result = child_ingest(*rest) if kind == "ingest" else child_floor(*rest)
        print(json.dumps(result))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="*", default=[1, 10])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--real", type=Path, default=DEFAULT_REAL)
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args(argv)

    results = []
    work = Path(tempfile.mkdtemp(prefix="csrwh-bench-"))
    try:
        if args.scales:
            try:
                from csrwh.sample import generate
            except ImportError:
                generate = None
                print("csrwh.sample.generate not available: skipping sample data", file=sys.stderr)
            for scale in args.scales if generate else []:
                data = work / f"sample-x{scale}"
                generate(data, scale=scale, seed=args.seed)
                results.append(bench(f"sample x{scale}", data, work, args.repeat))
        if not args.no_real:
            if args.real.is_dir():
                results.append(bench("real corpora", args.real, work, args.repeat))
            else:
                print(f"real corpora not found at {args.real}: skipped", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
