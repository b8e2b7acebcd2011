"""text_diversity does not hold a corpus's texts or token ids (issue 23): its memory stays
flat as the corpus grows.

The model runs in a child process on a generated corpus of 120,000 utterances (~180 MB of
text; each one a long unspaced token, as Chinese text is, so tokens are as many as texts), with
DuckDB capped at 64 MB on one thread. The child's peak RSS above its RSS before the model
must stay under :data:`CAP`. The former whole-corpus implementation grew by ~1,030 MB here
(~610 MB at half the utterances: it grows with the corpus); this one by ~460 MB at either
size (measured 2026-11-25 on the shared 2-core machine).

The child's peak is its own address space's high-water mark (``VmHWM`` in
``/proc/self/status``), not ``getrusage``'s ``ru_maxrss``: Linux carries the parent's peak into
a child's ``ru_maxrss`` across fork/vfork + exec, so under pytest-xdist, in a worker that had
built warehouses before, the child "grew" by the worker's own peak (1,618 MiB in CI at f003bc7)
while alone it passed. :func:`test_the_child_measures_its_own_peak` keeps that honest.
"""

from __future__ import annotations

import json
import subprocess
import sys

import duckdb

from csrwh.config import PROJECT_ROOT

MODEL = PROJECT_ROOT / "models" / "marts" / "measures" / "text_diversity.py"
UTTERANCES = 120_000
CAP = 700 * 2**20

#: The child's memory readings: its RSS now and its own peak (``VmHWM``, the high-water mark
#: of this process' address space; ``ru_maxrss`` would start at the parent's peak).
MEMORY = r"""
def _status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
def rss():
    return _status("VmRSS")
def peak_rss():
    return _status("VmHWM")
"""

CHILD = (
    MEMORY
    + r"""
import importlib.util, json, sys
import duckdb, numpy, pyarrow  # imported before the baseline
db, model_path = sys.argv[1], sys.argv[2]
con = duckdb.connect(db)
con.execute("set threads = 1")
con.execute("set memory_limit = '64MB'")
spec = importlib.util.spec_from_file_location("text_diversity_under_cap", model_path)
model = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = model
spec.loader.exec_module(model)
class This:
    schema, identifier = "main", "text_diversity"
    database = con.execute("select current_database()").fetchall()[0][0]
    def __repr__(self):
        return '"main"."text_diversity"'
class Config:
    def __call__(self, **kwargs):
        pass
    def get(self, key, default=None):
        return default
class Dbt:
    is_incremental = False
    this = This()
    config = Config()
    def ref(self, name):
        return con.table(name)
before = rss()
rows = model.model(Dbt(), con).num_rows
print(json.dumps({"rows": rows, "growth": peak_rss() - before}))
"""
)

#: A parent that holds ``PARENT_PEAK`` bytes, frees them, then runs :data:`MEMORY`'s reading in
#: a child, as a pytest-xdist worker that has built warehouses runs the model's child.
FAT_PARENT = r"""
import subprocess, sys
held = bytearray(int(sys.argv[1]))
for i in range(0, len(held), 4096):
    held[i] = 1  # touched: resident
del held
child = sys.argv[2] + "\nprint(peak_rss())"
print(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True).stdout)
"""
PARENT_PEAK = 768 * 2**20


def _corpus(path: str, n: int) -> None:
    with duckdb.connect(path) as con:
        con.execute(
            f"create table conversations as select 'gen:c' || i as conversation_id, "
            "'gen' as corpus, 'sub' || (i % 2) as subset, case when i % 3 = 0 then null else "
            "'sys' || (i % 2) end as system_id, 'f' as source_path, i as source_record_index "
            f"from range({n} // 6) t(i)"
        )
        con.execute(
            "create table int_turns_unioned as select 'gen:c' || (i // 6) as conversation_id, "
            "(i % 6)::integer as turn_index, case when i % 2 = 0 then 'user' else 'system' end "
            "as role, 'Film w' || (i % 97) || '. ' || repeat(md5(i::varchar), 40) || ' the end' "
            f"as text, null::boolean as is_image from range({n}) t(i)"
        )


def test_the_child_measures_its_own_peak() -> None:
    """A child started by a process that once held 768 MiB reports its own peak (a bare Python:
    tens of MiB), not its parent's; ``ru_maxrss`` reported the parent's 768+ MiB here."""
    done = subprocess.run(
        [sys.executable, "-c", FAT_PARENT, str(PARENT_PEAK), MEMORY],
        capture_output=True,
        text=True,
        check=True,
    )
    peak = int(done.stdout.strip())
    assert 0 < peak < PARENT_PEAK // 4, f"the child's peak {peak / 2**20:.0f} MiB"


def test_model_memory_does_not_grow_with_the_corpus(tmp_path) -> None:
    db = str(tmp_path / "corpus.duckdb")
    _corpus(db, UTTERANCES)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, db, str(MODEL)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["rows"] > 0
    assert result["growth"] < CAP, f"grew {result['growth'] / 2**20:.0f} MiB"
