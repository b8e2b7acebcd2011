"""text_diversity: Distinct-1 and Distinct-2 of the utterances of every corpus.

One row per corpus x subset x system x side x variant (see ``_diversity__models.yml``):

* scopes -- the whole corpus (subset and system ``(all)``), each subset (CRSArena: each
  crowdsourcing environment), each system (conversations with a ``system_id``) and each
  subset x system;
* sides -- ``all`` utterances (what the CRSArena-Dial analysis measures), ``user`` or
  ``system`` utterances only;
* variants -- ``dataset``: the CRSArena-Dial analysis' own definition, the default;
  ``plain``: every utterance, lower-cased whitespace tokens, no truncation.

The ``dataset`` variant follows the definition in CRSArena-Dial's ``tool/metrics.py`` (the
truncated Distinct-n of Joko et al. 2024 after Tevet et al. 2021) as its ``analysis.ipynb``
calls it (n = 2, tokenizer ``split``, lower-casing on):

1. the utterances in file order (conversations by source file and record position, then turn
   order) are shuffled with ``random.Random(42)``'s ``sample(utterances, len(utterances))``,
   100 times in a row from the one seeded generator;
2. each shuffle is truncated to 7,012 words: utterances are taken whole while the running
   count of their ``str.split()`` words stays within 7,012; the first that would overflow is
   cut to the words still allowed (joined by single spaces) and the walk stops;
3. each kept utterance is tokenised as the analysis does: lower-case, every ``.`` and every
   newline removed (words across a newline join), split on the space character only, empty
   tokens dropped; n-grams never cross utterances;
4. Distinct-n = distinct n-grams / n-grams over the kept utterances (0 without n-grams), and
   the figure is the mean of the 100 values (summed left to right, then divided by 100).

When a scope has no more than 7,012 words nothing is truncated and every shuffle gives the
same value (the figure is then not length-normalised: ``is_truncated`` is false).

The figures are computed (``csrwh.measures.diversity`` chooses) for a corpus of at most
``IN_MEMORY_BYTES`` of text (64 MiB) in memory (``csrwh.measures.in_memory``: token ids in
numpy, the faster on small corpora), a larger one by ``csrwh.measures.distinct_n``'s set-based work in DuckDB, texts streamed
in batches (memory does not grow with a corpus's length), the same rows either way; the seeded
shuffles by ``csrwh.measures.shuffles``. Per-corpus partitions (``csrwh.building.partitions``): a corpus whose
inputs and code are unchanged is carried over from the previous table.
"""

from __future__ import annotations

from csrwh.building.partitions import code_version, corpus_digests, partitions, sql_list
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
            "csrwh.measures.distinct_keys",
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
