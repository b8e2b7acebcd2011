"""A disk that fills during a build, made real with a small tmpfs: DuckDB's spill that fills its
disk is reported as a full disk (DuckDB itself calls it out of memory), and a build that fills
its disk fails in one line naming the folder and the room it had, removes its files and leaves
the published warehouse as it was.

Needs root to mount a tmpfs; skipped, saying why, where that is impossible unless CI is set,
where that is a failure."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import duckdb
import pytest
from cli_run import one_error_line, run_cli, sha256

from csrwh.errors import DISK_FULL_LINE
from csrwh.pipeline import dbt_runner

pytestmark = pytest.mark.integration


@pytest.fixture()
def small_disk(tmp_path: Path):
    """A mounted tmpfs (40 MiB until a test resizes it), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    why = None
    if os.geteuid() != 0:
        why = "mounting a tmpfs needs root"
    else:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", str(mount)],
            check=False,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            why = f"mount -t tmpfs failed: {done.stderr.strip()}"
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"{why} (CI is set, so this is an error)")
        pytest.skip(why)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _resize(mount: Path, size: int) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(mount)], check=True)


def test_a_spill_that_fills_its_disk_is_a_line_about_the_disk(small_disk: Path) -> None:
    spill = small_disk / "tmp"
    con = duckdb.connect(
        config={"memory_limit": "32MB", "threads": "1", "temp_directory": str(spill)}
    )
    with pytest.raises(duckdb.OutOfMemoryException) as info:
        con.execute(
            "create temp table t as select md5(i::varchar) || md5((i + 1)::varchar) || i as s "
            "from range(3000000) r(i)"
        )
    con.close()
    node = SimpleNamespace(status="error", message=f"Runtime Error in model m\n  {info.value}")
    line = dbt_runner.failure_line("model.csrwh.m", node, spill)
    assert "\n" not in line
    assert line.startswith(
        f"{DISK_FULL_LINE} in the dbt phase, model.csrwh.m: DuckDB's spill in {spill} reached "
    ), line
    assert "out of memory" not in line and "CSRWH_THREADS" not in line


def test_a_build_that_fills_its_disk_fails_in_one_line_and_leaves_the_warehouse(
    small_disk: Path, sample_warehouse: Path, isolated_dbt_target: Path
) -> None:
    """A full rebuild of the published sample on a disk with room for the copy of the
    warehouse and a little more: the disk fills, the error names the folder and the room, the
    published file is unchanged and nothing of the build is left on the disk."""
    size = sample_warehouse.stat().st_size
    _resize(small_disk, 3 * size)
    warehouse = small_disk / "csr.duckdb"
    shutil.copy2(sample_warehouse, warehouse)
    before = sha256(warehouse)
    _resize(small_disk, int(2.3 * size))
    data = sample_warehouse.parent.parent / "data"
    run = run_cli("build", "--data-dir", str(data), "--warehouse", str(warehouse), "--full")
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr[-2000:]
    line = one_error_line(run)
    assert line.startswith("error: build ") and " ran out of disk space during " in line, line
    assert f" in {small_disk}; it needs more than the " in line, line
    assert "iB that were free there when it began" in line, line
    assert sha256(warehouse) == before
    # nothing of the build is left: no working file, no kept failed build, no spill
    left = [p.relative_to(small_disk).as_posix() for p in small_disk.rglob("*") if p.is_file()]
    assert [p for p in left if p != "csr.duckdb" and "lock" not in p] == [], left
