"""Adding a first-class corpus touches only its own files and the registry.

A copy of the project (the files git tracks or would track, committed to a git repository of
its own) gets a tiny conversational search corpus ``foo`` (tests/integration/new_corpus_foo.py)
in formats of its own -- a gzip JSONL file, a TSV file with a header, a TSV file without one --
with its ingest module, staging and intermediate models (the ``_conformed`` models, items and
relevance judgments among them), its own lookup seeds (scales, taxonomy, label schemes, item
kinds, judgment kinds), its suites, its page and its ``[[corpus]]`` entry in
``ingest/corpora.toml``. Then ``scripts/corpora_seed.py`` renders the generated files and
``git status`` must name nothing but foo's files, the registry and the generated files
(docs/ADDING_A_CORPUS.md, Route 2). ``csrwh build`` of the copy (its own code: PYTHONPATH)
builds foo beside the generated sample: foo's rows must reach ``conversations``, ``turns``,
``ratings`` (on the scale of its own seed), ``intents`` (its taxonomy's families, labels on the
bot's turns allowed by its label-scheme seed), ``items`` (of a kind its own seed declares),
``users`` and ``relevance_judgments`` (negative grades on its declared scale); and ``csrwh eval
--corpus foo`` scores a run exactly as ir_measures does on foo's judgments read from its file.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from new_corpus_foo import (
    FOO_DIALOGUES,
    FOO_DOCUMENTS,
    FOO_JUDGMENTS,
    FOO_OWN_FILES,
    FOO_REGISTRY_ENTRY,
)

from csrwh.config import PROJECT_ROOT
from ingest.registry import load

GENERATED = {"seeds/corpora.csv", "macros/generated/corpus_registry.sql"}
REGISTRY = "ingest/corpora.toml"


def _project_files(root: Path) -> list[str]:
    """The files git tracks or would track (not ignored), that exist in the working tree."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        check=True,
        capture_output=True,
    ).stdout.decode()
    return sorted({p for p in out.split("\0") if p and (root / p).is_file()})


def _tree(root: Path, files: list[str]) -> dict[str, bytes]:
    return {p: (root / p).read_bytes() for p in files if (root / p).is_file()}


def _env(copy: Path, target: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CSRWH_")}
    env.update(
        PYTHONPATH=str(copy),
        DO_NOT_TRACK="1",
        CSRWH_DBT_TARGET_PATH=str(target),
    )
    return env


def _git(copy: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=test", "-c", "user.email=test@example.org", *args],
        cwd=copy,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture(scope="module")
def foo_project(module_tmp_path: Path) -> dict:
    """The copy (a git repository of its own) with corpus foo added and the generated files
    rendered; what `git status` says changed."""
    root = module_tmp_path
    copy = root / "project"
    for rel, content in _tree(PROJECT_ROOT, _project_files(PROJECT_ROOT)).items():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_bytes(content)
    _git(copy, "init", "-q")
    _git(copy, "add", "-A")
    _git(copy, "commit", "-q", "-m", "the project as it is")

    for rel, text in FOO_OWN_FILES.items():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_text(text, encoding="utf-8")
    registry = copy / REGISTRY
    registry.write_text(registry.read_text(encoding="utf-8") + FOO_REGISTRY_ENTRY, "utf-8")
    rendered = subprocess.run(
        [sys.executable, "scripts/corpora_seed.py"],
        check=False,
        cwd=copy,
        env=_env(copy, root / "target"),
        capture_output=True,
        text=True,
    )
    assert rendered.returncode == 0, rendered.stderr
    status = _git(copy, "status", "--porcelain", "--untracked-files=all", "--no-renames")
    changed = {line[3:] for line in status.splitlines() if "__pycache__" not in line}
    return {"root": root, "copy": copy, "changed": changed}


def test_a_new_corpus_changes_only_its_own_files_the_registry_and_generated_files(foo_project):
    allowed = set(FOO_OWN_FILES) | {REGISTRY} | GENERATED
    changed = foo_project["changed"]
    assert changed - allowed == set(), (
        f"shared files a new corpus had to change: {changed - allowed}"
    )
    # the generated files do change: the registry reaches dbt through them
    assert GENERATED <= changed
    check = subprocess.run(
        [sys.executable, "scripts/corpora_seed.py", "--check"],
        check=False,
        cwd=foo_project["copy"],
        env=_env(foo_project["copy"], foo_project["root"] / "target"),
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
    copy = foo_project["copy"]
    generated = (copy / "macros/generated/corpus_registry.sql").read_text("utf-8")
    # the copy's registry, foo last; each list in registry order, read from the copy's files
    ids = [c.id for c in load(copy / REGISTRY)]
    assert ids[-1] == "foo"
    assert f"{{{{ return({ids!r}) }}}}" in generated
    for lookup in ("intent_taxonomy", "label_schemes", "item_kinds", "judgment_kinds"):
        having = [i for i in ids if (copy / "seeds" / i / f"{i}__{lookup}.csv").is_file()]
        assert "foo" in having and f"'{lookup}': {having!r}," in generated
    for mart in ("items", "relevance_judgments"):
        conformed = [
            i
            for i in ids
            if (copy / f"models/intermediate/{i}/int_{i}__{mart}_conformed.sql").is_file()
        ]
        assert "foo" in conformed and f"'{mart}': {conformed!r}," in generated


@pytest.fixture(scope="module")
def foo_warehouse(foo_project) -> Path:
    """``csrwh build`` in the copy (its own code) of the generated sample and foo beside it."""
    from csrwh.sample import generate

    root, copy = foo_project["root"], foo_project["copy"]
    generate(root / "data", scale=1, seed=0)
    data = root / "data" / "foo-data"
    data.mkdir(parents=True)
    lines = [
        json.dumps(
            {
                "id": i,
                "user": user,
                "split": split,
                "score": score,
                "turns": [
                    {"speaker": s, "text": t, **({"act": a} if a else {})} for s, t, a in turns
                ],
            }
        )
        for i, user, split, score, turns in FOO_DIALOGUES
    ]
    (data / "dialogues.jsonl.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    (data / "documents.tsv").write_text(_tsv([("doc_id", "title", "url"), *FOO_DOCUMENTS]), "utf-8")
    (data / "judgments.tsv").write_text(_tsv(FOO_JUDGMENTS), "utf-8")
    warehouse = root / "warehouse" / "csr.duckdb"
    code = (
        "import sys; from pathlib import Path; import csrwh.config as c; "
        f"assert c.PROJECT_ROOT == Path({str(copy)!r}), c.PROJECT_ROOT; "
        "from csrwh.cli import main; sys.argv = ['csrwh'] + sys.argv[1:]; main()"
    )
    built = subprocess.run(
        [sys.executable, "-c", code, "build", "--data-dir", str(root / "data")]
        + ["--warehouse", str(warehouse)],
        check=False,
        cwd=copy,
        env=_env(copy, root / "target"),
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, (built.stdout + built.stderr)[-6000:]
    assert warehouse.is_file()
    return warehouse


def _tsv(rows) -> str:
    out = io.StringIO()
    csv.writer(out, delimiter="\t", lineterminator="\n").writerows(rows)
    return out.getvalue()


def _rows(warehouse: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_foo_reaches_the_marts(foo_warehouse: Path):
    conversations = _rows(
        foo_warehouse,
        "select conversation_id, subset, user_id, n_turns from conversations "
        "where corpus = 'foo' order by 1",
    )
    assert conversations == [
        (f"foo:{i}", split, f"foo:{user}", len(turns)) for i, user, split, _, turns in FOO_DIALOGUES
    ]
    turns = _rows(
        foo_warehouse,
        "select conversation_id, turn_index, role, text from turns where corpus = 'foo' order by 1, 2",
    )
    assert turns == [
        (f"foo:{i}", k, "user" if s == "user" else "system", t)
        for i, _, _, _, ts in FOO_DIALOGUES
        for k, (s, t, _) in enumerate(ts)
    ]
    # the scale comes from seeds/foo/foo__rating_scales.csv: 1..5
    ratings = _rows(
        foo_warehouse,
        "select conversation_id, aspect, value, scale_min, scale_max, value_normalized "
        "from ratings where corpus = 'foo' order by 1",
    )
    assert ratings == [
        (f"foo:{i}", "score", float(score), 1.0, 5.0, (score - 1) / 4)
        for i, _, _, score, _ in FOO_DIALOGUES
    ]
    # the family comes from seeds/foo/foo__intent_taxonomy.csv
    families = {"ask_rec": "request/recommendation", "thank": "chitchat", "answer": "answer"}
    intents = _rows(
        foo_warehouse,
        "select conversation_id, turn_index, label_scheme, raw_label, intent_family from intents "
        "where corpus = 'foo' order by 1, 2",
    )
    assert intents == [
        (f"foo:{i}", k, "foo_act" if s == "user" else "foo_bot_act", a, families[a])
        for i, _, _, _, ts in FOO_DIALOGUES
        for k, (s, _, a) in enumerate(ts)
        if a
    ]
    # items of foo's own kind (seeds/foo/foo__item_kinds.csv), one per line of documents.tsv
    items = _rows(
        foo_warehouse,
        "select item_id, item_kind, title, url from items where corpus = 'foo' order by 1",
    )
    assert items == [(f"foo:{d}", "web_document", t, u) for d, t, u in FOO_DOCUMENTS]
    # judgments on foo's declared scale -2..4 (seeds/foo/foo__judgment_kinds.csv)
    judgments = _rows(
        foo_warehouse,
        "select topic_id, doc_id, grade, judgment_kind, collection, grade_min, grade_max, "
        "item_id, conversation_id from relevance_judgments where corpus = 'foo' order by 1, 2",
    )
    dialogues = {i for i, *_ in FOO_DIALOGUES}
    documents = {d for d, *_ in FOO_DOCUMENTS}
    assert judgments == sorted(
        (
            t, d, g, "graded", "foo", -2, 4,
            f"foo:{d}" if d in documents else None,
            f"foo:{t}" if t in dialogues else None,
        )
        for t, d, g in FOO_JUDGMENTS
    )  # fmt: skip
    users = _rows(foo_warehouse, "select user_id from users where corpus = 'foo' order by 1")
    assert users == [(u,) for u in sorted({f"foo:{user}" for _, user, _, _, _ in FOO_DIALOGUES})]
    # the lookups the marts join are the union of the corpora's own seeds, foo's included
    scales = _rows(
        foo_warehouse,
        "select aspect, scale_min, scale_max from seeds.rating_scales where corpus = 'foo'",
    )
    assert scales == [("score", 1, 5)]


def test_foos_own_suites_gated_its_build(foo_warehouse: Path):
    """The gate ran foo's raw suite and its conversations suite (its rows of the mart against
    its raw records), both from foo's own files, and they passed."""
    results = _rows(
        foo_warehouse,
        "select suite, expectation, success from main.dq_results "
        "where suite like 'raw.foo__%' or suite = 'foo__conversations' order by 1, 2",
    )
    assert ("foo__conversations", "one_conversation_per_ingested_record", True) in results
    assert ("foo__conversations", "turn_counts_match_raw", True) in results
    assert ("raw.foo__dialogues", "corpus_matches_table", True) in results
    assert ("raw.foo__dialogues", "source_path_in_upstream_layout", True) in results
    assert all(success for _, _, success in results)
    # the shared intents rule read foo's label schemes: its labels on the bot's turns passed
    shared = _rows(
        foo_warehouse,
        "select success from main.dq_results "
        "where suite = 'intents' and expectation = 'labels_on_the_right_role'",
    )
    assert shared == [(True,)]


def test_eval_of_foo_equals_ir_measures_called_directly(foo_project, foo_warehouse: Path):
    """`csrwh eval --corpus foo` (and its alias) against ir_measures on the judgments as
    judgments.tsv holds them, with a run that ranks each topic's documents by name."""
    import ir_measures

    run_lines = []
    for topic in dict.fromkeys(t for t, _, _ in FOO_JUDGMENTS):
        docs = sorted(d for t, d, _ in FOO_JUDGMENTS if t == topic)
        run_lines += [f"{topic} Q0 {d} {r} {10 - r} x" for r, d in enumerate(docs, start=1)]
    run = foo_project["root"] / "foo.run"
    run.write_text("\n".join(run_lines) + "\n", encoding="utf-8")
    measures = ["nDCG@10", "P@5", "AP", "RR"]
    direct = ir_measures.calc_aggregate(
        [ir_measures.parse_measure(m) for m in measures],
        [ir_measures.Qrel(t, d, g) for t, d, g in FOO_JUDGMENTS],
        [ir_measures.ScoredDoc(*line.split()[0:3:2], float(line.split()[4])) for line in run_lines],
    )
    code = "import sys; from csrwh.cli import main; sys.argv = ['csrwh'] + sys.argv[1:]; main()"
    for name in ("foo", "foo-ds"):
        out = subprocess.run(
            [sys.executable, "-c", code, "eval", str(run), "--warehouse", str(foo_warehouse),
             "--corpus", name, "--format", "json", *[a for m in measures for a in ("--measure", m)]],
            check=False,
            cwd=foo_project["copy"],
            env=_env(foo_project["copy"], foo_project["root"] / "target"),
            capture_output=True,
            text=True,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        assert report["corpus"] == "foo"
        assert [r["kind"] for r in report["results"]] == ["graded", "all"]
        for result in report["results"]:
            assert result["n_topics_evaluated"] == 3
            for measure in measures:
                assert result["aggregate"][measure] == pytest.approx(
                    direct[ir_measures.parse_measure(measure)], abs=1e-9
                ), measure
