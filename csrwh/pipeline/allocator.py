"""Memory-allocator settings for the build process (``csrwh build``).

Before the build imports Arrow or starts a thread, :func:`tune_for_build` puts Arrow on the
system allocator, caps glibc's arenas and fixes its mmap threshold, so freed memory goes back
to the system instead of staying in allocator caches. ``CSRWH_ALLOCATOR=default`` or the user's
own variables leave the allocators as they are.
Details: docs/internals.md#csrwh-pipeline-allocator
"""

from __future__ import annotations

import ctypes
import os
import sys

from csrwh.libc import glibc

ALLOCATOR_ENV = "CSRWH_ALLOCATOR"
ARENA_MAX = 2
MMAP_THRESHOLD_BYTES = 1024 * 1024
# glibc's mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8


def tune_for_build() -> list[str]:
    """Apply the build's allocator settings (module doc); return what was applied."""
    if os.environ.get(ALLOCATOR_ENV, "").strip().lower() in ("default", "off", "0", "no"):
        return []
    applied: list[str] = []
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ and "pyarrow" not in sys.modules:
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
        applied.append("ARROW_DEFAULT_MEMORY_POOL=system")
    mallopt = _mallopt()
    if mallopt is not None:
        if "MALLOC_ARENA_MAX" not in os.environ and mallopt(_M_ARENA_MAX, ARENA_MAX) == 1:
            applied.append(f"M_ARENA_MAX={ARENA_MAX}")
        if (
            "MALLOC_MMAP_THRESHOLD_" not in os.environ
            and mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) == 1
        ):
            applied.append(f"M_MMAP_THRESHOLD={MMAP_THRESHOLD_BYTES}")
    return applied


def tune_if_building(args: list[str]) -> list[str]:
    """:func:`tune_for_build` when ``args`` (the command line less the program) run ``build``:
    the CLI's first act, before its imports, so no import can load Arrow first."""
    command = next((arg for arg in args if not arg.startswith("-")), None)
    return tune_for_build() if command == "build" else []


def _mallopt():  # a ctypes function, or None
    """glibc's ``mallopt``, or None (another C library)."""
    libc = glibc()
    if libc is None:
        return None
    mallopt = libc.mallopt
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return mallopt
