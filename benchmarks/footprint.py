"""What a build uses, for benchmarks/custom_scale.py: the CPU time of a process tree (``/proc``),
the files under a folder, and each table's blocks in a DuckDB file, by schema."""

from __future__ import annotations

import os
from pathlib import Path


def folder_bytes(folder: Path) -> int:
    """The disk space the files under ``folder`` take (allocated blocks; 0 when it is gone)."""
    total = 0
    for dirpath, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except FileNotFoundError:  # a spill file removed while walking
                pass
    return total


def storage_by_table(warehouse: Path) -> dict[str, float]:
    """MiB each table of ``warehouse`` takes in its file: the distinct blocks (and the string
    overflow blocks) DuckDB's ``pragma_storage_info`` lists for it, times the block size.
    Views take none."""
    import duckdb

    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        (block_size,) = con.execute("select block_size from pragma_database_size()").fetchone()
        sizes = {}
        tables = con.execute(
            "select schema_name, table_name from duckdb_tables() where not temporary"
        ).fetchall()
        for schema, table in tables:
            info = f'pragma_storage_info(\'"{schema}"."{table}"\')'
            (blocks,) = con.execute(
                f"select count(distinct block) from ("
                f"select block_id as block from {info} where persistent and block_id >= 0 "
                f"union all select unnest(additional_block_ids) from {info} where persistent)"
            ).fetchone()
            sizes[f"{schema}.{table}"] = blocks * block_size / 2**20
        return sizes
    finally:
        con.close()


def storage_by_schema(by_table: dict[str, float]) -> dict[str, float]:
    by_schema: dict[str, float] = {}
    for name, mib in by_table.items():
        schema = name.split(".", 1)[0]
        by_schema[schema] = by_schema.get(schema, 0.0) + mib
    return dict(sorted(by_schema.items(), key=lambda kv: -kv[1]))


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system, every thread) of ``pid`` and its process tree so far: its own
    and its children's already waited for (``/proc/<pid>/stat``), plus that of every live
    descendant (the build's dbt child while it runs); None once ``pid`` has ended."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    # after the command: state ppid ... utime(12) stime(13) cutime(14) cstime(15), 0-based
    total = sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                children = fh.read().split()
        except OSError:  # a thread that ended meanwhile
            continue
        total += sum(cpu_seconds(int(child)) or 0.0 for child in children)
    return total


def cpu_between(cpu: list[tuple[float, float]], start: float, end: float) -> float:
    """CPU seconds used between two epoch times, from the (time, cumulative CPU) samples."""
    before = [c for t, c in cpu if t <= start]
    upto = [c for t, c in cpu if t <= end + 0.1]
    return (upto[-1] if upto else 0.0) - (before[-1] if before else 0.0)
