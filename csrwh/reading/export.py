"""`csrwh export`: the warehouse as files other tools read, with a dataset card.

One export folder holds

* the conversation records of :func:`csrwh.load` (one row per conversation: ids, metadata,
  ``messages`` as ``[{role, content}]``, per-turn annotations, ratings, the deterministic
  ``split``) as ``conversations/<split>.parquet`` (one file per split the records carry),
  ``conversations.jsonl`` (one JSON object a line, every split; the records that first give
  each field a value come first, so that JSON readers inferring types from the first rows type
  every field) or, for ``hf``, ``conversations/``: a ``datasets.DatasetDict`` (``train`` /
  ``validation`` / ``test`` by the ``split`` column) written with ``save_to_disk``;
* every mart as ``marts/<mart>.parquet`` (``hf``: ``marts/<mart>.arrow``, since ``datasets``
  reads every config of a folder with one builder) (with ``--corpus``: the corpora's rows, see
  :func:`csrwh.reading.query.export_marts`);
* with ``--trec``: CoSRec's qrels and topics as TREC files (:func:`csrwh.reading.evaluate.export_trec`),
  in ``<out>/trec`` or ``--trec-dir`` (a folder under the same rules as ``--out``);
* ``input_files.csv``: corpus, path, sha256 and records of every input file of the exported
  corpora; ``LICENSES.md``: each corpus' licence and upstream;
* ``README.md``, a dataset card in the Hugging Face conventions: YAML front matter (licences,
  with ``license_name`` / ``license_link`` for ``other``; languages; task categories; pretty
  name; size category; one config per file: the records by split, each mart with rows) and a
  body with every file and its row count, the empty marts, a loading snippet, each corpus'
  licence, upstream and exported subsets, the citations as BibTeX (the corpus registry), the
  build id, and the description of every column;
* ``.csrwh-export.json``, the list of files written, so that exporting into the same folder
  again first removes exactly the previous export's files (a folder holding anything else, the
  warehouse's folder or ``/`` is refused before anything is written, never cleared).

The warehouse is only read (a locked read-only connection, as ``csrwh sql``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from csrwh.errors import CsrwhError
from ingest import registry

FORMATS = ("parquet", "jsonl", "hf")
MANIFEST = ".csrwh-export.json"
CARD = "README.md"
MARTS_DIR = "marts"
CONVERSATIONS = "conversations"
INPUT_FILES = "input_files.csv"
LICENCES = "LICENSES.md"
#: the ``jsonl`` export's one file holds every split: its config names the split so
ALL_SPLITS = "all_splits"
#: ``license_name`` for ``license: other`` (a licence stated by an upstream, see LICENSES.md)
OTHER_LICENCE_NAME = "upstream-licences"
#: Hugging Face task categories: dialogue records (text generation) and relevance judgments
TASK_CATEGORIES = ("text-generation", "text-retrieval")

#: Column descriptions of the conversation records (csrwh.reading.api.CONVERSATIONS_SQL).
CONVERSATION_COLUMNS: dict[str, str] = {
    "conversation_id": "Global conversation id `<corpus>:<source id>`.",
    "source_conversation_id": "The conversation's id in its corpus' own files.",
    "corpus": "Corpus: "
    + " or ".join(", ".join(registry.names()).rsplit(", ", 1))  # the corpus registry's ids
    + " (your own corpora, docs/ADDING_A_CORPUS.md).",
    "subset": "Subset / release folder of the corpus (see Corpora below).",
    "domain_or_task": "Domain or task of the conversation as the corpus names it.",
    "task_type": "Task type where the corpus gives one.",
    "language": "Language detected from the users' text (`en`, `zh`), or the corpus' declared one.",
    "user_id": "Global id of the user (NULL when the corpus has none).",
    "system_id": "The system / assistant / chat model that answered (NULL when not known).",
    "user_sentiment": "`satisfied` / `frustrated` where the corpus records it.",
    "user_satisfaction": "User satisfaction in [0, 1] where the corpus records it.",
    "split": "Deterministic split from the id alone: md5(conversation_id)[:8] as an integer "
    "modulo 100; 0-79 train, 80-89 validation, 90-99 test (stable across builds).",
    "messages": "The utterances in turn order as `{role, content}`; role `user` or `assistant`.",
    "turn_annotations": "One entry per message (same order): turn_index, turn_id, the turn's "
    "intents (annotator, label_scheme, label, family, is_primary) and turn-level ratings.",
    "ratings": "Conversation-level ratings: aspect, rater_id, rater_kind, value, raw_value, comment.",
}

SIZE_CATEGORIES = (
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
    (100_000_000, "10M<n<100M"),
)


@dataclass
class ExportResult:
    out: Path
    format: str
    corpora: list[str]
    n_conversations: int
    conversation_files: list[Path]
    marts: list[Path]
    trec_files: list[Path]
    card: Path
    row_counts: dict[str, int] = field(default_factory=dict)  # relative path -> rows


# ---------------------------------------------------------------------------------------------
# the export folder
# ---------------------------------------------------------------------------------------------


def _check_folder(folder: Path, warehouse: Path, option: str) -> list[str] | None:
    """Refuse a folder an export may not write into: a file, the root folder, the warehouse's
    own folder, or a folder that is neither empty nor an earlier csrwh export. Returns the
    earlier export's files (its manifest), else None. Reads only."""
    what = "TREC folder" if option == "--trec-dir" else "export folder"
    hint = f"choose a new or empty folder with {option}, or remove this one"
    if folder.exists() and not folder.is_dir():
        raise CsrwhError(f"{what} {folder} is a file", hint=f"choose a folder with {option}")
    resolved = folder.resolve()
    if resolved == resolved.parent:
        raise CsrwhError(f"{what} {folder} is the root folder", hint=hint)
    if resolved == warehouse.resolve().parent:
        raise CsrwhError(f"{what} {folder} is the warehouse's folder", hint=hint)
    if not folder.is_dir() or not any(folder.iterdir()):
        return None
    manifest = folder / MANIFEST
    if not manifest.is_file():
        raise CsrwhError(
            f"{what} {folder} is not empty and holds no earlier csrwh export ({MANIFEST})",
            hint=hint,
        )
    try:
        files = json.loads(manifest.read_text(encoding="utf-8"))["files"]
        if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise CsrwhError(
            f"{manifest}: not a csrwh export manifest (a JSON object with a 'files' list)",
            hint=f"remove the folder, or choose another {option}",
        ) from None
    return files


def _prepare_folder(out: Path, files: list[str] | None) -> None:
    """Create ``out``, or empty it of a previous export's ``files`` (see :func:`_check_folder`)."""
    out.mkdir(parents=True, exist_ok=True)
    if files is None:
        return
    root = out.resolve()
    folders: set[Path] = set()
    for rel in files:
        path = (root / rel).resolve()
        if root not in path.parents:  # a manifest entry never leaves the folder
            continue
        if path.is_file() or path.is_symlink():
            path.unlink()
        folders.update(p for p in path.parents if root in p.parents)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    (out / MANIFEST).unlink()


def _write_manifest(
    out: Path, before: set[Path], build: dict[str, Any], output_format: str
) -> None:
    """List every file this export wrote (all files now in ``out`` that were not there before),
    so that the next export into ``out`` removes exactly them; also after a failed export."""
    written = sorted(
        _rel(p, out)
        for p in out.rglob("*")
        if p.is_file() and p not in before and p.name != MANIFEST
    )
    manifest = {"build_id": build.get("build_id"), "format": output_format, "files": written}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def _within(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies inside it (both resolved)."""
    path, folder = path.resolve(), folder.resolve()
    return path == folder or folder in path.parents


def _write_input_files(path: Path, input_files: list[dict[str, Any]]) -> None:
    """``input_files.csv``: corpus, source_path, sha256, records of every input file of the
    exported corpora (the card links it rather than listing thousands of digests)."""
    import csv

    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["corpus", "source_path", "sha256", "records"])
        writer.writerows(
            [f["corpus"], f["source_path"], f["file_sha256"], f["n_records"]] for f in input_files
        )


def _write_licences(
    path: Path,
    corpus_rows: list[dict[str, Any]],
    corpora: list[str],
    subset_counts: dict[tuple[str, str], int],
) -> None:
    by_corpus: dict[str, list[dict[str, Any]]] = {c: [] for c in corpora}
    for row in corpus_rows:
        by_corpus.setdefault(row["corpus"], []).append(row)
    seeded = {(r["corpus"], r.get("subset")): r for r in corpus_rows}
    upstream = {
        c: sorted({r.get("upstream_url") or "" for r in rows} - {""})
        for c, rows in by_corpus.items()
    }
    path.write_text(
        licences_text(_licence_of(by_corpus, seeded, subset_counts), upstream), encoding="utf-8"
    )


def _rel(path: Path, out: Path) -> str:
    return path.resolve().relative_to(out.resolve()).as_posix()


# ---------------------------------------------------------------------------------------------
# conversation records
# ---------------------------------------------------------------------------------------------


def _conversations_table(con, corpora: Sequence[str]):
    from csrwh.reading.api import conversations_relation
    from csrwh.reading.query import _string_literal

    relation = conversations_relation(con)
    if corpora:
        relation = relation.filter(f"corpus in ({', '.join(_string_literal(c) for c in corpora)})")
    table = relation.arrow()
    return table.read_all() if hasattr(table, "read_all") else table


def _plain(value: Any) -> Any:
    """JSON-ready: NaN/inf floats become null (JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _typed_paths(value: Any, path: str = "", into: set[str] | None = None) -> set[str]:
    """The paths at which ``value`` shows a type: every key whose value is not null, every
    list that is not empty (``[]``), down to the leaves."""
    into = set() if into is None else into
    if value is None:
        return into
    into.add(path)
    if isinstance(value, dict):
        for key, item in value.items():
            _typed_paths(item, f"{path}.{key}", into)
    elif isinstance(value, list):
        for item in value:
            _typed_paths(item, f"{path}[]", into)
    return into


def _witnesses(table) -> list[int]:
    """The rows that first show each typed path (see :func:`_typed_paths`), in table order.

    JSON readers infer a column's type from the first rows (polars: 100, ``datasets``: its
    first block of 10 MB); a column that is null there gets no type and fails on the first
    value after it (on the real corpora ``user_satisfaction`` and the ratings' ``comment``).
    Written first, these rows show each reader every column's type at once."""
    seen: set[str] = set()
    witnesses: list[int] = []
    offset = 0
    for batch in table.to_batches(max_chunksize=1000):
        for i, row in enumerate(batch.to_pylist()):
            paths = _typed_paths(_plain(row))
            if not paths <= seen:
                seen |= paths
                witnesses.append(offset + i)
        offset += batch.num_rows
    return witnesses


def _split_tables(table) -> dict[str, Any]:
    """split -> the records of that split, in the order of :data:`csrwh.reading.api.SPLIT_RATIOS`;
    a split without records is left out."""
    import pyarrow.compute as pc

    from csrwh.reading.api import SPLIT_RATIOS

    parts = {name: table.filter(pc.equal(table["split"], name)) for name in SPLIT_RATIOS}
    return {name: part for name, part in parts.items() if part.num_rows}


def _write_conversations(table, out: Path, output_format: str) -> dict[Path, int]:
    """Write the records; returns each data file written with its row count."""
    if output_format == "parquet":
        import pyarrow.parquet as pq

        folder = out / CONVERSATIONS
        folder.mkdir()
        written = {}
        for name, part in _split_tables(table).items():
            path = folder / f"{name}.parquet"
            pq.write_table(part, path)
            written[path] = pq.ParquetFile(path).metadata.num_rows
        return written
    if output_format == "jsonl":
        import pyarrow as pa

        path = out / f"{CONVERSATIONS}.jsonl"
        witnesses = _witnesses(table)
        rest = sorted(set(range(table.num_rows)) - set(witnesses))
        n = 0
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            for part in (witnesses, rest):  # the records unchanged, the witnesses first
                for start in range(0, len(part), 1000):
                    rows = table.take(pa.array(part[start : start + 1000], pa.int64()))
                    for row in rows.to_pylist():
                        fh.write(
                            json.dumps(
                                _plain(row), ensure_ascii=False, allow_nan=False, default=str
                            )
                            + "\n"
                        )
                        n += 1
        return {path: n}
    import datasets

    folder = out / CONVERSATIONS
    splits = {
        name: datasets.Dataset(datasets.table.InMemoryTable(part))
        for name, part in _split_tables(table).items()
    }
    was_enabled = datasets.utils.logging.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # one summary line from the CLI instead
    try:
        datasets.DatasetDict(splits).save_to_disk(str(folder))
    finally:
        if was_enabled:
            datasets.enable_progress_bars()
    written: dict[Path, int] = {}
    for name in splits:
        arrows = sorted((folder / name).glob("*.arrow"))
        counts = _arrow_rows(arrows)
        written.update(counts)
    return written


def _marts_as_arrow(paths: list[Path]) -> list[Path]:
    """``--format hf``: each mart's Parquet file rewritten as an Arrow stream file beside it
    (``<mart>.arrow``, as ``save_to_disk`` writes), the Parquet file removed. ``datasets``
    reads every config of a folder with one builder, chosen from the default config's files
    (the records' ``.arrow``): a Parquet mart there fails with "Not an Arrow file"."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = []
    for path in paths:
        target = path.with_suffix(".arrow")
        source = pq.ParquetFile(path)
        with (
            pa.OSFile(str(target), "wb") as sink,
            pa.ipc.new_stream(sink, source.schema_arrow) as w,
        ):
            for batch in source.iter_batches(batch_size=10_000):
                w.write_batch(batch)
        source.close()
        path.unlink()
        out.append(target)
    return out


def _arrow_rows(paths: Iterable[Path]) -> dict[Path, int]:
    """Rows of each Arrow stream file that ``save_to_disk`` wrote."""
    import pyarrow as pa

    out = {}
    for path in paths:
        with pa.memory_map(str(path)) as source:
            out[path] = pa.ipc.open_stream(source).read_all().num_rows
    return out


# ---------------------------------------------------------------------------------------------
# what the card says
# ---------------------------------------------------------------------------------------------


def _has(con, schema: str, table: str) -> bool:
    return bool(
        con.execute(
            "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
            [schema, table],
        ).fetchone()[0]
    )


def _rows(con, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    cursor = con.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _build_info(con) -> dict[str, Any]:
    if not _has(con, "main", "build_info"):
        return {}
    rows = _rows(con, "select * from main.build_info order by built_at desc limit 1")
    return rows[0] if rows else {}


def _corpora_rows(con, corpora: Sequence[str]) -> list[dict[str, Any]]:
    """One row per corpus x subset of the exported corpora with language, domain, upstream,
    licence, description (and citation where given): the ``corpora`` seed, and for your own
    corpora (``custom``) each ``custom/<name>/corpus.json`` (``raw.custom__corpora``)."""
    rows = []
    if _has(con, "seeds", "corpora"):
        rows += _rows(
            con,
            "select * from seeds.corpora where list_contains($1, corpus) order by corpus, subset",
            [list(corpora)],
        )
    if "custom" in corpora and _has(con, "raw", "custom__corpora"):
        rows += _rows(
            con,
            """select 'custom' as corpus, split_part(source_path, '/', 1) as subset,
                      payload ->> '$.language' as language, payload ->> '$.domain' as domain,
                      payload ->> '$.url' as upstream_url, payload ->> '$.licence' as licence,
                      payload ->> '$.description' as description, payload ->> '$.citation' as citation
               from raw.custom__corpora order by subset""",
        )
    return rows


def _input_files(con, corpora: Sequence[str]) -> list[dict[str, Any]]:
    if not _has(con, "raw", "ingest_files"):
        return []
    return _rows(
        con,
        "select corpus, source_path, file_sha256, n_records from raw.ingest_files "
        "where list_contains($1, corpus) order by corpus, source_path",
        [list(corpora)],
    )


def _yml_docs() -> dict[str, tuple[str, dict[str, str]]]:
    """mart -> (description, {column: description}) from ``models/marts/**/_*.yml``."""
    import yaml

    from csrwh.config import PROJECT_ROOT

    docs: dict[str, tuple[str, dict[str, str]]] = {}
    for path in sorted((PROJECT_ROOT / "models" / "marts").rglob("_*.yml")):
        try:
            spec = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError):
            continue
        for model in spec.get("models") or []:
            columns = {
                c["name"]: str(c.get("description") or "")
                for c in model.get("columns") or []
                if "name" in c
            }
            docs[model["name"]] = (str(model.get("description") or ""), columns)
    return docs


def _mart_docs(con) -> dict[str, dict[str, Any]]:
    """mart -> description and columns (name, type, description): the warehouse's own
    comments (dbt persist_docs) where present, else the dbt yml in the project."""
    yml = _yml_docs()
    tables = {
        r["table_name"]: r["comment"]
        for r in _rows(
            con, "select table_name, comment from duckdb_tables() where schema_name = 'main'"
        )
    }
    columns = _rows(
        con,
        "select table_name, column_name, data_type, comment from duckdb_columns() "
        "where schema_name = 'main' order by table_name, column_index",
    )
    from csrwh.reading.query import list_marts

    docs: dict[str, dict[str, Any]] = {}
    for mart in list_marts(con):
        described, described_columns = yml.get(mart, ("", {}))
        docs[mart] = {
            "description": tables.get(mart) or described,
            "columns": [
                (
                    c["column_name"],
                    c["data_type"],
                    c["comment"] or described_columns.get(c["column_name"], ""),
                )
                for c in columns
                if c["table_name"] == mart
            ],
        }
    return docs


UNKNOWN_LICENCE = "unknown"


def _own_licence(corpus: str) -> bool:
    """Each subset of your own corpora (``custom/<name>``) is a corpus of its own, with its own
    licence in its corpus.json; other corpora's subsets share the corpus' licence."""
    return corpus == "custom"


def hf_license(licence: str | None) -> str:
    """A Hugging Face licence id for a licence as the seed writes it (SPDX -> lower case;
    anything else, e.g. 'see upstream', -> 'other')."""
    text = (licence or "").strip().lower()
    return text if re.fullmatch(r"[a-z0-9][a-z0-9.+-]*", text) else "other"


def size_category(n: int) -> str:
    for bound, name in SIZE_CATEGORIES:
        if n < bound:
            return name
    return "n>100M"


def _cell(value: Any) -> str:
    """A markdown table cell: one line, pipes escaped."""
    text = "" if value is None else " ".join(str(value).split())
    return text.replace("|", "\\|")


def _first_sentence(text: str, limit: int = 200) -> str:
    """Up to the first full stop followed by a capital letter (not "e.g. the"), at most
    ``limit`` characters."""
    text = " ".join(text.split())
    match = re.match(r"(.+?(?<!e\.g)(?<!i\.e)[.!?])(\s+[A-Z]|$)", text)
    text = match.group(1) if match else text
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _conversation_data_files(
    output_format: str, conversation_files: list[str]
) -> list[dict[str, str]]:
    """The default config's data files: one entry per split the records carry (``parquet``:
    ``conversations/<split>.parquet``; ``hf``: ``conversations/<split>/*.arrow``); ``jsonl``
    keeps every split in one file, declared as the split ``all_splits`` (filter on ``split``)."""
    if output_format == "jsonl":
        return [{"split": ALL_SPLITS, "path": conversation_files[0]}]
    if output_format == "hf":
        splits = dict.fromkeys(Path(f).parent.name for f in conversation_files)
        return [{"split": s, "path": f"{CONVERSATIONS}/{s}/*.arrow"} for s in splits]
    return [{"split": Path(f).stem, "path": f} for f in conversation_files]


def _front_matter(
    *,
    licences: list[str],
    languages: list[str],
    n_conversations: int,
    output_format: str,
    conversation_files: list[str],
    marts: dict[str, str],
    corpora: list[str],
) -> str:
    """YAML front matter as the Hub reads it: licences (``other`` with ``license_name`` and
    ``license_link``), languages, task categories, size, one config per file -- the records
    (default) and each mart with rows (not for ``jsonl``: ``datasets`` reads all the configs of
    a folder with the builder of the default one, and the marts are Parquet)."""
    import yaml

    configs = [
        {
            "config_name": CONVERSATIONS,
            "data_files": _conversation_data_files(output_format, conversation_files),
            "default": True,
        }
    ]
    if output_format != "jsonl":  # one builder reads every config: JSON cannot read Parquet
        configs += [
            {"config_name": f"mart_{name}", "data_files": path} for name, path in marts.items()
        ]
    meta: dict[str, Any] = {"license": licences if len(licences) > 1 else licences[0]}
    if "other" in licences:
        meta["license_name"] = OTHER_LICENCE_NAME
        meta["license_link"] = LICENCES
    meta.update(
        {
            **({"language": languages} if languages else {}),
            "pretty_name": "CSR Warehouse export: " + ", ".join(corpora),
            "size_categories": [size_category(n_conversations)],
            "task_categories": list(TASK_CATEGORIES),
            "tags": ["conversational-search", "conversational-recommendation", "dialogue"],
            "configs": configs,
        }
    )
    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n"


def _citations(corpora: list[str], corpus_rows: list[dict[str, Any]]) -> dict[str, list[str]]:
    """corpus -> its citations as published: the corpus registry's BibTeX
    (``ingest/corpora.toml``); for your own corpora, each ``corpus.json``'s ``citation``."""
    out: dict[str, list[str]] = {}
    for corpus in corpora:
        if _own_licence(corpus):
            given = [
                str(r.get("citation") or "").strip() for r in corpus_rows if r["corpus"] == corpus
            ]
            out[corpus] = sorted({c for c in given if c})
            continue
        try:
            declared = registry.lookup(corpus)
        except CsrwhError:
            out[corpus] = []
            continue
        out[corpus] = [declared.citation.strip()] if declared.citation_known else []
    return out


def licences_text(licence_of: dict[str, list[str]], upstream_of: dict[str, list[str]]) -> str:
    """``LICENSES.md``: each exported corpus' licence as its upstream states it, and where."""
    lines = [
        "# Licences of the exported corpora",
        "",
        (
            "Each corpus keeps its own licence. `other` in the card's front matter stands for a licence "
            "stated by the upstream (its repository or dataset page, linked below), not by an SPDX id."
        ),
        "",
        "| corpus | licence | Hugging Face id | upstream |",
        "|---|---|---|---|",
    ]
    for corpus, licences in licence_of.items():
        lines.append(
            f"| {corpus} | {_cell(', '.join(licences))} "
            f"| {_cell(', '.join(sorted({hf_license(x) for x in licences})))} "
            f"| {_cell(', '.join(upstream_of.get(corpus, [])))} |"
        )
    return "\n".join(lines) + "\n"


def dataset_card(
    *,
    output_format: str,
    corpora: list[str],
    n_conversations: int,
    conversation_counts: dict[str, int],
    subset_counts: dict[tuple[str, str], int],
    row_counts: dict[str, int],
    conversation_columns: list[tuple[str, str]],
    conversation_files: list[str],
    marts: dict[str, str],
    mart_docs: dict[str, dict[str, Any]],
    corpus_rows: list[dict[str, Any]],
    n_input_files: int,
    build: dict[str, Any],
    languages: list[str],
    trec_files: list[str],
    left_out: Sequence[str] = (),
    folder: str = ".",
) -> str:
    """The card's text (front matter + body). ``marts`` maps each written mart to its file;
    the marts without rows (``row_counts``) get no config and are listed as empty."""
    by_corpus: dict[str, list[dict[str, Any]]] = {c: [] for c in corpora}
    for row in corpus_rows:
        by_corpus.setdefault(row["corpus"], []).append(row)
    seeded = {(r["corpus"], r.get("subset")): r for r in corpus_rows}
    licence_of = _licence_of(by_corpus, seeded, subset_counts)
    licences = sorted({hf_license(lic) for lics in licence_of.values() for lic in lics})
    empty = [name for name, rel in marts.items() if not row_counts.get(rel)]
    loadable = {name: rel for name, rel in marts.items() if name not in empty}
    citations = _citations(list(by_corpus), corpus_rows)
    lines = [
        _front_matter(
            licences=licences,
            languages=languages,
            n_conversations=n_conversations,
            output_format=output_format,
            conversation_files=conversation_files,
            marts=loadable,
            corpora=corpora,
        ),
        f"# CSR Warehouse export: {', '.join(corpora)}",
        "",
        (
            f"{n_conversations} conversations of {len(corpora)} conversational search and recommendation "
            f"corpora ({', '.join(corpora)}), exported by `csrwh export --format {output_format}` from the "
            f"CSR Warehouse build `{build.get('build_id', 'unknown')}`: one record per conversation in the "
            "chat-message shape (`messages` as `{role, content}`), with every mart of the warehouse "
            + ("as an Arrow file." if output_format == "hf" else "as Parquet.")
        ),
        "",
        "## Files",
        "",
        "| file | rows | content |",
        "|---|---:|---|",
    ]
    for rel, n in row_counts.items():
        if rel in conversation_files:
            split = Path(rel).parent.name if output_format == "hf" else Path(rel).stem
            what = "conversation records" + (
                " (every split: see `split`)" if output_format == "jsonl" else f" (split `{split}`)"
            )
        elif rel in marts.values():
            name = Path(rel).stem
            what = (
                f"mart `{name}`: {_first_sentence(mart_docs.get(name, {}).get('description', ''))}"
            )
        elif rel == INPUT_FILES:
            what = "the warehouse's input files of these corpora: corpus, path, sha256, records"
        elif rel.endswith("topics.tsv"):
            what = "TREC topics: topic id, tab, the standalone query of the intent"
        else:
            what = "TREC qrels (topic 0 doc grade), kind " + rel.rsplit("/", 1)[-1].split(".")[1]
        lines.append(f"| `{_cell(rel)}` | {n} | {_cell(what)} |")
    if empty:
        lines += [
            "",
            "Empty marts (no rows in this export, so no config; the file keeps the columns): "
            + ", ".join(f"`{name}`" for name in empty)
            + ".",
        ]
    if left_out:
        lines += [
            "",
            f"Marts left out by `--corpus` (not split by corpus, or without rows of {', '.join(corpora)}): "
            + ", ".join(f"`{name}`" for name in left_out)
            + ".",
        ]
    lines += [
        "",
        "## Loading",
        "",
        *_snippet(output_format, conversation_files, loadable, folder),
        "",
    ]
    if output_format == "jsonl" and loadable:
        lines += [
            (
                'The marts are Parquet files: load each with `load_dataset("parquet", data_files=...)` as '
                "above (a folder's configs share one builder, here JSON, so the marts are no configs)."
            ),
            "",
        ]
    lines += [
        "## Corpora",
        "",
        "| corpus | conversations | licence | upstream | citation |",
        "|---|---:|---|---|---|",
    ]
    upstream_of: dict[str, list[str]] = {}
    for corpus, rows in by_corpus.items():
        upstream = sorted({r.get("upstream_url") or "" for r in rows} - {""})
        upstream_of[corpus] = upstream
        if citations.get(corpus):
            citation = "BibTeX under [Citation](#citation)"
        elif upstream:
            citation = f"none published: cite the authors as the upstream asks: {upstream[0]}"
        else:
            citation = "none given"
        lines.append(
            f"| {corpus} | {conversation_counts.get(corpus, 0)} | {_cell(', '.join(licence_of[corpus]))} "
            f"| {_cell(', '.join(upstream))} | {_cell(citation)} |"
        )
    lines += [
        "",
        "Subsets in this export:",
        "",
        "| corpus | subset | conversations | language | domain | licence | description |",
        "|---|---|---:|---|---|---|---|",
    ]
    for key in sorted(k for k, n in subset_counts.items() if n):  # only what the export holds
        row = seeded.get(key, {})
        missing = UNKNOWN_LICENCE + (
            " (no corpus.json)" if _own_licence(key[0]) else " (subset not in the corpora seed)"
        )
        lines.append(
            f"| {key[0]} | {_cell(key[1])} | {subset_counts[key]} | {_cell(row.get('language'))} "
            f"| {_cell(row.get('domain'))} | {_cell(row.get('licence') or missing)} "
            f"| {_cell(row.get('description'))} |"
        )
    lines += [
        "",
        (
            "Each corpus keeps its own licence: use and redistribute each part under its licence, and cite "
            f"the corpora you use. `other` in the front matter stands for a licence given by the upstream: "
            f"[{LICENCES}]({LICENCES}) lists each."
        ),
        "",
        "## Citation",
        "",
    ]
    given = [(c, text) for c in by_corpus for text in citations.get(c, [])]
    bibtex = [text for _, text in given if text.startswith("@")]
    if bibtex:
        lines += ["```bibtex", "\n\n".join(bibtex), "```", ""]
    lines += [f"- {c}: {_cell(text)}" for c, text in given if not text.startswith("@")]
    if len(bibtex) < len(given):  # your own corpora's corpus.json may give plain text
        lines.append("")
    uncited = [c for c in by_corpus if not citations.get(c)]
    if uncited:
        lines += [
            "No citation is published for "
            + ", ".join(uncited)
            + ": cite the authors as their upstream repository asks (see Corpora).",
            "",
        ]
    lines += [
        "## Provenance",
        "",
        (
            f"- build id: `{build.get('build_id', 'unknown')}`, built {str(build.get('built_at', 'unknown'))[:19]} UTC "
            f"by csrwh {build.get('csrwh_version', 'unknown')}"
        ),
        f"- inputs digest: `{build.get('inputs_digest', 'unknown')}` over {build.get('n_input_files', 'unknown')} input files",
        (
            f"- input files of the exported corpora: {n_input_files}, each with its sha256 and record count "
            f"in [{INPUT_FILES}]({INPUT_FILES})"
        ),
        "",
        "## Columns",
        "",
        f"### {CONVERSATIONS} (the conversation records)",
        "",
    ]
    lines += ["| column | type | description |", "|---|---|---|"]
    lines += [
        f"| `{name}` | `{_cell(kind)}` | {_cell(CONVERSATION_COLUMNS.get(name, ''))} |"
        for name, kind in conversation_columns
    ]
    for name in marts:
        doc = mart_docs.get(name, {"description": "", "columns": []})
        lines += [
            "",
            f"<details><summary>mart <code>{name}</code></summary>",
            "",
            _cell(doc["description"]),
            "",
        ]
        lines += ["| column | type | description |", "|---|---|---|"]
        lines += [f"| `{c}` | `{_cell(t)}` | {_cell(d)} |" for c, t, d in doc["columns"]]
        lines += ["", "</details>"]
    if trec_files:
        lines += [
            "",
            "## TREC files",
            "",
            (
                "`qrels.<kind>.txt` (`topic 0 doc grade`; kinds search, recommendation, all) and `topics.tsv`, "
                "CoSRec's curated relevance judgments; evaluate a run with `csrwh eval RUN` or any trec_eval."
            ),
        ]
    lines += [
        "",
        "## Splits",
        "",
        (
            "`split` depends on the conversation id only (first 8 hex digits of `md5(conversation_id)` "
            "modulo 100: 0-79 train, 80-89 validation, 90-99 test), so it never changes between builds."
        ),
        "",
    ]
    return "\n".join(lines)


def _licence_of(
    by_corpus: dict[str, list[dict[str, Any]]],
    seeded: dict[tuple[str, Any], dict[str, Any]],
    subset_counts: dict[tuple[str, str], int],
) -> dict[str, list[str]]:
    return {
        c: sorted(
            {r.get("licence") or "unknown" for r in rows}
            | {UNKNOWN_LICENCE for (corpus, subset) in subset_counts
               if corpus == c and _own_licence(corpus) and (corpus, subset) not in seeded}
        ) or [UNKNOWN_LICENCE]
        for c, rows in by_corpus.items()
    }  # fmt: skip


def _snippet(
    output_format: str, conversation_files: list[str], marts: dict[str, str], folder: str
) -> list[str]:
    """The card's loading example: ``folder`` is the export folder as ``--out`` named it (run
    from where the export ran; on the Hub, its repo id). Tests run it as written."""
    mart = "turns" if "turns" in marts else next(iter(marts), None)
    lines = [
        "```python",
        *(["import polars as pl"] if output_format == "jsonl" else []),
        "from datasets import load_dataset" + (", load_from_disk" if output_format == "hf" else ""),
        "",
        f"export = {folder!r}  # this folder (or its Hub repo id)",
    ]
    if output_format == "hf":
        lines += [
            f'splits = load_from_disk(f"{{export}}/{CONVERSATIONS}")  # DatasetDict: train / validation / test',
            'train = splits["train"]',
        ]
    elif output_format == "jsonl":
        records = f'f"{{export}}/{conversation_files[0]}"'
        lines += [
            f'records = load_dataset("json", data_files={records})["train"]  # every split',
            'test = records.filter(lambda r: r["split"] == "test")',
            f"frame = pl.read_ndjson({records})",
        ]
    else:
        lines += [
            "splits = load_dataset(export)  # the default config: train / validation / test",
            'train = splits["train"]',
        ]
    if mart:
        if output_format == "jsonl":
            lines.append(
                f'mart = load_dataset("parquet", data_files=f"{{export}}/{marts[mart]}")["train"]'
            )
        else:
            lines.append(f'mart = load_dataset(export, "mart_{mart}")["train"]')
    return [*lines, "```"]


# ---------------------------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------------------------


def export(
    warehouse: Path,
    out: Path,
    output_format: str = "parquet",
    corpora: Sequence[str] = (),
    trec_dir: Path | None = None,
) -> ExportResult:
    """Export the conversation records, the marts and (``trec_dir``) the TREC files into ``out``
    with a dataset card; see the module docstring."""
    from csrwh.reading import evaluate as E
    from csrwh.reading.query import connect_locked, export_marts

    if output_format not in FORMATS:
        raise CsrwhError(
            f"unknown export format {output_format!r}",
            hint=f"use one of {', '.join(FORMATS)}",
            exit_code=2,
        )
    if output_format == "hf":
        try:
            import datasets  # noqa: F401
        except ImportError:
            raise CsrwhError(
                "--format hf needs the Hugging Face `datasets` package, which is not installed",
                hint="pip install 'csrwh[hf]'  (or: pip install datasets)",
            ) from None
    warehouse, out = Path(warehouse), Path(out)
    con = connect_locked(warehouse)  # the missing-warehouse error comes first
    try:
        known = [
            c
            for (c,) in con.execute(
                "select distinct corpus from main.conversations order by 1"
            ).fetchall()
        ]
        wanted = list(dict.fromkeys(corpora)) or known
        unknown = [c for c in wanted if c not in known]
        if unknown:
            raise CsrwhError(
                f"corpus {unknown[0]!r} is not in the warehouse {warehouse}",
                hint=f"it holds: {', '.join(known) or 'no corpus'}",
            )
        if trec_dir is not None and "cosrec" not in wanted:
            raise CsrwhError(
                "--trec writes CoSRec's relevance judgments, but cosrec is not among the exported corpora",
                hint="add --corpus cosrec, or leave out --trec",
            )
        # --trec-dir follows --out's rules unless it lies inside --out (then --out's cover it)
        trec_apart = trec_dir is not None and not _within(Path(trec_dir), out)
        earlier = _check_folder(out, warehouse, "--out")  # both checked before anything is written
        earlier_trec = (
            _check_folder(Path(trec_dir), warehouse, "--trec-dir") if trec_apart else None
        )
        if trec_apart and _within(out, Path(trec_dir)):
            raise CsrwhError(
                f"--out {out} lies inside --trec-dir {trec_dir}",
                hint="give --trec-dir a folder of its own, or leave it out (TREC files go to <out>/trec)",
            )
        _prepare_folder(out, earlier)
        if trec_apart:
            _prepare_folder(Path(trec_dir), earlier_trec)
            before_trec = {p for p in Path(trec_dir).rglob("*") if p.is_file()}
        before = {p for p in out.rglob("*") if p.is_file()}
        try:
            table = _conversations_table(con, corpora)
            trec_files = E.export_trec(con, trec_dir) if trec_dir is not None else []
        except BaseException:
            _write_manifest(out, before, {}, "")
            if trec_apart:
                _write_manifest(Path(trec_dir), before_trec, {}, "trec")
            raise
        if trec_apart:
            _write_manifest(Path(trec_dir), before_trec, _build_info(con), "trec")
        counts = table.group_by(["corpus", "subset"]).aggregate([("corpus", "count")]).to_pylist()
        subset_counts = {(r["corpus"], r["subset"]): r["corpus_count"] for r in counts}
        conversation_counts: dict[str, int] = {}
        for (corpus, _), n in subset_counts.items():
            conversation_counts[corpus] = conversation_counts.get(corpus, 0) + n
        build = _build_info(con)
        corpus_rows = _corpora_rows(con, wanted)
        input_files = _input_files(con, wanted)
        languages = sorted(
            {
                r[0]
                for r in con.execute(
                    "select distinct language from main.conversations where language is not null "
                    "and list_contains($1, corpus)",
                    [wanted],
                ).fetchall()
            }
        )
        mart_docs = _mart_docs(con)
        if not languages:  # none detected: the languages the corpora declare
            languages = sorted({r["language"] for r in corpus_rows if r.get("language")})
    finally:
        con.close()  # export_marts opens its own locked connection (one instance per file)
    try:
        conversation_files = _write_conversations(table, out, output_format)
        mart_paths = export_marts(warehouse, out / MARTS_DIR, corpora=list(corpora))
        if output_format == "hf":
            mart_paths = _marts_as_arrow(mart_paths)
        _write_input_files(out / INPUT_FILES, input_files)
    except BaseException:
        _write_manifest(out, before, build, output_format)
        raise

    import pyarrow.parquet as pq

    row_counts = {_rel(p, out): n for p, n in conversation_files.items()}
    if output_format == "hf":
        row_counts.update({_rel(p, out): n for p, n in _arrow_rows(mart_paths).items()})
    else:
        row_counts.update({_rel(p, out): pq.ParquetFile(p).metadata.num_rows for p in mart_paths})
    row_counts[INPUT_FILES] = len(input_files)
    inside = [p for p in trec_files if out.resolve() in p.resolve().parents]
    for path in inside:
        with open(path, encoding="utf-8") as fh:
            row_counts[_rel(path, out)] = sum(1 for _ in fh)
    card = out / CARD
    card.write_text(
        dataset_card(
            output_format=output_format,
            corpora=wanted,
            n_conversations=table.num_rows,
            conversation_counts=conversation_counts,
            subset_counts=subset_counts,
            row_counts=row_counts,
            conversation_columns=[(f.name, str(f.type)) for f in table.schema],
            conversation_files=[_rel(p, out) for p in conversation_files],
            marts={p.stem: _rel(p, out) for p in mart_paths},
            mart_docs=mart_docs,
            corpus_rows=corpus_rows,
            n_input_files=len(input_files),
            build=build,
            languages=languages,
            trec_files=[_rel(p, out) for p in inside],
            left_out=sorted(set(mart_docs) - {p.stem for p in mart_paths}),
            folder=out.as_posix(),
        ),
        encoding="utf-8",
    )
    _write_licences(out / LICENCES, corpus_rows, wanted, subset_counts)
    _write_manifest(out, before, build, output_format)
    return ExportResult(
        out=out,
        format=output_format,
        corpora=wanted,
        n_conversations=table.num_rows,
        conversation_files=list(conversation_files),
        marts=mart_paths,
        trec_files=trec_files,
        card=card,
        row_counts=row_counts,
    )
