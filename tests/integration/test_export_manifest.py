"""The export folder's manifest is written last and atomically: a full disk while it is written
leaves the earlier one whole, an empty one (left by an export stopped while writing it) does not
block the next export, and a folder holding a hard link to an input file is refused."""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
from pathlib import Path

import pytest

from csrwh.errors import CsrwhError
from csrwh.reading.export import export
from csrwh.reading.export.layout import MANIFEST

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _listed_and_present(out: Path) -> tuple[list[str], list[str]]:
    listed = json.loads((out / MANIFEST).read_text(encoding="utf-8"))["files"]
    present = sorted(
        p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != MANIFEST
    )
    return listed, present


def test_a_full_disk_at_the_manifest_does_not_block_the_retry(
    sample_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    export(sample_warehouse, out, corpora=["crsarena"])
    real_open = io.open

    def full_disk(file, mode="r", *args, **kwargs):  # the manifest's file opens; nothing fits
        if "w" in mode and Path(os.fsdecode(file)).name.startswith(MANIFEST):
            real_open(file, mode, *args, **kwargs).close()
            raise OSError(errno.ENOSPC, "No space left on device", os.fsdecode(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(io, "open", full_disk)
    monkeypatch.setattr(builtins, "open", full_disk)
    with pytest.raises(OSError, match="No space left"):
        export(sample_warehouse, out, corpora=["crsarena"], output_format="jsonl")
    monkeypatch.undo()
    assert (out / MANIFEST).stat().st_size > 0  # the earlier manifest, whole
    export(sample_warehouse, out, corpora=["crsarena"], output_format="jsonl")  # the retry
    listed, present = _listed_and_present(out)
    assert listed == present and "conversations.jsonl" in listed


def test_an_empty_manifest_does_not_block_the_next_export(
    sample_warehouse: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    export(sample_warehouse, out, corpora=["crsarena"])
    (out / MANIFEST).write_bytes(b"")  # as an export stopped by a full disk left it
    export(sample_warehouse, out, corpora=["crsarena"])
    listed, present = _listed_and_present(out)
    assert listed == present


def test_a_hard_link_to_an_input_file_in_the_export_folder_is_refused(
    sample_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    victim = data / "ratings.jsonl"
    victim.write_bytes(b'{"id": 1}\n' * 7)
    monkeypatch.setenv("CSRWH_DATA_DIR", str(data))
    out = tmp_path / "out"
    export(sample_warehouse, out, corpora=["crsarena"])
    os.link(victim, out / "conversations.jsonl")  # a name a jsonl export writes
    with pytest.raises(CsrwhError, match="hard link"):
        export(sample_warehouse, out, corpora=["crsarena"], output_format="jsonl")
    assert victim.read_bytes() == b'{"id": 1}\n' * 7
