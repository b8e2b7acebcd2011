"""Tokenisers of text_diversity and the memory helpers its engine shares."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from csrwh.libc import glibc

__all__ = [
    "arrow_dataset_tokens",
    "dataset_tokens",
    "keyed_texts",
    "lower",
    "plain_tokens",
    "release",
    "token_grams",
]


def dataset_tokens(text: str) -> list[str]:
    """The analysis' ``split`` tokeniser with lower-casing."""
    return [t for t in text.lower().replace(".", "").replace("\n", "").split(" ") if t != ""]


def plain_tokens(text: str) -> list[str]:
    """Lower-cased whitespace tokens (``str.split()``: any Unicode whitespace)."""
    return text.lower().split()


def arrow_dataset_tokens(lowered: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """The dataset tokeniser by Arrow kernels on lower-cased texts ('.' and newlines removed,
    split on the space character, empty tokens dropped): the tokens, and their count per
    text."""
    lists = pc.split_pattern(
        pc.replace_substring(pc.replace_substring(lowered, ".", ""), "\n", ""), " "
    )
    tokens = pc.list_flatten(lists)
    owner = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False)
    kept = pc.greater(pc.binary_length(tokens), 0)
    lengths = np.bincount(owner[kept.to_numpy(zero_copy_only=False)], minlength=len(lowered))
    return tokens.filter(kept), lengths.astype(np.int64)


def token_grams(tokens: pa.Array, owner: np.ndarray, labels: np.ndarray, key: str) -> pa.Table:
    """(``key``, ``n``, ``gram``) of tokenised texts: their unigrams and bigrams (two tokens
    joined by a space, which no token holds), n-grams never crossing texts; ``owner``: each
    token's text, ``labels``: each token's ``key`` value. Not made distinct here: the caller's
    SQL does it, faster than Arrow's group_by."""
    same = owner[1:] == owner[:-1]
    mask = pa.array(same)
    bigrams = pc.binary_join_element_wise(
        tokens.slice(0, max(len(tokens) - 1, 0)).filter(mask),
        tokens.slice(1).filter(mask),
        pa.scalar(" ", pa.large_string()),
    )
    parts = [
        pa.table(
            {
                key: pa.array(of, pa.int64()),
                "n": pa.array(np.full(len(grams), n, np.int8)),
                "gram": grams.cast(pa.large_string()),
            }
        )
        for n, grams, of in ((1, tokens, labels), (2, bigrams, labels[:-1][same]))
    ]
    return pa.concat_tables(parts)


def release() -> None:
    """Hand freed pages back to the system (Arrow's pool; glibc's heap: ``malloc_trim``)."""
    pa.default_memory_pool().release_unused()
    libc = glibc()
    if libc is not None:
        libc.malloc_trim(0)


def lower(texts: pa.Array | pa.ChunkedArray, step: int = 4096) -> pa.Array:
    """The texts lower-cased by Python's ``str.lower`` (NULL as ''), ``step`` Python strings
    at a time."""
    parts = [
        pa.array(
            [t.lower() if t else "" for t in texts.slice(at, step).to_pylist()], pa.large_string()
        )
        for at in range(0, len(texts), step)
    ]
    return pa.concat_arrays(parts) if parts else pa.array([], pa.large_string())


def keyed_texts(con, src: str, keys: str, columns: str, batch_rows: int) -> Iterator[pa.Table]:
    """The texts of ``src`` (``conversation_id, turn_index, text``) whose keys are in the table
    ``keys``, in batches, each with that table's ``columns``. The texts stream unjoined; each
    batch's keys are looked up in ``keys`` (the batch is the join's build side), so DuckDB never
    holds the texts in a hash table. Each batch scans ``keys`` whole: for a key table that
    does not grow with the corpus (the utterances truncated reads hold), not for every
    utterance of it."""
    relation = con.sql(f"select conversation_id, turn_index, text from {src}")
    reader = getattr(relation, "to_arrow_reader", None) or relation.fetch_record_batch
    lookup = con.cursor()  # con's result stays open while the batches are looked up
    name = f"_td_batch_{uuid.uuid4().hex[:12]}"
    for batch in reader(batch_rows):
        texts = pa.table(
            {
                "conversation_id": batch.column("conversation_id"),
                "turn_index": batch.column("turn_index"),
                "at": pa.array(np.arange(batch.num_rows, dtype=np.int64)),
            }
        )
        lookup.register(name, texts)
        try:
            found = lookup.sql(
                f"select b.at, {columns} from {name} b join {keys} k "
                "using (conversation_id, turn_index) order by b.at"
            ).to_arrow_table()
        finally:
            lookup.unregister(name)
        if found.num_rows:
            text = batch.column("text").take(found.column("at"))
            yield found.drop_columns(["at"]).append_column("text", text)
