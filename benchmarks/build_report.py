"""The report of ``benchmarks/build.py``: one data set's figures against both floors, and the
growth between sample scales."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON_MART_PEAKS = ("text_diversity", "annotator_agreement")
PYTHON_MODELS = tuple(sorted(p.stem for p in (ROOT / "models").rglob("*.py")))


def report(data: Path, r: dict) -> None:
    cold, warm, changed, floor = r["cold"], r["warm"], r["changed"], r["floor"]
    steps = cold["steps"]
    rows = [
        ("ingest", steps.get("ingest", 0.0), floor["ingest"]),
        ("dbt", steps.get("dbt", 0.0), floor["dbt"]),
        ("gate", steps.get("gate", 0.0), floor["gate"]),
    ]
    total_floor = sum(f for _, _, f in rows)
    print(f"corpora {data}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'phase':<10}{'build s':>9}{'floor s':>9}{'build/floor':>13}")
    for phase, built, fl in rows:
        print(f"{phase:<10}{built:9.1f}{fl:9.1f}{built / fl if fl else float('nan'):13.1f}")
    print(
        f"{'cold wall':<10}{cold['wall']:9.1f}{total_floor:9.1f}{cold['wall'] / total_floor:13.1f}"
        "   (build: whole process, imports and publish included)"
    )
    print(
        f"cold build against the SQL-only floor (seeds, SQL models and tests; no Python models, "
        f"no ingest, no gate) {floor['sql']:.1f} s: {cold['wall'] / floor['sql']:.1f}x; "
        f"against today's floor (ingest, seeds, SQL and Python models, tests, gate) "
        f"{total_floor:.1f} s: {cold['wall'] / total_floor:.1f}x"
    )
    print(
        "Python models, cold build (dbt node s) / floor s: "
        + ", ".join(
            f"{name} {cold['python_models'].get(name, float('nan')):.1f} / "
            f"{floor['python_models'].get(name, float('nan')):.1f}"
            for name in PYTHON_MODELS
        )
    )
    parts, counts = floor["dbt_parts"], floor["dbt_counts"]
    print("dbt floor: " + ", ".join(f"{k} {parts[k]:.1f} s ({counts[k]})" for k in parts))
    print(
        f"dbt build: {cold['dbt_nodes']} nodes, run elapsed {cold['dbt_run_elapsed']:.1f} s, "
        f"parse+setup {cold['dbt_seconds'] - cold['dbt_run_elapsed']:.1f} s"
    )
    g = floor["gate_statements"]
    print(
        f"gate floor: {g['replayed']} of {g['captured']} captured statements replayed (the rest: reflection)"
    )
    print(
        "slowest models in the floor: "
        + ", ".join(f"{name} {sec:.1f} s" for sec, name in floor["slowest_models"])
    )
    print(
        f"peak RSS: cold build {cold['peak_rss_mb']:.0f} MB"
        + (f", one-file rebuild {changed['peak_rss_mb']:.0f} MB" if changed else "")
        + f", floor {floor['peak_rss_mb']:.0f} MB"
    )
    if cold.get("rss_top_nodes"):
        print(
            "cold build RSS by dbt node (MB, with whatever ran beside it): "
            + ", ".join(f"{name} {mb:.0f}" for mb, name in cold["rss_top_nodes"])
            + f"; gate {cold['rss_gate_mb'] or float('nan'):.0f}"
        )
    if cold.get("rss_phases_mb"):
        print(
            "cold build RSS by phase (MB, process and children): "
            + ", ".join(
                f"{k} {v:.0f} (build process alone {cold['rss_own_phases_mb'][k][0]:.0f}-"
                f"{cold['rss_own_phases_mb'][k][1]:.0f})"
                for k, v in cold["rss_phases_mb"].items()
            )
            + f"; outside {' and '.join(PYTHON_MART_PEAKS)} "
            + f"{cold['rss_outside_python_marts_mb']:.0f}"
        )
    print(
        f"dbt parse: cold {cold['dbt_parse_seconds'] or float('nan'):.1f} s "
        f"(full: {cold['dbt_full_parse_reason']})"
    )
    if warm is None or changed is None:
        return
    print(f"no-change rebuild: {warm['wall']:.1f} s wall (up to date: {warm['up_to_date']})")
    print(
        f"one-file change rebuild ({changed['file']}): {changed['wall']:.1f} s wall = "
        f"{changed['wall'] / cold['wall']:.0%} of the cold build; {changed['dbt_nodes_run']} of "
        f"{cold['dbt_nodes']} dbt nodes; steps "
        + ", ".join(f"{k} {v:.1f}" for k, v in changed["steps"].items())
    )
    print("  " + " | ".join(changed["notes"]))
    print(
        "  Python models run (dbt node s): "
        + (", ".join(f"{k} {v:.1f}" for k, v in sorted(changed["python_models"].items())) or "none")
    )
    timings = changed.get("dbt_timings") or {}
    if timings:
        kinds: dict[str, float] = {}
        for uid, sec in timings.items():
            kinds[uid.split(".")[0]] = kinds.get(uid.split(".")[0], 0.0) + sec
        slowest = sorted(timings.items(), key=lambda kv: -kv[1])[:8]
        print(
            "  dbt node s summed (threads overlap): "
            + ", ".join(f"{k} {v:.1f}" for k, v in sorted(kinds.items()))
            + "; slowest: "
            + ", ".join(f"{uid.split('.')[-1]} {sec:.1f}" for uid, sec in slowest)
        )
    print(
        f"dbt parse, rebuild: {changed['dbt_parse_seconds'] or float('nan'):.1f} s "
        f"({'full: ' + changed['dbt_full_parse_reason'] if changed['dbt_full_parse_reason'] else 'partial'})"
    )


def _floor_total(r: dict) -> float:
    return r["floor"]["ingest"] + r["floor"]["dbt"] + r["floor"]["gate"]


def report_growth(scales: list[int], results: list[dict]) -> None:
    """Cold build, floor and peak RSS of each scale against the scale before it."""
    for (small, a), (big, b) in zip(
        zip(scales, results, strict=True), list(zip(scales, results, strict=True))[1:]
    ):
        print(
            f"x{big} / x{small} (data x{big / small:.1f}): cold build wall "
            f"{b['cold']['wall']:.1f} / {a['cold']['wall']:.1f} s = "
            f"{b['cold']['wall'] / a['cold']['wall']:.2f}; floor {_floor_total(b):.1f} / "
            f"{_floor_total(a):.1f} s = {_floor_total(b) / _floor_total(a):.2f}; peak RSS "
            f"{b['cold']['peak_rss_mb']:.0f} / {a['cold']['peak_rss_mb']:.0f} MB"
        )
