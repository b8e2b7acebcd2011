"""What ``csrwh fetch`` does on disk: bounded, path-safe zip extraction into a build folder,
the ``.csrwh-manifest.json``, and the swap of a complete build folder into place."""

from __future__ import annotations

import json
import os
import shutil
import uuid
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from rich.console import Console

from csrwh.errors import CsrwhError
from csrwh.fetch.download import CHUNK_BYTES
from csrwh.fetch.parts import hash_file
from csrwh.fetch.sources import Upstream
from csrwh.version import __version__

MANIFEST_NAME = ".csrwh-manifest.json"
MAX_EXTRACT_BYTES = 8 << 30  # bound on what one zip may extract to
#: the most a zip member may expand (its size over its compressed size): JSON and CSV text of
#: the corpora compresses 5-20 times; a zip bomb expands ~1,000 times (deflate's limit)
MAX_COMPRESSION_RATIO = 200
#: members smaller than this are not held to the ratio (tiny repetitive files compress well)
RATIO_FREE_BYTES = 1 << 20
#: room left on the target file system after extracting (the manifest, the swap, other writes)
FREE_SPACE_MARGIN_BYTES = 64 << 20

console = Console(stderr=True)


@dataclass
class Built:
    """What building one corpus folder produced (for its manifest and the summary)."""

    source: dict[str, Any]
    downloads: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    lfs_missing: list[str] = field(default_factory=list)
    parts: list[Path] = field(default_factory=list)  # temp downloads to delete after install
    skipped: int | None = None  # archive files a ``select`` rule left out
    note: str = ""  # one line for the fetch summary


# --------------------------------------------------------------------------- zip extraction


def member_name(info: zipfile.ZipInfo) -> str:
    name = info.filename
    if not info.flag_bits & 0x800:  # names not flagged UTF-8 were decoded as cp437
        try:
            name = name.encode("cp437").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            pass
    return name.replace("\\", "/")


def extract(
    zf: zipfile.ZipFile, dest: Path, select: Callable[[str], str | None], *, strip_top: bool
) -> list[str]:
    """Extract the regular-file members ``select`` maps to a relative path; returns those paths.

    With ``strip_top`` the single top folder shared by every member (GitHub archives:
    ``<repo>-<commit>/``) is removed first.
    """
    infos = [i for i in zf.infolist() if not i.is_dir()]
    names = [member_name(i) for i in infos]
    top = None
    if strip_top and names:
        firsts = {n.lstrip("/").split("/", 1)[0] for n in names}
        if len(firsts) == 1 and all("/" in n.lstrip("/") for n in names):
            top = firsts.pop()
    chosen: list[tuple[zipfile.ZipInfo, tuple[str, ...]]] = []
    for info, name in zip(infos, names):
        if (info.external_attr >> 16) & 0o170000 == 0o120000:  # symlink
            continue
        rel = name.lstrip("/")
        if top is not None:
            rel = rel.split("/", 1)[1]
        target_rel = select(rel)
        if not target_rel:
            continue
        parts = PurePosixPath(target_rel).parts
        if not parts or any(p in ("", ".", "..") for p in parts) or ":" in parts[0]:
            raise CsrwhError(
                f"unsafe path in zip archive: {name!r}",
                hint="the archive is corrupt or not the upstream one",
            )
        chosen.append((info, parts))
    _check_declared_sizes(chosen, dest)
    out: list[str] = []
    written = 0
    for info, parts in chosen:
        target = dest.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        member = 0
        with zf.open(info) as src, open(target, "wb") as dst:
            while chunk := _read(src, info):
                written += len(chunk)
                member += len(chunk)
                if written > MAX_EXTRACT_BYTES:  # headers can lie about sizes
                    raise _too_big(
                        written, f"more than {MAX_EXTRACT_BYTES:,} bytes (MAX_EXTRACT_BYTES)"
                    )
                if member > RATIO_FREE_BYTES and member > MAX_COMPRESSION_RATIO * max(
                    info.compress_size, 1
                ):
                    raise _bomb(info, member)
                dst.write(chunk)
        out.append("/".join(parts))
    return out


def _read(src, info: zipfile.ZipInfo) -> bytes:
    """The next chunk of a member; a damaged member (bad CRC-32, broken deflate data, cut
    short) is one line naming it."""
    try:
        return src.read(CHUNK_BYTES)
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise CsrwhError(
            f"the zip is damaged: member {member_name(info)!r} cannot be read ({exc}); nothing "
            "was changed",
            hint="download the zip again (was the download complete?)",
        ) from None


def _too_big(size: int, why: str) -> CsrwhError:
    return CsrwhError(
        f"the zip would extract to {size:,} bytes, {why}; nothing was changed",
        hint="is it the right archive? the corpora are far smaller",
    )


def _bomb(info: zipfile.ZipInfo, size: int, declared: bool = False) -> CsrwhError:
    reached = f"{size:,} bytes" if declared else f"{size:,}+ bytes (stopped there)"
    return CsrwhError(
        f"zip member {member_name(info)!r} expands from {info.compress_size:,} to {reached}, "
        f"more than {MAX_COMPRESSION_RATIO} times (a zip bomb?); nothing was changed",
        hint="is it the right archive? corpus files compress far less",
    )


def _check_declared_sizes(
    chosen: list[tuple[zipfile.ZipInfo, tuple[str, ...]]], dest: Path
) -> None:
    """Before anything is extracted: the members' declared sizes against MAX_EXTRACT_BYTES, the
    compression-ratio limit and the free space of ``dest``'s file system (less a margin)."""
    total = sum(info.file_size for info, _ in chosen)
    if total > MAX_EXTRACT_BYTES:
        raise _too_big(total, f"more than {MAX_EXTRACT_BYTES:,} bytes (MAX_EXTRACT_BYTES)")
    for info, _ in chosen:
        if info.file_size > max(RATIO_FREE_BYTES, MAX_COMPRESSION_RATIO * info.compress_size):
            raise _bomb(info, info.file_size, declared=True)
    folder = next((p for p in (dest, *dest.parents) if p.exists()), dest)
    free = shutil.disk_usage(folder).free
    if total + FREE_SPACE_MARGIN_BYTES > free:
        raise CsrwhError(
            f"the zip would extract to {total:,} bytes, but the file system of {folder} has "
            f"{free:,} bytes free (less a margin of {FREE_SPACE_MARGIN_BYTES:,}); nothing was "
            "changed",
            hint="free space there, or fetch into another data folder (--data-dir)",
        )


# --------------------------------------------------------------------------- manifest + install


def require_usable_files(
    upstream: Upstream, work: Path, target: Path, from_zip: Path | None, members: str = ""
) -> None:
    """Never install a corpus folder without a usable (non-empty) file: the existing folder
    stays as it is, even with --force."""
    if any(p.is_file() and p.stat().st_size > 0 for p in work.rglob("*")):
        return
    source = str(from_zip) if from_zip is not None else "the download"
    raise CsrwhError(
        f"{upstream.title}: {source} has no usable files (every selected file is empty "
        f"or was left out); {target} is left as it was",
        hint=f"expected {upstream.layout or members or 'the upstream layout'}"
        + ("; is it the right zip?" if from_zip is not None else ""),
    )


def write_manifest(upstream: Upstream, work: Path, built: Built) -> list[dict[str, Any]]:
    files = []
    for path in sorted(p for p in work.rglob("*") if p.is_file()):
        rel = path.relative_to(work).as_posix()
        if rel == MANIFEST_NAME:
            continue
        sha, size = hash_file(path)
        files.append({"path": rel, "sha256": sha, "size": size})
    manifest = {
        "manifest_version": 1,
        "corpus": upstream.corpus,
        "title": upstream.title,
        "fetched_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "csrwh_version": __version__,
        "source": built.source,
        "downloads": built.downloads,
        "warnings": built.warnings,
        "subsets": subsets(files),
        "files": files,
    }
    (work / MANIFEST_NAME).write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return files


def subsets(files: list[dict[str, Any]]) -> dict[str, int]:
    """Files per top-level folder ("." for files at the top), sorted by folder name."""
    counts: dict[str, int] = {}
    for f in files:
        top = f["path"].split("/", 1)[0] if "/" in f["path"] else "."
        counts[top] = counts.get(top, 0) + 1
    return dict(sorted(counts.items()))


def install(work: Path, target: Path, data_dir: Path, corpus: str) -> None:
    """Rename the complete build folder to ``target``; the old folder goes only after that."""
    old: Path | None = None
    if target.exists() or target.is_symlink():
        old = data_dir / f".tmp-{corpus}-old-{uuid.uuid4().hex[:8]}"
        os.replace(target, old)
    try:
        os.replace(work, target)
    except OSError as exc:
        if old is not None:
            os.replace(old, target)
        raise CsrwhError(f"{corpus}: could not move the new files into {target}: {exc}") from None
    if old is not None:
        if old.is_symlink() or old.is_file():
            old.unlink()
        else:
            shutil.rmtree(old, ignore_errors=True)


def recover_interrupted_swap(data_dir: Path, corpus: str, target: Path) -> None:
    """Clean up after a killed run: restore a good folder caught mid-swap, drop build folders."""
    for stale in sorted(data_dir.glob(f".tmp-{corpus}-old-*")):
        if not target.exists() and (stale / MANIFEST_NAME).is_file():
            os.replace(stale, target)
        else:
            shutil.rmtree(stale, ignore_errors=True)
    for pattern in (f".tmp-{corpus}-build-*", f".tmp-{corpus}-check-*"):
        for stale in data_dir.glob(pattern):
            shutil.rmtree(stale, ignore_errors=True)
