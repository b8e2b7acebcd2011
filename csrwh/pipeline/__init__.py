"""`csrwh build`: ingest + dbt build (+ expectations) into a private working copy, then publish.

The published warehouse is never written in place: a build works on a copy, and only a finished,
gated build replaces it, by one atomic rename. Unchanged inputs stop the build before any copy; a
changed input rebuilds only what it feeds. This package exports its public names; the modules'
own helpers are imported from the module that defines them.
Details: docs/internals.md#csrwh-pipeline
"""

from __future__ import annotations

import importlib

# name -> the submodule that defines it, imported on first use (PEP 562): importing
# csrwh.pipeline stays light, and `from csrwh.pipeline import build` still works.
_EXPORTS = {
    "KEEP_DBT_LOGS": "display",
    "console": "display",
    "dbt_log_path": "display",
    "project_fingerprint": "fingerprint",
    "IngestResult": "ingest_only",
    "ingest_only": "ingest_only",
    "build_dir": "paths",
    "building_path": "paths",
    "dbt_path": "paths",
    "failed_path": "paths",
    "ingested_path": "paths",
    "state_dir": "paths",
    "temp_dir": "paths",
    "wal_path": "paths",
    "BuildResult": "result",
    "DEFAULT_MAX_SHRINK": "result",
    "EXIT_REFUSED": "result",
    "Gate": "result",
    "PHASES": "result",
    "build": "run",
    "PAUSE_AT_ENV": "signals",
    "PAUSE_FILE_ENV": "signals",
    "pausing_after": "signals",
    "changed_raw_tables": "state",
    "why_not_up_to_date": "uptodate",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
