"""csrwh.pipeline.lineage: payload key paths vs the staging models' declared reads and the unmodelled list."""

from __future__ import annotations

import json
import re

import duckdb
import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.pipeline import lineage

KNOWN_RECORD = {
    "task_type": "旅行规划",
    "chat_model": "deepseek-v3",
    "history": [
        {"role": "user", "content": "你好"},
        {"role": "assistant", "content": "好", "hallucination": "否", "satisfaction": "5"},
    ],
    "questionnaire": [{"query": "q", "summary": "Detail", "option": "详细"}],
    "rating": {"Diversity": 2, "A New Aspect": 1},
    "strategy_V9": {"final": {"brand_new_dimension": "x"}, "1": {"brand_new_dimension": "y"}},
    "profile": {"age": 20, "complete_tid": {"旅行规划": [1, 2]}},
    "preference_summary_old": ["listed as unmodelled"],
}


def _con(*payloads: dict) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema raw")
    con.execute('create table raw."recllmsim__conversations" (source_path varchar, payload json)')
    for i, payload in enumerate(payloads):
        con.execute(
            'insert into raw."recllmsim__conversations" values (?, ?)',
            [f"rel/{i}.json", json.dumps(payload, ensure_ascii=False)],
        )
    return con


def test_known_paths_new_schemes_map_keys_and_unmodelled_paths_are_covered() -> None:
    spec = lineage.load_spec()
    assert lineage.unlisted_paths(_con(KNOWN_RECORD), spec, ["recllmsim__conversations"]) == []


def test_a_new_key_is_reported_with_an_example_file() -> None:
    spec = lineage.load_spec()
    novel = dict(KNOWN_RECORD, mood_after_chat="relieved")
    novel["history"] = [*KNOWN_RECORD["history"], {"role": "user", "content": "x", "typing_ms": 12}]
    found = lineage.unlisted_paths(_con(KNOWN_RECORD, novel), spec, ["recllmsim__conversations"])
    assert [(u.path, u.example_source_path, u.n_records) for u in found] == [
        ("$.history[].typing_ms", "rel/1.json", 1),
        ("$.mood_after_chat", "rel/1.json", 1),
    ]
    assert "raw.recllmsim__conversations: JSON path $.mood_after_chat" in found[1].message()


def test_path_helpers() -> None:
    assert lineage.ancestors('$.a[]."b c".d') == [
        '$.a[]."b c".d',
        '$.a[]."b c"',
        "$.a[]",
        "$.a",
        "$",
    ]
    structure = {"x": [{"y": "VARCHAR"}], "12": "UBIGINT", "m": {"k1": "UBIGINT"}, "e": []}
    assert sorted(lineage.leaf_paths(structure, {"$.m"})) == ["$.*", "$.e[]", "$.m.*", "$.x[].y"]


def _macros_called(sql: str) -> str:
    """The text of every macro file defining a macro that ``sql`` calls in ``{{ name(...) }}``."""
    called = set(re.findall(r"\{\{-?\s*(\w+)\(", sql))
    return "".join(
        text
        for path in sorted((PROJECT_ROOT / "macros").rglob("*.sql"))
        for text in [path.read_text("utf-8")]
        if any(re.search(rf"macro\s+{re.escape(name)}\(", text) for name in called)
    )


def test_every_declared_read_names_a_key_its_model_reads() -> None:
    """The declarations stay honest: each declared path's last key occurs in the SQL of the
    model or of its corpus' intermediate models (a value kept as JSON in staging, such as the
    questionnaire, is unnested there)."""
    import yaml

    checked = 0
    for yml in (PROJECT_ROOT / "models" / "staging").rglob("_*.yml"):
        for model in yaml.safe_load(yml.read_text("utf-8")).get("models") or []:
            paths = ((model.get("config") or {}).get("meta") or {}).get("json_paths_read") or []
            corpus = yml.parent.name
            sql = (yml.parent / f"{model['name']}.sql").read_text("utf-8") + "".join(
                p.read_text("utf-8")
                for p in (PROJECT_ROOT / "models" / "intermediate" / corpus).glob("*.sql")
            )
            sql += _macros_called(sql)  # a model may parse its payload in a macro of its own
            for path in paths:
                keys = [k for k in re.findall(r'"([^"]+)"|\.([^.\[\]"*]+)', path) for k in k if k]
                if not keys:  # wildcard-only paths such as $.* and $.*[].**
                    continue
                assert keys[-1].rstrip("*") in sql, f"{model['name']}: {path} not read in its SQL"
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("declared", ["$.strategy*.**", "$.rating.*"])
def test_declared_patterns(declared: str) -> None:
    spec = lineage.LineageSpec(reads={"t": {declared}})
    assert spec.covers("t", "$.strategy_V9.final.dim") is declared.startswith("$.strategy")
    assert spec.covers("t", "$.rating.*") is (declared == "$.rating.*")


# --------------------------------------------------------------------------- its cost


def test_the_project_yml_is_read_with_libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every build reads the project's yml twice (raw tables, lineage spec): with PyYAML's
    pure-Python loader that was ~0.9 CPU s, 5-6 s at load 25 (docs/benchmarks-history.md)."""
    import yaml

    from csrwh.dbt_support import dbt_sources
    from csrwh.pipeline.lineage import load_spec

    def pure_python(*args: object, **kwargs: object) -> None:
        raise AssertionError("yaml.safe_load: the pure-Python loader")

    monkeypatch.setattr(yaml, "safe_load", pure_python)
    dbt_sources.raw_tables.cache_clear()
    try:
        spec = load_spec()
    finally:
        dbt_sources.raw_tables.cache_clear()
    assert spec.reads and spec.unmodelled


def test_libyaml_reads_the_project_yml_as_the_pure_python_loader() -> None:
    import yaml

    from csrwh.dbt_support.dbt_sources import YAML_LOADER

    files = sorted((PROJECT_ROOT / "models").rglob("*.yml"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert yaml.load(text, Loader=YAML_LOADER) == yaml.load(text, Loader=yaml.SafeLoader), path
