"""Per-page query timings of the dashboard (`csrwh dashboard`) on a warehouse.

Runs every page script headless with Streamlit's AppTest (no browser, no server), exactly as
the dashboard runs it, and records every query the page makes through the query layer
(`csrwh.reading.dashboard.queries`, including opening the warehouse read-only) plus one interaction
per page (a filter, a search, an environment, ...). Prints, per page and scenario, the
median and worst wall-clock time over the repetitions of one page run (open + all queries),
its median process CPU time (which, unlike wall-clock time, does not grow when other jobs
compete for the machine) and the slowest single query. Budget: 200 ms per page run; the exit
status is 1 when a page's median is over it (--strict: any run) or a page raised.

    .venv/bin/python benchmarks/dashboard_queries.py [--warehouse /tmp/real_wh.duckdb] [--repeat 7]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

BUDGET_MS = 200.0


def scenarios() -> dict[str, list[tuple[str, Callable | None]]]:
    """Page file -> [(scenario name, interaction on the AppTest after the first run or None)]."""

    def first_option(widget_getter):
        def act(at):
            widget = widget_getter(at)
            options = list(widget.options)
            if options:
                widget.set_value([options[0]] if hasattr(widget, "indices") else options[0])
            return at

        return act

    return {
        "overview.py": [
            ("default", None),
            (
                "corpus filter = first corpus",
                first_option(lambda at: at.multiselect(key="overview_corpus")),
            ),
        ],
        "conversations.py": [
            ("default (all, first conversation)", None),
            ("search 'recommend'", lambda at: at.text_input(key="browse_text").input("recommend")),
        ],
        "arena.py": [
            ("global", None),
            ("open", lambda at: at.segmented_control(key="arena_env").set_value("open")),
        ],
        "intents.py": [("default", None)],
        "ratings.py": [
            ("default", None),
            (
                "corpus = first corpus",
                first_option(lambda at: at.multiselect(key="ratings_corpus")),
            ),
        ],
        "search.py": [("default (first turn)", None)],
        "health.py": [("default", None)],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", default="/tmp/real_wh.duckdb")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--verbose", action="store_true", help="also print every query's median")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="fail when any single run (not the median) is over budget",
    )
    args = parser.parse_args()
    warehouse = Path(args.warehouse).resolve()
    if not warehouse.is_file():
        print(f"error: {warehouse} does not exist", file=sys.stderr)
        return 1
    os.environ["CSRWH_WAREHOUSE"] = str(warehouse)
    os.environ["STREAMLIT_BROWSER_GATHER_USAGE_STATS"] = "false"
    os.environ.setdefault("STREAMLIT_LOGGER_LEVEL", "error")
    from streamlit.testing.v1 import AppTest

    for name in ("streamlit", "streamlit.runtime.scriptrunner_utils.script_run_context"):
        logging.getLogger(name).setLevel(logging.ERROR)

    from csrwh.reading.dashboard import PAGES
    from csrwh.reading.dashboard import queries as q

    log: list[q.QueryTiming] = []
    q.add_listener(log.append)

    with q.Warehouse(warehouse).open() as db:
        info = q.build_info(db) or {}
    size_mb = warehouse.stat().st_size / 1e6
    print(f"warehouse {warehouse} ({size_mb:.0f} MB), build {info.get('build_id')}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{args.repeat} runs per scenario; one run = open read-only + every query of one page run; "
        f"{os.cpu_count()} CPUs, load average {load:.1f}\n"
    )
    header = (
        f"{'page':<20} {'scenario':<30} {'queries':>7} {'median ms':>9} {'max ms':>7} "
        f"{'CPU ms':>7}  slowest query (median ms)"
    )
    print(header)
    print("-" * len(header))

    worst_median, worst_max = 0.0, 0.0
    failures = []
    specs = {p.file: p for p in PAGES}
    for file, cases in scenarios().items():
        page = specs[file]
        for name, act in cases:
            walls, cpus, per_query, n_queries = [], [], {}, 0
            for _ in range(args.repeat):
                at = AppTest.from_file(str(page.path), default_timeout=60)
                at.run()
                if act is not None:
                    act(at)
                    log.clear()
                    at.run()
                else:  # measure a first page run: replay it on a fresh AppTest
                    log.clear()
                    at = AppTest.from_file(str(page.path), default_timeout=60)
                    at.run()
                if at.exception:
                    failures.append(f"{file} {name}: {at.exception[0].value}")
                walls.append(sum(t.wall_ms for t in log))
                cpus.append(sum(t.cpu_ms for t in log))
                n_queries = sum(1 for t in log if t.name != q.CONNECT)
                for t in log:
                    per_query.setdefault(t.name, []).append(t.wall_ms)
            median, worst = statistics.median(walls), max(walls)
            worst_median, worst_max = max(worst_median, median), max(worst_max, worst)
            slow_name, slow = max(
                ((k, statistics.median(v)) for k, v in per_query.items() if k != q.CONNECT),
                key=lambda kv: kv[1],
                default=("-", 0.0),
            )
            flag = "" if median < BUDGET_MS else "  OVER BUDGET"
            print(
                f"{page.title:<20.20} {name:<30.30} {n_queries:>7} {median:>9.1f} {worst:>7.1f} "
                f"{statistics.median(cpus):>7.1f}  {slow_name} ({slow:.1f}){flag}"
            )
            if args.verbose:
                for qname, values in per_query.items():
                    print(f"{'':<52}{qname:<40} {statistics.median(values):>7.1f} ms")

    started = time.perf_counter()
    with q.Warehouse(warehouse).open() as db:
        q.build_info(db)
    sidebar_ms = (time.perf_counter() - started) * 1000
    print(f"\nsidebar (open + build_info, once per page run): {sidebar_ms:.1f} ms")
    print(
        f"slowest page: median {worst_median:.1f} ms, worst single run {worst_max:.1f} ms "
        f"(budget {BUDGET_MS:.0f} ms on the median{'; --strict: on every run' if args.strict else ''})"
    )
    for failure in failures:
        print(f"page error: {failure}", file=sys.stderr)
    over = worst_max if args.strict else worst_median
    return 1 if failures or over >= BUDGET_MS else 0


if __name__ == "__main__":
    sys.exit(main())
