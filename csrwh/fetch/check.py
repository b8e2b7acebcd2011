"""Before a fetched corpus folder is swapped in: does it hold what the corpus needs?

The new folder and the one it would replace are read by the ingest itself (into a throw-away
DuckDB); the new one is refused when it lands nothing, holds a file that lands nothing, or
holds far fewer files or records than the old. ``--allow-suspect`` swaps it in anyway.
Details: docs/internals.md#csrwh-fetch-check
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

#: the share of a replaced folder's files and records (per raw table) a new folder must keep
MIN_SHARE = 0.5


@dataclass
class Content:
    """What the ingest lands from one corpus folder."""

    #: raw table -> (files, records landed)
    tables: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: "<path>: <first reject reason>" of each file that landed no record and was rejected
    unusable: list[str] = field(default_factory=list)

    @property
    def records(self) -> int:
        return sum(n for _, n in self.tables.values())


def measure(data_dir: Path, corpus: str) -> Content | None:
    """What ingest lands from ``data_dir/<folder of corpus>`` (None: no such corpus or folder)."""
    import duckdb

    from ingest import registry
    from ingest.run import Ingestor

    try:
        spec = registry.get(corpus)
    except KeyError:
        return None
    if not (data_dir / spec.folder).is_dir():
        return None
    con = duckdb.connect(":memory:")
    try:
        Ingestor(con, data_dir, [spec], [spec], registry.raw_tables()).run()
        content = Content()
        for table, files, records in con.execute(
            "select table_name, count(*), sum(n_records) from raw.ingest_files "
            "group by table_name order by table_name"
        ).fetchall():
            content.tables[table] = (int(files), int(records or 0))
        for path, error in con.execute(
            "select f.source_path, min(r.error) from raw.ingest_files f "
            "join raw.rejected_records r using (source_path) "
            "where f.n_records = 0 group by f.source_path order by f.source_path"
        ).fetchall():
            content.unusable.append(f"{path}: {error}")
        return content
    finally:
        con.close()


def problems(new: Content, old: Content | None, min_share: float = MIN_SHARE) -> list[str]:
    """Why ``new`` must not replace ``old`` (None: nothing to replace), one line each."""
    out = [f"{line} (no record lands)" for line in new.unusable]
    if new.records == 0:
        out.append("no record of any file lands")
    if old is not None:
        for table, (old_files, old_records) in sorted(old.tables.items()):
            files, records = new.tables.get(table, (0, 0))
            for what, was, now in (("files", old_files, files), ("records", old_records, records)):
                if now < min_share * was:
                    out.append(
                        f"raw.{table}: {now:,} {what} against {was:,} in the folder it would "
                        f"replace (less than {min_share:.0%})"
                    )
    return out


def check_new_folder(work: Path, data_dir: Path, corpus: str) -> list[str]:
    """:func:`problems` of the fetched folder ``work`` against ``data_dir/<corpus folder>``.

    ``work`` is moved into a ``data_dir/.tmp-<corpus>-check-*`` folder under the corpus'
    folder name for the ingest to read, and moved back (also on error)."""
    from ingest import registry

    try:
        folder = registry.get(corpus).folder
    except KeyError:
        return []  # a corpus the ingest does not know: nothing to check it against
    check = Path(tempfile.mkdtemp(prefix=f".tmp-{corpus}-check-", dir=data_dir))
    try:
        os.replace(work, check / folder)
        try:
            new = measure(check, corpus)
        finally:
            os.replace(check / folder, work)
    finally:
        check.rmdir()
    old = measure(data_dir, corpus)
    return problems(new or Content(), old)
