"""`csrwh build`: ingest + dbt build (+ expectations) into a private working copy, then publish.

The published warehouse is never written in place; nothing but a finished, gated build replaces
it, by one atomic rename. A build

1. takes the warehouse's build lock (``<warehouse>.lock``, :mod:`csrwh.building.lock`): a second build
   of the same warehouse fails at once naming the running one (``wait=True`` waits); a lock
   left by a dead build is taken over and its working file removed;
2. stops as *up to date*, before copying anything, when the inputs the published marts were
   built from (every raw file's sha256, recorded in ``main.build_info.inputs_digest``) and the
   project files are unchanged (:mod:`csrwh.building.uptodate`: the published file read-only, the
   data folder discovered and hashed by ingest's rules; dbt and GX are not even imported);
   otherwise copies the published file to its own working file
   ``<warehouse>.building-<build id>`` (so unchanged input files are not re-ingested);
3. ingests into it, and stops as *up to date* after all when the landed files and the project
   are unchanged (the cases the check before the copy leaves to ingest: a stale WAL, discovery
   warnings, ...);
4. refuses to publish (exit 3) input that looks damaged against the published build: rejected
   records the published warehouse did not have — on a first build, any reject —
   (``allow_rejects``), a published corpus whose folder is missing (``drop_corpora``), a raw
   table or mart that shrank by more than ``max_shrink`` (``allow_shrink``; recorded in
   ``main.dq_results``, suite ``volume``);
5. runs ``dbt build`` and the gates (the expectation suites);
6. publishes: renames the working file over the published one. A stale WAL beside the
   published file (left by a writer that died) would make every reader fail on the new file;
   it is moved aside to ``<warehouse>.wal.stale-<build id>`` (its changes are in the working
   copy, folded in at step 2), and a live writer of the published file refuses the build.

A failed or refused build keeps its working file as ``<warehouse>.failed`` (or, when that
cannot be replaced, ``<warehouse>.failed-<build id>``) for inspection; an interrupted one
(SIGINT/SIGTERM at any phase) removes it and exits 130/143. Neither touches the published
file, and neither exits 0.

Rebuilds: a build whose inputs or project changed rebuilds only what changed. It compares the
landed files (``raw.ingest_files``) with the published build's and runs ``dbt build --select
source:<corpus>.<table>+ ...`` for the raw tables whose files changed, plus ``state:modified+``
against the published build's manifest (kept in ``<warehouse>.build/state/``) when the project
changed, on the copy of the published warehouse; then only the changed suite files and the
suites that read a changed table run (a re-ingested raw table, or a rebuilt model whose columns
or rows differ from the published warehouse's: ``csrwh.building.gate.carry``), and the
published build's results of the others are copied into ``main.dq_results`` under the new
build id. Without a usable
saved state (missing, of another build, other csrwh/dbt version, changed dbt_project.yml or
profile) it builds in full and says why in one line; ``full`` (``--full``) asks for that. dbt
sees the working file as ``<warehouse>.build/<warehouse name>`` (a hard link for the dbt phase)
so its profile, and so its partial parse, stay the same between builds; DuckDB gets the
machine's ``memory_limit``/``threads`` and ``<warehouse>.build/tmp`` to spill to, in ingest and
in dbt (:func:`csrwh.config.duckdb_settings`).

Output: by default a build shows one progress bar per phase on a terminal (dbt's bar counts its
nodes from dbt's events) and leaves one line per phase; elsewhere (CI, pipes) it prints one line
per phase (``phase <name> · build <id>``; dbt's line, printed when its first node starts, reads
``START <n> nodes``). dbt's per-node lines go to ``<dbt target>/logs/build-<build id>.log``
(named in the summary), and with ``verbose`` to the console too. Errors, refusals, failed
nodes, warnings and the ingest and expectation summaries always print.

Test hook: with ``CSRWH_TEST_PAUSE_AT=<phase>`` (``lock``, ``copy``, ``ingest``, ``dbt``,
``gate``, ``publish``) the build writes ``CSRWH_TEST_PAUSE_FILE`` (default
``<warehouse>.paused``) when it reaches that phase and waits until the file is removed, so a
test can signal or kill it at a known phase (a build paused at ``ingest`` or later skips the
up-to-date check before the copy, so that it reaches that phase).

One module per job:

* :mod:`~csrwh.building.run` -- :func:`build` (arguments, lock, errors) and
  :mod:`~csrwh.building.job` -- ``_Build``, the phases of one locked build;
* :mod:`~csrwh.building.uptodate` -- the no-change check before any copy or dbt/GX import;
* :mod:`~csrwh.building.state` -- what a warehouse file holds (published state, landed files,
  row volumes) and :mod:`~csrwh.building.checks` -- refusals, a live writer, a stale WAL,
  endings (keep failed, cleanup);
* :mod:`~csrwh.building.selection` -- selective rebuilds: saved dbt state, selection, carry-over;
* :mod:`~csrwh.building.fingerprint` -- the project fingerprint, ``main.build_info``;
* :mod:`~csrwh.building.paths`, :mod:`~csrwh.building.display`, :mod:`~csrwh.building.signals` --
  file names beside the warehouse, progress output, SIGINT/SIGTERM and the pause hook;
* :mod:`~csrwh.building.ingest_only` -- `csrwh ingest` (a scratch copy, never published);
* :mod:`~csrwh.building.result` -- :class:`BuildResult` and the constants callers use.

Everything callers and tests use is importable from ``csrwh.building`` itself.
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
