"""SIGINT/SIGTERM during a build, the test pause hook, a full disk."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from csrwh.errors import CsrwhError, is_no_space
from csrwh.pipeline.display import console
from csrwh.pipeline.result import PHASES

PAUSE_AT_ENV = "CSRWH_TEST_PAUSE_AT"
PAUSE_FILE_ENV = "CSRWH_TEST_PAUSE_FILE"


class _SignalGuard:
    """SIGINT/SIGTERM become KeyboardInterrupt in the main thread, remembered in ``signum``.

    Libraries that swallow KeyboardInterrupt (GX turns it into a failed expectation; dbt runs
    in a child process, ended by :func:`csrwh.pipeline.dbt_runner.run_dbt`) cannot hide it: the build calls :meth:`check` after every phase. Inside
    :meth:`deferred` (the publish rename, cleanup) a signal is only remembered.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self._defer = 0
        self._old: dict[int, object] = {}

    def __enter__(self) -> Self:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._old[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._old.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        self._old.clear()

    def _handle(self, signum: int, frame: object) -> None:
        first = self.signum is None
        if first:
            self.signum = signum
        if first and not self._defer:
            raise KeyboardInterrupt

    def check(self) -> None:
        if self.signum is not None:
            raise KeyboardInterrupt

    def interrupted(self, exc: BaseException) -> bool:
        """Whether ``exc`` ended the work because of a signal: a KeyboardInterrupt, or any error
        raised after one arrived (DuckDB turns the KeyboardInterrupt raised inside its query
        into its own "Query interrupted" error)."""
        return isinstance(exc, KeyboardInterrupt) or self.signum is not None

    @contextmanager
    def deferred(self) -> Iterator[None]:
        self._defer += 1
        try:
            yield
        finally:
            self._defer -= 1


def _interrupted(
    signum: int | None, phase: str, warehouse: Path, build_id: str, published: bool
) -> CsrwhError:
    signum = signum or signal.SIGINT
    name = signal.Signals(signum).name
    if published:
        message = (
            f"{name} received after build {build_id} was published to {warehouse}; it is complete"
        )
    else:
        message = (
            f"build {build_id} interrupted by {name} during {phase}; its working file was removed "
            f"and {warehouse} was left untouched"
        )
    return CsrwhError(message, hint="run the build again when ready", exit_code=128 + signum)


def _pause(phase: str, warehouse: Path) -> None:
    """Test hook: wait at ``phase`` while $CSRWH_TEST_PAUSE_FILE exists (see the package doc)."""
    if os.environ.get(PAUSE_AT_ENV) != phase:
        return
    marker = Path(os.environ.get(PAUSE_FILE_ENV) or f"{warehouse}.paused")
    marker.write_text(f"{os.getpid()} {phase}\n", encoding="utf-8")
    console.print(f"paused at {phase} until {marker} is removed")
    try:
        deadline = time.monotonic() + 600
        while marker.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        try:
            marker.unlink()
        except FileNotFoundError:
            pass


def pausing_after(phase: str) -> bool:
    """Whether the test hook will pause the build at a phase after ``phase``."""
    at = os.environ.get(PAUSE_AT_ENV)
    return at in PHASES and PHASES.index(at) > PHASES.index(phase)


def _disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return True
    return is_no_space(str(exc))


def free_bytes(folder: Path) -> int | None:
    """The room on ``folder``'s disk now (None when it cannot be read)."""
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def disk_full_error(
    build_id: str, phase: str, warehouse: Path, free_at_start: int | None, cause: str = ""
) -> CsrwhError:
    """The one line of a build that filled its disk: the phase, the folder, the room it had
    when it began (it needs more than that), and ``cause`` (the failing step's line)."""
    room = (
        f"; it needs more than the {_size(free_at_start)} that were free there when it began"
        if free_at_start is not None
        else ""
    )
    return CsrwhError(
        f"build {build_id} ran out of disk space during {phase} in {warehouse.parent}{room}"
        f"{' (' + cause + ')' if cause else ''}; its files were removed and {warehouse} was "
        "left untouched",
        hint="free space there (a build needs room for a copy of the warehouse and DuckDB's "
        "spill) or build elsewhere with --warehouse",
    )


def _size(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.0f} MiB"
