"""What a ``jsonl`` export needs to build again as an own corpus: one ``corpus.json`` per
exported corpus (docs/ADDING_A_CORPUS.md, "corpus.json"), read from the warehouse.

``corpora/<corpus>/corpus.json`` for every exported corpus, and ``corpus.json`` beside
``conversations.jsonl`` when the export holds one corpus: its description, licence, citation,
homepage, language and domain (the ``corpora`` seed, or for your own corpora their own
corpus.json), who gave its labels (``intents.source``, when one kind gave them all) and the scale
of every rated aspect (``ratings``: min, max, direction), so ``value_normalized`` comes back
unchanged. An aspect rated on two scales in one corpus (two own corpora exported together) is
left out, and the rebuild warns about it like any aspect without a scale.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

OWN_CORPORA_DIR = "corpora"
CORPUS_JSON = "corpus.json"


def _one(values: set[Any]) -> Any:
    """The value when all agree, else None."""
    values.discard(None)
    values.discard("")
    return next(iter(values)) if len(values) == 1 else None


def corpus_json(con, corpus: str, corpus_rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The ``corpus.json`` object of ``corpus`` (keys without a value left out)."""
    rows = [r for r in corpus_rows if r.get("corpus") == corpus]
    facts: dict[str, Any] = {
        "description": "; ".join(
            f"{r['subset']}: {r['description']}" for r in rows if r.get("description")
        ),
        "licence": _one({r.get("licence") for r in rows}),
        "citation": _one({r.get("citation") for r in rows}),
        "url": _one({r.get("upstream_url") for r in rows}),
        "language": _one({r.get("language") for r in rows}),
        "domain": _one({r.get("domain") for r in rows}),
    }
    sources = {
        s for (s,) in con.execute(
            "select distinct source from main.intents where corpus = ?", [corpus]
        ).fetchall()
    }  # fmt: skip
    facts["label_source"] = _one(sources) if None not in sources else None
    scales = con.execute(
        """select aspect, min(scale_min), max(scale_max), bool_and(higher_is_better)
           from main.ratings where corpus = ? and scale_min is not null and scale_max is not null
           group by aspect
           having count(distinct [scale_min, scale_max]) = 1
              and count(distinct higher_is_better) <= 1
           order by aspect""",
        [corpus],
    ).fetchall()
    facts["rating_scales"] = {
        aspect: {"min": low, "max": high, "higher_is_better": True if better is None else better}
        for aspect, low, high, better in scales
    }
    return {k: v for k, v in facts.items() if v not in (None, "", {})}


def write_corpus_json(out: Path, described: dict[str, dict[str, Any]]) -> list[Path]:
    """Write ``corpora/<corpus>/corpus.json`` per corpus of ``described`` ({corpus: its
    :func:`corpus_json`}), and ``corpus.json`` when there is one; returns the files written."""
    written = []
    for corpus, facts in described.items():
        text = json.dumps(facts, indent=1, ensure_ascii=False)
        paths = [out / OWN_CORPORA_DIR / corpus / CORPUS_JSON]
        if len(described) == 1:
            paths.append(out / CORPUS_JSON)
        for path in paths:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text + "\n", encoding="utf-8")
            written.append(path)
    return written
