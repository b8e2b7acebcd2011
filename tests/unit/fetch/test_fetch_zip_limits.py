"""`--from-zip` checks the members' declared sizes against a compression-ratio limit and the
target file system's free space before extracting, and stops the moment a limit is passed:
a zip bomb never fills the disk, and the corpus folder stays as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from csrwh.errors import CsrwhError
from csrwh.fetch import fetch
from csrwh.fetch import files as fetch_files

BEHAVIORS = b'[{"id": 7, "query_string": "q"}]'


def _bomb(path: Path, size: int) -> Path:
    """A ConvSearch-shaped zip whose Dialogs.json is ``size`` zero bytes (deflated ~1,000x)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("ConvSearch-v1.1-Main/Dialogs.json", "w", force_zip64=True) as member:
            block = b"\0" * (1 << 20)
            for _ in range(size >> 20):
                member.write(block)
        zf.writestr("ConvSearch-v1.1-Main/data/SearchBehaviors.json", BEHAVIORS)
    return path


def _nothing_extracted(data_dir: Path) -> bool:
    return not (data_dir / "convsearch").exists() and not any(
        p.is_file() and p.stat().st_size > 1 << 20 for p in data_dir.rglob("*")
    )


def test_a_zip_bomb_is_refused_before_anything_is_extracted(tmp_path, data_dir):
    bomb = _bomb(tmp_path / "bomb.zip", 64 << 20)
    assert bomb.stat().st_size < (64 << 20) // fetch_files.MAX_COMPRESSION_RATIO
    with pytest.raises(CsrwhError, match="zip bomb") as err:
        fetch(["convsearch"], data_dir, from_zip=bomb)
    assert "Dialogs.json" in err.value.message and "nothing was changed" in err.value.message
    assert _nothing_extracted(data_dir)


def test_extraction_stops_the_moment_a_member_passes_the_ratio(tmp_path, data_dir, monkeypatch):
    """A member whose header understates its expansion: stopped while it is extracted, at
    the limit, not at the member's end."""
    bomb = _bomb(tmp_path / "bomb.zip", 64 << 20)
    monkeypatch.setattr(fetch_files, "_check_declared_sizes", lambda chosen, dest: None)
    with pytest.raises(CsrwhError, match="zip bomb"):
        fetch(["convsearch"], data_dir, from_zip=bomb)
    assert _nothing_extracted(data_dir)


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None, reason="mounts a tmpfs")
def test_a_zip_larger_than_the_free_space_is_refused_up_front(tmp_path):
    small = tmp_path / "small"
    small.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(small)],
                          check=False, capture_output=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    try:
        data_dir = small / "data"
        big = tmp_path / "big.zip"  # random bytes: not a bomb, only larger than the free space
        with zipfile.ZipFile(big, "w", zipfile.ZIP_STORED) as zf:
            zf.writestr("ConvSearch-v1.1-Main/Dialogs.json", os.urandom(48 << 20))
            zf.writestr("ConvSearch-v1.1-Main/data/SearchBehaviors.json", BEHAVIORS)
        with pytest.raises(CsrwhError, match="bytes free") as err:
            fetch(["convsearch"], data_dir, from_zip=big)
        assert str(small) in err.value.message
        assert shutil.disk_usage(small).used < 1 << 20  # nothing was written
    finally:
        subprocess.run(["umount", str(small)], check=True)


def test_a_damaged_zip_member_is_one_line_naming_it(tmp_path, data_dir):
    good = tmp_path / "good.zip"
    with zipfile.ZipFile(good, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("C/Dialogs.json", b'[{"id": 1, "turns": []}]' * 500)
        zf.writestr("C/data/SearchBehaviors.json", BEHAVIORS)
    data = bytearray(good.read_bytes())
    with zipfile.ZipFile(good) as zf:
        info = zf.getinfo("C/Dialogs.json")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[start + info.compress_size // 2] ^= 0xFF  # one byte of the deflated data flipped
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(bytes(data))
    with pytest.raises(CsrwhError, match="the zip is damaged") as err:
        fetch(["convsearch"], data_dir, from_zip=damaged)
    assert "C/Dialogs.json" in err.value.message and "free space" not in (err.value.hint or "")
    assert "download the zip again" in err.value.hint
    assert not (data_dir / "convsearch").exists()
