"""Checks of a `csrwh export` folder shared by the sample tests (tests/integration/test_export_formats.py)
and the real-corpora tests (tests/integration/test_export_real.py): the dataset card read by
huggingface_hub's own parser, its snippet run as written, every config loaded with `datasets`,
and the JSONL records read by `datasets` and polars."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from csrwh.reading import api


def hf_datasets():
    """The Hugging Face `datasets` package (the `hf` extra); tests that read with it skip without it."""
    return pytest.importorskip("datasets")


def hf_env(tmp_path: Path) -> dict[str, str]:
    """Environment for a subprocess that reads with `datasets`: offline, its own cache."""
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(tmp_path / "hf_home")}  # fmt: skip


def sql(warehouse: Path, query: str, params: list | None = None) -> list[tuple]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        return con.execute(query, params or []).fetchall()


def card_parts(folder: Path) -> tuple[dict, str]:
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front), body


def table_rows(body: str, header: str) -> list[list[str]]:
    """The cells of the markdown table under the header row ``header``."""
    lines = body.splitlines()
    start = lines.index(header) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


def assert_default_config_has_the_splits(out: Path, warehouse: Path, cache: Path) -> None:
    """``load_dataset(<export>)`` gives train / validation / test, each holding exactly the
    records of that split (not one train split holding them all)."""
    datasets = hf_datasets()
    default = datasets.load_dataset(str(out), cache_dir=str(cache))
    ids = [cid for (cid,) in sql(warehouse, "select conversation_id from conversations")]
    expected = Counter(api.split_of(cid) for cid in ids)  # the split rule, in Python
    assert {name: ds.num_rows for name, ds in default.items()} == dict(expected)
    for name, ds in default.items():
        assert set(ds["split"]) == {name}


def check_card_front_matter(out: Path) -> Any:
    """The card as huggingface_hub's own parser reads it: licences (``other`` with its name and
    link), task categories, and configs whose files exist. Returns the card data."""
    from huggingface_hub import DatasetCard

    data = DatasetCard.load(out / "README.md").data
    licences = data.license if isinstance(data.license, list) else [data.license]
    if "other" in licences:
        name, link = data.get("license_name"), data.get("license_link")
        assert name and re.fullmatch(r"[a-z0-9-.]+", name), (
            f"license other without license_name: {name}"
        )
        assert link and (out / link).is_file(), f"license other without a license_link file: {link}"
    else:
        assert data.get("license_name") is None
    assert data.task_categories and data.language and data.size_categories and data.pretty_name
    for config in data.configs:
        specs = config["data_files"]
        paths = [specs] if isinstance(specs, str) else [s["path"] for s in specs]
        assert all(list(out.glob(pattern)) for pattern in paths), config
    return data


def check_card_citations_and_subsets(out: Path, warehouse: Path) -> None:
    """Citations as the corpus registry's BibTeX; one subset row per subset in the export."""
    from ingest import registry

    _, body = card_parts(out)
    corpora = [c for (c,) in sql(warehouse, "select distinct corpus from conversations")]
    bibtex = re.findall(r"```bibtex\n(.*?)```", body, re.DOTALL)
    cited = [registry.lookup(c).citation.strip() for c in corpora if c != "custom"
             and registry.lookup(c).citation_known]  # fmt: skip
    for citation in cited:
        assert bibtex and citation in bibtex[0]
    rows = table_rows(
        body, "| corpus | subset | conversations | language | domain | licence | description |"
    )
    held = {
        (c, s): n
        for c, s, n in sql(
            warehouse, "select corpus, subset, count(*) from conversations group by all"
        )
    }
    assert {(r[0], r[1]): int(r[2]) for r in rows} == held


_COUNT_VARIABLES = """
import json as _json
def _rows(v):
    if hasattr(v, "num_rows"):
        return v.num_rows
    if hasattr(v, "height"):
        return v.height
    return {name: part.num_rows for name, part in v.items()}
print(_json.dumps({k: _rows(v) for k, v in dict(globals()).items()
                   if k in ("splits", "train", "records", "test", "frame", "mart")}))
"""


def run_card_snippet(out: Path, tmp_path: Path, cwd: Path | None = None) -> dict[str, Any]:
    """The card's Python block, run as written (from ``cwd``: where the export ran); the rows
    of each dataset or frame it made."""
    _, body = card_parts(out)
    (code,) = re.findall(r"```python\n(.*?)```", body, re.DOTALL)
    result = subprocess.run([sys.executable, "-c", code + _COUNT_VARIABLES], cwd=cwd or tmp_path,
                            env=hf_env(tmp_path), capture_output=True, text=True, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def check_every_config_loads(out: Path, warehouse: Path, cache: Path) -> list[str]:
    """`load_dataset(<export>, <config>)` for every config of the card, each with the rows of
    its table (the records: the conversations of the export); returns the config names."""
    datasets = hf_datasets()
    configs = check_card_front_matter(out).configs
    with open(out / "README.md", encoding="utf-8") as fh:
        n_records = int(re.search(r"^(\d+) conversations of ", fh.read(), re.MULTILINE).group(1))
    for config in configs:
        ds = datasets.load_dataset(str(out), config["config_name"], cache_dir=str(cache))
        name = config["config_name"].removeprefix("mart_")
        got = sum(d.num_rows for d in ds.values())
        if config["config_name"] == "conversations":
            assert got == n_records
        else:
            assert got == sql(warehouse, f'select count(*) from "{name}"')[0][0], name
    return [c["config_name"] for c in configs]


def _value_paths(value: Any, path: str) -> set[str]:
    """Every path at which ``value`` holds something (``.key``, ``[]`` for list items)."""
    if value is None:
        return set()
    if isinstance(value, dict):
        return {path}.union(*(_value_paths(v, f"{path}.{k}") for k, v in value.items()))
    if isinstance(value, list):
        return {path}.union(*(_value_paths(v, f"{path}[]") for v in value))
    return {path}


def _polars_null_paths(dtype: Any, path: str) -> list[str]:
    """The paths (written as csrwh.reading.export.records._typed_paths writes them) whose polars type is Null."""
    import polars as pl

    if dtype == pl.Null:
        return [path]
    if isinstance(dtype, pl.List):
        return _polars_null_paths(dtype.inner, f"{path}[]")
    if isinstance(dtype, pl.Struct):
        return [p for f in dtype.fields for p in _polars_null_paths(f.dtype, f"{path}.{f.name}")]
    return []


def _datasets_null_paths(feature: Any, path: str) -> list[str]:
    """The same for a `datasets` feature (Value('null'))."""
    datasets = hf_datasets()
    if isinstance(feature, datasets.Value):
        return [path] if feature.dtype == "null" else []
    if isinstance(feature, dict):
        return [p for k, v in feature.items() for p in _datasets_null_paths(v, f"{path}.{k}")]
    if isinstance(feature, list):
        return _datasets_null_paths(feature[0], f"{path}[]")
    if hasattr(feature, "feature"):  # List, LargeList, Sequence
        return _datasets_null_paths(feature.feature, f"{path}[]")
    return []


def check_jsonl_readers(path: Path, warehouse: Path, cache: Path) -> None:
    """`datasets`' json builder and `pl.read_ndjson` load every record, with a type for every
    field (also nested) that any record gives a value -- Null only where every record has
    null -- and the values of `csrwh.load`."""
    import polars as pl

    import csrwh

    datasets = hf_datasets()
    ds = datasets.load_dataset("json", data_files=str(path), cache_dir=str(cache))["train"]
    frame = pl.read_ndjson(path)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    with_values: set[str] = set().union(*(_value_paths(r, "") for r in records))
    untyped = [
        p for name, dtype in frame.schema.items() for p in _polars_null_paths(dtype, f".{name}")
    ]
    untyped += [p for name, f in ds.features.items() for p in _datasets_null_paths(f, f".{name}")]
    assert not set(untyped) & with_values, sorted(set(untyped) & with_values)
    expected = {
        r["conversation_id"]: r for r in csrwh.load(warehouse=warehouse, format="arrow").to_pylist()
    }
    assert ds.num_rows == frame.height == len(records) == len(expected)
    for record in records:  # each record as csrwh.load gives it, keys in the same order
        assert list(record) == list(expected[record["conversation_id"]])
        assert record == expected[record["conversation_id"]]
    assert frame.schema["user_satisfaction"] == pl.Float64
    by_id = dict(zip(frame["conversation_id"].to_list(), frame.to_dicts(), strict=True))
    for cid, record in expected.items():
        assert by_id[cid]["user_satisfaction"] == record["user_satisfaction"]
        assert by_id[cid]["ratings"] == record["ratings"]


def check_readme_export_example(warehouse: Path, tmp_path: Path) -> None:
    """The "Export for other tools" commands and Python block (docs/export.md, found by heading),
    run as written on ``warehouse`` (for the docs' demo warehouse), then each card's snippet from
    where the export ran."""
    hf_datasets()  # the example exports --format hf and reads with datasets
    from docs_text import doc_section

    _, section = doc_section("Export for other tools")
    env = {**os.environ, "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf_home")}  # fmt: skip
    bash = section.split("```bash\n", 1)[1].split("```", 1)[0]
    bash = bash.replace("warehouse/demo.duckdb", str(warehouse))
    bash = bash.replace(".venv/bin/csrwh", f"{sys.executable} -m csrwh.cli")
    result = subprocess.run(["bash", "-c", "set -euo pipefail\n" + bash], cwd=tmp_path, env=env,
                            capture_output=True, text=True, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    records = (
        (tmp_path / "exports/arena/conversations.jsonl").read_text(encoding="utf-8").splitlines()
    )
    assert records and {json.loads(r)["corpus"] for r in records} == {"crsarena"}
    python = section.split("```python\n", 1)[1].split("```", 1)[0]
    code = python + (
        "\nprint(sum(d.num_rows for d in splits.values()), turns.num_rows, hf_turns.num_rows,"
        " sum(d.num_rows for d in hf_splits.values()), arena.num_rows)"
        "\nprint(sorted(splits), sorted(hf_splits), sorted(set(arena['corpus'])))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                            capture_output=True, text=True, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    ((n,),) = sql(warehouse, "select count(*) from conversations")
    ((n_turns,),) = sql(warehouse, "select count(*) from turns")
    ((n_arena,),) = sql(warehouse, "select count(*) from conversations where corpus = 'crsarena'")
    counts, names = result.stdout.strip().splitlines()
    assert counts.split() == [str(n), str(n_turns), str(n_turns), str(n), str(n_arena)]
    splits = "['test', 'train', 'validation']"
    assert names == f"{splits} {splits} ['crsarena']"
    # each card's own snippet, run as written from where the export ran
    ((arena_turns,),) = sql(warehouse, "select count(*) from turns where corpus = 'crsarena'")
    for folder, turns in (("all", n_turns), ("arena", arena_turns), ("hf", n_turns)):
        got = run_card_snippet(tmp_path / "exports" / folder, tmp_path / folder, cwd=tmp_path)
        assert got["mart"] == turns, folder


def run_cli(*args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DO_NOT_TRACK": "1"}
    prefix = ["-c", code, *args] if code else ["-m", "csrwh.cli", *args]
    return subprocess.run(
        [sys.executable, *prefix], check=False, capture_output=True, text=True, env=env
    )


def assert_one_error(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert len([line for line in result.stderr.splitlines() if line.startswith("error:")]) == 1
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)
