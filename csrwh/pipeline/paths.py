"""Where a build keeps its files beside the warehouse, and small file helpers."""

from __future__ import annotations

import errno
import os
import re
import shutil
from pathlib import Path

from csrwh.pipeline.lock import link_error, lock_path, not_writable_error


def building_path(warehouse: Path, build_id: str | None = None) -> Path:
    """The working file of build ``build_id`` (``<warehouse>.building-<id>``)."""
    return warehouse.with_name(warehouse.name + ".building" + (f"-{build_id}" if build_id else ""))


def build_dir(warehouse: Path) -> Path:
    """``<warehouse>.build/``: what builds keep beside the warehouse (package doc, "Rebuilds")."""
    return warehouse.with_name(warehouse.name + ".build")


def dbt_path(warehouse: Path) -> Path:
    """The stable name dbt's profile sees during the dbt phase (a hard link to the working file):
    ``<warehouse>.build/<warehouse name>``. dbt reparses every file when the profile's path
    changes; one name per warehouse keeps its partial parse."""
    return build_dir(warehouse) / warehouse.name


def temp_dir(warehouse: Path) -> Path:
    """DuckDB's ``temp_directory`` (spill files) for builds of ``warehouse``."""
    return build_dir(warehouse) / "tmp"


def state_dir(warehouse: Path) -> Path:
    """The published build's dbt manifest and ``build.json`` (what a selective rebuild compares)."""
    return build_dir(warehouse) / "state"


def failed_path(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + ".failed")


def ingested_path(warehouse: Path) -> Path:
    """Where `csrwh ingest` lands (a scratch copy; never published, never read by a build)."""
    return warehouse.with_name(warehouse.name + ".ingested")


def wal_path(database: Path) -> Path:
    return database.with_name(database.name + ".wal")


def _remove_db(path: Path) -> None:
    for candidate in (path, wal_path(path)):
        try:
            candidate.unlink()
        except FileNotFoundError:
            pass


def _sql_str(path: Path) -> str:
    return str(path).replace("'", "''")


def _ensure_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise not_writable_error(folder, exc) from None
        raise
    if not os.access(folder, os.W_OK | os.X_OK):
        raise not_writable_error(folder)


def refuse_links(warehouse: Path, build_id: str | None = None) -> None:
    """Refuse (one line) when a file or folder a build of ``warehouse`` creates beside it is a
    symbolic link: the build would write its target. The lock is also opened with
    ``O_NOFOLLOW`` (:mod:`csrwh.pipeline.lock`), so a link made after this check is refused too."""
    created = [
        lock_path(warehouse),
        build_dir(warehouse),
        state_dir(warehouse),
        temp_dir(warehouse),
        dbt_path(warehouse),
        wal_path(dbt_path(warehouse)),
        failed_path(warehouse),
        wal_path(failed_path(warehouse)),
        ingested_path(warehouse),
        wal_path(ingested_path(warehouse)),
    ]
    if build_id is not None:
        created += [
            building_path(warehouse, build_id),
            wal_path(building_path(warehouse, build_id)),
        ]
    for path in created:
        if path.is_symlink():
            raise link_error(path)


def _pid_is_running(pid: int) -> bool:
    """Whether process ``pid`` exists (one of another user counts: it cannot be signalled)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(warehouse: Path, keep: Path) -> list[str]:
    """Remove what builds and ``csrwh ingest`` runs that did not finish (killed) left beside
    ``warehouse``, and return the names removed. Called by a build holding the lock, so no
    other build is running: every ``<warehouse>.building*`` file and ``.data_docs`` folder is a
    dead build's, except those of ``keep`` (this build's working file). An
    ``<warehouse>.ingesting-<pid>-<rand>`` copy (and its WAL) is removed only when process
    ``<pid>`` is no longer running. A symbolic link is removed, never followed."""
    removed: list[str] = []
    ingesting = re.compile(re.escape(warehouse.name) + r"\.ingesting-([0-9]+)-[0-9a-f]+(\.wal)?")
    for leftover in sorted(warehouse.parent.glob(warehouse.name + ".*")):
        name = leftover.name
        if name.startswith(keep.name):
            continue
        if name.startswith(warehouse.name + ".building"):
            pass
        elif (found := ingesting.fullmatch(name)) is None or _pid_is_running(int(found[1])):
            continue
        try:
            if leftover.is_dir() and not leftover.is_symlink():
                shutil.rmtree(leftover)
            else:
                leftover.unlink()
        except OSError:
            continue
        if not name.endswith(".wal"):
            removed.append(name)
    return removed
