"""The ConvSearch staging models fit in a small DuckDB memory limit on a large sample.

Issue 14 (memory): the staging models are views, so every test and model that reads them
parses the raw JSON again; DuckDB keeps every JSON parse of a 2048-row chunk until the chunk is
done, and a lateral ``cross join unnest(...)`` over the payload is decorrelated into a hash join
on the whole payload. The models parse each payload once (``from_json``) and unnest in the
select list. Each model's compiled SQL (from the session's sample build's manifest) is run over
the ConvSearch raw tables of a larger sample (scale 60: every 2048-row chunk is full, as at
x300) in a DuckDB with two threads and the limit below; the versions before the rewrite fail
with "Out of Memory" at these limits (BENCHMARKS.md, "Memory of a build"). The rows must be
the rows the generated JSON files hold, counted here in Python.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest

pytestmark = pytest.mark.integration

SCALE = 60

#: per model: the memory limit it must fit in with two threads (the old SQL failed at each)
LIMITS = {
    "stg_convsearch__dialogs": "128MiB",
    "stg_convsearch__turns": "128MiB",
    "stg_convsearch__turn_labels": "96MiB",
    "stg_convsearch__search_queries": "64MiB",
    "stg_convsearch__serp_pagelogs": "64MiB",
    "stg_convsearch__landing_pagelogs": "64MiB",
    "stg_convsearch__serp_clicks": "64MiB",
}

Rows = Iterator[tuple]


def _text(value: object) -> str | None:
    """A JSON scalar as the staging models render it (ids are integers in the sample)."""
    return None if value is None else str(value)


def _dialogs(dialogs: list[dict], _: list[dict]) -> Rows:
    for d in dialogs:
        yield _text(d["id"]), _text(d["user"]), len(d["turns"])


def _turns(dialogs: list[dict], _: list[dict]) -> Rows:
    for d in dialogs:
        for position, t in enumerate(d["turns"]):
            yield _text(d["id"]), _text(t["id"]), position, t["initiator"]


def _turn_labels(dialogs: list[dict], _: list[dict]) -> Rows:
    fields = ("intent-primary-class", "intent-secondary-class")
    fields += ("action-primary-class", "action-secondary-class")
    for d in dialogs:
        for t in d["turns"]:
            for field in fields:
                for assessor, label in enumerate(t.get(field, []), start=1):
                    if label:
                        yield _text(t["id"]), field, assessor, label


def _search_queries(_: list[dict], queries: list[dict]) -> Rows:
    for q in queries:
        yield _text(q["id"]), len(q["serp_pagelogs"]), len(q["landingpage_pagelogs"])


def _serp_pagelogs(_: list[dict], queries: list[dict]) -> Rows:
    for q in queries:
        for position, p in enumerate(q["serp_pagelogs"]):
            yield _text(q["id"]), _text(p["id"]), position, p["url"]


def _landing_pagelogs(_: list[dict], queries: list[dict]) -> Rows:
    for q in queries:
        for position, p in enumerate(q["landingpage_pagelogs"]):
            yield _text(q["id"]), _text(p["id"]), position, p["url"]


def _serp_clicks(_: list[dict], queries: list[dict]) -> Rows:
    for q in queries:
        for p in q["serp_pagelogs"]:
            clicks = p["clicked_results"]
            for position, c in enumerate(
                json.loads(clicks) if isinstance(clicks, str) else clicks, 1
            ):
                yield _text(p["id"]), position, c["href"], c["type"], c["id"]


#: per model: the columns compared, and the same rows read from the generated files
EXPECTED: dict[str, tuple[str, Callable[[list[dict], list[dict]], Rows]]] = {
    "stg_convsearch__dialogs": ("dialog_id, user_id, n_turns", _dialogs),
    "stg_convsearch__turns": ("dialog_id, turn_id, turn_position, initiator", _turns),
    "stg_convsearch__turn_labels": (
        "turn_id, label_field, assessor_index, raw_label",
        _turn_labels,
    ),
    "stg_convsearch__search_queries": (
        "query_id, n_serp_pagelogs, n_landing_pagelogs",
        _search_queries,
    ),
    "stg_convsearch__serp_pagelogs": (
        "query_id, serp_pagelog_id, pagelog_position, url",
        _serp_pagelogs,
    ),
    "stg_convsearch__landing_pagelogs": (
        "query_id, landing_pagelog_id, pagelog_position, url",
        _landing_pagelogs,
    ),
    "stg_convsearch__serp_clicks": (
        "serp_pagelog_id, click_position, href, click_type, result_rank",
        _serp_clicks,
    ),
}


@pytest.fixture(scope="module")
def compiled(sample_warehouse: Path) -> dict[str, str]:
    target = sample_warehouse.parent.parent / "target"  # tests/conftest.py: _build_published
    nodes = json.loads((target / "manifest.json").read_text())["nodes"]
    return {name: nodes[f"model.csrwh.{name}"]["compiled_code"] for name in LIMITS}


@pytest.fixture(scope="module")
def large_convsearch(
    sample_warehouse: Path, module_tmp_path: Path
) -> tuple[Path, list[dict], list[dict]]:
    """The ConvSearch raw tables of the sample at SCALE (named as the sample warehouse, whose
    catalogue the compiled SQL names), and the generated files' records."""
    from csrwh.sample import generate
    from ingest import run_ingest

    root = module_tmp_path
    generate(root / "data", scale=SCALE, seed=0, corpora=["convsearch"])
    warehouse = root / sample_warehouse.name
    run_ingest(root / "data", warehouse, corpora=["convsearch"], progress=False)
    folder = root / "data" / "convsearch"
    dialogs = json.loads((folder / "Dialogs.json").read_text(encoding="utf-8"))
    queries = json.loads((folder / "SearchBehaviors.json").read_text(encoding="utf-8"))
    return warehouse, dialogs, queries


@pytest.mark.parametrize("model", sorted(LIMITS))
def test_convsearch_staging_fits_in_a_small_memory_limit(
    large_convsearch: tuple[Path, list[dict], list[dict]],
    compiled: dict[str, str],
    tmp_path: Path,
    model: str,
) -> None:
    warehouse, dialogs, queries = large_convsearch
    columns, expected_rows = EXPECTED[model]
    config = {"memory_limit": LIMITS[model], "threads": "2", "temp_directory": str(tmp_path)}
    with duckdb.connect(":memory:", config=config) as con:
        con.execute(f"attach '{warehouse}' as {warehouse.stem} (read_only)")
        try:
            con.execute(f"create temp table probe as ({compiled[model]})")
        except duckdb.OutOfMemoryException as exc:
            pytest.fail(f"staging.{model} needs more than {LIMITS[model]}: {exc}".splitlines()[0])
        rows = con.execute(f"select {columns} from probe").fetchall()
    expected = Counter(expected_rows(dialogs, queries))
    got = Counter(rows)
    assert len(expected) > 1000, f"scale {SCALE} should give {model} thousands of rows"
    missing, extra = expected - got, got - expected
    assert not missing and not extra, (
        f"staging.{model}: {sum(missing.values())} rows of the files missing "
        f"(e.g. {next(iter(missing), None)}), {sum(extra.values())} extra "
        f"(e.g. {next(iter(extra), None)})"
    )
