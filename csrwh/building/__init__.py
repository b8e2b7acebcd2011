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
changed, on the copy of the published warehouse; then only the suites of the re-ingested raw
tables, the rebuilt models and the changed suite files run, and the published build's results
of the others are copied into ``main.dq_results`` under the new build id. Without a usable
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

from csrwh.building.display import KEEP_DBT_LOGS, _Display, console, dbt_log_path
from csrwh.building.fingerprint import _published_fingerprint, _record_build, project_fingerprint
from csrwh.building.ingest_only import IngestResult, ingest_only
from csrwh.building.job import _Build
from csrwh.building.paths import (
    _ensure_folder,
    _remove_db,
    _sql_str,
    build_dir,
    building_path,
    dbt_path,
    failed_path,
    ingested_path,
    state_dir,
    temp_dir,
    wal_path,
)
from csrwh.building.result import DEFAULT_MAX_SHRINK, EXIT_REFUSED, PHASES, BuildResult, Gate
from csrwh.building.run import _drop_names, build
from csrwh.building.selection import _carry_over, _saved_state, _Selection, _state_compat
from csrwh.building.signals import (
    PAUSE_AT_ENV,
    PAUSE_FILE_ENV,
    _disk_full,
    _interrupted,
    _pause,
    _quiet_dbt_interrupt,
    _SignalGuard,
    pausing_after,
)
from csrwh.building.state import (
    _digest_rows,
    _ingest_files,
    _inputs_digest,
    _read_state,
    _record_volumes,
    _rows,
    _State,
    _Volume,
    _volume_tables,
    _volumes,
    changed_raw_tables,
)
from csrwh.building.uptodate import why_not_up_to_date

__all__ = [
    "DEFAULT_MAX_SHRINK",
    "EXIT_REFUSED",
    "KEEP_DBT_LOGS",
    "PAUSE_AT_ENV",
    "PAUSE_FILE_ENV",
    "PHASES",
    "BuildResult",
    "Gate",
    "IngestResult",
    # internals tests and benchmarks import
    "_Build",
    "_Display",
    "_Selection",
    "_SignalGuard",
    "_State",
    "_Volume",
    "_carry_over",
    "_digest_rows",
    "_disk_full",
    "_drop_names",
    "_ensure_folder",
    "_ingest_files",
    "_inputs_digest",
    "_interrupted",
    "_pause",
    "_published_fingerprint",
    "_quiet_dbt_interrupt",
    "_read_state",
    "_record_build",
    "_record_volumes",
    "_remove_db",
    "_rows",
    "_saved_state",
    "_sql_str",
    "_state_compat",
    "_volume_tables",
    "_volumes",
    "build",
    "build_dir",
    "building_path",
    "changed_raw_tables",
    "console",
    "dbt_log_path",
    "dbt_path",
    "failed_path",
    "ingest_only",
    "ingested_path",
    "pausing_after",
    "project_fingerprint",
    "state_dir",
    "temp_dir",
    "wal_path",
    "why_not_up_to_date",
]
