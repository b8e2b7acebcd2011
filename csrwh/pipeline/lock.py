"""One build at a time per warehouse: an exclusive lock file beside the published file.

``<warehouse>.lock`` holds who builds (pid, host, start time, build id, working file) and is
held with ``flock`` for the life of the build. The kernel drops an ``flock`` when its process
dies, however it dies (``kill -9`` included), so a lock file left behind by a dead build is
free to take: the next build takes it over and says whose it was. A second build of a live
one fails at once naming the running build (exit 75), or with ``wait=True`` (``--wait``)
waits for it with a message.

Releasing unlinks the file while still holding the lock; a waiter that then obtains the lock
on the unlinked file notices (its inode is no longer the one at the path) and tries again.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from csrwh.errors import CsrwhError

#: exit status of a build refused because another build of the same warehouse is running
EXIT_BUSY = 75


def lock_path(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + ".lock")


@dataclass
class LockInfo:
    """Who holds (or held) the lock."""

    pid: int
    host: str
    started_at: str  # ISO 8601, local time with offset
    build_id: str
    working: str = ""
    command: str = ""

    def describe(self) -> str:
        return f"build {self.build_id} (pid {self.pid} on {self.host}, started {self.started_at})"

    @classmethod
    def parse(cls, text: str) -> LockInfo | None:
        try:
            data = json.loads(text)
            return cls(
                pid=int(data["pid"]),
                host=str(data["host"]),
                started_at=str(data["started_at"]),
                build_id=str(data["build_id"]),
                working=str(data.get("working") or ""),
                command=str(data.get("command") or ""),
            )
        except (ValueError, KeyError, TypeError):
            return None


def read_lock(warehouse: Path) -> LockInfo | None:
    """What the lock file says (None when there is none or it is unreadable)."""
    try:
        return LockInfo.parse(lock_path(warehouse).read_text("utf-8"))
    except OSError:
        return None


def not_writable_error(folder: Path, exc: OSError | None = None) -> CsrwhError:
    why = (
        "read-only file system" if exc is not None and exc.errno == errno.EROFS else "not writable"
    )
    return CsrwhError(
        f"cannot write in the warehouse folder {folder} ({why})",
        hint="point --warehouse (or CSRWH_WAREHOUSE) at a writable place, or make the folder writable",
    )


def link_error(path: Path) -> CsrwhError:
    """A file a build creates is a symbolic link: writing through it would write its target."""
    return CsrwhError(
        f"{path} is a symbolic link; a build never writes through links "
        f"(it creates {path.name} itself)",
        hint=f"remove the link {path} (its target is left alone), or build another --warehouse",
    )


class BuildLock:
    """The exclusive build lock of one warehouse (a context manager once acquired)."""

    def __init__(self, warehouse: Path, build_id: str, working: Path | None = None) -> None:
        self.warehouse = warehouse
        self.path = lock_path(warehouse)
        self.info = LockInfo(
            pid=os.getpid(),
            host=socket.gethostname(),
            started_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            build_id=build_id,
            working=str(working or ""),
            command=" ".join(sys.argv)[:500],
        )
        self._fd: int | None = None

    def acquire(
        self,
        wait: bool = False,
        on_wait: Callable[[LockInfo | None], None] | None = None,
        poll_seconds: float = 0.2,
    ) -> LockInfo | None:
        """Take the lock; returns the info of a dead holder whose lock was taken over (else None).

        Raises :class:`CsrwhError` (exit 75) naming the running build unless ``wait``.
        """
        announced = False
        while True:
            try:
                # O_NOFOLLOW: a symbolic link at the lock's path is refused, never written through
                fd = os.open(
                    self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644
                )
            except OSError as exc:
                if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                    raise not_writable_error(self.path.parent, exc) from None
                if exc.errno == errno.ELOOP or self.path.is_symlink():
                    raise link_error(self.path) from None
                if exc.errno == errno.EISDIR or self.path.is_dir():
                    raise CsrwhError(
                        f"the build's lock {self.path} is a directory, not a lock file; "
                        "not building",
                        hint=f"move that directory away (a build creates {self.path.name} itself)",
                    ) from None
                raise
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = LockInfo.parse(_read_fd(fd))
                os.close(fd)
                if not wait:
                    who = holder.describe() if holder else "another build"
                    raise CsrwhError(
                        f"{self.warehouse} is being built by {who}; not starting a second build",
                        hint="wait for it with --wait"
                        + (f", or stop it with: kill {holder.pid}" if holder else ""),
                        exit_code=EXIT_BUSY,
                    ) from None
                if not announced and on_wait is not None:
                    on_wait(holder)
                announced = True
                time.sleep(poll_seconds)
                continue
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # the holder released (unlinked) it while we waited: try again
                os.close(fd)
                continue
            previous = LockInfo.parse(_read_fd(fd))
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(asdict(self.info)) + "\n").encode("utf-8"), 0)
            os.fsync(fd)
            self._fd = fd
            return previous

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        finally:
            os.close(self._fd)
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None


def _read_fd(fd: int) -> str:
    chunks = []
    offset = 0
    while True:
        chunk = os.pread(fd, 65536, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks).decode("utf-8", "replace")
