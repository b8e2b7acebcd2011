"""`csrwh build`: ingest + dbt build (+ expectations) into a private working copy, then publish.

The published warehouse is never written in place: a build works on a copy, and only a finished,
gated build replaces it, by one atomic rename. Unchanged inputs stop the build before any copy; a
changed input rebuilds only what it feeds. Everything callers and tests use is importable from
``csrwh.building`` itself.
Details: docs/internals.md#csrwh-building
"""

from __future__ import annotations

import importlib

# name -> the submodule that defines it, imported on first use (PEP 562): importing
# csrwh.building (e.g. for csrwh.building.allocator, which must run before Arrow is imported)
# stays light, and `from csrwh.building import build` still works.
_EXPORTS = {
    "KEEP_DBT_LOGS": "display",
    "_Display": "display",
    "console": "display",
    "dbt_log_path": "display",
    "_published_fingerprint": "fingerprint",
    "_record_build": "fingerprint",
    "project_fingerprint": "fingerprint",
    "IngestResult": "ingest_only",
    "ingest_only": "ingest_only",
    "_Build": "job",
    "_ensure_folder": "paths",
    "_remove_db": "paths",
    "_sql_str": "paths",
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
    "_drop_names": "run",
    "build": "run",
    "_Selection": "selection",
    "_carry_over": "selection",
    "_saved_state": "selection",
    "_state_compat": "selection",
    "PAUSE_AT_ENV": "signals",
    "PAUSE_FILE_ENV": "signals",
    "_SignalGuard": "signals",
    "_disk_full": "signals",
    "_interrupted": "signals",
    "_pause": "signals",
    "_quiet_dbt_interrupt": "signals",
    "pausing_after": "signals",
    "_State": "state",
    "_Volume": "state",
    "_digest_rows": "state",
    "_ingest_files": "state",
    "_inputs_digest": "state",
    "_read_state": "state",
    "_record_volumes": "state",
    "_rows": "state",
    "_volume_tables": "state",
    "_volumes": "state",
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
