"""Evaluate a TREC run against CoSRec's relevance judgments with ir_measures.

* The qrels are the `relevance_judgments` mart: ``topic_id``, ``doc_id`` (an MS MARCO passage
  for search topics, an Amazon product id for recommendation topics) and ``grade`` (0, 1, 2);
  ``kind`` picks the search, the recommendation or all judgments.
* A run is a TREC run file: ``topic Q0 doc rank score tag`` per line, whitespace-separated.
* Measures are ir_measures names (``nDCG@10``, ``P@5``, ``AP``, ``RR``, ...), computed by its
  pytrec_eval backend. Aggregation is trec_eval's: the mean over the topics that are in the
  qrels **and** the run (a topic the run does not answer is not counted as 0; the result says
  how many topics were evaluated and how many qrels topics the run missed).

``export_trec`` writes the qrels and the topics (topic id -> standalone query of the intent)
as TREC files.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from csrwh.errors import CsrwhError

KINDS = ("search", "recommendation", "all")
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


def read_run(path: Path) -> list[RunLine]:
    """Parse a TREC run file; a bad line is one error naming the file and line number."""
    path = Path(path)
    if not path.is_file():
        raise CsrwhError(f"run file not found: {path}", hint="pass a TREC run file: topic Q0 doc rank score tag")
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
                    raise CsrwhError(f"{path}:{number}: document {doc} listed twice for topic {topic}",
                                     hint="each (topic, doc) pair may appear once in a run")
                seen.add((topic, doc))
                out.append(parsed)
        except UnicodeDecodeError as exc:
            raise CsrwhError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if not out:
        raise CsrwhError(f"{path}: the run has no lines")
    return out


def qrels(con, kind: str = "all") -> list[tuple[str, str, int]]:
    """(topic, doc, grade) from the relevance_judgments mart."""
    if kind not in KINDS:
        raise CsrwhError(f"unknown qrels kind {kind!r}", hint=f"use one of {', '.join(KINDS)}")
    rows = con.execute(
        "select topic_id, doc_id, grade from relevance_judgments "
        "where $kind = 'all' or judgment_kind = $kind order by topic_id, doc_id",
        {"kind": kind},
    ).fetchall()
    if not rows:
        raise CsrwhError("the warehouse holds no relevance judgments",
                         hint="they come with CoSRec-Curated (dataset/curated/qrels.qrels)")
    return [(t, d, int(g)) for t, d, g in rows]


def parse_measures(names: list[str] | tuple[str, ...]):
    import ir_measures

    parsed = []
    for name in names:
        try:
            parsed.append(ir_measures.parse_measure(name))
        except (ValueError, NameError, SyntaxError, TypeError, AttributeError):  # what ir_measures raises for a bad name
            raise CsrwhError(f"unknown measure {name!r}", hint="use ir_measures names, e.g. nDCG@10, P@5, AP, RR") from None
    return parsed


def evaluate(run: list[RunLine], judgments: list[tuple[str, str, int]], measures, kind: str = "all") -> Evaluation:
    """Per-topic values from ir_measures; aggregate = mean over the evaluated topics (trec_eval)."""
    import ir_measures

    parsed = parse_measures(list(measures))
    qrel_topics = {t for t, _, _ in judgments}
    run_topics = {r.topic_id for r in run}
    evaluated = qrel_topics & run_topics
    per_topic: dict[str, dict[str, float]] = defaultdict(dict)
    if evaluated:
        qrels_in = [ir_measures.Qrel(t, d, g) for t, d, g in judgments if t in evaluated]
        run_in = [ir_measures.ScoredDoc(r.topic_id, r.doc_id, r.score) for r in run if r.topic_id in evaluated]
        for metric in ir_measures.iter_calc(parsed, qrels_in, run_in):
            per_topic[metric.query_id][str(metric.measure)] = float(metric.value)
    names = [str(m) for m in parsed]
    aggregate = {
        name: (sum(per_topic[t].get(name, 0.0) for t in evaluated) / len(evaluated)) if evaluated else float("nan")
        for name in names
    }
    return Evaluation(
        kind=kind, measures=names, aggregate=aggregate, per_topic=dict(per_topic),
        n_topics_qrels=len(qrel_topics), n_topics_evaluated=len(evaluated),
        n_topics_missing=len(qrel_topics - run_topics),
    )


def topics(con) -> list[tuple[str, str]]:
    """(topic id, text): each judged topic with the standalone query of its intent."""
    return con.execute(
        """select distinct judgments.topic_id, coalesce(queries.standalone_query, '')
           from relevance_judgments as judgments
           left join (select intent_id, min(standalone_query) as standalone_query from intents
                      where standalone_query is not null group by intent_id) as queries
               on judgments.intent_id = queries.intent_id
           order by judgments.topic_id"""
    ).fetchall()


def export_trec(con, out_dir: Path) -> list[Path]:
    """Write ``qrels.<kind>.txt`` (topic 0 doc grade) and ``topics.tsv`` (topic<TAB>text)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for kind in KINDS:
        path = out_dir / f"qrels.{kind}.txt"
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(f"{topic} 0 {doc} {grade}\n" for topic, doc, grade in qrels(con, kind))
        written.append(path)
    path = out_dir / "topics.tsv"
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(f"{topic}\t{' '.join(text.split())}\n" for topic, text in topics(con))
    written.append(path)
    return written
