"""DuckDB settings of Great Expectations' read-only connections (memory share and threads)."""

from __future__ import annotations

#: DuckDB threads of GX's connections. GX sends its ~440 queries one at a time and most are
#: tiny; the few heavy ones parse whole RecLLMSim conversations (JSON) a vector at a time,
#: and every thread holds its vector's parsed documents. One thread: the gate alone on the
#: real corpora 938 -> 774 MB peak RSS, wall 9.4 -> 8.8 s (one run each).
GX_DUCKDB_THREADS = 1
#: GX's connections get this share of the build's DuckDB ``memory_limit`` (csrwh.config; raised
#: with ``CSRWH_MEMORY_LIMIT``): with one thread, the gate alone on the real corpora peaked at
#: 774 MB RSS with 1 GiB, 676 MB with 512 MiB (8.8 -> 8.0 s), 635 MB with 384 MiB but 12.8 s
#: (one run each). Half of the default 1 GiB is the 512 MiB those runs chose; a
#: fixed cap instead (such as 512 MiB) leaves an own corpus of long lines that dbt built
#: with CSRWH_MEMORY_LIMIT=3GiB failing in the gate, with no setting to raise it.
GX_MEMORY_SHARE = 0.5


def _duckdb_config() -> dict[str, str]:
    """DuckDB's ``memory_limit`` (GX_MEMORY_SHARE of the build's, at least 64 MiB) and
    ``threads`` (GX_DUCKDB_THREADS) for GX's read-only connections."""
    from csrwh.config import memory_limit_mb

    limit = max(64, int(memory_limit_mb() * GX_MEMORY_SHARE))
    return {"memory_limit": f"{limit}MiB", "threads": str(GX_DUCKDB_THREADS)}
