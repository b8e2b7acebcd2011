"""The report header: which build, which input files (sha256 of each, one digest per corpus
and over all) and which package versions made the report."""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import os
import platform
from collections.abc import Iterable
from importlib import metadata

from csrwh.reading.report.notebook import query, show_html, table_html, write_table
from csrwh.reading.report.settings import CORPUS_NAMES, ENV_GENERATED_AT, PACKAGES


def package_versions() -> list[tuple[str, str]]:
    out = [("python", platform.python_version())]
    for name in PACKAGES:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            out.append((name, "not installed"))
    return out


def input_files(con):
    """raw.ingest_files as a table: one row per input file with its sha256."""
    return query(
        con,
        "select corpus, source_path, table_name, size_bytes, n_records, file_sha256 "
        "from raw.ingest_files order by corpus, source_path",
    )


def inputs_digest(rows: Iterable[tuple[str, str, str]]) -> str:
    """sha256 over sorted ``corpus/path<TAB>sha256`` lines: one fingerprint of a set of inputs."""
    lines = sorted(f"{corpus}/{path}\t{sha}" for corpus, path, sha in rows)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def show_provenance(con) -> None:
    """The report header: build, inputs (sha256 of every file), package versions."""
    build = query(con, "select build_id, built_at, data_dir from build_info").row(0, named=True)
    files = input_files(con)
    write_table(files, "input_files")
    generated = (
        os.environ.get(ENV_GENERATED_AT)
        or dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    )
    per_corpus = []
    for corpus in sorted(set(files["corpus"].to_list())):
        sub = files.filter(files["corpus"] == corpus)
        per_corpus.append(
            f"<dt>{html.escape(CORPUS_NAMES.get(corpus, corpus))}</dt><dd>{sub.height:,} files, "
            f"{sum(sub['size_bytes'].to_list()):,} bytes, inputs sha256 "
            f"{inputs_digest(zip(sub['corpus'], sub['source_path'], sub['file_sha256']))}</dd>"
        )
    all_digest = inputs_digest(zip(files["corpus"], files["source_path"], files["file_sha256"]))
    versions = ", ".join(f"{html.escape(n)} {html.escape(v)}" for n, v in package_versions())
    built_at = build["built_at"]
    built_text = built_at.isoformat() if hasattr(built_at, "isoformat") else str(built_at)
    listing = table_html(
        files.select("corpus", "source_path", "size_bytes", "n_records", "file_sha256")
    )
    show_html(
        '<dl class="provenance">'
        f'<dt>Report generated</dt><dd><span id="generated-at">{html.escape(generated)}</span></dd>'
        f"<dt>Warehouse build</dt><dd>{html.escape(str(build['build_id']))} (built {html.escape(built_text)})</dd>"
        f"<dt>Data folder</dt><dd>{html.escape(str(build['data_dir']))}</dd>"
        f"<dt>All inputs</dt><dd>{files.height:,} files, sha256 {all_digest}</dd>"
        + "".join(per_corpus)
        + f"<dt>Software</dt><dd>{versions}</dd></dl>"
        f"<details><summary>sha256 of every input file ({files.height:,})</summary>{listing}</details>"
        '<div id="toc-here"></div>'
    )
