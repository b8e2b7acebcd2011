"""Benchmark `csrwh build` against its floor: the same SQL run directly in DuckDB.

Usage::

    .venv/bin/python benchmarks/build.py                      # ../shared/corpora
    .venv/bin/python benchmarks/build.py --data /path/to/corpora --repeat 3
    .venv/bin/python benchmarks/build.py --sample-scale 100   # the generated sample, x100
    .venv/bin/python benchmarks/build.py --sample-scale 100 300 --cold-only   # growth x300 / x100
    .venv/bin/python benchmarks/build.py --change cosrec/dataset/crowd/conversations.jsonl --edit

The corpora are copied to a temporary folder first (step 3 edits one file). One run, in this
order, each step a fresh subprocess (imports included, as a user runs it). Peak RSS is the
highest sum, over time, of the resident sets of the step's process and its children, if any:
``/proc`` sampled every 0.1 s, and never below the
``ru_maxrss`` of the process or of its largest child. The cold build's figures are also given
per phase (ingest, dbt, gate) and outside the Python marts' windows (``text_diversity``,
``annotator_agreement``: the models' own working memory).

1. **cold build**: `csrwh.pipeline.build` with the expectations gate into a new warehouse, with a
   fresh dbt target (dbt parses the whole project). The gate's SQL is captured as it runs (its child
   process, told by ``CSRWH_GATE_SQL_CAPTURE``, listens with SQLAlchemy's
   ``before_cursor_execute``; Great Expectations reaches DuckDB through duckdb-engine).
2. **no-change rebuild**: ``csrwh build`` itself, run again and timed from outside (nothing
   changed: must stay under 2 s; the measuring child's own imports are not the user's wait).
3. **one-file change rebuild**: the last line of one file (``--change``, default a CoSRec
   keywords file) removed (``--edit``: one record changed instead, its last `` the `` made
   `` one ``), the same build again: it re-ingests that file, rebuilds the raw table's
   descendants from a copy of the published warehouse with dbt's partial parse (the
   incremental Python models compute only what changed), and re-runs only the expectation
   suites of what it rebuilt (the target was ≤ 20% of the cold build).
4. **floor**: on a copy of the published warehouse, with no dbt and no GX, in one DuckDB
   connection (default threads), it executes:

   * **ingest floor** — the bare DuckDB scan of the same files (``benchmarks/ingest.py``'s
     floor: ``read_text`` over every file plus ``read_json_objects`` over JSON arrays);
   * **dbt floor** — every seed loaded from its CSV, every SQL model's compiled SQL
     (``create or replace table|view ... as <compiled>``) in dependency order, every Python
     model's compiled code called as dbt-duckdb calls it (``model(dbt, session)``, the result
     stored as a table), and every data test's compiled SQL (``select count(*) from
     (<compiled>)``), all from the build's own ``manifest.json``;
   * **gate floor** — every captured statement of the gate that reads the warehouse's tables,
     replayed with its parameters (GX's own catalogue reflection is left out of the floor).

It prints the cold build against two floors: the **SQL-only floor** (seeds, SQL
models and data tests of the dbt floor: what the build would cost with no Python model, no
ingest and no gate) and **today's floor** (ingest, dbt with the Python models, gate), each
Python model's own time in the cold build, the floor and the one-file rebuild (which runs
the incremental Python models on what changed only), and build ÷ floor per phase, dbt's parse time (cold: full parse; rebuild: partial), the
rebuilds' walls and peak RSS, the figures BENCHMARKS.md records. ``--cold-only`` leaves out
steps 2 and 3 (cold build and floor only). Several ``--sample-scale`` values run one after the
other in the same invocation, and the growth from one scale to the next is printed (cold build
wall, floor, peak RSS: e.g. x300 ÷ x100, target ≤ 3.3). Ratios come
from one run on one machine, so they hold even when the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import Self

ROOT = Path(__file__).resolve().parents[1]
# run as a script, benchmarks/ is sys.path[0] and its ingest.py would shadow the project's package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

from csrwh._devtools.child_run import run_json_child, run_timed

DEFAULT_REAL = Path(os.environ.get("CSRWH_SHARED_CORPORA") or ROOT.parent / "shared" / "corpora")
DEFAULT_CHANGE = "cosrec/dataset/crowd/keywords.jsonl"


def _peak_rss_mb() -> float:
    """The largest resident set this process or one of its (waited-for) children had."""
    return (
        max(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
        )
        / 1024  # Linux: KiB
    )


def _own_mb() -> float:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:")) / 1024


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
        except OSError:  # a thread that ended meanwhile (dbt and DuckDB start and end many)
            continue
    return total + sum(_tree_rss_kb(int(child)) for child in children)


class _RssSampler:
    """Resident set size of this process and its children, summed, every 0.1 s in a side
    thread (``/proc``; Linux only), to tell which phase or dbt node the build's peak came from."""

    def __init__(self) -> None:
        import threading

        self.samples: list[tuple[float, float]] = []  # (epoch seconds, MB)
        self.own: list[tuple[float, float]] = []  # (epoch seconds, MB of this process alone)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            kb = _tree_rss_kb(os.getpid())
            if not kb:
                return
            now = time.time()
            self.samples.append((now, kb / 1024))
            self.own.append((now, _own_mb()))
            self._stop.wait(0.1)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def peak(self, start: float, end: float) -> float:
        return max((mb for t, mb in self.samples if start <= t <= end + 0.1), default=0.0)

    def own_range(self, start: float, end: float) -> tuple[float, float]:
        """The lowest and highest RSS of this process alone (no children) in a window."""
        own = [mb for t, mb in self.own if start <= t <= end + 0.1] or [0.0]
        return min(own), max(own)

    def peak_outside(self, windows: list[tuple[float, float]]) -> float:
        return max(
            (mb for t, mb in self.samples if not any(a <= t <= b + 0.1 for a, b in windows)),
            default=0.0,
        )


#: the Python marts whose own working memory is the build's peak (not the build's overhead)
PYTHON_MART_PEAKS = ("text_diversity", "annotator_agreement")
#: every Python model of the project (their time is reported apart)
PYTHON_MODELS = tuple(sorted(p.stem for p in (ROOT / "models").rglob("*.py")))


def _node_windows(target: Path) -> dict[str, tuple[float, float]]:
    """Each dbt node's execute window (epoch seconds), by model name, from run_results.json."""
    from datetime import datetime

    path = target / "run_results.json"
    if not path.is_file():
        return {}
    windows = {}
    for r in json.loads(path.read_text())["results"]:
        timing = [t for t in r.get("timing", []) if t["name"] == "execute" and t.get("started_at")]
        if timing:
            start, end = (
                datetime.fromisoformat(timing[0][k]).timestamp()
                for k in ("started_at", "completed_at")
            )
            windows[r["unique_id"].split(".")[2]] = (start, end)
    return windows


def _node_peaks(sampler: _RssSampler, target: Path, top: int = 5) -> list[tuple[float, str]]:
    """The dbt nodes with the highest RSS while they ran (nodes run two at a time: a node
    shares the figure with whatever ran beside it)."""
    peaks = [(sampler.peak(*window), name) for name, window in _node_windows(target).items()]
    return sorted(peaks, reverse=True)[:top]


# ----------------------------------------------------------------------------- child processes


def child_build(data_dir: str, warehouse: str, capture: str) -> dict:
    """One build as `csrwh build` runs it; the gate's SQL statements go to ``capture``."""
    t0 = time.perf_counter()
    from csrwh.gate.gx_run import SQL_CAPTURE_ENV
    from csrwh.pipeline import build
    from csrwh.pipeline.job import _Build

    gate_window: list[float] = []
    phases: list[tuple[float, str]] = []  # (epoch seconds, phase entered)
    enter = _Build.enter

    def note_phase(self, phase):  # type: ignore[no-untyped-def]
        phases.append((time.time(), phase))
        return enter(self, phase)

    _Build.enter = note_phase

    # the CLI's gate, imported when it runs as `csrwh build` does; it takes `suites`, so a
    # selective rebuild runs only the changed tables' suites here too (without that parameter
    # the build would run every suite, and the one-file figure would measure a full gate)
    def gate(database, build_id, suites=None):
        from csrwh.gate.run import gate as run_gate

        gate_window.append(time.time())
        try:
            return run_gate(database, build_id, suites=suites)
        finally:
            gate_window.append(time.time())

    if capture:  # the gate's child process writes its statements there
        os.environ[SQL_CAPTURE_ENV] = capture
    with _RssSampler() as sampler:
        result = build(Path(data_dir), Path(warehouse), gates=[gate], allow_rejects=True)
    target = Path(os.environ.get("CSRWH_DBT_TARGET_PATH") or ROOT / "target")
    ends = [t for t, _ in phases[1:]] + [time.time()]
    rss_phases: dict[str, float] = {}
    rss_own: dict[str, tuple[float, float]] = {}
    for (start, phase), end in zip(phases, ends, strict=True):
        rss_phases[phase] = max(rss_phases.get(phase, 0.0), sampler.peak(start, end))
        rss_own[phase] = sampler.own_range(start, end)
    windows = _node_windows(target) if result.dbt is not None else {}
    out = {
        "wall_in_process": time.perf_counter() - t0,
        "steps": result.seconds,
        "up_to_date": result.up_to_date,
        "published": result.published,
        "peak_rss_mb": max(_peak_rss_mb(), sampler.peak(0, time.time())),
        "rss_phases_mb": rss_phases,
        "rss_own_phases_mb": rss_own,
        "rss_outside_python_marts_mb": sampler.peak_outside(
            [w for name, w in windows.items() if name in PYTHON_MART_PEAKS]
        ),
        "dbt_seconds": result.dbt.seconds if result.dbt is not None else None,
        "dbt_parse_seconds": result.dbt.parse_seconds if result.dbt is not None else None,
        "dbt_full_parse_reason": result.dbt.full_parse_reason if result.dbt is not None else None,
        "dbt_nodes_run": result.dbt.n_nodes if result.dbt is not None else 0,
        "notes": result.notes,
        "rss_gate_mb": sampler.peak(*gate_window[:2]) if len(gate_window) >= 2 else None,
        "rss_top_nodes": _node_peaks(sampler, target) if result.dbt is not None else [],
        # every dbt node's execution time (where a rebuild's dbt phase goes)
        "dbt_timings": dict(result.dbt.timings) if result.dbt is not None else {},
        # each Python model's own time (dbt's execution time of the node)
        "python_models": {
            uid.rsplit(".", 1)[-1]: sec
            for uid, sec in (result.dbt.timings if result.dbt is not None else {}).items()
            if uid.rsplit(".", 1)[-1] in PYTHON_MODELS
        },
    }
    return out


def _functions_on_every_connection() -> None:
    """The floor runs the SQL models that call the build's Python functions
    (``csrwh/dbt_support/udfs.py``): register them on every DuckDB connection the floor child
    opens, as the build's dbt-duckdb plugin does on dbt's."""
    import duckdb

    from csrwh.dbt_support.udfs import register_duckdb

    connect = duckdb.connect

    def connect_with_functions(*args, **kwargs):  # type: ignore[no-untyped-def]
        con = connect(*args, **kwargs)
        register_duckdb(con)
        return con

    duckdb.connect = connect_with_functions


def _sibling(name: str):
    """``benchmarks/<name>.py`` (loaded by path: run as a script, benchmarks/ is not on
    sys.path, and custom_scale.py loads this file the same way)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        f"{name}_benchmark", ROOT / "benchmarks" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _run_child(name: str, *args: str, env: dict | None = None) -> dict:
    return run_json_child(__file__, name, *args, what=name, env=env)


def _run_cli_build(data: Path, warehouse: Path, env: dict) -> dict:
    """`csrwh build` itself, timed from outside: what a user waits for (the no-change build
    takes the CLI's short path, without the imports the measuring child needs)."""
    proc, wall = run_timed(
        [sys.executable, "-m", "csrwh.cli", "build", "--data-dir", str(data)]
        + ["--warehouse", str(warehouse)],
        what="csrwh build",
        env=env,
    )
    return {"wall": wall, "up_to_date": "is up to date" in " ".join(proc.stderr.split())}


# ----------------------------------------------------------------------------- orchestration


def _drop_last_line(path: Path) -> None:
    path.chmod(path.stat().st_mode | stat.S_IWUSR)
    lines = path.read_bytes().splitlines(True)
    path.write_bytes(b"".join(lines[:-1]))


def _edit_last_line(path: Path) -> None:
    """One record changed: the last `` the `` of the file's last line becomes `` one ``."""
    lines = path.read_text("utf-8").splitlines(True)
    at = lines[-1].rfind(" the ")
    if at < 0:
        raise SystemExit(f"--edit: the last line of {path} has no ' the ' to change")
    lines[-1] = lines[-1][:at] + " one " + lines[-1][at + len(" the ") :]
    path.write_text("".join(lines), "utf-8")


def bench(
    source: Path, work: Path, change: str, cold_only: bool = False, edit: bool = False
) -> dict:
    data = work / "data"
    shutil.copytree(source, data)
    warehouse = work / "warehouse" / "csr.duckdb"
    target = work / "target"
    cold_target = work / "cold_target"  # the cold build's manifest and run results (the floor's)
    capture = work / "gate_sql.json"
    env = dict(os.environ, DO_NOT_TRACK="1", CSRWH_DBT_TARGET_PATH=str(target))
    cold = _run_child("build", str(data), str(warehouse), str(capture), env=env)
    cold_target.mkdir()
    for name in ("manifest.json", "run_results.json"):
        shutil.copy2(target / name, cold_target / name)
    run_results = json.loads((target / "run_results.json").read_text())
    cold["dbt_run_elapsed"] = run_results["elapsed_time"]
    cold["dbt_nodes"] = len(run_results["results"])
    floor_copy = work / "floor" / "csr.duckdb"  # same file stem: compiled SQL names the catalogue
    floor_copy.parent.mkdir()
    shutil.copy2(warehouse, floor_copy)
    warm = changed = None
    if not cold_only:
        warm = _run_cli_build(data, warehouse, env)
        (_edit_last_line if edit else _drop_last_line)(data / change)
        changed = _run_child("build", str(data), str(warehouse), "", env=env)
        changed["file"] = change
    floor = _run_child("floor", str(data), str(floor_copy), str(cold_target), str(capture), env=env)
    return {"cold": cold, "warm": warm, "changed": changed, "floor": floor}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        name, args = argv[1], argv[2:]
        if name == "build":
            result = child_build(*args)
        else:
            _functions_on_every_connection()
            result = _sibling("build_floor").child_floor(*args)
            result["peak_rss_mb"] = _peak_rss_mb()
        print(json.dumps(result))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=None, help="corpora folder (default ../shared/corpora)"
    )
    parser.add_argument(
        "--sample-scale",
        type=int,
        nargs="+",
        default=None,
        help="use the generated sample at this scale (several: one after the other, with growth)",
    )
    parser.add_argument(
        "--cold-only",
        action="store_true",
        help="cold build and floor only (no no-change and one-file rebuilds)",
    )
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--change",
        default=DEFAULT_CHANGE,
        help=f"file (relative to the corpora folder) whose last line step 3 removes (default {DEFAULT_CHANGE})",
    )
    parser.add_argument(
        "--edit",
        action="store_true",
        help="step 3 changes one word of the --change file's last record instead of removing it",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the raw figures here")
    args = parser.parse_args(argv)
    results = []
    scales = args.sample_scale or [None]
    for attempt in range(args.repeat):
        per_scale = []
        for scale in scales:
            with tempfile.TemporaryDirectory() as tmp:
                work = Path(tmp)
                data = args.data or DEFAULT_REAL
                if scale:
                    from csrwh.sample import generate

                    data = work / "sample"
                    generate(data, scale=scale, seed=0)
                if not data.is_dir():
                    sys.exit(f"no corpora at {data}")
                if not (data / args.change).is_file():
                    sys.exit(f"--change {args.change}: no such file in {data}")
                result = bench(
                    data, work / "run", args.change, cold_only=args.cold_only, edit=args.edit
                )
                result["scale"] = scale
                print(f"run {attempt + 1}" + (f", sample x{scale}" if scale else ""), flush=True)
                _sibling("build_report").report(data, result)
                per_scale.append(result)
                results.append(result)
        if len(scales) > 1:
            _sibling("build_report").report_growth(scales, per_scale)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
