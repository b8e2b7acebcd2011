"""User-command cases of benchmarks/faults.py, part 1: the row of a case, running a
command, and the cases run against a copy of the published warehouse (sql, the lock, sample,
validate, markup, dashboard, export, settings). Those are a table (:class:`Case` rows) driven by
one runner, :func:`run_case`: set up the user's files, run the command on a fresh copy of the
published warehouse, compare the warehouse and the user's files; a case that needs steps of its
own is a row with its own ``run``. Part 2: benchmarks/fault_command_files.py."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fault_harness import TIMEOUT, fresh_site, query, sha256


@dataclass
class CommandRow:
    """One user-command case: what it did to the published warehouse and to the user's data."""

    item: str
    case: str
    expected: str
    code: int | None = None
    published_unchanged: bool | None = None
    records_lost: int | None = None
    ok: bool = False
    note: str = ""


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = TIMEOUT):
    return subprocess.run(
        [sys.executable, "-m", "csrwh.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "DO_NOT_TRACK": "1", "COLUMNS": "200", **(env or {})},
        timeout=timeout,
    )


def one_line(result: subprocess.CompletedProcess[str]) -> bool:
    """No traceback and at most one ``error:`` line (usage errors print click's own lines)."""
    return "Traceback" not in result.stderr and (
        sum(line.startswith("error:") for line in result.stderr.splitlines()) <= 1
    )


def rows_of(warehouse: Path) -> int:
    """Rows of the conversations mart (0 when the file is no longer a readable warehouse)."""
    try:
        return query(warehouse, "select count(*) from conversations")[0][0]
    except Exception:  # noqa: BLE001
        return 0


def files_of(folder: Path) -> dict[str, str]:
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): sha256(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def lost_files(before: dict[str, str], after: dict[str, str]) -> int:
    """User files removed or changed."""
    return sum(after.get(name) != digest for name, digest in before.items())


def settle(
    row: CommandRow,
    result: subprocess.CompletedProcess[str],
    *,
    unchanged: bool | None,
    lost: int,
    ok: bool,
) -> None:
    """Record a case's outcome: its exit code, whether the published file kept its bytes (None:
    a build that may replace it), the records lost; as expected when ``ok`` holds, nothing was
    lost, the published file is not changed and the command printed at most one error line."""
    row.code = result.returncode
    row.published_unchanged = unchanged
    row.records_lost = lost
    row.ok = bool(ok) and not lost and unchanged is not False and one_line(result)


@dataclass(frozen=True)
class Case:
    """One row of a case table: a command run against a copy of the published warehouse, which
    must keep its bytes and rows, exiting with one of ``codes``; ``setup`` (given the trial
    folder) makes the user's files first and returns the folder of them that must be kept (or
    None); ``check`` (given the trial folder) is a further condition afterwards. A case with a
    ``run`` of its own (given the row and the trial folder) runs that instead."""

    item: str
    case: str
    expected: str
    args: Callable[[Path, Path], Sequence[str]] | None = None  # (warehouse, trial) -> arguments
    codes: frozenset[int] = frozenset()
    env: dict[str, str] = field(default_factory=dict)
    setup: Callable[[Path], Path | None] | None = None
    check: Callable[[Path], bool] | None = None
    run: Callable[[CommandRow, Path], None] | None = None


def register(case, table: list[Case], baseline: Path) -> None:
    """Register the cases of ``table``, in its order, with faults.py's ``case``."""
    for spec in table:
        run = spec.run or functools.partial(run_case, spec, baseline=baseline)
        case(spec.item, spec.case, spec.expected)(run)


def run_case(spec: Case, row: CommandRow, trial: Path, baseline: Path) -> None:
    """The runner of the table rows: set up the user's files, run the command against a fresh
    copy of the published warehouse, then compare the warehouse and the user's files."""
    kept = spec.setup(trial) if spec.setup else None
    kept_before = files_of(kept) if kept else {}
    warehouse = fresh_site(trial, baseline)
    before, n = sha256(warehouse), rows_of(warehouse)
    result = cli(*spec.args(warehouse, trial), cwd=trial, env=spec.env)
    settle(
        row,
        result,
        unchanged=sha256(warehouse) == before,
        lost=n - rows_of(warehouse),
        ok=result.returncode in spec.codes,
    )
    if not one_line(result):
        row.note = "not one error line"
    (trial / "stderr.txt").write_text(result.stderr)
    if kept:
        row.records_lost = (row.records_lost or 0) + lost_files(kept_before, files_of(kept))
        row.ok = row.ok and not row.records_lost
    if spec.check:
        row.ok = row.ok and spec.check(trial)


def user_data(trial: Path, original: Path) -> Path:
    """A copy of the corpus folders as the user's data folder of a trial."""
    data = trial / "data"
    shutil.copytree(original, data)
    return data


def build(
    trial: Path, warehouse: Path, data: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    """``csrwh build`` of ``data`` into ``warehouse``."""
    return cli("build", "--warehouse", str(warehouse), "--data-dir", str(data), *extra, cwd=trial)


def _zip(path: Path, members: dict[str, bytes], comment: str | None = None) -> Path:
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        if comment:
            zf.comment = comment.encode()
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _fetch_row(
    row: CommandRow,
    result: subprocess.CompletedProcess[str],
    before: dict[str, str],
    after: dict[str, str],
    data: Path,
    what: str,
) -> None:
    """A refused fetch: exit 1, one line, the corpus folder's files all kept, no temp folder."""
    temps = sorted(p.name for p in data.glob(".tmp-*")) if data.exists() else []
    # fetch never opens a warehouse
    settle(
        row,
        result,
        unchanged=True,
        lost=lost_files(before, after),
        ok=result.returncode == 1 and not temps,
    )
    error = next((ln for ln in result.stderr.splitlines() if ln.startswith("error:")), "")
    error = error.replace(str(data.parent), "…")  # the trial folder: not worth the width
    row.note = "; ".join(
        x for x in (what, f"`{error[:160].replace('|', PIPE)}`" if error else "", *temps) if x
    )


def wal_path_of(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


PIPE = "\\|"  # a literal | inside a Markdown table cell


def warehouse_cases(case, baseline: Path, original: Path, data_dir: tuple[str, ...]) -> None:
    """Cases of commands run against a copy of the published warehouse."""

    def sql_out(*args: str) -> Callable[[Path, Path], Sequence[str]]:
        """``sql`` with ``args``, where ``{w}`` stands for the warehouse's path."""
        return lambda w, trial: (
            "sql",
            *(a.format(w=w) for a in args),
            "--warehouse",
            str(w),
            *data_dir,
        )

    def data_folder_file(w: Path, trial: Path) -> Sequence[str]:
        data = trial / "data"
        target = data / "crsarena-dial/data/votes_open.csv"
        return (
            "sql",
            "select 1",
            "--csv",
            str(target),
            "--warehouse",
            str(w),
            "--data-dir",
            str(data),
        )

    def lock_directory(w: Path, trial: Path) -> Sequence[str]:
        w.with_name(w.name + ".lock").mkdir()
        return ("build", "--warehouse", str(w), *data_dir)

    def lock_symlink(row: CommandRow, trial: Path) -> None:
        victim = trial / "victim.txt"
        victim.write_text("precious\n")
        warehouse = fresh_site(trial, baseline)
        warehouse.with_name(warehouse.name + ".lock").symlink_to(victim)
        before, n = sha256(warehouse), rows_of(warehouse)
        result = cli("build", "--warehouse", str(warehouse), *data_dir, cwd=trial)
        settle(
            row,
            result,
            unchanged=sha256(warehouse) == before,
            lost=(n - rows_of(warehouse)) + (victim.read_text() != "precious\n"),
            ok=result.returncode == 1,
        )

    def sample_over_real_corpora(row: CommandRow, trial: Path) -> None:
        from csrwh.sample import generate

        real = trial / "corpora"
        generate(real, scale=1, seed=5)  # other bytes than sample's default seed writes
        for marker in real.rglob(".csrwh-sample.json"):  # as fetched or copied corpora are
            marker.unlink()
        before = files_of(real)
        result = cli("sample", "--out", str(real), cwd=trial)
        # sample never opens a warehouse
        settle(
            row,
            result,
            unchanged=True,
            lost=lost_files(before, files_of(real)),
            ok=result.returncode == 2,
        )

    def sample_over_its_output(row: CommandRow, trial: Path) -> None:
        out = trial / "sample"
        first = cli("sample", "--out", str(out), cwd=trial)
        result = cli("sample", "--out", str(out), cwd=trial)
        row.code = result.returncode
        row.records_lost = 0
        row.published_unchanged = True
        row.ok = first.returncode == 0 and row.code == 0

    def a_file(trial: Path) -> None:
        (trial / "a_file").write_text("x")

    def command(*args: str) -> Callable[[Path, Path], Sequence[str]]:
        return lambda w, trial: (*args, "--warehouse", str(w), *data_dir)

    refused, failed, done = frozenset({2}), frozenset({1}), frozenset({0})
    table = [
        Case(
            "24.1",
            "sql --parquet <warehouse>",
            "2, refused",
            sql_out("select 1", "--parquet", "{w}"),
            refused,
        ),
        Case(
            "24.1",
            "sql --csv <warehouse>.wal",
            "2, refused",
            sql_out("select 1", "--csv", "{w}.wal"),
            refused,
        ),
        Case(
            "24.1",
            "sql --csv <data folder file>",
            "2, refused",
            data_folder_file,
            refused,
            setup=lambda trial: user_data(trial, original),
        ),
        Case(
            "24.1/24.13",
            "sql --csv <directory>",
            "2, refused",
            lambda w, trial: (
                "sql",
                "select 1",
                "--csv",
                str(w.parent),
                "--warehouse",
                str(w),
                *data_dir,
            ),
            refused,
        ),
        Case(
            "24.1",
            "sql --csv - (standard output)",
            "0, CSV on stdout, no file '-'",
            sql_out("select 1 as x", "--csv", "-"),
            done,
            check=lambda trial: not (trial / "-").exists(),
        ),
        Case(
            "24.7",
            "lock is a symlink to a user file",
            "1, refused; the file untouched",
            run=lock_symlink,
        ),
        Case("24.13", "lock is a directory", "1, one line", lock_directory, failed),
        Case(
            "24.8",
            "sample --out <real corpora>",
            "2, refused; no file overwritten",
            run=sample_over_real_corpora,
        ),
        Case("24.8", "sample --out <its own output> (make demo)", "0", run=sample_over_its_output),
        Case(
            "24.9",
            "validate",
            "0, published file byte-identical",
            command("validate", "--no-docs"),
            done,
        ),
        Case(
            "24.13", "sql \"select '[/x]'\"", "0, prints [/x]", sql_out("select '[/x]' as v"), done
        ),
        Case(
            "24.13",
            "dashboard --port 99999",
            "2, usage error",
            command("dashboard", "--port", "99999"),
            refused,
        ),
        Case(
            "24.13",
            "export --out <under a file>",
            "1, one line",
            lambda w, trial: (
                "export",
                "--out",
                str(trial / "a_file" / "x"),
                "--warehouse",
                str(w),
            ),
            frozenset({1, 2}),
            setup=a_file,
        ),
        *(
            Case(
                "24.13",
                f"CSRWH_MEMORY_LIMIT={value} build (up to date)",
                "2, one line",
                command("build"),
                refused,
                env={"CSRWH_MEMORY_LIMIT": value},
            )
            for value in ("nan", "inf", "1e12")
        ),
        Case(
            "24.13",
            "CSRWH_THREADS=x ingest",
            "2, one line",
            command("ingest"),
            refused,
            env={"CSRWH_THREADS": "x"},
        ),
    ]
    register(case, table, baseline)
