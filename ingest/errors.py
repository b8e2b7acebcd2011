"""The errors the ingest raises, below both ``ingest`` and ``csrwh`` (which re-exports them
from :mod:`csrwh.errors`): imports point one way, ``csrwh`` -> ``ingest``, never back.

:class:`CsrwhError` is every user-facing error: one clear line plus a hint, never a
traceback. :func:`out_of_memory_line` is the one line for DuckDB running out of its
``memory_limit`` in any phase of a build; it is given the limit and threads in force (the
ingest reads them from its connection, :func:`csrwh.errors.out_of_memory_line` from the
build's settings). DuckDB reports a spill that filled its disk as out of memory too (its
``max_temp_directory_size``, by default the room on the spill folder's disk): that error gets
a line about the disk instead, naming the folder and the size the spill reached."""

from __future__ import annotations

import re

#: the settings a user changes when DuckDB runs out of memory (parsed by csrwh.config)
MEMORY_LIMIT_ENV = "CSRWH_MEMORY_LIMIT"
THREADS_ENV = "CSRWH_THREADS"
#: what DuckDB's out-of-memory errors say (the exception's text; dbt and GX pass it on as text)
_OUT_OF_MEMORY = ("Out of Memory Error", "OutOfMemoryException")
#: what DuckDB's error says when its spill reached ``max_temp_directory_size`` (the disk's room)
_SPILL_FULL = "max_temp_directory_size"
#: how every line about a full disk begins (a build tells them from other failures by it)
DISK_FULL_LINE = "out of disk space"
_NO_SPACE = "No space left on device"
_USED = re.compile(r"\(([\d.]+ \w+)/([\d.]+ \w+) used\)")
_SIZE = re.compile(r"^\s*([\d.]+)\s*([KMGT]i?B)\s*$", re.IGNORECASE)
_MIB = {"k": 2**-10, "m": 1, "g": 2**10, "t": 2**20}


class CsrwhError(Exception):
    """An error the CLI reports as one line with a hint on how to fix it."""

    def __init__(self, message: str, hint: str | None = None, exit_code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.exit_code = exit_code

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message if not self.hint else f"{self.message} (hint: {self.hint})"


def is_out_of_memory(message: str) -> bool:
    """Whether an error's text is DuckDB running out of its ``memory_limit``."""
    return any(marker in message for marker in _OUT_OF_MEMORY)


def is_spill_full(message: str) -> bool:
    """Whether an out-of-memory error's text is DuckDB's spill filling the room on its disk."""
    return _SPILL_FULL in message


def size_mib(text: str) -> int:
    """MiB of a size as DuckDB prints a setting (``64.0 MiB``, ``1.8 GiB``); 0 if not one."""
    found = _SIZE.match(text or "")
    if not found:
        return 0
    return int(float(found.group(1)) * _MIB[found.group(2)[0].lower()])


def out_of_memory_line(
    phase: str,
    where: str,
    message: str,
    limit_mb: int,
    n_threads: int,
    memory_limit: str | None,
    spill_dir: str | None = None,
) -> str:
    """One line for DuckDB running out of memory in a phase of a build (ingest, dbt, gate): what
    ran out, where, how much DuckDB held, and the two settings a user can change. DuckDB's own
    hint names ``SET`` commands that a build's user cannot apply. ``limit_mb``/``n_threads``:
    the limit and threads in force (0: unknown); ``memory_limit``: the limit as shown (default
    ``<limit_mb> MiB``). A spill that filled its disk gets :func:`spill_full_line` (naming
    ``spill_dir``, DuckDB's ``temp_directory``, when known)."""
    if is_spill_full(message):
        return spill_full_line(phase, where, message, spill_dir)
    used = _USED.search(message)
    held = f"DuckDB held {used.group(1)} of {used.group(2)}" if used else "DuckDB hit its limit"
    limit = memory_limit or f"{limit_mb} MiB"
    bigger = f"{max(2, -(-2 * limit_mb // 1024))}GiB" if limit_mb else "2GiB"
    return (
        f"out of memory in the {phase} phase, {where}: {held} (memory_limit {limit}, "
        f"{n_threads or '?'} thread(s)); raise {MEMORY_LIMIT_ENV} (e.g. {MEMORY_LIMIT_ENV}={bigger}) "
        f"or lower {THREADS_ENV} (e.g. {THREADS_ENV}=1) and run the build again"
    )


def spill_full_line(phase: str, where: str, message: str, spill_dir: str | None = None) -> str:
    """One line for DuckDB's spill filling the room on its disk (its ``max_temp_directory_size``
    error): the folder, the size the spill reached, and what to do. The step needs more than
    that size free in the folder."""
    used = _USED.search(message)
    reached = used.group(2) if used else "the room on its disk"
    folder = spill_dir or "DuckDB's spill folder (temp_directory)"
    return (
        f"{DISK_FULL_LINE} in the {phase} phase, {where}: DuckDB's spill in {folder} reached "
        f"{reached}, all the room DuckDB saw on that disk; the step needs more than {reached} "
        f"free there: free space on that disk, build on one with more room (--warehouse), or "
        f"raise {MEMORY_LIMIT_ENV} so that less is spilled"
    )


def is_no_space(message: str) -> bool:
    """Whether an error's text is a write that found its disk full (ENOSPC's text)."""
    return _NO_SPACE in message


def no_space_line(phase: str, where: str, message: str) -> str:
    """One line for a write that found its disk full: the phase, the step, and the first line
    of the error that names the file."""
    said = next((line.strip() for line in message.splitlines() if _NO_SPACE in line), _NO_SPACE)
    return f"{DISK_FULL_LINE} in the {phase} phase, {where}: {said}"
