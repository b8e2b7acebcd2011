"""User-facing errors: one clear line plus a hint, never a traceback.

:class:`CsrwhError` and the out-of-memory line live in :mod:`ingest.errors`, below both
``ingest`` and ``csrwh`` (``ingest`` never imports ``csrwh``); they are re-exported here."""

from __future__ import annotations

from ingest.errors import DISK_FULL_LINE, CsrwhError, is_no_space, is_out_of_memory, no_space_line
from ingest.errors import out_of_memory_line as _out_of_memory_line

__all__ = [
    "DISK_FULL_LINE",
    "CsrwhError",
    "damaged_warehouse_error",
    "ensure_port_free",
    "is_damaged_database",
    "is_no_space",
    "is_out_of_memory",
    "no_space_line",
    "out_of_memory_line",
]

#: what DuckDB says when a database file's bytes are damaged (a bad header, a block whose
#: checksum does not match, a file cut short) -- not when it is locked or missing
_DAMAGED = (
    "not a valid duckdb database file",
    "corrupt database file",
    "does not match stored checksum",
    "could not read enough bytes",
    "failed to load metadata",
)


def is_damaged_database(message: str) -> bool:
    """Whether a DuckDB error's text says the database file itself is damaged."""
    text = message.lower()
    return any(marker in text for marker in _DAMAGED)


def damaged_warehouse_error(warehouse, message: str) -> CsrwhError:
    """The one line for a published warehouse whose file is damaged, and the command that
    rebuilds it from the input files."""
    first = str(message).strip().splitlines()[0] if str(message).strip() else "damaged"
    return CsrwhError(
        f"the warehouse {warehouse} is damaged: {first}",
        hint=f"rebuild it from the input files: csrwh build --full-refresh --warehouse {warehouse}",
    )


def ensure_port_free(port: int, address: str = "127.0.0.1") -> None:
    """Raise a one-line error with a hint when ``address:port`` is taken (the dashboard's port)."""
    import errno
    import socket

    if not 1 <= port <= 65535:
        raise CsrwhError(
            f"port {port} is not a TCP port (1-65535)",
            hint="choose a port between 1 and 65535, e.g. csrwh dashboard --port 8501",
        )
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            probe.bind((address, port))
        except OSError as exc:
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                raise
            why = (
                "already in use (another dashboard or server?)"
                if exc.errno == errno.EADDRINUSE
                else "not allowed"
            )
            raise CsrwhError(
                f"port {port} on {address} is {why}",
                hint=f"stop the other server, or choose another port: csrwh dashboard --port {port + 1}",
            ) from None


def out_of_memory_line(
    phase: str,
    where: str,
    message: str,
    memory_limit: str | None = None,
    spill_dir: str | None = None,
) -> str:
    """:func:`ingest.errors.out_of_memory_line` with the build's settings (``csrwh.config``):
    ``memory_limit`` is the limit that phase's connections had (default: the build's);
    ``spill_dir`` their ``temp_directory``, named when the spill filled its disk."""
    from csrwh.config import memory_limit_mb, threads

    try:
        limit_mb, n_threads = memory_limit_mb(), threads()
    except CsrwhError:  # a bad setting is reported on its own
        limit_mb, n_threads = 0, 0
    return _out_of_memory_line(phase, where, message, limit_mb, n_threads, memory_limit, spill_dir)
