"""text_diversity: Distinct-1 and Distinct-2 of the utterances of every corpus.

One row per corpus x subset x system x side x variant (see ``_diversity__models.yml``); the
``dataset`` variant is CRSArena-Dial's truncated Distinct-n (100 seeded shuffles cut to 7,012
words), ``plain`` every utterance untruncated. ``csrwh.measures.diversity`` picks the engine;
a corpus whose inputs and code are unchanged is carried over from the previous table.
Details: docs/internals.md#models-marts-measures-text_diversity
"""

from __future__ import annotations

from csrwh.dbt_support.partitions import code_version, corpus_digests, partitions, sql_list
from csrwh.measures.distinct_n import SCHEMA
from csrwh.measures.diversity import INPUT_COLUMNS, corpus_rows


def model(dbt, session):
    dbt.config(
        materialized="incremental",
        incremental_strategy="replace",
        on_schema_change="sync_all_columns",
    )
    turns = dbt.ref("int_turns_unioned").project(
        "conversation_id, turn_index, role, text, is_image"
    )
    conversations = dbt.ref("conversations").project(
        "conversation_id as c_id, corpus, subset, system_id, source_path, source_record_index"
    )
    joined = turns.join(conversations, "conversation_id = c_id").filter(
        "text is not null and not coalesce(is_image, false)"
    )
    version = code_version(
        __file__,
        modules=[
            "csrwh.measures.distinct_n",
            "csrwh.measures.diversity",
            "csrwh.measures.in_memory",
            "csrwh.measures.shuffles",
            "csrwh.measures.tokens",
            "csrwh.measures.truncated",
        ],
        packages=["numpy", "pyarrow", "duckdb"],
    )
    plan = partitions(session, dbt, version, corpus_digests(joined, INPUT_COLUMNS))
    rows: dict[str, list] = {name: [] for name in SCHEMA.names}
    for corpus in plan.todo:  # one corpus at a time
        in_corpus = joined.filter(f"list_contains({sql_list([corpus])}, corpus)").project(
            ", ".join(INPUT_COLUMNS)
        )
        corpus_rows(session, in_corpus, corpus, rows)
    computed = pa_table(rows)
    return plan.finish(session, dbt, computed, SCHEMA).sort_by([("corpus", "ascending")])


def pa_table(rows: dict[str, list]):
    """The computed rows as an Arrow table of the mart's schema."""
    import pyarrow as pa

    return pa.table(rows, schema=SCHEMA)
