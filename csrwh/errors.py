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
