"""`csrwh export`: the warehouse as files other tools read, with a dataset card.

One export folder holds

* the conversation records of :func:`csrwh.load` (one row per conversation: ids, metadata,
  ``messages`` as ``[{role, content}]``, per-turn annotations, ratings, the deterministic
  ``split``) as ``conversations.parquet``, ``conversations.jsonl`` (one JSON object a line) or,
  for ``hf``, ``conversations/``: a ``datasets.DatasetDict`` (``train`` / ``validation`` /
  ``test`` by the ``split`` column) written with ``save_to_disk``;
* every mart as ``marts/<mart>.parquet`` (with ``--corpus``: the corpora's rows, see
  :func:`csrwh.query.export_marts`);
* with ``--trec``: CoSRec's qrels and topics as TREC files (:func:`csrwh.evaluate.export_trec`);
* ``README.md``, a dataset card in the Hugging Face conventions: YAML front matter (licences,
  languages, pretty name, size category, one config per file) and a body with every file and
  its row count, each corpus' licence, citation and upstream, the build id and the sha256 of
  every input file the warehouse was built from, and the description of every column;
* ``.csrwh-export.json``, the list of files written, so that exporting into the same folder
  again first removes exactly the previous export's files (a folder holding anything else is
  refused, never cleared).

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

#: Column descriptions of the conversation records (csrwh.api.CONVERSATIONS_SQL).
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


def _prepare_folder(out: Path) -> None:
    """Create ``out``, or empty it of a previous export's files; refuse any other content."""
    if out.exists() and not out.is_dir():
        raise CsrwhError(f"export folder {out} is a file", hint="choose a folder with --out")
    out.mkdir(parents=True, exist_ok=True)
    entries = list(out.iterdir())
    if not entries:
        return
    manifest = out / MANIFEST
    if not manifest.is_file():
        raise CsrwhError(
            f"export folder {out} is not empty and holds no earlier csrwh export ({MANIFEST})",
            hint="choose a new or empty folder with --out, or remove this one",
        )
    try:
        files = json.loads(manifest.read_text(encoding="utf-8"))["files"]
        if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise CsrwhError(
            f"{manifest}: not a csrwh export manifest (a JSON object with a 'files' list)",
            hint="remove the folder, or choose another --out",
        ) from None
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
    manifest.unlink()


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


def _rel(path: Path, out: Path) -> str:
    return path.resolve().relative_to(out.resolve()).as_posix()


# ---------------------------------------------------------------------------------------------
# conversation records
# ---------------------------------------------------------------------------------------------


def _conversations_table(con, corpora: Sequence[str]):
    from csrwh.api import conversations_relation
    from csrwh.query import _string_literal

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


def _write_conversations(table, out: Path, output_format: str) -> dict[Path, int]:
    """Write the records; returns each data file written with its row count."""
    if output_format == "parquet":
        import pyarrow.parquet as pq

        path = out / f"{CONVERSATIONS}.parquet"
        pq.write_table(table, path)
        return {path: pq.ParquetFile(path).metadata.num_rows}
    if output_format == "jsonl":
        path = out / f"{CONVERSATIONS}.jsonl"
        n = 0
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            for batch in table.to_batches(max_chunksize=1000):
                for row in batch.to_pylist():
                    fh.write(
                        json.dumps(_plain(row), ensure_ascii=False, allow_nan=False, default=str)
                        + "\n"
                    )
                    n += 1
        return {path: n}
    import datasets
    import pyarrow.compute as pc

    from csrwh.api import SPLIT_RATIOS

    folder = out / CONVERSATIONS
    splits = {
        name: datasets.Dataset(
            datasets.table.InMemoryTable(table.filter(pc.equal(table["split"], name)))
        )
        for name in SPLIT_RATIOS
    }
    was_enabled = datasets.utils.logging.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # one summary line from the CLI instead
    try:
        datasets.DatasetDict(splits).save_to_disk(str(folder))
    finally:
        if was_enabled:
            datasets.enable_progress_bars()
    written: dict[Path, int] = {}
    for name in SPLIT_RATIOS:
        arrows = sorted((folder / name).glob("*.arrow"))
        counts = _arrow_rows(arrows)
        written.update(counts)
    return written


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
    from csrwh.query import list_marts

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
    import yaml

    if output_format == "hf":
        data_files: Any = [
            {"split": split, "path": f"{CONVERSATIONS}/{split}/*.arrow"}
            for split in dict.fromkeys(Path(f).parent.name for f in conversation_files)
        ]
    else:
        data_files = conversation_files[0]
    configs = [{"config_name": CONVERSATIONS, "data_files": data_files, "default": True}]
    configs += [{"config_name": f"mart_{name}", "data_files": path} for name, path in marts.items()]
    meta = {
        "license": licences if len(licences) > 1 else licences[0],
        **({"language": languages} if languages else {}),
        "pretty_name": "CSR Warehouse export: " + ", ".join(corpora),
        "size_categories": [size_category(n_conversations)],
        "tags": ["conversational-search", "conversational-recommendation", "dialogue"],
        "configs": configs,
    }
    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n"


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
    input_files: list[dict[str, Any]],
    build: dict[str, Any],
    languages: list[str],
    trec_files: list[str],
    left_out: Sequence[str] = (),
) -> str:
    """The card's text (front matter + body)."""
    by_corpus: dict[str, list[dict[str, Any]]] = {c: [] for c in corpora}
    for row in corpus_rows:
        by_corpus.setdefault(row["corpus"], []).append(row)
    seeded = {(r["corpus"], r.get("subset")): r for r in corpus_rows}
    licence_of = {
        c: sorted(
            {r.get("licence") or "unknown" for r in rows}
            | {UNKNOWN_LICENCE for (corpus, subset) in subset_counts
               if corpus == c and _own_licence(corpus) and (corpus, subset) not in seeded}
        ) or [UNKNOWN_LICENCE]
        for c, rows in by_corpus.items()
    }  # fmt: skip
    licences = sorted({hf_license(lic) for lics in licence_of.values() for lic in lics})
    lines = [
        _front_matter(
            licences=licences,
            languages=languages,
            n_conversations=n_conversations,
            output_format=output_format,
            conversation_files=conversation_files,
            marts=marts,
            corpora=corpora,
        ),
        f"# CSR Warehouse export: {', '.join(corpora)}",
        "",
        (
            f"{n_conversations} conversations of {len(corpora)} conversational search and recommendation "
            f"corpora ({', '.join(corpora)}), exported by `csrwh export --format {output_format}` from the "
            f"CSR Warehouse build `{build.get('build_id', 'unknown')}`: one record per conversation in the "
            "chat-message shape (`messages` as `{role, content}`), with every mart of the warehouse as Parquet."
        ),
        "",
        "## Files",
        "",
        "| file | rows | content |",
        "|---|---:|---|",
    ]
    for rel, n in row_counts.items():
        if rel in conversation_files:
            what = "conversation records" + (
                f" (split `{Path(rel).parent.name}`)" if output_format == "hf" else ""
            )
        elif rel in marts.values():
            name = Path(rel).stem
            what = (
                f"mart `{name}`: {_first_sentence(mart_docs.get(name, {}).get('description', ''))}"
            )
        elif rel.endswith("topics.tsv"):
            what = "TREC topics: topic id, tab, the standalone query of the intent"
        else:
            what = "TREC qrels (topic 0 doc grade), kind " + rel.rsplit("/", 1)[-1].split(".")[1]
        lines.append(f"| `{_cell(rel)}` | {n} | {_cell(what)} |")
    if left_out:
        lines += [
            "",
            f"Marts left out by `--corpus` (not split by corpus, or without rows of {', '.join(corpora)}): "
            + ", ".join(f"`{name}`" for name in left_out)
            + ".",
        ]
    lines += ["", "## Loading", "", "```python"]
    if output_format == "hf":
        lines += [
            "import datasets",
            "",
            f'ds = datasets.load_from_disk("{CONVERSATIONS}")   # train / validation / test',
        ]
    else:
        builder = "parquet" if output_format == "parquet" else "json"
        lines += [
            "from datasets import load_dataset",
            "",
            f'ds = load_dataset("{builder}", data_files="{conversation_files[0]}")["train"]   # all splits',
            'test = ds.filter(lambda r: r["split"] == "test")',
        ]
    if marts:
        first = next(iter(marts.values()))
        lines.append(f'mart = load_dataset("parquet", data_files="{first}")["train"]')
    lines += ["```", ""]
    lines += [
        "## Corpora",
        "",
        "| corpus | conversations | licence | upstream | citation |",
        "|---|---:|---|---|---|",
    ]
    for corpus, rows in by_corpus.items():
        upstream = sorted({r.get("upstream_url") or "" for r in rows} - {""})
        citations = sorted({r.get("citation") or "" for r in rows} - {""})
        citation = "; ".join(citations) or (
            f"cite the authors as the upstream asks: {upstream[0]}" if upstream else ""
        )
        lines.append(
            f"| {corpus} | {conversation_counts.get(corpus, 0)} | {_cell(', '.join(licence_of[corpus]))} "
            f"| {_cell(', '.join(upstream))} | {_cell(citation)} |"
        )
    lines += [
        "",
        "Subsets:",
        "",
        "| corpus | subset | conversations | language | domain | licence | description |",
        "|---|---|---:|---|---|---|---|",
    ]
    for key in sorted(set(seeded) | set(subset_counts)):  # a subset new to the seed too
        row = seeded.get(key, {})
        missing = UNKNOWN_LICENCE + (
            " (no corpus.json)" if _own_licence(key[0]) else " (subset not in the corpora seed)"
        )
        lines.append(
            f"| {key[0]} | {_cell(key[1])} | {subset_counts.get(key, 0)} | {_cell(row.get('language'))} "
            f"| {_cell(row.get('domain'))} | {_cell(row.get('licence') or missing)} "
            f"| {_cell(row.get('description'))} |"
        )
    lines += [
        "",
        (
            "Each corpus keeps its own licence: use and redistribute each part under its licence, and cite "
            "the corpora you use. `other` in the front matter stands for a licence given by the upstream "
            "(see its repository)."
        ),
        "",
        "## Provenance",
        "",
        (
            f"- build id: `{build.get('build_id', 'unknown')}`, built {str(build.get('built_at', 'unknown'))[:19]} UTC "
            f"by csrwh {build.get('csrwh_version', 'unknown')}"
        ),
        f"- inputs digest: `{build.get('inputs_digest', 'unknown')}` over {build.get('n_input_files', 'unknown')} input files",
        f"- input files of the exported corpora: {len(input_files)} (sha256 of each below)",
        "",
        "<details><summary>Input files and their sha256</summary>",
        "",
        "| corpus | file | sha256 | records |",
        "|---|---|---|---:|",
    ]
    lines += [
        f"| {f['corpus']} | `{_cell(f['source_path'])}` | `{f['file_sha256']}` | {f['n_records']} |"
        for f in input_files
    ]
    lines += [
        "",
        "</details>",
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
    from csrwh import evaluate as E
    from csrwh.query import connect_locked, export_marts

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
        _prepare_folder(out)
        before = {p for p in out.rglob("*") if p.is_file()}
        try:
            table = _conversations_table(con, corpora)
            trec_files = E.export_trec(con, trec_dir) if trec_dir is not None else []
        except BaseException:
            _write_manifest(out, before, {}, "")
            raise
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
    except BaseException:
        _write_manifest(out, before, build, output_format)
        raise

    import pyarrow.parquet as pq

    row_counts = {_rel(p, out): n for p, n in conversation_files.items()}
    row_counts.update({_rel(p, out): pq.ParquetFile(p).metadata.num_rows for p in mart_paths})
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
            input_files=input_files,
            build=build,
            languages=languages,
            trec_files=[_rel(p, out) for p in inside],
            left_out=sorted(set(mart_docs) - {p.stem for p in mart_paths}),
        ),
        encoding="utf-8",
    )
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
