"""User-command cases of benchmarks/faults.py, part 3: hostile input -- a hard link as an
output, a zip bomb and a damaged zip, a deeply nested, a huge and a key-written-twice record,
an unreadable file, what killed runs left, an export's empty manifest, a damaged and an
immutable warehouse. Each case checks that the published warehouse keeps its bytes (or, for a
build, publishes the rest), that no user file changes, and that the command says what happened
in one line."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from fault_command_files import rejected_lines
from fault_commands import (
    build,
    cli,
    files_of,
    lost_files,
    rows_of,
    settle,
    user_data,
)
from fault_harness import fresh_site, readable, sha256

_PR_CAPBSET_DROP, _CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 24, 1, 2


def _error_line(result: subprocess.CompletedProcess[str]) -> str:
    line = next((ln for ln in result.stderr.splitlines() if ln.startswith("error:")), "")
    return f"`{line[:150]}`" if line else ""


def _published_build(row, result, warehouse: Path, n_before: int, rejected: int) -> None:
    """A build given one bad record and --allow-rejects: exit 0, published, that record
    rejected, the rest of the conversations still there."""
    n_after = rows_of(warehouse)
    settle(
        row,
        result,
        unchanged=None,
        lost=max(0, n_before - n_after),
        ok=result.returncode == 0 and rejected == 1 and readable(warehouse),
    )
    row.note = f"{rejected} reject(s); conversations {n_before} -> {n_after}"


def _without_permission_override() -> None:  # a child's preexec: root without DAC override
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _damage_a_block(path: Path) -> None:
    """Flip 64 bytes inside a data block in the middle, keeping size and modification time."""
    st = path.stat()
    block = 256 * 1024
    at = 3 * 4096 + (st.st_size // block // 2) * block + 100
    with open(path, "r+b") as fh:
        fh.seek(at)
        old = fh.read(64)
        fh.seek(at)
        fh.write(bytes(b ^ 0xFF for b in old))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def hostile_cases(case, baseline: Path, original: Path, data_dir: tuple[str, ...]) -> None:
    """Cases of hostile input and leftovers."""

    @case("links", "sql --parquet OUT, OUT a hard link to a data-folder file", "2, file kept")
    def _(row, trial):
        data = user_data(trial, original)
        victim = next(p for p in sorted(data.rglob("*.jsonl")) if p.stat().st_size)
        out = trial / "out.parquet"
        os.link(victim, out)
        before = files_of(data)
        warehouse = fresh_site(trial, baseline)
        digest = sha256(warehouse)
        result = cli("sql", "select 1 as a", "--parquet", str(out), "--warehouse",
                     str(warehouse), "--data-dir", str(data), cwd=trial)  # fmt: skip
        settle(row, result, unchanged=sha256(warehouse) == digest,
               lost=lost_files(before, files_of(data)), ok=result.returncode == 2)  # fmt: skip
        row.note = _error_line(result)

    @case("bomb", "fetch --from-zip, 64 MiB of zeros in a 64 kB zip, onto a 32 MiB disk", "1")
    def _(row, trial):
        bomb = trial / "bomb.zip"
        with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
            with zf.open("C/Dialogs.json", "w", force_zip64=True) as member:
                for _ in range(64):
                    member.write(b"\0" * (1 << 20))
            zf.writestr("C/data/SearchBehaviors.json", b"[]")
        data = trial / "data"
        data.mkdir()
        small = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(data)],
                               check=False, capture_output=True).returncode == 0  # fmt: skip
        try:
            result = cli("fetch", "convsearch", "--from-zip", str(bomb), "--data-dir", str(data),
                         cwd=trial)  # fmt: skip
        finally:
            if small:
                subprocess.run(["umount", str(data)], check=True)
        full = "no space left" in result.stderr.lower()
        settle(row, result, unchanged=True, lost=0, ok=result.returncode == 1 and not full)
        disk = "a 32 MiB tmpfs" if small else "the trial folder (no tmpfs: not root)"
        row.note = f"data folder on {disk}; filled it: {full}; {_error_line(result)}"

    @case("bomb", "fetch convsearch --from-zip, one flipped byte of deflated data", "1, nothing")
    def _(row, trial):
        good = trial / "good.zip"
        with zipfile.ZipFile(good, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("C/Dialogs.json", b'[{"id": 1, "turns": []}]' * 500)
            zf.writestr("C/data/SearchBehaviors.json", b"[]")
        raw = bytearray(good.read_bytes())
        with zipfile.ZipFile(good) as zf:
            info = zf.getinfo("C/Dialogs.json")
        raw[info.header_offset + 30 + len(info.filename) + info.compress_size // 2] ^= 0xFF
        bad = trial / "damaged.zip"
        bad.write_bytes(bytes(raw))
        result = cli("fetch", "convsearch", "--from-zip", str(bad), "--data-dir",
                     str(trial / "data"), cwd=trial)  # fmt: skip
        settle(row, result, unchanged=True, lost=0, ok=result.returncode == 1)
        row.note = _error_line(result)

    def one_bad_record(row, trial, corpus_file: str, content: bytes) -> None:
        data = user_data(trial, original)
        path = data / corpus_file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        warehouse = fresh_site(trial, baseline)
        n = rows_of(warehouse)
        result = build(trial, warehouse, data, "--allow-rejects")
        rejected = rejected_lines(warehouse, Path(corpus_file).name)
        _published_build(row, result, warehouse, n, rejected)

    @case("deep", "a RecLLMSim .json nested 10,000 deep, build --allow-rejects", "0, 1 reject")
    def _(row, trial):
        deep = b'{"history": [], "x": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"
        one_bad_record(row, trial, "recllmsim/LLM_agent_user/deep/1.json", deep)

    @case("huge", "a 20 MB RecoReact line, build --allow-rejects", "0, 1 reject")
    def _(row, trial):
        huge = b'{"pid": "huge", "title": "' + b"x" * (20 << 20) + b'"}\n'
        one_bad_record(row, trial, "recoreact/huge-products.jsonl", huge)

    @case("dupkey", 'a RecoReact line with "rating1" twice, build --allow-rejects', "0, 1 reject")
    def _(row, trial):
        line = b'{"pid": "twice", "rating1": 1, "rating1": 7}\n'
        one_bad_record(row, trial, "recoreact/twice-products.jsonl", line)

    @case("unreadable", "ingest with one file of mode 000 (root without DAC override)", "0")
    def _(row, trial):
        data = user_data(trial, original)
        secret = next(p for p in sorted(data.rglob("*.jsonl")) if p.stat().st_size)
        secret.chmod(0)
        warehouse = fresh_site(trial, baseline)
        digest = sha256(warehouse)
        result = subprocess.run(
            [sys.executable, "-m", "csrwh.cli", "ingest", "--warehouse", str(warehouse),
             "--data-dir", str(data)],
            check=False, capture_output=True, text=True, cwd=trial, timeout=900,
            env={**os.environ, "DO_NOT_TRACK": "1", "COLUMNS": "200"},
            preexec_fn=_without_permission_override if os.geteuid() == 0 else None,
        )  # fmt: skip
        secret.chmod(0o644)
        landed = warehouse.with_name(warehouse.name + ".ingested")
        named = rejected_lines(landed, secret.name) if landed.exists() else 0
        settle(row, result, unchanged=sha256(warehouse) == digest, lost=0,
               ok=result.returncode == 0 and named == 1)  # fmt: skip
        row.note = f"{named} reject naming {secret.name}; {_error_line(result)}"

    @case("leftovers", "build beside a dead build's Data Docs and a dead ingest's copy", "0")
    def _(row, trial):
        warehouse = fresh_site(trial, baseline)
        docs = warehouse.with_name(f"{warehouse.name}.building-20200101T000000-dead.data_docs")
        (docs / "static").mkdir(parents=True)
        child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                               check=True, capture_output=True, text=True)  # fmt: skip
        copy = warehouse.with_name(f"{warehouse.name}.ingesting-{int(child.stdout)}-abc123")
        shutil.copy2(warehouse, copy)
        n = rows_of(warehouse)
        result = cli("build", "--warehouse", str(warehouse), *data_dir, cwd=trial)
        gone = not docs.exists() and not copy.exists()
        said = "did not finish left" in result.stdout + result.stderr
        settle(row, result, unchanged=None, lost=n - rows_of(warehouse),
               ok=result.returncode == 0 and gone and said)  # fmt: skip
        row.note = f"removed: {gone}; one line: {said}"

    @case("export", "export again after an empty manifest (a full disk stopped the last)", "0")
    def _(row, trial):
        warehouse = fresh_site(trial, baseline)
        out = trial / "exp"
        first = cli("export", "--out", str(out), "--warehouse", str(warehouse), cwd=trial)
        (out / ".csrwh-export.json").write_bytes(b"")
        result = cli("export", "--out", str(out), "--warehouse", str(warehouse), cwd=trial)
        settle(row, result, unchanged=True, lost=0,
               ok=first.returncode == 0 and result.returncode == 0)  # fmt: skip
        row.note = _error_line(result)

    @case("damaged", "one block of the published file flipped: build --verify", "1, one line")
    def _(row, trial):
        warehouse = fresh_site(trial, baseline)
        _damage_a_block(warehouse)
        digest = sha256(warehouse)
        result = cli("build", "--verify", "--warehouse", str(warehouse), *data_dir, cwd=trial)
        plain = cli("build", "--warehouse", str(warehouse), *data_dir, cwd=trial)
        text = result.stderr + result.stdout
        named = "is damaged" in text and "--full-refresh" in text
        settle(row, result, unchanged=sha256(warehouse) == digest, lost=0,
               ok=result.returncode == 1 and named)  # fmt: skip
        said = (plain.stdout + plain.stderr).lower()
        row.note = (
            f"{_error_line(result)}; a plain build then: exit {plain.returncode} "
            f"({'up to date' if 'up to date' in said else 'not up to date'})"
        )

    @case("immutable", "build onto a published file marked chattr +i", "1 before any work")
    def _(row, trial):
        warehouse = fresh_site(trial, baseline)
        marked = subprocess.run(["chattr", "+i", str(warehouse)], check=False, capture_output=True)
        if marked.returncode:
            row.note = "skipped: chattr +i not possible here"
            row.ok = True
            return
        try:
            data = user_data(trial, original)
            extra = data / "recoreact" / "extra-products.jsonl"
            extra.write_text('{"pid": "new"}\n')  # a change: not up to date
            result = build(trial, warehouse, data)
        finally:
            subprocess.run(["chattr", "-i", str(warehouse)], check=True)
        text = result.stderr + result.stdout
        early = "phase ingest" not in text and "immutable" in text
        settle(row, result, unchanged=True, lost=0, ok=result.returncode == 1 and early)
        row.note = _error_line(result)
