"""User-facing errors: one clear line plus a hint, never a traceback."""

from __future__ import annotations


class CsrwhError(Exception):
    """An error the CLI reports as one line with a hint on how to fix it."""

    def __init__(self, message: str, hint: str | None = None, exit_code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.exit_code = exit_code

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message if not self.hint else f"{self.message} (hint: {self.hint})"


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


#: what DuckDB's out-of-memory errors say (the exception's text; dbt and GX pass it on as text)
_OUT_OF_MEMORY = ("Out of Memory Error", "OutOfMemoryException")


def is_out_of_memory(message: str) -> bool:
    """Whether an error's text is DuckDB running out of its ``memory_limit``."""
    return any(marker in message for marker in _OUT_OF_MEMORY)


def out_of_memory_line(
    phase: str, where: str, message: str, memory_limit: str | None = None
) -> str:
    """One line for DuckDB running out of memory in a phase of a build (ingest, dbt, gate): what
    ran out, where, how much DuckDB held, and the two settings a user can change. DuckDB's own
    hint names ``SET`` commands that a build's user cannot apply. ``memory_limit`` is the limit
    that phase's connections had (default: the build's)."""
    import re

    from csrwh.config import MEMORY_LIMIT_ENV, THREADS_ENV, memory_limit_mb, threads

    try:
        limit_mb, n_threads = memory_limit_mb(), threads()
    except CsrwhError:  # a bad setting is reported on its own
        limit_mb, n_threads = 0, 0
    used = re.search(r"\(([\d.]+ \w+)/([\d.]+ \w+) used\)", message)
    held = f"DuckDB held {used.group(1)} of {used.group(2)}" if used else "DuckDB hit its limit"
    limit = memory_limit or f"{limit_mb} MiB"
    bigger = f"{max(2, -(-2 * limit_mb // 1024))}GiB" if limit_mb else "2GiB"
    return (
        f"out of memory in the {phase} phase, {where}: {held} (memory_limit {limit}, "
        f"{n_threads or '?'} thread(s)); raise {MEMORY_LIMIT_ENV} (e.g. {MEMORY_LIMIT_ENV}={bigger}) "
        f"or lower {THREADS_ENV} (e.g. {THREADS_ENV}=1) and run the build again"
    )
