"""`build()`: validate the arguments, take the lock, run the job, turn failures into errors."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from csrwh.errors import DISK_FULL_LINE, CsrwhError
from csrwh.pipeline.display import console
from csrwh.pipeline.job import _Build
from csrwh.pipeline.lock import BuildLock
from csrwh.pipeline.paths import _ensure_folder, refuse_links
from csrwh.pipeline.result import DEFAULT_MAX_SHRINK, BuildResult, Gate
from csrwh.pipeline.signals import _disk_full, _interrupted, _SignalGuard, disk_full_error
from csrwh.pipeline.verify import refuse_immutable


def build(
    data_dir: Path,
    warehouse: Path,
    corpora: list[str] | None = None,
    strict: bool = False,
    gates: list[Gate] | None = None,
    full_refresh: bool = False,
    *,
    allow_rejects: bool = False,
    drop_corpora: list[str] | tuple[str, ...] = (),
    allow_shrink: bool = False,
    max_shrink: float = DEFAULT_MAX_SHRINK,
    wait: bool = False,
    verbose: bool = False,
    full: bool = False,
) -> BuildResult:
    """Build the warehouse from `data_dir` and publish it to `warehouse` if every step passes.

    ``verbose`` shows dbt's per-node lines as they come (package doc, "Output"); ``full`` runs
    every dbt node and every suite instead of only what changed (package doc, "Rebuilds")."""
    build_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    warehouse = Path(warehouse)
    job = _Build(
        build_id,
        Path(data_dir),
        warehouse,
        corpora,
        strict,
        gates or [],
        full_refresh,
        allow_rejects,
        _drop_names(drop_corpora, Path(data_dir)),
        allow_shrink,
        max_shrink,
        verbose,
        full,
    )
    _ensure_folder(warehouse.parent)
    refuse_links(warehouse, build_id)
    refuse_immutable(warehouse)
    with _SignalGuard() as guard:
        job.guard = guard
        lock = BuildLock(warehouse, build_id, job.work)
        try:
            previous = lock.acquire(
                wait=wait,
                on_wait=lambda holder: console.print(
                    f"waiting for {holder.describe() if holder else 'another build'} of {warehouse} to finish…"
                ),
            )
        except KeyboardInterrupt:
            raise _interrupted(guard.signum, "lock", warehouse, build_id, False) from None
        try:
            with job.display:
                job.took_over(previous)
                return job.run()
        except KeyboardInterrupt:
            with guard.deferred():
                job.cleanup()
            raise _interrupted(
                guard.signum, job.phase, warehouse, build_id, job.result.published
            ) from None
        except CsrwhError as exc:
            with guard.deferred():
                job.cleanup()
            if exc.message.startswith(DISK_FULL_LINE):  # the ingest's line
                raise disk_full_error(
                    build_id, job.phase, warehouse, job.free_at_start, exc.message
                ) from exc
            raise
        except BaseException as exc:
            with guard.deferred():
                job.cleanup()
            if guard.interrupted(exc):  # a signal inside a DuckDB query: its own error
                raise _interrupted(
                    guard.signum, job.phase, warehouse, build_id, job.result.published
                ) from None
            if _disk_full(exc):
                said = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
                raise disk_full_error(
                    build_id, job.phase, warehouse, job.free_at_start, said
                ) from exc
            raise
        finally:
            lock.release()


def _drop_names(names: list[str] | tuple[str, ...], data_dir: Path) -> set[str]:
    from ingest import registry

    out = set()
    for spec in registry.specs(names, option="--drop-corpus") if names else ():
        if (data_dir / spec.folder).is_dir():
            raise CsrwhError(
                f"--drop-corpus {spec.name}: its folder {data_dir / spec.folder} is present",
                hint=f"move {spec.folder}/ out of the data folder to drop the corpus, or leave out --drop-corpus",
                exit_code=2,
            )
        out.add(spec.name)
    return out
