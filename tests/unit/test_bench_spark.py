"""benchmarks/spark.py: dbt's run_results and manifest read into per-layer totals (issue 28).

Small generated run_results.json / manifest.json pairs, no build: the per-layer sums, the
nodes only one engine ran, skipped nodes, and the straight-line extrapolation."""

from __future__ import annotations

import importlib.util
import random
import sys

import pytest

from csrwh.config import PROJECT_ROOT


@pytest.fixture(scope="module")
def bench():
    path = PROJECT_ROOT / "benchmarks" / "spark.py"
    spec = importlib.util.spec_from_file_location("spark_benchmark_under_test", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _project(rng: random.Random, n_per_layer: int = 4):
    """A manifest with seeds, models in three folders and tests, and each node's layer."""
    nodes, layer_of = {}, {}
    for layer in ("staging", "intermediate", "marts"):
        for i in range(n_per_layer):
            uid = f"model.csrwh.{layer[:3]}_{i}"
            nodes[uid] = {"resource_type": "model", "fqn": ["csrwh", layer, "corpus", uid]}
            layer_of[uid] = layer
    for i in range(n_per_layer):
        uid = f"seed.csrwh.seed_{i}"
        nodes[uid] = {"resource_type": "seed", "fqn": ["csrwh", f"seed_{i}"]}
        layer_of[uid] = "seeds"
        uid = f"test.csrwh.not_null_{i}.{rng.getrandbits(32):08x}"
        nodes[uid] = {"resource_type": "test", "fqn": ["csrwh", "staging", f"not_null_{i}"]}
        layer_of[uid] = "tests"
    return {"nodes": nodes, "unit_tests": {}}, layer_of


def _run_results(rng: random.Random, uids, skipped=()):
    results = [
        {
            "unique_id": uid,
            "status": "skipped" if uid in skipped else rng.choice(["success", "pass", "warn"]),
            "execution_time": round(rng.uniform(0.01, 3.0), 4),
            "timing": [],
        }
        for uid in uids
    ]
    return {"results": results, "elapsed_time": 1.0}


def test_layer_totals_sum_the_nodes_both_engines_ran(bench) -> None:
    rng = random.Random(28)
    manifest, layer_of = _project(rng)
    uids = sorted(layer_of)
    # Spark: one mart excluded (not run), one test skipped; DuckDB ran everything
    spark_missing = next(u for u in uids if layer_of[u] == "marts")
    spark_skipped = next(u for u in uids if layer_of[u] == "tests")
    duck = _run_results(rng, uids)
    spark = _run_results(rng, [u for u in uids if u != spark_missing], skipped={spark_skipped})
    run = {
        "duckdb": {"times": bench.node_times(duck), "layers": bench.node_layers(manifest)},
        "spark": {"times": bench.node_times(spark), "layers": bench.node_layers(manifest)},
    }
    assert bench.node_layers(manifest) == layer_of
    assert spark_skipped not in run["spark"]["times"]

    got = bench.compare_layers(run)

    d_time = {r["unique_id"]: r["execution_time"] for r in duck["results"]}
    s_time = {r["unique_id"]: r["execution_time"] for r in spark["results"]}
    both = [u for u in uids if u not in (spark_missing, spark_skipped)]
    assert list(got) == ["seeds", "staging", "intermediate", "marts", "tests", "all nodes"]
    for layer in ("seeds", "staging", "intermediate", "marts", "tests"):
        mine = [u for u in both if layer_of[u] == layer]
        assert got[layer]["n"] == len(mine)
        assert got[layer]["duckdb"] == pytest.approx(sum(d_time[u] for u in mine))
        assert got[layer]["spark"] == pytest.approx(sum(s_time[u] for u in mine))
        assert got[layer]["ratio"] == pytest.approx(
            sum(s_time[u] for u in mine) / sum(d_time[u] for u in mine)
        )
    assert got["all nodes"]["n"] == len(both)
    assert got["all nodes"]["spark"] == pytest.approx(sum(s_time[u] for u in both))


def test_the_extrapolation_is_the_line_through_both_scales(bench) -> None:
    rng = random.Random(7)
    a_d, b_d = rng.uniform(0.5, 2), rng.uniform(0.5, 1.0)  # DuckDB: cheap start, grows faster
    a_s, b_s = a_d + rng.uniform(20, 40), b_d / rng.uniform(2, 4)
    s1, s2 = 1, rng.choice([10, 30, 100])
    duck = bench.line_fit(s1, a_d + b_d * s1, s2, a_d + b_d * s2)
    spark = bench.line_fit(s1, a_s + b_s * s1, s2, a_s + b_s * s2)
    assert duck == pytest.approx((a_d, b_d))
    at = bench.crossing(duck, spark)
    assert a_s + b_s * at == pytest.approx(a_d + b_d * at)
    # past the crossing Spark is cheaper, before it DuckDB is
    assert a_s + b_s * (at + 1) < a_d + b_d * (at + 1)
    assert a_s + b_s * (at - 1) > a_d + b_d * (at - 1)
    # Spark growing as fast as DuckDB never pays
    assert bench.crossing(duck, (a_s, b_d)) is None
    # nor when DuckDB's time did not grow (noise can make Spark's slope negative too)
    assert bench.crossing((a_d, 0.0), (a_s, -b_s)) is None
