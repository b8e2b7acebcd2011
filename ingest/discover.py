"""Finding a corpus' files: walk its folder, match the declared patterns, hash what matched.

Any path component starting with "." is ignored. Symlinks are followed only when their
target lies inside the data folder (others, dangling links and loops are reported as
warnings); FIFOs, sockets and devices are never opened. Files are hashed (sha256) in threads.
"""

from __future__ import annotations

import concurrent.futures as cf
import errno
import hashlib
import logging
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ingest.spec import CorpusSpec, FileSpec

_log = logging.getLogger(__name__)
#: a character that stands for a byte that is not UTF-8 (``surrogateescape``)
SURROGATE = re.compile("[\udc80-\udcff]")


@dataclass
class SourceFile:
    corpus: CorpusSpec
    spec: FileSpec
    path: Path
    rel: str  # POSIX path relative to the corpus folder
    size: int
    modified_at: datetime
    sha256: str | None = None
    #: set when the file cannot land as records (a name that is not valid UTF-8): the
    #: file is one reject with this error; ``rel`` then shows the bad bytes as \\xNN
    name_error: str | None = None


_SPECIAL_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISFIFO, "named pipe (FIFO)"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)


def display(name: str) -> str:
    """A path as valid UTF-8 text: bytes that are not UTF-8 (``surrogateescape`` in ``name``)
    become ``\\xNN`` escapes, e.g. ``caf\\xe9.json``."""
    if not SURROGATE.search(name):
        return name
    return os.fsencode(name).decode("utf-8", "backslashreplace")


NAME_NOT_UTF8 = (
    "file name is not valid UTF-8 (source_path shows the bad bytes as \\xNN escapes): "
    "the file is kept here verbatim; rename it to UTF-8 to land its records"
)


def _within(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or below it (both real, absolute paths)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _link_problem(
    link: str, st: os.stat_result | OSError, bounds: Sequence[str], open_dirs: Sequence[str]
) -> str | None:
    """Why the symlink ``link`` must not be followed (``st``: its target's stat or error)."""
    if isinstance(st, FileNotFoundError):
        return "dangling symlink (target does not exist)"
    if isinstance(st, OSError):
        return "symlink loop" if st.errno == errno.ELOOP else f"unreadable symlink ({st.strerror})"
    target = os.path.realpath(link)
    if not any(_within(target, b) for b in bounds):
        return "symlink points outside the data folder"
    if stat.S_ISDIR(st.st_mode) and any(_within(d, target) for d in open_dirs):
        return "symlink to an ancestor folder (loop)"
    return None


def discover(
    corpus: CorpusSpec,
    root: Path,
    data_dir: Path | None = None,
    warn: Callable[[str], None] | None = None,
) -> tuple[list[SourceFile], list[str]]:
    """Files under ``root`` matching the corpus' declared patterns, and the unmatched ones.

    Any path component starting with "." (``.csrwh-manifest.json``, ``.git/``) is ignored.
    A symlink (file or folder) is followed when its target lies inside ``data_dir`` (default:
    ``root``'s parent, the folder holding every corpus folder) or inside ``root``'s own real
    folder; its files get the path seen through the link. Links pointing elsewhere, dangling
    links, link loops and links to an ancestor folder are not followed; FIFOs, sockets and
    devices are never opened. Each of those is reported as ONE line to ``warn`` (default:
    this module's logger at WARNING level), e.g. ``recllmsim/extra -> /etc: symlink points
    outside the data folder, not followed``. Files are listed in sorted order (a folder's
    files before its sub-folders).
    """
    warn = warn or _log.warning
    bounds = (os.path.realpath(data_dir or root.parent), os.path.realpath(root))
    found: list[SourceFile] = []
    ignored: list[str] = []

    def walk(folder: str, rel_dir: str, open_dirs: tuple[str, ...]) -> None:
        try:
            with os.scandir(folder) as it:
                entries = sorted(
                    (e for e in it if not e.name.startswith(".")), key=lambda e: e.name
                )
        except OSError as exc:
            warn(
                f"{corpus.folder}/{display(rel_dir) or '.'}: cannot list folder ({exc.strerror}), skipped"
            )
            return
        subdirs: list[tuple[str, str]] = []
        for entry in entries:
            rel = f"{rel_dir}{entry.name}"
            shown = f"{corpus.folder}/{display(rel)}"
            try:
                st: os.stat_result | OSError = os.stat(entry.path)  # follows symlinks
            except OSError as exc:
                st = exc
            if entry.is_symlink():
                why = _link_problem(entry.path, st, bounds, open_dirs)
                if why is not None:
                    warn(f"{shown} -> {display(os.readlink(entry.path))}: {why}, not followed")
                    continue
            if isinstance(st, OSError):
                warn(f"{shown}: cannot stat ({st.strerror}), skipped")
            elif stat.S_ISDIR(st.st_mode):
                subdirs.append((entry.path, rel))
            elif stat.S_ISREG(st.st_mode):
                shown_rel = display(rel)
                spec = corpus.spec_for(shown_rel)
                if spec is None:
                    ignored.append(shown_rel)
                    continue
                mtime = datetime.fromtimestamp(st.st_mtime, UTC).replace(tzinfo=None)
                found.append(
                    SourceFile(
                        corpus,
                        spec,
                        Path(entry.path),
                        shown_rel,
                        st.st_size,
                        mtime,
                        name_error=NAME_NOT_UTF8 if shown_rel != rel else None,
                    )
                )
            else:
                kind = next((k for test, k in _SPECIAL_KINDS if test(st.st_mode)), "special file")
                warn(f"{shown}: {kind}, not a regular file, skipped")
        for path, rel in subdirs:
            walk(path, f"{rel}/", (*open_dirs, os.path.realpath(path)))

    walk(str(root), "", (os.path.realpath(root),))
    return found, ignored


def file_sha256(path: Path) -> str:
    """The sha256 ingest records for a file, read in 1 MiB blocks: for thousands of small files
    ~3x faster than ``hashlib.file_digest``, which allocates a fresh 256 KiB buffer per file.
    Also the no-change check's (``csrwh/pipeline/uptodate.py``), so both hash alike."""
    digest = hashlib.sha256()
    with open(path, "rb", buffering=0) as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def hash_files(files: Sequence[SourceFile], workers: int | None = None) -> None:
    """Fill ``sha256`` of every file (hashlib releases the GIL: threads scale); a file that
    cannot be read keeps ``sha256`` None (the ingest rejects it when it reads it)."""
    workers = workers or min(16, (os.cpu_count() or 2) * 2)

    def digest_of(f: SourceFile) -> str | None:
        try:
            return file_sha256(f.path)
        except OSError:
            return None

    with cf.ThreadPoolExecutor(max_workers=workers) as pool:
        for f, digest in zip(files, pool.map(digest_of, files)):
            f.sha256 = digest


__all__ = [
    "NAME_NOT_UTF8",
    "SURROGATE",
    "SourceFile",
    "discover",
    "display",
    "file_sha256",
    "hash_files",
]
