"""int_turn_text_counts: the per-utterance counts, counted again only for changed corpora (issue 26).

The model's SQL is rendered here with plain Jinja (the DuckDB bodies of the project's macros,
dbt's context stubbed) and run in DuckDB: from nothing, then incrementally over its own
previous table, and compared with a run from nothing on the changed inputs. A build of the
sample checks the same through dbt (tests/integration/test_build_incremental.py: a selective rebuild
after one CoSRec text changed equals a --full-refresh build, table by table).
"""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import duckdb
import jinja2
import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.dbt_support.partitions import corpus_digests

MODEL = PROJECT_ROOT / "models" / "intermediate" / "shared" / "int_turn_text_counts.sql"
COLUMNS = ["corpus", "conversation_id", "turn_index", "n_han_chars", "n_letters", "n_words"]


def _macros(name: str):
    source = (PROJECT_ROOT / "macros" / name).read_text("utf-8")
    return jinja2.Environment().from_string(source).module


def _render(*, incremental: bool, counting_macros=None) -> str:
    """The model's SQL as dbt-duckdb renders it: ``turns_in`` is int_turns_unioned,
    ``previous`` the model's previous table (read when ``incremental``)."""
    counting = counting_macros or _macros("count_words.sql")
    digest = _macros("corpus_inputs_digest.sql")
    columns = [SimpleNamespace(name=c) for c in [*COLUMNS, "inputs_digest"]]
    env = jinja2.Environment()
    env.globals.update(
        config=lambda **_: "",
        is_incremental=lambda: incremental,
        adapter=SimpleNamespace(get_columns_in_relation=lambda _: columns),
        this="previous",
        target=SimpleNamespace(type="duckdb"),
        ref=lambda name: {"int_turns_unioned": "turns_in"}[name],
        dbt=SimpleNamespace(split_part=lambda s, d, i: f"split_part({s}, {d}, {i})"),
        local_md5=lambda text: hashlib.md5(str(text).encode()).hexdigest(),
        count_han_chars=counting.default__count_han_chars,
        count_letters=counting.default__count_letters,
        count_words=counting.default__count_words,
        corpus_inputs_digest=digest.default__corpus_inputs_digest,
    )
    return env.from_string(MODEL.read_text("utf-8")).render()


TURNS = [
    ("a:1", 0, "Hello big world"),
    ("a:1", 1, "你好 world"),
    ("a:2", 0, None),
    ("b:1", 0, "Bonjour\u00a0le monde"),
    ("b:1", 1, "世界 2"),
    ("c:1", 0, "one"),
]


@pytest.fixture
def con():
    con = duckdb.connect()
    con.execute("create table turns_in (conversation_id varchar, turn_index int, text varchar)")
    con.executemany("insert into turns_in values (?, ?, ?)", TURNS)
    yield con
    con.close()


def _rows(con, sql: str) -> list[tuple]:
    return sorted(con.execute(f"select {', '.join(COLUMNS)} from ({sql})").fetchall())


def _build_previous(con) -> None:
    con.execute(f"create or replace table previous as {_render(incremental=False)}")


def test_counts_equal_the_macros_on_every_turn(con) -> None:
    rows = _rows(con, _render(incremental=False))
    assert [(r[1], r[2], r[3], r[4], r[5]) for r in rows] == [
        ("a:1", 0, 0, 13, 3),
        ("a:1", 1, 2, 7, 3),
        ("a:2", 0, 0, 0, 0),
        ("b:1", 0, 0, 14, 3),
        ("b:1", 1, 2, 2, 3),
        ("c:1", 0, 0, 3, 1),
    ]


def test_an_incremental_run_counts_only_the_changed_corpora(con) -> None:
    _build_previous(con)
    # marks on the previous rows show which rows were carried over rather than counted again
    con.execute("update previous set n_words = n_words + 1000")
    con.execute("update turns_in set text = '再见 world' where conversation_id = 'a:1'")
    con.execute("delete from turns_in where conversation_id = 'c:1'")  # corpus c is gone
    incremental = _rows(con, _render(incremental=True))
    from_nothing = _rows(con, _render(incremental=False))
    carried = {(r[1], r[2]) for r in incremental if r[5] >= 1000}
    assert carried == {("b:1", 0), ("b:1", 1)}  # b unchanged: carried over, not counted
    # a changed: counted again, as from nothing; c: dropped
    assert [r for r in incremental if r[0] != "b"] == [r for r in from_nothing if r[0] != "b"]
    assert {r[0] for r in incremental} == {"a", "b"}


def test_an_incremental_run_equals_a_run_from_nothing(con) -> None:
    """Every change to a corpus's turns is seen (text, a turn added, a turn's index): the
    incremental table then holds what a run from nothing gives."""
    changes = [
        "update turns_in set text = 'Hello  big' where conversation_id = 'a:1' and turn_index = 0",
        "insert into turns_in values ('b:2', 0, '新的')",
        "update turns_in set turn_index = 3 where conversation_id = 'c:1'",
        "update turns_in set text = null where conversation_id = 'b:1' and turn_index = 1",
    ]
    _build_previous(con)
    for change in changes:
        con.execute(change)
        incremental = _render(incremental=True)
        assert _rows(con, incremental) == _rows(con, _render(incremental=False)), change
        con.execute(f"create or replace table previous as {incremental}")


def test_a_change_to_the_counting_macros_counts_every_corpus_again(con) -> None:
    _build_previous(con)
    con.execute("update previous set n_words = n_words + 1000")
    edited = (PROJECT_ROOT / "macros" / "count_words.sql").read_text("utf-8")
    edited = edited.replace("'[^\\p{Han}]+', '', 'g')", "'[^\\p{Han}]+', '', 'gi')")
    assert edited != (PROJECT_ROOT / "macros" / "count_words.sql").read_text("utf-8")
    counting = jinja2.Environment().from_string(edited).module
    rows = _rows(con, _render(incremental=True, counting_macros=counting))
    assert all(r[5] < 1000 for r in rows)


def test_the_sql_digest_is_the_python_partitions_digest(con) -> None:
    """One rule for a corpus's inputs digest: macro corpus_inputs_digest (SQL models) gives
    what csrwh.dbt_support.partitions.corpus_digests (Python models) gives for the same rows."""
    con.execute("insert into turns_in values ('b:3', 7, 'x\"y,\\z'), ('b:3', 8, '')")
    relation = con.sql("select split_part(conversation_id, ':', 1) as corpus, * from turns_in")
    digest = _macros("corpus_inputs_digest.sql").default__corpus_inputs_digest(
        ["conversation_id", "turn_index", "text"]
    )
    in_sql = dict(
        con.execute(
            f"select corpus, {digest} from (select split_part(conversation_id, ':', 1) "
            "as corpus, * from turns_in) group by corpus"
        ).fetchall()
    )
    assert in_sql == corpus_digests(relation, ["conversation_id", "turn_index", "text"])
    assert len(set(in_sql.values())) == 3
