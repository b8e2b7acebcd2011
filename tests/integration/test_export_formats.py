"""`csrwh export --format parquet|jsonl|hf [--corpus] [--trec]` on the built sample: Hugging
Face `datasets` reads every format, JSONL round-trips to the records of `csrwh.load`, the
dataset card lists every file with its row count and every corpus' licence, and bad input is
one clear error."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import re
from collections import Counter
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from export_checks import (
    assert_default_config_has_the_splits,
    card_parts,
    check_card_citations_and_subsets,
    check_card_front_matter,
    check_every_config_loads,
    check_jsonl_readers,
    hf_datasets,
    run_card_snippet,
    run_cli,
    sql,
    table_rows,
)

import csrwh
from csrwh.config import PROJECT_ROOT
from csrwh.reading import api
from csrwh.reading.export import CONVERSATION_COLUMNS, hf_license

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach the network
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


FORMATS = ("parquet", "jsonl", "hf")
DATA_SUFFIXES = (".parquet", ".jsonl", ".arrow", ".txt", ".tsv", ".csv")


@pytest.fixture(scope="module")
def exports(sample_warehouse: Path, module_tmp_path: Path) -> dict[str, Path]:
    """The whole sample exported once per format (parquet with the TREC files)."""
    root = module_tmp_path
    out = {}
    for fmt in FORMATS:
        if fmt == "hf" and importlib.util.find_spec("datasets") is None:
            continue  # the hf tests skip
        extra = ["--trec"] if fmt == "parquet" else []
        folder = root / fmt
        result = run_cli("export", "--warehouse", str(sample_warehouse), "--out", str(folder),
                         "--format", fmt, *extra)  # fmt: skip
        assert result.returncode == 0, result.stderr
        out[fmt] = folder
    return out


# ---------------------------------------------------------------------------------------------
# the records, read back
# ---------------------------------------------------------------------------------------------


def test_load_dataset_reads_the_parquet_export(
    exports: dict[str, Path], sample_warehouse: Path, tmp_path: Path
) -> None:
    datasets = hf_datasets()
    out = exports["parquet"]
    ds = datasets.load_dataset(
        "parquet", data_files=str(out / "conversations" / "*.parquet"), cache_dir=str(tmp_path)
    )["train"]
    ((n,),) = sql(sample_warehouse, "select count(*) from conversations")
    assert ds.num_rows == n
    assert ds.column_names == csrwh.load(warehouse=sample_warehouse).columns
    # the messages of every conversation are its turns in order, roles user / assistant
    turns: dict[str, list[tuple[str, str]]] = {}
    for cid, role, text in sql(
        sample_warehouse,
        "select conversation_id, role, coalesce(text, '') from turns order by conversation_id, turn_index",
    ):
        turns.setdefault(cid, []).append(("user" if role == "user" else "assistant", text))
    for row in ds:
        assert [(m["role"], m["content"]) for m in row["messages"]] == turns.get(
            row["conversation_id"], []
        )
    # the card's configs: the default is the records by the splits they carry, every mart
    # with rows is one more config
    assert_default_config_has_the_splits(out, sample_warehouse, tmp_path)
    mart = datasets.load_dataset(str(out), "mart_turns", cache_dir=str(tmp_path))["train"]
    assert mart.num_rows == sql(sample_warehouse, "select count(*) from turns")[0][0]


def test_jsonl_round_trips_to_the_records_of_load(
    exports: dict[str, Path], sample_warehouse: Path, tmp_path: Path
) -> None:
    datasets = hf_datasets()
    path = exports["jsonl"] / "conversations.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    loaded = csrwh.load(warehouse=sample_warehouse, format="arrow").to_pylist()
    by_id = {r["conversation_id"]: r for r in loaded}
    assert len(records) == len(by_id) == len(loaded)
    for record in records:  # each record as load gives it: the same keys in the same order
        assert list(record) == list(by_id[record["conversation_id"]])
        assert record == by_id[record["conversation_id"]]
    ds = datasets.load_dataset("json", data_files=str(path), cache_dir=str(tmp_path))["train"]
    assert ds.num_rows == len(records)
    assert ds[0]["messages"] == records[0]["messages"]
    check_jsonl_readers(path, sample_warehouse, tmp_path / "readers")


def test_jsonl_starts_with_a_record_typing_each_field() -> None:
    """The witnesses: the first record giving a path a value comes first, the rest keep their
    order; a reader of the first rows sees every field's type."""
    from csrwh.reading.export.records import _typed_paths, _witnesses

    rows = [
        {"a": None, "b": [], "c": [{"x": None}]},
        {"a": None, "b": [], "c": [{"x": None}]},
        {"a": 1.5, "b": [], "c": []},
        {"a": None, "b": [{"y": "s"}], "c": [{"x": "t"}]},
        {"a": 2.5, "b": [{"y": "u"}], "c": [{"x": "v"}]},
    ]
    table = pa.Table.from_pylist(rows)
    assert _witnesses(table) == [0, 2, 3]
    first = _typed_paths(rows[0]) | _typed_paths(rows[2]) | _typed_paths(rows[3])
    assert first == set().union(*(_typed_paths(r) for r in rows))
    assert ".a" in first and ".b[].y" in first and ".c[].x" in first


def test_hf_export_is_a_dataset_dict_by_split(
    exports: dict[str, Path], sample_warehouse: Path
) -> None:
    datasets = hf_datasets()
    loaded = datasets.load_from_disk(str(exports["hf"] / "conversations"))
    assert set(loaded) == set(api.SPLIT_RATIOS)
    ids = [cid for (cid,) in sql(sample_warehouse, "select conversation_id from conversations")]
    expected = Counter(api.split_of(cid) for cid in ids)  # the split rule, in Python
    for split, ds in loaded.items():
        assert ds.num_rows == expected[split]
        assert set(ds["split"]) <= {split}
        assert all(api.split_of(cid) == split for cid in ds["conversation_id"])


# ---------------------------------------------------------------------------------------------
# the dataset card
# ---------------------------------------------------------------------------------------------


def count_rows(path: Path) -> int:
    """Rows of a data file, counted without the exporter's code."""
    if path.suffix == ".parquet":
        return pq.ParquetFile(path).metadata.num_rows
    if path.suffix == ".arrow":
        with pa.memory_map(str(path)) as source:
            return pa.ipc.open_stream(source).read_all().num_rows
    with open(path, encoding="utf-8", newline="") as fh:
        if path.suffix == ".csv":
            return sum(1 for _ in csv.DictReader(fh))  # records, not the header
        return sum(1 for _ in fh)


def hf_id(licence: str) -> str:
    """The Hugging Face licence id: an SPDX id in lower case, 'other' for free text."""
    return licence.lower() if re.fullmatch(r"[A-Za-z0-9.+-]+", licence) else "other"


def test_licence_ids_follow_hugging_face() -> None:
    cases = {"Apache-2.0": "apache-2.0", "CDLA-Permissive-2.0": "cdla-permissive-2.0",
             "CC0-1.0": "cc0-1.0", "see upstream": "other", "": "other", "unknown": "unknown"}  # fmt: skip
    assert {licence: hf_license(licence) for licence in cases} == cases
    assert hf_license(None) == "other"


def expected_licences(warehouse: Path) -> dict[str, set[str]]:
    """corpus -> licences: the corpora seed's file; your own corpora's corpus.json (raw) per
    subset, 'unknown' for a subset without one."""
    with open(PROJECT_ROOT / "seeds" / "corpora.csv", encoding="utf-8", newline="") as fh:
        out: dict[str, set[str]] = {}
        for row in csv.DictReader(fh):
            out.setdefault(row["corpus"], set()).add(row["licence"])
    custom = sql(warehouse, "select distinct subset from conversations where corpus = 'custom'")
    if custom:
        given = dict(
            sql(
                warehouse,
                "select split_part(source_path, '/', 1), payload ->> '$.licence' from raw.custom__corpora",
            )
        )
        out["custom"] = {given.get(subset) or "unknown" for (subset,) in custom}
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_card_lists_every_file_with_its_row_count_and_every_licence(
    fmt: str, exports: dict[str, Path], sample_warehouse: Path
) -> None:
    if fmt not in exports:
        hf_datasets()  # skips: the hf export needs datasets
    out = exports[fmt]
    meta, body = card_parts(out)
    files = {
        row[0].strip("`"): int(row[1]) for row in table_rows(body, "| file | rows | content |")
    }
    on_disk = {
        p.relative_to(out).as_posix(): p
        for p in out.rglob("*")
        if p.is_file() and p.suffix in DATA_SUFFIXES
    }
    assert set(files) == set(on_disk)
    for rel, path in on_disk.items():
        assert files[rel] == count_rows(path), rel
    # front matter: HF fields, and every config's data files exist
    assert {"license", "pretty_name", "size_categories", "configs", "language"} <= set(meta)
    for config in meta["configs"]:
        specs = config["data_files"]
        paths = [specs] if isinstance(specs, str) else [s["path"] for s in specs]
        for pattern in paths:
            assert list(out.glob(pattern)), (config["config_name"], pattern)
    # every corpus with its licence from the seed, in the body and (as an HF id) in the front matter
    corpora = [c for (c,) in sql(sample_warehouse, "select distinct corpus from conversations")]
    licences = expected_licences(sample_warehouse)
    listed = {
        row[0]: row
        for row in table_rows(body, "| corpus | conversations | licence | upstream | citation |")
    }
    assert set(listed) == set(corpora)
    hf_ids = meta["license"] if isinstance(meta["license"], list) else [meta["license"]]
    for corpus in corpora:
        for licence in licences[corpus]:
            assert licence in listed[corpus][2]
            assert hf_id(licence) in hf_ids
        assert listed[corpus][4], f"{corpus} has no citation line"
    # provenance: the build id in the card, the sha256 of every input file in the manifest
    # file it links (not in the card: thousands of lines on the real corpora)
    ((build_id,),) = sql(sample_warehouse, "select build_id from build_info")
    assert build_id in body
    assert "](input_files.csv)" in body
    with open(out / "input_files.csv", encoding="utf-8", newline="") as fh:
        listed_files = list(csv.DictReader(fh))
    assert {
        (r["corpus"], r["source_path"], r["sha256"], int(r["records"])) for r in listed_files
    } == set(
        sql(
            sample_warehouse,
            "select corpus, source_path, file_sha256, n_records from raw.ingest_files",
        )
    )
    for (digest,) in sql(sample_warehouse, "select file_sha256 from raw.ingest_files"):
        assert digest not in body
    # every column of the records is described
    described = {
        row[0].strip("`"): row[2] for row in table_rows(body, "| column | type | description |")
    }
    columns = csrwh.load(warehouse=sample_warehouse).columns
    assert set(columns) <= set(described)
    assert all(described[c] for c in columns)
    assert set(CONVERSATION_COLUMNS) == set(columns)


@pytest.mark.parametrize("fmt", FORMATS)
def test_card_front_matter_parses_with_huggingface_hub(
    fmt: str, exports: dict[str, Path], sample_warehouse: Path
) -> None:
    if fmt not in exports:
        hf_datasets()
    data = check_card_front_matter(exports[fmt])
    assert "other" in data.license  # the sample's CoSRec, CRSArena, ConvSearch: 'see upstream'
    check_card_citations_and_subsets(exports[fmt], sample_warehouse)


@pytest.mark.parametrize("fmt", FORMATS)
def test_card_snippet_runs_as_written(
    fmt: str, exports: dict[str, Path], sample_warehouse: Path, tmp_path: Path
) -> None:
    hf_datasets()
    got = run_card_snippet(exports[fmt], tmp_path)
    ((n,),) = sql(sample_warehouse, "select count(*) from conversations")
    ((n_turns,),) = sql(sample_warehouse, "select count(*) from turns")
    assert got["mart"] == n_turns
    if fmt == "jsonl":
        assert got["records"] == got["frame"] == n
    else:
        assert sum(got["splits"].values()) == n and set(got["splits"]) == set(api.SPLIT_RATIOS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_config_of_the_card_loads(
    fmt: str, exports: dict[str, Path], sample_warehouse: Path, tmp_path: Path
) -> None:
    """`load_dataset(<export>, <config>)` for every config the card declares: datasets reads
    every config of a folder with one builder (the default config's), so the hf export's
    marts are Arrow files and the jsonl export declares no Parquet mart as a config."""
    hf_datasets()
    out = exports[fmt]
    if fmt != "jsonl":
        assert_default_config_has_the_splits(out, sample_warehouse, tmp_path)
    names = check_every_config_loads(out, sample_warehouse, tmp_path)
    assert ("mart_turns" in names) is (fmt != "jsonl")


def test_empty_marts_get_no_config_and_are_listed(sample_warehouse: Path, tmp_path: Path) -> None:
    """A mart without rows fails to load as a config ("corresponds to no data"): it is
    listed as empty, and every config of the card loads."""
    datasets = hf_datasets()
    warehouse = tmp_path / "w.duckdb"
    warehouse.write_bytes(sample_warehouse.read_bytes())
    with duckdb.connect(str(warehouse)) as con:
        con.execute("delete from main.serp_views")
    out = tmp_path / "out"
    result = run_cli("export", "--warehouse", str(warehouse), "--out", str(out))
    assert result.returncode == 0, result.stderr
    meta, body = card_parts(out)
    names = [c["config_name"] for c in meta["configs"]]
    assert "mart_serp_views" not in names and "mart_turns" in names
    assert re.search(r"Empty marts [^\n]*`serp_views`", body)
    assert pq.ParquetFile(out / "marts" / "serp_views.parquet").metadata.num_rows == 0
    for name in names:
        assert datasets.load_dataset(str(out), name, cache_dir=str(tmp_path / "cache"))


def test_trec_files_hold_the_judgments_and_evaluate_back(
    exports: dict[str, Path], sample_warehouse: Path, tmp_path: Path
) -> None:
    """One folder per collection with judgments: a qrels file per kind and all, the topics; a
    run made from a collection's exported qrels alone is perfect for csrwh eval --corpus."""
    trec = exports["parquet"] / "trec"
    judged = sql(
        sample_warehouse,
        "select collection, judgment_kind, topic_id, doc_id, grade from relevance_judgments",
    )
    collections = sorted({c for c, *_ in judged})
    assert len(collections) > 1
    assert sorted(p.name for p in trec.iterdir()) == sorted(
        c.replace(":", "-") for c in collections
    )
    for collection in collections:
        folder = trec / collection.replace(":", "-")
        mine = [(k, t, d, g) for c, k, t, d, g in judged if c == collection]
        kinds = sorted({k for k, *_ in mine})
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            [*(f"qrels.{k}.txt" for k in [*kinds, "all"]), "topics.tsv"]
        )
        lines = {k: (folder / f"qrels.{k}.txt").read_text(encoding="utf-8").splitlines()
                 for k in [*kinds, "all"]}  # fmt: skip
        assert sorted(lines["all"]) == sorted(f"{t} 0 {d} {g}" for _, t, d, g in mine)
        for kind in kinds:
            assert sorted(lines[kind]) == sorted(
                f"{t} 0 {d} {g}" for k, t, d, g in mine if k == kind
            )
        assert not any('"' in line or "'" in line for line in lines["all"])  # ids unquoted
        topics = [
            line.split("\t")[0]
            for line in (folder / "topics.tsv").read_text(encoding="utf-8").splitlines()
        ]
        assert sorted(topics) == sorted({t for _, t, _, _ in mine})
        # a run built from the exported qrels alone is perfect for csrwh eval
        by_topic: dict[str, list[tuple[str, int]]] = {}
        for line in lines["all"]:
            topic, _, doc, grade = line.split()
            by_topic.setdefault(topic, []).append((doc, int(grade)))
        run = tmp_path / "from_qrels.run"
        run.write_text(
            "".join(
                f"{t} Q0 {d} {i + 1} {100 - i} x\n"
                for t, docs in by_topic.items()
                for i, (d, _) in enumerate(sorted(docs, key=lambda x: (-x[1], x[0])))
            ),
            encoding="utf-8",
        )
        result = run_cli("eval", str(run), "--warehouse", str(sample_warehouse), "--corpus",
                         collection, "--format", "json", "--per-topic",
                         "--measure", "nDCG@10")  # fmt: skip
        assert result.returncode == 0, result.stderr
        relevant = {t for t, docs in by_topic.items() if any(g > 0 for _, g in docs)}
        for item in json.loads(result.stdout)["results"]:
            assert item["n_topics_missing"] == 0
            for topic in relevant & set(item["per_topic"]):
                assert item["per_topic"][topic]["nDCG@10"] == pytest.approx(1.0), topic
