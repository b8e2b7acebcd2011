"""A damaged warehouse file is named as such, with the command that rebuilds it: by `csrwh sql`
(at open or at the damaged block), by `csrwh build` (at its copy) and by `csrwh build --verify`
(every block read against DuckDB's checksums, though size and mtime are unchanged); and a
warehouse file marked immutable is refused before a build does any work."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from csrwh.errors import CsrwhError
from csrwh.pipeline.verify import verify_blocks
from csrwh.reading.query import run_query

BLOCK = 256 * 1024  # DuckDB's block size; blocks follow a 3 x 4 KiB header


def _warehouse(path: Path) -> Path:
    with duckdb.connect(str(path)) as con:
        con.execute(
            "create table main.turns as select range as i, md5(range::varchar) as text "
            "from range(300000)"
        )
        con.execute("create table main.corpus_stats as select 'cosrec' as corpus")
    return path


def _damage_a_block(path: Path) -> None:
    """Flip 64 bytes inside a data block, keeping size and modification time."""
    st = path.stat()
    at = 3 * 4096 + (st.st_size // BLOCK // 2) * BLOCK + 100
    with open(path, "r+b") as fh:
        fh.seek(at)
        old = fh.read(64)
        fh.seek(at)
        fh.write(bytes(b ^ 0xFF for b in old))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, DO_NOT_TRACK="1", COLUMNS="300")
    return subprocess.run([sys.executable, "-m", "csrwh.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False, timeout=600)  # fmt: skip


def test_verify_reads_every_block_and_names_a_damaged_one(tmp_path: Path) -> None:
    wh = _warehouse(tmp_path / "csr.duckdb")
    assert verify_blocks(wh) == 2
    run_query(wh, "select count(*) from corpus_stats")  # an untouched table still reads
    _damage_a_block(wh)
    with pytest.raises(CsrwhError, match="is damaged") as err:
        verify_blocks(wh)
    assert "turns" in err.value.message and "checksum" in err.value.message
    assert "--full-refresh" in err.value.hint


def test_build_verify_says_the_warehouse_is_damaged(tmp_path: Path) -> None:
    wh = _warehouse(tmp_path / "csr.duckdb")
    _damage_a_block(wh)
    before = wh.read_bytes()
    (tmp_path / "data").mkdir()
    done = _cli("build", "--verify", "--warehouse", str(wh), "--data-dir", str(tmp_path / "data"),
                cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    text = done.stdout + done.stderr
    assert "is damaged" in text and "--full-refresh" in text and "Traceback" not in text
    assert wh.read_bytes() == before


def test_sql_names_a_damaged_warehouse_and_the_rebuild(tmp_path: Path) -> None:
    wh = _warehouse(tmp_path / "csr.duckdb")
    _damage_a_block(wh)
    with pytest.raises(CsrwhError, match="is damaged") as err:  # at the damaged block
        run_query(wh, "select * from turns")
    assert "--full-refresh" in err.value.hint
    header = _warehouse(tmp_path / "other.duckdb")
    with open(header, "r+b") as fh:
        fh.write(b"\0" * 4096 * 3)  # the file header
    with pytest.raises(CsrwhError, match="is damaged") as err:  # at open
        run_query(header, "select 1")
    assert "--full-refresh" in err.value.hint and "another build" not in err.value.hint


def test_build_names_a_damaged_published_warehouse_and_the_rebuild(tmp_path: Path) -> None:
    wh = _warehouse(tmp_path / "csr.duckdb")
    with open(wh, "r+b") as fh:
        fh.write(b"\0" * 4096 * 3)
    data = tmp_path / "data" / "recoreact"
    data.mkdir(parents=True)
    (data / "x-products.jsonl").write_text('{"pid": "p1"}\n')
    before = wh.read_bytes()
    done = _cli("build", "--warehouse", str(wh), "--data-dir", str(tmp_path / "data"), cwd=tmp_path)
    text = done.stdout + done.stderr
    assert done.returncode == 1, text
    assert f"the warehouse {wh} is damaged" in text and "--full-refresh" in text, text
    assert wh.read_bytes() == before


@pytest.mark.skipif(shutil.which("chattr") is None, reason="needs chattr")
def test_an_immutable_warehouse_is_refused_before_any_work(tmp_path: Path) -> None:
    wh = _warehouse(tmp_path / "csr.duckdb")
    if subprocess.run(["chattr", "+i", str(wh)], check=False, capture_output=True).returncode:
        pytest.skip("cannot mark a file immutable here (not root, or the file system)")
    try:
        data = tmp_path / "data" / "recoreact"
        data.mkdir(parents=True)
        (data / "x-products.jsonl").write_text('{"pid": "p1"}\n')
        done = _cli("build", "--warehouse", str(wh), "--data-dir", str(tmp_path / "data"),
                    cwd=tmp_path)  # fmt: skip
    finally:
        subprocess.run(["chattr", "-i", str(wh)], check=True)
    text = done.stdout + done.stderr
    assert done.returncode == 1, text
    assert "marked immutable" in text and "chattr -i" in text
    assert "phase ingest" not in text and not list(tmp_path.glob("csr.duckdb.building*"))
