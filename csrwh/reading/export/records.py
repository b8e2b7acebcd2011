"""The conversation records (one row per conversation, :func:`csrwh.load`'s shape) and the marts
as files: Parquet per split, JSON Lines, or a Hugging Face ``DatasetDict``."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from csrwh.reading.export.layout import CONVERSATIONS

# ---------------------------------------------------------------------------------------------
# conversation records
# ---------------------------------------------------------------------------------------------


def _conversations_table(con, corpora: Sequence[str]):
    from csrwh.reading.api import conversations_relation
    from csrwh.reading.query import _string_literal

    relation = conversations_relation(con)
    if corpora:
        relation = relation.filter(f"corpus in ({', '.join(_string_literal(c) for c in corpora)})")
    table = relation.arrow()
    return table.read_all() if hasattr(table, "read_all") else table


def _plain(value: Any) -> Any:
    """JSON-ready: NaN/inf floats become null (JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _typed_paths(value: Any, path: str = "", into: set[str] | None = None) -> set[str]:
    """The paths at which ``value`` shows a type: every key whose value is not null, every
    list that is not empty (``[]``), down to the leaves."""
    into = set() if into is None else into
    if value is None:
        return into
    into.add(path)
    if isinstance(value, dict):
        for key, item in value.items():
            _typed_paths(item, f"{path}.{key}", into)
    elif isinstance(value, list):
        for item in value:
            _typed_paths(item, f"{path}[]", into)
    return into


def _witnesses(table) -> list[int]:
    """The rows that first show each typed path (see :func:`_typed_paths`), in table order.

    JSON readers infer a column's type from the first rows (polars: 100, ``datasets``: its
    first block of 10 MB); a column that is null there gets no type and fails on the first
    value after it (on the real corpora ``user_satisfaction`` and the ratings' ``comment``).
    Written first, these rows show each reader every column's type at once."""
    seen: set[str] = set()
    witnesses: list[int] = []
    offset = 0
    for batch in table.to_batches(max_chunksize=1000):
        for i, row in enumerate(batch.to_pylist()):
            paths = _typed_paths(_plain(row))
            if not paths <= seen:
                seen |= paths
                witnesses.append(offset + i)
        offset += batch.num_rows
    return witnesses


def _split_tables(table) -> dict[str, Any]:
    """split -> the records of that split, in the order of :data:`csrwh.reading.api.SPLIT_RATIOS`;
    a split without records is left out."""
    import pyarrow.compute as pc

    from csrwh.reading.api import SPLIT_RATIOS

    parts = {name: table.filter(pc.equal(table["split"], name)) for name in SPLIT_RATIOS}
    return {name: part for name, part in parts.items() if part.num_rows}


def _write_conversations(table, out: Path, output_format: str) -> dict[Path, int]:
    """Write the records; returns each data file written with its row count."""
    if output_format == "parquet":
        import pyarrow.parquet as pq

        folder = out / CONVERSATIONS
        folder.mkdir()
        written = {}
        for name, part in _split_tables(table).items():
            path = folder / f"{name}.parquet"
            pq.write_table(part, path)
            written[path] = pq.ParquetFile(path).metadata.num_rows
        return written
    if output_format == "jsonl":
        import pyarrow as pa

        path = out / f"{CONVERSATIONS}.jsonl"
        witnesses = _witnesses(table)
        rest = sorted(set(range(table.num_rows)) - set(witnesses))
        n = 0
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            for part in (witnesses, rest):  # the records unchanged, the witnesses first
                for start in range(0, len(part), 1000):
                    rows = table.take(pa.array(part[start : start + 1000], pa.int64()))
                    for row in rows.to_pylist():
                        fh.write(
                            json.dumps(
                                _plain(row), ensure_ascii=False, allow_nan=False, default=str
                            )
                            + "\n"
                        )
                        n += 1
        return {path: n}
    import datasets

    folder = out / CONVERSATIONS
    splits = {
        name: datasets.Dataset(datasets.table.InMemoryTable(part))
        for name, part in _split_tables(table).items()
    }
    was_enabled = datasets.utils.logging.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # one summary line from the CLI instead
    try:
        datasets.DatasetDict(splits).save_to_disk(str(folder))
    finally:
        if was_enabled:
            datasets.enable_progress_bars()
    written: dict[Path, int] = {}
    for name in splits:
        arrows = sorted((folder / name).glob("*.arrow"))
        counts = _arrow_rows(arrows)
        written.update(counts)
    return written


def _marts_as_arrow(paths: list[Path]) -> list[Path]:
    """``--format hf``: each mart's Parquet file rewritten as an Arrow stream file beside it
    (``<mart>.arrow``, as ``save_to_disk`` writes), the Parquet file removed. ``datasets``
    reads every config of a folder with one builder, chosen from the default config's files
    (the records' ``.arrow``): a Parquet mart there fails with "Not an Arrow file"."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = []
    for path in paths:
        target = path.with_suffix(".arrow")
        source = pq.ParquetFile(path)
        with (
            pa.OSFile(str(target), "wb") as sink,
            pa.ipc.new_stream(sink, source.schema_arrow) as w,
        ):
            for batch in source.iter_batches(batch_size=10_000):
                w.write_batch(batch)
        source.close()
        path.unlink()
        out.append(target)
    return out


def _arrow_rows(paths: Iterable[Path]) -> dict[Path, int]:
    """Rows of each Arrow stream file that ``save_to_disk`` wrote."""
    import pyarrow as pa

    out = {}
    for path in paths:
        with pa.memory_map(str(path)) as source:
            out[path] = pa.ipc.open_stream(source).read_all().num_rows
    return out
