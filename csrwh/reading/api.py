"""The Python API: the published warehouse as a read-only connection, or as conversation records.

``csrwh.connect()`` opens it read-only; ``csrwh.load()`` returns one record per conversation in
the chat-template shape (``messages`` as ``[{role, content}]``) with its metadata, ratings,
per-turn annotations and a deterministic ``split`` from the conversation id alone.
Details: docs/internals.md#csrwh-reading-api
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from csrwh.errors import CsrwhError

# split -> share of conversations (percent); the order is the bucket order
SPLIT_RATIOS: dict[str, int] = {"train": 80, "validation": 10, "test": 10}
FORMATS = ("polars", "pandas", "hf", "arrow")


def split_sql(column: str = "conversation_id") -> str:
    """The SQL expression that assigns a conversation to a split (see the module docstring)."""
    bucket = f"(cast(('0x' || left(md5({column}), 8)) as ubigint) % 100)"
    cases, upper = [], 0
    for name, share in SPLIT_RATIOS.items():
        upper += share
        cases.append(f"when {bucket} < {upper} then '{name}'")
    return "case " + " ".join(cases) + " end"


def split_of(conversation_id: str) -> str:
    """The split of one conversation id (the same rule as :func:`split_sql`, in Python)."""
    import hashlib

    bucket = int(hashlib.md5(conversation_id.encode("utf-8")).hexdigest()[:8], 16) % 100
    upper = 0
    for name, share in SPLIT_RATIOS.items():
        upper += share
        if bucket < upper:
            return name
    raise AssertionError("split ratios must sum to 100")


def _warehouse(warehouse: str | os.PathLike[str] | None) -> Path:
    from csrwh.config import resolve_warehouse

    path = resolve_warehouse(warehouse)
    if not path.is_file():
        raise CsrwhError(
            f"no warehouse at {path}",
            hint="build one with `csrwh build` (or `make demo`), or pass warehouse=/ set CSRWH_WAREHOUSE",
        )
    return path


def connect(warehouse: str | os.PathLike[str] | None = None):
    """A read-only DuckDB connection to the published warehouse (default: ``$CSRWH_WAREHOUSE``,
    else ``warehouse/csr.duckdb``). Marts are in the default schema: ``con.sql("from turns")``.
    It reads the file at the path now, also after a build published a new one while an older
    connection is still open (:mod:`csrwh.reading.opener`)."""
    from csrwh.reading.opener import open_read_only

    return open_read_only(_warehouse(warehouse))


CONVERSATIONS_SQL = """
with
conversation_ratings as (
    select conversation_id,
           list(struct_pack(aspect := aspect, rater_id := rater_id, rater_kind := rater_kind,
                            value := value, raw_value := raw_value, comment := comment)
                order by aspect, rater_id, raw_value) as ratings
    from ratings where turn_index is null
    group by conversation_id
),
turn_intents as (
    select conversation_id, turn_index,
           list(struct_pack(annotator := annotator, label_scheme := label_scheme, label := raw_label,
                            family := intent_family, is_primary := is_primary)
                order by label_scheme, annotator, raw_label) as intents
    from intents where turn_index is not null
    group by conversation_id, turn_index
),
turn_ratings as (
    select conversation_id, turn_index,
           list(struct_pack(aspect := aspect, rater_id := rater_id, rater_kind := rater_kind,
                            value := value, raw_value := raw_value, comment := comment)
                order by aspect, rater_id, raw_value) as ratings
    from ratings where turn_index is not null
    group by conversation_id, turn_index
),
messages as (
    select turns.conversation_id,
           list(struct_pack(role := case when turns.role = 'user' then 'user' else 'assistant' end,
                            content := coalesce(turns.text, ''))
                order by turns.turn_index) as messages,
           list(struct_pack(turn_index := turns.turn_index, turn_id := turns.turn_id,
                            intents := coalesce(turn_intents.intents, []),
                            ratings := coalesce(turn_ratings.ratings, []))
                order by turns.turn_index) as turn_annotations
    from turns
    left join turn_intents
        on turns.conversation_id = turn_intents.conversation_id and turns.turn_index = turn_intents.turn_index
    left join turn_ratings
        on turns.conversation_id = turn_ratings.conversation_id and turns.turn_index = turn_ratings.turn_index
    group by turns.conversation_id
)
select
    conversations.conversation_id,
    conversations.source_conversation_id,
    conversations.corpus,
    conversations.subset,
    conversations.domain_or_task,
    conversations.task_type,
    conversations.language,
    conversations.user_id,
    conversations.system_id,
    conversations.user_sentiment,
    conversations.user_satisfaction,
    {split} as split,
    coalesce(messages.messages, []) as messages,
    coalesce(messages.turn_annotations, []) as turn_annotations,
    coalesce(conversation_ratings.ratings, []) as ratings
from conversations
left join messages on conversations.conversation_id = messages.conversation_id
left join conversation_ratings on conversations.conversation_id = conversation_ratings.conversation_id
where ($corpus is null or conversations.corpus = $corpus)
  and ($subset is null or conversations.subset = $subset)
  and ($split is null or {split} = $split)
order by conversations.corpus, conversations.subset, conversations.conversation_id
"""


def conversations_relation(
    con, corpus: str | None = None, subset: str | None = None, split: str | None = None
):
    """The conversation records as a DuckDB relation on ``con`` (used by load and export)."""
    if split is not None and split not in SPLIT_RATIOS:
        raise CsrwhError(f"unknown split {split!r}", hint=f"use one of {', '.join(SPLIT_RATIOS)}")
    return con.sql(
        CONVERSATIONS_SQL.format(split=split_sql("conversations.conversation_id")),
        params={"corpus": corpus, "subset": subset, "split": split},
    )


def load(
    corpus: str | None = None,
    subset: str | None = None,
    warehouse: str | os.PathLike[str] | None = None,
    format: Literal["polars", "pandas", "hf", "arrow"] = "polars",
    split: str | None = None,
) -> Any:
    """One row per conversation (see the module docstring for the columns).

    ``corpus`` / ``subset`` / ``split`` filter; ``format`` is ``polars`` (default), ``pandas``,
    ``arrow`` or ``hf`` (a ``datasets.Dataset``; needs the ``hf`` extra)."""
    if format not in FORMATS:
        raise CsrwhError(f"unknown format {format!r}", hint=f"use one of {', '.join(FORMATS)}")
    if format == "hf":
        try:
            import datasets
        except ImportError as exc:
            raise CsrwhError(
                "format='hf' needs the Hugging Face `datasets` package",
                hint="pip install 'csrwh[hf]'  (or: pip install datasets)",
            ) from exc
    con = connect(warehouse)
    try:
        if corpus is not None:
            known = {r[0] for r in con.sql("select distinct corpus from conversations").fetchall()}
            if corpus not in known:
                raise CsrwhError(
                    f"corpus {corpus!r} is not in this warehouse",
                    hint=f"it holds: {', '.join(sorted(known)) or 'no corpus'}",
                )
        table = conversations_relation(con, corpus, subset, split).arrow()
    finally:
        con.close()
    if hasattr(table, "read_all"):  # duckdb >= 1.4 returns a RecordBatchReader
        table = table.read_all()
    if format == "arrow":
        return table
    if format == "polars":
        import polars as pl

        return pl.from_arrow(table)
    if format == "pandas":
        return table.to_pandas()
    return datasets.Dataset(datasets.table.InMemoryTable(table))
