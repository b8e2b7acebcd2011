"""The build faults of benchmarks/faults.py: signals at each phase, two builds at once, damaged
input and a full disk; each checks the published file and that the next build recovers."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

from fault_harness import (
    EXPECTED,
    TIMEOUT,
    Row,
    Runner,
    fresh_site,
    leftovers,
    query,
    readable,
    recover,
    sha256,
    wait_for,
)


def signal_trial(
    runner: Runner, row: Row, signum: int, phase: str, baseline: Path, changed: Path
) -> None:
    trial = runner.trial_dir(f"{row.fault}-{phase}")
    warehouse = fresh_site(trial, baseline)
    before = sha256(warehouse)
    log = trial / "build.log"
    pause = trial / "pause"
    if phase in ("dbt", "gate"):
        proc = runner.spawn(warehouse, changed, log=log)
        marker = " START " if phase == "dbt" else "phase gate"
        wait_for(
            lambda: marker in log.read_text("utf-8", "replace"), proc, f"the {phase} progress line"
        )
    else:
        proc = runner.spawn(
            warehouse, changed, log=log, CSRWH_TEST_PAUSE_AT=phase, CSRWH_TEST_PAUSE_FILE=str(pause)
        )
        wait_for(pause.exists, proc, f"phase {phase}")
    proc.send_signal(signum)
    code = proc.wait(TIMEOUT)
    text = log.read_text("utf-8", "replace")
    row.trials += 1
    row.codes.append(code)
    one_line = signum == signal.SIGKILL or (
        "Traceback" not in text
        and sum(line.startswith("error:") for line in text.splitlines()) == 1
    )
    if code == EXPECTED[signum] and one_line:
        row.as_documented += 1
    elif not one_line:
        row.notes.append("not one error line")
    if sha256(warehouse) == before and readable(warehouse):
        row.intact += 1
    if recover(runner, warehouse, changed, trial, before, expect_change=True):
        row.recovered += 1


def concurrent_trial(
    runner: Runner, row: Row, baseline: Path, original: Path, changed: Path, wait: bool
) -> None:
    trial = runner.trial_dir(row.fault)
    warehouse = fresh_site(trial, baseline)
    # two different inputs: A drops a CoSRec conversation, B a RecLLMSim one (one file)
    other = trial / "data_b"
    shutil.copytree(original, other)
    max((other / "recllmsim").rglob("*.json")).unlink()
    extra = ("--wait",) if wait else ()
    a = runner.spawn(warehouse, changed, *extra, log=trial / "a.log")
    b = runner.spawn(warehouse, other, *extra, log=trial / "b.log")
    codes = sorted([a.wait(TIMEOUT), b.wait(TIMEOUT)])
    row.trials += 1
    row.codes.extend(codes)
    if codes == ([0, 0] if wait else [0, 75]):
        row.as_documented += 1
    # never a mix: the published build's recorded inputs are exactly its raw files, and its marts
    # are those of one of the two inputs
    winner = None
    if readable(warehouse) and not leftovers(warehouse):
        from csrwh.pipeline.state import _inputs_digest

        def counts(path: Path) -> tuple[int, int]:
            return (
                query(path, "select count(*) from conversations where corpus = 'cosrec'")[0][0],
                query(path, "select count(*) from conversations where corpus = 'recllmsim'")[0][0],
            )

        n_cosrec, n_recllmsim = counts(warehouse)
        base_cosrec, base_recllmsim = counts(baseline)
        if query(warehouse, "select inputs_digest from build_info")[0][0] == _inputs_digest(
            warehouse
        ):
            if (n_cosrec, n_recllmsim) == (base_cosrec - 1, base_recllmsim):
                winner = changed
            elif (n_cosrec, n_recllmsim) == (base_cosrec, base_recllmsim - 1):
                winner = other
    if winner is not None:
        row.intact += 1
        # no wait: rebuilding the published input is up to date; --wait: the other input publishes
        again = winner if not wait else (other if winner is changed else changed)
        if recover(runner, warehouse, again, trial, sha256(warehouse), expect_change=wait):
            row.recovered += 1


def damaged_trial(runner: Runner, row: Row, baseline: Path, original: Path, kind: str) -> None:
    trial = runner.trial_dir(row.fault)
    warehouse = fresh_site(trial, baseline)
    before = sha256(warehouse)
    data = trial / "data"
    shutil.copytree(original, data)
    if kind == "truncated":
        path = data / "crsarena-dial/data/crs_arena_dial_open.json"
        raw = path.read_bytes()
        path.write_bytes(raw[: len(raw) // 2])
    else:
        (data / "crsarena-dial").rename(data / "crsarena-dial-renamed")
    log = trial / "build.log"
    code = runner.build(warehouse, data, log=log)
    row.trials += 1
    row.codes.append(code)
    text = log.read_text("utf-8", "replace")
    flag = "--allow-rejects" if kind == "truncated" else "--drop-corpus"
    if code == 3 and flag in text and "Traceback" not in text:
        row.as_documented += 1
    if sha256(warehouse) == before and readable(warehouse):
        row.intact += 1
    shutil.rmtree(data)
    shutil.copytree(original, data)  # repaired
    if recover(runner, warehouse, data, trial, before, expect_change=False):
        row.recovered += 1


def disk_full_trial(runner: Runner, row: Row, baseline: Path, changed: Path) -> None:
    if os.geteuid() != 0:
        row.notes.append("skipped: needs root to mount a small tmpfs")
        print("  disk full: skipped (needs root to mount a small tmpfs)", flush=True)
        return
    trial = runner.trial_dir(row.fault)
    mount = trial / "tmpfs"
    mount.mkdir()
    size = baseline.stat().st_size * 2 + 4 * 1024 * 1024
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        reason = done.stderr.strip() or "mount failed"
        row.notes.append(f"skipped: {reason}")
        print(f"  disk full: skipped ({reason})", flush=True)
        return
    try:
        warehouse = mount / "csr.duckdb"
        shutil.copy2(baseline, warehouse)
        before = sha256(warehouse)
        log = trial / "build.log"
        code = runner.build(warehouse, changed, log=log)
        text = log.read_text("utf-8", "replace")
        row.trials += 1
        row.codes.append(code)
        errors = [line for line in text.splitlines() if line.startswith("error:")]
        if code not in (0, 130, 143) and len(errors) == 1 and "Traceback" not in text:
            row.as_documented += 1
        if "ran out of disk space during" in text:
            row.notes.append(
                "ENOSPC during " + text.split("ran out of disk space during ", 1)[1].split()[0]
            )
        elif errors:
            row.notes.append(errors[0][:90])
        if sha256(warehouse) == before and readable(warehouse) and not leftovers(warehouse):
            row.intact += 1
        subprocess.run(["mount", "-o", "remount,size=1g", str(mount)], check=True)
        if recover(runner, warehouse, changed, trial, before, expect_change=True):
            row.recovered += 1
    finally:
        subprocess.run(["umount", str(mount)], check=False)
