"""The process's C library, when it is glibc: one lookup shared by every layer.

The memory helper that hands freed pages back (``malloc_trim``: text_diversity's engine in
:mod:`csrwh.measures.tokens`) loads it here, below the measures package.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools


@functools.cache
def glibc() -> ctypes.CDLL | None:
    """The process's C library if it is glibc (``malloc_trim``), else None."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.gnu_get_libc_version  # noqa: B018 - only glibc has it
    except (OSError, AttributeError):
        return None
    return libc
