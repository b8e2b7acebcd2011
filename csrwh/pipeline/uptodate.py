"""The no-change check: is the published warehouse up to date with the data folder and project?

Decided from the published file (read-only) and the data folder alone, before any copy and
before dbt or Great Expectations is imported, by the rules ingest and the build apply after a
copy. Anything it cannot decide is "not known to be up to date" and the build goes on.
:func:`why_not_up_to_date` returns the reason (one line) or None.
Details: docs/internals.md#csrwh-pipeline-uptodate
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from csrwh.errors import CsrwhError
from csrwh.pipeline.fingerprint import project_fingerprint
from csrwh.pipeline.paths import _sql_str, state_dir, wal_path
from csrwh.pipeline.state import _digest_rows

#: threads reading the published file and hashing (hashlib and DuckDB release the GIL)
_WORKERS = min(4, os.cpu_count() or 2)
_LANDED = (
    "select corpus, table_name, source_path, file_sha256, size_bytes from w.raw.ingest_files "
    "order by corpus, table_name, source_path, file_sha256"
)


def why_not_up_to_date(
    data_dir: Path,
    warehouse: Path,
    corpora: list[str] | None = None,
    strict: bool = False,
    console: Console | None = None,
) -> str | None:
    """None when ``warehouse`` is up to date with ``data_dir`` and the project (module doc), else
    why not. When up to date, prints ingest's "corpus … is missing" lines to ``console``."""
    if not warehouse.is_file():
        return f"no published warehouse at {warehouse}"
    differs = published_file_differs(warehouse)
    if differs is not None:
        return differs
    from ingest import registry

    try:
        scope = registry.specs(corpora)
    except CsrwhError as exc:  # an unknown name: the registry's one message
        return exc.message
    data_dir = Path(data_dir).expanduser().resolve()
    if not data_dir.is_dir():
        return f"data folder {data_dir} does not exist"
    present = [c for c in scope if (data_dir / c.folder).is_dir()]
    if not present:
        return f"no corpus found in {data_dir}"

    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        # DuckDB and hashlib release the GIL: read the published file while discovering
        reading = pool.submit(_published, warehouse, [c.name for c in scope], strict)
        from ingest.discover import discover

        warnings: list[str] = []
        found = []
        for corpus in present:
            files, _ = discover(corpus, data_dir / corpus.folder, data_dir, warnings.append)
            found += files
        published = reading.result()
        if isinstance(published, str):
            return published
        fingerprint, inputs_digest, landed = published
        if fingerprint != project_fingerprint():
            return "the project (models, macros, seeds, tests, suites) changed since the published build"
        if inputs_digest != _digest_rows([row[:4] for row in landed]):
            return "the published raw files are not those its marts were built from"
        why = _files_changed(found, warnings, scope, landed, pool)
    if why is not None:
        return why
    if console is not None:  # what ingest prints for a requested corpus without its folder
        for c in scope:
            if c not in present and not c.optional:
                console.print(
                    f"[yellow]corpus {c.name} is missing[/yellow] (no folder "
                    f"{escape(str(data_dir / c.folder))}): {escape(c.absent_hint)}"
                )
    return None


#: the key of ``state/build.json`` holding the published file's size and mtime (ns)
PUBLISHED_KEY = "published_file"


def published_stat(warehouse: Path) -> dict[str, int]:
    """What :func:`published_file_differs` compares: the file's size and mtime (ns)."""
    st = warehouse.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def published_file_differs(warehouse: Path) -> str | None:
    """Why the published file is not as its build published it (one line), or None.

    A WAL beside it (a writer that died; readers fail on it), or a size or modification time
    other than the ones the publishing build recorded (something wrote to it since). A file
    without a record (published by an older csrwh, or copied without its ``.build/`` folder)
    is judged by the WAL alone.
    """
    if wal_path(warehouse).exists():
        return f"{wal_path(warehouse).name} lies beside the published file (a writer that died)"
    try:
        info = json.loads((state_dir(warehouse) / "build.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    recorded = info.get(PUBLISHED_KEY) if isinstance(info, dict) else None
    if not isinstance(recorded, dict):
        return None
    try:
        now = published_stat(warehouse)
    except OSError:
        return None
    if now != recorded:
        return (
            f"{warehouse.name} is not the file build {info.get('build_id')} published "
            f"(size or modification time changed: something wrote to it since)"
        )
    return None


def _files_changed(
    found: list, warnings: list[str], scope: list, landed: list[tuple], pool: ThreadPoolExecutor
) -> str | None:
    """What ingest would land or remove (by ingest's own rules, ``ingest/run.py``), or None."""
    from ingest.discover import file_sha256

    names = {c.name for c in scope}
    manifest = {(c, p): (t, sha, size) for c, t, p, sha, size in landed if c in names}
    if warnings:
        return f"discovery warns: {warnings[0]}"
    for f in found:
        shown = f"{f.corpus.folder}/{f.rel}"
        if f.name_error:
            return f"{shown}: {f.name_error}"
        known = manifest.get((f.corpus.name, f.rel))
        if known is None:
            return f"{shown} is new"
        if (known[0], known[2]) != (f.spec.table, f.size):
            return f"{shown} changed (raw table or size)"
    seen = {(f.corpus.name, f.rel) for f in found}
    gone = sorted(key for key in manifest if key not in seen)
    if gone:
        return f"{gone[0][1]} of corpus {gone[0][0]} is gone"

    def digest_of(path):
        try:
            return file_sha256(path)
        except OSError as exc:  # e.g. no permission: the ingest makes it a reject
            return exc

    for f, digest in zip(found, pool.map(digest_of, [f.path for f in found]), strict=True):
        if isinstance(digest, OSError):
            return f"{f.corpus.folder}/{f.rel} cannot be read ({digest.strerror or digest})"
        if manifest[(f.corpus.name, f.rel)][1] != digest:
            return f"{f.corpus.folder}/{f.rel} changed (sha256)"
    return None


def _published(
    warehouse: Path, scope: list[str], strict: bool
) -> str | tuple[str | None, str | None, list[tuple]]:
    """(fingerprint, inputs digest, landed files) of the published file, or why not readable."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        try:
            con.execute(f"attach '{_sql_str(warehouse)}' as w (read_only)")
        except duckdb.Error as exc:  # e.g. open for writing elsewhere: the build says so
            return f"cannot read {warehouse.name} ({str(exc).splitlines()[0][:160]})"
        columns = {
            (t, c)
            for t, c in con.execute(
                "select table_name, column_name from duckdb_columns() where database_name = 'w' "
                "and ((schema_name = 'main' and table_name = 'build_info') "
                "or (schema_name = 'raw' and table_name in ('ingest_files', 'rejected_records')))"
            ).fetchall()
        }
        if (
            not {
                ("build_info", "project_fingerprint"),
                ("build_info", "inputs_digest"),
                ("ingest_files", "file_sha256"),
            }
            <= columns
        ):
            return "the published warehouse has no build record (main.build_info, raw.ingest_files)"
        info = con.execute(
            "select project_fingerprint, inputs_digest from w.main.build_info"
        ).fetchall()
        if len(info) != 1:
            return f"main.build_info has {len(info)} rows, not 1"
        if strict and any(t == "rejected_records" for t, _ in columns):
            rejects = con.execute(
                "select count(*) from w.raw.rejected_records where list_contains(?, corpus)",
                [scope],
            ).fetchone()[0]
            if rejects:
                return f"--strict and {rejects} rejected record(s) remain"
        return info[0][0], info[0][1], con.execute(_LANDED).fetchall()
    finally:
        con.close()
