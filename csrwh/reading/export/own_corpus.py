"""What a ``jsonl`` export needs to build again as an own corpus (docs/ADDING_A_CORPUS.md):
``corpora/<corpus>/corpus.json`` and ``corpora/<corpus>/users.jsonl`` per exported corpus (and
both beside ``conversations.jsonl`` when the export holds one corpus), read from the warehouse.

corpus.json: description, licence, citation, homepage, language and domain (the ``corpora``
seed, or an own corpus' corpus.json), who gave its labels (when one kind gave them all) and the
scale of every rated aspect, so ``value_normalized`` comes back unchanged (an aspect rated on
two scales in one corpus is left out; the rebuild warns about it). users.jsonl: every user of
the ``users`` mart, also those without a conversation, one a line: ``id`` (the global
``user_id``, as the records name the user), ``subset``, ``profile_text``, ``keywords``,
``attributes`` (keys without a value left out).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

OWN_CORPORA_DIR = "corpora"
CORPUS_JSON = "corpus.json"
USERS_JSONL = "users.jsonl"
#: the users mart's columns a users.jsonl line holds, besides its id
USER_KEYS = ("subset", "profile_text", "keywords", "attributes")


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


def users_lines(con, corpus: str) -> list[str]:
    """The lines of ``users.jsonl`` for ``corpus``: one JSON object per user of the ``users``
    mart, in user_id order (see the module docstring)."""
    rows = con.execute(
        f"select user_id, {', '.join(USER_KEYS)} from main.users where corpus = ? order by user_id",
        [corpus],
    ).fetchall()
    lines = []
    for user_id, *values in rows:
        record = {"id": user_id} | {k: v for k, v in zip(USER_KEYS, values) if v is not None}
        lines.append(json.dumps(record, ensure_ascii=False))
    return lines


def write_users_jsonl(out: Path, users: dict[str, list[str]]) -> dict[Path, int]:
    """Write ``corpora/<corpus>/users.jsonl`` per corpus of ``users`` ({corpus: its
    :func:`users_lines`}), and ``users.jsonl`` when there is one; returns each file written
    with its number of lines."""
    written = {}
    for corpus, lines in users.items():
        paths = [out / OWN_CORPORA_DIR / corpus / USERS_JSONL]
        if len(users) == 1:
            paths.append(out / USERS_JSONL)
        for path in paths:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
            written[path] = len(lines)
    return written
