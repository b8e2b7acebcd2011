"""Each collection's relevance judgments as TREC files (``csrwh export --trec``): a folder per
collection (``custom:<name>`` as ``custom-<name>``) with ``qrels.<kind>.txt`` (``topic 0 doc
grade``) for each of its judgment kinds and ``all``, and ``topics.tsv`` (topic id, tab, the
standalone query of its intent, else the text of the turn it links to)."""

from __future__ import annotations

from pathlib import Path

from csrwh.reading.evaluate import ALL, judged_collections, qrels


def topics(con, collection: str) -> list[tuple[str, str]]:
    """(topic id, text) of each judged topic of ``collection``: the standalone query of its
    intent, else the text of the turn it links to, else empty."""
    return con.execute(
        """select judgments.topic_id,
               coalesce(min(queries.standalone_query), min(turns.text), '')
           from relevance_judgments as judgments
           left join (select intent_id, min(standalone_query) as standalone_query from intents
                      where standalone_query is not null group by intent_id) as queries
               on judgments.intent_id = queries.intent_id
           left join turns
               on judgments.conversation_id = turns.conversation_id
               and judgments.turn_index = turns.turn_index
           where judgments.collection = $collection
           group by judgments.topic_id
           order by judgments.topic_id""",
        {"collection": collection},
    ).fetchall()


def collection_kinds(con, collection: str) -> list[str]:
    """The judgment kinds of ``collection``, in order."""
    return [
        row[0]
        for row in con.execute(
            "select distinct judgment_kind from relevance_judgments "
            "where collection = $collection order by judgment_kind",
            {"collection": collection},
        ).fetchall()
    ]


def collection_folder(collection: str) -> str:
    """The folder name of a collection's TREC files (``custom:<name>`` -> ``custom-<name>``)."""
    return collection.replace(":", "-")


def export_trec(con, out_dir: Path, collections: list[str] | None = None) -> list[Path]:
    """Per collection (default: every one with judgments), a folder ``<collection>/`` of
    ``qrels.<kind>.txt`` (``topic 0 doc grade``) for each of its kinds and ``all``, and
    ``topics.tsv`` (topic<TAB>text)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for collection in judged_collections(con) if collections is None else collections:
        folder = out_dir / collection_folder(collection)
        folder.mkdir(exist_ok=True)
        for kind in [*collection_kinds(con, collection), ALL]:
            path = folder / f"qrels.{kind}.txt"
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.writelines(
                    f"{topic} 0 {doc} {grade}\n"
                    for topic, doc, grade in qrels(con, collection, kind)
                )
            written.append(path)
        path = folder / "topics.tsv"
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(
                f"{topic}\t{' '.join(text.split())}\n" for topic, text in topics(con, collection)
            )
        written.append(path)
    return written
