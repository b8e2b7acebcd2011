"""Length measures of every utterance that need Python: segmented words and cl100k tokens.

One row per utterance of ``int_turns_unioned`` (every corpus' conformed turns), keyed like them by
``(conversation_id, turn_index)``; the ``turns`` mart joins it. Definitions and the
offline, hash-verified token encoding: ``csrwh.text_measures``. ``zh_min_han_share`` (var,
passed in as config) decides which texts are Chinese and get segmented.
"""

from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pyarrow as pa

from csrwh.text_measures import segmented_word_count, token_count

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


#: The model's column types (also of an empty table).
SCHEMA = pa.schema(
    [
        ("conversation_id", pa.string()),
        ("turn_index", pa.int32()),
        ("is_segmented", pa.bool_()),
        ("n_words_segmented", pa.int32()),
        ("n_tokens", pa.int32()),
        ("n_tokens_translation", pa.int32()),
    ]
)
#: Turns measured at a time: only their texts are Python strings at once.
BATCH_ROWS = 8192


def model(dbt, session):
    dbt.config(materialized="table")
    min_han_share = float(dbt.config.get("zh_min_han_share"))
    # dbt reads refs from the source, so a Python model needs literal ones: every corpus'
    # conformed turns come unioned in one model (the registry's list lives in SQL)
    unioned = dbt.ref("int_turns_unioned")
    turns = unioned.select("conversation_id, turn_index, text, text_translation")
    reader = getattr(turns, "to_arrow_reader", None) or turns.fetch_record_batch
    parts = [
        pa.Table.from_pandas(
            text_measures(batch.to_pandas(), min_han_share), schema=SCHEMA, preserve_index=False
        )
        for batch in reader(BATCH_ROWS)
    ]
    table = pa.concat_tables(parts) if parts else SCHEMA.empty_table()
    del parts
    return table.sort_by([("conversation_id", "ascending"), ("turn_index", "ascending")])
