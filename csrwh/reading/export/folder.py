"""The export folder: refuse what must not be written into, clear the previous export's files
(its manifest), write the manifest, the input files and the licences."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from csrwh.errors import CsrwhError
from csrwh.reading.export.card import _licence_of, licences_text
from csrwh.reading.export.layout import (
    CARD,
    CONVERSATIONS,
    INPUT_FILES,
    LICENCES,
    MANIFEST,
    MARTS_DIR,
)
from csrwh.reading.export.own_corpus import CORPUS_JSON, OWN_CORPORA_DIR, USERS_JSONL

# ---------------------------------------------------------------------------------------------
# the export folder
# ---------------------------------------------------------------------------------------------


def _check_folder(folder: Path, warehouse: Path, option: str) -> list[str] | None:
    """Refuse a folder an export may not write into: a file, the root folder, the warehouse's
    own folder, or a folder that is neither empty nor an earlier csrwh export. Returns the
    earlier export's files (its manifest), else None. Reads only."""
    what = "TREC folder" if option == "--trec-dir" else "export folder"
    hint = f"choose a new or empty folder with {option}, or remove this one"
    if folder.exists() and not folder.is_dir():
        raise CsrwhError(f"{what} {folder} is a file", hint=f"choose a folder with {option}")
    resolved = folder.resolve()
    if resolved == resolved.parent:
        raise CsrwhError(f"{what} {folder} is the root folder", hint=hint)
    if resolved == warehouse.resolve().parent:
        raise CsrwhError(f"{what} {folder} is the warehouse's folder", hint=hint)
    if not folder.is_dir() or not any(folder.iterdir()):
        return None
    manifest = folder / MANIFEST
    if not manifest.is_file():
        raise CsrwhError(
            f"{what} {folder} is not empty and holds no earlier csrwh export ({MANIFEST})",
            hint=hint,
        )
    _refuse_protected_files(folder, warehouse, option)
    text = manifest.read_text(encoding="utf-8", errors="replace")
    if not text.strip():  # an export stopped while writing it (a full disk)
        return _own_names(folder)
    try:
        files = json.loads(text)["files"]
        if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise CsrwhError(
            f"{manifest}: not a csrwh export manifest (a JSON object with a 'files' list)",
            hint=f"remove the folder, or choose another {option}",
        ) from None
    return files


def _own_names(folder: Path) -> list[str]:
    """The files of ``folder`` at the names an export writes (card, licences, input files,
    conversation records, marts, TREC files, the own-corpus files of a jsonl export): an
    earlier export's, when its manifest is empty because it stopped while writing it."""
    names = {CARD, LICENCES, INPUT_FILES, CONVERSATIONS + ".jsonl", CORPUS_JSON, USERS_JSONL}
    folders = (CONVERSATIONS, MARTS_DIR, "trec", OWN_CORPORA_DIR)
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if (p.is_file() or p.is_symlink())
        and (p.relative_to(folder).as_posix() in names or p.relative_to(folder).parts[0] in folders)
    )


def _refuse_protected_files(folder: Path, warehouse: Path, option: str) -> None:
    """Refuse a folder holding a file that is, by device and inode, a file of the warehouse or
    of the data folder (a hard link): an export writing that name would overwrite it."""
    from csrwh.config import resolve_data_dir
    from csrwh.reading.query import protected_file, protected_inodes

    data_dir = resolve_data_dir(None)
    protected = protected_inodes(warehouse, data_dir)
    for path in folder.rglob("*"):
        same = (
            protected_file(path, warehouse, data_dir, protected) if not path.is_symlink() else None
        )
        if same is not None:
            raise CsrwhError(
                f"{option} {folder}: {path.name} in it is the same file (a hard link) as {same}; "
                "refusing to write there",
                hint=f"remove {path}, or choose another {option}",
            )


def snapshot(folder: Path) -> dict[Path, tuple[int, int, int]]:
    """Every file under ``folder`` with its (inode, size, mtime): what an export found there."""
    found = {}
    for path in folder.rglob("*"):
        if path.is_file():
            st = path.stat()
            found[path] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return found


def _prepare_folder(out: Path, files: list[str] | None) -> None:
    """Create ``out``, or empty it of a previous export's ``files`` (see :func:`_check_folder`)."""
    out.mkdir(parents=True, exist_ok=True)
    if files is None:
        return
    root = out.resolve()
    folders: set[Path] = set()
    for rel in files:
        path = (root / rel).resolve()
        if root not in path.parents:  # a manifest entry never leaves the folder
            continue
        if path.is_file() or path.is_symlink():
            path.unlink()
        folders.update(p for p in path.parents if root in p.parents)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    # the manifest stays until this export's replaces it (:func:`_write_manifest`): an export
    # that stops before then leaves a folder the next one still recognises


def _write_manifest(
    out: Path, before: dict[Path, tuple[int, int, int]], build: dict[str, Any], output_format: str
) -> None:
    """List every file this export wrote (all files now in ``out`` that were not there before,
    or were rewritten: see :func:`snapshot`), so that the next export into ``out`` removes
    exactly them; also after a failed export. Written last, atomically: a temporary file
    renamed over the manifest, so a full disk or a kill leaves the earlier manifest whole."""
    temporary = out / (MANIFEST + ".tmp")
    now = snapshot(out)
    written = sorted(
        _rel(p, out)
        for p, stamp in now.items()
        if before.get(p) != stamp and p.name != MANIFEST and p != temporary
    )
    manifest = {"build_id": build.get("build_id"), "format": output_format, "files": written}
    try:
        with open(temporary, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(manifest, indent=1) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temporary, out / MANIFEST)
    finally:
        temporary.unlink(missing_ok=True)


def _within(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies inside it (both resolved)."""
    path, folder = path.resolve(), folder.resolve()
    return path == folder or folder in path.parents


def _write_input_files(path: Path, input_files: list[dict[str, Any]]) -> None:
    """``input_files.csv``: corpus, source_path, sha256, records of every input file of the
    exported corpora (the card links it rather than listing thousands of digests)."""
    import csv

    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["corpus", "source_path", "sha256", "records"])
        writer.writerows(
            [f["corpus"], f["source_path"], f["file_sha256"], f["n_records"]] for f in input_files
        )


def _write_licences(
    path: Path,
    corpus_rows: list[dict[str, Any]],
    corpora: list[str],
    subset_counts: dict[tuple[str, str], int],
) -> None:
    by_corpus: dict[str, list[dict[str, Any]]] = {c: [] for c in corpora}
    for row in corpus_rows:
        by_corpus.setdefault(row["corpus"], []).append(row)
    seeded = {(r["corpus"], r.get("subset")): r for r in corpus_rows}
    upstream = {
        c: sorted({r.get("upstream_url") or "" for r in rows} - {""})
        for c, rows in by_corpus.items()
    }
    path.write_text(
        licences_text(_licence_of(by_corpus, seeded, subset_counts), upstream), encoding="utf-8"
    )


def _rel(path: Path, out: Path) -> str:
    return path.resolve().relative_to(out.resolve()).as_posix()
