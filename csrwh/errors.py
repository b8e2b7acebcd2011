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
