"""The Python models compute only what changed (issue 26, ``csrwh.dbt_support.partitions``).

Each model is run as dbt-duckdb runs it (``model(dbt, session)``; its result replaces the
table, the ``replace`` strategy): first from nothing, then incrementally (``dbt.is_incremental``,
its previous table in ``dbt.this``) after a change. The incremental result equals a run from
nothing on the changed inputs, row for row, and only the changed texts / corpora are
computed again (counted by wrapping the functions that compute them).
"""

from __future__ import annotations

import importlib.util
import random
import sys

import duckdb
import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.dbt_support import partitions


def _load(relative: str, name: str):
    spec = importlib.util.spec_from_file_location(name, PROJECT_ROOT / relative)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


td = _load("models/marts/measures/text_diversity.py", "text_diversity_incremental")
aa = _load("models/marts/reports/annotator_agreement.py", "annotator_agreement_incremental")


class _Dbt:
    """dbt-duckdb's ``dbt`` object: refs are relations, ``this`` the model's table."""

    def __init__(self, con, identifier: str, incremental: bool, config: dict | None = None):
        self._con = con
        values = config or {}

        class _Config:
            def __call__(self, **kwargs) -> None:
                pass

            def get(self, key, default=None):
                return values.get(key, default)

        class _This:
            database, schema = "memory", "main"

            def __repr__(self) -> str:
                return f'"memory"."main"."{identifier}"'

        _This.identifier = identifier
        self.config = _Config()
        self.this = _This()
        self.is_incremental = incremental

    def ref(self, name: str):
        return self._con.table(name)


def _run(module, con, identifier: str, incremental: bool, config: dict | None = None) -> None:
    """Run the model and replace its table with the result (the ``replace`` strategy)."""
    result = module.model(_Dbt(con, identifier, incremental, config), con)
    table = result.to_arrow_table() if isinstance(result, duckdb.DuckDBPyRelation) else result
    con.register("model_result", table)
    con.execute(f'create or replace table main."{identifier}" as select * from model_result')
    con.unregister("model_result")


def _one(con, sql: str):
    """The one value ``sql`` selects."""
    return con.execute(sql).fetchall()[0][0]


def _same(con, a: str, b: str) -> None:
    """Tables ``a`` and ``b`` hold the same rows (EXCEPT ALL both ways)."""
    assert con.execute(f"select count(*) from {a}").fetchall()[0][0] > 0
    for left, right in ((a, b), (b, a)):
        extra = con.execute(
            f"select count(*) from (select * from {left} except all select * from {right})"
        ).fetchall()[0][0]
        assert extra == 0, f"{extra} row(s) of {left} not in {right}"


class _Calls:
    """Wraps a module function and records its argument ``at`` (the first) of every call."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module, name: str, at: int = 0) -> None:
        self.args: list = []
        original = getattr(module, name)

        def wrapped(*args, **kwargs):
            self.args.append(args[at])
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapped)


# (int_turn_text_measures, a SQL model now: tests/integration/test_text_measures_sql.py)


# --------------------------------------------------------------------------- text_diversity

WORDS = ["The", "film.", "e.g.", "ΣΟΦΟΣ", "İstanbul", "...", "a.b", "x", "你好", "movie"]


def _diversity_warehouse(seed: int) -> duckdb.DuckDBPyConnection:
    rng = random.Random(seed)
    con = duckdb.connect()
    con.execute(
        "create table int_turns_unioned (conversation_id varchar, turn_index integer, "
        "role varchar, text varchar, is_image boolean)"
    )
    con.execute(
        "create table conversations (conversation_id varchar, corpus varchar, subset varchar, "
        "system_id varchar, source_path varchar, source_record_index integer)"
    )
    for corpus in ("cosrec", "crsarena", "recllmsim"):
        for c in range(60):
            conversation = f"{corpus}:c{c:03d}"
            con.execute(
                "insert into conversations values (?, ?, ?, ?, ?, ?)",
                [
                    conversation,
                    corpus,
                    rng.choice(["a", "b"]),
                    rng.choice(["s1", "s2", None]),
                    f"f{c % 2}",
                    c,
                ],
            )
            for t in range(8):
                text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 30)))
                role = "user" if t % 2 == 0 else "system"
                con.execute(
                    "insert into int_turns_unioned values (?, ?, ?, ?, ?)",
                    [conversation, t, role, text, None],
                )
    return con


def test_text_diversity_recomputes_only_the_corpora_whose_inputs_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    con = _diversity_warehouse(3)
    computed = _Calls(monkeypatch, td, "corpus_rows", at=2)  # (session, utterances, corpus)
    _run(td, con, "text_diversity", incremental=False)
    assert computed.args == ["cosrec", "crsarena", "recllmsim"]
    assert any(row[0] for row in con.execute("select is_truncated from text_diversity").fetchall())

    computed.args.clear()
    _run(td, con, "text_diversity", incremental=True)
    assert computed.args == []  # nothing changed: every corpus carried over

    # a text of crsarena changes; recllmsim's file order changes; cosrec goes
    con.execute(
        "update int_turns_unioned set text = 'a changed text' "
        "where conversation_id = 'crsarena:c007' and turn_index = 3"
    )
    con.execute(
        "update conversations set source_record_index = 1000 "
        "where conversation_id = 'recllmsim:c000'"
    )
    con.execute("delete from conversations where corpus = 'cosrec'")
    _run(td, con, "text_diversity", incremental=True)
    assert computed.args == ["crsarena", "recllmsim"]
    _run(td, con, "text_diversity_full", incremental=False)
    _same(con, "text_diversity", "text_diversity_full")
    assert _one(con, "select count(*) from text_diversity where corpus = 'cosrec'") == 0


# --------------------------------------------------------------------------- annotator_agreement


def _agreement_warehouse(seed: int) -> duckdb.DuckDBPyConnection:
    rng = random.Random(seed)
    con = duckdb.connect()
    con.execute(
        "create table intents (corpus varchar, label_scheme varchar, conversation_id varchar, "
        "turn_index integer, annotator varchar, raw_label varchar, source varchar, "
        "is_primary boolean)"
    )
    con.execute(
        "create table ratings (corpus varchar, aspect varchar, conversation_id varchar, "
        "turn_index integer, item_id varchar, rater_kind varchar, rater_id varchar, "
        "value double)"
    )
    con.execute(
        "create table conversations (conversation_id varchar, corpus varchar, subset varchar)"
    )
    for corpus in ("cosrec", "convsearch", "recoreact"):
        for c in range(40):
            conversation = f"{corpus}:c{c}"
            con.execute(
                "insert into conversations values (?, ?, ?)",
                [conversation, corpus, rng.choice(["a", "b"])],
            )
            for t in range(3):
                for annotator in ("x", "y"):
                    con.execute(
                        "insert into intents values (?, ?, ?, ?, ?, ?, 'human', true)",
                        [
                            corpus,
                            f"{corpus}_intent",
                            conversation,
                            t,
                            annotator,
                            rng.choice(["ask", "tell"]),
                        ],
                    )
                for rater in ("r1", "r2"):
                    con.execute(
                        "insert into ratings values (?, 'fluency', ?, ?, null, 'crowd', ?, ?)",
                        [corpus, conversation, t, rater, float(rng.randint(1, 4))],
                    )
    return con


def test_annotator_agreement_recomputes_only_the_corpora_whose_inputs_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    con = _agreement_warehouse(5)
    config = {"agreement_bootstrap_samples": 50, "agreement_bootstrap_seed": 9}
    computed = _Calls(monkeypatch, aa, "build_agreement")

    def corpora() -> list[list[str]]:
        return [sorted(set(intents["corpus"])) for intents in computed.args]

    _run(aa, con, "agreement", incremental=False, config=config)
    assert corpora() == [["convsearch", "cosrec", "recoreact"]]

    computed.args.clear()
    _run(aa, con, "agreement", incremental=True, config=config)
    assert corpora() == [[]]  # nothing changed: every corpus carried over

    computed.args.clear()
    con.execute(
        "update ratings set value = 5 where conversation_id = 'cosrec:c3' and rater_id = 'r1'"
    )
    con.execute("update conversations set subset = 'c' where conversation_id = 'recoreact:c1'")
    _run(aa, con, "agreement", incremental=True, config=config)
    assert corpora() == [["cosrec", "recoreact"]]
    _run(aa, con, "agreement_full", incremental=False, config=config)
    _same(con, "agreement", "agreement_full")

    # other bootstrap settings: every corpus again
    computed.args.clear()
    other = {**config, "agreement_bootstrap_seed": 10}
    _run(aa, con, "agreement", incremental=True, config=other)
    assert corpora() == [["convsearch", "cosrec", "recoreact"]]


# --------------------------------------------------------------------------- crs_leaderboard

lb = _load("models/marts/reports/crs_leaderboard.py", "crs_leaderboard_incremental")


def _leaderboard_warehouse(seed: int) -> duckdb.DuckDBPyConnection:
    rng = random.Random(seed)
    con = duckdb.connect()
    con.execute(
        "create table votes (environment varchar, vote_order integer, system_a varchar, "
        "system_b varchar, winner varchar)"
    )
    con.execute(
        "create table conversations (conversation_id varchar, corpus varchar, subset varchar, "
        "system_id varchar, user_sentiment varchar)"
    )
    systems = ["kbrd", "unicrs", "barcor", "chatgpt"]
    for environment in ("open", "closed"):
        for order in range(60):
            a, b = rng.sample(systems, 2)
            con.execute(
                "insert into votes values (?, ?, ?, ?, ?)",
                [environment, order, a, b, rng.choice(["a", "b", "tie"])],
            )
    for c in range(40):
        con.execute(
            "insert into conversations values (?, 'crsarena', ?, ?, ?)",
            [
                f"crsarena:c{c}",
                rng.choice(["open", "closed"]),
                rng.choice(systems),
                rng.choice(["satisfied", "frustrated"]),
            ],
        )
    con.execute("insert into conversations values ('cosrec:c1', 'cosrec', 'crowd', null, null)")
    return con


def test_crs_leaderboard_is_kept_while_its_inputs_are_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    con = _leaderboard_warehouse(4)
    config = {"bt_bootstrap_samples": 30, "bt_bootstrap_seed": 3}
    computed = _Calls(monkeypatch, lb, "build_leaderboard")
    _run(lb, con, "leaderboard", incremental=False, config=config)
    assert len(computed.args) == 1

    # another corpus changed: the leaderboard is carried over
    con.execute("update conversations set subset = 'raw' where corpus = 'cosrec'")
    _run(lb, con, "leaderboard", incremental=True, config=config)
    assert len(computed.args) == 1
    _run(lb, con, "leaderboard_full", incremental=False, config=config)
    _same(con, "leaderboard", "leaderboard_full")

    # a vote changed: computed again, as from nothing
    computed.args.clear()
    con.execute("update votes set winner = 'tie' where environment = 'open' and vote_order = 5")
    _run(lb, con, "leaderboard", incremental=True, config=config)
    assert len(computed.args) == 1
    _run(lb, con, "leaderboard_full", incremental=False, config=config)
    _same(con, "leaderboard", "leaderboard_full")


def test_the_partitions_schema_is_created_once_before_the_models_run() -> None:
    """Two Python models running at once each creating the schema in their own transaction
    make DuckDB refuse the second commit; the project's on-run-start hook creates it instead,
    under the name the models write to."""
    import yaml

    project = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text(encoding="utf-8"))
    assert "{{ create_partitions_schema() }}" in project["on-run-start"]
    macro = (PROJECT_ROOT / "macros/create_partitions_schema.sql").read_text(encoding="utf-8")
    assert f'"{{{{ target.database }}}}"."{partitions.SCHEMA}"' in macro
