"""Memory-allocator settings for the build process (``csrwh build``).

A build runs ingest, dbt (DuckDB on two threads, Python models in Arrow and numpy) and the gate
in one process. What stays resident beyond the data in use is mostly allocator caches, not the
data: Arrow's default pool (mimalloc) keeps freed pages of its threads, glibc gives each thread
an arena of its own (freed memory in one is not reused by another) and raises its mmap
threshold after large frees, so later large buffers land in those arenas and stay. Before the
build imports Arrow or starts a thread, :func:`tune_for_build`:

* makes the system allocator Arrow's default pool (``ARROW_DEFAULT_MEMORY_POOL=system``), so
  Arrow's large buffers are mapped and unmapped by glibc like everyone else's;
* limits glibc to ``ARENA_MAX`` arenas (``mallopt(M_ARENA_MAX)``, as ``MALLOC_ARENA_MAX``);
* fixes glibc's mmap threshold at ``MMAP_THRESHOLD_BYTES`` (``mallopt(M_MMAP_THRESHOLD)``, as
  ``MALLOC_MMAP_THRESHOLD_``): blocks of at least that size are mapped and given back on free.

Measured on 2026-11-23 (docs/benchmarks-history.md), cold builds: real corpora peak RSS
994 / 965 MiB with the allocators as they were, 882 / 914 MiB with all three (before the gate's
history check was sliced; after it: 860 / 880 MiB). The threshold is 1 MiB, not glibc's
initial 128 KiB: at sample x100 a 128 KiB threshold cost 10% of the build's wall (117 / 112 s
against 104 s with the allocators as they were; 1 MiB: 105 / 107 s), and leaving it dynamic
let one real-corpora build reach 1,005 MiB. Set ``CSRWH_ALLOCATOR=default``
to leave the allocators as they are; a variable the user set (``ARROW_DEFAULT_MEMORY_POOL``,
``MALLOC_ARENA_MAX``, ``MALLOC_MMAP_THRESHOLD_``) is respected. Only the ``csrwh build``
command calls this, as its first act: ``csrwh.cli`` tunes before its own imports when the command
line runs ``build`` (:func:`tune_if_building`), so an eager import of Arrow anywhere below the CLI
cannot undo it; importing csrwh changes nothing.
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
