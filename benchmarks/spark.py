"""The Spark build's per-node cost beside DuckDB's on the generated sample.

Usage::

    .venv/bin/python benchmarks/spark.py                           # sample x1
    .venv/bin/python benchmarks/spark.py --sample-scale 1 100      # x1 and x100, one run
    .venv/bin/python benchmarks/spark.py --sample-scale 30 --json x30.json
    .venv/bin/python benchmarks/spark.py --from-json x1.json x30.json   # analyse saved runs

For each scale it generates the sample (``csrwh sample --scale N``, seed 7) into a temporary
folder and builds it twice, each build a fresh subprocess as a user runs it: ``csrwh build``
(DuckDB, the expectations gate on) and ``csrwh build --engine spark`` (one ``local[2]``
SparkSession inside the build's process, the real build's rule), into the same warehouse path
(DuckDB's file ``W``, Spark's marts ``W.spark/<mart>/``). Then it prints:

- per dbt node (model, seed, test) that ran on both engines, dbt's execution time on each
  (``run_results.json``; Spark runs one node at a time, DuckDB two, so these are node times,
  not shares of a wall);
- the totals by layer (seeds, staging, intermediate, marts, tests; from ``manifest.json``)
  and Spark ÷ DuckDB per layer;
- the fixed costs: dbt's parse (to its ``Found N models`` line) of each dbt invocation, the
  SparkSession's start (``SparkSession.Builder.getOrCreate``, timed in the child) and the raw
  Parquet folders' registration (``dbt run-operation spark_register_raw``);
- each build's wall (the subprocess, imports included), its phases and peak RSS (the process
  and its children, the JVM included: ``/proc`` sampled every 0.1 s, ``benchmarks/build.py``'s
  sampler);
- the marts' parity by value (``csrwh.pipeline.spark_parity.compare``).

With two or more scales it fits, per layer and engine, ``t(s) = a + b·s`` through the
smallest and the largest scale (a: the per-node fixed cost, b: the growth with the data) and
prints where the Spark line would cross DuckDB's. That crossing is an **extrapolation** of a
straight line through two points, on one machine: Spark ``local[2]`` shares the machine with
nothing but itself, so it cannot use more cores or memory than DuckDB has; on a cluster b
divides by the executors. One run on one shared machine: compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# run as a script, benchmarks/ is sys.path[0] and its ingest.py would shadow the project's package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

from csrwh._devtools.child_run import run_json_child

ENGINES = ("duckdb", "spark")
#: the layers, in build order; a model's layer is its folder under models/ (fqn[1])
LAYERS = ("seeds", "staging", "intermediate", "marts", "tests")
#: statuses of nodes that ran (skipped nodes did not; their time is 0)
RAN = frozenset({"success", "pass", "warn", "fail", "error"})


# ----------------------------------------------------------------------------- run_results


def node_times(run_results: dict) -> dict[str, float]:
    """dbt's execution time per node unique id, for the nodes that ran."""
    return {
        r["unique_id"]: float(r.get("execution_time") or 0.0)
        for r in run_results.get("results", [])
        if r.get("status") in RAN
    }


def node_layers(manifest: dict) -> dict[str, str]:
    """Each node's layer: ``seeds``, ``tests`` (data and unit tests), or a model's folder
    under ``models/`` (``staging``, ``intermediate``, ``marts``, …)."""
    out = {}
    for uid, node in manifest.get("nodes", {}).items():
        kind = node.get("resource_type")
        if kind == "model":
            fqn = node.get("fqn") or []
            out[uid] = fqn[1] if len(fqn) > 2 else "models"
        elif kind == "seed":
            out[uid] = "seeds"
        elif kind in ("test", "unit_test"):
            out[uid] = "tests"
        else:
            out[uid] = str(kind)
    for uid in manifest.get("unit_tests", {}):
        out[uid] = "tests"
    return out


def layer_totals(
    times: dict[str, float], layers: dict[str, str], only: set[str] | None = None
) -> dict[str, tuple[int, float]]:
    """``{layer: (nodes, seconds)}`` over ``times`` (only the nodes in ``only``, if given)."""
    totals: dict[str, list] = defaultdict(lambda: [0, 0.0])
    for uid, sec in times.items():
        if only is not None and uid not in only:
            continue
        layer = layers.get(uid, uid.split(".", 1)[0])
        totals[layer][0] += 1
        totals[layer][1] += sec
    return {layer: (n, s) for layer, (n, s) in totals.items()}


def _ordered(layers) -> list[str]:
    return [x for x in LAYERS if x in layers] + sorted(set(layers) - set(LAYERS))


def compare_layers(run: dict) -> dict[str, dict]:
    """Per layer, over the nodes both engines ran: nodes, seconds on each, Spark ÷ DuckDB."""
    duck, spark = run["duckdb"]["times"], run["spark"]["times"]
    both = set(duck) & set(spark)
    layers = {**run["duckdb"]["layers"], **run["spark"]["layers"]}
    d_tot = layer_totals(duck, layers, both)
    s_tot = layer_totals(spark, layers, both)
    out = {}
    for layer in _ordered(d_tot):
        n, d = d_tot[layer]
        s = s_tot[layer][1]
        out[layer] = {"n": n, "duckdb": d, "spark": s, "ratio": s / d if d else None}
    n = sum(v["n"] for v in out.values())
    d = sum(v["duckdb"] for v in out.values())
    s = sum(v["spark"] for v in out.values())
    out["all nodes"] = {"n": n, "duckdb": d, "spark": s, "ratio": s / d if d else None}
    return out


def line_fit(x1: float, y1: float, x2: float, y2: float) -> tuple[float, float]:
    """``(a, b)`` of the line ``y = a + b·x`` through two points."""
    b = (y2 - y1) / (x2 - x1)
    return y1 - b * x1, b


def crossing(duck: tuple[float, float], spark: tuple[float, float]) -> float | None:
    """The scale at which Spark's line meets DuckDB's and Spark is cheaper past it; None when
    Spark's growth is not smaller, or DuckDB's time did not grow (it never pays here)."""
    (a_d, b_d), (a_s, b_s) = duck, spark
    if b_d <= 0 or b_s >= b_d:
        return None
    return max((a_s - a_d) / (b_d - b_s), 0.0)


# ----------------------------------------------------------------------------- child processes


def _sibling(name: str):
    """``benchmarks/<name>.py``, loaded by path (benchmarks/ is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        f"{name}_benchmark", ROOT / "benchmarks" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def child_build(engine: str, data_dir: str, warehouse: str) -> dict:
    """One build in this (fresh) process, as ``csrwh build [--engine spark]`` runs it."""
    t0 = time.perf_counter()
    sampler_cls = _sibling("build")._RssSampler
    from csrwh.pipeline import dbt_runner, job

    invocations: list[dict] = []

    def timed(run_dbt):  # type: ignore[no-untyped-def]
        def timed_run_dbt(args, *a, **kw):  # type: ignore[no-untyped-def]
            outcome = run_dbt(args, *a, **kw)
            invocations.append(
                {
                    "args": " ".join(str(x) for x in args[:2]),
                    "seconds": outcome.seconds,
                    "parse_seconds": outcome.parse_seconds,
                    "nodes": outcome.n_nodes,
                }
            )
            return outcome

        return timed_run_dbt

    # the Spark build calls these through the module (dbt on Spark in this process, the
    # DuckDB pass in a child); the DuckDB build imported the name
    dbt_runner.run_dbt_in_process = timed(dbt_runner.run_dbt_in_process)
    dbt_runner.run_dbt = job.run_dbt = timed(dbt_runner.run_dbt)
    session_starts: list[float] = []
    if engine == "spark":
        from pyspark.sql import SparkSession

        get_or_create = SparkSession.Builder.getOrCreate

        def timed_get_or_create(self):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            try:
                return get_or_create(self)
            finally:
                session_starts.append(time.perf_counter() - started)

        SparkSession.Builder.getOrCreate = timed_get_or_create
    with sampler_cls() as sampler:
        if engine == "spark":
            from csrwh.pipeline.spark import spark_build

            result = spark_build(Path(data_dir), Path(warehouse), allow_rejects=True)
            seconds, nodes = result.seconds, result.node_summary
        else:
            from csrwh.gate.run import gate
            from csrwh.pipeline import build

            result = build(Path(data_dir), Path(warehouse), gates=[gate], allow_rejects=True)
            seconds = result.seconds
            nodes = result.dbt.node_summary() if result.dbt is not None else ""
    return {
        "wall_in_process": time.perf_counter() - t0,
        "phases": seconds,
        "node_summary": nodes,
        "peak_rss_mb": sampler.peak(0, time.time()),
        "dbt_invocations": invocations,
        # the first getOrCreate starts the JVM and the session; later ones reuse it
        "session_start_seconds": session_starts[0] if session_starts else None,
    }


def _run_child(engine: str, data: Path, warehouse: Path, target: Path) -> dict:
    env = {**os.environ, "CSRWH_DBT_TARGET_PATH": str(target), "DO_NOT_TRACK": "1"}
    out = run_json_child(
        __file__, engine, str(data), str(warehouse), what=f"the {engine} build", env=env
    )
    folder = target / "spark" if engine == "spark" else target
    out["times"] = node_times(json.loads((folder / "run_results.json").read_text()))
    out["layers"] = node_layers(json.loads((folder / "manifest.json").read_text()))
    return out


def bench_scale(scale: int, work: Path) -> dict:
    """Generate the sample at ``scale``, build it on both engines, compare the marts."""
    from csrwh.pipeline import spark_parity
    from csrwh.sample import generate

    data = work / f"data-x{scale}"
    started = time.perf_counter()
    generate(data, scale=scale, seed=7)
    run: dict = {"scale": scale, "generate_seconds": time.perf_counter() - started}
    run["input_mb"] = sum(p.stat().st_size for p in data.rglob("*") if p.is_file()) / 2**20
    warehouse = work / f"warehouse-x{scale}" / "demo.duckdb"
    target = work / f"target-x{scale}"
    for engine in ENGINES:
        print(f"x{scale}: {engine} build…", file=sys.stderr, flush=True)
        run[engine] = _run_child(engine, data, warehouse, target)
    parity = spark_parity.compare(warehouse)
    run["parity"] = [[p.mart, p.status, p.rows, p.detail[:300]] for p in parity]
    return run


# ----------------------------------------------------------------------------- report


def _fixed_costs(side: dict) -> str:
    parts = []
    for inv in side["dbt_invocations"]:
        parse = inv["parse_seconds"]
        parts.append(
            f"dbt {inv['args']} {inv['seconds']:.1f} s (parse {parse:.1f} s)"
            if parse is not None
            else f"dbt {inv['args']} {inv['seconds']:.1f} s"
        )
    if side.get("session_start_seconds") is not None:
        parts.append(f"SparkSession start {side['session_start_seconds']:.1f} s")
    return "; ".join(parts)


def report(runs: list[dict], top: int = 0) -> None:
    for run in runs:
        duck, spark = run["duckdb"], run["spark"]
        print(f"\n== sample x{run['scale']} ({run['input_mb']:.1f} MB of input files)")
        for engine, side in (("DuckDB", duck), ("Spark", spark)):
            phases = ", ".join(f"{k} {v:.1f} s" for k, v in side["phases"].items())
            print(
                f"  {engine:<6} wall {side['wall']:.1f} s, peak RSS {side['peak_rss_mb']:.0f} MB"
                f" (process tree); {side['node_summary']}; phases: {phases}"
            )
            print(f"         fixed: {_fixed_costs(side)}")
        spark_only = set(spark["times"]) - set(duck["times"])
        duck_only = set(duck["times"]) - set(spark["times"])
        print(
            f"  nodes on both {len(set(duck['times']) & set(spark['times']))}, DuckDB only "
            f"{len(duck_only)} (excluded on Spark), Spark only {len(spark_only)}"
        )
        print(
            f"  {'layer':<13} {'n':>4} {'DuckDB s':>9} {'Spark s':>9} {'per node D / S':>17} {'S÷D':>6}"
        )
        for layer, v in compare_layers(run).items():
            ratio = f"{v['ratio']:.1f}" if v["ratio"] is not None else "-"
            print(
                f"  {layer:<13} {v['n']:>4} {v['duckdb']:>9.2f} {v['spark']:>9.2f} "
                f"{v['duckdb'] / v['n']:>8.3f} /{v['spark'] / v['n']:>7.3f} {ratio:>6}"
            )
        counts: dict[str, int] = defaultdict(int)
        for _, status, *_ in run["parity"]:
            counts[status] += 1
        print("  marts by value: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
        for mart, status, rows, detail in run["parity"]:
            if status not in ("match", "excluded"):
                print(f"    {mart}: {status} ({rows} rows) {detail}")
    _per_node(runs, top)
    if len(runs) >= 2:
        _extrapolate(runs[0], runs[-1])


def _per_node(runs: list[dict], top: int) -> None:
    both = set.intersection(*(set(r["duckdb"]["times"]) & set(r["spark"]["times"]) for r in runs))
    layers = runs[-1]["duckdb"]["layers"]
    last = runs[-1]["spark"]["times"]
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    order = sorted(both, key=lambda u: (rank.get(layers.get(u, ""), len(LAYERS)), -last[u]))
    if top:
        order = sorted(both, key=lambda u: -last[u])[:top]
    heads = "".join(f" {'D x' + str(r['scale']):>8} {'S x' + str(r['scale']):>8}" for r in runs)
    print(f"\n  per node, dbt execution time in seconds ({len(order)} nodes):")
    print(f"  {'node':<72}{heads}")
    for uid in order:
        cells = "".join(
            f" {r['duckdb']['times'][uid]:>8.2f} {r['spark']['times'][uid]:>8.2f}" for r in runs
        )
        # model.<package>.<name>; test.<package>.<name>.<hash> (a name may hold dots)
        kind, _, name = (uid.split(".", 2) + ["", ""])[:3]
        if kind == "test" and "." in name:
            name = name.rsplit(".", 1)[0]
        print(f"  {kind[:5] + ' ' + name:<72.72}{cells}")


def _extrapolate(low: dict, high: dict) -> None:
    s1, s2 = low["scale"], high["scale"]
    c1, c2 = compare_layers(low), compare_layers(high)
    rows = [(layer, c1[layer], c2[layer]) for layer in c2 if layer in c1]
    rows.append(
        (
            "build wall",
            {engine: low[engine]["wall"] for engine in ENGINES},
            {engine: high[engine]["wall"] for engine in ENGINES},
        )
    )
    print(
        f"\n  growth x{s1} -> x{s2} (layers: sum of node times; build wall: the subprocess) and "
        f"the line t = a + b*scale through both points; the crossing is an EXTRAPOLATION past "
        f"x{s2}, of two points, on one machine:"
    )
    print(
        f"  {'':<13} {'DuckDB':>25} {'Spark':>25}  {'Spark cheaper':>14}\n"
        f"  {'layer':<13} {'growth':>7} {'a s':>8} {'b s/x1':>8} {'growth':>7} {'a s':>8} "
        f"{'b s/x1':>8}  {'past':>14}"
    )
    for layer, one, two in rows:
        fits = {engine: line_fit(s1, one[engine], s2, two[engine]) for engine in ENGINES}
        cells = "".join(
            f" {two[engine] / one[engine] if one[engine] else float('inf'):>7.1f}"
            f" {fits[engine][0]:>8.2f} {fits[engine][1]:>8.3f}"
            for engine in ENGINES
        )
        at = crossing(fits["duckdb"], fits["spark"])
        where = f"x{at:,.0f}" if at is not None else "never"
        print(f"  {layer:<13}{cells}  {where:>14}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample-scale", type=int, nargs="+", default=[1])
    parser.add_argument("--top", type=int, default=0, help="list only the N slowest Spark nodes")
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    parser.add_argument(
        "--from-json", type=Path, nargs="+", help="report saved runs, build nothing"
    )
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("DO_NOT_TRACK", "1")
    if args.child:
        print(json.dumps(child_build(*args.child), default=str))
        return 0
    if args.from_json:
        runs = [run for path in args.from_json for run in json.loads(path.read_text())]
    else:
        runs = []
        with tempfile.TemporaryDirectory(prefix="csrwh-spark-bench-") as tmp:
            for scale in args.sample_scale:
                runs.append(bench_scale(scale, Path(tmp)))
                if args.json:  # after each scale: a late failure keeps the earlier ones
                    args.json.write_text(json.dumps(runs, indent=1))
    report(sorted(runs, key=lambda r: r["scale"]), args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
