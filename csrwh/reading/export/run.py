"""`csrwh export`'s entry point: the folder, the records, the marts, TREC files and the card."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from csrwh.errors import CsrwhError
from csrwh.reading.export.card import dataset_card
from csrwh.reading.export.facts import _build_info, _corpora_rows, _input_files, _mart_docs
from csrwh.reading.export.folder import (
    _check_folder,
    _prepare_folder,
    _rel,
    _within,
    _write_input_files,
    _write_licences,
    _write_manifest,
    snapshot,
)
from csrwh.reading.export.layout import (
    CARD,
    FORMATS,
    INPUT_FILES,
    LICENCES,
    MARTS_DIR,
    ExportResult,
)
from csrwh.reading.export.own_corpus import (
    corpus_json,
    users_lines,
    write_corpus_json,
    write_users_jsonl,
)
from csrwh.reading.export.records import (
    _arrow_rows,
    _conversations_table,
    _marts_as_arrow,
    _write_conversations,
)

# ---------------------------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------------------------


def _judged_collections(con, corpora: Sequence[str]) -> list[str]:
    """The collections with relevance judgments among ``corpora``, in order."""
    return [
        row[0]
        for row in con.execute(
            "select distinct collection from relevance_judgments "
            "where list_contains($corpora, corpus) order by collection",
            {"corpora": list(corpora)},
        ).fetchall()
    ]


def export(
    warehouse: Path,
    out: Path,
    output_format: str = "parquet",
    corpora: Sequence[str] = (),
    trec_dir: Path | None = None,
) -> ExportResult:
    """Export the conversation records, the marts and (``trec_dir``) the TREC files into ``out``
    with a dataset card; see the module docstring."""
    from csrwh.reading import trec
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
        trec_collections = _judged_collections(con, wanted) if trec_dir is not None else []
        if trec_dir is not None and not trec_collections:
            raise CsrwhError(
                "--trec writes relevance judgments, but none of the exported corpora has any",
                hint="add a --corpus that has judgments (`csrwh eval` names them), or leave out --trec",
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
            before_trec = snapshot(Path(trec_dir))
        before = snapshot(out)
        try:
            table = _conversations_table(con, corpora)
            trec_files = (
                trec.export_trec(con, trec_dir, trec_collections) if trec_dir is not None else []
            )
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
        described = (
            {c: corpus_json(con, c, corpus_rows) for c in wanted}
            if output_format == "jsonl"
            else {}
        )
        users = {c: users_lines(con, c) for c in wanted} if output_format == "jsonl" else {}
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
        write_corpus_json(out, described)  # jsonl: what a rebuild as own corpora needs
        user_files = write_users_jsonl(out, users)
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
    row_counts.update({_rel(p, out): n for p, n in user_files.items()})
    inside = [p for p in trec_files if out.resolve() in p.resolve().parents]
    for path in inside:
        with open(path, encoding="utf-8") as fh:
            row_counts[_rel(path, out)] = sum(1 for _ in fh)
    card = out / CARD
    try:
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
    finally:  # last, also when the card or licences fail
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
