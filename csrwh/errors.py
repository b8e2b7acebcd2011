"""User-facing errors: one clear line plus a hint, never a traceback.

:class:`CsrwhError` and the out-of-memory line live in :mod:`ingest.errors`, below both
``ingest`` and ``csrwh`` (``ingest`` never imports ``csrwh``); they are re-exported here."""

from __future__ import annotations

from ingest.errors import CsrwhError, is_out_of_memory
from ingest.errors import out_of_memory_line as _out_of_memory_line

__all__ = ["CsrwhError", "ensure_port_free", "is_out_of_memory", "out_of_memory_line"]


def ensure_port_free(port: int, address: str = "127.0.0.1") -> None:
    """Raise a one-line error with a hint when ``address:port`` is taken (the dashboard's port)."""
    import errno
    import socket

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
    phase: str, where: str, message: str, memory_limit: str | None = None
) -> str:
    """:func:`ingest.errors.out_of_memory_line` with the build's settings (``csrwh.config``):
    ``memory_limit`` is the limit that phase's connections had (default: the build's)."""
    from csrwh.config import memory_limit_mb, threads

    try:
        limit_mb, n_threads = memory_limit_mb(), threads()
    except CsrwhError:  # a bad setting is reported on its own
        limit_mb, n_threads = 0, 0
    return _out_of_memory_line(phase, where, message, limit_mb, n_threads, memory_limit)
