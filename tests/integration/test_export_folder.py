"""`csrwh export` with --corpus, its one-line errors and the export folder rules (what it refuses,
what it clears), on the sample warehouse."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from export_checks import (
    assert_one_error,
    card_parts,
    check_readme_export_example,
    run_cli,
    sql,
    table_rows,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach the network
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


# ---------------------------------------------------------------------------------------------
# --corpus
# ---------------------------------------------------------------------------------------------


def test_corpus_filter_keeps_only_those_corpora(sample_warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "two"
    wanted = {"crsarena", "recoreact"}
    result = run_cli("export", "--warehouse", str(sample_warehouse), "--out", str(out),
                     "--corpus", "crsarena", "--corpus", "recoreact")  # fmt: skip
    assert result.returncode == 0, result.stderr
    records = pa.concat_tables(
        pq.read_table(p) for p in sorted((out / "conversations").glob("*.parquet"))
    )
    assert set(records["corpus"].to_pylist()) == wanted
    ((n,),) = sql(
        sample_warehouse,
        "select count(*) from conversations where corpus in ('crsarena', 'recoreact')",
    )
    assert records.num_rows == n
    for path in (out / "marts").glob("*.parquet"):
        table = pq.read_table(path)
        if "corpus" in table.column_names:
            assert set(table["corpus"].to_pylist()) <= wanted, path.name
        if "conversation_id" in table.column_names:
            assert {c.split(":")[0] for c in table["conversation_id"].to_pylist() if c} <= wanted
    votes = pq.read_table(out / "marts" / "votes.parquet")  # split by its global ids
    assert votes.num_rows == sql(sample_warehouse, "select count(*) from votes")[0][0]
    judged = pq.read_table(out / "marts" / "relevance_judgments.parquet")  # of those corpora only
    assert set(judged["corpus"].to_pylist()) <= wanted
    _, body = card_parts(out)
    listed = table_rows(body, "| corpus | conversations | licence | upstream | citation |")
    assert {row[0] for row in listed} == wanted
    assert "Marts left out by `--corpus`" in body and "`relevance_judgments`" in body


# ---------------------------------------------------------------------------------------------
# errors and the export folder
# ---------------------------------------------------------------------------------------------


def test_missing_warehouse_unknown_corpus_and_format(
    sample_warehouse: Path, tmp_path: Path
) -> None:
    out = str(tmp_path / "x")
    absent = run_cli("export", "--warehouse", str(tmp_path / "absent.duckdb"), "--out", out)
    assert_one_error(absent, 1, "does not exist", "make demo")
    unknown = run_cli(
        "export", "--warehouse", str(sample_warehouse), "--out", out, "--corpus", "nope"
    )
    assert_one_error(
        unknown, 1, "corpus 'nope' is not in the warehouse", "it holds: convsearch, cosrec"
    )
    bad = run_cli("export", "--warehouse", str(sample_warehouse), "--out", out, "--format", "csv")
    assert_one_error(bad, 2, "unknown export format 'csv'")
    trec = run_cli("export", "--warehouse", str(sample_warehouse), "--out", out,
                   "--corpus", "crsarena", "--trec")  # fmt: skip
    assert_one_error(trec, 1, "none of the exported corpora has any", "--corpus")
    assert not Path(out).exists()  # nothing written on bad input
    Path(out).write_text("a file", encoding="utf-8")
    taken = run_cli("export", "--warehouse", str(sample_warehouse), "--out", out)
    assert_one_error(taken, 1, f"export folder {out} is a file")


def test_hf_without_datasets_says_how_to_install(sample_warehouse: Path, tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['datasets'] = None; sys.argv = ['csrwh'] + sys.argv[1:]; "
        "from csrwh.cli import main; main()"
    )
    result = run_cli("export", "--warehouse", str(sample_warehouse), "--out", str(tmp_path / "hf"),
                     "--format", "hf", code=code)  # fmt: skip
    assert_one_error(result, 1, "pip install 'csrwh[hf]'")


def test_export_folder_is_refused_unless_empty_or_an_earlier_export(
    sample_warehouse: Path, tmp_path: Path
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    args = [
        "export",
        "--warehouse",
        str(sample_warehouse),
        "--out",
        str(out),
        "--corpus",
        "crsarena",
    ]
    assert_one_error(run_cli(*args), 1, f"export folder {out} is not empty")
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]  # untouched

    fresh = tmp_path / "fresh"
    assert run_cli("export", "--warehouse", str(sample_warehouse), "--out", str(fresh),
                   "--corpus", "cosrec", "--trec").returncode == 0  # fmt: skip
    again = run_cli("export", "--warehouse", str(sample_warehouse), "--out", str(fresh),
                    "--corpus", "crsarena", "--format", "jsonl")  # fmt: skip
    assert again.returncode == 0, again.stderr
    # the earlier export's files are gone: exactly the new manifest's files remain
    manifest = json.loads((fresh / ".csrwh-export.json").read_text(encoding="utf-8"))
    present = sorted(
        p.relative_to(fresh).as_posix()
        for p in fresh.rglob("*")
        if p.is_file() and p.name != ".csrwh-export.json"
    )
    assert present == manifest["files"]
    assert not (fresh / "conversations").exists() and not (fresh / "trec").exists()
    assert not (fresh / "marts" / "relevance_judgments.parquet").exists()

    (fresh / ".csrwh-export.json").write_text("{not json", encoding="utf-8")
    broken = run_cli("export", "--warehouse", str(sample_warehouse), "--out", str(fresh))
    assert_one_error(broken, 1, f"{fresh / '.csrwh-export.json'}: not a csrwh export manifest")


def test_trec_dir_follows_the_rules_of_out(sample_warehouse: Path, tmp_path: Path) -> None:
    """--trec-dir is new, empty or an earlier export, like --out: a user's folder, the
    warehouse's folder and / are refused in one line before anything is written."""
    warehouse = tmp_path / "wh" / "w.duckdb"
    warehouse.parent.mkdir()
    warehouse.write_bytes(sample_warehouse.read_bytes())
    out = tmp_path / "out"

    def export_trec(trec_dir: Path) -> subprocess.CompletedProcess[str]:
        return run_cli("export", "--warehouse", str(warehouse), "--out", str(out),
                       "--corpus", "cosrec", "--trec-dir", str(trec_dir))  # fmt: skip

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "topics.tsv").write_text("my topics\n", encoding="utf-8")
    assert_one_error(export_trec(mine), 1, f"TREC folder {mine} is not empty", "--trec-dir")
    assert (mine / "topics.tsv").read_text(encoding="utf-8") == "my topics\n"
    assert sorted(p.name for p in mine.iterdir()) == ["topics.tsv"]
    assert not out.exists()  # refused before anything is written

    assert_one_error(export_trec(warehouse.parent), 1, "is the warehouse's folder")
    assert sorted(p.name for p in warehouse.parent.iterdir()) == ["w.duckdb"]

    trec = tmp_path / "trec"
    trec.mkdir()  # empty: taken
    first = export_trec(trec)
    assert first.returncode == 0, first.stderr
    manifest = json.loads((trec / ".csrwh-export.json").read_text(encoding="utf-8"))
    assert manifest["files"] == sorted(
        f"cosrec/{name}"
        for name in ("qrels.all.txt", "qrels.recommendation.txt", "qrels.search.txt", "topics.tsv")
    )
    again = export_trec(trec)  # an earlier export: replaced
    assert again.returncode == 0, again.stderr
    assert sorted(str(p.relative_to(trec)) for p in trec.rglob("*") if p.is_file()) == [
        ".csrwh-export.json",
        *manifest["files"],
    ]
    inner = run_cli("export", "--warehouse", str(warehouse), "--out", str(tmp_path / "t" / "o"),
                    "--corpus", "cosrec", "--trec-dir", str(tmp_path / "t"))  # fmt: skip
    assert_one_error(inner, 1, "lies inside --trec-dir")
    assert not (tmp_path / "t").exists()

    existed = {p.name for p in Path("/").iterdir()}
    root = export_trec(Path("/"))  # last: old code wrote four files there
    assert_one_error(root, 1, "TREC folder / is the root folder")
    assert {p.name for p in Path("/").iterdir()} == existed


def test_readme_export_example_works_on_the_sample(sample_warehouse: Path, tmp_path: Path) -> None:
    check_readme_export_example(sample_warehouse, tmp_path)
