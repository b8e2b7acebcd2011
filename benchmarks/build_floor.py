"""The build's floors for ``benchmarks/build.py``: the build's own compiled
SQL models, Python models (their compiled code, called as dbt-duckdb calls them), data tests
and the gate's captured SQL, run straight in one DuckDB connection in dependency order (no dbt,
no GX). Run in a child process by ``build.py --child floor``.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON_MODELS = tuple(sorted(p.stem for p in (ROOT / "models").rglob("*.py")))

# statements of the gate that are GX/SQLAlchemy catalogue reflection, not checks of the data
_REFLECTION = re.compile(
    r"information_schema|duckdb_\w+\(|pg_catalog|current_schema|^\s*select\s+1\s*$"
    r"|^\s*(pragma|show|describe|set|begin|commit|rollback)\b",
    re.IGNORECASE,
)


def _topological(nodes: dict[str, dict]) -> list[str]:
    """Node ids in an order where every node comes after the nodes it depends on."""
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(uid: str) -> None:
        if state.get(uid) == 2:
            return
        if state.get(uid) == 1:
            raise RuntimeError(f"dependency cycle at {uid}")
        state[uid] = 1
        for dep in nodes[uid].get("depends_on", {}).get("nodes", []):
            if dep in nodes:
                visit(dep)
        state[uid] = 2
        order.append(uid)

    for uid in sorted(nodes):
        visit(uid)
    return order


def child_floor(data_dir: str, warehouse: str, target: str, capture: str) -> dict:
    import importlib.util

    import duckdb

    # benchmarks/ingest.py's floor (loaded by path: the name `ingest` is the project's package)
    spec = importlib.util.spec_from_file_location(
        "ingest_benchmark", ROOT / "benchmarks" / "ingest.py"
    )
    ingest_benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ingest_benchmark)
    out: dict = {"ingest": ingest_benchmark.child_floor(data_dir)["seconds"]}

    manifest = json.loads(Path(target, "manifest.json").read_text())
    run_results = json.loads(Path(target, "run_results.json").read_text())
    executed = {r["unique_id"]: r for r in run_results["results"]}
    nodes = {
        uid: n
        for uid, n in manifest["nodes"].items()
        if uid in executed and n["resource_type"] in ("model", "seed")
    }
    tests = [
        n
        for uid, n in manifest["nodes"].items()
        if uid in executed and n["resource_type"] == "test"
    ]

    con = duckdb.connect(warehouse)
    seconds = {"seeds": 0.0, "models_sql": 0.0, "models_python": 0.0, "tests": 0.0}
    counts = {"seeds": 0, "models_sql": 0, "models_python": 0, "tests": 0}
    slowest: list[tuple[float, str]] = []
    for uid in _topological(nodes):
        node = nodes[uid]
        relation = node["relation_name"]
        if node["resource_type"] == "seed":
            csv = ROOT / node["original_file_path"]
            sql = f"create or replace table {relation} as select * from read_csv(?)"
            t = time.perf_counter()
            con.execute(sql, [str(csv)])
            seconds["seeds"] += time.perf_counter() - t
            counts["seeds"] += 1
            continue
        if node.get("language") == "python":
            # the model's own compiled code, called as dbt-duckdb calls it, result kept as a table
            namespace: dict = {
                "__name__": f"floor_{node['name']}",
                "__file__": str(ROOT / node["original_file_path"]),  # its code version
            }
            t = time.perf_counter()
            exec(compile(node["compiled_code"], node["original_file_path"], "exec"), namespace)  # noqa: S102
            frame = namespace["model"](namespace["dbtObj"](con.table), con)  # noqa: F841 -- read by the SQL below
            con.execute(f"create or replace table {relation} as select * from frame")
            took = time.perf_counter() - t
            seconds["models_python"] += took
            slowest.append((took, node["name"]))
            counts["models_python"] += 1
            continue
        kind = "view" if node["config"]["materialized"] == "view" else "table"
        sql = f"create or replace {kind} {relation} as (\n{node['compiled_code']}\n)"
        t = time.perf_counter()
        con.execute(sql)
        seconds["models_sql"] += time.perf_counter() - t
        slowest.append((time.perf_counter() - t, node["name"]))
        counts["models_sql"] += 1
    for node in tests:
        t = time.perf_counter()
        con.execute(f"select count(*) from (\n{node['compiled_code']}\n) as floor_test").fetchone()
        seconds["tests"] += time.perf_counter() - t
        counts["tests"] += 1
    out["dbt"] = sum(seconds.values())
    # the SQL-only floor: the dbt floor without its Python models (seeds, SQL models, tests)
    out["sql"] = seconds["seeds"] + seconds["models_sql"] + seconds["tests"]
    out["python_models"] = {name: sec for sec, name in slowest if name in PYTHON_MODELS}
    out["dbt_parts"] = seconds
    out["dbt_counts"] = counts
    out["slowest_models"] = sorted(slowest, reverse=True)[:8]

    statements = json.loads(Path(capture).read_text()) if capture else []
    replayed = 0
    t = time.perf_counter()
    for statement, params in statements:
        if _REFLECTION.search(statement):
            continue
        try:
            cursor = con.execute(statement, params) if params else con.execute(statement)
            cursor.fetchall()
        except duckdb.Error:
            continue  # statements that only make sense in GX's session (temp tables...)
        replayed += 1
    out["gate"] = time.perf_counter() - t
    out["gate_statements"] = {"captured": len(statements), "replayed": replayed}
    con.close()
    return out
