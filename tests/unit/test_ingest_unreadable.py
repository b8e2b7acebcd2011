"""A file the ingest may not read is one reject naming it; the other files land.

The read is refused by the kernel, not simulated: the ingest runs in a child process; as root
(who reads any file) the child starts without the capabilities that override file permissions
(CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, dropped from its bounding set before it execs)."""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2

CHILD = """
import json, sys
import duckdb
from pathlib import Path
from ingest import run_ingest
con = duckdb.connect(sys.argv[2])
s = run_ingest(Path(sys.argv[1]), con, progress=False)
print(json.dumps({
    "loaded": s.records_loaded,
    "rejects": con.execute(
        "select source_path, error from raw.rejected_records order by source_path"
    ).fetchall(),
    "products": con.execute("select count(*) from raw.recoreact__products").fetchone()[0],
    "users": con.execute("select count(*) from raw.recoreact__users").fetchone()[0],
}))
"""


def _without_permission_override() -> None:  # runs in the child, before exec
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _ingest_in_child(data: Path, db: Path) -> dict:
    preexec = _without_permission_override if os.geteuid() == 0 else None
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(data), str(db)],
        check=False,
        capture_output=True,
        text=True,
        preexec_fn=preexec,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="file modes as Linux has them")
@pytest.mark.parametrize("known", [False, True], ids=["new-file", "file-seen-before"])
def test_an_unreadable_file_is_one_reject_and_the_others_land(
    tmp_path: Path, write_file, known: bool
) -> None:
    data = tmp_path / "data"
    secret = write_file(data / "recoreact", "x-users.jsonl", '{"uid": "u1"}\n{"uid": "u2"}\n')
    write_file(data / "recoreact", "x-products.jsonl", '{"pid": "p1"}\n{"pid": "p2"}\n')
    db = tmp_path / "wh.duckdb"
    if known:  # landed once: the next run hashes it to see whether it changed
        assert _ingest_in_child(data, db)["users"] == 2
    secret.chmod(0)
    try:
        probe = subprocess.run(
            [sys.executable, "-c", f"open({str(secret)!r}, 'rb')"],
            check=False,
            preexec_fn=_without_permission_override if os.geteuid() == 0 else None,
        )
        assert probe.returncode != 0, "the child can still read a mode-000 file"
        out = _ingest_in_child(data, db)
    finally:
        secret.chmod(0o644)
    assert out["products"] == 2
    assert out["users"] == 0
    assert [r[0] for r in out["rejects"]] == ["x-users.jsonl"]
    assert out["rejects"][0][1] == "cannot read the file: Permission denied"
