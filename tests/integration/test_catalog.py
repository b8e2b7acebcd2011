"""Schema discovery (issue 11, item 4): descriptions stored as DuckDB comments by dbt's
persist_docs, `csrwh tables` and `csrwh describe` (csrwh/reading/catalog.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import yaml

from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError
from csrwh.reading import catalog

MARTS = PROJECT_ROOT / "models" / "marts"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DO_NOT_TRACK="1", COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-m", "csrwh.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.fixture()
def tiny(tmp_path: Path) -> Path:
    """A small warehouse with every layer: two marts, an intermediate table, a staging view, a
    seed, a raw table (described by its dbt source) and the build's bookkeeping."""
    path = tmp_path / "tiny.duckdb"
    with duckdb.connect(str(path)) as con:
        for schema in ("intermediate", "staging", "seeds", "raw"):
            con.execute(f"create schema {schema}")
        con.execute(
            "create table main.turns as select 1 as turn_id, 'hi' as text union all select 2, 'yo'"
        )
        con.execute("comment on table main.turns is 'One row per utterance. More detail here.'")
        con.execute("comment on column main.turns.turn_id is 'Global turn id.'")
        con.execute("comment on column main.turns.text is 'The utterance text.'")
        con.execute("create table main.votes as select 'a' as vote_id")
        con.execute("comment on table main.votes is 'One row per vote.'")
        con.execute("comment on column main.votes.vote_id is 'Global vote id.'")
        con.execute("create table main.build_info as select 'b1' as build_id")
        con.execute("create table intermediate.int_x__turns as select 1 as a")
        con.execute("comment on table intermediate.int_x__turns is 'Turns of x.'")
        con.execute("create view staging.stg_x__turns as select 1 as a")
        con.execute("comment on view staging.stg_x__turns is 'Staged turns of x.'")
        con.execute("create table seeds.corpora as select 'x' as corpus")
        con.execute("create table raw.crsarena__votes as select 'p' as payload, 'c' as corpus")
    return path


def test_one_line_is_the_first_sentence_cut_to_width() -> None:
    assert (
        catalog.one_line("One row per utterance. `turn_index` is 0-based.")
        == "One row per utterance."
    )
    assert (
        catalog.one_line("Means by length (e.g. CoSRec turns). Next.")
        == "Means by length (e.g. CoSRec turns)."
    )
    assert catalog.one_line("a\n  b   c") == "a b c"
    cut = catalog.one_line("x" * 300, width=40)
    assert len(cut) == 40 and cut.endswith("…")
    assert catalog.one_line(None) == ""


def test_marts_come_first_and_other_layers_only_with_all(tiny: Path) -> None:
    with duckdb.connect(str(tiny), read_only=True) as con:
        marts = catalog.list_tables(con)
        every = catalog.list_tables(con, include_all=True)
    assert [(t.name, t.rows, catalog.one_line(t.description)) for t in marts] == [
        ("turns", 2, "One row per utterance."),
        ("votes", 1, "One row per vote."),
    ]
    assert [(t.layer, t.qualified) for t in every] == [
        ("marts", "turns"),
        ("marts", "votes"),
        ("intermediate", "intermediate.int_x__turns"),
        ("staging", "staging.stg_x__turns"),
        ("seeds", "seeds.corpora"),
        ("raw", "raw.crsarena__votes"),
        ("bookkeeping", "build_info"),
    ]
    by_name = {t.name: t for t in every}
    assert by_name["stg_x__turns"].kind == "view" and by_name["stg_x__turns"].rows is None
    # raw tables are written by the ingest: their description comes from the dbt sources
    assert by_name["crsarena__votes"].description.startswith("CRSArena-Dial pairwise votes")
    assert by_name["build_info"].description == catalog.BOOKKEEPING["build_info"]


def test_describe_finds_tables_by_name_schema_and_case(tiny: Path) -> None:
    with duckdb.connect(str(tiny), read_only=True) as con:
        table, cols = catalog.describe(con, "Turns")
        assert (table.schema, table.name, table.rows) == ("main", "turns", 2)
        assert [(c.name, c.data_type, c.description) for c in cols] == [
            ("turn_id", "INTEGER", "Global turn id."),
            ("text", "VARCHAR", "The utterance text."),
        ]
        assert catalog.find_table(con, "staging.stg_x__turns").kind == "view"
        assert catalog.find_table(con, "int_x__turns").schema == "intermediate"
        raw_cols = {c.name: c.description for c in catalog.describe(con, "raw.crsarena__votes")[1]}
    assert raw_cols["corpus"].startswith("Corpus name")  # from its dbt source (a {% docs %} block)


def test_an_unknown_table_is_one_error_naming_close_matches(tiny: Path) -> None:
    with duckdb.connect(str(tiny), read_only=True) as con:
        with pytest.raises(CsrwhError, match="no table or view named 'turn'") as unknown:
            catalog.find_table(con, "turn")
        assert unknown.value.exit_code == 2
        assert "did you mean turns, " in unknown.value.hint
        assert (
            "staging.stg_x__turns" in unknown.value.hint
            and "csrwh tables --all" in unknown.value.hint
        )
        with pytest.raises(CsrwhError) as nothing_alike:
            catalog.find_table(con, "qqqq")
        assert "did you mean" not in nothing_alike.value.hint


def test_missing_descriptions_names_the_mart_and_the_column(tiny: Path) -> None:
    with duckdb.connect(str(tiny)) as con:
        assert catalog.missing_descriptions(con) == []
        con.execute("comment on column main.turns.text is null")
        con.execute("comment on table main.votes is ''")
        assert catalog.missing_descriptions(con) == ["turns.text", "votes"]


# --------------------------------------------------------------------------- the built sample


def _mart_models() -> set[str]:
    return {p.stem for p in MARTS.rglob("*") if p.suffix in (".sql", ".py")}


def test_every_mart_and_mart_column_of_the_sample_has_its_description(
    sample_warehouse: Path,
) -> None:
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        marts = catalog.list_tables(con, count_rows=False)
        assert {t.name for t in marts} == _mart_models()  # every mart model is there, nothing else
        assert catalog.missing_descriptions(con) == []
        n_columns = sum(len(catalog.columns(con, t)) for t in marts)
        # intermediate and staging models (tables and views) carry their descriptions too
        others = [
            t
            for t in catalog.list_tables(con, include_all=True, count_rows=False)
            if t.layer in ("intermediate", "staging", "seeds")
        ]
    assert n_columns > 300
    assert others and [t.qualified for t in others if not t.description.strip()] == []


def test_a_removed_description_is_reported(sample_warehouse: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.duckdb"
    shutil.copy2(sample_warehouse, broken)
    with duckdb.connect(str(broken)) as con:
        con.execute("comment on column main.turns.n_words is null")
        con.execute("comment on table main.votes is ''")
        assert catalog.missing_descriptions(con) == ["turns.n_words", "votes"]


def test_stored_descriptions_are_the_yml_descriptions(sample_warehouse: Path) -> None:
    spec = yaml.safe_load((MARTS / "core" / "_core__models.yml").read_text("utf-8"))
    turns = next(m for m in spec["models"] if m["name"] == "turns")
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        table, cols = catalog.describe(con, "turns")
    assert " ".join(table.description.split()) == " ".join(turns["description"].split())
    stored = {c.name: " ".join(c.description.split()) for c in cols}
    assert stored == {c["name"]: " ".join(c["description"].split()) for c in turns["columns"]}


def test_tables_and_describe_commands(sample_warehouse: Path) -> None:
    listed = run_cli("tables", "--warehouse", str(sample_warehouse))
    assert listed.returncode == 0, listed.stderr
    assert (
        "marts (" in listed.stdout
        and "staging." not in listed.stdout
        and "raw." not in listed.stdout
    )
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        n_turns = con.execute("select count(*) from turns").fetchone()[0]
    turns_line = next(line for line in listed.stdout.splitlines() if line.split()[:1] == ["turns"])
    assert f"{n_turns:,}" in turns_line and "One row per utterance." in turns_line
    everything = run_cli("tables", "--all", "--warehouse", str(sample_warehouse))
    assert everything.returncode == 0, everything.stderr
    out = everything.stdout
    assert (
        out.index("marts (")
        < out.index("intermediate (")
        < out.index("staging (")
        < out.index("raw (")
    )
    described = run_cli("describe", "turns", "--warehouse", str(sample_warehouse))
    assert described.returncode == 0, described.stderr
    row = next(
        line for line in described.stdout.splitlines() if line.split()[:1] == ["n_words_segmented"]
    )
    assert "BIGINT" in row or "INTEGER" in row
    assert "jieba" in row


def test_describe_an_unknown_table_is_one_line_with_close_matches(sample_warehouse: Path) -> None:
    result = run_cli("describe", "conversatons", "--warehouse", str(sample_warehouse))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 2 and lines[0].startswith(
        "error: no table or view named 'conversatons'"
    ), result.stderr
    assert lines[1].startswith("hint: did you mean conversations"), result.stderr
