"""Page: leaderboard of saved run evaluations (`csrwh eval --save`; the evaluations sidecar)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from csrwh.reading.dashboard.queries.reader import Reader

EVAL_KIND_ORDER = ("all", "search", "recommendation")


def evals_path(warehouse: str | os.PathLike[str]) -> Path:
    """The evaluations sidecar of ``warehouse``: ``<warehouse stem>.evals.duckdb`` beside it
    (a Reader over it reads the saved evaluations; builds never touch it)."""
    from csrwh.reading.eval_sidecar import sidecar_path

    return sidecar_path(Path(warehouse))


#: how the Leaderboard names the collection of evaluations saved before it was recorded
UNRECORDED = "(not recorded)"


def _collection(db: Reader) -> str:
    """``eval_runs``' collection as text (files saved before it was kept have no column)."""
    has = db.df(
        "eval_runs_columns",
        "select count(*) as n from information_schema.columns "
        "where table_name = 'eval_runs' and column_name = 'collection'",
    )["n"].iloc[0]
    return f"coalesce(runs.collection, '{UNRECORDED}')" if has else f"'{UNRECORDED}'"


def eval_collections(db: Reader) -> list[str]:
    """The corpora (collections) with saved evaluations, in order; [] when the file holds no
    ``eval_runs`` table."""
    if not db.has_table("eval_runs"):
        return []
    sql = f"select distinct {_collection(db)} as collection from eval_runs as runs order by 1"
    return db.df("eval_collections", sql)["collection"].tolist()


def eval_kinds(db: Reader, collection: str | None = None) -> list[str]:
    """Judgment kinds with saved evaluations (of ``collection`` when given), ``all`` first; []
    when the file holds no ``eval_runs`` table."""
    if not db.has_table("eval_runs"):
        return []
    sql = f"select distinct kind from eval_runs as runs where ? is null or {_collection(db)} = ?"
    kinds = db.df("eval_kinds", sql, [collection, collection])["kind"].tolist()
    return sorted(
        kinds, key=lambda k: (EVAL_KIND_ORDER.index(k) if k in EVAL_KIND_ORDER else 99, k)
    )


def eval_leaderboard(db: Reader, kind: str = "all", collection: str | None = None) -> pd.DataFrame:
    """Aggregate score of every saved run on ``kind`` (of ``collection`` when given), long: one
    row per run and measure, with the run's corpus, topic counts, build and time (best value
    first per measure)."""
    return db.df(
        "eval_leaderboard",
        """
        select runs.run_name, {collection} as collection, scores.measure, scores.value,
               runs.n_topics_evaluated, runs.n_topics_qrels, runs.n_topics_missing,
               runs.build_id, cast(runs.saved_at as timestamp) as saved_at, runs.run_path, runs.run_sha256
        from eval_runs as runs
        inner join eval_scores as scores
            on runs.run_name = scores.run_name and runs.kind = scores.kind and scores.topic_id is null
        where runs.kind = ? and (? is null or {collection} = ?)
        order by scores.measure, scores.value desc nulls last, runs.run_name
        """.format(collection=_collection(db)),
        [kind, collection, collection],
    )


def eval_topic_scores(db: Reader, run_name: str, kind: str = "all") -> pd.DataFrame:
    """Per-topic values of one saved run on ``kind``, long (topic, measure, value)."""
    return db.df(
        "eval_topic_scores",
        """
        select topic_id, measure, value from eval_scores
        where run_name = ? and kind = ? and topic_id is not null
        order by topic_id, measure
        """,
        [run_name, kind],
    )
