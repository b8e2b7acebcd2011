"""Benchmark own corpora at scale: `csrwh build` of the generic `custom` format on real
and generated conversations, wall, peak RSS, per-phase times and growth ratios.

Usage::

    .venv/bin/python benchmarks/custom_scale.py                       # every size but 1M
    .venv/bin/python benchmarks/custom_scale.py --sizes 10k,100k,1m   # 1M: ~14 GB of JSONL
    .venv/bin/python benchmarks/custom_scale.py --sizes 1833,x10 --json out.json
    .venv/bin/python benchmarks/custom_scale.py --skip-slow --work /var/tmp

Sizes (``--sizes``, comma-separated; default ``1833,x10,10k,100k``):

* ``1833`` -- the real RecLLMSim ``human_exp_V2`` release (../shared/corpora or
  $CSRWH_SHARED_CORPORA), converted line for line into the own-corpus format
  (``csrwh.sample.custom_scale.convert_recllmsim``: 1,833 lines, ~32 MB) and built as
  ``custom/recllmsim_human/``, then the same files laid out first-class (the
  ``recllmsim/human_exp_V2/`` folder alone): the own/first-class ratio of wall and peak RSS;
* ``x10`` -- that conversion ten times (18,330 lines, ~320 MB, ids suffixed per copy);
* ``10k``, ``100k``, ``1m`` (any ``<n>``, ``<n>k`` or ``<n>m``) -- generated conversations
  (``csrwh.sample.custom_scale.write_generated``, seed 0; ~14 KB a line, as the real ones:
  100k is ~1.4 GB, 1M ~14 GB), with the growth of each generated size over the one before;
  ``--lines-per-file`` lines per JSONL file (default 100,000). Today's ingest holds a whole
  file in memory several times over (a 146 MB file: ~1.6 GB), so the file size, not only the
  number of conversations, sets its peak.

``--skip-slow`` drops the generated sizes above 10k. Each run gets a fresh temporary folder
(under ``--work``, default the system's temp folder; removed afterwards) holding the data and a
new warehouse, and runs ``csrwh build --data-dir <data> --warehouse <new>`` with default settings
(no ``CSRWH_MEMORY_LIMIT`` / ``CSRWH_THREADS`` unless you set them) in a subprocess: the CLI's
own ``main`` (its errors, its exit), with its phase changes noted as they happen. Peak RSS is
that process tree's (``/proc`` sampled every 0.1 s, as ``benchmarks/build.py`` does, and never
below the process' ``ru_maxrss`` when that is above this script's own, which a child
inherits); per-phase times are the spans between the build's phase
changes (``lock``, ``copy``, ``ingest``, ``dbt``, ``gate``, ``publish``), the last one ending
with the process; the build's CPU time (user + system, ``/proc/<pid>/stat``), in all and by
phase, the comparable figure on a shared machine; the slowest dbt nodes (their execute windows in ``run_results.json``) with
the tree's peak RSS while each ran; the input's size on disk, the published warehouse file's
size and its ratio to the input, the peak size of the build's spill folder
(``<warehouse>.build/tmp``, sampled with the RSS), and what each schema and the largest tables
store (``pragma_storage_info``'s blocks). A failed build prints its error line and the first failures it listed.
Figures come from one run on one (shared) machine: the ratios are the comparable part.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# run as a script, benchmarks/ is sys.path[0] and its ingest.py would shadow the project's package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

DEFAULT_SIZES = "1833,x10,10k,100k"
SLOW = 10_000  # --skip-slow drops generated sizes above this
PHASES = ("ingest", "dbt", "gate", "publish")
#: the build's settings a run inherits from the environment (printed: default unless set)
SETTINGS = ("CSRWH_MEMORY_LIMIT", "CSRWH_THREADS")


def _benchmark_module(name: str):
    """benchmarks/<name>.py, loaded by path (benchmarks/ is not on sys.path)."""
    spec = importlib.util.spec_from_file_location(
        f"{name}_benchmark", ROOT / "benchmarks" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build_benchmark():
    """benchmarks/build.py (its RSS helpers)."""
    return _benchmark_module("build")


# ----------------------------------------------------------------------------- child process


def child(data: str, warehouse: str, phases_file: str) -> None:
    """`csrwh build --data-dir <data> --warehouse <warehouse>`, as the CLI runs it, each phase
    change appended to ``phases_file`` (epoch seconds, phase) as it happens (the CLI ends the
    process with ``os._exit``: nothing runs after it)."""
    from csrwh import cli
    from csrwh.pipeline.job import _Build

    enter = _Build.enter

    def note_phase(self, phase):  # type: ignore[no-untyped-def]
        with open(phases_file, "a") as fh:
            fh.write(f"{time.time()} {phase}\n")
        return enter(self, phase)

    _Build.enter = note_phase
    sys.argv = ["csrwh", "build", "--data-dir", data, "--warehouse", warehouse]
    cli.main()


# ----------------------------------------------------------------------------- one build


def parse_output(output: list[str]) -> tuple[str | None, list[str]]:
    """The CLI's ``error:`` line (without the prefix) and each failure it listed: a "✗" line
    with the indented lines under it (dbt's: the model, then DuckDB's message), joined by " | "."""
    failures: list[str] = []
    for ln in output:
        if ln.lstrip().startswith("✗"):
            failures.append(ln.strip().removeprefix("✗").strip())
        elif failures and ln.startswith(" ") and ln.strip():
            failures[-1] += " | " + ln.strip()
    error = next(
        (ln.split("error:", 1)[1].strip() for ln in output if ln.startswith("error:")), None
    )
    return error, failures


def run_build(data: Path, work: Path, label: str) -> dict:
    """Build ``data`` into a new warehouse under ``work``; wall, peak RSS, phases, outcome."""
    bb = _build_benchmark()
    footprint = _benchmark_module("footprint")
    warehouse = work / "warehouse" / "csr.duckdb"
    phases_file = work / "phases.txt"
    env = dict(
        os.environ,
        DO_NOT_TRACK="1",
        COLUMNS="10000",  # one failure per line (rich wraps at the terminal's width)
        CSRWH_DBT_TARGET_PATH=str(work / "target"),
    )
    # a child's ru_maxrss starts at this process' own peak (Linux keeps the parent's high-water
    # mark across fork/vfork + exec), so it counts only when above that
    inherited_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started_epoch = time.time()
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", str(data), str(warehouse), str(phases_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=ROOT,
    )
    samples: list[tuple[float, float]] = []
    cpu: list[tuple[float, float]] = []  # (epoch seconds, the build's CPU seconds so far)
    from csrwh.pipeline.paths import temp_dir

    spill = temp_dir(warehouse)  # where the build's DuckDB spills
    peak_spill = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak_spill
        while not done.is_set():
            now = time.time()
            peak_spill = max(peak_spill, footprint.folder_bytes(spill))
            kb = bb._tree_rss_kb(proc.pid)
            if kb:
                samples.append((now, kb / 1024))
            used = footprint.cpu_seconds(proc.pid)
            if used is not None:
                cpu.append((now, used))
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        output.append(line.rstrip("\n"))
        if line.startswith("phase ") or "error:" in line:
            print(
                f"    [{label} {time.perf_counter() - started:7.1f} s] {line.rstrip()[:200]}",
                flush=True,
            )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    ended_epoch = time.time()
    done.set()
    sampler.join()

    phases: list[tuple[float, str]] = []
    if phases_file.is_file():
        for row in phases_file.read_text().splitlines():
            t, phase = row.split(" ", 1)
            phases.append((float(t), phase))
    total_cpu = usage.ru_utime + usage.ru_stime
    cpu.append((ended_epoch, total_cpu))
    seconds: dict[str, float] = {}
    cpu_phases: dict[str, float] = {}
    rss_phases: dict[str, float] = {}
    for (t, phase), end in zip(phases, [t for t, _ in phases[1:]] + [ended_epoch], strict=True):
        seconds[phase] = seconds.get(phase, 0.0) + end - t
        cpu_phases[phase] = cpu_phases.get(phase, 0.0) + footprint.cpu_between(cpu, t, end)
        peak = max((mb for s, mb in samples if t <= s <= end + 0.1), default=0.0)
        rss_phases[phase] = max(rss_phases.get(phase, 0.0), peak)
    error, failures = parse_output(output)
    tables = footprint.storage_by_table(warehouse) if proc.returncode == 0 else {}
    # each dbt node's time and the tree's peak RSS while it ran (nodes run two at a time: a
    # node shares the RSS figure with whatever ran beside it), slowest first
    nodes = sorted(
        (
            (
                end - start,
                footprint.cpu_between(cpu, start, end),
                max((mb for s, mb in samples if start <= s <= end + 0.1), default=0.0),
                name,
            )
            for name, (start, end) in bb._node_windows(work / "target").items()
        ),
        reverse=True,
    )
    return {
        "input_bytes": footprint.folder_bytes(data),
        "warehouse_bytes": warehouse.stat().st_size if warehouse.is_file() else 0,
        "peak_spill_bytes": peak_spill,
        "storage_mib_by_schema": footprint.storage_by_schema(tables),
        "largest_tables_mib": dict(sorted(tables.items(), key=lambda kv: -kv[1])[:8]),
        "nodes": [
            {"model": n, "seconds": t, "cpu_seconds": c, "peak_rss_mb": mb} for t, c, mb, n in nodes
        ],
        "cpu_seconds": total_cpu,
        "phase_cpu_seconds": cpu_phases,
        "label": label,
        "ok": proc.returncode == 0,
        "exit_code": proc.returncode,
        "wall": wall,
        "startup": (phases[0][0] - started_epoch) if phases else None,
        "peak_rss_mb": max(
            usage.ru_maxrss / 1024 if usage.ru_maxrss > inherited_kb else 0.0,
            max((mb for _, mb in samples), default=0.0),
        ),
        "phase_seconds": seconds,
        "phase_peak_rss_mb": rss_phases,
        "failed_phase": phases[-1][1] if phases and proc.returncode != 0 else None,
        "error": error,
        "failures": failures,
        "output_tail": output[-15:] if proc.returncode != 0 and not error else [],
        "output": output if proc.returncode != 0 else [],
    }


# ----------------------------------------------------------------------------- data


def _size(text: str) -> int | str:
    text = text.strip().lower()
    if text in ("1833", "x10"):
        return text
    match = re.fullmatch(r"(\d+)([km]?)", text)
    if not match:
        raise argparse.ArgumentTypeError(f"unknown size {text!r} (1833, x10, or <n>, <n>k, <n>m)")
    return int(match[1]) * {"": 1, "k": 1_000, "m": 1_000_000}[match[2]]


def _name(size: int) -> str:
    if size % 1_000_000 == 0:
        return f"{size // 1_000_000}M"
    return f"{size // 1_000}k" if size % 1_000 == 0 else str(size)


def _describe(written) -> str:  # type: ignore[no-untyped-def]
    return f"{written.lines:,} conversations, {written.messages:,} messages, {written.bytes / 1e6:,.1f} MB"


def runs_for(size: int | str, source: Path, lines_per_file: int = 100_000):  # type: ignore[no-untyped-def]
    """(label, writer) pairs: a writer puts the run's data into a data folder and describes it."""
    from csrwh.sample import custom_scale as cs

    if size == "1833":

        def first_class(data: Path) -> str:
            shutil.copytree(source, data / "recllmsim" / source.name)
            n = sum(1 for _ in (data / "recllmsim").rglob("*.json"))
            mb = sum(p.stat().st_size for p in (data / "recllmsim").rglob("*.json")) / 1e6
            return f"{n:,} files, {mb:,.1f} MB as recllmsim/{source.name}/"

        return [
            ("own 1833", lambda data: _describe(cs.convert_recllmsim(source, data, 1))),
            ("first-class 1833", first_class),
        ]
    if size == "x10":
        return [("own x10", lambda data: _describe(cs.convert_recllmsim(source, data, 10)))]
    return [
        (
            f"generated {_name(size)}",
            lambda data: _describe(cs.write_generated(data, size, lines_per_file=lines_per_file)),
        )
    ]


# ----------------------------------------------------------------------------- report


def _line(r: dict) -> str:
    phases = ", ".join(
        f"{p} {r['phase_seconds'][p]:.1f}" for p in PHASES if p in r["phase_seconds"]
    )
    other = sum(v for k, v in r["phase_seconds"].items() if k not in PHASES)
    by_phase = ", ".join(
        f"{p} {mb:.0f}" for p, mb in r["phase_peak_rss_mb"].items() if p in PHASES and mb
    )
    cpu_phases = ", ".join(
        f"{p} {r['phase_cpu_seconds'][p]:.1f}" for p in PHASES if p in r["phase_cpu_seconds"]
    )
    out = (
        f"{r['label']:<18} {'PASS' if r['ok'] else 'FAIL':<5} wall {r['wall']:7.1f} s  CPU "
        f"{r['cpu_seconds']:7.1f} s  peak RSS "
        f"{r['peak_rss_mb']:6.0f} MB  phases (s): {phases or '-'}; startup+lock+copy "
        f"{(r['startup'] or 0) + other:.1f}  peak RSS by phase (MB): {by_phase or '-'}"
        f"\n{'':<18} CPU by phase (s): {cpu_phases or '-'}"
    )
    if r.get("input_bytes"):
        out += (
            f"\n{'':<18} input {r['input_bytes'] / 2**20:.0f} MiB; warehouse file "
            f"{r['warehouse_bytes'] / 2**20:.0f} MiB ({r['warehouse_bytes'] / r['input_bytes']:.2f}x "
            f"the input); peak spill {r['peak_spill_bytes'] / 2**20:.0f} MiB"
        )
    if r.get("storage_mib_by_schema"):
        out += f"\n{'':<18} stored by schema (MiB): " + ", ".join(
            f"{k} {v:.1f}" for k, v in r["storage_mib_by_schema"].items()
        )
        out += f"\n{'':<18} largest tables (MiB): " + ", ".join(
            f"{k} {v:.1f}" for k, v in r["largest_tables_mib"].items()
        )
    if r.get("nodes"):
        out += (
            f"\n{'':<18} slowest dbt nodes (wall s / the build's CPU s meanwhile / peak RSS MB "
            "meanwhile; two run at a time): "
            + ", ".join(
                f"{n['model']} {n['seconds']:.1f}/{n['cpu_seconds']:.1f}/{n['peak_rss_mb']:.0f}"
                for n in r["nodes"][:10]
            )
        )
    if not r["ok"]:
        out += f"\n{'':<18} failed in {r['failed_phase'] or 'startup'}: {r['error'] or 'no error line'}"
        for failure in r["failures"][:3]:
            # DuckDB's generic advice (SET threads=...) is in the JSON, not repeated here
            out += f"\n{'':<18}   ✗ {re.split(r' [|] Possible solutions:| Possible solutions:', failure)[0]}"
        if len(r["failures"]) > 3:
            out += f"\n{'':<18}   (and {len(r['failures']) - 3} more)"
        for line in r["output_tail"]:
            out += f"\n{'':<18}   | {line}"
    return out


def _ratio(label: str, a: dict | None, b: dict | None) -> str | None:
    if a is None or b is None:
        return None
    note = "" if a["ok"] and b["ok"] else "  (not both passed: the ratio compares unlike work)"
    phases = "".join(
        f"; {p} CPU {a['phase_cpu_seconds'][p]:.1f} / {b['phase_cpu_seconds'][p]:.1f} s = "
        f"{a['phase_cpu_seconds'][p] / b['phase_cpu_seconds'][p]:.2f}"
        for p in PHASES
        if a["phase_cpu_seconds"].get(p) and b["phase_cpu_seconds"].get(p)
    )
    return (
        f"{label}: wall {a['wall']:.1f} / {b['wall']:.1f} s = {a['wall'] / b['wall']:.2f}; "
        f"CPU {a['cpu_seconds']:.1f} / {b['cpu_seconds']:.1f} s = "
        f"{a['cpu_seconds'] / b['cpu_seconds']:.2f}{phases}; "
        f"peak RSS {a['peak_rss_mb']:.0f} / {b['peak_rss_mb']:.0f} MB = "
        f"{a['peak_rss_mb'] / b['peak_rss_mb']:.2f}"
        + (
            f"; warehouse {a['warehouse_bytes'] / 2**20:.0f} / {b['warehouse_bytes'] / 2**20:.0f} MiB = "
            f"{a['warehouse_bytes'] / b['warehouse_bytes']:.2f}"
            if a.get("warehouse_bytes") and b.get("warehouse_bytes")
            else ""
        )
        + note
    )


def report(results: list[dict]) -> list[str]:
    by_label = {r["label"]: r for r in results}
    lines = [_line(r) for r in results]
    ratios = [
        _ratio(
            "own / first-class (1,833)", by_label.get("own 1833"), by_label.get("first-class 1833")
        )
    ]
    ratios.append(_ratio("own x10 / own 1833", by_label.get("own x10"), by_label.get("own 1833")))
    generated = [r for r in results if r["label"].startswith("generated ")]
    for small, big in itertools.pairwise(generated):
        ratios.append(
            _ratio(
                f"{big['label'].split()[1]} / {small['label'].split()[1]} (data x{big['n'] / small['n']:g})",
                big,
                small,
            )
        )
    return lines + [r for r in ratios if r]


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        child(*argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        default=DEFAULT_SIZES,
        help=f"comma-separated: 1833, x10, <n>[k|m] (default {DEFAULT_SIZES}; 1m: ~14 GB of data)",
    )
    parser.add_argument(
        "--skip-slow", action="store_true", help=f"leave out generated sizes above {SLOW:,}"
    )
    parser.add_argument("--work", type=Path, default=None, help="where the temporary folders go")
    from csrwh.sample.custom_scale import DEFAULT_RECLLMSIM

    parser.add_argument(
        "--recllmsim",
        type=Path,
        default=DEFAULT_RECLLMSIM,
        help="the RecLLMSim release folder to convert (default ../shared/corpora/recllmsim/human_exp_V2)",
    )
    parser.add_argument(
        "--lines-per-file",
        type=int,
        default=100_000,
        help="generated conversations per JSONL file (default 100,000: ~1.4 GB files)",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the raw figures here")
    args = parser.parse_args(argv)
    try:
        sizes = [_size(s) for s in args.sizes.split(",") if s.strip()]
    except argparse.ArgumentTypeError as exc:
        parser.error(str(exc))
    if args.skip_slow:
        sizes = [s for s in sizes if isinstance(s, str) or s <= SLOW]
    generated = sorted(s for s in sizes if isinstance(s, int))
    sizes = [s for s in sizes if isinstance(s, str)] + generated
    if any(isinstance(s, str) for s in sizes) and not args.recllmsim.is_dir():
        sys.exit(f"error: no RecLLMSim release at {args.recllmsim} (pass --recllmsim)")
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
    results: list[dict] = []
    print(
        f"own corpora at scale: sizes {', '.join(map(str, sizes))}; load average "
        f"{os.getloadavg()[0]:.1f}; settings: "
        + ", ".join(f"{k}={os.environ.get(k) or '(default)'}" for k in SETTINGS)
    )
    for size in sizes:
        for label, write in runs_for(size, args.recllmsim, args.lines_per_file):
            with tempfile.TemporaryDirectory(prefix="csrwh-custom-scale-", dir=args.work) as tmp:
                work = Path(tmp)
                data = work / "data"
                data.mkdir()
                print(f"{label}: writing the data ...", flush=True)
                t = time.perf_counter()
                described = write(data)
                print(
                    f"{label}: {described} (written in {time.perf_counter() - t:.1f} s); building",
                    flush=True,
                )
                result = run_build(data, work, label)
                result["data"] = described
                result["n"] = size if isinstance(size, int) else None
                result["load_average"] = os.getloadavg()[0]
                results.append(result)
                print(_line(result), flush=True)
    print()
    print(f"summary (one run, one machine; load average now {os.getloadavg()[0]:.1f})")
    for line in report(results):
        print(line)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
