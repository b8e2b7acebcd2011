"""Where things live: project root, data folder and warehouse file.

Every command takes ``--data-dir`` and ``--warehouse``; when omitted they come from
``CSRWH_DATA_DIR`` / ``CSRWH_WAREHOUSE`` and then from the defaults below.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from ingest.errors import (  # the settings' names live beside the line that names them
    MEMORY_LIMIT_ENV,
    THREADS_ENV,
    CsrwhError,
)
from ingest.limits import record_limits

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = Path("data/raw")
DEFAULT_WAREHOUSE = Path("warehouse/csr.duckdb")
DEMO_DATA_DIR = Path("data/sample")
DEMO_WAREHOUSE = Path("warehouse/demo.duckdb")


def resolve_data_dir(value: str | os.PathLike[str] | None = None) -> Path:
    """The corpora folder: explicit value, else $CSRWH_DATA_DIR, else data/raw."""
    raw = value if value not in (None, "") else os.environ.get("CSRWH_DATA_DIR") or DEFAULT_DATA_DIR
    return Path(raw).expanduser().resolve()


def resolve_warehouse(value: str | os.PathLike[str] | None = None) -> Path:
    """The published warehouse file: explicit value, else $CSRWH_WAREHOUSE, else warehouse/csr.duckdb."""
    raw = (
        value if value not in (None, "") else os.environ.get("CSRWH_WAREHOUSE") or DEFAULT_WAREHOUSE
    )
    return Path(raw).expanduser().resolve()


# --------------------------------------------------------------------------- DuckDB resources

#: the most memory a build lets DuckDB use (``memory_limit``), whatever the machine has. DuckDB
#: spills joins and aggregates beyond it, but not JSON parsing: it keeps every parse of a
#: 2048-row chunk until the chunk is done, per thread. The RecLLMSim and ConvSearch staging
#: models parse each payload once and unnest in the select list, so 1 GiB holds: the sample
#: builds at x300 and x100 and the real corpora pass with it (before the ConvSearch rewrite x300
#: ran out of memory at 1 GiB, in tests of those views, and the cap was 3 GiB).
#: docs/benchmarks-history.md, "Memory of a build".
#:
#: How the default is chosen, and how to change it: this constant is the only knob (ingest, dbt's
#: profile and the gate's read-only connections all read :func:`memory_limit_mb`); it is the
#: lowest cap with which the sample builds at x100 and x300 still pass (``CSRWH_MEMORY_LIMIT=<cap>
#: benchmarks/build.py --sample-scale 100 300 --cold-only``), with a margin. The cap bounds what
#: DuckDB keeps, not what the build holds besides: on the real corpora DuckDB's own memory in
#: dbt (``duckdb_memory()``) stays at 170-290 MB, 523 MB at most; the rest of dbt's process is
#: dbt itself (~300 MB after parse) and the Python marts' heap.
#: ``CSRWH_MEMORY_LIMIT`` overrides the default (and the 40% share) everywhere.
MAX_MEMORY_LIMIT_MB = 1024
#: DuckDB's ``zstd_min_string_length`` in a build: a string column whose strings average at
#: least this many bytes is stored with ZSTD. DuckDB's default, 4096, leaves the turns' texts
#: (hundreds of bytes each) uncompressed in every table that holds them; at 256 the real
#: corpora's warehouse stores 129 MiB instead of 253 (BENCHMARKS.md, "Warehouse file ÷
#: input"). Short strings (ids, roles, labels) keep DuckDB's dictionary and FSST compression.
ZSTD_MIN_STRING_LENGTH = 256
#: share of the machine's RAM a build lets DuckDB use when that is less than the cap
MEMORY_SHARE = 0.40
#: ``CSRWH_THREADS`` may ask for at most this many threads per core the process may use
MAX_THREADS_PER_CORE = 4
_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
}


def _machine_memory_mb() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not Linux/macOS
        return 4096


def _machine_cores() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def memory_limit_mb() -> int:
    """DuckDB's ``memory_limit`` for builds and ingest, in MiB.

    ``$CSRWH_MEMORY_LIMIT`` (``512MB``, ``1.5GB``, ``800`` = MiB) wins; otherwise
    min(1 GiB, 40% of the machine's RAM)."""
    raw = os.environ.get(MEMORY_LIMIT_ENV, "").strip().lower().replace(" ", "")
    if not raw:
        return max(64, min(MAX_MEMORY_LIMIT_MB, int(_machine_memory_mb() * MEMORY_SHARE)))
    number = raw.rstrip("kmgib")
    unit = raw[len(number) :] or "mib"
    try:
        value = float(number) * _UNITS[unit] / 2**20
    except (ValueError, KeyError, OverflowError):
        value = math.nan
    if not math.isfinite(value):  # also nan, inf and 1e400
        raise CsrwhError(
            f"{MEMORY_LIMIT_ENV}={os.environ[MEMORY_LIMIT_ENV]!r} is not a size",
            hint="use e.g. 512MB, 1GB or 800 (MB)",
            exit_code=2,
        ) from None
    machine = _machine_memory_mb()
    if value > machine:
        raise CsrwhError(
            f"{MEMORY_LIMIT_ENV}={os.environ[MEMORY_LIMIT_ENV]!r} is more than this machine's "
            f"memory ({machine:,} MiB)",
            hint="use e.g. 512MB or 1GB, or leave it unset for min(1 GiB, 40% of the memory)",
            exit_code=2,
        )
    if value < 64:
        raise CsrwhError(
            f"{MEMORY_LIMIT_ENV}={os.environ[MEMORY_LIMIT_ENV]!r} is below DuckDB's workable 64 MB",
            hint="use e.g. 512MB or 1GB",
            exit_code=2,
        )
    return int(value)


def threads() -> int:
    """DuckDB's ``threads`` and dbt's threads for builds and ingest: ``$CSRWH_THREADS``, else
    the cores this process may run on."""
    raw = os.environ.get(THREADS_ENV, "").strip()
    cores = _machine_cores()
    if not raw:
        return cores
    if not re.fullmatch(r"[0-9]+", raw) or int(raw) < 1:
        raise CsrwhError(
            f"{THREADS_ENV}={raw!r} is not a positive whole number",
            hint="use e.g. 2, or leave it unset for one per core",
            exit_code=2,
        )
    most = MAX_THREADS_PER_CORE * cores
    if int(raw) > most:  # DuckDB starts every thread it is given: 100000 hang the machine
        raise CsrwhError(
            f"{THREADS_ENV}={raw!r} is more than {MAX_THREADS_PER_CORE} threads per core "
            f"({most} here: {cores} core(s))",
            hint=f"use at most {most}, or leave it unset for one per core",
            exit_code=2,
        )
    return int(raw)


def check_env() -> None:
    """Check ``CSRWH_MEMORY_LIMIT``, ``CSRWH_THREADS`` and the record limits
    (:mod:`ingest.limits`) at the start of a command that uses
    them (``build``, even when it turns out up to date, and ``ingest``): a bad value is a
    one-line error before any work."""
    memory_limit_mb()
    threads()
    record_limits()


def duckdb_settings(temp_directory: Path) -> dict[str, str]:
    """The DuckDB settings a build (dbt's profile) and its ingest use: ``memory_limit``,
    ``threads``, ``temp_directory`` (where DuckDB spills what does not fit) and
    ``zstd_min_string_length`` (:data:`ZSTD_MIN_STRING_LENGTH`)."""
    return {
        "memory_limit": f"{memory_limit_mb()}MiB",
        "threads": str(threads()),
        "temp_directory": str(temp_directory),
        "zstd_min_string_length": str(ZSTD_MIN_STRING_LENGTH),
    }
