"""CSR Warehouse: one embedded DuckDB warehouse for conversational search and recommendation corpora.

``csrwh.connect()`` opens the published warehouse read-only; ``csrwh.load()`` returns one record
per conversation (chat-template ``messages``, annotations, ratings, a deterministic split).
"""

from csrwh.version import __version__

__all__ = ["SPLIT_RATIOS", "__version__", "connect", "load", "split_of"]


def __getattr__(name: str):
    # the API imports duckdb/polars; `import csrwh` (the CLI, dbt's Python models) stays light
    if name in ("connect", "load", "split_of", "SPLIT_RATIOS"):
        from csrwh.reading import api

        return getattr(api, name)
    raise AttributeError(f"module 'csrwh' has no attribute {name!r}")
