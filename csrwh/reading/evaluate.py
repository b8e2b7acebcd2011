"""Evaluate a TREC run against one collection's relevance judgments with ir_measures.

The qrels are the ``relevance_judgments`` mart's rows of one collection and judgment kind; the
measures are ir_measures names, aggregated as trec_eval does. ``csrwh eval``
(:func:`evaluate_file`) prints a table, JSON or CSV, and ``--save NAME`` stores the result in
the evaluations sidecar.
Details: docs/internals.md#csrwh-reading-evaluate
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from csrwh.errors import CsrwhError

#: ``--qrels`` value that takes every kind of the collection (and breaks the result down by kind)
ALL = "all"
DEFAULT_MEASURES = ("nDCG@10", "P@5", "AP", "RR")


@dataclass(frozen=True)
class RunLine:
    topic_id: str
    doc_id: str
    rank: int
    score: float


@dataclass
class Evaluation:
    kind: str
    measures: list[str]
    aggregate: dict[str, float]
    per_topic: dict[str, dict[str, float]] = field(default_factory=dict)
    n_topics_qrels: int = 0
    n_topics_evaluated: int = 0
    n_topics_missing: int = 0  # qrels topics the run has no line for
    n_run_topics_unjudged: int = 0  # run topics these qrels do not judge (ignored)


def read_run(path: Path) -> list[RunLine]:
    """Parse a TREC run file; a bad line is one error naming the file and line number."""
    path = Path(path)
    if not path.is_file():
        raise CsrwhError(
            f"run file not found: {path}", hint="pass a TREC run file: topic Q0 doc rank score tag"
        )
    out: list[RunLine] = []
    seen: set[tuple[str, str]] = set()
    with open(path, encoding="utf-8", errors="strict") as fh:
        try:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                parts = line.split()
                if len(parts) != 6:
                    raise CsrwhError(
                        f"{path}:{number}: expected 6 fields 'topic Q0 doc rank score tag', got {len(parts)}: {line.strip()[:80]!r}",
                        hint="a TREC run has one ranked document per line",
                    )
                topic, _q0, doc, rank, score, _tag = parts
                try:
                    parsed = RunLine(topic, doc, int(rank), float(score))
                except ValueError:
                    raise CsrwhError(
                        f"{path}:{number}: rank must be an integer and score a number: {line.strip()[:80]!r}",
                        hint="fields: topic Q0 doc rank score tag",
                    ) from None
                if not math.isfinite(parsed.score):
                    raise CsrwhError(f"{path}:{number}: score is not finite: {score!r}")
                if (topic, doc) in seen:
                    raise CsrwhError(
                        f"{path}:{number}: document {doc} listed twice for topic {topic}",
                        hint="each (topic, doc) pair may appear once in a run",
                    )
                seen.add((topic, doc))
                out.append(parsed)
        except UnicodeDecodeError as exc:
            raise CsrwhError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if not out:
        raise CsrwhError(f"{path}: the run has no lines")
    return out


def judged_collections(con) -> list[str]:
    """The collections the warehouse holds relevance judgments for, in order."""
    return [
        row[0]
        for row in con.execute(
            "select distinct collection from relevance_judgments order by collection"
        ).fetchall()
    ]


def resolve_collection(con, corpus: str | None) -> str:
    """The collection ``csrwh eval --corpus`` names: a public corpus by any of its registry names,
    an own corpus as ``custom:<name>``; without a name, the one collection with judgments."""
    collections = judged_collections(con)
    if not collections:
        raise CsrwhError(
            "the warehouse holds no relevance judgments",
            hint="a corpus brings them in its files (e.g. an own corpus' custom/<name>/<kind>.qrels)",
        )
    listed = ", ".join(collections)
    if corpus is None:
        if len(collections) == 1:
            return collections[0]
        raise CsrwhError(
            f"relevance judgments of several corpora: {listed}",
            hint="name one with --corpus",
            exit_code=2,
        )
    name = corpus.strip()
    if ":" not in name:
        from ingest import registry

        try:
            name = registry.lookup(name).id
        except KeyError:
            pass
    if name not in collections:
        raise CsrwhError(
            f"no relevance judgments of corpus {corpus!r} in the warehouse",
            hint=f"corpora with judgments: {listed} (an own corpus as custom:<name>)",
            exit_code=2,
        )
    return name


def qrels(con, collection: str, kind: str = ALL) -> list[tuple[str, str, int]]:
    """(topic, doc, grade) of one collection's judgments of ``kind`` (or every kind)."""
    rows = con.execute(
        "select topic_id, doc_id, grade from relevance_judgments "
        "where collection = $collection and ($kind = $all or judgment_kind = $kind) "
        "order by topic_id, doc_id",
        {"collection": collection, "kind": kind, "all": ALL},
    ).fetchall()
    return [(t, d, int(g)) for t, d, g in rows]


def parse_measures(names: list[str] | tuple[str, ...]):
    import ir_measures

    parsed = []
    for name in names:
        try:
            parsed.append(ir_measures.parse_measure(name))
        except (
            ValueError,
            NameError,
            SyntaxError,
            TypeError,
            AttributeError,
        ):  # what ir_measures raises for a bad name
            raise CsrwhError(
                f"unknown measure {name!r}", hint="use ir_measures names, e.g. nDCG@10, P@5, AP, RR"
            ) from None
    return parsed


def evaluate(
    run: list[RunLine], judgments: list[tuple[str, str, int]], measures, kind: str = "all"
) -> Evaluation:
    """Per-topic values from ir_measures; aggregate = mean over the evaluated topics (trec_eval)."""
    import ir_measures

    parsed = parse_measures(list(measures))
    qrel_topics = {t for t, _, _ in judgments}
    run_topics = {r.topic_id for r in run}
    evaluated = qrel_topics & run_topics
    per_topic: dict[str, dict[str, float]] = defaultdict(dict)
    if evaluated:
        qrels_in = [ir_measures.Qrel(t, d, g) for t, d, g in judgments if t in evaluated]
        run_in = [
            ir_measures.ScoredDoc(r.topic_id, r.doc_id, r.score)
            for r in run
            if r.topic_id in evaluated
        ]
        for metric in ir_measures.iter_calc(parsed, qrels_in, run_in):
            per_topic[metric.query_id][str(metric.measure)] = float(metric.value)
    names = [str(m) for m in parsed]
    aggregate = {
        name: (sum(per_topic[t].get(name, 0.0) for t in evaluated) / len(evaluated))
        if evaluated
        else float("nan")
        for name in names
    }
    return Evaluation(
        kind=kind,
        measures=names,
        aggregate=aggregate,
        per_topic=dict(per_topic),
        n_topics_qrels=len(qrel_topics),
        n_topics_evaluated=len(evaluated),
        n_topics_missing=len(qrel_topics - run_topics),
        n_run_topics_unjudged=len(run_topics - qrel_topics),
    )


# ---------------------------------------------------------------------------------------------
# csrwh eval: a run file against the warehouse's judgments, by kind
# ---------------------------------------------------------------------------------------------

AGGREGATION = (
    "aggregate = trec_eval's: the mean over the topics of the qrels that the run answers; "
    "qrels topics the run has no line for are not counted (not as 0), run topics the qrels "
    "do not judge are ignored"
)
FORMATS = ("table", "json", "csv")


@dataclass
class EvalReport:
    """One run file evaluated against one kind of judgments, or against each kind."""

    run_path: Path
    run_sha256: str
    warehouse: Path | None
    build_id: str | None
    qrels: str  # what was asked: one of the collection's kinds, or all
    evaluations: list[Evaluation]
    collection: str = ""  # the judgments' collection: a corpus id or custom:<name>


def judgments_by_kind(con, collection: str) -> dict[str, list[tuple[str, str, int]]]:
    """Every judgment of ``collection``, as (topic, doc, grade) per judgment kind and, under
    ``all``, their union."""
    rows = con.execute(
        "select topic_id, doc_id, grade, judgment_kind from relevance_judgments "
        "where collection = $collection order by topic_id, doc_id",
        {"collection": collection},
    ).fetchall()
    if not rows:
        raise CsrwhError(f"the warehouse holds no relevance judgments of {collection}")
    out: dict[str, list[tuple[str, str, int]]] = {}
    for topic, doc, grade, kind in rows:
        judgment = (topic, doc, int(grade))
        out.setdefault(kind, []).append(judgment)
    out = dict(sorted(out.items()))
    out[ALL] = [(t, d, int(g)) for t, d, g, _ in rows]
    return out


def evaluate_kinds(
    run: list[RunLine],
    by_kind: dict[str, list[tuple[str, str, int]]],
    qrels: str = ALL,
    measures=DEFAULT_MEASURES,
    run_name: str = "the run",
) -> list[Evaluation]:
    """``qrels`` one kind of ``by_kind``: one evaluation; ``all``: one per kind, then all. A run
    that answers none of the asked qrels' topics is an error (its topic ids are not the qrels'
    ids)."""
    if qrels not in by_kind:
        raise CsrwhError(
            f"unknown qrels kind {qrels!r}",
            hint=f"this corpus' kinds: {', '.join(by_kind)}",
            exit_code=2,
        )
    parse_measures(list(measures))  # a bad name fails before any work
    kinds = list(by_kind) if qrels == ALL else [qrels]
    results = [evaluate(run, by_kind[kind], measures, kind=kind) for kind in kinds]
    asked = results[-1]  # the asked kind: 'all' comes last in the breakdown
    if asked.n_topics_evaluated == 0:
        run_topics = sorted({r.topic_id for r in run})
        qrel_topics = sorted({t for t, _, _ in by_kind[qrels]})
        raise CsrwhError(
            f"{run_name}: the run answers none of the {len(qrel_topics)} topics of the {qrels} qrels "
            f"(run topics e.g. {run_topics[0]!r}; qrels topics e.g. {qrel_topics[0]!r})",
            hint="the run's topic ids must be the qrels' topic ids: csrwh export --trec writes them",
        )
    return results


def file_sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def current_build_id(con) -> str | None:
    """The build id of the warehouse (``main.build_info``), None when it has none."""
    has = con.execute(
        "select count(*) from information_schema.tables where table_schema = 'main' and table_name = 'build_info'"
    ).fetchone()[0]
    if not has:
        return None
    row = con.execute(
        "select build_id from main.build_info order by built_at desc limit 1"
    ).fetchone()
    return None if row is None else row[0]


def evaluate_file(
    warehouse: Path,
    run_file: Path,
    qrels: str = ALL,
    measures=DEFAULT_MEASURES,
    corpus: str | None = None,
) -> EvalReport:
    """``csrwh eval``: read the run (errors name the line), evaluate it against the published
    warehouse's judgments (read-only) of one collection (``corpus``, see
    :func:`resolve_collection`) per kind."""
    from csrwh.reading.query import connect_locked

    parse_measures(list(measures))
    run_file = Path(run_file)
    run = read_run(run_file)
    con = connect_locked(Path(warehouse))
    try:
        collection = resolve_collection(con, corpus)
        by_kind = judgments_by_kind(con, collection)
        build_id = current_build_id(con)
    finally:
        con.close()
    evaluations = evaluate_kinds(run, by_kind, qrels, measures, run_name=str(run_file))
    return EvalReport(
        run_file, file_sha256(run_file), Path(warehouse), build_id, qrels, evaluations, collection
    )


def _number(value: float) -> float | None:
    return None if value is None or math.isnan(value) else value


def report_dict(report: EvalReport, per_topic: bool = False) -> dict:
    """The report as plain data (``--format json``); NaN (no topic evaluated) is ``None``."""
    results = []
    for ev in report.evaluations:
        item = {
            "kind": ev.kind,
            "measures": ev.measures,
            "n_topics_qrels": ev.n_topics_qrels,
            "n_topics_evaluated": ev.n_topics_evaluated,
            "n_topics_missing": ev.n_topics_missing,
            "n_run_topics_unjudged": ev.n_run_topics_unjudged,
            "aggregate": {m: _number(ev.aggregate[m]) for m in ev.measures},
        }
        if per_topic:
            item["per_topic"] = {
                t: {m: _number(v.get(m)) for m in ev.measures}
                for t, v in sorted(ev.per_topic.items())
            }
        results.append(item)
    return {
        "run": str(report.run_path),
        "run_sha256": report.run_sha256,
        "warehouse": None if report.warehouse is None else str(report.warehouse),
        "build_id": report.build_id,
        "corpus": report.collection,
        "qrels": report.qrels,
        "aggregation": AGGREGATION,
        "results": results,
    }


def report_csv(report: EvalReport, per_topic: bool = False) -> str:
    """Long CSV: ``kind,measure,topic_id,value,n_topics_evaluated,n_topics_missing``; the
    aggregate rows have an empty topic_id (and the topic counts), per-topic rows follow."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        ["kind", "measure", "topic_id", "value", "n_topics_evaluated", "n_topics_missing"]
    )
    for ev in report.evaluations:
        for measure in ev.measures:
            value = _number(ev.aggregate[measure])
            writer.writerow(
                [
                    ev.kind,
                    measure,
                    "",
                    "" if value is None else repr(value),
                    ev.n_topics_evaluated,
                    ev.n_topics_missing,
                ]
            )
    if per_topic:
        for ev in report.evaluations:
            for topic, values in sorted(ev.per_topic.items()):
                for measure in ev.measures:
                    writer.writerow([ev.kind, measure, topic, repr(values[measure]), "", ""])
    return buffer.getvalue()


def print_table(report: EvalReport, per_topic: bool = False, console=None) -> None:
    """Human-readable tables (``--format table``) on ``console`` (default stdout)."""
    import sys

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = console or Console(width=None if sys.stdout.isatty() else 200)
    measures = report.evaluations[0].measures
    table = Table(  # values as text, never rich markup (a run's path or topic may hold "[/x]")
        title=Text(
            f"{report.run_path} · {report.collection} · qrels {report.qrels}"
            + (f" · build {report.build_id}" if report.build_id else "")
        )
    )
    table.add_column("kind")
    for measure in measures:
        table.add_column(Text(measure), justify="right")
    for name in ("topics evaluated", "qrels topics missing", "run topics unjudged"):
        table.add_column(name, justify="right")
    for ev in report.evaluations:
        values = [
            ("—" if math.isnan(ev.aggregate[m]) else f"{ev.aggregate[m]:.4f}") for m in measures
        ]
        table.add_row(
            ev.kind,
            *values,
            f"{ev.n_topics_evaluated} of {ev.n_topics_qrels}",
            str(ev.n_topics_missing),
            str(ev.n_run_topics_unjudged),
        )
    console.print(table)
    console.print(AGGREGATION + ".", soft_wrap=True)
    if per_topic:
        topics = Table(title="per topic")
        topics.add_column("kind")
        topics.add_column("topic")
        for measure in measures:
            topics.add_column(Text(measure), justify="right")
        for ev in report.evaluations:
            for topic, values in sorted(ev.per_topic.items()):
                topics.add_row(ev.kind, Text(topic), *[f"{values[m]:.4f}" for m in measures])
        console.print(topics)
