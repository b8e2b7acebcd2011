"""The dataset card (``README.md``, Hugging Face conventions) and ``LICENSES.md`` of an export."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from csrwh.errors import CsrwhError
from csrwh.reading.export.layout import (
    ALL_SPLITS,
    CONVERSATION_COLUMNS,
    CONVERSATIONS,
    INPUT_FILES,
    LICENCES,
    OTHER_LICENCE_NAME,
    SIZE_CATEGORIES,
    TASK_CATEGORIES,
)
from csrwh.reading.export.own_corpus import USERS_JSONL
from ingest import registry

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
        elif Path(rel).name == USERS_JSONL:
            what = (
                "the corpus' users with their profiles, one a line (id, subset, profile_text, "
                "keywords, attributes): with the records and corpus.json, an own corpus "
                "(docs/ADDING_A_CORPUS.md)"
            )
        elif rel.endswith("topics.tsv"):
            what = "TREC topics: topic id, tab, the intent's standalone query or the linked turn's text"
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
                "One folder per corpus with relevance judgments (an own corpus as `custom-<name>`): "
                "`qrels.<kind>.txt` (`topic 0 doc grade`) for each of its judgment kinds and `all`, and "
                "`topics.tsv`; evaluate a run with `csrwh eval RUN --corpus NAME` or any trec_eval."
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
