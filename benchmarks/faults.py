"""Fault injection for `csrwh build`: does the published warehouse survive, and does the next build recover?

    .venv/bin/python benchmarks/faults.py [--root DIR] [--trials N] [--only NAME...]

On the generated sample (all five corpora) it publishes a baseline warehouse once, then for each
trial starts from a copy of it and a changed input (one CoSRec conversation less, so the build
goes all the way to publishing) and injects one fault:

* ``kill -9``, ``SIGINT`` and ``SIGTERM`` at each phase — copy, ingest, dbt, gate, publish. copy,
  ingest and publish are reached with the build's test hook (``CSRWH_TEST_PAUSE_AT``: the build
  waits on a file at that phase); dbt and gate by polling the build's output for dbt's first
  ``START`` line and for ``phase gate``, so the signal lands inside dbt / Great Expectations;
* two builds started together on one warehouse (the second fails at once naming the first), and
  the same with ``--wait`` (the second waits, then publishes its own input);
* a disk-full tmpfs holding the warehouse (root only; skipped with the reason otherwise);
* damaged input: ``crs_arena_dial_open.json`` truncated to half, the ``crsarena-dial`` folder renamed.

* ``commands``: what the other commands do to the published warehouse and to the
  user's files — ``sql --csv/--parquet`` onto the warehouse, its WAL, a data-folder file, a
  directory and ``-``; a lock that is a symlink or a directory; ``sample --out`` a folder of real
  corpora and its own output; ``validate``; markup in a value; ``--port 99999``; ``--out`` under
  a file; bad ``CSRWH_MEMORY_LIMIT``/``CSRWH_THREADS``; a
  stale WAL, two stray quotes in ``votes_open.csv``, ``export --trec-dir`` into a user's folder,
  ``report --out`` over a user's ``tables/``, ``fetch --from-zip --force`` with a garbage or
  trivial zip and a mirror serving a 0-byte hub file, bad CoSRec lines after an incremental
  ``build --allow-rejects`` (the rejects summary), ``1e400``/``NaN`` ratings in a custom line and
  a JSON array element missing its ``{``. A second table: case, exit code, published sha256
  unchanged, records lost (conversations rows of the published warehouse lost, plus the user's
  files changed or removed, plus — for the votes, the bad lines and the broken element — records
  neither landed nor rejected).
* hostile input (fault_hostile.py; items ``links``, ``bomb``, ``deep``, ``huge``, ``dupkey``,
  ``unreadable``, ``leftovers``, ``export``, ``damaged``, ``immutable``): a hard link to a data
  file as ``sql --parquet``'s output, a zip bomb and a damaged zip for ``--from-zip``, a record
  nested 10,000 deep, a 20 MB record and a key written twice (built with ``--allow-rejects``), a
  file of mode 000 for ``ingest`` (as root: run without the capabilities that override file
  modes), a dead build's Data Docs and a dead ingest's copy, an export after an empty manifest,
  a flipped block under ``build --verify`` and a published file marked ``chattr +i``.

For each it checks that the published file is intact (the same bytes, or — for the concurrent
builds — a complete build of one input, never a mix, readable by a fresh reader), that the next
plain build recovers (exits 0 and leaves no working or lock file; it publishes the changed input,
or — after damaged input is repaired — is up to date), and that the exit code is the documented
one. Prints one Markdown table.

This file runs the faults and prints the tables; the trial scaffolding is fault_harness.py, the
build faults fault_builds.py, the user-command cases fault_commands.py (against the published
warehouse) and fault_command_files.py (the user's files and input).
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import tempfile
import time
from pathlib import Path

from fault_builds import concurrent_trial, damaged_trial, disk_full_trial, signal_trial
from fault_command_files import file_cases
from fault_commands import PIPE, CommandRow, warehouse_cases
from fault_harness import EXPECTED, PHASES, SIGNALS, Row, Runner, prepare
from fault_hostile import hostile_cases


def command_cases(
    runner: Runner, baseline: Path, original: Path, items: list[str] | None = None
) -> list[CommandRow]:
    rows: list[CommandRow] = []

    def case(item: str, name: str, expected: str):
        def wrap(fn):
            if items and not any(item.startswith(wanted) for wanted in items):
                return fn
            row = CommandRow(item, name, expected)
            rows.append(row)
            trial = runner.trial_dir(f"cmd-{item}-{name}"[:60])
            t0 = time.time()
            try:
                fn(row, trial)
            except Exception as exc:  # noqa: BLE001 - a harness failure is a failed case
                row.note = f"harness: {str(exc)[:120]}"
            print(
                f"  {item} {name}: exit {row.code} published unchanged {row.published_unchanged} "
                f"lost {row.records_lost} ok {row.ok} ({time.time() - t0:.0f}s)",
                flush=True,
            )
            return fn

        return wrap

    data_dir = ("--data-dir", str(original))

    warehouse_cases(case, baseline, original, data_dir)
    file_cases(case, baseline, original, data_dir)
    hostile_cases(case, baseline, original, data_dir)
    return rows


def print_command_table(rows: list[CommandRow]) -> None:
    def yes(value: bool | None) -> str:
        return "n/a (a build)" if value is None else ("yes" if value else "**no**")

    print()
    print(
        "| item | case | expected | exit code | published sha256 unchanged | records lost | as expected | notes |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r.item} | {r.case.replace('|', PIPE)} | {r.expected} | {r.code} | "
            f"{yes(r.published_unchanged)} | {r.records_lost} | {'yes' if r.ok else '**no**'} | "
            f"{r.note} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--root", type=Path, default=None, help="work folder (default: a new temp folder)"
    )
    parser.add_argument("--trials", type=int, default=1, help="trials per fault")
    parser.add_argument(
        "--only",
        nargs="*",
        default=None,
        help="run only these faults: signals, concurrent, disk, damaged, commands",
    )
    parser.add_argument(
        "--items",
        nargs="*",
        default=None,
        help="commands: run only the cases of these items (e.g. 24.1 24.9 links bomb)",
    )
    args = parser.parse_args()
    root = args.root or Path(tempfile.mkdtemp(prefix="csrwh-faults-"))
    root.mkdir(parents=True, exist_ok=True)
    only = set(args.only or ["signals", "concurrent", "disk", "damaged", "commands"])
    runner = Runner(root)
    started = time.time()
    print(f"faults: working in {root}", flush=True)
    original, changed, baseline = prepare(root, runner)
    rows: list[Row] = []

    def run(row: Row, trial) -> None:
        rows.append(row)
        for _ in range(args.trials):
            t0 = time.time()
            try:
                trial(row)
            except Exception as exc:  # noqa: BLE001 - a harness failure is a failed trial
                row.trials += 1
                row.notes.append(f"harness: {exc}")
            print(
                f"  {row.fault} @ {row.phase}: codes {row.codes} intact {row.intact}/{row.trials} "
                f"recovered {row.recovered}/{row.trials} ({time.time() - t0:.0f}s)",
                flush=True,
            )

    if "signals" in only:
        for phase in PHASES:
            for name, signum in SIGNALS.items():
                expected = "killed (-9)" if signum == signal.SIGKILL else str(EXPECTED[signum])
                run(
                    Row(name, phase, expected),
                    lambda row, s=signum, p=phase: signal_trial(
                        runner, row, s, p, baseline, changed
                    ),
                )
    if "concurrent" in only:
        run(
            Row("two builds at once", "all", "0 + 75 (second fails at once)"),
            lambda row: concurrent_trial(runner, row, baseline, original, changed, wait=False),
        )
        run(
            Row("two builds at once, --wait", "all", "0 + 0 (second waits)"),
            lambda row: concurrent_trial(runner, row, baseline, original, changed, wait=True),
        )
    if "disk" in only:
        run(
            Row("disk full (tmpfs)", "any", "1 (one line)"),
            lambda row: disk_full_trial(runner, row, baseline, changed),
        )
    command_rows: list[CommandRow] = []
    if "commands" in only:
        command_rows = command_cases(runner, baseline, original, args.items)
    if "damaged" in only:
        run(
            Row("truncated crs_arena_dial_open.json", "ingest", "3 (--allow-rejects)"),
            lambda row: damaged_trial(runner, row, baseline, original, "truncated"),
        )
        run(
            Row("renamed corpus folder", "ingest", "3 (--drop-corpus)"),
            lambda row: damaged_trial(runner, row, baseline, original, "renamed"),
        )

    print()
    print(
        f"Fault injection, {time.strftime('%Y-%m-%d')}, {platform.node()} ({os.cpu_count()} cores), "
        f"{time.time() - started:.0f} s"
    )
    if rows:
        print()
        print(
            "| fault | phase | trials | published file intact | recovered by the next build | exit code as documented | exit codes | notes |"
        )
        print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r.fault} | {r.phase} | {r.trials} | {r.intact}/{r.trials} | {r.recovered}/{r.trials} | "
            f"{r.as_documented}/{r.trials} (expected {r.expected}) | {', '.join(map(str, r.codes))} | "
            f"{'; '.join(r.notes)} |"
        )

    if command_rows:
        print_command_table(command_rows)


if __name__ == "__main__":
    main()
