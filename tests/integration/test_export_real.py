"""`csrwh export` of the real corpora in ../shared/corpora (the session's `real_warehouse`), in
every format: the JSONL records load in `datasets` and polars with every field typed (a field
null in the first rows used to get no type), every config of each card loads with `datasets`
(the hf export's marts included; no empty mart is a config), the card's snippet runs as
written, its front matter parses with huggingface_hub, it cites the registry's BibTeX and lists
only the subsets the export holds, and the input files' sha256 live in input_files.csv, not in
the card (the card was 618 KB, 5,009 lines)."""

from __future__ import annotations

import csv
import importlib.util
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from export_checks import (
    assert_default_config_has_the_splits,
    card_parts,
    check_card_citations_and_subsets,
    check_card_front_matter,
    check_every_config_loads,
    check_jsonl_readers,
    check_readme_export_example,
    run_card_snippet,
    sql,
)

from csrwh.reading.query import list_marts

pytestmark = pytest.mark.integration

FORMATS = ("parquet", "jsonl", "hf")


@pytest.fixture(scope="module")
def real_exports(real_warehouse: Path, module_tmp_path: Path) -> dict[str, Path]:
    out = {}
    for fmt in FORMATS:
        if fmt == "hf" and importlib.util.find_spec("datasets") is None:
            continue
        folder = module_tmp_path / fmt
        result = subprocess.run(
            [sys.executable, "-m", "csrwh.cli", "export", "--warehouse", str(real_warehouse),
             "--out", str(folder), "--format", fmt],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        out[fmt] = folder
    return out


def test_jsonl_loads_in_datasets_and_polars(
    real_exports: dict[str, Path], real_warehouse: Path, tmp_path: Path
) -> None:
    check_jsonl_readers(real_exports["jsonl"] / "conversations.jsonl", real_warehouse, tmp_path)


@pytest.mark.parametrize("fmt", FORMATS)
def test_card_snippet_runs_and_every_config_loads(
    fmt: str, real_exports: dict[str, Path], real_warehouse: Path, tmp_path: Path
) -> None:
    out = real_exports[fmt]
    got = run_card_snippet(out, tmp_path)
    ((n,),) = sql(real_warehouse, "select count(*) from conversations")
    assert got["mart"] == sql(real_warehouse, "select count(*) from turns")[0][0]
    if fmt == "jsonl":
        assert got["records"] == got["frame"] == n
    else:
        assert sum(got["splits"].values()) == n
        assert_default_config_has_the_splits(out, real_warehouse, tmp_path)
    names = check_every_config_loads(out, real_warehouse, tmp_path)
    _, body = card_parts(out)
    with duckdb.connect(str(real_warehouse), read_only=True) as con:
        marts = list_marts(con)
        empty = [m for m in marts if not con.execute(f'select count(*) from "{m}"').fetchone()[0]]
    assert empty  # the real corpora have empty marts (serp_views, convsearch_*, ...)
    configs = ["conversations"]  # jsonl: the marts are Parquet, no config of a JSON folder
    if fmt != "jsonl":
        configs += [f"mart_{m}" for m in marts if m not in empty]
    assert sorted(names) == sorted(configs)
    listed_empty = body.split("Empty marts", 1)[1].split("\n", 1)[0]
    assert all(f"`{name}`" in listed_empty for name in empty)


@pytest.mark.parametrize("fmt", FORMATS)
def test_card_front_matter_citations_subsets_and_size(
    fmt: str, real_exports: dict[str, Path], real_warehouse: Path
) -> None:
    out = real_exports[fmt]
    data = check_card_front_matter(out)
    assert "other" in data.license and data.license_link == "LICENSES.md"
    check_card_citations_and_subsets(out, real_warehouse)
    _, body = card_parts(out)
    assert "| cosrec | raw |" not in body  # a partition the real corpora do not hold
    with open(out / "input_files.csv", encoding="utf-8", newline="") as fh:
        listed = {(r["source_path"], r["sha256"]) for r in csv.DictReader(fh)}
    ingested = set(sql(real_warehouse, "select source_path, file_sha256 from raw.ingest_files"))
    assert listed == ingested
    assert not any(digest in body for _, digest in ingested)
    text = (out / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < len(ingested)  # thousands of sha256 lines: in the csv


def test_readme_export_example_works_on_the_real_corpora(
    real_warehouse: Path, tmp_path: Path
) -> None:
    check_readme_export_example(real_warehouse, tmp_path)
