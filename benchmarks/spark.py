"""The Spark build's per-node cost beside DuckDB's on the generated sample (issue 28).

Usage::

    .venv/bin/python benchmarks/spark.py                     # sample x1
    .venv/bin/python benchmarks/spark.py --sample-scale 100  # x100

Generates the sample (``csrwh sample``, seed 7) into a temporary folder, builds it with
``csrwh build`` (DuckDB, the expectations gate on) and with ``csrwh build --engine spark``
(one local[2] SparkSession in this process), then prints, for every dbt node both builds ran,
dbt's execution time on each engine and the ratio, the totals by resource type, each
build's phases and the parity of the marts (``csrwh.building.spark_parity``). The Spark
session's start (~15-20 s) is paid by ``dbt run-operation spark_register_raw`` (which
registers the raw Parquet tables) before the first node, not timed as a node. Nodes left out on Spark
(spark_exclusions.yml) are counted, not timed. One run on one shared machine: compare the
ratios, not the absolute seconds.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample-scale", type=int, default=1)
    parser.add_argument("--top", type=int, default=15, help="slowest Spark nodes listed")
    args = parser.parse_args()
    os.environ.setdefault("DO_NOT_TRACK", "1")

    from csrwh.building import build, spark, spark_parity
    from csrwh.building.gate.run import gate
    from csrwh.sample import generate

    with tempfile.TemporaryDirectory(prefix="csrwh-spark-bench-") as tmp:
        root = Path(tmp)
        os.environ["CSRWH_DBT_TARGET_PATH"] = str(root / "target")
        data = root / "data"
        generate(data, scale=args.sample_scale, seed=7)
        warehouse = root / "warehouse" / "demo.duckdb"
        started = time.perf_counter()
        duck = build(data, warehouse, gates=[gate])
        duck_wall = time.perf_counter() - started
        started = time.perf_counter()
        sp = spark.spark_build(data, warehouse)
        spark_wall = time.perf_counter() - started
        parity = spark_parity.compare(warehouse)

    d_times, s_times = duck.dbt.timings, sp.timings
    both = sorted(set(d_times) & set(s_times))
    print(
        f"sample x{args.sample_scale}: DuckDB build {duck_wall:.1f} s, Spark build {spark_wall:.1f} s"
    )
    print("  DuckDB phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in duck.seconds.items()))
    print("  Spark phases:  " + ", ".join(f"{k} {v:.1f} s" for k, v in sp.seconds.items()))
    print(f"  dbt nodes: DuckDB {len(d_times)}, Spark {len(s_times)} ({len(both)} on both)")
    # the SparkSession start and the raw tables' registration (dbt run-operation
    # spark_register_raw, a dbt invocation of its own) are in Spark's dbt phase, not in a node
    print(
        f"  Spark dbt phase {sp.seconds.get('dbt', 0.0):.1f} s: session start, "
        "spark_register_raw and the nodes"
    )
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for uid in both:
        kind = uid.split(".", 1)[0]
        totals[kind][0] += d_times[uid]
        totals[kind][1] += s_times[uid]
        totals[kind][2] += 1
    print(
        f"  {'type':<8} {'n':>4} {'DuckDB s':>9} {'Spark s':>9} {'per node D/S':>15} {'Spark/DuckDB':>13}"
    )
    for kind, (d, s, n) in sorted(totals.items()):
        ratio = s / d if d else float("inf")
        print(f"  {kind:<8} {n:>4} {d:>9.2f} {s:>9.2f} {d / n:>7.3f}/{s / n:<7.3f} {ratio:>13.1f}")
    print(f"  slowest {args.top} nodes on Spark (DuckDB beside):")
    for uid in sorted(both, key=lambda u: -s_times[u])[: args.top]:
        print(f"    {uid:<70} {d_times[uid]:>7.2f} {s_times[uid]:>7.2f}")
    counts: dict[str, int] = defaultdict(int)
    for p in parity:
        counts[p.status] += 1
    print("  parity: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
