"""Benchmark `csrwh ingest`: throughput against a bare DuckDB scan, peak memory, no-change re-ingest.

Usage::

    .venv/bin/python benchmarks/ingest.py                      # sample x1, x100 and real corpora
    .venv/bin/python benchmarks/ingest.py --scales --no-real --data "sample x100=/tmp/s100"
    .venv/bin/python benchmarks/ingest.py --baseline /tmp/old --repeat 2 --json out.json

For each dataset (synthetic data from ``csrwh.sample.generate`` at each scale, folders given
with ``--data``, and the real corpora in ../shared/corpora or $CSRWH_SHARED_CORPORA) it runs,
each in a fresh subprocess so that peak RSS is the run's own:

* **cold**: ingest into a new warehouse file -> MB/s, records/s, peak RSS, phases;
* **no-change**: the same ingest again (every file unchanged: scan + sha256 + manifest check);
* **floor** (the bare scan): the same files put by DuckDB's own readers into one table per
  format in a new warehouse file, no validation, provenance, rejects or bookkeeping --
  ``read_json_objects`` for JSONL, JSON arrays and whole-file JSON, ``read_csv`` for CSV and
  qrels (see :func:`child_floor`).

It prints ``floor / cold``: the ingest's speed as a fraction of the bare scan (1.0 = as fast).
``--baseline DIR`` also ingests every dataset with the ``ingest`` package under DIR (another
version), in the same run, for before/after figures; both versions are then judged against
the best floor of the two (it is the same work). With ``--repeat N`` the rounds are
interleaved and the best (minimum) time of each kind is reported.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# run as a script, benchmarks/ is sys.path[0] and this very file would shadow the project's
# ingest package (csrwh.sample imports it); a --baseline child puts its own checkout first
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))
DEFAULT_REAL = Path(os.environ.get("CSRWH_SHARED_CORPORA") or ROOT.parent / "shared" / "corpora")


# ----------------------------------------------------------------------------- child processes


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def child_ingest(data_dir: str, warehouse: str, src: str = "") -> dict:
    sys.path.insert(0, src or str(ROOT))  # src: another checkout's ingest package (--baseline)
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


def _files_by_format(data_dir: str) -> dict:
    from ingest import registry
    from ingest.discover import discover

    by_format: dict = {}
    for corpus in registry.CORPORA:
        root = Path(data_dir) / corpus.folder
        if root.is_dir():
            for f in discover(corpus, root)[0]:
                by_format.setdefault(f.spec.format, []).append(str(f.path))
    return by_format


def child_floor(data_dir: str, warehouse: str | None = None) -> dict:
    """The bare scan: DuckDB's own readers put the same files into one table per format in a
    new warehouse file (then closed, i.e. checkpointed), with no validation, provenance,
    rejects or bookkeeping -- ``read_json_objects`` for JSONL (one row per line), JSON arrays
    (one per element) and whole-file JSON, ``read_csv`` for CSV and qrels."""
    sys.path.insert(0, str(ROOT))
    import duckdb

    from ingest.spec import Format

    by_format = _files_by_format(data_dir)
    readers = {
        Format.JSONL: "read_json_objects(?, format='newline_delimited', "
        "maximum_object_size=1073741824)",
        Format.JSON_ARRAY: "read_json_objects(?, format='array', maximum_object_size=1073741824)",
        Format.JSON_FILE: "read_json_objects(?, format='unstructured', "
        "maximum_object_size=1073741824)",
        Format.CSV: "read_csv(?, header=true, all_varchar=true, union_by_name=true)",
        Format.QRELS: "read_csv(?, delim=' ', header=false, all_varchar=true)",
    }
    tmp = None
    if warehouse is None:
        tmp = tempfile.mkdtemp(prefix="csrwh-floor-")
        warehouse = str(Path(tmp) / "floor.duckdb")
    t0 = time.perf_counter()
    con = duckdb.connect(warehouse)
    rows = 0
    for fmt, paths in by_format.items():
        table = f"floor_{fmt.value}"
        con.execute(f"CREATE TABLE {table} AS SELECT * FROM {readers[fmt]}", [paths])
        rows += con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    con.close()
    seconds = time.perf_counter() - t0
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    return {
        "seconds": seconds,
        "files": sum(len(p) for p in by_format.values()),
        "rows": rows,
        "peak_rss_mb": _peak_rss_mb(),
    }


def _run_child(*args: str) -> dict:
    from csrwh._devtools.child_run import run_json_child

    return run_json_child(__file__, *args, what=f"ingest benchmark child {args[0]}")


# ----------------------------------------------------------------------------- orchestration


def _size_and_count(data_dir: Path) -> tuple[int, int]:
    sys.path.insert(0, str(ROOT))
    from ingest import registry
    from ingest.discover import discover

    n = size = 0
    for corpus in registry.CORPORA:
        root = data_dir / corpus.folder
        if root.is_dir():
            for f in discover(corpus, root)[0]:
                n += 1
                size += f.size
    return n, size


def bench(name: str, data_dir: Path, work: Path, repeat: int, src: str = "") -> dict:
    """Cold, no-change and floor runs, interleaved (``repeat`` rounds), best of each."""
    n_files, size = _size_and_count(data_dir)
    mb = size / 1e6
    colds, warms, floors = [], [], []
    for i in range(repeat):
        wh = work / f"{name}-{i}.duckdb"
        if wh.exists():
            wh.unlink()
        colds.append(_run_child("ingest", str(data_dir), str(wh), src))
        warms.append(_run_child("ingest", str(data_dir), str(wh), src))
        floors.append(_run_child("floor", str(data_dir), str(work / f"{name}-{i}-floor.duckdb")))
        wh.unlink()
        (work / f"{name}-{i}-floor.duckdb").unlink(missing_ok=True)
    cold = min(colds, key=lambda r: r["seconds"])
    warm = min(warms, key=lambda r: r["seconds"])
    floor = min(floors, key=lambda r: r["seconds"])
    assert warm["files_loaded"] == 0, "no-change re-ingest loaded files"
    return {
        "dataset": name + (" (baseline)" if src else ""),
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
        "ratio": floor["seconds"] / cold["seconds"],
        "load_avg": os.getloadavg()[0],
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
        ("floor / cold", "ratio", "{:.2f}x"),
        ("load avg", "load_avg", "{:.1f}"),
    ]
    for head, _, _ in cols:
        t.add_column(head, justify="left" if head == "dataset" else "right")
    for r in results:
        t.add_row(*(fmt.format(r[key]) for _, key, fmt in cols))
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
    ap.add_argument("--scales", type=int, nargs="*", default=[1, 100])
    ap.add_argument(
        "--data",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="also benchmark this corpora folder (e.g. an existing `csrwh sample --scale 100`)",
    )
    ap.add_argument(
        "--baseline",
        type=Path,
        help="a folder holding another version's `ingest/` package (e.g. from `git archive "
        "HEAD ingest | tar -x -C DIR`): every dataset is also ingested with it, same run",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--real", type=Path, default=DEFAULT_REAL)
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args(argv)

    results = []
    work = Path(tempfile.mkdtemp(prefix="csrwh-bench-"))

    def bench_both(name: str, data: Path) -> None:
        if not args.baseline:
            results.append(bench(name, data, work, args.repeat))
            return
        pair = [
            bench(name, data, work, args.repeat, str(args.baseline.resolve())),
            bench(name, data, work, args.repeat),
        ]
        # the floor is the same work for both versions: both are judged against the best one
        floor = min(r["floor_s"] for r in pair)
        for r in pair:
            r.update(floor_s=floor, floor_mb_s=r["mb"] / floor, ratio=floor / r["cold_s"])
        results.extend(pair)

    try:
        for item in args.data:
            name, _, folder = item.partition("=")
            bench_both(name, Path(folder))
        if args.scales:
            from csrwh.sample import generate

            for scale in args.scales:
                data = work / f"sample-x{scale}"
                generate(data, scale=scale, seed=args.seed)
                bench_both(f"sample x{scale}", data)
        if not args.no_real:
            if args.real.is_dir():
                bench_both("real corpora", args.real)
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
