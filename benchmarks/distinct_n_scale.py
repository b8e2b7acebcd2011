"""How the Distinct-n engine of ``text_diversity`` grows with a corpus's length.

Usage::

    .venv/bin/python benchmarks/distinct_n_scale.py [--sizes 100k,400k,1.6m] [--against TREE]

For each size, a fresh child process makes that many synthetic utterances (9 a conversation,
~40 characters, in shuffled order, two roles, three subsets) in an in-memory DuckDB (one thread,
1 GiB) and computes the corpus's ``text_diversity`` rows with
``csrwh.measures.distinct_n.corpus_rows`` (the engine large corpora get). Prints each size's wall
and CPU seconds, peak RSS, a digest of the rows (equal digests: equal figures) and the
ratio of its wall to the size before it: cost that grows with the data keeps the
ratio near the sizes' ratio. ``--against TREE`` also runs another checkout of the project (its
folder on ``PYTHONPATH``), the two taking turns size by size, for a before/after in one run.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _size(text: str) -> int:
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def child(n: int) -> None:
    """Compute one synthetic corpus's rows; print wall and CPU seconds."""
    import duckdb

    from csrwh.measures import distinct_n

    con = duckdb.connect(config={"threads": "1", "memory_limit": "1GiB"})
    con.execute(
        "create table utterances as select 'bench/c' || (i // 9) as conversation_id, "
        "(i % 9)::integer as turn_index, "
        "case when i % 2 = 0 then 'user' else 'assistant' end as role, "
        "'some words w' || (i % 5003) || ' and x' || (i % 97) || ' of y' || (i % 11) as text, "
        "'s' || ((i // 9) % 3) as subset, null::varchar as system_id, "
        "'bench/part-' || (i // 90000) || '.jsonl' as source_path, "
        f"(i // 9) as source_record_index from range({n}) t(i) order by hash(i)"
    )
    rows: dict[str, list] = {name: [] for name in distinct_n.SCHEMA.names}
    started, cpu = time.perf_counter(), time.process_time()
    distinct_n.corpus_rows(con, con.table("utterances"), "bench", rows)
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    digest = hashlib.sha256(repr(sorted(zip(*rows.values(), strict=True))).encode()).hexdigest()
    print(f"{wall:.2f} {used:.2f} {peak:.0f} {len(rows['corpus'])} {digest[:12]}")


def run(n: int, tree: Path) -> tuple[float, float, float, int, str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(n)],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), float(out[1]), float(out[2]), int(out[3]), out[4]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100k,400k,1.6m", help="utterances per corpus")
    parser.add_argument("--against", type=Path, default=None, help="another checkout to compare")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child)
        return 0
    sizes = [_size(s) for s in args.sizes.split(",")]
    trees = [("this", ROOT)] + ([("against", args.against.resolve())] if args.against else [])
    before: dict[str, tuple[int, float]] = {}
    print(
        "tree     utterances   wall s    CPU s  peak MiB  rows  rows' sha256  wall ratio (size ratio)"
    )
    for n in sizes:
        for label, tree in trees:
            wall, cpu, peak, rows, digest = run(n, tree)
            ratio = ""
            if label in before:
                m, w = before[label]
                ratio = f"x{wall / w:.2f} (x{n / m:.2f})"
            before[label] = (n, wall)
            print(
                f"{label:8s} {n:>10,} {wall:8.2f} {cpu:8.2f} {peak:9.0f} {rows:5d}  {digest}  {ratio}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
