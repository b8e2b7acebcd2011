"""Exact distinct counts of text_diversity's n-gram keys: the hand-written hash-slot counter
against numpy, polars, pandas and pyarrow, on the keys the real corpora give.

Usage::

    .venv/bin/python benchmarks/distinct_counts.py --warehouse <real-corpora warehouse>

First, every key array the in-memory engine counts (``csrwh.measures.in_memory.distinct``:
the unigram and bigram keys of each of the ``dataset`` variant's shuffles) is recorded while
the engine computes every corpus of the warehouse, and saved. Then each method counts all of
them in a fresh child process, the methods taking turns (``--repeat`` rounds): wall and CPU of
the whole sweep, its peak RSS above the loaded keys (``VmHWM`` after resetting it through
``/proc/self/clear_refs``), the RSS its import adds, and whether every count equals
``len(np.unique(keys))`` (exact by definition). The hand-written counter is read from ``--old-rev``
(git), so it is measured after its removal too. Ratios are within this one run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: The last commit with the hand-written counter (csrwh/measures/distinct_keys.py).
OLD_REV = "6a4fc62"
METHODS = (
    "hash-slots (own)",
    "numpy sort, changes",
    "numpy unique",
    "numpy unique unsorted",
    "polars n_unique",
    "polars unique.len",
    "pandas unique",
    "pyarrow count_distinct",
)


def _counter(method: str, work: Path):
    """(import seconds, count(keys) -> int) of a method, its library imported here."""
    started = time.perf_counter()
    if method == "hash-slots (own)":
        import importlib.util

        spec = importlib.util.spec_from_file_location("old_distinct_keys", work / "old.py")
        old = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(old)
        count = old.distinct_count
    elif method == "numpy sort, changes":  # the engine's own (np.sort, keys unlike the last)
        from csrwh.measures.in_memory import distinct_count as count
    elif method == "numpy unique":

        def count(keys):
            return len(np.unique(keys))
    elif method == "numpy unique unsorted":

        def count(keys):
            return len(np.unique(keys, sorted=False))
    elif method.startswith("polars"):
        import polars as pl

        if method == "polars n_unique":

            def count(keys):
                return pl.Series(keys).n_unique()
        else:

            def count(keys):
                return pl.Series(keys).unique().len()
    elif method == "pandas unique":
        import pandas as pd

        def count(keys):
            return len(pd.unique(keys))
    elif method == "pyarrow count_distinct":
        import pyarrow as pa
        import pyarrow.compute as pc

        def count(keys):
            return pc.count_distinct(pa.array(keys)).as_py()
    else:
        raise ValueError(method)
    return time.perf_counter() - started, count


def _status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def _child(method: str, work: Path) -> dict:
    """One method's sweep over every recorded key array (run in a fresh process)."""
    keys = np.load(work / "keys.npy")
    ends = np.load(work / "ends.npy")
    arrays = np.split(keys, ends[:-1])
    before_import = _status("VmRSS")
    import_s, count = _counter(method, work)
    count(arrays[0])  # first call (lazy set-up) outside the sweep
    rss = _status("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
    started, cpu = time.perf_counter(), time.process_time()
    counts = [count(a) for a in arrays]
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {
        "wall": wall,
        "cpu": cpu,
        "peak": _status("VmHWM") - rss,
        "import_rss": rss - before_import,
        "import_s": import_s,
        "counts": [int(c) for c in counts],
    }


def _record(warehouse: Path, work: Path) -> int:
    """Run the in-memory engine on every corpus of ``warehouse``, saving each key array its
    ``distinct`` counts; the number of arrays."""
    import duckdb

    from csrwh.measures import distinct_n as dn
    from csrwh.measures import in_memory

    arrays: list[np.ndarray] = []
    real = in_memory.distinct

    def recorded(keys):
        arrays.append(np.array(keys, dtype=np.int64))
        return real(keys)

    with duckdb.connect(str(warehouse), read_only=True) as con:
        corpora = [r[0] for r in con.sql("select distinct corpus from conversations").fetchall()]
        rows: dict[str, list] = {name: [] for name in dn.SCHEMA.names}
        with mock.patch.object(in_memory, "distinct", recorded):
            for corpus in sorted(corpora):
                relation = con.sql(
                    "select t.conversation_id, t.turn_index, t.role, t.text, c.subset, "
                    "c.system_id, c.source_path, c.source_record_index "
                    "from intermediate.int_turns_unioned t join conversations c "
                    "using (conversation_id) where c.corpus = ? and "
                    "t.text is not null and not coalesce(t.is_image, false)",
                    params=[corpus],
                )
                in_memory.corpus_rows(relation, corpus, rows)
    np.save(work / "keys.npy", np.concatenate(arrays))
    np.save(work / "ends.npy", np.cumsum([len(a) for a in arrays]))
    return len(arrays)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", type=Path, help="a built real-corpora warehouse")
    parser.add_argument("--repeat", type=int, default=5, help="rounds of every method")
    parser.add_argument("--old-rev", default=OLD_REV, help="git revision of the own counter")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.work)))
        return
    if args.warehouse is None:
        parser.error("--warehouse is required")
    with tempfile.TemporaryDirectory(prefix="distinct-counts-") as folder:
        work = Path(folder)
        source = subprocess.run(
            ["git", "show", f"{args.old_rev}:csrwh/measures/distinct_keys.py"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        (work / "old.py").write_text(source)
        n_arrays = _record(args.warehouse, work)
        ends = np.load(work / "ends.npy")
        sizes = np.diff(ends, prepend=0)
        reference = [len(np.unique(a)) for a in np.split(np.load(work / "keys.npy"), ends[:-1])]
        print(
            f"{n_arrays} key arrays, {int(ends[-1]):,} keys (per array: median "
            f"{int(np.median(sizes)):,}, max {int(sizes.max()):,}), from {args.warehouse}"
        )
        runs: dict[str, list[dict]] = {m: [] for m in METHODS}
        for _ in range(args.repeat):
            for method in METHODS:
                out = subprocess.run(
                    [sys.executable, __file__, "--child", method, "--work", str(work)],
                    check=True,
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                ).stdout
                runs[method].append(json.loads(out.strip().splitlines()[-1]))
    base = statistics.median(r["wall"] for r in runs["hash-slots (own)"])
    print(
        f"{'method':<24} {'wall s (min-max)':>22} {'cpu s':>7} {'÷ own':>6} "
        f"{'peak MiB':>9} {'import s':>9} {'import MiB':>11}  exact"
    )
    figures = {}
    for method, results in runs.items():
        walls = [r["wall"] for r in results]
        wall = statistics.median(walls)
        exact = all(r["counts"] == reference for r in results)
        figures[method] = {
            "wall_median": wall,
            "wall_min": min(walls),
            "wall_max": max(walls),
            "cpu_median": statistics.median(r["cpu"] for r in results),
            "peak_mib": max(r["peak"] for r in results) / 2**20,
            "import_s": statistics.median(r["import_s"] for r in results),
            "import_mib": statistics.median(r["import_rss"] for r in results) / 2**20,
            "exact": exact,
        }
        f = figures[method]
        print(
            f"{method:<24} {wall:>8.3f} ({min(walls):.3f}-{max(walls):.3f}) "
            f"{f['cpu_median']:>7.3f} {wall / base:>6.2f} {f['peak_mib']:>9.1f} "
            f"{f['import_s']:>9.3f} {f['import_mib']:>11.1f}  {'yes' if exact else 'NO'}"
        )
    print(
        f"exact: every count of the {n_arrays} arrays equals len(np.unique(keys)); "
        "wall/cpu: medians of the rounds; peak: the largest, above the loaded keys"
    )
    if args.json:
        args.json.write_text(json.dumps({"arrays": n_arrays, "methods": figures}, indent=2))


if __name__ == "__main__":
    main()
