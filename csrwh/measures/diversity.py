"""Which engine computes a corpus's ``text_diversity`` rows.

A corpus whose texts total at most :data:`IN_MEMORY_BYTES` is computed in memory
(:mod:`csrwh.measures.in_memory`: token ids in numpy, ~7 bytes of memory per byte of text,
about half the CPU of the bounded engine on the real corpora, whose largest, RecLLMSim, has
43 MB of text); a larger one by the bounded engine (:mod:`csrwh.measures.distinct_n`: texts
streamed, set-based work in DuckDB, memory that does not grow with the corpus). Both give the
same rows (``tests/integration/test_text_diversity_engine.py``).
"""

from __future__ import annotations

from csrwh.measures import distinct_n, in_memory

__all__ = ["INPUT_COLUMNS", "IN_MEMORY_BYTES", "corpus_rows"]

#: The inputs of a corpus's rows (the columns :func:`corpus_rows` reads): a corpus whose rows
#: of these columns are unchanged keeps its rows (``csrwh.dbt_support.partitions``).
INPUT_COLUMNS = (
    "conversation_id",
    "turn_index",
    "role",
    "text",
    "subset",
    "system_id",
    "source_path",
    "source_record_index",
)

#: The largest corpus (bytes of UTF-8 text) computed in memory.
IN_MEMORY_BYTES = 64 * 2**20


def corpus_rows(con, utterances, corpus: str, rows: dict[str, list]) -> None:
    """Append the rows of one corpus to ``rows`` (column lists of the mart's schema) from a
    relation on ``con`` of its utterances (the columns of
    :func:`csrwh.measures.distinct_n.corpus_rows`), by the engine its size calls for. Two
    utterances with one (``conversation_id``, ``turn_index``) key are an error."""
    n, keys, size = utterances.aggregate(
        "count(*), count(distinct (conversation_id, turn_index)), "
        "coalesce(sum(strlen(text)), 0)::bigint"
    ).fetchall()[0]
    if n != keys:
        raise ValueError(
            f"text_diversity: {corpus}: {n} utterances but {keys} distinct "
            "(conversation_id, turn_index) keys"
        )
    if size <= IN_MEMORY_BYTES:
        in_memory.corpus_rows(utterances, corpus, rows)
    else:
        distinct_n.corpus_rows(con, utterances, corpus, rows)
