"""The Distinct-n engine of the ``text_diversity`` mart, in bounded memory.

Computes one corpus's rows from a DuckDB relation of its utterances without holding its texts
or token ids: texts are streamed in batches and the set-based work is SQL on work tables that
DuckDB can spill. Same figures as the in-memory engine
(``tests/integration/test_text_diversity_engine.py``).
Details: docs/internals.md#csrwh-measures-distinct_n
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from csrwh.measures.tokens import dataset_tokens, plain_tokens, token_grams
from csrwh.measures.tokens import lower as _lower
from csrwh.measures.tokens import release as _release
from csrwh.measures.truncated import Scope as _Scope
from csrwh.measures.truncated import dataset_figures

__all__ = [
    "ALL",
    "BATCH_ROWS",
    "ITERATIONS",
    "MAX_WORDS",
    "SCHEMA",
    "SEED",
    "SIDES",
    "VARIANTS",
    "Utterances",
    "corpus_rows",
    "dataset_tokens",
    "plain_tokens",
    "scopes_of",
    "text_diversity",
]

ALL = "(all)"
SIDES = ("all", "user", "system")
VARIANTS = ("dataset", "plain")
MAX_WORDS = 7012
ITERATIONS = 100
SEED = 42
#: Utterances streamed from DuckDB at a time (their texts are tokenised and dropped).
BATCH_ROWS = 8192
SCHEMA = pa.schema(
    [
        ("corpus", pa.string()),
        ("subset", pa.string()),
        ("system_id", pa.string()),
        ("side", pa.string()),
        ("variant", pa.string()),
        ("n_conversations", pa.int64()),
        ("n_utterances", pa.int64()),
        ("n_words", pa.int64()),
        ("max_words", pa.int64()),
        ("is_truncated", pa.bool_()),
        ("iterations", pa.int64()),
        ("seed", pa.int64()),
        ("distinct_1", pa.float64()),
        ("distinct_2", pa.float64()),
    ]
)


def scopes_of(keys) -> list[tuple[str, str, str]]:
    """(corpus, subset, system) of every scope of the (corpus, subset, system) ``keys``."""
    out = set()
    for corpus, subset, system in keys:
        out.add((corpus, ALL, ALL))
        out.add((corpus, subset, ALL))
        if system is not None:
            out.add((corpus, ALL, system))
            out.add((corpus, subset, system))
    return sorted(out)


def _plain_grams(lowered: pa.Array, groups: np.ndarray) -> tuple[np.ndarray, pa.Table]:
    """Words per utterance and the (``n``, ``g``, ``gram``) of a batch: its plain unigrams and
    bigrams per scope group ``g`` (``groups``: each utterance's), repeats included."""
    lists = pc.utf8_split_whitespace(lowered)  # str.split(): Python's whitespace
    tokens = pc.list_flatten(lists)
    owner = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False)
    kept = pc.greater(pc.binary_length(tokens), 0)  # empty tokens (ends) are dropped
    tokens = tokens.filter(kept)
    owner = owner[kept.to_numpy(zero_copy_only=False)]
    words = np.bincount(owner, minlength=len(lowered)).astype(np.int64)
    grams = token_grams(tokens, owner, groups[owner], "g").select(["n", "g", "gram"])
    return words, grams


def _stream(con, src: str, utt: str, counts: str, grams: str, batch_rows: int) -> None:
    """Tokenise the texts batch by batch into the ``counts`` (by key) and ``grams`` tables.

    The texts stream straight from ``src``, joined to nothing: a text's scope group ``g`` is
    looked up by its (subset, system, role) in the few groups of ``utt``, and its counts are
    keyed by (conversation_id, turn_index), joined to ``utt`` once afterwards. (Looking each
    batch up in ``utt`` instead scans the whole table per batch: quadratic in the corpus's
    length.)"""
    group_of = {
        (subset, system, role): g
        for g, subset, system, role in con.execute(
            f"select distinct g, subset, system_id, role from {utt}"
        ).fetchall()
    }
    relation = con.sql(
        f"select conversation_id, turn_index, subset, system_id, role, text from {src}"
    )
    reader = getattr(relation, "to_arrow_reader", None) or relation.fetch_record_batch
    writer = con.cursor()  # con's result stays open while the batches are written
    for batch in reader(batch_rows):
        lowered = _lower(batch.column("text"))
        groups = np.fromiter(
            map(
                group_of.__getitem__,
                zip(
                    batch.column("subset").to_pylist(),
                    batch.column("system_id").to_pylist(),
                    batch.column("role").to_pylist(),
                    strict=True,
                ),
            ),
            np.int64,
            batch.num_rows,
        )
        words, found = _plain_grams(lowered, groups)
        writer.from_arrow(
            pa.table(
                {
                    "conversation_id": batch.column("conversation_id"),
                    "turn_index": batch.column("turn_index"),
                    "n_words": pa.array(words),
                    "n_bytes": pc.binary_length(lowered).cast(pa.int64()),
                }
            )
        ).insert_into(counts)
        # a batch's grams repeat (common words, one group's phrases): only its distinct ones are
        # kept, so the work table grows with the vocabulary, not with the words
        writer.from_arrow(found).distinct().insert_into(grams)
        del lowered, found
        _release()


def _tables(tag: str) -> Iterator[str]:
    """Names of the work tables, in the work database ``tag`` (:func:`corpus_rows`)."""
    out = f"{tag}_out"  # written while a query reads {tag}: checkpointed on its own
    return iter([f"{tag}.utt", f"{out}.counts", f"{out}.grams", f"{tag}.members"])


def _work_folder(con) -> str | None:
    """Where the work database goes: DuckDB's own temp directory (the build's), if set."""
    try:
        (folder,) = con.execute("select current_setting('temp_directory')").fetchall()[0]
    except Exception:  # noqa: BLE001 - no such setting: the system's temp folder
        return None
    if not folder or not os.path.isdir(os.path.dirname(os.path.abspath(folder))):
        return None
    os.makedirs(folder, exist_ok=True)
    return folder


def corpus_rows(con, utterances, corpus: str, rows: dict[str, list], batch_rows: int = 0):
    """Append the rows of one corpus to ``rows`` (column lists of :data:`SCHEMA`).

    ``utterances``: a relation on ``con`` of the corpus's utterances (columns
    ``conversation_id, turn_index, role, text, subset, system_id, source_path,
    source_record_index``; text not NULL). The work tables live in a DuckDB file of their
    own in DuckDB's temp directory, attached for the call and deleted after it: checkpointed
    there, DuckDB evicts their blocks under its memory limit (data not yet checkpointed is
    held in memory), and the warehouse's own file is not written. (The model calls it through
    :func:`csrwh.measures.diversity.corpus_rows`, which computes small corpora in memory.)"""
    tag = f"_td_{uuid.uuid4().hex[:12]}"
    src = f"{tag}_src"
    with tempfile.TemporaryDirectory(prefix="text_diversity-", dir=_work_folder(con)) as folder:
        path = os.path.join(folder, "work.duckdb").replace("'", "''")
        con.execute(f"attach '{path}' as {tag}")
        out = os.path.join(folder, "out.duckdb").replace("'", "''")
        con.execute(f"attach '{out}' as {tag}_out")
        utterances.create_view(src)
        try:
            _corpus_rows(con, corpus, rows, src, tag, batch_rows)
        finally:
            con.execute(f"drop view if exists {src}")
            con.execute(f"detach {tag}")
            con.execute(f"detach {tag}_out")
            _release()


def _corpus_rows(con, corpus, rows, src, tag, batch_rows) -> None:
    utt, counts, grams, members = _tables(tag)
    con.execute(
        f"create table {utt} as select (row_number() over (order by source_path, "
        "source_record_index, conversation_id, turn_index) - 1)::bigint as ord, "
        "conversation_id, turn_index, (dense_rank() over (order by subset, system_id, role) - 1)"
        f"::bigint as g, subset, system_id, role from {src}"
    )
    n, keys = con.execute(
        f"select count(*), count(distinct (conversation_id, turn_index)) from {utt}"
    ).fetchall()[0]
    if n != keys:
        raise ValueError(
            f"text_diversity: {corpus}: {n} utterances but {keys} distinct "
            "(conversation_id, turn_index) keys"
        )
    con.execute(
        f"create table {counts} as select conversation_id, turn_index, 0::bigint as n_words, "
        f"0::bigint as n_bytes from {utt} limit 0"
    )
    con.execute(f"create table {grams} (n tinyint, g bigint, gram varchar)")
    con.execute(f"checkpoint {tag}")
    _stream(con, src, utt, counts, grams, batch_rows or BATCH_ROWS)
    con.execute(f"checkpoint {tag}_out")
    con.execute(
        f"create or replace table {utt} as select u.*, c.n_words, c.n_bytes from {utt} u "
        f"join {counts} c using (conversation_id, turn_index)"
    )
    con.execute(f"drop table {counts}")
    con.execute(f"checkpoint {tag}")
    groups = con.execute(
        f"select g, subset, system_id, role, count(*), sum(n_words)::bigint, "
        f"sum(greatest(n_words - 1, 0))::bigint from {utt} group by all order by g"
    ).fetchall()
    keys = {(corpus, subset, system) for _, subset, system, _, _, _, _ in groups}
    scopes: list[_Scope] = []
    for _, s, m in scopes_of(keys):
        for side in SIDES:
            chosen = [
                row
                for row in groups
                if (s == ALL or row[1] == s)
                and (m == ALL or row[2] == m)
                and (side == "all" or row[3] == side)
            ]
            if chosen:
                scopes.append(
                    _Scope(
                        s,
                        m,
                        side,
                        [row[0] for row in chosen],
                        n_utterances=sum(row[4] for row in chosen),
                        n_words=sum(row[5] for row in chosen),
                        n_bigrams=sum(row[6] for row in chosen),
                    )
                )
    con.from_arrow(
        pa.table(
            {
                "scope": pa.array(
                    [i for i, sc in enumerate(scopes) for _ in sc.groups], pa.int64()
                ),
                "g": pa.array([g for sc in scopes for g in sc.groups], pa.int64()),
            }
        )
    ).create(members)
    # a scope's distinct n-grams (conversations): those whose groups meet the scope's, the
    # groups of each n-gram (conversation) as a bit string (one pass, no per-scope copies)
    top = max(len(groups) - 1, 1)
    masks = (
        f"scopes as (select scope, bitstring_agg(g, 0, {top}) as mask from {members} "
        "group by scope)"
    )
    for scope_id, count in con.execute(
        f"with {masks}, found as (select bitstring_agg(g, 0, {top}) as mask from {utt} "
        "group by conversation_id) select scope, count(*) from found, scopes "
        "where bit_count(found.mask & scopes.mask) > 0 group by all"
    ).fetchall():
        scopes[scope_id].n_conversations = count
    for scope_id, size, count in con.execute(
        f"with {masks}, found as (select n, bitstring_agg(g, 0, {top}) as mask from {grams} "
        "group by n, gram) select scope, n, count(*) from found, scopes "
        "where bit_count(found.mask & scopes.mask) > 0 group by all"
    ).fetchall():
        scopes[scope_id].distinct[size] = count
    con.execute(f"drop table {grams}")
    dataset_figures(con, src, tag, scopes, batch_rows or BATCH_ROWS, (MAX_WORDS, ITERATIONS, SEED))
    for scope in scopes:
        plain = (
            scope.distinct.get(1, 0) / scope.n_words if scope.n_words else 0.0,
            scope.distinct.get(2, 0) / scope.n_bigrams if scope.n_bigrams else 0.0,
        )
        for variant, (d1, d2) in (("dataset", scope.dataset), ("plain", plain)):
            if variant == "dataset":
                limits = (MAX_WORDS, scope.n_words > MAX_WORDS, ITERATIONS, SEED)
            else:
                limits = (None, False, 1, None)
            values = (
                corpus,
                scope.subset,
                scope.system,
                scope.side,
                variant,
                scope.n_conversations,
                scope.n_utterances,
                scope.n_words,
                *limits,
                d1,
                d2,
            )
            for name, value in zip(SCHEMA.names, values, strict=True):
                rows[name].append(value)


class Utterances(NamedTuple):
    """Utterances in file order, one list per column (:func:`text_diversity`)."""

    corpus: list[str]
    subset: list[str]
    system_id: list[str | None]
    conversation_id: list[str]
    role: list[str]
    text: list[str]


def text_diversity(u: Utterances) -> pa.Table:
    """The mart's rows of the utterances (in file order), in key order (in-memory DuckDB)."""
    import duckdb

    n = len(u.text)
    table = pa.table(
        {
            **{name: pa.array(getattr(u, name), pa.string()) for name in Utterances._fields},
            "turn_index": pa.array(range(n), pa.int64()),
            "source_path": pa.array([""] * n, pa.string()),
            "source_record_index": pa.array(range(n), pa.int64()),
        }
    )
    rows: dict[str, list] = {name: [] for name in SCHEMA.names}
    with duckdb.connect() as con:
        relation = con.from_arrow(table)
        for corpus in sorted(set(u.corpus)):
            corpus_rows(
                con, relation.filter(duckdb.ColumnExpression("corpus") == corpus), corpus, rows
            )
    return pa.table(rows, schema=SCHEMA)
